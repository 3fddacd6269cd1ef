//! A room's per-minute rate: a member (or a side of a two-seat room) that
//! sends more than its minute's allowance is closed with 1008 at once,
//! long before its lifetime count runs out, and the others hear it left.
//! The window goes on after the room's object hibernates, starts afresh
//! each minute, and a rate of 0 turns it off.

use crate::common;

use common::FakeHost;
use signaling_core::{
    close_code, Event, JoinRole, Millis, Role, Room, RoomAttachment, RoomCapacity, RoomCode,
    RoomLimits, SocketId,
};

const PING: &str = r#"{"type":"ping"}"#;

fn member_room(limits: RoomLimits) -> (Room, FakeHost<RoomAttachment>, SocketId, SocketId) {
    let mut h = FakeHost::default();
    let (mut room, a) = Room::with_members(
        RoomCode::parse("ABCDEF").unwrap(),
        RoomCapacity {
            players: 2,
            spectators: 0,
        },
        limits,
        Millis(0),
    );
    h.apply(a);
    let (host, a) = room.admit(JoinRole::Host, Millis(1)).unwrap();
    h.apply(a);
    let (player, a) = room.admit(JoinRole::Player, Millis(1)).unwrap();
    h.apply(a);
    h.take(host);
    h.take(player);
    (room, h, host, player)
}

fn pings(room: &mut Room, h: &mut FakeHost<RoomAttachment>, socket: SocketId, n: u32, at: u64) {
    for _ in 0..n {
        h.apply(room.handle(Event::Text { socket, text: PING }, Millis(at)));
    }
}

#[test]
fn a_member_over_its_minute_is_closed_and_the_others_are_told() {
    let limits = RoomLimits {
        messages_per_minute: 30,
        ..RoomLimits::default()
    };
    let (mut room, mut h, host, player) = member_room(limits);
    pings(&mut room, &mut h, player, 30, 100);
    assert!(
        !h.closed.contains_key(&player),
        "30 in a minute are allowed"
    );
    pings(&mut room, &mut h, player, 1, 59_000);
    assert_eq!(
        h.closed.get(&player),
        Some(&(close_code::POLICY, "too many messages per minute"))
    );
    let told = h.take_json(host);
    assert_eq!(
        told.last().map(|v| v["type"].clone()),
        Some("member-left".into())
    );
    assert!(!h.closed.contains_key(&host), "the host sent nothing");
}

#[test]
fn the_window_starts_afresh_each_minute_and_survives_hibernation() {
    let limits = RoomLimits {
        messages_per_minute: 30,
        ..RoomLimits::default()
    };
    let (mut room, mut h, _host, player) = member_room(limits);
    pings(&mut room, &mut h, player, 30, 100);
    // A minute after the window opened, a new one opens.
    pings(&mut room, &mut h, player, 20, 60_100);
    assert!(!h.closed.contains_key(&player));

    // The object sleeps and wakes: its meta and the attachments are left.
    let meta = room.meta().clone();
    let mut room = Room::restore(meta, limits, h.attachments.values().copied());
    pings(&mut room, &mut h, player, 10, 60_200);
    assert!(!h.closed.contains_key(&player), "30 in the second minute");
    pings(&mut room, &mut h, player, 1, 60_300);
    assert_eq!(h.closed.get(&player).map(|c| c.0), Some(close_code::POLICY));
}

#[test]
fn a_side_of_a_two_seat_room_is_held_to_the_same_rate() {
    let limits = RoomLimits {
        messages_per_minute: 10,
        ..RoomLimits::default()
    };
    let mut h = FakeHost::default();
    let (mut room, a) = Room::new(RoomCode::parse("ABCDEF").unwrap(), limits, Millis(0));
    h.apply(a);
    let (host, a) = room.admit(Role::Host, Millis(1)).unwrap();
    h.apply(a);
    pings(&mut room, &mut h, host, 10, 5);
    assert!(!h.closed.contains_key(&host));
    pings(&mut room, &mut h, host, 1, 6);
    assert_eq!(
        h.closed.get(&host),
        Some(&(close_code::POLICY, "too many messages per minute"))
    );
}

#[test]
fn a_rate_of_zero_leaves_only_the_lifetime_count() {
    let limits = RoomLimits {
        messages_per_minute: 0,
        ..RoomLimits::default()
    };
    let (mut room, mut h, _host, player) = member_room(limits);
    pings(&mut room, &mut h, player, limits.max_member_messages, 100);
    assert!(!h.closed.contains_key(&player));
    pings(&mut room, &mut h, player, 1, 100);
    assert_eq!(
        h.closed.get(&player),
        Some(&(close_code::POLICY, "too many messages"))
    );
}

#[test]
fn the_default_rate_admits_a_full_mesh_handshake_but_not_a_lifetime_at_once() {
    let limits = RoomLimits::default();
    assert_eq!(
        limits.messages_per_minute,
        signaling_core::defaults::ROOM_MESSAGES_PER_MINUTE
    );
    assert!(limits.messages_per_minute < limits.max_member_messages);
    let (mut room, mut h, _host, player) = member_room(limits);
    pings(&mut room, &mut h, player, limits.messages_per_minute, 100);
    assert!(!h.closed.contains_key(&player));
    pings(&mut room, &mut h, player, 1, 100);
    assert_eq!(h.closed.get(&player).map(|c| c.0), Some(close_code::POLICY));
}

#[test]
fn an_attachment_stored_before_the_rate_existed_still_loads() {
    let old = r#"{"socket":5,"member":1,"messages":7}"#;
    let a = RoomAttachment::from_json(old).expect("loads");
    assert_eq!(a.messages, 7);
}
