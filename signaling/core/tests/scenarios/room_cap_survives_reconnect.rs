//! A room's message cap counts each side over the room's whole life: a side
//! that closes and comes back (even after the room's object hibernated and
//! was rebuilt from its stored meta) carries on from what it already sent.

use crate::common;

use common::FakeHost;
use signaling_core::{
    close_code, Event, Millis, Role, Room, RoomAttachment, RoomCode, RoomLimits, SocketId,
};

fn send(room: &mut Room, h: &mut FakeHost<RoomAttachment>, socket: SocketId, n: u32, at: u64) {
    for i in 0..n {
        h.apply(room.handle(
            Event::Text {
                socket,
                text: r#"{"type":"ice"}"#,
            },
            Millis(at + u64::from(i)),
        ));
    }
}

#[test]
fn a_reconnected_host_has_only_what_is_left_of_its_hundred() {
    let limits = RoomLimits::default();
    let mut h = FakeHost::default();
    let (mut room, a) = Room::new(RoomCode::parse("ABCDEF").unwrap(), limits, Millis(0));
    h.apply(a);
    let (first, a) = room.admit(Role::Host, Millis(1)).unwrap();
    h.apply(a);
    send(&mut room, &mut h, first, 60, 10);
    h.apply(room.handle(Event::Closed { socket: first }, Millis(100)));
    assert_eq!(room.meta().host_messages, 60);

    // The object sleeps and wakes: only the stored meta is left.
    let stored = serde_json::to_string(room.meta()).unwrap();
    let mut room = Room::restore(serde_json::from_str(&stored).unwrap(), limits, []);

    let (second, a) = room.admit(Role::Host, Millis(200)).unwrap();
    h.apply(a);
    send(&mut room, &mut h, second, 40, 300);
    assert!(
        !h.closed.contains_key(&second),
        "100 in all is still allowed"
    );
    send(&mut room, &mut h, second, 1, 400);
    assert_eq!(
        h.closed.get(&second).map(|c| c.0),
        Some(close_code::POLICY),
        "the 101st message across both sockets closes it"
    );
    // The guest's allowance is its own.
    let (guest, a) = room.admit(Role::Guest, Millis(500)).unwrap();
    h.apply(a);
    send(&mut room, &mut h, guest, 100, 600);
    assert!(!h.closed.contains_key(&guest));
}

#[test]
fn a_meta_stored_before_the_counts_existed_still_loads() {
    let old = r#"{"code":"ABCDEF","created_at":0,"expires_at":600000}"#;
    let meta: signaling_core::RoomMeta = serde_json::from_str(old).unwrap();
    assert_eq!((meta.host_messages, meta.guest_messages), (0, 0));
}
