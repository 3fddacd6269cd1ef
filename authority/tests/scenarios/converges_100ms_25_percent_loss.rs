//! Link (d), 100 ms ±20 with 25% loss: four guests for 30 s converge to the host's state; events exactly once, in order; a quarter of the snapshots are lost and deltas are built on older baselines.
use crate::common;

#[test]
fn converges_100ms_25_percent_loss() {
    let m = common::assert_converges(common::link_d(), 4, 30, 4);
    for s in &m.sides {
        let lost = s.net.incoming_stats().lost;
        assert!(lost > 50, "loss was simulated: {lost}");
        // A quarter lost, the rest decoded against older baselines.
        assert!(s.guest.stats().snapshots > 250, "{:?}", s.guest.stats());
        assert_eq!(s.guest.stats().invalid, 0);
    }
}
