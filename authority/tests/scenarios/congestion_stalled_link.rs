//! Congestion at the default 64 KiB limit: the way from the host to one
//! of five guests is cut silently for 50 s. Deltas vanish, the guest acknowledges
//! nothing, and after 100 unacknowledged snapshots the host sends every
//! snapshot whole and reliably; those wait in the send queue (the backlog) until it
//! passes 64 KiB, and from then on that guest's snapshots are skipped, so
//! the queue stops growing. When the link heals the queue drains, the guest
//! catches up, and every event arrives, exactly once and in order. The
//! guests on healthy links see nothing of it.
use crate::common;

use authority::{BACKLOG_LIMIT, WHOLE_AFTER};
use lockstep::{Millis, Transport};
use netsim::Direction;

#[test]
fn a_stalled_link_queues_at_most_the_limit_then_catches_up() {
    let mut m = common::Match::new(9, 5);
    // Six ships, so whole snapshots are a realistic size.
    for i in 0..5 {
        m.join(common::link_b(), 90 + i, None);
    }
    // The guest waits out a long silence from the host (a stalled page
    // would, too) instead of giving up after the default 10 s.
    let g = std::mem::replace(
        &mut m.sides[0].guest,
        authority::Guest::new(Millis(0), None),
    );
    m.sides[0].guest = g.with_host_silence(Millis(60_000));
    m.run(5_000);
    m.host_end(0).expect("open").sever(Direction::Outgoing);
    let mut max_backlog = 0;
    let mut whole_at_cut = None;
    while m.now < Millis(55_000) {
        m.step();
        let seat = m.sides[0].seat.expect("seated");
        let stats = m.host.seat_stats(seat).expect("seated");
        whole_at_cut.get_or_insert(stats.whole);
        let Some(end) = m.host_end(0) else {
            panic!(
                "closed at {:?}: {:?} {:?}",
                m.now, m.host_events, m.sides[0].ended
            )
        };
        max_backlog = max_backlog.max(end.send_backlog());
    }
    let seat = m.sides[0].seat.expect("seated");
    let cut = m.host.seat_stats(seat).expect("seated");
    eprintln!("during the cut: {cut:?}, max backlog {max_backlog}");
    // Whole snapshots began after 100 unacknowledged ones (about 6.6 s).
    assert!(cut.whole > whole_at_cut.unwrap_or(0) + 10, "{cut:?}");
    assert!(cut.deltas >= u64::from(WHOLE_AFTER), "{cut:?}");
    // The queue passed the limit, then stopped growing: at most one
    // message over it.
    assert!(max_backlog > BACKLOG_LIMIT, "{max_backlog}");
    assert!(max_backlog < BACKLOG_LIMIT + 4096, "{max_backlog}");
    assert!(cut.skipped > 100, "{cut:?}");
    let tick_at_heal = m.host.tick();
    let stuck = m.latest_tick(0).expect("decoded before the cut");
    assert!(
        stuck + 1000 < tick_at_heal,
        "the guest saw nothing during the cut"
    );
    m.host_end(0).expect("open").heal(Direction::Outgoing);
    m.run(15_000);
    assert!(
        m.host_end(0).expect("open").send_backlog() < 2048,
        "the queue drained"
    );
    let latest = m.latest_tick(0).expect("decoded");
    assert!(
        latest + 30 >= m.host.tick(),
        "caught up: {latest} against {}",
        m.host.tick()
    );
    for i in 0..5 {
        m.assert_events(i, 60);
        assert!(m.sides[i].ended.is_none());
    }
}
