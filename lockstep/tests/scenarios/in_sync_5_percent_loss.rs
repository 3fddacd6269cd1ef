//! Scenario (c): 50 ms ±10 ms with 5% loss. In sync for 3,600 ticks: lost
//! input packets are repaired by the redundant window of the next one.
use crate::common;

use common::Mode;
use lockstep::Millis;
use netsim::LinkConfig;

#[test]
fn in_sync_for_3600_ticks_with_5_percent_loss() {
    let link = LinkConfig {
        latency: Millis(50),
        jitter: Millis(10),
        loss_percent: 5,
        ..LinkConfig::default()
    };
    common::in_both_modes(|mode| {
        let delay = if mode == Mode::LockStep { 6 } else { 2 };
        let p = common::assert_in_sync_for_3600_ticks_in(mode, link, 3, delay);
        assert!(
            p.host_net().outgoing_stats().lost > 100,
            "loss was simulated"
        );
        assert!(p.frame() < 3600 * 2, "{} frames", p.frame());
        if mode == Mode::Rollback {
            assert!(p.host.stats().resimulated_ticks > 0);
        }
    });
}
