//! A player's status going from the lobby to a match and back is logged at
//! info (once per change, without naming the player), so an operator can
//! see matches start and end; repeating the same status logs nothing.

use crate::common;

use common::{hello, pid, FakeHost};
use signaling_core::{Event, Lobby, LobbyAttachment, LobbyLimits, Millis};

fn status(s: &str) -> String {
    format!(r#"{{"type":"status","status":"{s}"}}"#)
}

#[test]
fn status_changes_are_logged_once_each() {
    let mut h = FakeHost::<LobbyAttachment>::default();
    let mut lobby = Lobby::new(LobbyLimits::default());
    let (s, a) = lobby.admit(Millis(0)).unwrap();
    h.apply(a);
    h.apply(lobby.handle(
        Event::Text {
            socket: s,
            text: &hello(&pid("a"), "Ada"),
        },
        Millis(0),
    ));
    let before = h.logs.len();
    for (t, st) in [(1, "in-match"), (2, "in-match"), (3, "lobby"), (4, "lobby")] {
        h.apply(lobby.handle(
            Event::Text {
                socket: s,
                text: &status(st),
            },
            Millis(t),
        ));
    }
    let status_lines: Vec<&String> = h.logs[before..]
        .iter()
        .filter(|l| l.contains("\"event\":\"lobby.status\""))
        .collect();
    assert_eq!(status_lines.len(), 2, "{:?}", &h.logs[before..]);
    assert!(status_lines[0].contains("\"level\":\"info\""));
    assert!(status_lines[0].contains("\"status\":\"in-match\""));
    assert!(status_lines[1].contains("\"status\":\"lobby\""));
    assert!(!status_lines.iter().any(|l| l.contains("Ada")));
}
