//! Link (c), 50 ms ±10 with 5% loss: four guests for 30 s converge to the host's state; events exactly once, in order, though some snapshots are lost.
use crate::common;

#[test]
fn converges_5_percent_loss() {
    let m = common::assert_converges(common::link_c(), 4, 30, 3);
    assert!(m.sides.iter().all(|s| s.guest.stats().snapshots > 300));
    assert!(
        m.sides.iter().any(|s| s.net.incoming_stats().lost > 5),
        "loss was simulated"
    );
}
