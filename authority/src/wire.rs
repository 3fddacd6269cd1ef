//! The messages between host and guest, and their strict codec.
//!
//! Every message is one postcard-encoded enum in one datagram. Decoding is
//! strict: bytes left over, an unknown tag, a length over its cap or bytes
//! that do not encode back to exactly the same datagram are errors, never
//! panics. The byte layout is in `docs/authority.md`.

use serde::{Deserialize, Serialize};

use crate::delta::Op;

/// The version of these messages; a guest of another version is refused.
pub const PROTOCOL: u16 = 1;
/// Largest datagram either side sends or accepts (what every transport
/// here carries in one piece).
pub const MAX_DATAGRAM: usize = 16 * 1024;
/// Most events in one snapshot message; more wait for the next one.
pub const MAX_EVENTS_PER_MESSAGE: usize = 64;
/// Largest encoded event or command.
pub const MAX_ITEM_BYTES: usize = 1024;
/// Bytes a rejoin token has.
pub const TOKEN_LEN: usize = 16;

/// A secret that gets a dropped guest its seat back.
pub type Token = [u8; TOKEN_LEN];

/// Guest to host.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum ToHost {
    /// The first message (reliable): versions, and a token to rejoin with.
    Hello {
        /// [`PROTOCOL`] of the guest.
        protocol: u16,
        /// The guest's [`GAME_ID`](crate::AuthoritativeGame::GAME_ID).
        game: u64,
        /// The token of an earlier visit, to get its seat back.
        token: Option<Token>,
    },
    /// A command (reliable, in order), numbered from 1.
    Command {
        /// Its number.
        seq: u32,
        /// The postcard-encoded command.
        body: Vec<u8>,
    },
    /// What the guest has (unreliable, after every snapshot and now and
    /// then).
    Ack {
        /// The newest snapshot decoded (a tick), if any.
        tick: Option<u64>,
        /// The number of the last event delivered (0: none yet).
        events: u32,
        /// The guest's clock, echoed back to measure the round trip.
        time: u32,
    },
    /// The guest leaves for good (reliable).
    Bye,
}

/// Why the host refused a guest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum RefuseReason {
    /// Another message version.
    Protocol,
    /// Another game or game version.
    Game,
    /// Every seat is taken.
    Full,
    /// The token matches no seat held for a rejoin.
    UnknownToken,
}

/// Why the host ended a guest's visit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ByeReason {
    /// The host closed the match.
    Closed,
    /// The guest broke the protocol.
    InvalidData,
    /// The same token joined again on another link.
    Replaced,
    /// The guest fell too far behind on events.
    TooFarBehind,
}

/// A snapshot: whole, or a patch against a baseline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Body {
    /// The postcard-encoded snapshot.
    Whole(Vec<u8>),
    /// A patch of the tree of the snapshot `back` ticks before this one.
    Delta {
        /// How many ticks older the baseline snapshot is (at least 1).
        back: u32,
        /// The patch (empty: unchanged).
        ops: Vec<Op>,
    },
}

/// The echo of a guest's clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Echo {
    /// The `time` of the guest's newest ack.
    pub time: u32,
    /// How long the host held it before this message (milliseconds).
    pub held: u16,
}

/// A snapshot message (deltas unreliable, whole snapshots reliable).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    /// The host tick it shows.
    pub tick: u64,
    /// The snapshot.
    pub body: Body,
    /// The number of the first event carried.
    pub events_from: u32,
    /// Postcard-encoded events, numbered from `events_from`.
    pub events: Vec<Vec<u8>>,
    /// The number of the newest command the host has applied.
    pub commands: u32,
    /// The guest's clock, echoed.
    pub echo: Option<Echo>,
}

/// Host to guest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum ToGuest {
    /// The guest has a seat (reliable).
    Welcome {
        /// Its seat.
        seat: u8,
        /// Keep this to rejoin the seat.
        token: Token,
        /// Milliseconds per host tick.
        tick_ms: u16,
        /// Whether this is the guest's old seat, taken back with a token.
        rejoined: bool,
    },
    /// The guest was refused (reliable); the host closes the link.
    Refused(RefuseReason),
    /// A snapshot with the events that ride on it.
    Snapshot(Snapshot),
    /// The visit ends (reliable).
    Bye(ByeReason),
}

/// Why bytes did not decode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecodeError {
    /// An empty datagram.
    Empty,
    /// Over [`MAX_DATAGRAM`].
    TooLarge(usize),
    /// Not a message: unknown tag, truncated, or a bad value for its type.
    Malformed,
    /// Bytes left over after the message.
    TrailingBytes(usize),
    /// Decodes, but does not encode back to the same bytes (an overlong
    /// number, say).
    NonCanonical,
    /// A list or byte string longer than its cap.
    OverCap(&'static str),
}

impl core::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            DecodeError::Empty => f.write_str("empty datagram"),
            DecodeError::TooLarge(n) => write!(f, "datagram of {n} bytes is over the limit"),
            DecodeError::Malformed => f.write_str("malformed message"),
            DecodeError::TrailingBytes(n) => write!(f, "{n} bytes after the message"),
            DecodeError::NonCanonical => f.write_str("non-canonical encoding"),
            DecodeError::OverCap(what) => write!(f, "{what} over its cap"),
        }
    }
}

