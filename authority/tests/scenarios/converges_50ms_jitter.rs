//! Link (b), 50 ms ±10 one way: four guests for 30 s converge to the host's state; events exactly once, in order.
use crate::common;

#[test]
fn converges_50ms_jitter() {
    let m = common::assert_converges(common::link_b(), 4, 30, 2);
    for i in 0..4 {
        let rtt = m.sides[i].guest.rtt().expect("measured");
        assert!((80..=130).contains(&rtt.0), "round trip {rtt:?}");
    }
}
