//! The messages between the page and the host's worker.
//!
//! The page of the match's host does no simulation: it hands the worker
//! what its links to the guests delivered and what its own player pressed,
//! and the worker hands back what to send on which link and the state to
//! draw. Links are named by a number the page picks ([`LinkName`]): the
//! party place at the link's other end, or 1 for the one guest of a
//! challenge. Both
//! directions are one postcard-encoded enum per message, decoded strictly
//! (a remainder or an unknown tag is an error), although both ends are
//! this crate: a message that does not decode is logged and dropped, never
//! a panic.

use arena::{ArenaSnapshot, Control};
use authority::LeaveReason;
use serde::{de::DeserializeOwned, Deserialize, Serialize};

/// Largest message either way: a datagram (16 KiB at most) and its frame.
pub const MAX_MESSAGE: usize = 17 * 1024;

/// The page's name for one link to a guest.
pub type LinkName = u16;

/// The most links to guests a match takes (the model's seats for guests).
pub const MAX_LINKS: usize = authority::MAX_GUESTS as usize;

/// From the page to the worker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum ToWorker {
    /// The links to the guests are open: start the host with this seed,
    /// a seat waiting for a guest on each of `links` (at most
    /// [`MAX_LINKS`]; more is refused with [`FromWorker::Failed`]).
    Start {
        /// The arena's seed and the rejoin tokens' (the page draws it from
        /// real randomness).
        seed: u64,
        /// The links, each named as the page likes (distinct).
        links: Vec<LinkName>,
    },
    /// A datagram from a guest.
    Datagram {
        /// The link it came on.
        link: LinkName,
        /// It came on the reliable channel.
        reliable: bool,
        /// Its bytes.
        bytes: Vec<u8>,
    },
    /// The host player's controls changed.
    Control(Control),
    /// The bytes a link holds, queued to send.
    Backlog {
        /// The link.
        link: LinkName,
        /// Bytes queued.
        bytes: u64,
    },
    /// A link closed or failed.
    LinkLost(LinkName),
    /// The host player leaves: say goodbye to every guest.
    Quit,
}

/// Why a guest is gone, as the page words it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Gone {
    /// It left.
    Quit,
    /// Its link dropped and it did not come back, or it fell silent.
    Lost,
    /// It broke the protocol or fell too far behind.
    Misbehaved,
}

impl From<LeaveReason> for Gone {
    fn from(r: LeaveReason) -> Gone {
        match r {
            LeaveReason::Quit | LeaveReason::Closed => Gone::Quit,
            LeaveReason::TimedOut => Gone::Lost,
            LeaveReason::InvalidData | LeaveReason::TooFarBehind => Gone::Misbehaved,
        }
    }
}

/// From the worker to the page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum FromWorker {
    /// Send this on a link.
    Send {
        /// The link.
        link: LinkName,
        /// On the reliable channel.
        reliable: bool,
        /// The datagram.
        bytes: Vec<u8>,
    },
    /// The host's state after `tick`, as the host's player sees it.
    View {
        /// Host ticks run.
        tick: u64,
        /// Every ship and bullet.
        snapshot: ArenaSnapshot,
    },
    /// The guest on this link took its seat.
    Joined(LinkName),
    /// The guest on this link is gone for good (said once per link).
    Left(LinkName, Gone),
    /// The host said goodbye to everyone after [`ToWorker::Quit`]: the
    /// page may close the link.
    Closed,
    /// The host could not start (a configuration it refused).
    Failed,
}

/// Why a message could not be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecodeError {
    /// Over [`MAX_MESSAGE`] bytes.
    TooLarge,
    /// Not a message of this kind, or bytes after its end.
    Malformed,
}

/// Encodes a message (postcard).
#[must_use]
pub fn encode<T: Serialize>(msg: &T) -> Vec<u8> {
    // Serialising these plain enums into a growable buffer cannot fail.
    postcard::to_allocvec(msg).unwrap_or_default()
}

/// Decodes one message, strictly.
///
/// # Errors
///
/// Too large, malformed, or followed by more bytes.
pub fn decode<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, DecodeError> {
    if bytes.len() > MAX_MESSAGE {
        return Err(DecodeError::TooLarge);
    }
    match postcard::take_from_bytes::<T>(bytes) {
        Ok((msg, [])) => Ok(msg),
        _ => Err(DecodeError::Malformed),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_round_trip_and_garbage_is_refused() {
        let msgs = [
            ToWorker::Start {
                seed: 7,
                links: vec![1, 2, 3],
            },
            ToWorker::Datagram {
                link: 2,
                reliable: true,
                bytes: vec![1, 2, 3],
            },
            ToWorker::Control(Control {
                thrust: true,
                turn: -1,
                fire: false,
            }),
            ToWorker::Backlog {
                link: 3,
                bytes: 70_000,
            },
            ToWorker::LinkLost(1),
            ToWorker::Quit,
        ];
        for m in msgs {
            let bytes = encode(&m);
            assert_eq!(decode::<ToWorker>(&bytes), Ok(m));
            let mut longer = bytes.clone();
            longer.push(0);
            assert_eq!(decode::<ToWorker>(&longer), Err(DecodeError::Malformed));
        }
        assert_eq!(decode::<ToWorker>(&[99]), Err(DecodeError::Malformed));
        assert_eq!(decode::<FromWorker>(&[]), Err(DecodeError::Malformed));
        assert_eq!(
            decode::<FromWorker>(&vec![0; MAX_MESSAGE + 1]),
            Err(DecodeError::TooLarge)
        );
    }
}
