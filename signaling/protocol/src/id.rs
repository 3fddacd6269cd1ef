//! Peer ids and room codes: what they are made of, how they are drawn and
//! how they are read.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Characters in a peer id.
pub const ID_LEN: usize = 12;

/// The 62 characters a peer id is made of.
pub const ID_ALPHABET: &[u8; 62] =
    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/// The 31 characters a room code is made of: capital letters and digits
/// without the look-alike pairs 0/O and 1/I/L.
pub const ROOM_CODE_ALPHABET: &[u8; 31] = b"ABCDEFGHJKMNPQRSTUVWXYZ23456789";

/// Characters in a room code.
pub const ROOM_CODE_LEN: usize = 6;

/// Random bytes at or above `256 - 256 % n` are skipped when drawing from an
/// alphabet of `n` characters, so that every character is equally likely.
const fn accept_below(n: usize) -> u8 {
    (256 - 256 % n) as u8
}

/// Fills `out` with characters of `alphabet`, drawn from `next_byte` without
/// bias; `false` when `next_byte` runs dry first.
fn draw(alphabet: &[u8], out: &mut [u8], mut next_byte: impl FnMut() -> Option<u8>) -> bool {
    let limit = accept_below(alphabet.len());
    let mut filled = 0;
    while filled < out.len() {
        let Some(b) = next_byte() else {
            return false;
        };
        if b < limit {
            out[filled] = alphabet[usize::from(b) % alphabet.len()];
            filled += 1;
        }
    }
    true
}

/// A lobby peer id: 12 characters from `A-Z a-z 0-9`, made fresh by the page
/// for every lobby connection. Ids compare as byte strings; the lower id of a
/// pair makes the WebRTC offer.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PeerId(String);

impl PeerId {
    /// Draws an id from random bytes supplied by `next_byte` (the page passes
    /// `crypto.getRandomValues`; tests pass a fixed sequence). Bytes of 248 or
    /// more are skipped so that every character is equally likely.
    pub fn generate(mut next_byte: impl FnMut() -> u8) -> PeerId {
        let mut id = [0u8; ID_LEN];
        draw(ID_ALPHABET, &mut id, || Some(next_byte()));
        PeerId(id.iter().map(|&b| char::from(b)).collect())
    }

    /// Accepts exactly 12 ASCII letters or digits.
    #[must_use]
    pub fn parse(s: &str) -> Option<PeerId> {
        (s.len() == ID_LEN && s.bytes().all(|b| b.is_ascii_alphanumeric()))
            .then(|| PeerId(s.to_owned()))
    }

    /// The id as text.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for PeerId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Serialize for PeerId {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for PeerId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        PeerId::parse(&s).ok_or_else(|| serde::de::Error::custom("not a peer id"))
    }
}

/// A valid room code, such as `K7M2QX`: six characters of
/// [`ROOM_CODE_ALPHABET`], as `POST /rooms` issues them.
///
/// Six bytes, but deliberately `Clone` only, not `Copy`, like [`PeerId`]:
/// code that hands a code on says so with `.clone()`.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
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
        let mut it = bytes.iter().copied();
        draw(ROOM_CODE_ALPHABET, &mut code, || it.next()).then_some(RoomCode(code))
    }

    /// Reads a code: six characters of [`ROOM_CODE_ALPHABET`], where ASCII
    /// lower case is accepted and upper-cased (people type codes). Anything
    /// else, `0`, `O`, `1`, `I` and `L` included, is `None`: the service
    /// never issues such a code.
    #[must_use]
    pub fn parse(s: &str) -> Option<RoomCode> {
        let bytes = s.as_bytes();
        if bytes.len() != ROOM_CODE_LEN {
            return None;
        }
        let mut code = [0u8; ROOM_CODE_LEN];
        for (slot, &b) in code.iter_mut().zip(bytes) {
            let up = b.to_ascii_uppercase();
            if !ROOM_CODE_ALPHABET.contains(&up) {
                return None;
            }
            *slot = up;
        }
        Some(RoomCode(code))
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
        RoomCode::parse(s).ok_or(InvalidRoomCode)
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
        RoomCode::parse(&s).ok_or_else(|| serde::de::Error::custom(InvalidRoomCode))
    }
}

/// Characters in a player tag.
pub const TAG_LEN: usize = 3;

/// The tag the lobby gives a player for as long as it is on the roster:
/// three characters of [`ROOM_CODE_ALPHABET`] (no look-alikes), shown after
/// the name as `name#K7M` so that players with the same name can be told
/// apart. The service draws it and makes it unique among players whose
/// names are the same (ignoring case); a client cannot choose it.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PlayerTag([u8; TAG_LEN]);

impl PlayerTag {
    /// Draws a tag from random bytes, skipping bytes that would bias the
    /// draw; `None` when `bytes` runs out first (hosts draw again).
    #[must_use]
    pub fn from_random_bytes(bytes: &[u8]) -> Option<PlayerTag> {
        let mut tag = [0u8; TAG_LEN];
        let mut it = bytes.iter().copied();
        draw(ROOM_CODE_ALPHABET, &mut tag, || it.next()).then_some(PlayerTag(tag))
    }

