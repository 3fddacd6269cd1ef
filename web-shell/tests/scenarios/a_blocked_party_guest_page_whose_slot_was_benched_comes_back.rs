//! A party of three plays a game whose held slots play on. One guest's
//! page is blocked for 8 s while its links stay open: the others drop it
//! after the 5 s silence timeout and the host benches its slot (the game
//! plays it meanwhile). Its old session is never taken back, and the
//! host no longer speaks to it; once free, the page finds its session
//! holding the host's slot on a link still open, so it comes back as for
//! a lost link (fresh links through a comeback room, a fresh session with
//! its token), and all three play on with logs that agree.

use crate::common;

use common::World;
use web_shell::screens::Screen;
use web_shell::shell::{Action, PlayerAction};

#[test]
fn a_blocked_party_guest_page_whose_slot_was_benched_comes_back() {
    let shells = common::held_party_shells(3, common::ANY_FOUR, 0xb10c_2026, None);
    let mut w = World::party_lobby_of(&["Ada", "Bo", "Cy"], shells);
    w.party_invited(&[1, 2]);
    for p in 1..3 {
        w.press(p, PlayerAction::PartyAccept, 0);
    }
    let all = [0, 1, 2];
    w.until(10_000, "the three play", |w| w.all_play(&all, 90));
    let rooms_before = w.rooms_made();

    w.pages[2].blocked = true;
    w.run(8_000);
    let v = w.pages[0].shell.match_view();
    assert_eq!(v.benched, Some(2), "the host benched the slot");
    let at = v.tick.unwrap_or(0);
    w.run(500);
    assert!(
        w.pages[0].shell.match_view().tick > Some(at),
        "the others play on meanwhile"
    );
    w.unblock(2);
    w.until(15_000, "the guest is back in the match", |w| {
        w.pages[2].shell.match_view().rejoined.is_some()
    });
    assert_eq!(w.rooms_made(), rooms_before + 1, "one comeback room");
    let back_at = w.pages[2].shell.match_view().rejoined.unwrap();
    w.until(10_000, "all three play on past the rejoin", |w| {
        all.iter()
            .all(|&p| w.pages[p].shell.match_view().tick > Some(back_at + 120))
    });
    for p in all {
        let v = w.pages[p].shell.match_view();
        assert_eq!(v.benched, None, "page {p}");
        assert_eq!(v.held, None, "page {p}");
        assert_eq!(w.screen(p), Screen::Match, "page {p}");
    }

    w.action(0, Action::Leave);
    w.until(3_000, "every page shows a result", |w| {
        all.iter()
            .all(|&p| matches!(w.screen(p), Screen::Result { .. }))
    });
    for tick in [1, back_at, back_at + 120] {
        let hashes: Vec<Option<u64>> = all
            .iter()
            .map(|&p| w.pages[p].shell.log_hash_at(tick))
            .collect();
        assert!(hashes[0].is_some(), "tick {tick} is in the host's log");
        assert!(
            hashes.iter().all(|h| *h == hashes[0]),
            "tick {tick}: {hashes:?}"
        );
    }
}
