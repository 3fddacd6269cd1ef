//! Scenario (b): 50 ms one way, ±10 ms jitter. In sync for 3,600 ticks; the
//! round trip measured by ping/pong is close to 100 ms. Lock-step with a
//! 6-tick delay; rollback with a 2-tick delay, so it predicts and
//! re-simulates all the time, yet never stalls.
use crate::common;

use common::Mode;
use lockstep::Millis;
use netsim::LinkConfig;

#[test]
fn in_sync_for_3600_ticks_at_50ms_with_jitter() {
    let link = LinkConfig {
        latency: Millis(50),
        jitter: Millis(10),
        ..LinkConfig::default()
    };
    common::in_both_modes(|mode| {
        let delay = if mode == Mode::LockStep { 6 } else { 2 };
        let p = common::assert_in_sync_for_3600_ticks_in(mode, link, 2, delay);
        for seen in [&p.host.seen, &p.guest.seen] {
            assert!(seen.round_trips.len() >= 100, "{}", seen.round_trips.len());
            for rtt in &seen.round_trips {
                assert!((70..=130).contains(&rtt.0), "round trip {rtt:?}");
            }
        }
        // With 6 ticks (100 ms) of delay the link barely stalls.
        assert!(p.frame() < 3600 + 200, "{} frames", p.frame());
        if mode == Mode::Rollback {
            for s in [p.host.stats(), p.guest.stats()] {
                assert!(s.rollbacks > 100, "{s:?}");
                // 50 ms ±10 one way is 2.4 to 3.6 ticks, 2 of them covered
                // by the delay: an input arrives at most 2 ticks late, so
                // no rollback is longer than 2, plus one for the two
                // sides' frame phases (measured: 2, mean 1.5).
                assert!(s.max_rollback <= 3, "{s:?}");
                assert!(
                    s.resimulated_ticks * 10 <= s.rollbacks * 20,
                    "mean over 2 ticks: {s:?}"
                );
                assert_eq!(s.stalled_frames, 0, "{s:?}");
            }
        }
    });
}
