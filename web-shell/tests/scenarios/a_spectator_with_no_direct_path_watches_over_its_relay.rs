//! A lobby player whose page gets no direct path to the party host's
//! presses Watch: after the party's relay deadline its link to the host
//! goes through the member room's relay for that pair (the host follows
//! on its word), and it watches the match on the same states as the
//! players, its page saying the path is relayed.

use crate::common;

use common::World;
use web_shell::screens::Screen;
use web_shell::shell::members::PARTY_RELAY_AFTER;
use web_shell::shell::{Action, PlayerAction};

#[test]
fn a_spectator_with_no_direct_path_watches_over_its_relay() {
    let mut w = World::party_lobby(&["Ada", "Bo", "Cy", "Di"], common::ANY_FOUR, 0x5bec);
    w.party_invited(&[1, 2]);
    w.press(1, PlayerAction::PartyAccept, 0);
    w.press(2, PlayerAction::PartyAccept, 0);
    w.until(10_000, "the three play", |w| w.all_play(&[0, 1, 2], 60));
    assert_eq!(w.relays_opened, 0, "the players link directly");
    let roster = |w: &World, p: usize| w.pages[p].shell.lobby_view().unwrap().roster;
    w.until(2_000, "the lobby sees them in a match", |w| {
        roster(w, 3).iter().all(|r| r.can_watch)
    });

    // From now on Di's page finds no path to Ada's (the host's).
    w.no_direct_pairs.push((0, 3));
    let asked = w.now;
    w.press(3, PlayerAction::Watch, 1);
    w.until(15_000, "Di watches", |w| {
        w.screen(3) == Screen::Match && w.pages[3].shell.match_view().tick > Some(120)
    });
    assert!(w.now.0 - asked.0 > PARTY_RELAY_AFTER.0);
    assert_eq!(w.relays_opened, 2, "the host's and Di's ends of one relay");
    assert_eq!(w.pages[3].shell.match_view().path, Some("relayed"));
    w.until(3_000, "every player counts one watching", |w| {
        (0..3).all(|p| w.pages[p].shell.match_view().watching == 1)
    });

    w.action(0, Action::Leave);
    w.until(5_000, "every page shows a result", |w| {
        (0..4).all(|p| matches!(w.screen(p), Screen::Result { .. }))
    });
    let last = w.pages[3]
        .shell
        .match_view()
        .tick
        .expect("the spectator confirmed ticks");
    let host_hash = w.pages[0].shell.log_hash_at(last);
    assert!(host_hash.is_some());
    for p in 1..4 {
        assert_eq!(
            w.pages[p].shell.log_hash_at(last),
            host_hash,
            "page {p} at tick {last}"
        );
    }
}
