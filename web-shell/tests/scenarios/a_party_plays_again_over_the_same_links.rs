//! A party plays again over the links of the match it just played: three
//! shells play a party's match through the service's own member-room
//! machine; it ends, every page presses Play again, and the next match
//! runs on every page with no new room and no new peer connection. After
//! that one ends, one page goes back to the lobby instead, and the others
//! follow it there with a notice.

use crate::common;

use common::World;
use web_shell::screens::Screen;
use web_shell::shell::{Action, PlayerAction};

fn all_results(w: &World) -> bool {
    (0..3).all(|p| matches!(w.screen(p), Screen::Result { .. }))
}

#[test]
fn a_party_plays_again_over_the_same_links() {
    let mut w = World::party_lobby(&["Ada", "Bo", "Cy"], common::ANY_FOUR, 0xa9a1);
    w.party_invited(&[1, 2]);
    w.press(1, PlayerAction::PartyAccept, 0);
    w.press(2, PlayerAction::PartyAccept, 0);
    w.until(10_000, "the three play", |w| w.all_play(&[0, 1, 2], 60));
    let (rooms, peers) = (w.rooms, w.peers_created);

    // The first match ends (Bo leaves it); every page shows a result.
    w.action(1, Action::Leave);
    w.until(3_000, "every page shows a result", all_results);
    // Play again, one page after another: nothing starts until the last.
    w.action(2, Action::PlayAgain);
    w.action(0, Action::PlayAgain);
    w.run(500);
    assert!(all_results(&w), "two of three pressed: still waiting");
    w.action(1, Action::PlayAgain);
    w.until(10_000, "the rematch runs on every page", |w| {
        w.all_play(&[0, 1, 2], 60)
    });
    assert_eq!(w.rooms, rooms, "no new room");
    assert_eq!(w.peers_created, peers, "no new peer connection");
    for p in 0..3 {
        let s = w.pages[p].shell.lobby_view().unwrap();
        assert!(s.roster.iter().all(|r| !r.can_watch && !r.can_challenge));
    }

    // It ends too; every page's log is the new match's, in sync.
    w.action(0, Action::Leave);
    w.until(3_000, "every page shows the rematch's result", all_results);
    let second: Vec<_> = (0..3).map(|p| w.pages[p].shell.log_hash_at(60)).collect();
    assert!(second[0].is_some());
    assert!(second.iter().all(|h| *h == second[0]), "{second:?}");

    // Cy goes back to the lobby instead: everyone does.
    w.action(2, Action::Continue);
    w.until(3_000, "everyone is back in the lobby", |w| {
        (0..3).all(|p| w.screen(p) == Screen::Lobby)
    });
    assert_eq!(w.peers_created, peers);
    // And they can play again as a new party later (the lobby is free).
    w.until(2_000, "the lobby shows everyone free", |w| {
        (0..3).all(|p| {
            let v = w.pages[p].shell.lobby_view().unwrap();
            v.roster.iter().all(|r| r.can_challenge)
        })
    });
}
