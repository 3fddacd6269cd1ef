//! A room lives for its TTL, then closes everyone and deletes itself; it
//! survives hibernation.

use crate::common;

use common::FakeHost;
use signaling_core::{
    close_code, Event, Millis, Role, Room, RoomAttachment, RoomCode, RoomLimits, RoomRefusal,
};

const TTL: u64 = 600_000;

#[test]
fn expiry_alarm_closes_both_sides_and_finishes() {
    let mut h = FakeHost::<RoomAttachment>::default();
    let (mut room, a) = Room::new(
        RoomCode::parse("TTXTTX").unwrap(),
        RoomLimits::default(),
        Millis(5),
    );
    h.apply(a);
    assert_eq!(h.alarm, Some(Millis(5 + TTL)));
    let (host, a) = room.admit(Role::Host, Millis(10)).unwrap();
    h.apply(a);
    let (guest, a) = room.admit(Role::Guest, Millis(20)).unwrap();
    h.apply(a);

    // An early alarm changes nothing but asks to be woken again.
    h.alarm = None;
    h.apply(room.handle(Event::Alarm, Millis(TTL)));
    assert!(h.closed.is_empty() && !h.finished);
    assert_eq!(h.alarm, Some(Millis(5 + TTL)));

    h.apply(room.handle(Event::Alarm, Millis(5 + TTL)));
    assert_eq!(h.closed[&host], (close_code::NORMAL, "room expired"));
    assert_eq!(h.closed[&guest], (close_code::NORMAL, "room expired"));
    assert!(h.finished);
    assert_eq!(
        room.admit(Role::Guest, Millis(6 + TTL)),
        Err(RoomRefusal::NotFound)
    );
}

#[test]
fn expired_room_refuses_admission_even_before_its_alarm() {
    let limits = RoomLimits {
        ttl_ms: 1_000,
        ..RoomLimits::default()
    };
    let (mut room, _) = Room::new(RoomCode::parse("ABCDEF").unwrap(), limits, Millis(0));
    assert!(room.admit(Role::Host, Millis(999)).is_ok());
    assert_eq!(
        room.admit(Role::Guest, Millis(1_000)),
        Err(RoomRefusal::NotFound)
    );
}

#[test]
fn a_late_alarm_does_not_let_messages_through_after_expiry() {
    let mut h = FakeHost::<RoomAttachment>::default();
    let limits = RoomLimits {
        ttl_ms: 1_000,
        ..RoomLimits::default()
    };
    let (mut room, a) = Room::new(RoomCode::parse("ABCDEF").unwrap(), limits, Millis(0));
    h.apply(a);
    let (host, a) = room.admit(Role::Host, Millis(1)).unwrap();
    h.apply(a);
    let (guest, a) = room.admit(Role::Guest, Millis(2)).unwrap();
    h.apply(a);
    h.take(host);
    h.apply(room.handle(
        Event::Text {
            socket: host,
            text: r#"{"type":"offer"}"#,
        },
        Millis(1_000),
    ));
    assert!(h.take(guest).is_empty());
    assert!(h.finished && h.closed.len() == 2);
}

#[test]
fn room_carries_on_after_hibernation() {
    let mut h = FakeHost::<RoomAttachment>::default();
    let (mut room, a) = Room::new(
        RoomCode::parse("HBRNAT").unwrap(),
        RoomLimits::default(),
        Millis(0),
    );
    h.apply(a);
    let meta = room.meta().clone();
    let (host, a) = room.admit(Role::Host, Millis(1)).unwrap();
    h.apply(a);
    let (guest, a) = room.admit(Role::Guest, Millis(2)).unwrap();
    h.apply(a);
    h.take(host);
    for i in 0..60 {
        h.apply(room.handle(
            Event::Text {
                socket: host,
                text: r#"{"type":"ice"}"#,
            },
            Millis(3 + i),
        ));
    }
    h.take(guest);

    // Wake up: meta from storage, attachments from the sockets (as JSON).
    let meta_json = serde_json::to_string(&meta).unwrap();
    let stored: Vec<String> = h.attachments.values().map(|a| a.to_json()).collect();
    let mut room = Room::restore(
        serde_json::from_str(&meta_json).unwrap(),
        RoomLimits::default(),
        stored.iter().map(|s| RoomAttachment::from_json(s).unwrap()),
    );
    assert_eq!(room.socket(Role::Host), Some(host));
    assert_eq!(
        room.admit(Role::Guest, Millis(100)),
        Err(RoomRefusal::Occupied)
    );
    // The relay still works, and the host's message count carried over.
    h.apply(room.handle(
        Event::Text {
            socket: guest,
            text: r#"{"type":"answer"}"#,
        },
        Millis(101),
    ));
    assert_eq!(h.take(host), [r#"{"type":"answer"}"#]);
    assert_eq!(
        h.alarm,
        Some(meta.expires_at),
        "alarm re-announced after restore"
    );
    for i in 0..40 {
        h.apply(room.handle(
            Event::Text {
                socket: host,
                text: r#"{"type":"ice"}"#,
            },
            Millis(200 + i),
        ));
    }
    assert!(!h.closed.contains_key(&host));
    h.apply(room.handle(
        Event::Text {
            socket: host,
            text: r#"{"type":"ice"}"#,
        },
        Millis(300),
    ));
    assert_eq!(
        h.closed[&host].0,
        close_code::POLICY,
        "count survived hibernation"
    );
    // A socket admitted after the restore gets a fresh id.
    let (host2, _) = room.admit(Role::Host, Millis(400)).unwrap();
    assert!(host2 != host && host2 != guest);
}

#[test]
fn restore_ignores_clashing_attachments() {
    let meta = Room::new(
        RoomCode::parse("ABCDEF").unwrap(),
        RoomLimits::default(),
        Millis(0),
    )
    .0
    .meta()
    .clone();
    let a = |s, role| RoomAttachment {
        socket: signaling_core::SocketId(s),
        seat: signaling_core::Seat::Role(role),
        messages: 0,
        window: signaling_core::MinuteWindow::new(),
    };
    let room = Room::restore(
        meta,
        RoomLimits::default(),
        [
            a(0, Role::Host),
            a(1, Role::Host),
            a(0, Role::Guest),
            // A member room's place has no seat in a two-seat room.
            RoomAttachment {
                socket: signaling_core::SocketId(2),
                seat: signaling_core::Seat::Member(signaling_core::MemberId(1)),
                messages: 0,
                window: signaling_core::MinuteWindow::new(),
            },
        ],
    );
    assert_eq!(room.socket(Role::Host), Some(signaling_core::SocketId(0)));
    assert_eq!(room.socket(Role::Guest), None);
    assert!(!room.holds(&RoomAttachment {
        socket: signaling_core::SocketId(2),
        seat: signaling_core::Seat::Member(signaling_core::MemberId(1)),
        messages: 0,
        window: signaling_core::MinuteWindow::new(),
    }));
}
