//! The match relay: a pair of WebSockets, one per side of a room, that
//! pass a match's frames to each other when no direct path forms.
//!
//! Two pieces live here:
//!
//! * **Tickets.** A room hands each of its two members a ticket on request
//!   ([`issue_ticket`]); the relay's upgrade checks it ([`check_ticket`]).
//!   A ticket is `HMAC-SHA256(key, room code, side, expiry)`, cut to 128
//!   bits, with the side and the expiry in clear. The key is the host's
//!   ([`RelayKey`]): random at start-up on the embedded server, a secret on
//!   the Worker. So a ticket cannot be forged, names one room and one side,
//!   and is no longer accepted after its expiry; no state has to pass from
//!   the room to the relay.
//!
//!   A member room has a relay per pair of members that link to each other
//!   ([`MemberPair`]), named by the room's code and the pair
//!   ([`RelayName`]): a member asks its room for its end of a pair
//!   ([`issue_member_ticket`]), and the signed side names the pair and the
//!   end (`3-0`), so a ticket opens neither another pair's relay nor the
//!   other end of its own.
//! * **The [`Relay`] machine**, one per relayed room or pair, driven like the room
//!   and the lobby (`admit`, then `handle(event, now)`, carrying out the
//!   returned [`RelayAction`]s; see the crate docs). It holds at most one
//!   socket per side, tells both `paired` when the second arrives, then
//!   forwards every binary frame to the other side unchanged, having looked
//!   only at its length. It closes a socket that sends a frame over the
//!   size cap (1009), more bytes in a second than its rate allows (1008) or
//!   a text frame (1003). When either side goes, for whatever reason, the
//!   other is closed with 1000 and the relay is over; its TTL closes both.
//!
//! Nothing here reads, keeps or logs what a frame holds.

use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;
use signaling_protocol::limits::{RELAY_MAX_FRAME_BYTES, RELAY_TICKET_TTL_MS};
use signaling_protocol::relay::{relay_server, TICKET_MAC_HEX};
use signaling_protocol::{MemberId, MemberPair, RelayTicket, Role, RoomCode};

use crate::log::{Level, LogRecord};
use crate::msg::to_json;
use crate::seats::{other_role, Seated, Seats};
use crate::{close_code, Millis, SocketId};

/// The key relay tickets are signed with. Its `Debug` never shows it.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct RelayKey([u8; 32]);

impl core::fmt::Debug for RelayKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("RelayKey(..)")
    }
}

impl RelayKey {
    /// A key from 32 random bytes (the embedded server draws them at
    /// start-up, so tickets last as long as the process).
    #[must_use]
    pub fn from_bytes(bytes: [u8; 32]) -> RelayKey {
        RelayKey(bytes)
    }

    /// A key from an operator's secret text (the Worker's `RELAY_KEY`),
    /// through SHA-256. `None` for a blank secret.
    #[must_use]
    pub fn from_secret(secret: &str) -> Option<RelayKey> {
        use sha2::Digest as _;
        let secret = secret.trim();
        if secret.is_empty() {
            return None;
        }
        Some(RelayKey(Sha256::digest(secret.as_bytes()).into()))
    }

    /// The MAC over a ticket's room, side (as the ticket writes it:
    /// `host`, `guest` or `<me>-<peer>`, so a pair's ticket can never pass
    /// for a two-seat room's) and expiry.
    fn mac(&self, code: &RoomCode, side: &str, expires_at: Millis) -> Hmac<Sha256> {
        let mut mac =
            Hmac::<Sha256>::new_from_slice(&self.0).expect("HMAC takes keys of any length");
        // Fields are separated by a byte none of them can hold.
        mac.update(b"ntba-relay\0");
        mac.update(code.as_str().as_bytes());
        mac.update(b"\0");
        mac.update(side.as_bytes());
        mac.update(b"\0");
        mac.update(&expires_at.0.to_be_bytes());
        mac
    }
}

/// The ticket for `role` of room `code`, good for opening the relay until
/// `now` + [`RELAY_TICKET_TTL_MS`].
#[must_use]
pub fn issue_ticket(key: &RelayKey, code: &RoomCode, role: Role, now: Millis) -> RelayTicket {
    let expires_at = now + Millis(RELAY_TICKET_TTL_MS);
    let blank = RelayTicket::new(role, expires_at.0, BLANK_MAC.to_owned());
    sign(key, code, blank.expect("a blank signature has the form"))
}

