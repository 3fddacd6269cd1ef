//! A room pairs one host and one guest for one match's WebRTC handshake.

use serde::{Deserialize, Serialize};
use signaling_protocol::{query_param, room_server, Role, RoomCode, RoomRequest};

use crate::log::{Level, LogRecord};
use crate::msg::to_json;
use crate::seats::{other_role, Seated, Seats};
use crate::{close_code, Action, Event, Millis, SocketId};

/// A room's limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RoomLimits {
    /// How long a room lives after creation, in ms (default 600 000).
    pub ttl_ms: u64,
    /// Largest message, in bytes (default 8 KiB); larger closes with 1009.
    pub max_message_bytes: usize,
    /// Messages each socket may send (default 100); the next closes it with
    /// 1008.
    pub max_messages: u32,
    /// The key the room signs its members' relay tickets with; `None`
    /// (the default) answers a `relay-ticket` request with an `error`.
    pub relay_key: Option<crate::RelayKey>,
}

impl Default for RoomLimits {
    fn default() -> Self {
        RoomLimits {
            ttl_ms: signaling_protocol::limits::ROOM_TTL_MS,
            max_message_bytes: signaling_protocol::limits::MAX_MESSAGE_BYTES,
            max_messages: signaling_protocol::limits::ROOM_MAX_MESSAGES,
            relay_key: None,
        }
    }
}

/// Reads the `role` query parameter; anything but `host` or `guest`
/// (including its absence) is [`RoomRefusal::BadRole`].
pub fn parse_role(role: Option<&str>) -> Result<Role, RoomRefusal> {
    role.and_then(Role::parse).ok_or(RoomRefusal::BadRole)
}

/// Reads the role from a URL query string (`role=host`, without the `?` or
/// with it), as [`query_param`] reads it, so every host answers the same
/// query the same way.
pub fn role_from_query(query: &str) -> Result<Role, RoomRefusal> {
    parse_role(query_param(query, "role"))
}

/// Why a room WebSocket upgrade is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RoomRefusal {
    /// Unknown, malformed, expired or finished code: 404.
    NotFound,
    /// That role is already taken: 409.
    Occupied,
    /// The role is not `host` or `guest`: 400.
    BadRole,
}

impl RoomRefusal {
    /// The HTTP status to answer with.
    #[must_use]
    pub fn status(self) -> u16 {
        match self {
            RoomRefusal::NotFound => 404,
            RoomRefusal::Occupied => 409,
            RoomRefusal::BadRole => 400,
        }
    }

    /// The `error` text of the JSON body.
    #[must_use]
    pub fn reason(self) -> &'static str {
        match self {
            RoomRefusal::NotFound => "room not found",
            RoomRefusal::Occupied => "that role is already taken in this room",
            RoomRefusal::BadRole => "role must be host or guest",
        }
    }
}

/// A room's own facts; a Durable Object keeps them in storage.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoomMeta {
    /// The room's code.
    pub code: RoomCode,
    /// When it was created.
    #[serde(with = "crate::millis_serde")]
    pub created_at: Millis,
    /// When it expires.
    #[serde(with = "crate::millis_serde")]
    pub expires_at: Millis,
    /// Messages the host role has sent on sockets that have since closed.
    /// The cap counts a role over the room's whole life, so a side that
    /// reconnects carries on from here. It changes when a socket leaves:
    /// a Durable Object stores the meta again then.
    #[serde(default)]
    pub host_messages: u32,
    /// The same for the guest role.
    #[serde(default)]
    pub guest_messages: u32,
}

impl RoomMeta {
    fn spent(&self, role: Role) -> u32 {
        match role {
            Role::Host => self.host_messages,
            Role::Guest => self.guest_messages,
        }
    }
}

/// What the room knows about one socket (its WebSocket attachment).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoomAttachment {
    /// The socket.
    pub socket: SocketId,
    /// Host or guest.
    pub role: Role,
    /// Messages received on it so far.
    pub messages: u32,
}

impl Seated for RoomAttachment {
    fn socket(&self) -> SocketId {
        self.socket
    }
    fn role(&self) -> Role {
        self.role
    }
}

impl RoomAttachment {
    /// As JSON text (for hosts that store attachments as strings).
    #[must_use]
    pub fn to_json(&self) -> String {
        to_json(self)
    }

    /// Reads [`RoomAttachment::to_json`]'s output; `None` if malformed.
    #[must_use]
    pub fn from_json(text: &str) -> Option<RoomAttachment> {
        serde_json::from_str(text).ok()
    }
}

type RoomAction = Action<RoomAttachment>;

