//! Congestion: one of three guests has a slow downlink (the host's
//! uplink to it is throttled to 400 bytes a second, below what its
//! snapshots need). With the backlog limit at 1 KiB (the default is 64 KiB;
//! a smaller one makes the effect show within a minute of arena traffic),
//! the host skips that guest's snapshots instead of queueing them: it
//! decodes far fewer snapshots than the others, its send queue never grows
//! past the limit plus one message, and every event still arrives, exactly
//! once and in order. The other guests are not affected.
use crate::common;

use authority::HostConfig;
use lockstep::{Millis, Transport};

#[test]
fn a_throttled_guest_gets_fewer_snapshots_and_all_its_events() {
    let limit = 1024;
    let cfg = HostConfig::new(5).backlog_limit(limit);
    let mut m = common::Match::with_config(cfg, 5, 5);
    for i in 0..3 {
        m.join(common::link_b(), 50 + i, None);
    }
    m.host_end(0).expect("open").throttle(Some(400));
    let mut max_backlog = 0;
    let mut backlog_at_10s = 0;
    while m.now < Millis(60_000) {
        m.step();
        let b = m.host_end(0).expect("open").send_backlog();
        max_backlog = max_backlog.max(b);
        if m.now == Millis(10_000) {
            backlog_at_10s = b;
        }
    }
    let stats = |i: usize| {
        let seat = m.sides[i].seat.expect("seated");
        m.host.seat_stats(seat).expect("seated")
    };
    let (slow, fast) = (stats(0), stats(1));
    eprintln!("throttled {slow:?}\nfree {fast:?}\nmax backlog {max_backlog}");
    assert!(slow.skipped > 300, "{slow:?}");
    assert_eq!(fast.skipped, 0, "{fast:?}");
    let (slow_decoded, fast_decoded) = (
        m.sides[0].guest.stats().snapshots,
        m.sides[1].guest.stats().snapshots,
    );
    assert!(
        slow_decoded * 2 < fast_decoded,
        "{slow_decoded} against {fast_decoded}"
    );
    assert!(slow_decoded > 20, "it still gets some: {slow_decoded}");
    // Never a growing queue: at most the limit plus one message, and no
    // more after 60 s than after 10 s plus one message.
    assert!(max_backlog <= limit + 1500, "max backlog {max_backlog}");
    assert!(m.host_end(0).expect("open").send_backlog() <= backlog_at_10s + 1500);
    // All its events, in order, once each (those of the last 3 s may still
    // be queued behind the throttle).
    let n = m.assert_events(0, 90);
    assert!(n > 10, "{n} events");
    m.assert_events(1, 60);
    m.assert_events(2, 60);
}