/// The ticket for member `me`'s end of `pair`'s relay in member room
/// `code`, good for opening it until `now` + [`RELAY_TICKET_TTL_MS`].
/// `None` when `me` is not in the pair.
#[must_use]
pub fn issue_member_ticket(
    key: &RelayKey,
    code: &RoomCode,
    pair: MemberPair,
    me: MemberId,
    now: Millis,
) -> Option<RelayTicket> {
    let expires_at = now + Millis(RELAY_TICKET_TTL_MS);
    let blank = RelayTicket::for_member(pair, me, expires_at.0, BLANK_MAC.to_owned())?;
    Some(sign(key, code, blank))
}

/// A signature's place holder in a ticket not yet signed, replaced by
/// [`sign`].
const BLANK_MAC: &str = "00000000000000000000000000000000";

/// `ticket` with its signature made for room `code`.
fn sign(key: &RelayKey, code: &RoomCode, ticket: RelayTicket) -> RelayTicket {
    let expires_at = Millis(ticket.expires_at_ms());
    let tag = key
        .mac(code, &ticket.side_text(), expires_at)
        .finalize()
        .into_bytes();
    let mut hex = String::with_capacity(TICKET_MAC_HEX);
    for b in &tag[..TICKET_MAC_HEX / 2] {
        hex.push(char::from(HEX[usize::from(b >> 4)]));
        hex.push(char::from(HEX[usize::from(b & 0xf)]));
    }
    ticket
        .with_mac(hex)
        .expect("TICKET_MAC_HEX lowercase hex digits")
}

/// Which relay a ticket opens: a two-seat room's (by its code), or one
/// pair's of a member room. Hosts keep their relays by it: the embedded
/// server's map is keyed by it, and the Worker names each relay's Durable
/// Object by [`RelayName::object_name`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RelayName {
    /// The room whose members it pairs.
    pub code: RoomCode,
    /// For a member room, the pair; `None` for a two-seat room.
    pub pair: Option<MemberPair>,
}

impl From<RoomCode> for RelayName {
    fn from(code: RoomCode) -> RelayName {
        RelayName { code, pair: None }
    }
}

impl RelayName {
    /// A name for the relay's Durable Object: the room code for a two-seat
    /// room's relay (as before member relays existed), `<code>/<low>-<high>`
    /// for a pair's (a code never holds `/`).
    #[must_use]
    pub fn object_name(&self) -> String {
        match self.pair {
            None => self.code.as_str().to_owned(),
            Some(p) => format!("{}/{}-{}", self.code, p.low().0, p.high().0),
        }
    }
}

/// What a good ticket opens: a relay, and the seat on it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RelayPlace {
    /// The relay.
    pub relay: RelayName,
    /// The seat: the two-seat room's side, or the end of the pair
    /// ([`MemberPair::end`]).
    pub role: Role,
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Checks a ticket (as written in the URL) for room `code` at `now`: its
/// form, its signature (compared in constant time) and its expiry. The
/// relay and seat it was issued for, or why it is refused.
pub fn check_ticket(
    key: &RelayKey,
    code: &RoomCode,
    text: Option<&str>,
    now: Millis,
) -> Result<RelayPlace, RelayRefusal> {
    let ticket = text
        .and_then(RelayTicket::parse)
        .ok_or(RelayRefusal::BadTicket)?;
    let mut wanted = [0u8; TICKET_MAC_HEX / 2];
    for (i, pair) in ticket.mac().as_bytes().chunks(2).enumerate() {
        let digit = |c: u8| HEX.iter().position(|&h| h == c).unwrap_or(0) as u8;
        wanted[i] = (digit(pair[0]) << 4) | digit(pair[1]);
    }
    let expires_at = Millis(ticket.expires_at_ms());
    key.mac(code, &ticket.side_text(), expires_at)
        .verify_truncated_left(&wanted)
        .map_err(|_| RelayRefusal::BadTicket)?;
    if now >= expires_at {
        return Err(RelayRefusal::TicketExpired);
    }
    Ok(RelayPlace {
        relay: RelayName {
            code: code.clone(),
            pair: ticket.pair(),
        },
        role: ticket.role(),
    })
}

/// A relay's limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RelayLimits {
    /// How long a relay lives after its first socket, in ms (default 30
    /// minutes, far longer than a match).
    pub ttl_ms: u64,
    /// Largest frame, in bytes (default a 16 KiB datagram plus its
    /// one-byte tag); larger closes with 1009.
    pub max_frame_bytes: usize,
    /// Bytes one socket may send per one-second window (default 128 KiB);
    /// more closes it with 1008. 0 turns the limit off.
    pub bytes_per_second: u32,
    /// What a frame counts against the rate at least, in bytes (default
    /// 64), so a flood of tiny frames is limited too.
    pub min_frame_charge: u32,
}

