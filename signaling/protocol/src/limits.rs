//! Sizes and counts that the service enforces and the page relies on.
//!
//! The service's defaults for its own settings (timeouts, rates, caps) live
//! in `signaling-core`; what is here is part of the contract itself, so both
//! sides read the same number.

/// Largest lobby or room frame, in bytes, either way. The service closes a
/// socket that sends more with 1009; the page drops a larger room frame.
pub const MAX_MESSAGE_BYTES: usize = 8 * 1024;

/// Largest lobby frame the page accepts from the service: a `welcome`
/// carries the whole roster, so it may exceed [`MAX_MESSAGE_BYTES`].
pub const MAX_LOBBY_FRAME_BYTES: usize = MAX_MESSAGE_BYTES * 8;

/// Players on one lobby's roster; the next `hello` is answered `full`.
pub const MAX_PLAYERS: usize = 16;

/// How long a room lives after `POST /rooms`, in milliseconds.
pub const ROOM_TTL_MS: u64 = 600_000;

/// Messages each side of a room may send in the room's whole life.
pub const ROOM_MAX_MESSAGES: u32 = 100;

/// Player places of a member room, the host's included (`POST
/// /rooms?players=N` asks for 2 to this many).
pub const MAX_ROOM_PLAYERS: u8 = 8;

/// Spectator places of a member room (the default when `POST /rooms` names
/// no `spectators`).
pub const MAX_ROOM_SPECTATORS: u8 = 16;

/// Messages each member id of a member room may send in the room's whole
/// life. A player of eight sets up seven peer connections (an offer or an
/// answer and its ICE candidates for each), so it needs more than a side
/// of a two-seat room.
pub const ROOM_MEMBER_MAX_MESSAGES: u32 = 400;

/// Largest peer-to-peer lobby message (chat, challenge), in bytes.
pub const PEER_MESSAGE_MAX_BYTES: usize = 4096;

/// Largest SDP accepted in a relayed handshake message, in bytes.
pub const SDP_MAX_BYTES: usize = 7000;

/// Largest ICE candidate line accepted, in bytes.
pub const CANDIDATE_MAX_BYTES: usize = 1024;

/// Largest `sdpMid` accepted, in bytes.
pub const SDP_MID_MAX_BYTES: usize = 64;

/// The STUN server `/ice` lists by default, and the one the page falls back
/// to when `/ice` cannot be fetched.
pub const DEFAULT_STUN_URL: &str = "stun:stun.cloudflare.com:3478";

/// Largest datagram a page sends through the match relay, in bytes: the
/// same 16 KiB every transport carries.
pub const RELAY_MAX_DATAGRAM: usize = 16 * 1024;

/// Largest relay frame, in bytes: a datagram and the page's one-byte
/// channel tag. The service closes a relay socket that sends more with
/// 1009.
pub const RELAY_MAX_FRAME_BYTES: usize = RELAY_MAX_DATAGRAM + 1;

/// How long a relay ticket opens relay sockets after the room issued it,
/// in milliseconds.
pub const RELAY_TICKET_TTL_MS: u64 = 60_000;
