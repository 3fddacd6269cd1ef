//! Three spectators watch a two-player match of `Tiny` in both modes and
//! leave in three ways: one quits, one's link closes, one goes silent
//! (its link cut both ways). The players run exactly as in the same match
//! (same seeds, same links) without spectators: the same confirmed ticks
//! and states at every frame and the same stalls; they count three
//! spectators, then none. The silent spectator ends itself with
//! `Timeout`.
//!
//! The players' link has a fixed latency and no loss (see
//! `sixteen_spectators_never_stall_the_players.rs` for why).
use crate::common;

use common::Tiny;
use lockstep::{DeterministicGame as _, Event, Millis, Outcome, SessionConfig, Transport as _};
use lockstep_testing::{in_both_modes, Mesh, Mode};
use netsim::LinkConfig;

const FRAMES: u64 = 2_400;

/// Each player's confirmed tick and state hash, frame by frame.
type Confirmed = Vec<[(u32, u64); 2]>;

/// The players' confirmed ticks and states at every frame, the most
/// spectators each counted, and the mesh.
fn play(mode: Mode, watched: bool) -> (Confirmed, [u8; 2], Mesh<Tiny>) {
    let link = LinkConfig {
        latency: Millis(80),
        ..LinkConfig::default()
    };
    let theirs = LinkConfig {
        latency: Millis(40),
        jitter: Millis(10),
        loss_percent: 10,
        ..LinkConfig::default()
    };
    let host = mode.cfg(SessionConfig::host(12, 4));
    let guest = mode.cfg(SessionConfig::guest());
    let mut mesh = Mesh::<Tiny>::new(2, host, guest, link, 21);
    if watched {
        for k in 0..3 {
            mesh.add_spectator(SessionConfig::spectator(), theirs, 70 + k)
                .expect("a valid spectator");
        }
    }
    let mut confirmed = Vec::new();
    let mut most = [0u8; 2];
    for frame in 0..FRAMES {
        if watched && frame == 600 {
            let now = mesh.net.now();
            mesh.spectators[0].quit(now);
        }
        if watched && frame == 900 {
            if let Some(l) = mesh.net.link_mut(0, 3) {
                l.1.close();
            }
        }
        if watched && frame == 1_200 {
            if let Some(l) = mesh.spectator_link(2) {
                l.0.sever_both();
            }
        }
        mesh.step_frame();
        let at = |i: usize| {
            let p = &mesh.players[i];
            (
                p.confirmed_tick(),
                p.confirmed_game().map_or(0, |g| g.state_hash()),
            )
        };
        confirmed.push([at(0), at(1)]);
        for (m, p) in most.iter_mut().zip(&mesh.players) {
            *m = (*m).max(p.spectators());
        }
    }
    (confirmed, most, mesh)
}

#[test]
fn a_spectator_leaving_mid_match_changes_nothing_for_the_players() {
    in_both_modes(|mode| {
        let (alone, _, quiet) = play(mode, false);
        let (watched, most, mesh) = play(mode, true);
        assert!(alone == watched, "spectators changed the players' match");
        assert_eq!(most, [3, 3], "the players did not count three spectators");
        for i in 0..2 {
            assert_eq!(
                mesh.players[i].stats().stalled_frames,
                quiet.players[i].stats().stalled_frames
            );
            assert_eq!(mesh.players[i].spectators(), 0, "player {i}");
        }
        let host = &mesh.players[0];
        let left = host
            .seen
            .events
            .iter()
            .filter(|e| matches!(e, Event::Spectator { joined: false, .. }))
            .count();
        assert_eq!(left, 3, "the host saw {left} spectators leave");
        assert_eq!(mesh.spectators[2].outcome(), Some(&Outcome::Timeout));
    });
}