impl Default for RelayLimits {
    fn default() -> Self {
        RelayLimits {
            ttl_ms: crate::defaults::RELAY_TTL_SECONDS * 1000,
            max_frame_bytes: RELAY_MAX_FRAME_BYTES,
            bytes_per_second: crate::defaults::RELAY_BYTES_PER_SECOND,
            min_frame_charge: 64,
        }
    }
}

/// Why a relay WebSocket upgrade is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RelayRefusal {
    /// No ticket, or not one this service signed for this room: 403.
    BadTicket,
    /// The ticket's time to open the relay has passed: 403.
    TicketExpired,
    /// That side is already connected: 409.
    Occupied,
    /// The relay's lifetime is over: 404.
    Gone,
}

impl RelayRefusal {
    /// The HTTP status to answer with.
    #[must_use]
    pub fn status(self) -> u16 {
        match self {
            RelayRefusal::BadTicket | RelayRefusal::TicketExpired => 403,
            RelayRefusal::Occupied => 409,
            RelayRefusal::Gone => 404,
        }
    }

    /// The `error` text of the JSON body.
    #[must_use]
    pub fn reason(self) -> &'static str {
        match self {
            RelayRefusal::BadTicket => "relay ticket missing or not valid for this room",
            RelayRefusal::TicketExpired => "relay ticket expired; ask the room for a new one",
            RelayRefusal::Occupied => "that side is already on the relay",
            RelayRefusal::Gone => "relay over",
        }
    }
}

/// A relay's own facts; a Durable Object keeps them in storage.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RelayMeta {
    /// The room whose members it pairs.
    pub code: RoomCode,
    /// When its first socket arrived.
    #[serde(with = "crate::millis_serde")]
    pub created_at: Millis,
    /// When it closes whatever is left.
    #[serde(with = "crate::millis_serde")]
    pub expires_at: Millis,
    /// For a member room's relay, the pair it joins; `None` (and absent
    /// from storage) for a two-seat room's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pair: Option<MemberPair>,
}

impl RelayMeta {
    /// The relay's name.
    #[must_use]
    pub fn name(&self) -> RelayName {
        RelayName {
            code: self.code.clone(),
            pair: self.pair,
        }
    }
}

/// What the relay knows about one socket (its WebSocket attachment).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RelayAttachment {
    /// The socket.
    pub socket: SocketId,
    /// The side of the room it belongs to.
    pub role: Role,
    /// When its current one-second rate window opened.
    #[serde(with = "crate::millis_serde")]
    pub window_start: Millis,
    /// Bytes counted in that window.
    pub window_bytes: u32,
}

impl Seated for RelayAttachment {
    fn socket(&self) -> SocketId {
        self.socket
    }
    fn role(&self) -> Role {
        self.role
    }
}

impl RelayAttachment {
    /// As JSON text (for hosts that store attachments as strings).
    #[must_use]
    pub fn to_json(&self) -> String {
        to_json(self)
    }

    /// Reads [`RelayAttachment::to_json`]'s output; `None` if malformed.
    #[must_use]
    pub fn from_json(text: &str) -> Option<RelayAttachment> {
        serde_json::from_str(text).ok()
    }
}

/// Something that happened to a relay's sockets, or its alarm firing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RelayEvent {
    /// A frame arrived. The machine needs only its kind and length; the
    /// host keeps the bytes to forward them.
    Frame {
        /// The socket it arrived on.
        socket: SocketId,
        /// Its length in bytes.
        len: usize,
        /// True for a text frame (refused), false for a binary one.
        text: bool,
    },
    /// The socket closed or failed (from either side), or its upgrade
    /// never completed.
    Closed {
        /// The socket that went away.
        socket: SocketId,
    },
    /// The host's timer fired.
    Alarm,
}

/// Something the host must do for a relay.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RelayAction {
    /// Send the frame that just arrived, byte for byte and as the same
    /// kind of frame, on this socket.
    Forward {
        /// Destination socket.
        to: SocketId,
    },
    /// Send a text frame of the relay's own (`paired`).
    Send {
        /// Destination socket.
        socket: SocketId,
        /// The frame.
        text: String,
    },
    /// Close the socket. The machine has already forgotten it.
    Close {
        /// The socket to close.
        socket: SocketId,
        /// WebSocket close code.
        code: u16,
        /// Short reason.
        reason: &'static str,
    },
    /// Store this as the socket's attachment (Durable Objects).
    Persist {
        /// The socket whose state changed.
        socket: SocketId,
        /// Its complete new state.
        attachment: RelayAttachment,
    },
    /// Arrange for [`RelayEvent::Alarm`] at (or soon after) this instant.
    SetAlarm(Millis),
    /// Write this record to the log.
    Log(LogRecord),
    /// The relay is over: delete it (and its Durable Object storage).
    Finished,
}

