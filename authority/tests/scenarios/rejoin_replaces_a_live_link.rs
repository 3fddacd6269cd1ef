//! A page reloaded before its old link timed out: the guest comes back
//! with its token on a new link while the old one is still open. It gets
//! its seat back; the old link is told `Bye(Replaced)` and closed, and the
//! host never counts the seat as dropped or left.
use crate::common;

use authority::wire::ByeReason;
use authority::{EndReason, HostEvent};

#[test]
fn a_second_link_with_the_token_replaces_the_first() {
    let mut m = common::Match::new(71, 5);
    m.join(common::link_b(), 710, None);
    m.run(4_000);
    let seat = m.sides[0].seat.expect("seated");
    let token = m.sides[0].guest.token().expect("welcomed");
    let again = m.join(common::link_b(), 711, Some(token));
    m.run(6_000);
    assert_eq!(m.sides[0].ended, Some(EndReason::Bye(ByeReason::Replaced)));
    assert_eq!(m.sides[again].seat, Some(seat));
    assert!(m.sides[again].rejoined);
    assert!(m.sides[again].ended.is_none());
    assert!(!m
        .host_events
        .iter()
        .any(|e| matches!(e, HostEvent::Dropped(_) | HostEvent::Left(..))));
    assert_eq!(m.host.link_of(seat), Some(m.sides[again].link));
    let latest = m.latest_tick(again).expect("decoded");
    assert!(latest + 30 >= m.host.tick());
    m.assert_events(again, 60);
}
