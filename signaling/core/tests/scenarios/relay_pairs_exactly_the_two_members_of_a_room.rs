//! A relay takes exactly one socket per side of one room, each with the
//! ticket its room issued, tells both `paired`, and forwards binary frames
//! both ways byte for byte.

use crate::relay_common;

use relay_common::{key, paired, ticket_from_room};
use signaling_core::{
    check_ticket, issue_ticket, Millis, Relay, RelayLimits, RelayRefusal, Role, RoomCode,
};

#[test]
fn both_sides_are_told_paired_then_frames_pass_unchanged() {
    let (mut relay, mut h, host, guest) = paired("PARRED", RelayLimits::default());
    for s in [host, guest] {
        assert_eq!(h.texts[&s], vec![r#"{"type":"paired"}"#.to_owned()]);
    }
    // Every byte value, and frames of many sizes, arrive as sent.
    let all: Vec<u8> = (0..=255).collect();
    h.send(&mut relay, host, &all, Millis(1_010));
    h.send(&mut relay, guest, &[0, 1, 2], Millis(1_011));
    let big = vec![0xAB; 16 * 1024 + 1];
    h.send(&mut relay, guest, &big, Millis(1_012));
    h.send(&mut relay, host, &[], Millis(1_013));
    assert_eq!(h.frames[&guest], vec![all, vec![]]);
    assert_eq!(h.frames[&host], vec![vec![0, 1, 2], big]);
    assert!(h.closed.is_empty());
}

#[test]
fn a_second_socket_for_a_side_is_refused() {
    let (mut relay, _, _, _) = paired("SECXND", RelayLimits::default());
    assert_eq!(
        relay.admit(Role::Guest, Millis(1_100)).unwrap_err(),
        RelayRefusal::Occupied
    );
    assert_eq!(RelayRefusal::Occupied.status(), 409);
}

#[test]
fn tickets_of_another_room_another_key_or_forged_are_refused() {
    let code = RoomCode::parse("TXCKET").unwrap();
    let other = RoomCode::parse("XTHERS").unwrap();
    let ticket = ticket_from_room("TXCKET", Role::Host, Millis(0));
    assert_eq!(
        check_ticket(&key(), &code, Some(&ticket), Millis(1)).map(|p| (p.relay, p.role)),
        Ok((code.clone().into(), Role::Host))
    );
    // The same ticket does not open another room's relay.
    assert_eq!(
        check_ticket(&key(), &other, Some(&ticket), Millis(1)),
        Err(RelayRefusal::BadTicket)
    );
    // Another service's key did not sign it.
    let stranger = signaling_core::RelayKey::from_secret("someone else").unwrap();
    assert_eq!(
        check_ticket(&stranger, &code, Some(&ticket), Millis(1)),
        Err(RelayRefusal::BadTicket)
    );
    // Changing the side or the expiry breaks the signature.
    let as_guest = ticket.replacen("host", "guest", 1);
    assert_eq!(
        check_ticket(&key(), &code, Some(&as_guest), Millis(1)),
        Err(RelayRefusal::BadTicket)
    );
    let mut parts: Vec<&str> = ticket.split('.').collect();
    let later = (parts[1].parse::<u64>().unwrap() + 1).to_string();
    parts[1] = &later;
    assert_eq!(
        check_ticket(&key(), &code, Some(&parts.join(".")), Millis(1)),
        Err(RelayRefusal::BadTicket)
    );
    for bad in [
        None,
        Some(""),
        Some("host.1.zz"),
        Some("x".repeat(500).as_str()),
    ] {
        assert_eq!(
            check_ticket(&key(), &code, bad, Millis(1)),
            Err(RelayRefusal::BadTicket)
        );
    }
    assert_eq!(RelayRefusal::BadTicket.status(), 403);
}

#[test]
fn a_ticket_opens_the_relay_for_a_minute_only() {
    let code = RoomCode::parse("MXNUTE").unwrap();
    let t = issue_ticket(&key(), &code, Role::Guest, Millis(5_000)).to_text();
    assert_eq!(
        check_ticket(&key(), &code, Some(&t), Millis(64_999)).map(|p| p.role),
        Ok(Role::Guest)
    );
    assert_eq!(
        check_ticket(&key(), &code, Some(&t), Millis(65_000)),
        Err(RelayRefusal::TicketExpired)
    );
}

#[test]
fn a_room_without_a_key_issues_no_ticket() {
    use signaling_core::{Action, Event, Room, RoomLimits};
    let (mut room, _) = Room::new(
        RoomCode::parse("NXKEYS").unwrap(),
        RoomLimits::default(),
        Millis(0),
    );
    let (s, _) = room.admit(Role::Host, Millis(1)).unwrap();
    let actions = room.handle(
        Event::Text {
            socket: s,
            text: r#"{"type":"relay-ticket"}"#,
        },
        Millis(2),
    );
    assert!(actions.iter().any(|a| matches!(a,
        Action::Send { text, .. } if text == r#"{"type":"error","reason":"this service has no relay"}"#)));
}

#[test]
fn frames_before_the_other_side_arrives_go_nowhere() {
    let mut h = relay_common::RelayHost::default();
    let (mut relay, a) = Relay::new(
        RoomCode::parse("AXXNEX").unwrap(),
        RelayLimits::default(),
        Millis(0),
    );
    h.apply(a, None);
    let (host, a) = relay.admit(Role::Host, Millis(1)).unwrap();
    h.apply(a, None);
    assert!(!h.texts.contains_key(&host), "no paired while alone");
    h.send(&mut relay, host, b"early", Millis(2));
    assert!(h.frames.is_empty() && h.closed.is_empty());
    let (guest, a) = relay.admit(Role::Guest, Millis(3)).unwrap();
    h.apply(a, None);
    assert!(!h.frames.contains_key(&guest));
    assert_eq!(h.texts[&host].len(), 1);
}