/// Length of a rate window.
const RATE_WINDOW_MS: u64 = 1_000;

/// The relay state machine for one room (see the module docs).
///
/// Calling contract, as for [`crate::Room`]: check the ticket
/// ([`check_ticket`]), create the relay if the host holds none for this
/// room ([`Relay::new`]), [`Relay::admit`] the side before upgrading, then
/// pass every event to [`Relay::handle`] and carry out the actions in
/// order. For [`RelayEvent::Frame`], carry out [`RelayAction::Forward`]
/// with the frame's own bytes.
#[derive(Debug)]
pub struct Relay {
    meta: RelayMeta,
    limits: RelayLimits,
    seats: Seats<RelayAttachment>,
    finished: bool,
    alarm_set: bool,
}

impl Relay {
    /// A new relay (a two-seat room's, given its code, or a pair's), its
    /// lifetime starting `now`.
    #[must_use]
    pub fn new(
        name: impl Into<RelayName>,
        limits: RelayLimits,
        now: Millis,
    ) -> (Relay, Vec<RelayAction>) {
        let RelayName { code, pair } = name.into();
        let meta = RelayMeta {
            code,
            created_at: now,
            expires_at: now + Millis(limits.ttl_ms),
            pair,
        };
        let mut relay = Relay::restore(meta, limits, []);
        let mut out = vec![RelayAction::Log(
            relay
                .record(Level::Info, "relay.opened")
                .with("ttl_ms", limits.ttl_ms),
        )];
        relay.arm(&mut out);
        (relay, out)
    }

    /// Rebuilds a relay after hibernation from its meta and its sockets'
    /// attachments (a second socket for a side, or a repeated id, is
    /// ignored; the host should close it).
    #[must_use]
    pub fn restore(
        meta: RelayMeta,
        limits: RelayLimits,
        attachments: impl IntoIterator<Item = RelayAttachment>,
    ) -> Relay {
        Relay {
            meta,
            limits,
            seats: Seats::restore(attachments),
            finished: false,
            alarm_set: false,
        }
    }

    /// The relay's facts.
    #[must_use]
    pub fn meta(&self) -> &RelayMeta {
        &self.meta
    }

    /// True once the relay is over (a side left, or its TTL ran out).
    #[must_use]
    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// The socket currently holding `role`, if any.
    #[must_use]
    pub fn socket(&self, role: Role) -> Option<SocketId> {
        self.seats.get(role).map(|a| a.socket)
    }

    /// What [`Relay::admit`] would answer for `role` at `now`, without
    /// admitting anything (so that a host charges its budget only for an
    /// upgrade the relay takes).
    pub fn check_admission(&self, role: Role, now: Millis) -> Result<(), RelayRefusal> {
        if self.finished || now >= self.meta.expires_at {
            return Err(RelayRefusal::Gone);
        }
        if self.socket(role).is_some() {
            return Err(RelayRefusal::Occupied);
        }
        Ok(())
    }

    /// Admits a socket for `role` (whose ticket the host has checked).
    pub fn admit(
        &mut self,
        role: Role,
        now: Millis,
    ) -> Result<(SocketId, Vec<RelayAction>), RelayRefusal> {
        self.check_admission(role, now)?;
        let socket = SocketId::allocate(&mut self.seats.next_socket, now);
        let attachment = RelayAttachment {
            socket,
            role,
            window_start: now,
            window_bytes: 0,
        };
        *self.seats.seat(role) = Some(attachment);
        let mut out = vec![
            RelayAction::Persist { socket, attachment },
            RelayAction::Log(self.seat_record(Level::Info, "relay.joined", role)),
        ];
        if let Some((host, guest)) = self.seats.both() {
            for s in [host.socket, guest.socket] {
                out.push(RelayAction::Send {
                    socket: s,
                    text: relay_server::paired(),
                });
            }
            out.push(RelayAction::Log(self.record(Level::Info, "relay.paired")));
        }
        self.arm(&mut out);
        Ok((socket, out))
    }

