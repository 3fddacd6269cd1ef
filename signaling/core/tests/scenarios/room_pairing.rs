//! Two peers meet in a room and exchange offer, answer and ice verbatim.

use crate::common;

use common::FakeHost;
use signaling_core::{close_code, Event, Millis, Role, Room, RoomAttachment, RoomCode, RoomLimits};

fn new_room() -> (Room, FakeHost<RoomAttachment>) {
    let mut host = FakeHost::default();
    let (room, actions) = Room::new(
        RoomCode::parse("K7M2QX").unwrap(),
        RoomLimits::default(),
        Millis(1_000),
    );
    host.apply(actions);
    assert_eq!(host.alarm, Some(Millis(601_000)), "TTL alarm set");
    (room, host)
}

#[test]
fn host_and_guest_exchange_the_handshake_verbatim() {
    let (mut room, mut h) = new_room();
    let (host, a) = room.admit(Role::Host, Millis(1_100)).unwrap();
    h.apply(a);
    assert!(h.take(host).is_empty(), "no peer-joined before a guest");
    let (guest, a) = room.admit(Role::Guest, Millis(2_000)).unwrap();
    h.apply(a);
    assert_eq!(h.take(host), [r#"{"type":"peer-joined"}"#]);
    assert!(h.take(guest).is_empty());

    // Odd spacing, escapes, key order and extra fields must all survive.
    let offer = "{ \"sdp\" : \"v=0\\r\\no=- 1 2 IN IP4 127.0.0.1\" ,\"type\":\"offer\", \"x\":[1,2.50,{}] }";
    h.apply(room.handle(
        Event::Text {
            socket: host,
            text: offer,
        },
        Millis(2_100),
    ));
    assert_eq!(h.take(guest), [offer]);
    let answer = r#"{"type":"answer","sdp":"\u0041nswer ✓"}"#;
    h.apply(room.handle(
        Event::Text {
            socket: guest,
            text: answer,
        },
        Millis(2_200),
    ));
    assert_eq!(h.take(host), [answer]);
    for (from, to) in [(host, guest), (guest, host)] {
        let ice = r#"{"type":"ice","candidate":{"candidate":"candidate:1 1 udp 1 127.0.0.1 5000 typ host","sdpMid":"0"}}"#;
        h.apply(room.handle(
            Event::Text {
                socket: from,
                text: ice,
            },
            Millis(2_300),
        ));
        assert_eq!(h.take(to), [ice]);
        assert!(h.take(from).is_empty());
    }

    // One side says done: both are closed normally and the room ends.
    h.apply(room.handle(
        Event::Text {
            socket: guest,
            text: r#"{"type":"done"}"#,
        },
        Millis(2_400),
    ));
    assert_eq!(h.closed.get(&host).map(|c| c.0), Some(close_code::NORMAL));
    assert_eq!(h.closed.get(&guest).map(|c| c.0), Some(close_code::NORMAL));
    assert!(h.finished && room.is_finished());
    // The host reporting the closes afterwards changes nothing.
    assert!(room
        .handle(Event::Closed { socket: host }, Millis(2_500))
        .is_empty());
    assert_eq!(
        room.admit(Role::Guest, Millis(2_600)).unwrap_err().status(),
        404
    );
}

#[test]
fn guest_first_then_host_still_gets_peer_joined() {
    let (mut room, mut h) = new_room();
    let (guest, a) = room.admit(Role::Guest, Millis(1_100)).unwrap();
    h.apply(a);
    let (host, a) = room.admit(Role::Host, Millis(1_200)).unwrap();
    h.apply(a);
    assert_eq!(h.take(host), [r#"{"type":"peer-joined"}"#]);
    assert!(h.take(guest).is_empty());
}

#[test]
fn a_role_freed_by_a_closed_socket_can_be_taken_again() {
    let (mut room, mut h) = new_room();
    let (host, a) = room.admit(Role::Host, Millis(1_100)).unwrap();
    h.apply(a);
    let (guest, a) = room.admit(Role::Guest, Millis(1_200)).unwrap();
    h.apply(a);
    h.take(host);
    h.apply(room.handle(Event::Closed { socket: guest }, Millis(1_300)));
    assert_eq!(room.socket(Role::Guest), None);
    let (guest2, a) = room.admit(Role::Guest, Millis(1_400)).unwrap();
    h.apply(a);
    assert_ne!(guest, guest2);
    assert_eq!(h.take(host), [r#"{"type":"peer-joined"}"#]);
}
