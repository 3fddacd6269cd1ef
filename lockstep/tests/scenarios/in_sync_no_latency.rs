//! Scenario (a): a perfect, instant link. In sync for 3,600 ticks, and
//! (with an input delay of 2) never a stalled frame, in lock-step and in
//! rollback (where nothing needs predicting either).
use crate::common;

use netsim::LinkConfig;

#[test]
fn in_sync_for_3600_ticks_without_latency() {
    common::in_both_modes(|mode| {
        let p = common::assert_in_sync_for_3600_ticks_in(mode, LinkConfig::default(), 1, 2);
        assert_eq!(p.host.stats().stalled_frames, 0);
        assert_eq!(p.guest.stats().stalled_frames, 0);
        // One frame for the handshake, then one tick per frame.
        assert!(p.frame() <= 3600 + 2, "{} frames", p.frame());
        for s in [p.host.stats(), p.guest.stats()] {
            assert_eq!(s.resimulated_ticks, 0);
            assert_eq!(s.skipped_frames, 0);
        }
    });
}
