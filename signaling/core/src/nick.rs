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
    /// Holds a control character, a bidi embedding/override/isolate or an
    /// invisible format character.
    ForbiddenCharacter,
}

/// `true` for the explicit bidi formatting characters: embeddings and
/// overrides (U+202A..U+202E) and isolates (U+2066..U+2069). The plain
/// direction marks (U+200E, U+200F, U+061C) are harmless and allowed.
#[must_use]
pub fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// `true` for invisible characters that carry no text of their own and can
/// make a name look empty or like someone else's: zero-width space
/// (U+200B), word joiner and invisible operators (U+2060..U+2064), the
/// deprecated format controls (U+206A..U+206F), the byte-order mark
/// (U+FEFF), soft hyphen (U+00AD), Mongolian vowel separator (U+180E),
/// interlinear annotation (U+FFF9..U+FFFB), shorthand and musical format
/// controls, the language tag (U+E0001), the Hangul fillers that draw as
/// blanks (U+115F, U+1160, U+3164, U+FFA0) and the line and paragraph
/// separators (U+2028, U+2029).
///
/// Kept on purpose: the zero-width joiner U+200D (emoji sequences), the
/// zero-width non-joiner U+200C (Persian and other scripts need it), the
/// direction marks U+200E, U+200F and U+061C (they only nudge neutral
/// characters), and tag characters inside an emoji flag sequence (see
/// [`is_tag`]).
#[must_use]
pub fn is_invisible_format(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{115F}'
            | '\u{1160}'
            | '\u{180E}'
            | '\u{200B}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{2060}'..='\u{2064}'
            | '\u{206A}'..='\u{206F}'
            | '\u{3164}'
            | '\u{FEFF}'
            | '\u{FFA0}'
            | '\u{FFF9}'..='\u{FFFB}'
            | '\u{1BCA0}'..='\u{1BCA3}'
            | '\u{1D173}'..='\u{1D17A}'
            | '\u{E0001}'
    )
}

/// `true` for the tag characters U+E0020..U+E007F. They are invisible and
/// only belong in an emoji tag sequence (the flags of England, Scotland and
/// Wales: U+1F3F4, tags, U+E007F), so they are kept only right after
/// U+1F3F4 or another tag character (see [`tag_allowed_after`]).
#[must_use]
pub fn is_tag(c: char) -> bool {
    matches!(c, '\u{E0020}'..='\u{E007F}')
}

/// `true` if a tag character may follow `prev` (the character before it):
/// right after the black flag U+1F3F4 or another tag.
#[must_use]
pub fn tag_allowed_after(prev: Option<char>) -> bool {
    prev.is_some_and(|p| p == '\u{1F3F4}' || is_tag(p))
}

/// `true` for characters a nickname or chat line must never carry: C0/C1
/// control characters (including DEL), the bidi controls of
/// [`is_bidi_control`] and the invisible characters of
/// [`is_invisible_format`]. Tag characters depend on what comes before them
/// and are checked separately ([`is_tag`], [`tag_allowed_after`]). The lobby
/// and the web shell (names and chat) share this one rule, so a name the
/// page accepts is one the lobby accepts.
#[must_use]
pub fn is_forbidden_char(c: char) -> bool {
    c.is_control() || is_bidi_control(c) || is_invisible_format(c)
}

/// Cleans a nickname: trims white space at both ends, then refuses it when
/// it is empty, longer than [`MAX_NICK_CHARS`] or holds a forbidden
/// character. Letters of any script, digits and emoji are fine.
pub fn clean_nick(raw: &str) -> Result<String, InvalidNick> {
    let nick = raw.trim();
    let mut prev: Option<char> = None;
    for c in nick.chars() {
        let orphan_tag = is_tag(c) && !tag_allowed_after(prev);
        if is_forbidden_char(c) || orphan_tag {
            return Err(InvalidNick::ForbiddenCharacter);
        }
        prev = Some(c);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invisible_characters_are_refused() {
        for bad in [
            "\u{200B}",
            "Ada\u{200B}",
            "A\u{2060}da",
            "\u{FEFF}Ada",
            "A\u{2028}da",
            "A\u{2029}da",
            "A\u{00AD}da",
            "\u{3164}",
            "Ada\u{E0041}",
            "\u{E0067}\u{E007F}",
            "evil\u{202E}txt",
        ] {
            assert_eq!(
                clean_nick(bad),
                Err(InvalidNick::ForbiddenCharacter),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn hebrew_emoji_joiners_and_flag_tags_are_kept() {
        assert_eq!(clean_nick("  דנה "), Ok("דנה".to_owned()));
        assert_eq!(clean_nick("Bo 🏀"), Ok("Bo 🏀".to_owned()));
        assert!(clean_nick("\u{1F469}\u{200D}\u{1F4BB}").is_ok());
        let england = "\u{1F3F4}\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F}";
        assert_eq!(clean_nick(england), Ok(england.to_owned()));
        assert!(clean_nick("می\u{200C}خواهم").is_ok());
        assert!(clean_nick("a\u{200F}b").is_ok());
    }
}
