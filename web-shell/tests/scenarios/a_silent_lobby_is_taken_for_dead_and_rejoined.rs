//! The lobby's connection dies without a close (a network that went away,
//! a proxy that dropped it): nothing comes back, not even the answer to a
//! heartbeat. A page notices within one heartbeat and its answer time,
//! says so, closes the socket and reconnects with its backoff; once the
//! service answers again, the pages find each other again.

use crate::common;

use common::World;
use signaling_protocol::heartbeat::INTERVAL_MS;
use web_shell::lobby::{LobbyConfig, LobbyNotice};

#[test]
fn a_silent_lobby_is_taken_for_dead_and_rejoined() {
    let answer = LobbyConfig::default().pong_timeout.0;
    let mut w = World::lobby("", &["Ann", "Bo"]);

    // A service that answers keeps the pages in for many heartbeats.
    w.run(4 * INTERVAL_MS);
    assert!(w.online(0) && w.online(1), "dropped while answered");

    // The service goes silent without closing anything.
    w.service_silent = true;
    let silent_at = w.now;
    w.until(INTERVAL_MS + answer + 1_000, "the page gives up", |w| {
        !w.online(0)
    });
    let noticed = w.now.0 - silent_at.0;
    assert!(
        noticed >= answer,
        "gave up {noticed} ms after the last frame, before the answer time"
    );
    let view = w.pages[0].shell.lobby_view().unwrap();
    assert_eq!(
        view.connection.banner(),
        Some("Lost the lobby connection - retrying…")
    );
    assert!(
        view.notices
            .iter()
            .any(|n| n.notice == LobbyNotice::NoAnswer),
        "the player is told: {:?}",
        view.notices
    );
    assert!(view.roster.is_empty(), "the old roster is gone");
    // It keeps trying on its backoff while nothing answers.
    w.run(20_000);
    assert!(!w.online(0));

    // The service answers again: both pages are back and linked.
    w.service_silent = false;
    w.until(60_000, "both rejoin and link again", |w| {
        w.online(0) && w.online(1) && w.mesh_formed()
    });
}
