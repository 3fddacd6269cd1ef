//! Ghost players: a welcomed socket that goes silent (a page that vanished
//! without closing, or a squatter) leaves the roster after the idle
//! timeout; heartbeats, whether the lobby sees them or the host's runtime
//! answers them on its own, keep a player in.

use crate::common;

use common::{hello, pid, FakeHost};
use signaling_core::protocol::heartbeat::{PING, PONG};
use signaling_core::{close_code, Event, Lobby, LobbyAttachment, LobbyLimits, Millis, SocketId};

const IDLE: u64 = 90_000;

fn join(lobby: &mut Lobby, h: &mut FakeHost<LobbyAttachment>, tag: &str, at: u64) -> SocketId {
    let (s, a) = lobby.admit(Millis(at)).unwrap();
    h.apply(a);
    h.apply(lobby.handle(
        Event::Text {
            socket: s,
            text: &hello(&pid(tag), tag),
        },
        Millis(at),
    ));
    h.take(s);
    s
}

#[test]
fn a_silent_player_leaves_and_a_heartbeating_one_stays() {
    let mut lobby = Lobby::new(LobbyLimits::default());
    assert_eq!(lobby.limits().idle_timeout_ms, IDLE);
    let mut h = FakeHost::<LobbyAttachment>::default();
    let ghost = join(&mut lobby, &mut h, "g", 0);
    let alive = join(&mut lobby, &mut h, "a", 1_000);
    let quiet = join(&mut lobby, &mut h, "q", 2_000);
    assert_eq!(h.alarm, Some(Millis(IDLE)), "the ghost's idle deadline");
    h.take(ghost);
    h.take(alive);

    // `alive` pings through the lobby and gets a pong; `quiet`'s pings are
    // answered by the host's runtime, which reports when it last did.
    for t in (20_000..=80_000).step_by(20_000) {
        h.apply(lobby.handle(
            Event::Text {
                socket: alive,
                text: PING,
            },
            Millis(t),
        ));
        assert_eq!(h.take(alive), vec![PONG.to_owned()]);
    }
    lobby.heard_from(quiet, Millis(85_000));

    // An alarm just before the deadline closes nobody.
    h.apply(lobby.handle(Event::Alarm, Millis(IDLE - 1)));
    assert!(h.closed.is_empty());
    h.apply(lobby.handle(Event::Alarm, Millis(IDLE)));
    assert_eq!(
        h.closed[&ghost],
        (close_code::POLICY, "no heartbeat in time")
    );
    assert_eq!(h.closed.len(), 1);
    let left = format!(r#"{{"type":"left","id":"{}"}}"#, pid("g"));
    assert_eq!(h.take(alive), vec![left.clone()]);
    assert_eq!(h.take(quiet), vec![left]);
    assert_eq!(lobby.roster().len(), 2);
    assert!(
        h.logs
            .iter()
            .any(|l| l.contains(r#""level":"info","event":"lobby.kicked""#)),
        "an idle socket is normal life, logged at info: {:?}",
        h.logs
    );
    // The next deadline is `alive`'s last ping plus the timeout.
    assert_eq!(h.alarm, Some(Millis(80_000 + IDLE)));

    // Heard from at 85 s by the runtime only: `quiet` goes at 175 s.
    h.apply(lobby.handle(Event::Alarm, Millis(80_000 + IDLE)));
    assert_eq!(h.closed[&alive].1, "no heartbeat in time");
    h.apply(lobby.handle(Event::Alarm, Millis(85_000 + IDLE - 1)));
    assert!(!h.closed.contains_key(&quiet));
    h.apply(lobby.handle(Event::Alarm, Millis(85_000 + IDLE)));
    assert!(h.closed.contains_key(&quiet));
    assert!(lobby.roster().is_empty());
}

#[test]
fn the_last_heard_time_survives_hibernation() {
    let limits = LobbyLimits {
        idle_timeout_ms: 5_000,
        ..LobbyLimits::default()
    };
    let mut lobby = Lobby::new(limits);
    let mut h = FakeHost::<LobbyAttachment>::default();
    let p = join(&mut lobby, &mut h, "p", 0);
    h.apply(lobby.handle(
        Event::Text {
            socket: p,
            text: PING,
        },
        Millis(4_000),
    ));
    // The object sleeps; a new one is rebuilt from the attachments.
    let mut lobby = Lobby::restore(limits, h.attachments.values().cloned());
    h.apply(lobby.handle(Event::Alarm, Millis(8_999)));
    assert!(h.closed.is_empty(), "heard at 4 s, so due at 9 s");
    h.apply(lobby.handle(Event::Alarm, Millis(9_000)));
    assert!(h.closed.contains_key(&p));
}

#[test]
fn a_ping_before_hello_is_answered_and_the_hello_deadline_still_runs() {
    let mut lobby = Lobby::new(LobbyLimits::default());
    let mut h = FakeHost::<LobbyAttachment>::default();
    let (s, a) = lobby.admit(Millis(0)).unwrap();
    h.apply(a);
    h.apply(lobby.handle(
        Event::Text {
            socket: s,
            text: PING,
        },
        Millis(9_000),
    ));
    assert_eq!(h.take(s), vec![PONG.to_owned()]);
    h.apply(lobby.handle(Event::Alarm, Millis(10_000)));
    assert_eq!(h.closed[&s], (close_code::POLICY, "no hello in time"));
}

#[test]
fn with_the_timeout_off_a_silent_player_stays() {
    let limits = LobbyLimits {
        idle_timeout_ms: 0,
        ..LobbyLimits::default()
    };
    let mut lobby = Lobby::new(limits);
    let mut h = FakeHost::<LobbyAttachment>::default();
    join(&mut lobby, &mut h, "p", 0);
    assert_eq!(lobby.next_deadline(), None);
    h.apply(lobby.handle(Event::Alarm, Millis(10_000_000)));
    assert!(h.closed.is_empty());
}
