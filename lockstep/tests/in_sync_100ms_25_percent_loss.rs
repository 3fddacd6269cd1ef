//! Scenario (d): 100 ms ±20 ms one way with 25% loss. In sync for 3,600
//! ticks (slower, with stalls, but never diverging).
mod common;

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
    let p = common::assert_in_sync_for_3600_ticks(link, 4, 6);
    assert!(p.host_net.outgoing_stats().lost > 1000);
    assert!(p.host.stats().stalled_frames > 0);
}
