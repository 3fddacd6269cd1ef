//! A spectator connects to the host before the two players can start
//! (their link is cut for the first seven seconds), in both modes: the
//! host keeps it waiting with keep-alives, not silence, and once the
//! match starts admits it; it watches from the first ticks.
use crate::common;

use common::Tiny;
use lockstep::{Event, Millis, SessionConfig};
use lockstep_testing::{in_both_modes, Mesh};
use netsim::LinkConfig;

#[test]
fn a_spectator_there_before_the_players_waits_for_the_start() {
    let link = LinkConfig {
        latency: Millis(30),
        ..LinkConfig::default()
    };
    in_both_modes(|mode| {
        let patient = |cfg: SessionConfig| {
            cfg.timeout(Millis(10_000))
                .handshake_timeout(Millis(20_000))
        };
        let host = patient(mode.cfg(SessionConfig::host(2, 3)));
        let guest = patient(mode.cfg(SessionConfig::guest()));
        let mut mesh = Mesh::<Tiny>::new(2, host, guest, link, 6);
        mesh.sever(0, 1);
        // Its own silence timeout stays the default 5 s: the host's
        // keep-alives are what it hears while the players are cut off.
        let spectator = SessionConfig::spectator().handshake_timeout(Millis(20_000));
        mesh.add_spectator(spectator, link, 61)
            .expect("a valid spectator");
        mesh.run_frames(7 * 60);
        assert!(!mesh.players[0].is_running(), "the match started cut off");
        mesh.restore(0, 1);
        mesh.run_frames(600);
        let s = &mesh.spectators[0];
        assert_eq!(s.outcome(), None);
        let from = s.seen.events.iter().find_map(|e| match e {
            Event::Watching { tick, .. } => Some(*tick),
            _ => None,
        });
        assert!(from.is_some_and(|t| t <= 1), "watching from {from:?}");
        assert!(s.tick() > 400, "the spectator is at {}", s.tick());
        assert_eq!(mesh.players[1].spectators(), 1);
    });
}
