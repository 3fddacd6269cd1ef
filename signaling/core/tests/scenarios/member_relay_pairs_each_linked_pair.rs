//! A member room hands each member a ticket for the relay of one of its
//! pairs: two players, or the host and a spectator. The ticket names the
//! pair and the asker's end; the relay it opens pairs exactly those two,
//! and no other pair, end or room can use it.

use crate::common::FakeHost;
use crate::relay_common::{key, RelayHost};
use signaling_core::{
    check_ticket, Event, JoinRole, Millis, Relay, RelayLimits, RelayName, RelayRefusal, Role, Room,
    RoomAttachment, RoomCapacity, RoomCode, RoomLimits, SocketId,
};

const CODE: &str = "MEMRXY";

/// A member room with host 0, players 1 and 2, spectators 8 and 9, whose
/// members' sockets are returned in that order.
fn room() -> (Room, FakeHost<RoomAttachment>, Vec<SocketId>) {
    let limits = RoomLimits {
        relay_key: Some(key()),
        ..RoomLimits::default()
    };
    let cap = RoomCapacity {
        players: 3,
        spectators: 2,
    };
    let (mut room, a) = Room::with_members(RoomCode::parse(CODE).unwrap(), cap, limits, Millis(0));
    let mut h = FakeHost::default();
    h.apply(a);
    let mut sockets = Vec::new();
    for role in [
        JoinRole::Host,
        JoinRole::Player,
        JoinRole::Player,
        JoinRole::Spectator,
        JoinRole::Spectator,
    ] {
        let (s, a) = room.admit(role, Millis(1)).unwrap();
        h.apply(a);
        sockets.push(s);
    }
    for &s in &sockets {
        h.take(s);
    }
    (room, h, sockets)
}

/// What the room answers `socket`'s `text`: the ticket's text, or the
/// error's reason.
fn ask(
    room: &mut Room,
    h: &mut FakeHost<RoomAttachment>,
    socket: SocketId,
    text: &str,
) -> Result<String, String> {
    let a = room.handle(Event::Text { socket, text }, Millis(10));
    h.apply(a);
    let got = h.only(socket);
    match got["type"].as_str() {
        Some("relay-ticket") => {
            assert_eq!(got["ttl"], 60);
            Ok(got["ticket"].as_str().unwrap().to_owned())
        }
        Some("error") => Err(got["reason"].as_str().unwrap().to_owned()),
        _ => panic!("neither a ticket nor an error: {got}"),
    }
}