    /// Reads a tag: exactly three characters of [`ROOM_CODE_ALPHABET`], as
    /// written (the service sends upper case).
    #[must_use]
    pub fn parse(s: &str) -> Option<PlayerTag> {
        let bytes: [u8; TAG_LEN] = s.as_bytes().try_into().ok()?;
        bytes
            .iter()
            .all(|b| ROOM_CODE_ALPHABET.contains(b))
            .then_some(PlayerTag(bytes))
    }

    /// The tag as text.
    #[must_use]
    pub fn as_str(&self) -> &str {
        // Every byte comes from ROOM_CODE_ALPHABET, which is ASCII.
        std::str::from_utf8(&self.0).unwrap_or("???")
    }
}

impl fmt::Display for PlayerTag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for PlayerTag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PlayerTag({})", self.as_str())
    }
}

impl Serialize for PlayerTag {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for PlayerTag {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        PlayerTag::parse(&s).ok_or_else(|| serde::de::Error::custom("not a player tag"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_have_twelve_characters_from_the_alphabet() {
        let mut n = 0u8;
        let id = PeerId::generate(|| {
            n = n.wrapping_add(37);
            n
        });
        assert_eq!(id.as_str().len(), 12);
        assert!(id.as_str().bytes().all(|b| b.is_ascii_alphanumeric()));
        assert_eq!(PeerId::parse(id.as_str()), Some(id));
    }

    #[test]
    fn bytes_that_would_bias_the_draw_are_skipped() {
        let mut bytes = [250u8, 255, 248, 0, 61, 62, 247].into_iter().cycle();
        let id = PeerId::generate(|| bytes.next().unwrap());
        // 0 -> 'A', 61 -> '9', 62 -> 'A', 247 % 62 = 61 -> '9'
        assert_eq!(id.as_str(), "A9A9A9A9A9A9");
        // 248 = 8 * 31: bytes from 248 up are skipped for room codes too.
        let code = RoomCode::from_random_bytes(&[248, 0, 255, 30, 31, 247, 1, 2, 3]).unwrap();
        assert_eq!(code.as_str(), "A9A9BC");
        assert_eq!(RoomCode::from_random_bytes(&[0, 1, 250]), None);
    }

    #[test]
    fn malformed_ids_are_refused() {
        for bad in ["", "short", "ABCDEFGHIJK!", "ABCDEFGHIJKLM", "ABCDEFGHIJ é"] {
            assert_eq!(PeerId::parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn codes_outside_the_alphabet_are_refused_and_lower_case_is_read() {
        assert_eq!(RoomCode::parse("K7M2QX").unwrap().as_str(), "K7M2QX");
        assert_eq!(RoomCode::parse("k7m2qx").unwrap().as_str(), "K7M2QX");
        for bad in [
            "K7M2Q0", "K7M2QO", "K7M2Q1", "K7M2QI", "K7M2QL", "K7M2Q", "K7M2QXX", "K7-2QX",
        ] {
            assert_eq!(RoomCode::parse(bad), None, "{bad:?}");
            assert_eq!(bad.parse::<RoomCode>(), Err(InvalidRoomCode));
        }
    }

    #[test]
    fn ids_and_codes_round_trip_through_serde() {
        let code = RoomCode::parse("K7M2QX").unwrap();
        let json = serde_json::to_string(&code).unwrap();
        assert_eq!(json, r#""K7M2QX""#);
        assert_eq!(serde_json::from_str::<RoomCode>(&json).unwrap(), code);
        assert!(serde_json::from_str::<RoomCode>(r#""K7M2Q0""#).is_err());
        let id = PeerId::parse("AAAAAAAAAAAA").unwrap();
        let json = serde_json::to_string(&id).unwrap();
        assert_eq!(serde_json::from_str::<PeerId>(&json).unwrap(), id);
        assert!(serde_json::from_str::<PeerId>(r#""short""#).is_err());
    }

    #[test]
    fn tags_are_three_characters_of_the_code_alphabet() {
        let tag = PlayerTag::from_random_bytes(&[248, 0, 30, 1]).unwrap();
        assert_eq!(tag.as_str(), "A9B");
        assert_eq!(PlayerTag::parse("A9B"), Some(tag.clone()));
        assert_eq!(PlayerTag::from_random_bytes(&[0, 255]), None);
        for bad in ["", "AB", "ABCD", "a9b", "AB0", "ABI", "#AB"] {
            assert_eq!(PlayerTag::parse(bad), None, "{bad:?}");
        }
        let json = serde_json::to_string(&tag).unwrap();
        assert_eq!(json, r#""A9B""#);
        assert_eq!(serde_json::from_str::<PlayerTag>(&json).unwrap(), tag);
        assert!(serde_json::from_str::<PlayerTag>(r#""AB1""#).is_err());
    }
}
