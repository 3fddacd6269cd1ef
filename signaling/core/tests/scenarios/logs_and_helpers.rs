//! Log records never hold nicknames or payloads; origin, rate and /ice
//! helpers behave.

use crate::common;

use common::{hello, pid, FakeHost};
use signaling_core::protocol::{error_body, RoomCreated};
use signaling_core::{
    ice_servers_json, AllowedOrigins, Event, Level, Lobby, LobbyAttachment, LobbyLimits, LogRecord,
    Millis, MinuteWindow, RateLimiter, Role, Room, RoomAttachment, RoomCode, RoomLimits,
    TurnServer, DEFAULT_STUN_URL,
};

#[test]
fn every_log_line_is_json_with_a_level_and_no_nick_or_payload() {
    let nick = "SecretNick";
    let payload = "SecretPayload";
    let mut h = FakeHost::<LobbyAttachment>::default();
    let mut lobby = Lobby::new(LobbyLimits {
        hello_timeout_ms: 100,
        ..LobbyLimits::default()
    });
    let mut socks = Vec::new();
    for t in ["a", "b"] {
        let (s, a) = lobby.admit(Millis(0)).unwrap();
        h.apply(a);
        h.apply(lobby.handle(
            Event::Text {
                socket: s,
                text: &hello(&pid(t), nick),
            },
            Millis(0),
        ));
        socks.push(s);
    }
    let sig = format!(
        r#"{{"type":"signal","to":"{}","data":"{payload}"}}"#,
        pid("b")
    );
    h.apply(lobby.handle(
        Event::Text {
            socket: socks[0],
            text: &sig,
        },
        Millis(1),
    ));
    let bad = format!(r#"{{"type":"{payload}"}}"#);
    h.apply(lobby.handle(
        Event::Text {
            socket: socks[0],
            text: &bad,
        },
        Millis(1),
    ));
    let (quiet, a) = lobby.admit(Millis(1)).unwrap();
    h.apply(a);
    h.apply(lobby.handle(Event::Alarm, Millis(500)));
    assert!(h.closed.contains_key(&quiet));
    h.apply(lobby.handle(Event::Closed { socket: socks[1] }, Millis(600)));

    let mut rh = FakeHost::<RoomAttachment>::default();
    let (mut room, a) = Room::new(
        RoomCode::parse("ABCDEF").unwrap(),
        RoomLimits::default(),
        Millis(0),
    );
    rh.apply(a);
    let (host, a) = room.admit(Role::Host, Millis(0)).unwrap();
    rh.apply(a);
    let (_, a) = room.admit(Role::Guest, Millis(0)).unwrap();
    rh.apply(a);
    let offer = format!(r#"{{"type":"offer","sdp":"{payload}"}}"#);
    rh.apply(room.handle(
        Event::Text {
            socket: host,
            text: &offer,
        },
        Millis(1),
    ));
    rh.apply(room.handle(
        Event::Text {
            socket: host,
            text: r#"{"type":"done"}"#,
        },
        Millis(2),
    ));

    let lines: Vec<&String> = h.logs.iter().chain(&rh.logs).collect();
    assert!(lines.len() >= 10, "{lines:?}");
    for line in lines {
        let v: serde_json::Value = serde_json::from_str(line).expect("JSON line");
        assert!(Level::parse(v["level"].as_str().unwrap()).is_some());
        assert!(v["event"].is_string());
        assert!(!line.contains(nick) && !line.contains(payload), "{line}");
        assert!(!line.contains('\n'));
    }
    assert!(
        h.logs.iter().any(|l| l.contains("\"level\":\"warn\"")),
        "refusals are warnings"
    );
}

#[test]
fn log_record_format() {
    let r = LogRecord::new(Level::Info, "room.created")
        .with("code", RoomCode::parse("K7M2QX").unwrap())
        .with("ttl_ms", 600_000u64)
        .with("why", "a \"quoted\" word");
    assert_eq!(
        r.to_json_line(),
        r#"{"level":"info","event":"room.created","code":"K7M2QX","ttl_ms":600000,"why":"a \"quoted\" word"}"#
    );
}

#[test]
fn origins() {
    let list = AllowedOrigins::parse(" https://a.example , http://127.0.0.1:8080/ ,,");
    assert!(list.allows(Some("https://a.example")));
    assert!(list.allows(Some("HTTPS://A.EXAMPLE")));
    assert!(list.allows(Some("http://127.0.0.1:8080")));
    assert!(!list.allows(Some("http://127.0.0.1:8081")));
    assert!(!list.allows(Some("https://a.example.evil")));
    assert!(!list.allows(Some("null")));
    assert!(
        list.allows(None),
        "no Origin: same-origin GET or not a browser"
    );
    let any = AllowedOrigins::parse("https://x,*");
    assert_eq!(any, AllowedOrigins::Any);
    assert!(any.allows(Some("null")));
    assert!(!AllowedOrigins::parse("").allows(Some("https://a.example")));
}

#[test]
fn rate_limiter_counts_a_minute_per_key_and_can_be_off() {
    let mut rl = RateLimiter::new(60);
    for _ in 0..60 {
        assert!(rl.check("1.2.3.4", Millis(1_000)));
    }
    assert!(!rl.check("1.2.3.4", Millis(1_000)));
    assert!(rl.check("5.6.7.8", Millis(1_000)), "other keys unaffected");
    // Nothing comes back until the window that opened at 1 s has ended.
    assert!(!rl.check("1.2.3.4", Millis(60_999)));
    assert!(rl.check("1.2.3.4", Millis(61_000)), "a new window");
    for _ in 1..60 {
        assert!(rl.check("1.2.3.4", Millis(61_000)));
    }
    assert!(!rl.check("1.2.3.4", Millis(61_000)));
    // Keys whose windows have ended are forgotten.
    assert!(rl.check("9.9.9.9", Millis(200_000)));
    assert_eq!(rl.len(), 1);
    let mut off = RateLimiter::new(0);
    for _ in 0..10_000 {
        assert!(off.check(1u8, Millis(0)));
    }
}

#[test]
fn minute_window_opens_with_its_first_message() {
    let mut w = MinuteWindow::new();
    assert!(w.is_over(Millis(5)));
    assert!(w.try_take(2, Millis(5)) && w.try_take(2, Millis(30_000)));
    assert_eq!(w.count(Millis(30_000)), 2);
    assert!(!w.try_take(2, Millis(60_004)), "the window opened at 5 ms");
    assert!(w.try_take(2, Millis(60_005)));
    assert_eq!(w.count(Millis(60_005)), 1);
    assert!(w.try_take(2, Millis(u64::MAX)) && w.try_take(2, Millis(u64::MAX)));
    assert!(!w.try_take(2, Millis(u64::MAX)), "no overflow");
    // Stored as two small numbers (it lives in a WebSocket attachment).
    let json = serde_json::to_string(&w).unwrap();
    assert_eq!(json, format!(r#"{{"start":{},"count":2}}"#, u64::MAX));
    assert_eq!(serde_json::from_str::<MinuteWindow>(&json).unwrap(), w);
}

#[test]
fn bodies() {
    assert_eq!(
        error_body("room \"x\" not found"),
        r#"{"error":"room \"x\" not found"}"#
    );
    assert_eq!(
        RoomCreated {
            code: RoomCode::parse("K7M2QX").unwrap(),
            ttl: 600
        }
        .to_json(),
        r#"{"code":"K7M2QX","ttl":600}"#
    );
    assert_eq!(ice_servers_json(&[], None), r#"{"iceServers":[]}"#);
    assert_eq!(
        ice_servers_json(&[DEFAULT_STUN_URL.to_owned()], None),
        r#"{"iceServers":[{"urls":["stun:stun.cloudflare.com:3478"]}]}"#
    );
    let turn = TurnServer {
        urls: vec!["turn:t.example:3478".into()],
        username: "u".into(),
        credential: "c".into(),
    };
    assert_eq!(
        ice_servers_json(&[], Some(&turn)),
        r#"{"iceServers":[{"urls":["turn:t.example:3478"],"username":"u","credential":"c"}]}"#
    );
}
