//! The hello timeout, in virtual time.

use crate::common;

use common::{hello, pid, FakeHost};
use signaling_core::{close_code, Event, Lobby, LobbyAttachment, LobbyLimits, Millis};

#[test]
fn silent_sockets_are_closed_after_ten_seconds_and_players_are_not() {
    // With the idle timeout off, a welcomed player never times out.
    let mut lobby = Lobby::new(LobbyLimits {
        idle_timeout_ms: 0,
        ..LobbyLimits::default()
    });
    let mut h = FakeHost::<LobbyAttachment>::default();
    let (quiet, a) = lobby.admit(Millis(1_000)).unwrap();
    h.apply(a);
    assert_eq!(h.alarm, Some(Millis(11_000)));
    let (talker, a) = lobby.admit(Millis(2_000)).unwrap();
    h.apply(a);
    let (late, a) = lobby.admit(Millis(5_000)).unwrap();
    h.apply(a);
    assert_eq!(h.alarm, Some(Millis(11_000)), "earliest deadline kept");
    h.apply(lobby.handle(
        Event::Text {
            socket: talker,
            text: &hello(&pid("t"), "t"),
        },
        Millis(11_999),
    ));

    // An early alarm closes nobody and re-arms.
    h.alarm = None;
    h.apply(lobby.handle(Event::Alarm, Millis(10_999)));
    assert!(h.closed.is_empty());
    assert_eq!(h.alarm, Some(Millis(11_000)));

    h.apply(lobby.handle(Event::Alarm, Millis(11_000)));
    assert_eq!(h.closed[&quiet], (close_code::POLICY, "no hello in time"));
    assert!(!h.closed.contains_key(&late));
    assert_eq!(h.alarm, Some(Millis(15_000)), "next deadline armed");
    // A refused hello does not stop the clock.
    h.apply(lobby.handle(
        Event::Text {
            socket: late,
            text: r#"{"type":"hello"}"#,
        },
        Millis(12_000),
    ));
    h.apply(lobby.handle(Event::Alarm, Millis(15_000)));
    assert_eq!(h.closed[&late].0, close_code::POLICY);
    assert!(!h.closed.contains_key(&talker));
    h.apply(lobby.handle(Event::Alarm, Millis(1_000_000)));
    assert!(!h.closed.contains_key(&talker), "players never time out");
    assert_eq!(lobby.socket_count(), 1);
}

#[test]
fn timeout_is_configurable() {
    let limits = LobbyLimits {
        hello_timeout_ms: 200,
        ..LobbyLimits::default()
    };
    let mut lobby = Lobby::new(limits);
    let mut h = FakeHost::<LobbyAttachment>::default();
    let (s, a) = lobby.admit(Millis(0)).unwrap();
    h.apply(a);
    assert_eq!(h.alarm, Some(Millis(200)));
    h.apply(lobby.handle(Event::Alarm, Millis(200)));
    assert!(h.closed.contains_key(&s));
}
