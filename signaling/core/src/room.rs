//! A room holds the members of one match for their WebRTC handshakes:
//! either two seats, one host and one guest, whose frames go to each other
//! verbatim (a room made by plain `POST /rooms`), or a member room of up to
//! eight players and sixteen spectators who address each other by member
//! id (`POST /rooms?players=N`).

use serde::{Deserialize, Serialize};
use signaling_protocol::{
    member_server, query_param, room_server, JoinRole, MemberEntry, MemberId, MemberPair,
    MemberRequest, MemberRole, Role, RoomCapacity, RoomCode, RoomRequest,
};

use crate::log::{Level, LogRecord};
use crate::members::{MemberMeta, Members};
use crate::msg::to_json;
use crate::rate::MinuteWindow;
use crate::seats::{other_role, Seated, Seats};
use crate::{close_code, Action, Event, Millis, SocketId};

/// A room's limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RoomLimits {
    /// How long a room lives after creation, in ms (default 600 000).
    pub ttl_ms: u64,
    /// Largest message, in bytes (default 8 KiB); larger closes with 1009.
    pub max_message_bytes: usize,
    /// Messages each side of a two-seat room may send (default 100); the
    /// next closes it with 1008.
    pub max_messages: u32,
    /// Messages each member id of a member room may send (default 400);
    /// the next closes it with 1008.
    pub max_member_messages: u32,
    /// Messages each side of a two-seat room, or each member of a member
    /// room, may send in one minute (default
    /// [`crate::defaults::ROOM_MESSAGES_PER_MINUTE`]); the next closes
    /// that socket with 1008. 0 turns the rate off (the lifetime counts
    /// still apply).
    pub messages_per_minute: u32,
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
            max_member_messages: signaling_protocol::limits::ROOM_MEMBER_MAX_MESSAGES,
            messages_per_minute: crate::defaults::ROOM_MESSAGES_PER_MINUTE,
            relay_key: None,
        }
    }
}

/// Reads the `role` query parameter of a two-seat room; anything but
/// `host` or `guest` (including its absence) is [`RoomRefusal::BadRole`].
pub fn parse_role(role: Option<&str>) -> Result<Role, RoomRefusal> {
    role.and_then(Role::parse).ok_or(RoomRefusal::BadRole)
}

/// Reads the `role` query parameter as either kind of room takes it:
/// `host`, `guest`, `player` or `spectator`; anything else (including its
/// absence) is [`RoomRefusal::BadRole`]. Whether the room takes that role
/// is [`Room::admit`]'s to say.
pub fn parse_join_role(role: Option<&str>) -> Result<JoinRole, RoomRefusal> {
    role.and_then(JoinRole::parse).ok_or(RoomRefusal::BadRole)
}

/// [`parse_join_role`] over a whole query string.
pub fn join_role_from_query(query: &str) -> Result<JoinRole, RoomRefusal> {
    parse_join_role(query_param(query, "role"))
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
    /// The role is none of `host`, `guest`, `player`, `spectator`: 400.
    BadRole,
    /// A role this kind of room does not take (`player` or `spectator` in
    /// a two-seat room, `guest` in a member room): 400.
    WrongRole,
    /// Every player place of a member room is taken: 409.
    PlayersFull,
    /// Every spectator place of a member room is taken: 409.
    SpectatorsFull,
}

impl RoomRefusal {
    /// The HTTP status to answer with.
    #[must_use]
    pub fn status(self) -> u16 {
        match self {
            RoomRefusal::NotFound => 404,
            RoomRefusal::Occupied | RoomRefusal::PlayersFull | RoomRefusal::SpectatorsFull => 409,
            RoomRefusal::BadRole | RoomRefusal::WrongRole => 400,
        }
    }

    /// The `error` text of the JSON body.
    #[must_use]
    pub fn reason(self) -> &'static str {
        match self {
            RoomRefusal::NotFound => "room not found",
            RoomRefusal::Occupied => "that role is already taken in this room",
            RoomRefusal::BadRole => "role must be host or guest",
            RoomRefusal::WrongRole => {
                "this room does not take that role (a two-seat room takes host and guest, a member room host, player and spectator)"
            }
            RoomRefusal::PlayersFull => "every player place in this room is taken",
            RoomRefusal::SpectatorsFull => "every spectator place in this room is taken",
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
    /// For a member room, its capacity and what each member id spent;
    /// `None` for a two-seat room.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub members: Option<MemberMeta>,
}

impl RoomMeta {
    fn spent(&self, role: Role) -> u32 {
        match role {
            Role::Host => self.host_messages,
            Role::Guest => self.guest_messages,
        }
    }
}

/// Which place a socket holds: a seat of a two-seat room
/// (`"role":"host"`) or a member id of a member room (`"member":3`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Seat {
    /// Host or guest of a two-seat room.
    Role(Role),
    /// A member of a member room.
    Member(MemberId),
}

