//! Two shells, from the title screen through the lobby, a challenge, the
//! room link and a running match, to leaving it and being back in the
//! lobby, free to play again.

use crate::common;

use common::World;
use web_shell::protocol::PlayerStatus;
use web_shell::screens::Screen;
use web_shell::shell::Action;

#[test]
fn a_challenge_becomes_a_match_and_both_return_to_the_lobby() {
    let mut w = World::lobby("", &["Ada", "Bo"]);
    w.challenge_accepted(0, 1);
    w.until_both_play(5_000, 60);
    let (a, b) = (w.pages[0].shell.match_view(), w.pages[1].shell.match_view());
    assert_eq!((a.side, b.side), (Some(0), Some(1)));
    assert_eq!(
        a.mode,
        Some("rollback"),
        "rollback unless lock-step is picked"
    );
    assert_eq!(a.delay, b.delay, "the guest adopts the host's input delay");
    assert!(
        a.status.starts_with("You play Orange (host) · rollback"),
        "{}",
        a.status
    );
    assert!(
        b.status.starts_with("You play Teal (guest)"),
        "{}",
        b.status
    );
    assert!(
        b.accept_to_tick_ms.is_some(),
        "the accepting page timed its wait"
    );
    // Both told the lobby: each sees the other in a match.
    w.run(200);
    for p in 0..2 {
        let v = w.pages[p].shell.lobby_view().unwrap();
        assert_eq!(v.roster[0].status, PlayerStatus::InMatch);
        assert!(!v.roster[0].can_challenge);
    }

    w.action(0, Action::Leave);
    w.until(2_000, "both show a result", |w| {
        (0..2).all(|p| matches!(w.screen(p), Screen::Result { .. }))
    });
    let message = |w: &World, p| match w.screen(p) {
        Screen::Result { message, .. } => message,
        s => panic!("{s:?}"),
    };
    assert_eq!(message(&w, 0), "You left the online match.");
    assert_eq!(message(&w, 1), "The other player left the match.");
    assert_eq!(w.pages[0].shell.match_view().state, Some("ended"));
    // The input logs of both pages agree on every tick both confirmed.
    let common = 60;
    assert_eq!(
        w.pages[0].shell.log_hash_at(common),
        w.pages[1].shell.log_hash_at(common)
    );
    assert!(w.pages[0].shell.log_hash_at(common).is_some());
    // Tools read it as 16 lower-case hex digits (`matchHashAt`).
    let hex = w.pages[0].shell.match_hash_at(common).unwrap();
    let hash = w.pages[0].shell.log_hash_at(common).unwrap();
    assert_eq!(u64::from_str_radix(&hex, 16), Ok(hash));
    assert!(hex.len() == 16 && !hex.contains(|c: char| c.is_ascii_uppercase()));

    for p in 0..2 {
        w.action(p, Action::Continue);
        assert_eq!(w.screen(p), Screen::Lobby);
    }
    w.run(200);
    for p in 0..2 {
        let v = w.pages[p].shell.lobby_view().unwrap();
        assert_eq!(v.roster[0].status, PlayerStatus::Lobby, "free again");
        assert!(v.roster[0].can_challenge);
    }
}
