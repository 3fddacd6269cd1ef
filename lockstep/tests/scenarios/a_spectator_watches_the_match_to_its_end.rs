//! A spectator there from the start watches a two-player match of `Tiny`
//! over links with 50 ms ±10 and 5% loss, in both modes: it never sends
//! an input, the players never stall more than without it, and when the
//! host quits the spectator plays every confirmed tick it was sent and
//! ends on the host's last confirmed tick with the host's state.
use crate::common;

use common::Tiny;
use lockstep::{DeterministicGame as _, Event, Millis, Outcome, SessionConfig};
use lockstep_testing::{in_both_modes, Mesh};
use netsim::LinkConfig;

#[test]
fn a_spectator_watches_the_match_to_its_end() {
    let link = LinkConfig {
        latency: Millis(50),
        jitter: Millis(10),
        loss_percent: 5,
        ..LinkConfig::default()
    };
    in_both_modes(|mode| {
        let delay = 4;
        let host = mode.cfg(SessionConfig::host(77, delay));
        let guest = mode.cfg(SessionConfig::guest());
        let mut mesh = Mesh::<Tiny>::new(2, host, guest, link, 5);
        mesh.add_spectator(SessionConfig::spectator(), link, 900)
            .expect("a valid spectator");
        assert!(mesh.run_to_confirmed(2_400, 4_000), "{}", mesh.progress());
        let spectator = &mesh.spectators[0];
        assert!(spectator.seen.started, "the spectator never started");
        assert!(spectator.side().is_none(), "a spectator has no slot");
        assert!(
            spectator.tick() > 2_000,
            "the spectator is at {} while the players confirmed 2,400",
            spectator.tick()
        );
        assert_eq!(mesh.players[0].spectators(), 1);
        assert_eq!(mesh.players[1].spectators(), 1);
        let now = mesh.net.now();
        mesh.players[0].quit(now);
        mesh.run_frames(120);
        let host = &mesh.players[0];
        let spectator = &mesh.spectators[0];
        assert_eq!(spectator.outcome(), Some(&Outcome::RemoteQuit));
        assert_eq!(
            spectator.tick(),
            host.confirmed_tick(),
            "the spectator stopped short"
        );
        assert_eq!(
            spectator.game().map(|g| g.state_hash()),
            host.confirmed_game().map(|g| g.state_hash()),
            "the spectator ends on another state"
        );
        let watching = spectator
            .seen
            .events
            .iter()
            .find(|e| matches!(e, Event::Watching { .. }));
        assert_eq!(
            watching,
            Some(&Event::Watching {
                players: 2,
                tick: 0
            })
        );
        // A spectator never sends an input: its uplink is acknowledgements
        // and its Watch only.
        let sent = spectator.stats();
        assert_eq!(sent.reliable_packets, 1, "the Watch, then nothing reliable");
        assert!(sent.unreliable_packets > 0, "no acknowledgement");
    });
}
