//! A relay is over when either side goes (the other is closed with 1000)
//! or when its TTL runs out; it then refuses everyone. It survives a
//! Durable Object's hibernation, rate window included, and its logs hold
//! only fixed words, numbers and the room code.

use crate::relay_common;

use relay_common::{paired, RelayHost};
use signaling_core::{
    close_code, Millis, Relay, RelayAttachment, RelayEvent, RelayLimits, RelayRefusal, Role,
    RoomCode,
};

#[test]
fn one_side_leaving_closes_the_other_and_ends_the_relay() {
    let (mut relay, mut h, host, guest) = paired("KEAVES", RelayLimits::default());
    h.apply(
        relay.handle(RelayEvent::Closed { socket: host }, Millis(5_000)),
        None,
    );
    assert!(
        !h.closed.contains_key(&host),
        "the leaver is not closed again"
    );
    assert_eq!(
        h.closed[&guest],
        (close_code::NORMAL, "the other side left")
    );
    assert!(h.finished);
    assert_eq!(
        relay.admit(Role::Host, Millis(5_001)).unwrap_err(),
        RelayRefusal::Gone
    );
    // Late events for either socket change nothing.
    assert!(relay
        .handle(RelayEvent::Closed { socket: guest }, Millis(5_002))
        .is_empty());
}

#[test]
fn the_ttl_closes_both_sides() {
    let limits = RelayLimits {
        ttl_ms: 3_000,
        ..RelayLimits::default()
    };
    let (mut relay, mut h, host, guest) = paired("TTKTTK", limits);
    assert_eq!(h.alarm, Some(Millis(4_000)));
    // An early alarm asks to be woken again and changes nothing.
    h.alarm = None;
    h.apply(relay.handle(RelayEvent::Alarm, Millis(3_999)), None);
    assert!(h.closed.is_empty());
    assert_eq!(h.alarm, Some(Millis(4_000)));
    h.apply(relay.handle(RelayEvent::Alarm, Millis(4_000)), None);
    assert_eq!(h.closed[&host], (close_code::NORMAL, "relay expired"));
    assert_eq!(h.closed[&guest], (close_code::NORMAL, "relay expired"));
    assert!(h.finished);
    assert_eq!(
        relay.admit(Role::Guest, Millis(4_001)).unwrap_err(),
        RelayRefusal::Gone
    );
}

#[test]
fn a_frame_after_the_ttl_ends_the_relay_when_the_alarm_is_late() {
    let limits = RelayLimits {
        ttl_ms: 3_000,
        ..RelayLimits::default()
    };
    let (mut relay, mut h, host, guest) = paired("KATEXX", limits);
    h.send(&mut relay, host, b"late", Millis(4_000));
    assert!(h.frames.is_empty());
    assert_eq!(h.closed[&guest].1, "relay expired");
}

#[test]
fn hibernation_keeps_sides_and_rate_windows() {
    let limits = RelayLimits {
        bytes_per_second: 1_000,
        ..RelayLimits::default()
    };
    let (mut relay, mut h, host, guest) = paired("SKEEPS", limits);
    h.send(&mut relay, host, &[9; 600], Millis(2_000));
    // The object sleeps; it wakes with its meta and the attachments.
    let meta = relay.meta().clone();
    let atts: Vec<RelayAttachment> = h.attachments.values().copied().collect();
    let mut relay = Relay::restore(meta, limits, atts);
    assert_eq!(relay.socket(Role::Host), Some(host));
    assert_eq!(relay.socket(Role::Guest), Some(guest));
    assert_eq!(
        relay.admit(Role::Host, Millis(2_001)).unwrap_err(),
        RelayRefusal::Occupied
    );
    // Frames still pass, and the window carried over: 600 + 500 > 1000.
    h.send(&mut relay, guest, &[8; 10], Millis(2_002));
    assert_eq!(h.frames[&host], vec![vec![8; 10]]);
    h.send(&mut relay, host, &[9; 500], Millis(2_003));
    assert_eq!(h.closed[&host].0, close_code::POLICY);
}

#[test]
fn restored_attachments_read_back_and_clashes_are_dropped() {
    let code = RoomCode::parse("CKASHX").unwrap();
    let (relay, _) = Relay::new(code, RelayLimits::default(), Millis(0));
    let a = RelayAttachment {
        socket: signaling_core::SocketId(5),
        role: Role::Host,
        window_start: Millis(3),
        window_bytes: 7,
    };
    assert_eq!(RelayAttachment::from_json(&a.to_json()), Some(a));
    assert_eq!(RelayAttachment::from_json("closed"), None);
    let b = RelayAttachment {
        socket: signaling_core::SocketId(6),
        ..a
    };
    let relay = Relay::restore(relay.meta().clone(), RelayLimits::default(), [a, b]);
    assert_eq!(relay.socket(Role::Host), Some(a.socket));
    assert_eq!(relay.socket(Role::Guest), None);
}

#[test]
fn logs_hold_no_payload() {
    let (mut relay, mut h, host, guest) = paired("KXGSXX", RelayLimits::default());
    let secret = b"PAYLOAD-SECRET-123";
    h.send(&mut relay, host, secret, Millis(1_500));
    h.send(&mut relay, guest, &[0; 20_000], Millis(1_600));
    let mut all = RelayHost::default().logs;
    all.extend(h.logs.iter().cloned());
    assert!(!all.is_empty());
    for line in &all {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let obj = v.as_object().unwrap();
        for (k, v) in obj {
            assert!(
                ["level", "event", "code", "role", "close", "ttl_ms"].contains(&k.as_str()),
                "unexpected field {k} in {line}"
            );
            if k == "code" {
                assert_eq!(v, "KXGSXX");
            }
        }
        assert!(!line.contains("PAYLOAD"));
    }
}
