//! Scenario (d): 100 ms ±20 ms one way with 25% loss. In sync for 3,600
//! ticks (slower, with stalls, but never diverging).
mod common;

use common::Mode;
use lockstep::Millis;
use netsim::LinkConfig;

#[test]
fn in_sync_for_3600_ticks_at_100ms_with_25_percent_loss() {
    let link = LinkConfig {
        latency: Millis(100),
        jitter: Millis(20),
        loss_percent: 25,
        ..LinkConfig::default()
    };
    common::in_both_modes(|mode| {
        let p = common::assert_in_sync_for_3600_ticks_in(mode, link, 4, 6);
        // About a quarter of what the host sent was lost (rollback sends
        // fewer packets: it holds back those with nothing urgent).
        let out = p.host_net.outgoing_stats();
        assert!(out.lost * 5 > out.sent.total().packets, "{out:?}");
        let (h, g) = (p.host.stats(), p.guest.stats());
        if mode == Mode::LockStep {
            assert!(h.stalled_frames > 0);
        } else {
            // Rollback rides out most of what stalls lock-step.
            assert!(h.resimulated_ticks > 0, "{h:?}");
            assert!(h.max_rollback <= 8 && g.max_rollback <= 8);
        }
    });
}