/// The room state machine (see the crate docs for the calling contract).
///
/// * `admit(role)`: 404 once expired or finished, 409 when the role is
///   taken. When both sides are present the host gets
///   `{"type":"peer-joined"}` (at the guest's admission, or at the host's if
///   the guest came first).
/// * Text frames: over the size cap → close 1009; over the count cap →
///   close 1008; `offer`/`answer`/`ice` → relayed verbatim to the other side
///   (`error` if it is absent); `done` → both sockets closed with 1000 and
///   [`Action::Finished`]; `relay-ticket` → this side's signed ticket for
///   the match relay (with [`RoomLimits::relay_key`], else `error`);
///   anything else → `error`. Binary frames → `error`.
/// * A closed socket frees its role, which may be taken again; the message
///   count goes on from what the role sent before (kept in [`RoomMeta`]).
/// * The alarm at `expires_at` closes everything with 1000 and finishes.
#[derive(Debug)]
pub struct Room {
    meta: RoomMeta,
    limits: RoomLimits,
    seats: Seats<RoomAttachment>,
    finished: bool,
    alarm_set: bool,
}

impl Room {
    /// A new room created at `now`. The actions hold its expiry alarm and a
    /// log record.
    #[must_use]
    pub fn new(code: RoomCode, limits: RoomLimits, now: Millis) -> (Room, Vec<RoomAction>) {
        let meta = RoomMeta {
            code,
            created_at: now,
            expires_at: now + Millis(limits.ttl_ms),
            host_messages: 0,
            guest_messages: 0,
        };
        let mut room = Room::restore(meta, limits, []);
        // A code lets anyone into its room while it lives, so it is logged
        // only at debug, once, next to the creation time that the room's
        // other records carry to tell rooms apart.
        let mut out = vec![
            RoomAction::Log(
                LogRecord::new(Level::Info, "room.created")
                    .with("room", room.meta.created_at.0)
                    .with("ttl_ms", limits.ttl_ms),
            ),
            RoomAction::Log(
                LogRecord::new(Level::Debug, "room.code")
                    .with("room", room.meta.created_at.0)
                    .with("code", &room.meta.code),
            ),
        ];
        room.arm(&mut out);
        (room, out)
    }

    /// Rebuilds a room after hibernation from its meta and its sockets'
    /// attachments. Attachments that clash (a second host, a repeated
    /// socket id) are ignored; the host should close those sockets.
    ///
    /// Pass only sockets that are still open, and leave out any socket the
    /// machine closed with [`Action::Close`] (clear its attachment when
    /// carrying out the close).
    #[must_use]
    pub fn restore(
        meta: RoomMeta,
        limits: RoomLimits,
        attachments: impl IntoIterator<Item = RoomAttachment>,
    ) -> Room {
        Room {
            meta,
            limits,
            seats: Seats::restore(attachments),
            finished: false,
            alarm_set: false,
        }
    }

    /// The room's facts.
    #[must_use]
    pub fn meta(&self) -> &RoomMeta {
        &self.meta
    }

    /// The room's limits.
    #[must_use]
    pub fn limits(&self) -> RoomLimits {
        self.limits
    }

    /// True once the room ended (`done`, TTL); hosts then drop it.
    #[must_use]
    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// True when the room would refuse everyone from `now` on.
    #[must_use]
    pub fn is_expired(&self, now: Millis) -> bool {
        self.finished || now >= self.meta.expires_at
    }

    /// The socket currently holding `role`, if any.
    #[must_use]
    pub fn socket(&self, role: Role) -> Option<SocketId> {
        self.seats.get(role).map(|a| a.socket)
    }

    /// Admits a socket as `role` (before the upgrade). See the type docs.
    pub fn admit(
        &mut self,
        role: Role,
        now: Millis,
    ) -> Result<(SocketId, Vec<RoomAction>), RoomRefusal> {
        if self.is_expired(now) {
            return Err(RoomRefusal::NotFound);
        }
        if self.seats.get(role).is_some() {
            return Err(RoomRefusal::Occupied);
        }
        let socket = SocketId::allocate(&mut self.seats.next_socket, now);
        let attachment = RoomAttachment {
            socket,
            role,
            messages: self.meta.spent(role),
        };
        *self.seats.seat(role) = Some(attachment);
        let mut out = vec![
            RoomAction::Persist { socket, attachment },
            RoomAction::Log(
                LogRecord::new(Level::Info, "room.joined")
                    .with("room", self.meta.created_at.0)
                    .with("role", role.as_str()),
            ),
        ];
        if let Some((host, _)) = self.seats.both() {
            out.push(RoomAction::Send {
                socket: host.socket,
                text: room_server::peer_joined(),
            });
        }
        self.arm(&mut out);
        Ok((socket, out))
    }

    /// Handles one event at `now`. See the type docs.
    pub fn handle(&mut self, event: Event<'_>, now: Millis) -> Vec<RoomAction> {
        let mut out = Vec::new();
        if self.finished {
            return out;
        }
        match event {
            Event::Text { socket, text } => {
                self.on_frame(socket, Some(text), text.len(), now, &mut out)
            }
            Event::Binary { socket, len } => self.on_frame(socket, None, len, now, &mut out),
            Event::Closed { socket } => {
                if let Some(role) = self.seats.role_of(socket) {
                    self.clear(role);
                    out.push(RoomAction::Log(
                        LogRecord::new(Level::Info, "room.left")
                            .with("room", self.meta.created_at.0)
                            .with("role", role.as_str()),
                    ));
                }
            }
            Event::Alarm => {
                if now >= self.meta.expires_at {
                    self.finish(close_code::NORMAL, "room expired", "room.expired", &mut out);
                } else {
                    // Early alarm: the host's timer is spent, so arm it again.
                    self.alarm_set = false;
                }
            }
        }
        self.arm(&mut out);
        out
    }

