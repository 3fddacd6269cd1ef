//! The signalling service's logic, written once and hosted twice.
//!
//! This crate has no I/O and no clock. It holds the two state machines of the
//! service — one [`Room`] per room code and one global [`Lobby`] — and the
//! match [`Relay`] (one per relayed room, see [`Relay`]'s module), plus the
//! pieces every host needs around them: [`RoomCode`] generation, the
//! [`AllowedOrigins`] check, a per-key [`RateLimiter`], the `/ice` body, and
//! structured [`LogRecord`]s. Two hosts drive it: the Cloudflare Worker (a
//! Durable Object per room and one Lobby Durable Object, hibernating) and the
//! embedded tokio server. The message contract itself is written up in
//! `docs/signaling.md`.
//!
//! # How a host drives a machine
//!
//! Both machines have the same shape:
//!
//! 1. **Admission (before the WebSocket upgrade).** Call
//!    [`Room::admit`] / [`Lobby::admit`] with the current time. An `Err` is
//!    the HTTP refusal to answer instead of upgrading (its
//!    [`status`](RoomRefusal::status) and [`reason`](RoomRefusal::reason) give
//!    the code and the `{"error": ...}` text). An `Ok` carries the new socket's
//!    [`SocketId`] and a first batch of [`Action`]s. The slot is reserved from
//!    that moment: if the upgrade then fails, report [`Event::Closed`] for it.
//! 2. **Events.** Every later happening is one [`Event`] passed to
//!    `handle(event, now)`: a text frame, a binary frame, the socket closing,
//!    or the alarm firing. Each call returns the actions to carry out.
//! 3. **Actions.** Perform them in order, after the new socket (if any) is
//!    attached:
//!    * [`Action::Send`] — send this text frame on that socket.
//!    * [`Action::Close`] — close that socket with this code and reason. The
//!      machine has already forgotten the socket; a later [`Event::Closed`]
//!      for it is a harmless no-op.
//!    * [`Action::Persist`] — this socket's state changed; a Durable Object
//!      stores it as the WebSocket attachment (`serialize_attachment`), the
//!      embedded server may ignore it.
//!    * [`Action::SetAlarm`] — make sure the host's single timer fires at
//!      this instant (replacing any earlier one), then deliver
//!      [`Event::Alarm`]. Alarms that fire early, late, or when nothing is due
//!      are harmless.
//!    * [`Action::Log`] — write [`LogRecord::to_json_line`] to the log.
//!    * [`Action::Finished`] — rooms only: the room is over; delete it (and its
//!      Durable Object storage).
//!
//! Time is [`Millis`], milliseconds since any fixed origin the host likes
//! (the Worker uses `Date.now()`, the embedded server its start instant); it
//! must not go backwards. Randomness is passed in as bytes
//! ([`RoomCode::from_random_bytes`]).
//!
//! # Hibernation (Durable Objects)
//!
//! Everything a machine knows about a socket lives in that socket's
//! attachment ([`LobbyAttachment`], [`RoomAttachment`]), and a room's own
//! facts in [`RoomMeta`] (kept in Durable Object storage). After the object
//! wakes, rebuild the machine with [`Lobby::restore`] / [`Room::restore`] from
//! `get_websockets()`' attachments and carry on; the hello deadlines, rate
//! budgets and roster come back with it. Leave out sockets the machine
//! closed (clear a socket's attachment when carrying out its
//! [`Action::Close`]: the runtime may still list it while it closes). Socket
//! ids are not reused across a restore (see [`SocketId`]), so a late event
//! for a socket closed before the object slept can be ignored safely.
//!
//! # Quick start
//!
//! ```
//! use signaling_core::{Action, Event, Lobby, LobbyLimits, Millis};
//!
//! let mut lobby = Lobby::new(LobbyLimits::default());
//! // A WebSocket upgrade arrives on GET /lobby/ws: admit it first.
//! let (alice, _actions) = lobby.admit(Millis(0)).expect("the lobby has room");
//! // Her first frame is a hello; the lobby answers with a welcome.
//! let actions = lobby.handle(
//!     Event::Text { socket: alice, text: r#"{"type":"hello","id":"AAAAAAAAAAAA","nick":"Alice"}"# },
//!     Millis(5),
//! );
//! let welcome = actions.iter().find_map(|a| match a {
//!     Action::Send { socket, text } if *socket == alice => Some(text.as_str()),
//!     _ => None,
//! });
//! assert!(welcome.unwrap().starts_with(r#"{"type":"welcome""#));
//! ```
#![warn(missing_docs)]

mod address;
mod budget;
pub mod defaults;
mod directory;
pub mod headers;
mod ice;
mod lobby;
mod log;
mod members;
mod msg;
mod origin;
mod rate;
mod relay;
mod room;
mod seats;

