//! The service's default settings, one set for both hosts.
//!
//! The embedded server's flags and the Worker's variables default to these
//! values, and each host's tests check that they do, so the two hosts
//! cannot drift apart. Limits that are part of the contract with the page
//! (message size, roster size, room lifetime and message count) come from
//! `signaling-protocol`.

use signaling_protocol::limits;

/// How long a room lives after `POST /rooms`, in seconds.
pub const ROOM_TTL_SECONDS: u64 = limits::ROOM_TTL_MS / 1000;

/// Time a lobby socket has to say hello, in milliseconds.
pub const HELLO_TIMEOUT_MS: u64 = 10_000;

/// How long a welcomed lobby socket may stay silent (no frame at all,
/// heartbeats included) before it is closed, in milliseconds: several of
/// the page's heartbeat intervals
/// (`signaling_protocol::heartbeat::INTERVAL_MS`), and more than the minute
/// to which a browser may slow a hidden tab's timers.
pub const LOBBY_IDLE_TIMEOUT_MS: u64 = 90_000;

/// Open lobby sockets from one client address (an IPv6 address counting by
/// its /64); the next upgrade from it gets 429. Half the roster, so that
/// one address cannot fill the lobby alone, while a household or a small
/// LAN party behind one address still fits.
pub const LOBBY_SOCKETS_PER_IP: usize = 8;

/// Lobby messages per socket per minute.
pub const LOBBY_MESSAGES_PER_MINUTE: u32 = 600;

/// Messages each side of a two-seat room, or each member of a member room,
/// may send in one minute; the next closes that socket with 1008. A
/// player setting up a full mesh of eight (seven peer connections, an
/// offer or an answer and a generous handful of ICE candidates for each)
/// sends well under this in its first minute, while a member flooding
/// another is held to four messages a second instead of spending its
/// whole lifetime allowance at once. 0 turns the rate off.
pub const ROOM_MESSAGES_PER_MINUTE: u32 = 240;

/// Open lobby sockets, joined or not.
pub const LOBBY_MAX_SOCKETS: usize = 32;

/// Lifetime of the TURN credentials `/ice` hands out, in seconds, and the
/// longest either host accepts: a leaked credential is useful for an hour
/// at most.
pub const TURN_TTL_SECONDS: u64 = 3_600;

/// Shortest TURN credential lifetime a host accepts, in seconds.
pub const MIN_TURN_TTL_SECONDS: u64 = 60;

/// Page origins allowed to use the service besides its own (comma-separated,
/// `*` for any): none. A page the service serves itself (the embedded
/// server's `--static`) is on its own origin and always allowed; a page
/// served from elsewhere must be named by the operator.
pub const ALLOWED_ORIGINS: &str = "";

/// HTTP requests (upgrades included) per client IP per minute, over every
/// route. The Worker's rate-limit binding in `signaling/worker/wrangler.toml`
/// is set to the same number.
pub const HTTP_REQUESTS_PER_MINUTE: u32 = 600;

/// Rooms alive at once on the embedded server; further `POST /rooms` get
/// 503.
pub const MAX_ROOMS: usize = 10_000;

/// Live rooms created from one client address (an IPv6 address counting by
/// its /64) on the embedded server; the next `POST /rooms` from it gets 429.
/// A player makes one room per challenge and a room lives 10 minutes, so a
/// household rarely holds more than a few.
pub const MAX_ROOMS_PER_IP: usize = 20;

/// How long a match relay lives after its first socket, in seconds: far
/// longer than a match, so only an abandoned relay ever reaches it.
pub const RELAY_TTL_SECONDS: u64 = 1_800;

/// Bytes one relay socket may send per second. A lock-step match sends a
/// few kilobytes a second; a host-authoritative one with snapshots some
/// tens.
pub const RELAY_BYTES_PER_SECOND: u32 = 128 * 1024;

/// New WebSocket connections (lobby, room and relay upgrades) the service
/// accepts per UTC day, over all clients; 0 turns the budget off (the
/// default on both hosts: a Workers Free deployment sets it, see
/// `docs/deploy.md`). See [`crate::DailyBudget`].
pub const DAILY_UPGRADES: u64 = 0;

/// New WebSocket connections one client address (an IPv6 address counting
/// by its /64) may open per UTC day; the next get 429 until midnight UTC.
/// 0 turns it off, the default on both hosts: a Workers Free deployment
/// sets it beside [`DAILY_UPGRADES`], so that no one address can spend the
/// whole service's day (see `docs/deploy.md`).
pub const DAILY_UPGRADES_PER_IP: u64 = 0;

/// Lobbies the service holds, each of [`signaling_protocol::limits::MAX_PLAYERS`]
/// players (see `docs/signaling.md`, the lobby directory). One by default,
/// as before the directory; the embedded server's `--lobbies` raises it.
pub const LOBBIES: usize = 1;
