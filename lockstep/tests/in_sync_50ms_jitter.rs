//! Scenario (b): 50 ms one way, ±10 ms jitter. In sync for 3,600 ticks; the
//! round trip measured by ping/pong is close to 100 ms.
mod common;

use lockstep::Millis;
use netsim::LinkConfig;

#[test]
fn in_sync_for_3600_ticks_at_50ms_with_jitter() {
    let link = LinkConfig {
        latency: Millis(50),
        jitter: Millis(10),
        ..LinkConfig::default()
    };
    let p = common::assert_in_sync_for_3600_ticks(link, 2, 6);
    for seen in [&p.host_seen, &p.guest_seen] {
        assert!(seen.round_trips.len() >= 100, "{}", seen.round_trips.len());
        for rtt in &seen.round_trips {
            assert!((70..=130).contains(&rtt.0), "round trip {rtt:?}");
        }
    }
    // With 6 ticks (100 ms) of delay the link barely stalls.
    assert!(p.frame < 3600 + 200, "{} frames", p.frame);
}
