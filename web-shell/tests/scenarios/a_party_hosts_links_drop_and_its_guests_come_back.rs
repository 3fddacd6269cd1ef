//! A party of three plays; every link of the host's page fails at once
//! (its network changed), its lobby link staying. Each guest still
//! reaches the other, so it first takes the host for the one away: it
//! keeps its session and links and counts the host down. It also asks the
//! host's page, which is there: the host makes a comeback room, both
//! guests come back through it on fresh links, and all three play on in
//! step.

use crate::common;

use common::World;
use web_shell::shell::PlayerAction;

#[test]
fn a_party_hosts_links_drop_and_its_guests_come_back() {
    let mut w = World::party_lobby(&["Ada", "Bo", "Cy"], common::ANY_FOUR, 0x7057_2026);
    w.party_invited(&[1, 2]);
    for p in 1..3 {
        w.press(p, PlayerAction::PartyAccept, 0);
    }
    let all = [0, 1, 2];
    w.until(10_000, "the three play", |w| w.all_play(&all, 90));
    let rooms = w.rooms_made();

    // The host's first comeback room hangs at the service, so the pages
    // can be seen meanwhile.
    w.pages[0].answers_fetches = false;
    w.cut_party_links(0);
    w.run(500);
    for p in [1, 2] {
        let v = w.pages[p].shell.match_view();
        assert_eq!(
            v.held.map(|(slot, _)| slot),
            Some(0),
            "page {p} holds the host's place"
        );
        assert!(
            v.reconnecting
                .as_deref()
                .is_some_and(|l| l.contains(" is reconnecting (")),
            "page {p} counts the host down: {:?}",
            v.reconnecting
        );
        assert!(
            w.party_linked(p, 3 - p),
            "page {p} keeps its link to the other guest"
        );
    }
    w.pages[0].answers_fetches = true;
    w.until(15_000, "both guests are back in the match", |w| {
        [1, 2]
            .iter()
            .all(|&p| w.pages[p].shell.match_view().rejoined.is_some())
    });
    assert!(w.rooms_made() > rooms, "the host made the comeback room");
    let back_at = [1, 2]
        .iter()
        .filter_map(|&p| w.pages[p].shell.match_view().rejoined)
        .max()
        .unwrap();
    w.until(10_000, "all three play on past the return", |w| {
        all.iter()
            .all(|&p| w.pages[p].shell.match_view().tick > Some(back_at + 120))
    });
    for p in all {
        assert_eq!(w.pages[p].shell.match_view().reconnecting, None, "page {p}");
        assert_eq!(
            w.pages[p].shell.match_view().side,
            Some(p as u8),
            "page {p}"
        );
    }
    w.leave_and_logs_agree(0, &all, &[1, back_at, back_at + 120]);
}
