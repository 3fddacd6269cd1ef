//! The datagram transport the session's driver talks through.

use alloc::vec::Vec;
use core::fmt;

/// Which of the two channels a datagram travels on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Channel {
    /// Delivered completely and in order (WebRTC data channel id 0).
    Reliable,
    /// May be lost, duplicated or reordered (data channel id 1,
    /// unordered, `maxRetransmits: 0`).
    Unreliable,
}

/// The state of the link under a transport.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LinkState {
    /// Still being set up; nothing can be sent yet.
    Connecting,
    /// Both channels are usable.
    Open,
    /// Closed in an orderly way (by either side).
    Closed,
    /// Broke down (ICE failure, severed link).
    Failed,
}

impl LinkState {
    /// `true` for [`Closed`](LinkState::Closed) and
    /// [`Failed`](LinkState::Failed): the link will never carry data again.
    #[must_use]
    pub fn is_terminal(self) -> bool {
        matches!(self, LinkState::Closed | LinkState::Failed)
    }
}

/// Why a datagram could not be handed to the transport.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TransportError {
    /// The link is not open (still connecting, closed or failed).
    NotOpen(LinkState),
    /// The datagram is larger than the transport can carry in one piece.
    TooLarge {
        /// Size of the refused datagram in bytes.
        len: usize,
        /// Largest size this transport accepts.
        max: usize,
    },
}

impl fmt::Display for TransportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TransportError::NotOpen(state) => write!(f, "link is not open ({state:?})"),
            TransportError::TooLarge { len, max } => {
                write!(f, "datagram of {len} bytes exceeds the {max}-byte limit")
            }
        }
    }
}

impl core::error::Error for TransportError {}

/// Non-blocking datagrams on two channels, and the state of the link.
///
/// A transport knows nothing of games. Implementations: the in-process
/// loopback and the simulated network (`transports/`), and WebRTC data
/// channels in the browser.
pub trait Transport {
    /// Queues one datagram on `channel`. Never blocks.
    fn send(&mut self, channel: Channel, datagram: &[u8]) -> Result<(), TransportError>;

    /// Takes the next received datagram, if any. Never blocks.
    fn recv(&mut self) -> Option<(Channel, Vec<u8>)>;

    /// The link's current state.
    fn state(&self) -> LinkState;

    /// Closes the link from this side. Further sends fail.
    fn close(&mut self);

    /// Bytes accepted by [`send`](Self::send) that have not left this
    /// machine yet, over both channels (WebRTC's `bufferedAmount`). A sender
    /// that watches it can skip data that would only go stale in the queue.
    /// Transports without a send queue keep the default of 0.
    fn send_backlog(&self) -> usize {
        0
    }
}
