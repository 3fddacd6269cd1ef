//! A spectator joins a two-player match of `Tiny` two minutes in (7,200
//! ticks, over 50 ms ±10 with 5% loss), in both modes: the host's
//! catch-up replays to its hash, the spectator raises `Watching` at that
//! tick, catches up with the live stream (two ticks a frame while it is
//! behind) and, when the host quits, ends on the host's last confirmed
//! tick with its state.
use crate::common;

use common::Tiny;
use lockstep::{DeterministicGame as _, Event, Millis, Outcome, SessionConfig};
use lockstep_testing::{in_both_modes, Mesh};
use netsim::LinkConfig;

#[test]
fn a_spectator_joining_late_catches_up() {
    let link = LinkConfig {
        latency: Millis(50),
        jitter: Millis(10),
        loss_percent: 5,
        ..LinkConfig::default()
    };
    in_both_modes(|mode| {
        let host = mode.cfg(SessionConfig::host(404, 4));
        let guest = mode.cfg(SessionConfig::guest());
        let mut mesh = Mesh::<Tiny>::new(2, host, guest, link, 17);
        assert!(mesh.run_to_confirmed(7_200, 9_000), "{}", mesh.progress());
        mesh.add_spectator(SessionConfig::spectator(), link, 99)
            .expect("a valid spectator");
        let joined_at = mesh.players[0].confirmed_tick();
        mesh.run_frames(600);
        let s = &mesh.spectators[0];
        let watching = s.seen.events.iter().find_map(|e| match e {
            Event::Watching { players, tick } => Some((*players, *tick)),
            _ => None,
        });
        let (players, from) = watching.expect("the spectator never watched");
        assert_eq!(players, 2);
        assert!(
            from >= joined_at && from < joined_at + 120,
            "caught up to {from}, joined at {joined_at}"
        );
        // Live within ten seconds: at most its delay and a send behind.
        let behind = mesh.players[0].confirmed_tick() - s.tick();
        assert!(behind < 60, "still {behind} ticks behind the host");
        let now = mesh.net.now();
        mesh.players[0].quit(now);
        mesh.run_frames(120);
        let host = &mesh.players[0];
        let s = &mesh.spectators[0];
        assert_eq!(s.outcome(), Some(&Outcome::RemoteQuit));
        assert_eq!(s.tick(), host.confirmed_tick());
        assert_eq!(
            s.game().map(|g| g.state_hash()),
            host.confirmed_game().map(|g| g.state_hash())
        );
        assert_eq!(mesh.players[1].outcome(), Some(&Outcome::RemoteQuit));
    });
}
