//! Seventeen spectators ask to watch a two-player match of `Tiny`: the
//! host admits sixteen (`MAX_SPECTATORS`) and refuses the last with
//! `WatchRefused { Full }`; the sixteen watch on and the players count
//! sixteen. One that leaves makes room: a spectator arriving after it is
//! admitted.
use crate::common;

use common::Tiny;
use lockstep::{Millis, Outcome, SessionConfig, WatchRefusal, MAX_SPECTATORS};
use lockstep_testing::Mesh;
use netsim::LinkConfig;

#[test]
fn a_seventeenth_spectator_is_refused() {
    let link = LinkConfig {
        latency: Millis(30),
        jitter: Millis(5),
        ..LinkConfig::default()
    };
    let mut mesh = Mesh::<Tiny>::new(
        2,
        SessionConfig::host(6, 3),
        SessionConfig::guest(),
        link,
        2,
    );
    let n = usize::from(MAX_SPECTATORS);
    for k in 0..n {
        mesh.add_spectator(SessionConfig::spectator(), link, 100 + k as u64)
            .expect("a valid spectator");
    }
    mesh.run_frames(120);
    mesh.add_spectator(SessionConfig::spectator(), link, 200)
        .expect("a valid spectator");
    mesh.run_frames(300);
    assert_eq!(
        mesh.spectators[n].outcome(),
        Some(&Outcome::WatchRefused {
            why: WatchRefusal::Full
        })
    );
    for (k, s) in mesh.spectators.iter().take(n).enumerate() {
        assert_eq!(s.outcome(), None, "spectator {k}");
        assert!(s.tick() > 300, "spectator {k} at {}", s.tick());
    }
    assert_eq!(mesh.players[0].spectators(), MAX_SPECTATORS);
    assert_eq!(mesh.players[1].spectators(), MAX_SPECTATORS);
    let now = mesh.net.now();
    mesh.spectators[0].quit(now);
    mesh.run_frames(60);
    mesh.add_spectator(SessionConfig::spectator(), link, 201)
        .expect("a valid spectator");
    mesh.run_frames(300);
    let last = &mesh.spectators[n + 1];
    assert_eq!(last.outcome(), None);
    assert!(
        last.seen.started,
        "the spectator after the one that left was not admitted"
    );
    assert_eq!(mesh.players[1].spectators(), MAX_SPECTATORS);
}
