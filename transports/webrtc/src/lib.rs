//! `webrtc-transport`: [`lockstep::Transport`] over a browser
//! `RTCPeerConnection`.
//!
//! Two data channels are pre-negotiated on every connection, so neither side
//! waits for an `ondatachannel` event:
//!
//! | id | label | settings | carries |
//! | --- | --- | --- | --- |
//! | 0 | `reliable` | ordered, retransmitted | [`Channel::Reliable`](lockstep::Channel::Reliable) |
//! | 1 | `fast` | unordered, `maxRetransmits: 0` | [`Channel::Unreliable`](lockstep::Channel::Unreliable) |
//!
//! The link is [`Connecting`](lockstep::LinkState::Connecting) until both
//! channels are open, then [`Open`](lockstep::LinkState::Open); it becomes
//! [`Closed`](lockstep::LinkState::Closed) when a channel or the connection
//! closes and [`Failed`](lockstep::LinkState::Failed) when ICE fails. How
//! long a link may take to open is the caller's rule (the web shell's room
//! link and mesh each keep their own timer).
//!
//! ICE reporting the connection `disconnected` is not the end: the link
//! stays open (its channels are) and `WebRtcTransport::path_down` says the
//! path is lost until the connection is `connected` again. The caller may
//! then restart ICE on the same connection (`Handshake::restart_offer` on
//! the side that offered, `Handshake::restart_answer` on the other); while
//! a restart is under way, ICE failing only marks the path down, and the
//! caller's own deadline ends the link by closing it.
//!
//! The handshake is trickle ICE: the offering side calls
//! `Handshake::create_offer`, the answering side
//! `Handshake::accept_offer`, the offerer `Handshake::accept_answer`, and
//! both relay what `WebRtcTransport::poll_local_ice` yields and feed what
//! the other side relayed into `Handshake::add_remote_ice` (candidates that
//! arrive before the remote description are held back until it is set). How
//! the messages travel (a room socket, the lobby relay) is the caller's
//! business; the same code serves match connections and the lobby mesh.
//!
//! The browser part (`WebRtcTransport`, `Handshake`) exists on wasm32 only.
//! Its state and queues live in [`link::LinkCore`], which builds on every
//! target, so `cargo test -p webrtc-transport` tests them natively.
#![warn(missing_docs)]

#[cfg(target_arch = "wasm32")]
mod browser;
pub mod link;
#[cfg(target_arch = "wasm32")]
pub use browser::*;

/// Largest datagram accepted by `send`: 16 KiB, the size every browser's
/// SCTP stack delivers in one message.
pub const MAX_DATAGRAM: usize = 16 * 1024;

/// One trickled ICE candidate, in the fields `RTCIceCandidateInit` uses. An
/// empty `candidate` marks the end of the trickle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IceCandidate {
    /// The candidate line.
    pub candidate: String,
    /// The media stream id.
    pub sdp_mid: Option<String>,
    /// The media line index.
    pub sdp_m_line_index: Option<u16>,
}
