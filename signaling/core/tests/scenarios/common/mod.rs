//! A fake host for the core's tests: applies actions to in-memory sockets,
//! keeps attachments as a Durable Object would, and records logs.
#![allow(dead_code)]

use std::collections::BTreeMap;

use signaling_core::{Action, Millis, SocketId};

/// What a host did with a machine's actions.
#[derive(Debug)]
pub struct FakeHost<A> {
    /// Frames sent, per socket, in order.
    pub inbox: BTreeMap<SocketId, Vec<String>>,
    /// Sockets the machine closed, with code and reason.
    pub closed: BTreeMap<SocketId, (u16, &'static str)>,
    /// Latest attachment per socket (as a Durable Object would hold them).
    pub attachments: BTreeMap<SocketId, A>,
    /// The single alarm.
    pub alarm: Option<Millis>,
    /// Log lines.
    pub logs: Vec<String>,
    /// Whether `Finished` was seen.
    pub finished: bool,
}

impl<A: Clone> Default for FakeHost<A> {
    fn default() -> Self {
        FakeHost {
            inbox: BTreeMap::new(),
            closed: BTreeMap::new(),
            attachments: BTreeMap::new(),
            alarm: None,
            logs: Vec::new(),
            finished: false,
        }
    }
}

impl<A: Clone> FakeHost<A> {
    pub fn apply(&mut self, actions: Vec<Action<A>>) {
        for a in actions {
            match a {
                Action::Send { socket, text } => {
                    assert!(
                        !self.closed.contains_key(&socket),
                        "send to a closed socket"
                    );
                    self.inbox.entry(socket).or_default().push(text);
                }
                Action::Close {
                    socket,
                    code,
                    reason,
                } => {
                    assert!(
                        self.closed.insert(socket, (code, reason)).is_none(),
                        "closed twice"
                    );
                    self.attachments.remove(&socket);
                }
                Action::Persist { socket, attachment } => {
                    self.attachments.insert(socket, attachment);
                }
                Action::SetAlarm(at) => self.alarm = Some(at),
                Action::Log(r) => self.logs.push(r.to_json_line()),
                Action::Finished => self.finished = true,
            }
        }
    }

    /// Takes the frames a socket received so far.
    pub fn take(&mut self, socket: SocketId) -> Vec<String> {
        self.inbox.remove(&socket).unwrap_or_default()
    }

    /// Takes the frames, parsed as JSON.
    pub fn take_json(&mut self, socket: SocketId) -> Vec<serde_json::Value> {
        self.take(socket)
            .iter()
            .map(|t| serde_json::from_str(t).expect("the machine sends JSON"))
            .collect()
    }

    /// The one frame a socket received since the last take.
    pub fn only(&mut self, socket: SocketId) -> serde_json::Value {
        let mut v = self.take_json(socket);
        assert_eq!(v.len(), 1, "expected exactly one frame, got {v:?}");
        v.remove(0)
    }
}

/// A valid 12-character player id built from a short tag.
pub fn pid(tag: &str) -> String {
    format!("{tag:A<12}")
}

pub fn hello(id: &str, nick: &str) -> String {
    serde_json::json!({"type": "hello", "id": id, "nick": nick}).to_string()
}
