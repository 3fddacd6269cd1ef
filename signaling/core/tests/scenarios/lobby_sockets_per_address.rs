//! One client address cannot hold the lobby: it may keep a few sockets
//! open, the next upgrade from it is refused with 429 while others still
//! get in.

use std::net::IpAddr;

use signaling_core::{Event, Lobby, LobbyLimits, LobbyRefusal, Millis};

fn ip(s: &str) -> Option<IpAddr> {
    Some(s.parse().unwrap())
}

#[test]
fn an_address_holds_at_most_its_share_of_sockets() {
    let mut lobby = Lobby::new(LobbyLimits::default());
    let cap = lobby.limits().max_sockets_per_address;
    assert_eq!(cap, 8);
    let mut held = Vec::new();
    for i in 0..cap {
        let (s, _) = lobby
            .admit_from(Millis(i as u64), ip("192.0.2.1"))
            .expect("under the cap");
        held.push(s);
    }
    let refused = lobby.admit_from(Millis(10), ip("192.0.2.1")).unwrap_err();
    assert_eq!(refused, LobbyRefusal::TooManyFromAddress);
    assert_eq!(refused.status(), 429);
    // Another address, and a socket admitted without one, still get in.
    assert!(lobby.admit_from(Millis(11), ip("192.0.2.2")).is_ok());
    assert!(lobby.admit(Millis(12)).is_ok());
    // A socket that closes frees its place.
    lobby.handle(Event::Closed { socket: held[0] }, Millis(13));
    assert!(lobby.admit_from(Millis(14), ip("192.0.2.1")).is_ok());
    assert!(lobby.admit_from(Millis(15), ip("192.0.2.1")).is_err());
}

#[test]
fn ipv6_addresses_count_by_their_64() {
    let limits = LobbyLimits {
        max_sockets_per_address: 2,
        ..LobbyLimits::default()
    };
    let mut lobby = Lobby::new(limits);
    assert!(lobby.admit_from(Millis(0), ip("2001:db8:7:7::1")).is_ok());
    assert!(lobby
        .admit_from(Millis(1), ip("2001:db8:7:7:ffff::2"))
        .is_ok());
    assert_eq!(
        lobby
            .admit_from(Millis(2), ip("2001:db8:7:7:1234::3"))
            .unwrap_err(),
        LobbyRefusal::TooManyFromAddress
    );
    assert!(lobby.admit_from(Millis(3), ip("2001:db8:7:8::1")).is_ok());
}

#[test]
fn the_address_survives_hibernation_and_zero_turns_the_cap_off() {
    let limits = LobbyLimits {
        max_sockets_per_address: 1,
        ..LobbyLimits::default()
    };
    let mut lobby = Lobby::new(limits);
    let (s, _) = lobby.admit_from(Millis(0), ip("198.51.100.4")).unwrap();
    let attachment = lobby.attachment(s).unwrap().clone();
    let text = attachment.to_json();
    let mut lobby = Lobby::restore(limits, signaling_core::LobbyAttachment::from_json(&text));
    assert!(lobby.admit_from(Millis(1), ip("198.51.100.4")).is_err());

    let mut open = Lobby::new(LobbyLimits {
        max_sockets_per_address: 0,
        ..LobbyLimits::default()
    });
    for i in 0..32 {
        assert!(open.admit_from(Millis(i), ip("198.51.100.4")).is_ok());
    }
    assert_eq!(
        open.admit_from(Millis(40), ip("198.51.100.5")).unwrap_err(),
        LobbyRefusal::TooManySockets
    );
}