    /// Handles one event at `now`.
    pub fn handle(&mut self, event: RelayEvent, now: Millis) -> Vec<RelayAction> {
        let mut out = Vec::new();
        if self.finished {
            return out;
        }
        match event {
            RelayEvent::Frame { socket, len, text } => {
                self.on_frame(socket, len, text, now, &mut out);
            }
            RelayEvent::Closed { socket } => {
                if let Some(role) = self.seats.role_of(socket) {
                    *self.seats.seat(role) = None;
                    out.push(RelayAction::Log(self.seat_record(
                        Level::Info,
                        "relay.left",
                        role,
                    )));
                    self.finish("the other side left", "relay.ended", &mut out);
                }
            }
            RelayEvent::Alarm => {
                if now >= self.meta.expires_at {
                    self.finish("relay expired", "relay.expired", &mut out);
                } else {
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
        len: usize,
        text: bool,
        now: Millis,
        out: &mut Vec<RelayAction>,
    ) {
        let Some(role) = self.seats.role_of(socket) else {
            return;
        };
        if now >= self.meta.expires_at {
            // The alarm is late: end the relay rather than forward after
            // its lifetime.
            self.finish("relay expired", "relay.expired", out);
            return;
        }
        if len > self.limits.max_frame_bytes {
            self.kick(role, close_code::TOO_BIG, "message too big", out);
            return;
        }
        if text {
            self.kick(role, close_code::UNSUPPORTED, "binary frames only", out);
            return;
        }
        let limits = self.limits;
        let Some(att) = self.seats.seat(role).as_mut() else {
            return;
        };
        if now.saturating_since(att.window_start).0 >= RATE_WINDOW_MS {
            att.window_start = now;
            att.window_bytes = 0;
        }
        let charge = u32::try_from(len)
            .unwrap_or(u32::MAX)
            .max(limits.min_frame_charge);
        att.window_bytes = att.window_bytes.saturating_add(charge);
        let att = *att;
        if limits.bytes_per_second != 0 && att.window_bytes > limits.bytes_per_second {
            self.kick(role, close_code::POLICY, "too many bytes", out);
            return;
        }
        out.push(RelayAction::Persist {
            socket,
            attachment: att,
        });
        // Before the other side is here the page has been told nothing
        // (no `paired` yet), so it sends nothing; a frame now is dropped.
        if let Some(other) = self.socket(other_role(role)) {
            out.push(RelayAction::Forward { to: other });
        }
    }

    /// Closes a misbehaving side with `code`; the relay is then over for
    /// the other side too.
    fn kick(&mut self, role: Role, code: u16, reason: &'static str, out: &mut Vec<RelayAction>) {
        if let Some(att) = self.seats.seat(role).take() {
            out.push(RelayAction::Close {
                socket: att.socket,
                code,
                reason,
            });
            out.push(RelayAction::Log(
                self.seat_record(Level::Warn, "relay.kicked", role)
                    .with("close", code),
            ));
        }
        self.finish("the other side left", "relay.ended", out);
    }

    /// Closes whatever is left with 1000 and ends the relay.
    fn finish(&mut self, reason: &'static str, event: &'static str, out: &mut Vec<RelayAction>) {
        for role in [Role::Host, Role::Guest] {
            if let Some(att) = self.seats.seat(role).take() {
                out.push(RelayAction::Close {
                    socket: att.socket,
                    code: close_code::NORMAL,
                    reason,
                });
            }
        }
        self.finished = true;
        out.push(RelayAction::Log(self.record(Level::Info, event)));
        out.push(RelayAction::Finished);
    }

    /// A record of this relay: its room code and, for a pair's relay, the
    /// pair's ids (`low`, `high`).
    fn record(&self, level: Level, event: &'static str) -> LogRecord {
        let record = LogRecord::new(level, event).with("code", &self.meta.code);
        match self.meta.pair {
            None => record,
            Some(p) => record
                .with("low", u64::from(p.low().0))
                .with("high", u64::from(p.high().0)),
        }
    }

    /// [`Relay::record`] about one seat: the two-seat room's side
    /// (`role`), or the member holding that end of the pair (`member`).
    fn seat_record(&self, level: Level, event: &'static str, role: Role) -> LogRecord {
        let record = self.record(level, event);
        match self.meta.pair {
            None => record.with("role", role.as_str()),
            Some(p) => record.with("member", u64::from(p.member(role).0)),
        }
    }

    fn arm(&mut self, out: &mut Vec<RelayAction>) {
        if !self.alarm_set && !self.finished {
            self.alarm_set = true;
            out.push(RelayAction::SetAlarm(self.meta.expires_at));
        }
    }
}
