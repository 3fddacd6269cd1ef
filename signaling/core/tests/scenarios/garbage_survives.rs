//! Feeding arbitrary frames and events to the machines (the lobby, a
//! two-seat room, a member room) never panics and never breaks their
//! invariants.

use proptest::prelude::*;
use signaling_core::{
    Action, Event, JoinRole, Lobby, LobbyLimits, Millis, Role, Room, RoomCapacity, RoomCode,
    RoomLimits, SocketId,
};

fn frame() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "\\{\"type\":\"(hello|status|signal|offer|answer|ice|done|x)\"(,\"[a-z]{1,6}\":(\"[A-Za-z0-9]{0,14}\"|[0-9]{1,3}|null|\\{\\}))*\\}",
        Just(r#"{"type":"hello","id":"AAAAAAAAAAAA","nick":"n"}"#.to_owned()),
        Just(r#"{"type":"signal","to":"AAAAAAAAAAAA","data":[]}"#.to_owned()),
        (0u8..30).prop_map(|to| format!(r#"{{"type":"signal","to":{to},"data":{{"a":[1]}}}}"#)),
        (0u8..30).prop_map(|to| format!(r#"{{"type":"relay-ticket","to":{to}}}"#)),
    ]
}

#[derive(Debug, Clone)]
enum Op {
    Admit,
    Text(u64, String),
    Binary(u64, usize),
    Close(u64),
    Alarm,
    Wait(u64),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        1 => Just(Op::Admit),
        6 => (0u64..8, frame()).prop_map(|(s, f)| Op::Text(s, f)),
        1 => (0u64..8, 0usize..20_000).prop_map(|(s, l)| Op::Binary(s, l)),
        1 => (0u64..8).prop_map(Op::Close),
        1 => Just(Op::Alarm),
        1 => (0u64..20_000).prop_map(Op::Wait),
    ]
}

proptest! {
    #[test]
    fn lobby_survives(ops in proptest::collection::vec(op(), 1..80)) {
        let mut lobby = Lobby::new(LobbyLimits { max_players: 3, max_sockets: 5, ..LobbyLimits::default() });
        let mut now = Millis(0);
        for op in ops {
            let actions = match op {
                Op::Admit => lobby.admit(now).map(|(_, a)| a).unwrap_or_default(),
                Op::Text(s, t) => lobby.handle(Event::Text { socket: SocketId(s), text: &t }, now),
                Op::Binary(s, len) => lobby.handle(Event::Binary { socket: SocketId(s), len }, now),
                Op::Close(s) => lobby.handle(Event::Closed { socket: SocketId(s) }, now),
                Op::Alarm => lobby.handle(Event::Alarm, now),
                Op::Wait(ms) => { now = now + Millis(ms); Vec::new() }
            };
            for a in actions {
                if let Action::Send { text, .. } = a {
                    prop_assert!(serde_json::from_str::<serde_json::Value>(&text).is_ok());
                }
            }
            prop_assert!(lobby.roster().len() <= 3);
            prop_assert!(lobby.socket_count() <= 5);
            let ids: std::collections::BTreeSet<_> = lobby.roster().iter().map(|p| p.id.clone()).collect();
            prop_assert_eq!(ids.len(), lobby.roster().len());
        }
    }

    #[test]
    fn room_survives(ops in proptest::collection::vec(op(), 1..80)) {
        let (mut room, _) = Room::new(RoomCode::parse("ABCDEF").unwrap(), RoomLimits { ttl_ms: 100_000, ..RoomLimits::default() }, Millis(0));
        let mut now = Millis(0);
        let mut n = 0u64;
        for op in ops {
            match op {
                Op::Admit => { n += 1; let _ = room.admit(if n.is_multiple_of(2) { Role::Host } else { Role::Guest }, now); }
                Op::Text(s, t) => { room.handle(Event::Text { socket: SocketId(s), text: &t }, now); }
                Op::Binary(s, len) => { room.handle(Event::Binary { socket: SocketId(s), len }, now); }
                Op::Close(s) => { room.handle(Event::Closed { socket: SocketId(s) }, now); }
                Op::Alarm => { room.handle(Event::Alarm, now); }
                Op::Wait(ms) => now = now + Millis(ms),
            }
            if room.is_finished() {
                prop_assert!(room.socket(Role::Host).is_none() && room.socket(Role::Guest).is_none());
            }
        }
    }
    #[test]
    fn member_room_survives(ops in proptest::collection::vec(op(), 1..120)) {
        let cap = RoomCapacity { players: 3, spectators: 2 };
        let limits = RoomLimits {
            ttl_ms: 100_000,
            relay_key: signaling_core::RelayKey::from_secret("garbage"),
            ..RoomLimits::default()
        };
        let (mut room, _) = Room::with_members(RoomCode::parse("ABCDEF").unwrap(), cap, limits, Millis(0));
        let roles = [JoinRole::Host, JoinRole::Player, JoinRole::Spectator, JoinRole::Guest];
        let mut now = Millis(0);
        let mut n = 0usize;
        for op in ops {
            let actions = match op {
                Op::Admit => { n += 1; room.admit(roles[n % 4], now).map(|(_, a)| a).unwrap_or_default() }
                Op::Text(s, t) => room.handle(Event::Text { socket: SocketId(s), text: &t }, now),
                Op::Binary(s, len) => room.handle(Event::Binary { socket: SocketId(s), len }, now),
                Op::Close(s) => room.handle(Event::Closed { socket: SocketId(s) }, now),
                Op::Alarm => room.handle(Event::Alarm, now),
                Op::Wait(ms) => { now = now + Millis(ms); Vec::new() }
            };
            // Every frame the room sends is JSON, and its places stay
            // within the capacity, one member per id.
            for a in actions {
                if let Action::Send { text, .. } = a {
                    prop_assert!(serde_json::from_str::<serde_json::Value>(&text).is_ok());
                }
            }
            let members = room.members();
            let players = members.iter().filter(|m| m.id.0 < 8).count();
            prop_assert!(players <= 3 && members.len() - players <= 2);
            prop_assert!(members.windows(2).all(|w| w[0].id < w[1].id));
            for m in &members {
                prop_assert!(m.id.0 < 3 || (8..10).contains(&m.id.0));
            }
            if room.is_finished() {
                prop_assert!(members.is_empty());
            }
        }
    }
}

proptest! {
    #[test]
    fn parsers_survive_any_text(s in any::<String>(), bytes in proptest::collection::vec(any::<u8>(), 0..40)) {
        if let Some(code) = RoomCode::parse(&s) {
            prop_assert_eq!(code.as_str(), s.to_ascii_uppercase());
        }
        if let Some(code) = RoomCode::from_random_bytes(&bytes) {
            prop_assert!(RoomCode::parse(code.as_str()).is_some());
        }
        if let Ok(nick) = signaling_core::protocol::clean_name(&s) {
            prop_assert!(!nick.is_empty() && nick.chars().count() <= 20);
            prop_assert!(!nick.chars().any(char::is_control));
        }
        let _ = signaling_core::PeerId::parse(&s);
        let origins = signaling_core::AllowedOrigins::parse(&s);
        let _ = origins.allows(Some(&s));
        prop_assert!(signaling_core::LobbyAttachment::from_json(&s).is_none() || s.contains("socket"));
        let _ = signaling_core::RoomAttachment::from_json(&s);
        prop_assert!(serde_json::from_str::<serde_json::Value>(&signaling_core::protocol::error_body(&s)).is_ok());
    }
}
