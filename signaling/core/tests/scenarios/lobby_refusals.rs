//! Every limit and refusal of the lobby.

use crate::common;

use common::{hello, pid, FakeHost};
use serde_json::json;
use signaling_core::{
    close_code, Event, Lobby, LobbyAttachment, LobbyLimits, LobbyRefusal, Millis, SocketId,
};

type Host = FakeHost<LobbyAttachment>;

fn setup() -> (Lobby, Host) {
    (Lobby::new(LobbyLimits::default()), FakeHost::default())
}

fn open(lobby: &mut Lobby, h: &mut Host, now: u64) -> SocketId {
    let (s, a) = lobby.admit(Millis(now)).unwrap();
    h.apply(a);
    s
}

fn send(lobby: &mut Lobby, h: &mut Host, s: SocketId, text: &str, now: u64) {
    h.apply(lobby.handle(Event::Text { socket: s, text }, Millis(now)));
}

fn joined(lobby: &mut Lobby, h: &mut Host, id: &str, now: u64) -> SocketId {
    let s = open(lobby, h, now);
    send(lobby, h, s, &hello(id, "nick"), now);
    assert_eq!(h.only(s)["type"], "welcome");
    s
}

fn expect_error(h: &mut Host, s: SocketId) -> String {
    let v = h.only(s);
    assert_eq!(v["type"], "error", "{v}");
    v["reason"].as_str().unwrap().to_owned()
}

#[test]
fn seventeenth_hello_gets_full() {
    let (mut lobby, mut h) = setup();
    for i in 0..16 {
        joined(&mut lobby, &mut h, &format!("P{i:011}"), 0);
    }
    h.inbox.clear();
    let s = open(&mut lobby, &mut h, 1);
    send(&mut lobby, &mut h, s, &hello(&pid("late"), "late"), 1);
    assert_eq!(h.only(s), json!({"type":"full"}));
    assert_eq!(lobby.roster().len(), 16);
    // Nobody heard of the 17th, and its socket stays open (it may retry).
    assert!(h.inbox.is_empty());
    assert!(h.closed.is_empty());
    // Once someone leaves, the retry succeeds.
    h.apply(lobby.handle(
        Event::Closed {
            socket: SocketId(0),
        },
        Millis(2),
    ));
    h.inbox.clear();
    send(&mut lobby, &mut h, s, &hello(&pid("late"), "late"), 3);
    assert_eq!(h.only(s)["type"], "welcome");
}

#[test]
fn thirty_third_socket_is_refused_with_503() {
    let (mut lobby, mut h) = setup();
    for _ in 0..32 {
        open(&mut lobby, &mut h, 0);
    }
    assert_eq!(
        lobby.admit(Millis(0)).unwrap_err(),
        LobbyRefusal::TooManySockets
    );
    assert_eq!(LobbyRefusal::TooManySockets.status(), 503);
    assert_eq!(lobby.socket_count(), 32);
    h.apply(lobby.handle(
        Event::Closed {
            socket: SocketId(5),
        },
        Millis(1),
    ));
    assert!(lobby.admit(Millis(1)).is_ok());
}

