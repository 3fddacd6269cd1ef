//! `SessionConfig::send_interval_frames(2)`: one Inputs packet every second
//! frame halves the packet rate; both modes stay in sync at 50 ms ±10 with
//! 5% loss, lock-step with a delay that covers the extra frame, rollback
//! at the same small delay with slightly deeper predictions.
use crate::common;

use common::{Mode, Pair, Tiny};
use lockstep::{Millis, SessionConfig, SessionStats};
use netsim::LinkConfig;

fn run(mode: Mode, delay: u8, interval: u8) -> (Pair<Tiny, Tiny>, [SessionStats; 2]) {
    let link = LinkConfig {
        latency: Millis(50),
        jitter: Millis(10),
        loss_percent: 5,
        ..LinkConfig::default()
    };
    let mut p: Pair<Tiny, Tiny> = Pair::new(
        // Rollback would otherwise hold back packets that carry nothing
        // urgent (`max_hold_frames`, tested in hold_back.rs): off here, so
        // the baseline sends every frame.
        mode.cfg(
            SessionConfig::host(11, delay)
                .send_interval_frames(interval)
                .max_hold_frames(0),
        ),
        mode.cfg(
            SessionConfig::guest()
                .send_interval_frames(interval)
                .max_hold_frames(0),
        ),
        link,
        8,
    );
    assert!(
        p.run_to_confirmed(3600, 3600 * 2),
        "{:?} {:?}",
        p.host.outcome(),
        p.guest.outcome()
    );
    assert_eq!(p.host.outcome(), None);
    p.assert_same_state_at(3600, 600);
    assert!(p.assert_in_sync() >= if mode == Mode::LockStep { 3600 } else { 600 });
    assert!(p.host.seen.hash_matches >= 56);
    let stats = [p.host.stats(), p.guest.stats()];
    (p, stats)
}

#[test]
fn every_second_frame_halves_the_packets() {
    common::in_both_modes(|mode| {
        let delay = if mode == Mode::LockStep { 6 } else { 2 };
        let (every, every_stats) = run(mode, delay, 1);
        let (half, half_stats) = run(mode, delay, 2);
        for i in 0..2 {
            let (a, b) = (&every_stats[i], &half_stats[i]);
            let rate = |s: &SessionStats, frames: u64| {
                (s.unreliable_packets + s.reliable_packets) as f64 * 60.0 / frames as f64
            };
            let (ra, rb) = (rate(a, every.frame()), rate(b, half.frame()));
            eprintln!(
                "{mode:?} side {i}: {ra:.1} then {rb:.1} packets/s; stalls {} then {}; re-simulated {} then {} in {} then {} rollbacks, longest {} then {}",
                a.stalled_frames, b.stalled_frames, a.resimulated_ticks, b.resimulated_ticks,
                a.rollbacks, b.rollbacks, a.max_rollback, b.max_rollback
            );
            assert!(ra > 60.0 && rb < 32.0, "{ra} {rb}");
            // Bytes per second fall too (a longer window per packet, but
            // half the headers).
            assert!(b.unreliable_bytes < a.unreliable_bytes);
            if mode == Mode::LockStep {
                // Delay 6 (100 ms) barely covers 60 ms plus a frame: a few
                // stalls (under 3% of the frames).
                assert!(b.stalled_frames <= 100, "{b:?}");
            } else {
                assert!(b.stalled_frames <= 5, "{b:?}");
                // Each input is up to a frame older when it leaves: the
                // peer predicts up to a tick further, so a rollback is at
                // most a tick longer on average (measured 1.55 then 2.14
                // ticks) and re-simulation grows by a quarter (1,684 then
                // 2,096), never by half.
                let mean = |s: &SessionStats| s.resimulated_ticks as f64 / s.rollbacks as f64;
                assert!(a.rollbacks > 500 && b.rollbacks > 500, "{a:?} {b:?}");
                assert!(mean(b) <= mean(a) + 1.0, "{a:?} {b:?}");
                assert!(
                    b.resimulated_ticks * 2 < a.resimulated_ticks * 3,
                    "{a:?} {b:?}"
                );
            }
        }
    });
}

#[test]
fn zero_is_refused() {
    let cfg = SessionConfig::host(1, 2).send_interval_frames(0);
    assert_eq!(
        lockstep::Session::<Tiny>::new(cfg).err(),
        Some(lockstep::ConfigError::ZeroSendInterval)
    );
}
