//! Room codes: six characters from an alphabet without look-alikes, drawn
//! without bias by rejection sampling.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The 31 characters a room code is made of: capital letters and digits
/// without the look-alike pairs 0/O and 1/I/L.
pub const ROOM_CODE_ALPHABET: &[u8; 31] = b"ABCDEFGHJKMNPQRSTUVWXYZ23456789";

/// Characters in a room code.
pub const ROOM_CODE_LEN: usize = 6;

/// Random bytes at or above this value are thrown away, so that every
/// character of the alphabet is equally likely (248 = 8 × 31).
const ACCEPT_BELOW: u8 = (256 - 256 % ROOM_CODE_ALPHABET.len()) as u8;

/// A valid room code, such as `K7M2QX`.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RoomCode([u8; ROOM_CODE_LEN]);

/// A string that is not a room code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InvalidRoomCode;

impl fmt::Display for InvalidRoomCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("not a room code")
    }
}

impl std::error::Error for InvalidRoomCode {}

impl RoomCode {
    /// Draws a code from random bytes (from the host's CSPRNG). Bytes that
    /// would bias the draw are skipped; `None` when `bytes` runs out before
    /// six were accepted. With 32 bytes that happens with a probability
    /// below 10⁻³⁰, but hosts should loop on `None` with fresh bytes.
    #[must_use]
    pub fn from_random_bytes(bytes: &[u8]) -> Option<RoomCode> {
        let mut code = [0u8; ROOM_CODE_LEN];
        let mut filled = 0;
        for &b in bytes {
            if b < ACCEPT_BELOW {
                code[filled] = ROOM_CODE_ALPHABET[usize::from(b) % ROOM_CODE_ALPHABET.len()];
                filled += 1;
                if filled == ROOM_CODE_LEN {
                    return Some(RoomCode(code));
                }
            }
        }
        None
    }

    /// Reads a code; ASCII lower case is accepted and upper-cased.
    pub fn parse(s: &str) -> Result<RoomCode, InvalidRoomCode> {
        let bytes = s.as_bytes();
        if bytes.len() != ROOM_CODE_LEN {
            return Err(InvalidRoomCode);
        }
        let mut code = [0u8; ROOM_CODE_LEN];
        for (slot, &b) in code.iter_mut().zip(bytes) {
            let up = b.to_ascii_uppercase();
            if !ROOM_CODE_ALPHABET.contains(&up) {
                return Err(InvalidRoomCode);
            }
            *slot = up;
        }
        Ok(RoomCode(code))
    }

    /// The code as text.
    #[must_use]
    pub fn as_str(&self) -> &str {
        // Every byte comes from ROOM_CODE_ALPHABET, which is ASCII.
        std::str::from_utf8(&self.0).unwrap_or("??????")
    }
}

impl fmt::Display for RoomCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for RoomCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RoomCode({})", self.as_str())
    }
}

impl std::str::FromStr for RoomCode {
    type Err = InvalidRoomCode;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        RoomCode::parse(s)
    }
}

impl Serialize for RoomCode {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for RoomCode {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        RoomCode::parse(&s).map_err(serde::de::Error::custom)
    }
}