/// What the room knows about one socket (its WebSocket attachment).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoomAttachment {
    /// The socket.
    pub socket: SocketId,
    /// The place it holds.
    #[serde(flatten)]
    pub seat: Seat,
    /// Messages received on it so far.
    pub messages: u32,
    /// Its messages in the current one-minute window (the room's rate,
    /// [`RoomLimits::messages_per_minute`]). It belongs to the socket: a
    /// side that reconnects starts a fresh window, but not a fresh
    /// lifetime count.
    #[serde(default)]
    pub window: MinuteWindow,
}

impl Seated for RoomAttachment {
    fn socket(&self) -> SocketId {
        self.socket
    }
    fn role(&self) -> Role {
        match self.seat {
            Seat::Role(role) => role,
            Seat::Member(_) => {
                // Only two-seat attachments are ever seated (see
                // `Room::restore`).
                debug_assert!(false, "a member attachment in a two-seat room");
                Role::Host
            }
        }
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
/// A **two-seat room** (made by [`Room::new`]):
///
/// * `admit(role)`: 404 once expired or finished, 409 when the role is
///   taken, 400 for `player` or `spectator`. When both sides are present
///   the host gets `{"type":"peer-joined"}` (at the guest's admission, or at
///   the host's if the guest came first).
/// * Text frames: over the size cap → close 1009; over the count cap →
///   close 1008; over the rate ([`RoomLimits::messages_per_minute`]) →
///   close 1008; `offer`/`answer`/`ice` → relayed verbatim to the other side
///   (`error` if it is absent); `done` → both sockets closed with 1000 and
///   [`Action::Finished`]; `relay-ticket` → this side's signed ticket for
///   the match relay (with [`RoomLimits::relay_key`], else `error`);
///   anything else → `error`. Binary frames → `error`.
/// * A closed socket frees its role, which may be taken again; the message
///   count goes on from what the role sent before (kept in [`RoomMeta`]).
///
/// A **member room** (made by [`Room::with_members`]):
///
/// * `admit(role)`: 404 once expired or finished; 400 for `guest`; the
///   host takes member id 0 (409 when taken), a player the lowest free id
///   among its player places (409 when none is), a spectator the lowest
///   free id from 8 on (409 likewise). The newcomer gets `welcome` (its id,
///   its role and everyone present); every other member gets
///   `member-joined`.
/// * Text frames: the same size cap (1009) and a count cap per member id
///   ([`RoomLimits::max_member_messages`], 1008) and the same rate per
///   member as a two-seat room's per side (1008); `signal {to, data}` →
///   `signal {from, data}` to member `to` alone, `data` byte for byte
///   (`error` if nobody holds `to`, or it is the sender); `done` from the
///   host → every socket closed with 1000 and [`Action::Finished`]; `done`
///   from another member → that socket closed with 1000; `ping` → `pong`;
///   `relay-ticket {to}` → the asker's signed ticket for its end of the
///   relay of its pair with `to` (`error` if nobody else holds `to`, if
///   the two do not link to each other, i.e. a spectator and anyone but
///   the host, or without [`RoomLimits::relay_key`]);
///   anything else (the two-seat room's unaddressed `offer`/`answer`/`ice`
///   and `relay-ticket` without `to` included) → `error`. Binary frames →
///   `error`.
/// * A member that leaves (its socket closed, `done`, or closed for a cap)
///   frees its id, and every other member gets `member-left`. The id's
///   message count is kept in [`RoomMeta`] for whoever takes it next.
///
/// Both kinds: the alarm at `expires_at` closes everything with 1000 and
/// finishes.
#[derive(Debug)]
pub struct Room {
    meta: RoomMeta,
    limits: RoomLimits,
    seating: Seating,
    finished: bool,
    alarm_set: bool,
}

/// Who holds the room's places, by kind of room.
#[derive(Debug)]
enum Seating {
    Pair(Seats<RoomAttachment>),
    Members(Members),
}

impl Room {
    /// A new two-seat room created at `now`. The actions hold its expiry
    /// alarm and a log record.
    #[must_use]
    pub fn new(code: RoomCode, limits: RoomLimits, now: Millis) -> (Room, Vec<RoomAction>) {
        Room::create(code, None, limits, now)
    }

    /// A new member room created at `now`, with `capacity`'s places.
    #[must_use]
    pub fn with_members(
        code: RoomCode,
        capacity: RoomCapacity,
        limits: RoomLimits,
        now: Millis,
    ) -> (Room, Vec<RoomAction>) {
        Room::create(code, Some(capacity), limits, now)
    }

    /// A new room created at `now`: a member room with `capacity`'s places,
    /// or a two-seat room without.
    #[must_use]
    pub fn create(
        code: RoomCode,
        capacity: Option<RoomCapacity>,
        limits: RoomLimits,
        now: Millis,
    ) -> (Room, Vec<RoomAction>) {
        let meta = RoomMeta {
            code,
            created_at: now,
            expires_at: now + Millis(limits.ttl_ms),
            host_messages: 0,
            guest_messages: 0,
            members: capacity.map(MemberMeta::new),
        };
        let mut room = Room::restore(meta, limits, []);
        // A code lets anyone into its room while it lives, so it is logged
        // only at debug, once, next to the creation time that the room's
        // other records carry to tell rooms apart.
        let mut created = LogRecord::new(Level::Info, "room.created")
            .with("room", room.meta.created_at.0)
            .with("ttl_ms", limits.ttl_ms);
        if let Some(c) = capacity {
            created = created
                .with("players", u64::from(c.players))
                .with("spectators", u64::from(c.spectators));
        }
        let mut out = vec![
            RoomAction::Log(created),
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
    /// socket id, a member id the room has no place for, the other kind of
    /// room's place) are ignored; the host should close those sockets
    /// (see [`Room::holds`]).
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
        let attachments = attachments.into_iter();
        let seating = match &meta.members {
            None => Seating::Pair(Seats::restore(
                attachments.filter(|a| matches!(a.seat, Seat::Role(_))),
            )),
            Some(m) => Seating::Members(Members::restore(
                m.capacity,
                attachments.filter_map(|a| match a.seat {
                    Seat::Member(id) => Some((a.socket, id, a.messages, a.window)),
                    Seat::Role(_) => None,
                }),
            )),
        };
        Room {
            meta,
            limits,
            seating,
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

    /// The socket currently holding `role` of a two-seat room, if any (in a
    /// member room, the host's for [`Role::Host`]).
    #[must_use]
    pub fn socket(&self, role: Role) -> Option<SocketId> {
        match &self.seating {
            Seating::Pair(seats) => seats.get(role).map(|a| a.socket),
            Seating::Members(m) => match role {
                Role::Host => m.socket(MemberId::HOST),
                Role::Guest => None,
            },
        }
    }

    /// The socket currently holding member id `id` of a member room.
    #[must_use]
    pub fn member_socket(&self, id: MemberId) -> Option<SocketId> {
        match &self.seating {
            Seating::Pair(_) => None,
            Seating::Members(m) => m.socket(id),
        }
    }

    /// The members present, by id (empty for a two-seat room).
    #[must_use]
    pub fn members(&self) -> Vec<MemberEntry> {
        match &self.seating {
            Seating::Pair(_) => Vec::new(),
            Seating::Members(m) => m.entries(),
        }
    }

    /// True when the machine holds `attachment`'s socket in its place: a
    /// host rebuilding the machine closes the sockets it did not take back.
    #[must_use]
    pub fn holds(&self, attachment: &RoomAttachment) -> bool {
        match (&self.seating, attachment.seat) {
            (Seating::Pair(seats), Seat::Role(role)) => {
                seats.get(role).map(|a| a.socket) == Some(attachment.socket)
            }
            (Seating::Members(m), Seat::Member(id)) => m.socket(id) == Some(attachment.socket),
            _ => false,
        }
    }

    /// What [`Room::admit`] would answer for `role` at `now`, without
    /// admitting anything: `Ok` when it would admit, else its refusal. A
    /// host that charges an upgrade to a budget asks this first, so that
    /// only an upgrade the room takes is charged (and, holding the room
    /// between the two calls, then admits).
    pub fn check_admission(&self, role: JoinRole, now: Millis) -> Result<(), RoomRefusal> {
        if self.is_expired(now) {
            return Err(RoomRefusal::NotFound);
        }
        match (&self.seating, role) {
            (Seating::Pair(seats), JoinRole::Host | JoinRole::Guest) => {
                let role = if role == JoinRole::Host {
                    Role::Host
                } else {
                    Role::Guest
                };
                match seats.get(role) {
                    Some(_) => Err(RoomRefusal::Occupied),
                    None => Ok(()),
                }
            }
            (Seating::Pair(_), JoinRole::Player | JoinRole::Spectator)
            | (Seating::Members(_), JoinRole::Guest) => Err(RoomRefusal::WrongRole),
            (Seating::Members(members), _) => {
                let (role, full) = match role {
                    JoinRole::Host => (MemberRole::Host, RoomRefusal::Occupied),
                    JoinRole::Player => (MemberRole::Player, RoomRefusal::PlayersFull),
                    _ => (MemberRole::Spectator, RoomRefusal::SpectatorsFull),
                };
                let book = self.meta.members.as_ref().ok_or(RoomRefusal::NotFound)?;
                members.free_id(book.capacity, role).map(|_| ()).ok_or(full)
            }
        }
    }

    /// Admits a socket as `role` (before the upgrade). See the type docs.
    pub fn admit(
        &mut self,
        role: impl Into<JoinRole>,
        now: Millis,
    ) -> Result<(SocketId, Vec<RoomAction>), RoomRefusal> {
        let role = role.into();
        self.check_admission(role, now)?;
        let (socket, mut out) = if matches!(self.seating, Seating::Pair(_)) {
            self.admit_pair(role, now)?
        } else {
            self.admit_member(role, now)?
        };
        self.arm(&mut out);
        Ok((socket, out))
    }

    fn admit_pair(
        &mut self,
        role: JoinRole,
        now: Millis,
    ) -> Result<(SocketId, Vec<RoomAction>), RoomRefusal> {
        let role = match role {
            JoinRole::Host => Role::Host,
            JoinRole::Guest => Role::Guest,
            JoinRole::Player | JoinRole::Spectator => return Err(RoomRefusal::WrongRole),
        };
        let spent = self.meta.spent(role);
        let Seating::Pair(seats) = &mut self.seating else {
            return Err(RoomRefusal::NotFound);
        };
        if seats.get(role).is_some() {
            return Err(RoomRefusal::Occupied);
        }
        let socket = SocketId::allocate(&mut seats.next_socket, now);
        let attachment = RoomAttachment {
            socket,
            seat: Seat::Role(role),
            messages: spent,
            window: MinuteWindow::new(),
        };
        *seats.seat(role) = Some(attachment);
        let mut out = vec![
            RoomAction::Persist { socket, attachment },
            RoomAction::Log(
                LogRecord::new(Level::Info, "room.joined")
                    .with("room", self.meta.created_at.0)
                    .with("role", role.as_str()),
            ),
        ];
        if let Some((host, _)) = seats.both() {
            out.push(RoomAction::Send {
                socket: host.socket,
                text: room_server::peer_joined(),
            });
        }
        Ok((socket, out))
    }

    fn admit_member(
        &mut self,
        role: JoinRole,
        now: Millis,
    ) -> Result<(SocketId, Vec<RoomAction>), RoomRefusal> {
        let (role, full) = match role {
            JoinRole::Host => (MemberRole::Host, RoomRefusal::Occupied),
            JoinRole::Player => (MemberRole::Player, RoomRefusal::PlayersFull),
            JoinRole::Spectator => (MemberRole::Spectator, RoomRefusal::SpectatorsFull),
            JoinRole::Guest => return Err(RoomRefusal::WrongRole),
        };
        let (Seating::Members(members), Some(book)) = (&mut self.seating, &self.meta.members)
        else {
            return Err(RoomRefusal::NotFound);
        };
        let id = members.free_id(book.capacity, role).ok_or(full)?;
        let socket = SocketId::allocate(&mut members.next_socket, now);
        let messages = book.spent(id);
        members.insert(id, socket, messages);
        let me = MemberEntry { id, role };
        let mut out = vec![
            RoomAction::Persist {
                socket,
                attachment: RoomAttachment {
                    socket,
                    seat: Seat::Member(id),
                    messages,
                    window: MinuteWindow::new(),
                },
            },
            RoomAction::Log(
                LogRecord::new(Level::Info, "room.joined")
                    .with("room", self.meta.created_at.0)
                    .with("role", role.as_str())
                    .with("member", u64::from(id.0)),
            ),
            RoomAction::Send {
                socket,
                text: member_server::welcome(me, &members.entries()),
            },
        ];
        let joined = member_server::joined(me);
        for other in members.others(id) {
            out.push(RoomAction::Send {
                socket: other,
                text: joined.clone(),
            });
        }
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
            Event::Closed { socket } => match self.place_of(socket) {
                Some(Seat::Role(role)) => {
                    self.clear(role);
                    out.push(RoomAction::Log(
                        LogRecord::new(Level::Info, "room.left")
                            .with("room", self.meta.created_at.0)
                            .with("role", role.as_str()),
                    ));
                }
                Some(Seat::Member(id)) => {
                    self.member_leaves(id, &mut out);
                    out.push(RoomAction::Log(
                        LogRecord::new(Level::Info, "room.left")
                            .with("room", self.meta.created_at.0)
                            .with("member", u64::from(id.0)),
                    ));
                }
                None => {}
            },
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

    /// The place `socket` holds, if any.
    fn place_of(&self, socket: SocketId) -> Option<Seat> {
        match &self.seating {
            Seating::Pair(seats) => seats.role_of(socket).map(Seat::Role),
            Seating::Members(m) => m.id_of(socket).map(Seat::Member),
        }
    }

    fn on_frame(
        &mut self,
        socket: SocketId,
        text: Option<&str>,
        len: usize,
        now: Millis,
        out: &mut Vec<RoomAction>,
    ) {
        let Some(place) = self.place_of(socket) else {
            return;
        };
        if now >= self.meta.expires_at {
            // The alarm is late; end the room rather than relay after expiry.
            self.finish(close_code::NORMAL, "room expired", "room.expired", out);
            return;
        }
        if len > self.limits.max_message_bytes {
            self.kick(place, close_code::TOO_BIG, "message too big", out);
            return;
        }
        let per_minute = self.limits.messages_per_minute;
        let (messages, window, within_rate, limit) = match (&mut self.seating, place) {
            (Seating::Pair(seats), Seat::Role(role)) => {
                let Some(att) = seats.seat(role).as_mut() else {
                    return;
                };
                att.messages = att.messages.saturating_add(1);
                let within = att.window.try_take(per_minute, now);
                (att.messages, att.window, within, self.limits.max_messages)
            }
            (Seating::Members(m), Seat::Member(id)) => {
                let Some((n, window, within)) = m.count(id, per_minute, now) else {
                    return;
                };
                (n, window, within, self.limits.max_member_messages)
            }
            _ => return,
        };
        if messages > limit {
            self.kick(place, close_code::POLICY, "too many messages", out);
            return;
        }
        if !within_rate {
            self.kick(
                place,
                close_code::POLICY,
                "too many messages per minute",
                out,
            );
            return;
        }
        out.push(RoomAction::Persist {
            socket,
            attachment: RoomAttachment {
                socket,
                seat: place,
                messages,
                window,
            },
        });
        let Some(text) = text else {
            out.push(RoomAction::Send {
                socket,
                text: room_server::error("binary frames are not accepted"),
            });
            return;
        };
        match place {
            Seat::Role(role) => self.pair_frame(socket, role, text, now, out),
            Seat::Member(id) => self.member_frame(socket, id, text, now, out),
        }
    }

    fn pair_frame(
        &mut self,
        socket: SocketId,
        role: Role,
        text: &str,
        now: Millis,
        out: &mut Vec<RoomAction>,
    ) {
        match RoomRequest::parse(text) {
            Ok(RoomRequest::Relay) => {
                let other = match &self.seating {
                    Seating::Pair(seats) => seats.get(other_role(role)),
                    Seating::Members(_) => None,
                };
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

    fn member_frame(
        &mut self,
        socket: SocketId,
        id: MemberId,
        text: &str,
        now: Millis,
        out: &mut Vec<RoomAction>,
    ) {
        let Seating::Members(members) = &self.seating else {
            return;
        };
        match MemberRequest::parse(text) {
            Ok(MemberRequest::Signal { to, data }) => {
                let text = match members.socket(to).filter(|_| to != id) {
                    Some(target) => {
                        out.push(RoomAction::Send {
                            socket: target,
                            text: member_server::signal(id, data),
                        });
                        return;
                    }
                    None => member_server::error("no member with that id in this room"),
                };
                out.push(RoomAction::Send { socket, text });
            }
            Ok(MemberRequest::RelayTicket { to }) => {
                let present = members.socket(to).is_some() && to != id;
                let text = match (present, MemberPair::new(id, to), &self.limits.relay_key) {
                    (false, _, _) => member_server::error("no member with that id in this room"),
                    (true, None, _) => member_server::error(
                        "no relay between these members: a spectator links to the host alone",
                    ),
                    (true, Some(_), None) => member_server::error("this service has no relay"),
                    (true, Some(pair), Some(key)) => {
                        match crate::issue_member_ticket(key, &self.meta.code, pair, id, now) {
                            Some(ticket) => {
                                out.push(RoomAction::Log(
                                    LogRecord::new(Level::Info, "room.relay_ticket")
                                        .with("code", &self.meta.code)
                                        .with("member", u64::from(id.0))
                                        .with("to", u64::from(to.0)),
                                ));
                                signaling_protocol::relay_server::ticket(
                                    &ticket,
                                    signaling_protocol::limits::RELAY_TICKET_TTL_MS / 1000,
                                )
                            }
                            None => {
                                debug_assert!(false, "a pair made with the asker holds it");
                                member_server::error("no member with that id in this room")
                            }
                        }
                    }
                };
                out.push(RoomAction::Send { socket, text });
            }
            Ok(MemberRequest::Done) if id == MemberId::HOST => {
                self.finish(close_code::NORMAL, "done", "room.done", out);
            }
            Ok(MemberRequest::Done) => {
                out.push(RoomAction::Close {
                    socket,
                    code: close_code::NORMAL,
                    reason: "done",
                });
                self.member_leaves(id, out);
                out.push(RoomAction::Log(
                    LogRecord::new(Level::Info, "room.left")
                        .with("room", self.meta.created_at.0)
                        .with("member", u64::from(id.0)),
                ));
            }
            Ok(MemberRequest::Ping) => out.push(RoomAction::Send {
                socket,
                text: signaling_protocol::heartbeat::PONG.to_owned(),
            }),
            Err(e) => out.push(RoomAction::Send {
                socket,
                text: member_server::error(e.reason()),
            }),
        }
    }

    /// Frees `id`'s place, keeps its message count, and tells the others.
    fn member_leaves(&mut self, id: MemberId, out: &mut Vec<RoomAction>) {
        let Seating::Members(members) = &mut self.seating else {
            return;
        };
        let Some((_, messages)) = members.remove(id) else {
            return;
        };
        if let Some(book) = &mut self.meta.members {
            book.record(id, messages);
        }
        let left = member_server::left(id);
        for other in members.others(id) {
            out.push(RoomAction::Send {
                socket: other,
                text: left.clone(),
            });
        }
    }

    fn kick(&mut self, place: Seat, code: u16, reason: &'static str, out: &mut Vec<RoomAction>) {
        let (socket, record) = match place {
            Seat::Role(role) => {
                let Some(att) = self.clear(role) else {
                    return;
                };
                (att.socket, ("role", role.as_str()))
            }
            Seat::Member(id) => {
                let Some(socket) = self.member_socket(id) else {
                    return;
                };
                self.member_leaves(id, out);
                (
                    socket,
                    ("role", id.role().map_or("member", MemberRole::as_str)),
                )
            }
        };
        out.push(RoomAction::Close {
            socket,
            code,
            reason,
        });
        out.push(RoomAction::Log(
            LogRecord::new(Level::Warn, "room.kicked")
                .with("room", self.meta.created_at.0)
                .with(record.0, record.1)
                .with("close", code),
        ));
    }

    fn finish(
        &mut self,
        code: u16,
        reason: &'static str,
        event: &'static str,
        out: &mut Vec<RoomAction>,
    ) {
        let sockets: Vec<SocketId> = if let Seating::Members(members) = &mut self.seating {
            let mut sockets = Vec::new();
            for id in members.ids() {
                if let Some((socket, messages)) = members.remove(id) {
                    if let Some(book) = &mut self.meta.members {
                        book.record(id, messages);
                    }
                    sockets.push(socket);
                }
            }
            sockets
        } else {
            [Role::Host, Role::Guest]
                .into_iter()
                .filter_map(|role| self.clear(role).map(|a| a.socket))
                .collect()
        };
        for socket in sockets {
            out.push(RoomAction::Close {
                socket,
                code,
                reason,
            });
        }
        self.finished = true;
        out.push(RoomAction::Log(
            LogRecord::new(Level::Info, event).with("room", self.meta.created_at.0),
        ));
        out.push(RoomAction::Finished);
    }

    /// Frees `role` of a two-seat room, keeping the count of what it sent
    /// in the meta.
    fn clear(&mut self, role: Role) -> Option<RoomAttachment> {
        let Seating::Pair(seats) = &mut self.seating else {
            return None;
        };
        let gone = seats.seat(role).take();
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