pub use address::address_key;
pub use budget::{AddressBudgets, DailyBudget, ADDRESS_REASON as ADDRESS_BUDGET_REASON};
pub use directory::{lobby_number, place_newcomer, LobbyLoad};
pub use ice::{ice_servers_json, TurnServer};
pub use lobby::{
    Lobby, LobbyAttachment, LobbyLimits, LobbyRefusal, Player, MAX_REPLY_CREDIT, REPLIES_PER_SIGNAL,
};
pub use log::{Level, LogRecord, LogValue};
pub use members::MemberMeta;
pub use origin::AllowedOrigins;
pub use rate::{MinuteWindow, RateLimiter};
pub use relay::{
    check_ticket, issue_member_ticket, issue_ticket, Relay, RelayAction, RelayAttachment,
    RelayEvent, RelayKey, RelayLimits, RelayMeta, RelayName, RelayPlace, RelayRefusal,
};
pub use room::{
    join_role_from_query, parse_join_role, parse_role, role_from_query, Room, RoomAttachment,
    RoomLimits, RoomMeta, RoomRefusal, Seat,
};
/// The contract with the page: every frame, id, code and name rule.
pub use signaling_protocol as protocol;
pub use signaling_protocol::limits::DEFAULT_STUN_URL;
pub use signaling_protocol::{
    JoinRole, MemberId, MemberPair, MemberRole, PeerId, PlayerStatus, Role, RoomCapacity, RoomCode,
};

/// Time, as the engine counts it: milliseconds since an origin the host
/// chooses (the Worker uses `Date.now()`, the embedded server its start).
/// One type for the whole project, so the service and the page agree.
pub use lockstep::Millis;

use serde::{Deserialize, Serialize};

/// Stores a [`Millis`] in an attachment as a plain number of milliseconds.
pub(crate) mod millis_serde {
    use serde::{Deserialize, Deserializer, Serializer};

    use crate::Millis;

    pub(crate) fn serialize<S: Serializer>(m: &Millis, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(m.0)
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Millis, D::Error> {
        u64::deserialize(d).map(Millis)
    }
}

/// A socket, as the machine names it. Allocated by `admit`, kept in the
/// socket's attachment so it survives hibernation.
///
/// Ids are never reused by a machine, even across a restore: a new id is at
/// least `now × 1024` (and above every id the machine knows), so a socket
/// admitted after waking cannot take the id of one that closed before the
/// object slept. (This assumes fewer than 1024 admissions per millisecond
/// and that time moves on between hibernating and waking.) Values stay
/// below 2⁵³ for Unix-epoch milliseconds until the 23rd century, so they
/// survive a round trip through a JavaScript number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct SocketId(pub u64);

impl SocketId {
    /// The next id to hand out: above `floor` (one past the highest id in
    /// use) and at least `now × 1024`.
    pub(crate) fn allocate(floor: &mut u64, now: Millis) -> SocketId {
        let id = (*floor).max(now.0.saturating_mul(1024));
        *floor = id.saturating_add(1);
        SocketId(id)
    }
}

/// Something that happened to a machine's sockets, or its alarm firing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event<'a> {
    /// A text frame arrived.
    Text {
        /// The socket it arrived on.
        socket: SocketId,
        /// Its contents, untouched.
        text: &'a str,
    },
    /// A binary frame arrived (always refused; counted against the caps).
    Binary {
        /// The socket it arrived on.
        socket: SocketId,
        /// Its length in bytes.
        len: usize,
    },
    /// The socket closed or failed (from either side), or its upgrade never
    /// completed.
    Closed {
        /// The socket that went away.
        socket: SocketId,
    },
    /// The host's timer fired (see [`Action::SetAlarm`]).
    Alarm,
}

/// Something the host must do. `A` is the machine's attachment type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action<A> {
    /// Send a text frame.
    Send {
        /// Destination socket.
        socket: SocketId,
        /// The frame's text (one JSON object).
        text: String,
    },
    /// Close the socket. The machine has already forgotten it.
    Close {
        /// The socket to close.
        socket: SocketId,
        /// WebSocket close code (see [`close_code`]).
        code: u16,
        /// Short human-readable reason (ASCII, well under 123 bytes).
        reason: &'static str,
    },
    /// Store this state as the socket's attachment (Durable Objects).
    Persist {
        /// The socket whose state changed.
        socket: SocketId,
        /// Its complete new state.
        attachment: A,
    },
    /// Arrange for [`Event::Alarm`] at (or soon after) this instant,
    /// replacing any earlier alarm.
    SetAlarm(Millis),
    /// Write this record to the log.
    Log(LogRecord),
    /// The room is over: delete it. Never emitted by the lobby.
    Finished,
}

/// The WebSocket close codes the machines use.
pub mod close_code {
    /// Normal closure: the room ended (`done` or TTL), or the relay did.
    pub const NORMAL: u16 = 1000;
    /// Unsupported data: a text frame on a relay socket.
    pub const UNSUPPORTED: u16 = 1003;
    /// Policy violation: message count or rate exceeded, no hello in time,
    /// or a welcomed lobby socket silent for the idle timeout.
    pub const POLICY: u16 = 1008;
    /// Message too big.
    pub const TOO_BIG: u16 = 1009;
}
