//! JSON messages: the lobby presence socket, the room socket, the
//! handshake data relayed between peers, and the peer-to-peer messages of
//! the lobby mesh (chat and challenges).
//!
//! They are defined once, in `signaling-protocol`, for the page and the
//! signalling service alike. Everything received is parsed strictly: size
//! caps first, then exact shapes (unknown fields and unknown types are
//! refused), then the values (ids, room codes, text). A refused message is
//! dropped by the caller and logged without its content; nothing panics.

pub use signaling_protocol::limits::{
    CANDIDATE_MAX_BYTES, MAX_MESSAGE_BYTES as SERVER_MESSAGE_MAX_BYTES, MAX_PLAYERS,
    PEER_MESSAGE_MAX_BYTES, SDP_MAX_BYTES,
};
pub use signaling_protocol::{
    lobby_out, room_out, DeclineReason, GameName, InviteCode, InviteRefusal, LobbyServerMsg,
    MessageError, PeerMsg, PlayerStatus, Proof, RoomServerMsg, RosterEntry, Signal, SignalKind,
    Vouch,
};
