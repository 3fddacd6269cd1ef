//! A fake host for the relay's tests: carries out a relay's actions on
//! in-memory sockets, as the embedded server and the Durable Object do, and
//! forwards frames as the actions say.
#![allow(dead_code)]

use std::collections::BTreeMap;

use signaling_core::{
    check_ticket, Millis, Relay, RelayAction, RelayAttachment, RelayEvent, RelayKey, RelayLimits,
    Role, Room, RoomCode, RoomLimits, SocketId,
};
use signaling_core::{Event, RoomAttachment};
use signaling_protocol::{RelayTicketMsg, RoomServerMsg, Signal};

/// What the host did.
#[derive(Debug, Default)]
pub struct RelayHost {
    /// Text frames of the relay's own, per socket.
    pub texts: BTreeMap<SocketId, Vec<String>>,
    /// Binary frames forwarded, per destination socket.
    pub frames: BTreeMap<SocketId, Vec<Vec<u8>>>,
    /// Closed sockets with code and reason.
    pub closed: BTreeMap<SocketId, (u16, &'static str)>,
    /// Latest attachment per socket.
    pub attachments: BTreeMap<SocketId, RelayAttachment>,
    /// The single alarm.
    pub alarm: Option<Millis>,
    /// Log lines.
    pub logs: Vec<String>,
    /// Whether `Finished` was seen.
    pub finished: bool,
}

impl RelayHost {
    /// Carries out actions; `frame` is the frame that caused them, if any.
    pub fn apply(&mut self, actions: Vec<RelayAction>, frame: Option<&[u8]>) {
        for a in actions {
            match a {
                RelayAction::Forward { to } => {
                    assert!(!self.closed.contains_key(&to), "forward to a closed socket");
                    let bytes = frame.expect("Forward only answers a frame").to_vec();
                    self.frames.entry(to).or_default().push(bytes);
                }
                RelayAction::Send { socket, text } => {
                    assert!(
                        !self.closed.contains_key(&socket),
                        "send to a closed socket"
                    );
                    self.texts.entry(socket).or_default().push(text);
                }
                RelayAction::Close {
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
                RelayAction::Persist { socket, attachment } => {
                    if !self.closed.contains_key(&socket) {
                        self.attachments.insert(socket, attachment);
                    }
                }
                RelayAction::SetAlarm(at) => self.alarm = Some(at),
                RelayAction::Log(r) => self.logs.push(r.to_json_line()),
                RelayAction::Finished => self.finished = true,
            }
        }
    }

    /// Sends a binary frame on `socket` at `now`.
    pub fn send(&mut self, relay: &mut Relay, socket: SocketId, bytes: &[u8], now: Millis) {
        let actions = relay.handle(
            RelayEvent::Frame {
                socket,
                len: bytes.len(),
                text: false,
            },
            now,
        );
        self.apply(actions, Some(bytes));
    }
}

/// A key for tests.
pub fn key() -> RelayKey {
    RelayKey::from_bytes([7; 32])
}

/// Asks a live room for `role`'s ticket over its room socket, as a page
/// does, and returns the ticket text the room sent back.
pub fn ticket_from_room(code: &str, role: Role, now: Millis) -> String {
    let limits = RoomLimits {
        relay_key: Some(key()),
        ..RoomLimits::default()
    };
    let (mut room, _) = Room::new(RoomCode::parse(code).unwrap(), limits, Millis(0));
    let (socket, _) = room.admit(role, now).unwrap();
    let actions = room.handle(
        Event::Text {
            socket,
            text: r#"{"type":"relay-ticket"}"#,
        },
        now,
    );
    let sent: Vec<String> = actions
        .into_iter()
        .filter_map(|a| match a {
            signaling_core::Action::<RoomAttachment>::Send { socket: s, text } if s == socket => {
                Some(text)
            }
            _ => None,
        })
        .collect();
    assert_eq!(sent.len(), 1, "one answer to the ticket request");
    match Signal::parse_room(&sent[0]) {
        Ok(RoomServerMsg::RelayTicket(RelayTicketMsg { ticket, ttl })) => {
            assert_eq!(ttl, 60);
            ticket.to_text()
        }
        other => panic!("not a ticket: {other:?}"),
    }
}

/// A relay for room `code` with both sides admitted by their tickets.
pub fn paired(code: &str, limits: RelayLimits) -> (Relay, RelayHost, SocketId, SocketId) {
    let code_p = RoomCode::parse(code).unwrap();
    let mut host = RelayHost::default();
    let (mut relay, a) = Relay::new(code_p.clone(), limits, Millis(1_000));
    host.apply(a, None);
    let mut sockets = Vec::new();
    for role in [Role::Host, Role::Guest] {
        let ticket = ticket_from_room(code, role, Millis(900));
        let checked = check_ticket(&key(), &code_p, Some(&ticket), Millis(1_000)).unwrap();
        assert_eq!(checked.relay, relay.meta().name());
        assert_eq!(checked.role, role);
        let (s, a) = relay.admit(checked.role, Millis(1_000)).unwrap();
        host.apply(a, None);
        sockets.push(s);
    }
    (relay, host, sockets[0], sockets[1])
}