    fn on_frame(
        &mut self,
        socket: SocketId,
        text: Option<&str>,
        len: usize,
        now: Millis,
        out: &mut Vec<RoomAction>,
    ) {
        let Some(role) = self.seats.role_of(socket) else {
            return;
        };
        if now >= self.meta.expires_at {
            // The alarm is late; end the room rather than relay after expiry.
            self.finish(close_code::NORMAL, "room expired", "room.expired", out);
            return;
        }
        if len > self.limits.max_message_bytes {
            self.kick(role, close_code::TOO_BIG, "message too big", out);
            return;
        }
        let limit = self.limits.max_messages;
        let Some(att) = self.seats.seat(role).as_mut() else {
            return;
        };
        att.messages = att.messages.saturating_add(1);
        let att = *att;
        if att.messages > limit {
            self.kick(role, close_code::POLICY, "too many messages", out);
            return;
        }
        out.push(RoomAction::Persist {
            socket,
            attachment: att,
        });
        let Some(text) = text else {
            out.push(RoomAction::Send {
                socket,
                text: room_server::error("binary frames are not accepted"),
            });
            return;
        };
        match RoomRequest::parse(text) {
            Ok(RoomRequest::Relay) => {
                let other = self.seats.get(other_role(role));
                match other {
                    Some(o) => out.push(RoomAction::Send {
                        socket: o.socket,
                        text: text.to_owned(),
                    }),
                    None => out.push(RoomAction::Send {
                        socket,
                        text: room_server::error("the other side is not connected"),
                    }),
                }
            }
            Ok(RoomRequest::Done) => self.finish(close_code::NORMAL, "done", "room.done", out),
            Ok(RoomRequest::Ping) => out.push(RoomAction::Send {
                socket,
                text: signaling_protocol::heartbeat::PONG.to_owned(),
            }),
            Ok(RoomRequest::RelayTicket) => {
                let text = match &self.limits.relay_key {
                    Some(key) => {
                        let ticket = crate::issue_ticket(key, &self.meta.code, role, now);
                        out.push(RoomAction::Log(
                            LogRecord::new(Level::Info, "room.relay_ticket")
                                .with("code", &self.meta.code)
                                .with("role", role.as_str()),
                        ));
                        signaling_protocol::relay_server::ticket(
                            &ticket,
                            signaling_protocol::limits::RELAY_TICKET_TTL_MS / 1000,
                        )
                    }
                    None => room_server::error("this service has no relay"),
                };
                out.push(RoomAction::Send { socket, text });
            }
            Err(e) => out.push(RoomAction::Send {
                socket,
                text: room_server::error(e.reason()),
            }),
        }
    }

    fn kick(&mut self, role: Role, code: u16, reason: &'static str, out: &mut Vec<RoomAction>) {
        if let Some(att) = self.clear(role) {
            out.push(RoomAction::Close {
                socket: att.socket,
                code,
                reason,
            });
            out.push(RoomAction::Log(
                LogRecord::new(Level::Warn, "room.kicked")
                    .with("room", self.meta.created_at.0)
                    .with("role", role.as_str())
                    .with("close", code),
            ));
        }
    }

    fn finish(
        &mut self,
        code: u16,
        reason: &'static str,
        event: &'static str,
        out: &mut Vec<RoomAction>,
    ) {
        for role in [Role::Host, Role::Guest] {
            if let Some(att) = self.clear(role) {
                out.push(RoomAction::Close {
                    socket: att.socket,
                    code,
                    reason,
                });
            }
        }
        self.finished = true;
        out.push(RoomAction::Log(
            LogRecord::new(Level::Info, event).with("room", self.meta.created_at.0),
        ));
        out.push(RoomAction::Finished);
    }

    /// Frees `role`, keeping the count of what it sent in the meta.
    fn clear(&mut self, role: Role) -> Option<RoomAttachment> {
        let gone = self.seats.seat(role).take();
        if let Some(att) = gone {
            let spent = match role {
                Role::Host => &mut self.meta.host_messages,
                Role::Guest => &mut self.meta.guest_messages,
            };
            *spent = (*spent).max(att.messages);
        }
        gone
    }

    /// Announces the expiry alarm once per machine instance (again after a
    /// restore, which is harmless: the alarm is idempotent).
    fn arm(&mut self, out: &mut Vec<RoomAction>) {
        if !self.alarm_set && !self.finished {
            self.alarm_set = true;
            out.push(RoomAction::SetAlarm(self.meta.expires_at));
        }
    }
}
