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

/// True for control characters, for the invisible characters that reorder
/// text (U+202A–U+202E, U+2066–U+2069) and for invisible characters that
/// carry no text and can make a name look blank or like another's: soft
/// hyphen, the Hangul fillers, Mongolian vowel separator, zero-width space,
/// line and paragraph separators, word joiner and invisible operators, the
/// deprecated format controls, byte-order mark, interlinear annotation,
/// shorthand and musical format controls and the language tag.
///
/// Allowed on purpose: the zero-width joiner U+200D (emoji sequences), the
/// zero-width non-joiner U+200C (Persian and other scripts), the direction
/// marks U+200E, U+200F and U+061C, and tag characters inside an emoji flag
/// (see [`tag`]). The web shell's name rule (`web-shell/src/text.rs`) is the
/// same, so a name the page accepts is one the lobby accepts.
fn forbidden(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{202A}'..='\u{202E}'
                | '\u{2066}'..='\u{2069}'
                | '\u{00AD}'
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

/// True for the tag characters U+E0020–U+E007F: invisible, and only
/// meaningful in an emoji tag sequence (the flags of England, Scotland and
/// Wales), so a nickname may carry them only right after U+1F3F4 or another
/// tag character.
fn tag(c: char) -> bool {
    matches!(c, '\u{E0020}'..='\u{E007F}')
}

/// Cleans a nickname: trims white space at both ends, then refuses it when
/// it is empty, longer than [`MAX_NICK_CHARS`] or holds a forbidden
/// character. Letters of any script, digits and emoji are fine.
pub fn clean_nick(raw: &str) -> Result<String, InvalidNick> {
    let nick = raw.trim();
    let mut prev: Option<char> = None;
    for c in nick.chars() {
        let orphan_tag = tag(c) && !prev.is_some_and(|p| p == '\u{1F3F4}' || tag(p));
        if forbidden(c) || orphan_tag {
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
