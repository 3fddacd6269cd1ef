//! Leaving: a guest says goodbye; the host removes its ship and frees its
//! seat at once (no wait for a rejoin), its token opens nothing any more,
//! and the next guest to join takes the freed seat.
use crate::common;

use authority::wire::RefuseReason;
use authority::{EndReason, HostEvent, LeaveReason};

#[test]
fn a_guest_that_leaves_frees_its_seat() {
    let mut m = common::Match::new(91, 5);
    m.join(common::link_b(), 910, None);
    m.join(common::link_b(), 911, None);
    m.run(3_000);
    let seat = m.sides[0].seat.expect("seated");
    let token = m.sides[0].guest.token().expect("welcomed");
    m.sides[0].guest.leave();
    m.sides[0].playing = false;
    m.run(1_000);
    assert_eq!(m.sides[0].ended, Some(EndReason::Left));
    assert!(m
        .host_events
        .contains(&HostEvent::Left(seat, LeaveReason::Quit)));
    assert!(m.host.game().game.ship(seat).is_none());
    assert!(!m.host.seats().any(|s| s == seat));
    let stale = m.join(common::link_b(), 912, Some(token));
    let fresh = m.join(common::link_b(), 913, None);
    m.run(3_000);
    assert_eq!(
        m.sides[stale].ended,
        Some(EndReason::Refused(RefuseReason::UnknownToken))
    );
    assert_eq!(m.sides[fresh].seat, Some(seat), "the freed seat is reused");
    m.assert_events(1, 60);
    m.assert_events(fresh, 60);
}
