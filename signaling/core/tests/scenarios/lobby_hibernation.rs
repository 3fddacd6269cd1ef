//! The lobby is rebuilt from its sockets' attachments and carries on.

use crate::common;

use common::{hello, pid, FakeHost};
use serde_json::json;
use signaling_core::{close_code, Event, Lobby, LobbyAttachment, LobbyLimits, Millis, SocketId};

/// What a Durable Object would hand back after waking: every live socket's
/// attachment, through JSON (as `serializeAttachment` stores it).
fn wake(h: &FakeHost<LobbyAttachment>) -> Lobby {
    let stored: Vec<String> = h
        .attachments
        .values()
        .map(LobbyAttachment::to_json)
        .collect();
    Lobby::restore(
        LobbyLimits::default(),
        stored
            .iter()
            .rev()
            .map(|s| LobbyAttachment::from_json(s).expect("stored by us")),
    )
}

#[test]
fn roster_statuses_deadlines_and_budgets_survive_hibernation() {
    let mut lobby = Lobby::new(LobbyLimits::default());
    let mut h = FakeHost::default();
    let mut socks = Vec::new();
    for (i, tag) in ["a", "b", "c"].iter().enumerate() {
        let (s, a) = lobby.admit(Millis(i as u64)).unwrap();
        h.apply(a);
        h.apply(lobby.handle(
            Event::Text {
                socket: s,
                text: &hello(&pid(tag), &format!("nick {tag}")),
            },
            Millis(10),
        ));
        socks.push(s);
    }
    h.apply(lobby.handle(
        Event::Text {
            socket: socks[1],
            text: r#"{"type":"status","status":"in-match"}"#,
        },
        Millis(20),
    ));
    // c has spent almost its whole rate budget.
    for _ in 0..590 {
        h.apply(lobby.handle(
            Event::Text {
                socket: socks[2],
                text: "{}",
            },
            Millis(30),
        ));
    }
    let (silent, a) = lobby.admit(Millis(5_000)).unwrap();
    h.apply(a);
    h.inbox.clear();
    let roster_before: Vec<_> = lobby.roster().into_iter().cloned().collect();

    // -- hibernation --
    let mut lobby = wake(&h);
    let roster_after: Vec<_> = lobby.roster().into_iter().cloned().collect();
    assert_eq!(roster_before, roster_after);
    assert_eq!(lobby.socket_count(), 4);
    assert_eq!(lobby.next_deadline(), Some(Millis(15_000)));

    // A newcomer gets a fresh socket id and sees everyone, in order.
    let (d, a) = lobby.admit(Millis(6_000)).unwrap();
    h.apply(a);
    assert!(!socks.contains(&d) && d != silent);
    h.apply(lobby.handle(
        Event::Text {
            socket: d,
            text: &hello(&pid("d"), "d"),
        },
        Millis(6_000),
    ));
    let w = h.only(d);
    let ids: Vec<&str> = w["roster"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [pid("a"), pid("b"), pid("c"), pid("d")]);
    assert_eq!(w["roster"][1]["status"], "in-match");
    assert_eq!(
        h.alarm,
        Some(Millis(15_000)),
        "alarm re-announced after waking"
    );
    for &s in &socks {
        assert_eq!(h.only(s)["type"], "joined");
    }
    // Duplicate ids are still refused after waking.
    let (e, a) = lobby.admit(Millis(6_001)).unwrap();
    h.apply(a);
    h.apply(lobby.handle(
        Event::Text {
            socket: e,
            text: &hello(&pid("a"), "imposter"),
        },
        Millis(6_001),
    ));
    assert_eq!(h.only(e)["type"], "error");

    // Signals still route by id.
    let text = json!({"type":"signal","to":pid("a"),"data":{"k":1}}).to_string();
    h.apply(lobby.handle(
        Event::Text {
            socket: d,
            text: &text,
        },
        Millis(6_100),
    ));
    assert_eq!(
        h.only(socks[0]),
        json!({"type":"signal","from":pid("d"),"data":{"k":1}})
    );

    // c's window came back with it: 9 of 600 left in this minute, not 600.
    for _ in 0..9 {
        h.apply(lobby.handle(
            Event::Text {
                socket: socks[2],
                text: "{}",
            },
            Millis(6_100),
        ));
    }
    assert!(!h.closed.contains_key(&socks[2]));
    h.apply(lobby.handle(
        Event::Text {
            socket: socks[2],
            text: "{}",
        },
        Millis(6_100),
    ));
    assert_eq!(h.closed[&socks[2]].0, close_code::POLICY);

    // The silent socket still times out on its original deadline.
    h.apply(lobby.handle(Event::Alarm, Millis(15_000)));
    assert_eq!(h.closed[&silent].0, close_code::POLICY);
}

#[test]
fn clashing_or_repeated_attachments_are_ignored() {
    let mut lobby = Lobby::new(LobbyLimits::default());
    let mut h = FakeHost::default();
    let (a, acts) = lobby.admit(Millis(0)).unwrap();
    h.apply(acts);
    h.apply(lobby.handle(
        Event::Text {
            socket: a,
            text: &hello(&pid("a"), "a"),
        },
        Millis(0),
    ));
    let mut copy = h.attachments[&a].clone();
    let same_socket = copy.clone();
    copy.socket = SocketId(77);
    let lobby = Lobby::restore(
        LobbyLimits::default(),
        [h.attachments[&a].clone(), same_socket, copy],
    );
    assert_eq!(lobby.socket_count(), 1);
    assert_eq!(lobby.roster().len(), 1);
    assert!(LobbyAttachment::from_json("{\"socket\":1}").is_none());
}
