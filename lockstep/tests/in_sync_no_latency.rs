//! Scenario (a): a perfect, instant link. In sync for 3,600 ticks, and
//! (with an input delay of 2) never a stalled frame.
mod common;

use netsim::LinkConfig;

#[test]
fn in_sync_for_3600_ticks_without_latency() {
    let p = common::assert_in_sync_for_3600_ticks(LinkConfig::default(), 1, 2);
    assert_eq!(p.host.stats().stalled_frames, 0);
    assert_eq!(p.guest.stats().stalled_frames, 0);
    // One frame for the handshake, then one tick per frame.
    assert!(p.frame <= 3600 + 2, "{} frames", p.frame);
}
