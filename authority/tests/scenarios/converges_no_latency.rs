//! Link (a), no latency: four guests for 30 s see exactly the host's snapshots, and every event exactly once, in order.
use crate::common;

#[test]
fn converges_no_latency() {
    let m = common::assert_converges(common::link_a(), 4, 30, 1);
    // A perfect link loses nothing: every snapshot after the first is a delta.
    for i in 0..4 {
        let seat = m.sides[i].seat.expect("seated");
        let stats = m.host.seat_stats(seat).expect("seated");
        assert_eq!(stats.whole, 1, "{stats:?}");
        assert!(stats.deltas > 400, "{stats:?}");
    }
}
