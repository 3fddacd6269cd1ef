//! Peer ids and room codes.

use core::fmt;

/// Length of a peer id.
pub const ID_LEN: usize = 12;
const ALPHABET: &[u8; 62] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/// A lobby peer id: 12 characters from `A-Z a-z 0-9`, made fresh for every
/// lobby connection. Ids compare as byte strings; the lower id of a pair
/// makes the WebRTC offer (see [`crate::mesh::is_offerer`]).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PeerId(String);

impl PeerId {
    /// Draws an id from random bytes supplied by `next_byte` (the page passes
    /// `crypto.getRandomValues`; tests pass a fixed sequence). Bytes of 248 or
    /// more are skipped so that every character is equally likely.
    pub fn generate(mut next_byte: impl FnMut() -> u8) -> PeerId {
        let mut id = String::with_capacity(ID_LEN);
        while id.len() < ID_LEN {
            let b = next_byte();
            // 248 = 4 * 62: taking bytes below it modulo 62 has no bias.
            if b < 248 {
                id.push(char::from(ALPHABET[usize::from(b % 62)]));
            }
        }
        PeerId(id)
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

/// A room code from `POST /rooms`: six upper-case letters or digits.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RoomCode(String);

impl RoomCode {
    /// Accepts exactly six ASCII upper-case letters or digits.
    #[must_use]
    pub fn parse(s: &str) -> Option<RoomCode> {
        (s.len() == 6
            && s.bytes()
                .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit()))
        .then(|| RoomCode(s.to_owned()))
    }

    /// The code as text.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for RoomCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
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
    }

    #[test]
    fn different_random_bytes_give_different_ids() {
        let a = PeerId::generate(|| 1);
        let b = PeerId::generate(|| 2);
        assert_ne!(a, b);
    }

    #[test]
    fn malformed_ids_and_codes_are_refused() {
        for bad in ["", "short", "ABCDEFGHIJK!", "ABCDEFGHIJKLM", "ABCDEFGHIJ é"] {
            assert_eq!(PeerId::parse(bad), None, "{bad:?}");
        }
        assert!(RoomCode::parse("K7M2QX").is_some());
        for bad in ["k7m2qx", "K7M2Q", "K7M2QXX", "K7-2QX"] {
            assert_eq!(RoomCode::parse(bad), None, "{bad:?}");
        }
    }
}