#[test]
fn bad_ids_are_refused_and_go_no_further() {
    let (mut lobby, mut h) = setup();
    let watcher = joined(&mut lobby, &mut h, &pid("w"), 0);
    let s = open(&mut lobby, &mut h, 0);
    for id in [
        json!("ABCDEFGHIJK"),
        json!("ABCDEFGHIJKLM"),
        json!("ABCDEFGHIJ-L"),
        json!("ABCDEFGHIJ L"),
        json!("ABCDEFGHIJKé"),
        json!(""),
        json!(123456789012u64),
        json!(null),
    ] {
        let text = json!({"type":"hello","id":id,"nick":"ok"}).to_string();
        send(&mut lobby, &mut h, s, &text, 1);
        assert!(expect_error(&mut h, s).contains("id"), "{id}");
    }
    send(&mut lobby, &mut h, s, r#"{"type":"hello","nick":"ok"}"#, 1);
    expect_error(&mut h, s);
    assert!(h.take(watcher).is_empty(), "no joined for refused hellos");
    assert_eq!(lobby.roster().len(), 1);
}

#[test]
fn duplicate_id_is_refused() {
    let (mut lobby, mut h) = setup();
    let a = joined(&mut lobby, &mut h, &pid("dup"), 0);
    let b = open(&mut lobby, &mut h, 1);
    send(&mut lobby, &mut h, b, &hello(&pid("dup"), "other"), 1);
    assert!(expect_error(&mut h, b).contains("already"));
    assert!(h.take(a).is_empty());
    // The same socket may then try a fresh id.
    send(&mut lobby, &mut h, b, &hello(&pid("fresh"), "other"), 2);
    assert_eq!(h.only(b)["type"], "welcome");
}

#[test]
fn bad_nicks_are_refused_and_good_ones_cleaned() {
    let (mut lobby, mut h) = setup();
    let s = open(&mut lobby, &mut h, 0);
    let twenty_one = "a".repeat(21);
    for nick in [
        json!(""),
        json!("   "),
        json!(twenty_one),
        json!("bell\u{7}"),
        json!("new\nline"),
        json!("evil\u{202E}txt"),
        json!("iso\u{2066}late"),
        json!("emb\u{202A}ed"),
        json!("nul\u{0}"),
        json!(null),
        json!(5),
    ] {
        let text = json!({"type":"hello","id":pid("n"),"nick":nick}).to_string();
        send(&mut lobby, &mut h, s, &text, 1);
        assert!(expect_error(&mut h, s).contains("nick"), "{nick}");
    }
    // Twenty emoji (each one char, four bytes) and padding spaces are fine.
    let nick = format!("  {}  ", "🏀".repeat(20));
    let text = json!({"type":"hello","id":pid("n"),"nick":nick}).to_string();
    send(&mut lobby, &mut h, s, &text, 2);
    let w = h.only(s);
    assert_eq!(w["roster"][0]["nick"], "🏀".repeat(20));
}

#[test]
fn bad_status_values_and_second_hello_are_refused() {
    let (mut lobby, mut h) = setup();
    let a = joined(&mut lobby, &mut h, &pid("a"), 0);
    let b = joined(&mut lobby, &mut h, &pid("b"), 0);
    h.take(a);
    for status in [
        json!("away"),
        json!("LOBBY"),
        json!("in_match"),
        json!(null),
        json!(1),
    ] {
        let text = json!({"type":"status","status":status}).to_string();
        send(&mut lobby, &mut h, a, &text, 1);
        assert!(expect_error(&mut h, a).contains("status"));
    }
    send(&mut lobby, &mut h, a, &hello(&pid("a2"), "again"), 1);
    assert_eq!(expect_error(&mut h, a), "already joined");
    assert!(h.take(b).is_empty());
    assert_eq!(lobby.roster()[0].id.as_str(), pid("a"));
}

#[test]
fn status_and_signal_before_hello_are_refused() {
    let (mut lobby, mut h) = setup();
    let a = joined(&mut lobby, &mut h, &pid("a"), 0);
    let s = open(&mut lobby, &mut h, 0);
    send(
        &mut lobby,
        &mut h,
        s,
        r#"{"type":"status","status":"lobby"}"#,
        1,
    );
    assert_eq!(expect_error(&mut h, s), "say hello first");
    let text = json!({"type":"signal","to":pid("a"),"data":{}}).to_string();
    send(&mut lobby, &mut h, s, &text, 1);
    assert_eq!(expect_error(&mut h, s), "say hello first");
    assert!(h.take(a).is_empty());
}

#[test]
fn signal_to_unknown_id_or_malformed_gets_error() {
    let (mut lobby, mut h) = setup();
    let a = joined(&mut lobby, &mut h, &pid("a"), 0);
    let b = joined(&mut lobby, &mut h, &pid("b"), 0);
    h.take(a);
    for text in [
        json!({"type":"signal","to":pid("nobody"),"data":1}),
        json!({"type":"signal","to":pid("a"),"data":1}),
        json!({"type":"signal","to":pid("b")}),
        json!({"type":"signal","data":1}),
        json!({"type":"signal","to":5,"data":1}),
    ] {
        send(&mut lobby, &mut h, a, &text.to_string(), 1);
        expect_error(&mut h, a);
        assert!(h.take(b).is_empty(), "{text}");
    }
}

#[test]
fn junk_frames_get_error_and_the_socket_survives() {
    let (mut lobby, mut h) = setup();
    let s = open(&mut lobby, &mut h, 0);
    for text in [
        "",
        "null",
        "[]",
        "{",
        "{\"type\":1}",
        "{\"type\":\"welcome\"}",
        "{\"type\":\"full\"}",
        "\u{FEFF}{}",
    ] {
        send(&mut lobby, &mut h, s, text, 1);
        expect_error(&mut h, s);
    }
    h.apply(lobby.handle(Event::Binary { socket: s, len: 3 }, Millis(1)));
    assert_eq!(expect_error(&mut h, s), "binary frames are not accepted");
    assert!(h.closed.is_empty());
    send(&mut lobby, &mut h, s, &hello(&pid("s"), "s"), 2);
    assert_eq!(h.only(s)["type"], "welcome");
}

#[test]
fn over_8_kib_closes_with_1009_and_announces_left() {
    let (mut lobby, mut h) = setup();
    let a = joined(&mut lobby, &mut h, &pid("a"), 0);
    let b = joined(&mut lobby, &mut h, &pid("b"), 0);
    h.take(a);
    let head = format!(r#"{{"type":"signal","to":"{}","data":""#, pid("a"));
    let fits = format!("{head}{}\"}}", "x".repeat(8192 - head.len() - 2));
    assert_eq!(fits.len(), 8192);
    send(&mut lobby, &mut h, b, &fits, 1);
    assert_eq!(h.only(a)["type"], "signal");
    let over = format!("{head}{}\"}}", "x".repeat(8193 - head.len() - 2));
    send(&mut lobby, &mut h, b, &over, 2);
    assert_eq!(h.closed[&b], (close_code::TOO_BIG, "message too big"));
    assert_eq!(h.only(a), json!({"type":"left","id":pid("b")}));
}

#[test]
fn six_hundred_a_minute_then_1008() {
    let (mut lobby, mut h) = setup();
    let a = joined(&mut lobby, &mut h, &pid("a"), 0);
    let b = joined(&mut lobby, &mut h, &pid("b"), 0);
    h.take(a);
    let status = r#"{"type":"status","status":"lobby"}"#;
    // The hello opened b's window at 0 and used one message; 599 more fit.
    for _ in 0..599 {
        send(&mut lobby, &mut h, b, status, 1);
    }
    assert_eq!(h.take(a).len(), 599);
    assert!(h.closed.is_empty());
    // Half a minute later the window is still full: the 601st closes b.
    send(&mut lobby, &mut h, b, status, 30_000);
    assert_eq!(h.closed[&b], (close_code::POLICY, "too many messages"));
    let msgs = h.take_json(a);
    assert_eq!(msgs, [json!({"type":"left","id":pid("b")})]);
}

#[test]
fn the_allowance_comes_back_when_the_minute_ends() {
    let (mut lobby, mut h) = setup();
    let a = joined(&mut lobby, &mut h, &pid("a"), 0);
    let b = joined(&mut lobby, &mut h, &pid("b"), 500);
    h.take(a);
    let status = r#"{"type":"status","status":"lobby"}"#;
    for _ in 0..599 {
        send(&mut lobby, &mut h, b, status, 59_000);
    }
    // The window opened with the hello at 500 ms: it ends at 60.5 s, and
    // the next minute allows 600 again, the 601st of it closing the socket.
    for _ in 0..600 {
        send(&mut lobby, &mut h, b, status, 60_500);
    }
    assert!(h.closed.is_empty());
    assert_eq!(h.take(a).len(), 1_199);
    send(&mut lobby, &mut h, b, status, 120_499);
    assert_eq!(h.closed[&b], (close_code::POLICY, "too many messages"));
}

#[test]
fn the_window_survives_hibernation() {
    let (mut lobby, mut h) = setup();
    let a = joined(&mut lobby, &mut h, &pid("a"), 0);
    let b = joined(&mut lobby, &mut h, &pid("b"), 0);
    let status = r#"{"type":"status","status":"lobby"}"#;
    for _ in 0..599 {
        send(&mut lobby, &mut h, b, status, 10);
    }
    // Rebuilt from the attachments, the lobby still knows b's window is full.
    let mut lobby = Lobby::restore(lobby.limits(), h.attachments.values().cloned());
    h.take(a);
    send(&mut lobby, &mut h, b, status, 59_999);
    assert_eq!(h.closed[&b], (close_code::POLICY, "too many messages"));
    assert_eq!(h.take_json(a), [json!({"type":"left","id":pid("b")})]);
}

#[test]
fn a_steady_six_hundred_a_minute_is_never_limited() {
    let (mut lobby, mut h) = setup();
    // One message every 100 ms, the hello included: 600 in every minute.
    let a = joined(&mut lobby, &mut h, &pid("a"), 0);
    for i in 1..3_000u64 {
        send(
            &mut lobby,
            &mut h,
            a,
            r#"{"type":"status","status":"lobby"}"#,
            i * 100,
        );
    }
    assert!(h.closed.is_empty());
}
