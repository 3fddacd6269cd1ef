//! Player ids and nicknames.

/// Longest nickname, in characters (Unicode scalar values), after cleaning.
pub const MAX_NICK_CHARS: usize = 20;

/// Why a nickname was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InvalidNick {
    /// Nothing left after trimming white space.
    Empty,
    /// More than [`MAX_NICK_CHARS`] characters.
    TooLong,
    /// Holds a control character or a bidi embedding/override/isolate.
    ForbiddenCharacter,
}

/// True for the invisible characters that reorder text (U+202A–U+202E,
/// U+2066–U+2069) and for control characters.
fn forbidden(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// Cleans a nickname: trims white space at both ends, then refuses it when
/// it is empty, longer than [`MAX_NICK_CHARS`] or holds a forbidden
/// character. Letters of any script, digits and emoji are fine.
pub fn clean_nick(raw: &str) -> Result<String, InvalidNick> {
    let nick = raw.trim();
    if nick.chars().any(forbidden) {
        return Err(InvalidNick::ForbiddenCharacter);
    }
    if nick.is_empty() {
        return Err(InvalidNick::Empty);
    }
    if nick.chars().count() > MAX_NICK_CHARS {
        return Err(InvalidNick::TooLong);
    }
    Ok(nick.to_owned())
}

/// True when `id` is 12 characters from `A–Z`, `a–z`, `0–9`.
#[must_use]
pub fn is_valid_player_id(id: &str) -> bool {
    id.len() == crate::lobby::PLAYER_ID_LEN && id.bytes().all(|b| b.is_ascii_alphanumeric())
}
