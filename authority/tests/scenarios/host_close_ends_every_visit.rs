//! Closing the match: the host says goodbye to every seated guest and
//! closes their links; each guest's visit ends with the host's reason, and
//! no seat is held for a rejoin afterwards.
use crate::common;

use authority::wire::ByeReason;
use authority::{EndReason, HostEvent, LeaveReason};

#[test]
fn closing_the_host_ends_every_guest_visit() {
    let mut m = common::Match::new(93, 5);
    m.join(common::link_b(), 930, None);
    m.join(common::link_b(), 931, None);
    m.run(3_000);
    let seats: Vec<_> = m.sides.iter().map(|s| s.seat.expect("seated")).collect();
    m.host.close();
    m.run(2_000);
    for (i, seat) in seats.iter().enumerate() {
        assert_eq!(
            m.sides[i].ended,
            Some(EndReason::Bye(ByeReason::Closed)),
            "guest {i} heard the host close"
        );
        assert!(m
            .host_events
            .contains(&HostEvent::Left(*seat, LeaveReason::Closed)));
    }
    assert_eq!(m.host.seats().count(), 0, "no seat held for a rejoin");
}
