//! A party of four plays; every link of one guest fails at once (its
//! network changed). Its page asks the host over the lobby for a way
//! back; the host makes a comeback room and tells the two other guests
//! its code over their party links; all four pages meet there, the
//! returning page links to each of the three others (who keep the links
//! they have between them), and its fresh session takes its slot back.
//! Meanwhile the others read "Cy is reconnecting (N s)"; afterwards all
//! four play on and their logs agree past the rejoin. The returning page
//! hears its new links open only after the others sent on them.

use crate::common;

use common::World;
use web_shell::screens::Screen;

#[test]
fn a_party_guest_whose_links_drop_comes_back_into_its_slot() {
    let mut w = World::party_playing(4, 0x0bac_2026);
    let all = [0, 1, 2, 3];
    let rooms_before = w.rooms_made();
    let cy = w.id(2);

    // The host's first comeback room hangs at the service: the returning
    // page keeps asking, and every page says what goes on meanwhile.
    w.pages[0].answers_fetches = false;
    w.cut_party_links(2);
    w.run(1_000);
    assert_eq!(
        w.pages[2].shell.match_view().reconnecting.as_deref(),
        Some("Reconnecting…")
    );
    for p in [0, 1, 3] {
        let v = w.pages[p].shell.match_view();
        assert_eq!(v.held, Some((2, 19)), "page {p} holds the slot");
        // Each page names the player by its own roster's name for Cy.
        let nick = w.pages[p]
            .shell
            .lobby()
            .and_then(|c| c.player(&cy).map(|e| e.nick.clone()))
            .expect("Cy is in the roster");
        assert_eq!(
            v.reconnecting.as_deref(),
            Some(format!("{nick} is reconnecting (19 s)").as_str()),
            "page {p}"
        );
    }
    let stalled = w.pages[0].shell.match_view().tick;
    w.run(500);
    assert_eq!(
        w.pages[0].shell.match_view().tick,
        stalled,
        "nobody confirms a tick without the missing inputs"
    );
    // The returning page hears its new links open late (as a browser may,
    // a moment after they carry data): what the others send on them
    // first (who they are, the host's catch-up) is kept for its fresh
    // session, the hub messages among it taken off.
    w.hold_opens_of = Some(2);
    w.pages[0].answers_fetches = true;
    // The hung room is given up (10 s), and the next ask gets a room.
    w.until(12_000, "the others' comeback links are open", |w| {
        [0, 1, 3].iter().all(|&p| w.party_linked(p, 2))
    });
    w.run(200);
    w.release_opens();
    w.until(15_000, "the guest is back in the match", |w| {
        w.pages[2].shell.match_view().rejoined.is_some()
    });
    assert_eq!(w.rooms_made(), rooms_before + 1, "one comeback room");
    let back_at = w.pages[2].shell.match_view().rejoined.unwrap();
    w.until(10_000, "all four play on past the rejoin", |w| {
        all.iter()
            .all(|&p| w.pages[p].shell.match_view().tick > Some(back_at + 120))
    });
    for p in all {
        let v = w.pages[p].shell.match_view();
        assert_eq!(v.reconnecting, None, "page {p}: the line is gone");
        assert_eq!(v.held, None, "page {p}");
        assert_eq!(w.screen(p), Screen::Match, "page {p}");
    }
    // The comeback room is over: the host ended it.
    w.run(100);
    assert!(w.member_rooms.values().filter(|r| r.is_finished()).count() >= 1);

    w.leave_and_logs_agree(0, &all, &[1, back_at / 2, back_at, back_at + 120]);
}
