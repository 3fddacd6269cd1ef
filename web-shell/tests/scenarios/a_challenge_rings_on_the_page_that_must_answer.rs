//! A challenge that waits for an answer rings once on the challenged page
//! (a player looking at another window hears it); the challenger's page
//! stays quiet, and a challenge from a muted player, declined for us at
//! once, never rings.

use crate::common;

use common::World;
use web_shell::challenge::Notice;
use web_shell::lobby::LobbyNotice;
use web_shell::shell::{Cue, PlayerAction};

#[test]
fn a_challenge_rings_on_the_page_that_must_answer() {
    let mut w = World::lobby("", &["Ada", "Bo", "Cy"]);
    let ada = w.id(0);
    w.press(0, PlayerAction::Challenge, 1);
    w.until(2_000, "Bo sees the challenge", |w| {
        w.pages[1]
            .shell
            .lobby_view()
            .is_some_and(|v| v.roster.iter().any(|r| r.id == ada && r.challenged_us))
    });
    assert_eq!(w.pages[1].sounds, vec![Cue::Challenge]);
    assert!(w.pages[0].sounds.is_empty(), "the challenger hears nothing");
    w.press(1, PlayerAction::Decline, 0);
    w.run(500);
    assert_eq!(w.pages[1].sounds.len(), 1, "one ring per challenge");

    // Cy mutes Ada: her challenge is declined for Cy without a sound.
    w.press(2, PlayerAction::Mute, 0);
    w.press(0, PlayerAction::Challenge, 2);
    w.until(2_000, "Ada hears Cy is not taking challenges", |w| {
        w.pages[0].shell.lobby_view().is_some_and(|v| {
            v.notices.iter().any(|n| {
                matches!(
                    n.notice,
                    LobbyNotice::Challenge {
                        notice: Notice::NotTaking(_),
                        ..
                    }
                )
            })
        })
    });
    assert!(
        w.pages[2].sounds.is_empty(),
        "a muted player's challenge rang"
    );
    assert_eq!(w.pages[1].sounds.len(), 1);
}
