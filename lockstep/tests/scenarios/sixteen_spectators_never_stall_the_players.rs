//! Sixteen spectators, half on a lossy link (100 ms ±20, 25% loss) and
//! half on a slow and lossier one (250 ms ±50, 40% loss), watch a
//! two-player match of `Tiny` in both modes. The players run exactly as in
//! the same match (same seeds, same links) without spectators: the same
//! stalled frames (lock-step stalls often: the players' link is 80 ms one
//! way, the delay 4 ticks), the same confirmed ticks and states at every
//! frame. Every spectator keeps watching; when the host quits each one
//! plays to the host's last confirmed tick and ends on its state.
//!
//! The players' own link has a fixed latency and no loss: the simulator
//! draws each datagram's loss and jitter from one seeded stream per link,
//! and the spectator count changes (reliable messages between the host
//! and the guest) would shift every later draw on a lossy players' link,
//! changing the run for reasons of the simulator's, not the engine's.
use crate::common;

use common::Tiny;
use lockstep::{DeterministicGame as _, Millis, Outcome, SessionConfig, MAX_SPECTATORS};
use lockstep_testing::{in_both_modes, Mesh, Mode};
use netsim::LinkConfig;

const FRAMES: u64 = 3_600;

/// What the players did at every frame: each one's confirmed tick and
/// state hash, and its stalled frames at the end.
#[derive(Debug, PartialEq)]
struct Run {
    confirmed: Vec<[(u32, u64); 2]>,
    stalled: [u64; 2],
}

fn play(mode: Mode, spectators: usize) -> (Run, Mesh<Tiny>) {
    let link = LinkConfig {
        latency: Millis(80),
        ..LinkConfig::default()
    };
    let lossy = LinkConfig {
        latency: Millis(100),
        jitter: Millis(20),
        loss_percent: 25,
        ..LinkConfig::default()
    };
    let slow = LinkConfig {
        latency: Millis(250),
        jitter: Millis(50),
        loss_percent: 40,
        ..LinkConfig::default()
    };
    let host = mode.cfg(SessionConfig::host(31, 4));
    let guest = mode.cfg(SessionConfig::guest());
    let mut mesh = Mesh::<Tiny>::new(2, host, guest, link, 8);
    for k in 0..spectators {
        let cfg = SessionConfig::spectator().watch_delay(if k % 2 == 0 { 12 } else { 40 });
        let l = if k % 2 == 0 { lossy } else { slow };
        mesh.add_spectator(cfg, l, 500 + k as u64)
            .expect("a valid spectator");
    }
    let mut confirmed = Vec::new();
    for _ in 0..FRAMES {
        mesh.step_frame();
        let at = |i: usize| {
            let p = &mesh.players[i];
            let hash = p.confirmed_game().map_or(0, |g| g.state_hash());
            (p.confirmed_tick(), hash)
        };
        confirmed.push([at(0), at(1)]);
    }
    let stalled = [
        mesh.players[0].stats().stalled_frames,
        mesh.players[1].stats().stalled_frames,
    ];
    (Run { confirmed, stalled }, mesh)
}

#[test]
fn sixteen_spectators_never_stall_the_players() {
    in_both_modes(|mode| {
        let (alone, _) = play(mode, 0);
        let n = usize::from(MAX_SPECTATORS);
        let (watched, mut mesh) = play(mode, n);
        eprintln!("{mode:?}: stalled frames {:?}", watched.stalled);
        assert!(
            alone.confirmed.last().is_some_and(|c| c[0].0 > 2_500),
            "the match barely ran"
        );
        assert_eq!(
            watched.stalled, alone.stalled,
            "spectators changed the players' stalls"
        );
        assert!(
            watched == alone,
            "spectators changed what the players confirmed, and when"
        );
        assert_eq!(usize::from(mesh.players[0].spectators()), n);
        assert_eq!(usize::from(mesh.players[1].spectators()), n);
        for (k, s) in mesh.spectators.iter().enumerate() {
            assert_eq!(s.outcome(), None, "spectator {k} ended");
            assert!(s.tick() > 2_400, "spectator {k} is at tick {}", s.tick());
        }
        let now = mesh.net.now();
        mesh.players[0].quit(now);
        mesh.run_frames(240);
        let last = mesh.players[0].confirmed_tick();
        let hash = mesh.players[0].confirmed_game().map(|g| g.state_hash());
        for (k, s) in mesh.spectators.iter().enumerate() {
            assert_eq!(s.outcome(), Some(&Outcome::RemoteQuit), "spectator {k}");
            assert_eq!(s.tick(), last, "spectator {k} stopped short");
            assert_eq!(s.game().map(|g| g.state_hash()), hash, "spectator {k}");
        }
    });
}
