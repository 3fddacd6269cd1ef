//! The host page's link to its guest is throttled below the snapshot
//! rate. The page tells its slot the link's send backlog as the shell does
//! (from WebRTC's `bufferedAmount`); the slot hands it to the host in its
//! worker, and the host skips the guest's snapshots while the backlog is
//! over 64 KiB: the queue stops growing near the limit. A page that does
//! not report the backlog lets the queue grow without bound.
use crate::common;

use lockstep::{Millis, Transport};
use netsim::LinkConfig;

const LIMIT: usize = 64 * 1024;

/// The largest backlog seen on the host's link over 5 minutes throttled to
/// 100 bytes per second (the arena sends about 450).
fn throttled_five_minutes(feeds_backlog: bool) -> usize {
    let link = LinkConfig {
        latency: Millis(30),
        ..LinkConfig::default()
    };
    let mut p = common::Pair::new(link, 9);
    p.host.feeds_backlog = feeds_backlog;
    p.host.held = vec!["ArrowUp"];
    p.guest.held = vec!["ArrowLeft"];
    p.run(2_000, |_| {});
    assert_eq!(p.guest.view.state, Some("running"));
    p.host.link.throttle(Some(100));
    let mut worst = 0;
    p.run(300_000, |p| worst = worst.max(p.host.link.send_backlog()));
    worst
}

#[test]
fn the_backlog_stops_near_the_limit() {
    let fed = throttled_five_minutes(true);
    let unfed = throttled_five_minutes(false);
    // The queue reached the limit, then stopped: what is over it is the
    // snapshot or two in flight when the report came, and the events and
    // acknowledgements that still go out.
    assert!(fed > LIMIT, "the throttle filled the queue ({fed} bytes)");
    assert!(
        fed < LIMIT + 8 * 1024,
        "the queue stopped near the limit ({fed} bytes)"
    );
    // Without the report, nothing stops it.
    assert!(
        unfed > fed + 16 * 1024,
        "an unreported backlog grows ({unfed} bytes)"
    );
}
