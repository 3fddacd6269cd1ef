//! Four shells of a game that takes parties, from the lobby through a
//! party: the challenger invites three, one declines, and the three who
//! are left play one match over a full mesh built through a member room
//! (the service's own room machine). Every page runs the match, in the
//! side of its place, and when the challenger leaves every page's input
//! log agrees on every tick all of them confirmed.

use crate::common;

use common::World;
use web_shell::protocol::PlayerStatus;
use web_shell::screens::Screen;
use web_shell::shell::{Action, PlayerAction};

#[test]
fn a_party_of_three_plays_one_match_over_its_mesh() {
    let mut w = World::party_lobby(&["Ada", "Bo", "Cy", "Di"], common::ANY_FOUR, 0x51_7e5e);
    w.party_invited(&[1, 2, 3]);
    w.press(1, PlayerAction::PartyAccept, 0);
    w.press(3, PlayerAction::PartyDecline, 0);
    w.press(2, PlayerAction::PartyAccept, 0);

    w.until(10_000, "the three play", |w| w.all_play(&[0, 1, 2], 90));
    assert_eq!(
        w.screen(3),
        Screen::Lobby,
        "who declined stays in the lobby"
    );
    let sides: Vec<Option<u8>> = (0..3).map(|p| w.pages[p].shell.match_view().side).collect();
    assert_eq!(sides, [Some(0), Some(1), Some(2)], "place p plays slot p");
    // The host keeps the room for spectators while the match runs.
    assert!(w.member_rooms.values().any(|r| !r.is_finished()));
    w.run(200);
    let v = w.pages[3].shell.lobby_view().unwrap();
    for r in &v.roster {
        assert_eq!(r.status, PlayerStatus::InMatch, "{}", r.display);
        // Who stayed in the lobby may watch them.
        assert!(r.can_watch, "{}", r.display);
    }

    w.action(0, Action::Leave);
    w.until(3_000, "every page shows a result", |w| {
        (0..3).all(|p| matches!(w.screen(p), Screen::Result { .. }))
    });
    // The match's end ends its room.
    w.run(50);
    assert!(w.member_rooms.values().all(|r| r.is_finished()));
    let common = 90;
    let hashes: Vec<Option<u64>> = (0..3)
        .map(|p| w.pages[p].shell.log_hash_at(common))
        .collect();
    assert!(hashes[0].is_some());
    assert!(hashes.iter().all(|h| *h == hashes[0]), "{hashes:?}");
    for p in 0..3 {
        w.action(p, Action::Continue);
        assert_eq!(w.screen(p), Screen::Lobby);
    }
}
