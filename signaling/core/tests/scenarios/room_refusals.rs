//! Every refusal and cap of a room.

use crate::common;

use common::FakeHost;
use signaling_core::{
    close_code, Event, Millis, Role, Room, RoomAttachment, RoomCode, RoomLimits, RoomRefusal,
    SocketId,
};

struct Pair {
    room: Room,
    h: FakeHost<RoomAttachment>,
    host: SocketId,
    guest: SocketId,
}

fn pair() -> Pair {
    let mut h = FakeHost::default();
    let (mut room, a) = Room::new(
        RoomCode::parse("ABCDEF").unwrap(),
        RoomLimits::default(),
        Millis(0),
    );
    h.apply(a);
    let (host, a) = room.admit(Role::Host, Millis(0)).unwrap();
    h.apply(a);
    let (guest, a) = room.admit(Role::Guest, Millis(0)).unwrap();
    h.apply(a);
    h.take(host);
    Pair {
        room,
        h,
        host,
        guest,
    }
}

fn error_reason(v: &serde_json::Value) -> &str {
    assert_eq!(v["type"], "error", "{v}");
    v["reason"].as_str().expect("reason is a string")
}

#[test]
fn second_host_or_guest_is_409_and_bad_role_is_400() {
    let mut p = pair();
    assert_eq!(
        p.room.admit(Role::Host, Millis(1)),
        Err(RoomRefusal::Occupied)
    );
    assert_eq!(
        p.room.admit(Role::Guest, Millis(1)),
        Err(RoomRefusal::Occupied)
    );
    assert_eq!(RoomRefusal::Occupied.status(), 409);
    for bad in [
        None,
        Some(""),
        Some("HOST"),
        Some("spectator"),
        Some("host "),
    ] {
        assert_eq!(signaling_core::parse_role(bad), Err(RoomRefusal::BadRole));
    }
    assert_eq!(RoomRefusal::BadRole.status(), 400);
    assert_eq!(signaling_core::parse_role(Some("guest")), Ok(Role::Guest));
}

#[test]
fn anything_but_offer_answer_ice_done_is_refused_with_error() {
    let mut p = pair();
    for text in [
        r#"{"type":"chat","text":"hi"}"#,
        r#"{"type":"peer-joined"}"#,
        r#"{"type":7}"#,
        r#"{"sdp":"x"}"#,
        "[1,2]",
        "\"offer\"",
        "not json",
        "{\"type\":\"offer\"",
        "",
    ] {
        p.h.apply(p.room.handle(
            Event::Text {
                socket: p.host,
                text,
            },
            Millis(1),
        ));
        let reply = p.h.only(p.host);
        assert!(!error_reason(&reply).is_empty(), "{text:?}");
        assert!(p.h.take(p.guest).is_empty(), "nothing relayed for {text:?}");
    }
    p.h.apply(p.room.handle(
        Event::Binary {
            socket: p.guest,
            len: 10,
        },
        Millis(1),
    ));
    assert_eq!(
        error_reason(&p.h.only(p.guest)),
        "binary frames are not accepted"
    );
    assert!(p.h.closed.is_empty());
}

#[test]
fn relaying_without_a_peer_is_an_error() {
    let mut h = FakeHost::default();
    let (mut room, a) = Room::new(
        RoomCode::parse("ABCDEF").unwrap(),
        RoomLimits::default(),
        Millis(0),
    );
    h.apply(a);
    let (host, a) = room.admit(Role::Host, Millis(0)).unwrap();
    h.apply(a);
    h.apply(room.handle(
        Event::Text {
            socket: host,
            text: r#"{"type":"offer"}"#,
        },
        Millis(1),
    ));
    assert_eq!(
        error_reason(&h.only(host)),
        "the other side is not connected"
    );
}

#[test]
fn message_of_8_kib_passes_and_one_byte_more_closes_with_1009() {
    let mut p = pair();
    let head = r#"{"type":"ice","pad":""#;
    let fill = 8 * 1024 - head.len() - 2;
    let max = format!("{head}{}\"}}", "x".repeat(fill));
    assert_eq!(max.len(), 8192);
    p.h.apply(p.room.handle(
        Event::Text {
            socket: p.host,
            text: &max,
        },
        Millis(1),
    ));
    assert_eq!(p.h.take(p.guest), [max]);
    let over = format!("{head}{}\"}}", "x".repeat(fill + 1));
    p.h.apply(p.room.handle(
        Event::Text {
            socket: p.host,
            text: &over,
        },
        Millis(2),
    ));
    assert_eq!(
        p.h.closed.get(&p.host),
        Some(&(close_code::TOO_BIG, "message too big"))
    );
    assert!(p.h.take(p.guest).is_empty());
    // The guest is untouched and the host role is free again.
    assert!(!p.h.closed.contains_key(&p.guest));
    assert!(p.room.admit(Role::Host, Millis(3)).is_ok());
    // Binary frames count against the size cap too.
    p.h.apply(p.room.handle(
        Event::Binary {
            socket: p.guest,
            len: 8193,
        },
        Millis(4),
    ));
    assert_eq!(
        p.h.closed.get(&p.guest).map(|c| c.0),
        Some(close_code::TOO_BIG)
    );
}

#[test]
fn the_101st_message_closes_with_1008() {
    let mut p = pair();
    for i in 0..100 {
        let text = format!(r#"{{"type":"ice","n":{i}}}"#);
        p.h.apply(p.room.handle(
            Event::Text {
                socket: p.guest,
                text: &text,
            },
            Millis(i),
        ));
    }
    assert_eq!(p.h.take(p.host).len(), 100);
    assert!(p.h.closed.is_empty());
    assert_eq!(p.h.attachments[&p.guest].messages, 100);
    p.h.apply(p.room.handle(
        Event::Text {
            socket: p.guest,
            text: r#"{"type":"ice"}"#,
        },
        Millis(200),
    ));
    assert_eq!(
        p.h.closed.get(&p.guest),
        Some(&(close_code::POLICY, "too many messages"))
    );
    assert!(p.h.take(p.host).is_empty());
    // Refused messages count too: the host's errors use up its budget.
    for i in 0..100 {
        p.h.apply(p.room.handle(
            Event::Text {
                socket: p.host,
                text: "junk",
            },
            Millis(300 + i),
        ));
    }
    assert!(!p.h.closed.contains_key(&p.host));
    p.h.apply(p.room.handle(
        Event::Text {
            socket: p.host,
            text: "junk",
        },
        Millis(500),
    ));
    assert_eq!(
        p.h.closed.get(&p.host).map(|c| c.0),
        Some(close_code::POLICY)
    );
}

#[test]
fn unknown_sockets_are_ignored() {
    let mut p = pair();
    let stranger = SocketId(99);
    assert!(p
        .room
        .handle(
            Event::Text {
                socket: stranger,
                text: r#"{"type":"done"}"#
            },
            Millis(1)
        )
        .is_empty());
    assert!(p
        .room
        .handle(Event::Closed { socket: stranger }, Millis(1))
        .is_empty());
    assert!(!p.room.is_finished());
}
