//! Scenario (e): duplicated and reordered datagrams. In sync for 3,600
//! ticks; duplicates and stale packets are harmless.
mod common;

use lockstep::Millis;
use netsim::LinkConfig;

#[test]
fn in_sync_for_3600_ticks_with_duplication_and_reordering() {
    let link = LinkConfig {
        latency: Millis(30),
        jitter: Millis(15),
        duplicate_percent: 20,
        reorder_percent: 20,
        reorder_delay: Millis(40),
        ..LinkConfig::default()
    };
    let p = common::assert_in_sync_for_3600_ticks(link, 5, 4);
    let stats = p.host_net.outgoing_stats();
    assert!(stats.duplicated > 100 && stats.reordered > 100, "{stats:?}");
}
