//! Scenario (e): duplicated and reordered datagrams. In sync for 3,600
//! ticks; duplicates and stale packets are harmless.
use crate::common;

use common::Mode;
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
    common::in_both_modes(|mode| {
        let delay = if mode == Mode::LockStep { 4 } else { 1 };
        let p = common::assert_in_sync_for_3600_ticks_in(mode, link, 5, delay);
        let stats = p.host_net().outgoing_stats();
        assert!(stats.duplicated > 100 && stats.reordered > 100, "{stats:?}");
    });
}
