//! Late join: two guests play for 10 s, then a third joins over link (b).
//! Its first snapshot is whole (and reliable), everything after is a
//! delta; it sees every ship the host has, and from then on converges and
//! gets its events exactly once, in order, like the others.
use crate::common;

use arena::ArenaSnapshot;

#[test]
fn a_late_guest_gets_a_whole_snapshot_then_deltas() {
    let mut m = common::Match::new(31, 5);
    m.join(common::link_b(), 310, None);
    m.join(common::link_b(), 311, None);
    m.run(10_000);
    let host_tick_at_join = m.host.tick();
    m.join(common::link_b(), 312, None);
    m.run(20_000);
    let late = &m.sides[2];
    let seat = late.seat.expect("seated");
    assert_eq!(seat, 3, "seats 1 and 2 are taken");
    let first = late.decoded.first().expect("decoded").1;
    assert!(
        first > host_tick_at_join,
        "its first snapshot is of a tick after it joined"
    );
    let stats = m.host.seat_stats(seat).expect("seated");
    assert_eq!(stats.whole, 1, "{stats:?}");
    assert!(stats.deltas > 250, "{stats:?}");
    assert_eq!(late.guest.stats().whole, 1);
    // It sees every ship the host has.
    let (tick, _, view): (u64, _, &ArenaSnapshot) = late.guest.latest().expect("decoded");
    assert!(tick + 30 >= m.host.tick());
    assert_eq!(view.ships.len(), 4);
    // (Every snapshot it decoded was checked equal to the host's.)
    assert!(late.decoded.len() > 250);
    for i in 0..3 {
        m.assert_events(i, 60);
    }
}