fn ticket_to(
    room: &mut Room,
    h: &mut FakeHost<RoomAttachment>,
    socket: SocketId,
    to: u8,
) -> String {
    let text = format!(r#"{{"type":"relay-ticket","to":{to}}}"#);
    ask(room, h, socket, &text).unwrap_or_else(|e| panic!("ticket to {to} refused: {e}"))
}

#[test]
fn two_players_get_the_two_ends_of_their_pair_and_the_relay_pairs_them() {
    let (mut room, mut h, s) = room();
    let one = ticket_to(&mut room, &mut h, s[1], 2);
    let two = ticket_to(&mut room, &mut h, s[2], 1);
    assert!(one.starts_with("1-2."), "{one}");
    assert!(two.starts_with("2-1."), "{two}");
    // Nobody else heard of it.
    for &other in [s[0], s[3], s[4]].iter() {
        assert!(h.take(other).is_empty());
    }
    assert!(h
        .logs
        .iter()
        .any(|l| l.contains(r#""event":"room.relay_ticket""#)
            && l.contains(r#""member":1"#)
            && l.contains(r#""to":2"#)));

    let code = RoomCode::parse(CODE).unwrap();
    let one = check_ticket(&key(), &code, Some(&one), Millis(20)).unwrap();
    let two = check_ticket(&key(), &code, Some(&two), Millis(20)).unwrap();
    assert_eq!(one.relay, two.relay, "both ends name the same relay");
    assert_ne!(
        one.relay,
        RelayName::from(code.clone()),
        "not the room's own"
    );
    assert_eq!(one.relay.object_name(), format!("{CODE}/1-2"));
    assert_eq!((one.role, two.role), (Role::Host, Role::Guest));

    let mut rh = RelayHost::default();
    let (mut relay, a) = Relay::new(one.relay.clone(), RelayLimits::default(), Millis(20));
    rh.apply(a, None);
    let (a_sock, a) = relay.admit(one.role, Millis(21)).unwrap();
    rh.apply(a, None);
    let (b_sock, a) = relay.admit(two.role, Millis(22)).unwrap();
    rh.apply(a, None);
    assert_eq!(
        relay.admit(two.role, Millis(23)).unwrap_err(),
        RelayRefusal::Occupied
    );
    for sock in [a_sock, b_sock] {
        assert_eq!(rh.texts[&sock], vec![r#"{"type":"paired"}"#.to_owned()]);
    }
    let all: Vec<u8> = (0..=255).collect();
    rh.send(&mut relay, a_sock, &all, Millis(30));
    rh.send(&mut relay, b_sock, b"back", Millis(31));
    assert_eq!(rh.frames[&b_sock], vec![all]);
    assert_eq!(rh.frames[&a_sock], vec![b"back".to_vec()]);
    // Its records name the pair and the members, never a frame.
    assert!(rh
        .logs
        .iter()
        .any(|l| l.contains(r#""event":"relay.paired""#)
            && l.contains(r#""low":1"#)
            && l.contains(r#""high":2"#)));
    assert!(rh
        .logs
        .iter()
        .any(|l| l.contains(r#""event":"relay.joined""#) && l.contains(r#""member":2"#)));
    assert_eq!(relay.meta().name(), one.relay);
}

#[test]
fn a_spectator_gets_a_ticket_for_its_link_to_the_host_only() {
    let (mut room, mut h, s) = room();
    let spectator = ticket_to(&mut room, &mut h, s[3], 0);
    let host = ticket_to(&mut room, &mut h, s[0], 8);
    assert!(spectator.starts_with("8-0."), "{spectator}");
    assert!(host.starts_with("0-8."), "{host}");
    for (from, to) in [(3, 1), (3, 9), (1, 8), (2, 9)] {
        let text = format!(r#"{{"type":"relay-ticket","to":{to}}}"#);
        let got = ask(&mut room, &mut h, s[from], &text);
        assert!(
            got.as_ref().is_err_and(|e| e.contains("spectator")),
            "{from} to {to}: {got:?}"
        );
    }
}

#[test]
fn tickets_for_nobody_for_oneself_or_without_a_peer_are_refused() {
    let (mut room, mut h, s) = room();
    for bad in [
        r#"{"type":"relay-ticket","to":1}"#,
        r#"{"type":"relay-ticket","to":5}"#,
        r#"{"type":"relay-ticket","to":24}"#,
        r#"{"type":"relay-ticket","to":"2"}"#,
        r#"{"type":"relay-ticket"}"#,
    ] {
        assert!(ask(&mut room, &mut h, s[1], bad).is_err(), "{bad}");
        for &other in &s {
            assert!(h.take(other).is_empty(), "{bad} reached someone");
        }
    }
    // A member that left no longer has a pair.
    let a = room.handle(Event::Closed { socket: s[2] }, Millis(11));
    h.apply(a);
    h.take(s[1]);
    assert!(ask(&mut room, &mut h, s[1], r#"{"type":"relay-ticket","to":2}"#).is_err());
}

#[test]
fn a_pair_ticket_opens_neither_another_pair_nor_the_other_end_nor_another_room() {
    let (mut room, mut h, s) = room();
    let code = RoomCode::parse(CODE).unwrap();
    let ticket = ticket_to(&mut room, &mut h, s[1], 2);
    let (side, rest) = ticket.split_once('.').unwrap();
    assert_eq!(side, "1-2");
    for forged in ["2-1", "1-0", "0-2", "host", "guest"] {
        assert_eq!(
            check_ticket(&key(), &code, Some(&format!("{forged}.{rest}")), Millis(20)),
            Err(RelayRefusal::BadTicket),
            "{forged}"
        );
    }
    let other = RoomCode::parse("XTHERS").unwrap();
    assert_eq!(
        check_ticket(&key(), &other, Some(&ticket), Millis(20)),
        Err(RelayRefusal::BadTicket)
    );
    // Like a two-seat room's, it opens its relay for a minute.
    assert_eq!(
        check_ticket(&key(), &code, Some(&ticket), Millis(60_010)),
        Err(RelayRefusal::TicketExpired)
    );
}

#[test]
fn a_room_without_a_key_answers_with_an_error() {
    let cap = RoomCapacity {
        players: 2,
        spectators: 0,
    };
    let (mut room, _) = Room::with_members(
        RoomCode::parse(CODE).unwrap(),
        cap,
        RoomLimits::default(),
        Millis(0),
    );
    let mut h = FakeHost::default();
    let (host, a) = room.admit(JoinRole::Host, Millis(1)).unwrap();
    h.apply(a);
    let (_, a) = room.admit(JoinRole::Player, Millis(1)).unwrap();
    h.apply(a);
    h.take(host);
    assert_eq!(
        ask(&mut room, &mut h, host, r#"{"type":"relay-ticket","to":1}"#),
        Err("this service has no relay".to_owned())
    );
}

#[test]
fn a_pair_relay_keeps_its_pair_through_hibernation() {
    use signaling_core::{MemberId, MemberPair, RelayMeta};
    let code = RoomCode::parse(CODE).unwrap();
    let name = RelayName {
        code: code.clone(),
        pair: MemberPair::new(MemberId(8), MemberId(0)),
    };
    let (relay, _) = Relay::new(name.clone(), RelayLimits::default(), Millis(0));
    let stored = serde_json::to_string(relay.meta()).unwrap();
    assert!(stored.contains(r#""pair":{"low":0,"high":8}"#), "{stored}");
    let meta: RelayMeta = serde_json::from_str(&stored).unwrap();
    let restored = Relay::restore(meta, RelayLimits::default(), []);
    assert_eq!(restored.meta().name(), name);
    assert_eq!(name.object_name(), format!("{CODE}/0-8"));
    // A two-seat room's relay stores what it stored before pairs existed.
    let (two_seat, _) = Relay::new(code, RelayLimits::default(), Millis(0));
    let stored = serde_json::to_string(two_seat.meta()).unwrap();
    assert!(!stored.contains("pair"), "{stored}");
    assert_eq!(two_seat.meta().name().object_name(), CODE);
}
