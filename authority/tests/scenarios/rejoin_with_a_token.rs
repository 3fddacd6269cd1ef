//! Rejoin: a guest's link fails mid-match. The host keeps its seat and its
//! ship; the guest comes back on a new link (a reloaded page would) with
//! the token from its Welcome, gets the same seat back, a whole snapshot,
//! then deltas, and from then on every event exactly once, in order. The
//! other guest plays on untouched.
use crate::common;

use authority::{EndReason, HostEvent};
use lockstep::Millis;

#[test]
fn a_dropped_guest_rejoins_its_seat_with_its_token() {
    let mut m = common::Match::new(41, 5);
    m.join(common::link_c(), 410, None);
    m.join(common::link_c(), 411, None);
    m.run(8_000);
    let seat = m.sides[0].seat.expect("seated");
    let token = m.sides[0].guest.token().expect("welcomed");
    m.sides[0].net.fail_link();
    m.run(3_000);
    assert_eq!(m.sides[0].ended, Some(EndReason::LinkClosed));
    assert!(m.host_events.contains(&HostEvent::Dropped(seat)));
    assert!(
        m.host.game().game.ship(seat).is_some(),
        "the ship waits for its player"
    );
    assert!(m.host.seats().any(|s| s == seat), "the seat is held");

    // Back, on a new link, with the token.
    let again = m.join(common::link_c(), 412, Some(token));
    m.run(20_000);
    let side = &m.sides[again];
    assert_eq!(side.seat, Some(seat), "the same seat");
    assert!(side.rejoined);
    assert!(m
        .host_events
        .iter()
        .any(|e| matches!(e, HostEvent::Joined { seat: s, rejoined: true, .. } if *s == seat)));
    let stats = m.host.seat_stats(seat).expect("seated");
    assert!(stats.deltas > 250, "{stats:?}");
    assert!(side.guest.stats().whole >= 1);
    let latest = m.latest_tick(again).expect("decoded");
    assert!(latest + 30 >= m.host.tick());
    m.assert_events(again, 60);
    m.assert_events(1, 60);
    // Nobody else was dropped, and nobody left.
    assert!(!m
        .host_events
        .iter()
        .any(|e| matches!(e, HostEvent::Left(..))));
    assert!(m.now > Millis(30_000));
}

#[test]
fn a_seat_not_reclaimed_in_time_is_freed() {
    let cfg = authority::HostConfig::new(42).rejoin_grace(Millis(5_000));
    let mut m = common::Match::with_config(cfg, 42, 5);
    m.join(common::link_b(), 420, None);
    m.run(3_000);
    let seat = m.sides[0].seat.expect("seated");
    let token = m.sides[0].guest.token().expect("welcomed");
    m.sides[0].net.fail_link();
    m.run(7_000);
    assert!(m
        .host_events
        .contains(&HostEvent::Left(seat, authority::LeaveReason::TimedOut)));
    assert!(m.host.game().game.ship(seat).is_none(), "the ship is gone");
    // The old token no longer opens anything.
    let late = m.join(common::link_b(), 421, Some(token));
    m.run(2_000);
    assert_eq!(
        m.sides[late].ended,
        Some(EndReason::Refused(
            authority::wire::RefuseReason::UnknownToken
        ))
    );
}