impl std::error::Error for DecodeError {}

/// Why a message could not be encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EncodeError {
    /// A value failed to serialise.
    Serialize,
    /// The message is over [`MAX_DATAGRAM`] (a snapshot too large for one
    /// datagram).
    TooLarge(usize),
}

impl core::fmt::Display for EncodeError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            EncodeError::Serialize => f.write_str("value does not serialise"),
            EncodeError::TooLarge(n) => write!(f, "message of {n} bytes is over the limit"),
        }
    }
}

impl std::error::Error for EncodeError {}

/// Encodes any value with postcard, within [`MAX_DATAGRAM`].
pub fn encode<T: Serialize>(value: &T) -> Result<Vec<u8>, EncodeError> {
    let bytes = postcard::to_allocvec(value).map_err(|_| EncodeError::Serialize)?;
    if bytes.len() > MAX_DATAGRAM {
        return Err(EncodeError::TooLarge(bytes.len()));
    }
    Ok(bytes)
}

/// Decodes exactly one `T` from all of `bytes`.
pub fn decode_exact<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T, DecodeError> {
    if bytes.is_empty() {
        return Err(DecodeError::Empty);
    }
    if bytes.len() > MAX_DATAGRAM {
        return Err(DecodeError::TooLarge(bytes.len()));
    }
    let (value, rest) =
        postcard::take_from_bytes::<T>(bytes).map_err(|_| DecodeError::Malformed)?;
    if !rest.is_empty() {
        return Err(DecodeError::TrailingBytes(rest.len()));
    }
    Ok(value)
}

fn canonical<T: Serialize>(value: &T, bytes: &[u8]) -> Result<(), DecodeError> {
    match postcard::to_allocvec(value) {
        Ok(again) if again == bytes => Ok(()),
        _ => Err(DecodeError::NonCanonical),
    }
}

impl ToHost {
    /// Encodes the message.
    pub fn encode(&self) -> Result<Vec<u8>, EncodeError> {
        encode(self)
    }

    /// Decodes one message strictly.
    pub fn decode(bytes: &[u8]) -> Result<ToHost, DecodeError> {
        let msg: ToHost = decode_exact(bytes)?;
        if let ToHost::Command { body, .. } = &msg {
            if body.len() > MAX_ITEM_BYTES {
                return Err(DecodeError::OverCap("command"));
            }
        }
        canonical(&msg, bytes)?;
        Ok(msg)
    }
}

impl ToGuest {
    /// Encodes the message.
    pub fn encode(&self) -> Result<Vec<u8>, EncodeError> {
        encode(self)
    }

    /// Decodes one message strictly.
    pub fn decode(bytes: &[u8]) -> Result<ToGuest, DecodeError> {
        let msg: ToGuest = decode_exact(bytes)?;
        if let ToGuest::Snapshot(s) = &msg {
            if s.events.len() > MAX_EVENTS_PER_MESSAGE {
                return Err(DecodeError::OverCap("events"));
            }
            if s.events.iter().any(|e| e.len() > MAX_ITEM_BYTES) {
                return Err(DecodeError::OverCap("event"));
            }
        }
        canonical(&msg, bytes)?;
        Ok(msg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_round_trip_and_strays_are_refused() {
        let msgs = [
            ToGuest::Welcome {
                seat: 3,
                token: [7; TOKEN_LEN],
                tick_ms: 33,
                rejoined: false,
            },
            ToGuest::Snapshot(Snapshot {
                tick: 99,
                body: Body::Delta {
                    back: 2,
                    ops: vec![Op::Fields(1), Op::Add(-3)],
                },
                events_from: 4,
                events: vec![vec![1, 2]],
                commands: 12,
                echo: Some(Echo { time: 5, held: 1 }),
            }),
        ];
        for m in msgs {
            let bytes = m.encode().unwrap();
            assert_eq!(ToGuest::decode(&bytes), Ok(m));
            let mut longer = bytes.clone();
            longer.push(0);
            assert_eq!(ToGuest::decode(&longer), Err(DecodeError::TrailingBytes(1)));
            assert!(ToGuest::decode(&bytes[..bytes.len() - 1]).is_err());
        }
        assert_eq!(ToHost::decode(&[]), Err(DecodeError::Empty));
        assert_eq!(ToHost::decode(&[200]), Err(DecodeError::Malformed));
        // An overlong varint (seq 1 written in two bytes) is refused.
        assert_eq!(
            ToHost::decode(&[1, 0x81, 0x00, 0]),
            Err(DecodeError::NonCanonical)
        );
        let big = ToHost::Command {
            seq: 1,
            body: vec![0; MAX_ITEM_BYTES + 1],
        };
        assert_eq!(
            ToHost::decode(&big.encode().unwrap()),
            Err(DecodeError::OverCap("command"))
        );
    }
}
