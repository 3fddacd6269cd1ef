//! Who gets no seat: a forged token, another game, another protocol
//! version, an eleventh guest. Each is refused with its reason and its link
//! closed; the seated guests play on untouched.
use crate::common;

use authority::wire::{RefuseReason, ToGuest, ToHost, PROTOCOL};
use authority::{EndReason, HostEvent, MAX_GUESTS};
use lockstep::{Channel, Transport};

#[test]
fn a_forged_token_is_refused() {
    let mut m = common::Match::new(51, 5);
    m.join(common::link_b(), 510, None);
    m.run(2_000);
    let real = m.sides[0].guest.token().expect("welcomed");
    let mut forged = real;
    forged[0] ^= 1;
    let i = m.join(common::link_b(), 511, Some(forged));
    m.run(2_000);
    assert_eq!(
        m.sides[i].ended,
        Some(EndReason::Refused(RefuseReason::UnknownToken))
    );
    assert_eq!(m.sides[i].seat, None);
    assert!(m
        .host_events
        .iter()
        .any(|e| matches!(e, HostEvent::Refused(_, RefuseReason::UnknownToken))));
    assert_eq!(m.host.seats().count(), 1);
    // The real guest's seat was not touched.
    let latest = m.latest_tick(0).expect("decoded");
    assert!(latest + 30 >= m.host.tick());
    assert!(m.sides[0].ended.is_none());
}

#[test]
fn another_game_or_protocol_is_refused() {
    for (hello, reason) in [
        (
            ToHost::Hello {
                protocol: PROTOCOL,
                game: 0xDEAD,
                token: None,
            },
            RefuseReason::Game,
        ),
        (
            ToHost::Hello {
                protocol: PROTOCOL + 1,
                game: <arena::Arena as authority::AuthoritativeGame>::GAME_ID,
                token: None,
            },
            RefuseReason::Protocol,
        ),
    ] {
        let mut m = common::Match::new(52, 5);
        let (host_end, mut guest_end) = netsim::pair(common::link_a(), 52);
        m.links.add(&mut m.host, m.now, host_end);
        guest_end
            .send(Channel::Reliable, &hello.encode().expect("encodes"))
            .expect("open");
        m.run(500);
        guest_end.advance_to(m.now);
        let (channel, bytes) = guest_end.recv().expect("an answer");
        assert_eq!(channel, Channel::Reliable);
        assert_eq!(ToGuest::decode(&bytes), Ok(ToGuest::Refused(reason)));
        assert!(guest_end.state().is_terminal(), "the host closed the link");
        assert_eq!(m.host.seats().count(), 0);
    }
}

#[test]
fn an_eleventh_guest_is_refused() {
    let mut m = common::Match::new(53, 5);
    for i in 0..=MAX_GUESTS {
        m.join(common::link_a(), 530 + u64::from(i), None);
    }
    m.run(3_000);
    let seats: Vec<_> = m.sides.iter().filter_map(|s| s.seat).collect();
    assert_eq!(seats, (1..=MAX_GUESTS).collect::<Vec<_>>());
    assert_eq!(
        m.sides[10].ended,
        Some(EndReason::Refused(RefuseReason::Full))
    );
    for i in 0..10 {
        assert!(m.sides[i].ended.is_none());
        m.assert_events(i, 30);
    }
}
