//! Names and chat text: which characters are allowed, how a name is
//! cleaned, how chat is cleaned, and how long each may be.
//!
//! The service checks every `hello` nick with [`clean_name`]; the page
//! cleans what the player types with the same function and every chat line
//! with [`clean_chat`]. The page only ever inserts text as text (never as
//! HTML), so what is left to guard against are the characters that do harm
//! as text: control characters, the bidi embedding, override and isolate
//! controls that could make a line display in a misleading order, and
//! invisible characters that make a name look empty or like another's.

use std::fmt;

/// Longest name, in characters (Unicode scalar values).
pub const NAME_MAX_CHARS: usize = 20;
/// Longest chat message, in characters (Unicode scalar values).
pub const CHAT_MAX_CHARS: usize = 500;

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

/// `true` for characters a name or chat line must never carry: C0/C1
/// control characters (including DEL), the bidi controls of
/// [`is_bidi_control`] and the invisible characters of
/// [`is_invisible_format`]. Tag characters depend on what comes before them
/// and are checked separately ([`is_tag`], [`tag_allowed_after`]). The lobby
/// and the page (names and chat) share this one rule.
#[must_use]
pub fn is_forbidden_char(c: char) -> bool {
    c.is_control() || is_bidi_control(c) || is_invisible_format(c)
}

/// `true` for characters that draw nothing on their own: the generic
/// combining marks (U+0300..U+036F, U+1AB0..U+1AFF, U+1DC0..U+1DFF,
/// U+20D0..U+20FF, U+FE20..U+FE2F) and the Cyrillic, Hebrew and Arabic
/// ones, variation selectors, the joiners and direction marks a name may
/// carry (U+200C, U+200D, U+200E, U+200F, U+061C), tag characters, and the
/// Braille pattern blank U+2800, which draws as an empty cell. A name made
/// only of these and spaces looks blank, so [`clean_name`] refuses it.
#[must_use]
pub fn draws_nothing(c: char) -> bool {
    matches!(
        c,
        '\u{0300}'..='\u{036F}'
            | '\u{0483}'..='\u{0489}'
            | '\u{0591}'..='\u{05BD}'
            | '\u{05BF}'
            | '\u{05C1}'..='\u{05C2}'
            | '\u{05C4}'..='\u{05C5}'
            | '\u{05C7}'
            | '\u{0610}'..='\u{061A}'
            | '\u{061C}'
            | '\u{064B}'..='\u{065F}'
            | '\u{0670}'
            | '\u{06D6}'..='\u{06DC}'
            | '\u{06DF}'..='\u{06E4}'
            | '\u{06E7}'..='\u{06E8}'
            | '\u{06EA}'..='\u{06ED}'
            | '\u{1AB0}'..='\u{1AFF}'
            | '\u{1DC0}'..='\u{1DFF}'
            | '\u{200C}'..='\u{200F}'
            | '\u{20D0}'..='\u{20FF}'
            | '\u{2800}'
            | '\u{FE00}'..='\u{FE0F}'
            | '\u{FE20}'..='\u{FE2F}'
            | '\u{E0020}'..='\u{E007F}'
            | '\u{E0100}'..='\u{E01EF}'
    )
}

/// The character that separates a name from its id tag when players are
/// shown (`name#ABC`, see [`display_name`]); a name may not contain it, so
/// that nobody can type a tag of their own into their name.
pub const TAG_SEPARATOR: char = '#';

/// Why a name was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameError {
    /// Nothing left after trimming spaces.
    Empty,
    /// More than [`NAME_MAX_CHARS`] characters.
    TooLong,
    /// A control, bidi-override or invisible format character.
    ForbiddenCharacter,
    /// A [`TAG_SEPARATOR`] (`#`).
    TagSeparator,
    /// Nothing in it draws anything ([`draws_nothing`] and spaces only).
    Blank,
}

impl fmt::Display for NameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            NameError::Empty => "Pick a name of 1 to 20 characters.",
            NameError::TooLong => "Names are at most 20 characters.",
            NameError::ForbiddenCharacter => "That name has characters that are not allowed.",
            NameError::TagSeparator => "Names cannot contain #.",
            NameError::Blank => "That name would show as blank.",
        })
    }
}

/// Trims surrounding whitespace and checks the rules for names: 1 to 20
/// characters, no control, bidi-override or invisible format characters
/// (see [`is_forbidden_char`] and [`is_tag`]), no `#` ([`TAG_SEPARATOR`]),
/// and at least one character that draws something (not only spaces and
/// [`draws_nothing`] characters). Letters of any script (Hebrew
/// included), digits, emoji (with their joiners and flag tags) and inner
/// spaces are fine. The lobby checks every `hello` with this function.
///
/// Characters are counted as Unicode scalar values, so an emoji built from several code points counts as several.
pub fn clean_name(raw: &str) -> Result<String, NameError> {
    let name = raw.trim();
    let mut prev = None;
    for c in name.chars() {
        if is_forbidden_char(c) || (is_tag(c) && !tag_allowed_after(prev)) {
            return Err(NameError::ForbiddenCharacter);
        }
        if c == TAG_SEPARATOR {
            return Err(NameError::TagSeparator);
        }
        prev = Some(c);
    }
    match name.chars().count() {
        0 => Err(NameError::Empty),
        n if n > NAME_MAX_CHARS => Err(NameError::TooLong),
        _ if name.chars().all(|c| c.is_whitespace() || draws_nothing(c)) => Err(NameError::Blank),
        _ => Ok(name.to_owned()),
    }
}

/// How a player is shown to others: `name#ABC`, where `ABC` is the
/// [`PlayerTag`](crate::PlayerTag) the lobby gave the player, so that
/// players with the same name can be told apart.
#[must_use]
pub fn display_name(nick: &str, tag: &str) -> String {
    format!("{nick}#{tag}")
}

/// Why a chat line was not sent or was dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChatError {
    /// Nothing left after cleaning.
    Empty,
    /// A received message over [`CHAT_MAX_CHARS`] characters.
    TooLong,
    /// Over the sending or receiving rate.
    RateLimited,
}

/// Cleans a chat line for display or sending: line breaks (including
/// U+2028 and U+2029) and tabs become spaces, other control characters,
/// bidi controls and invisible format characters are removed (tag
/// characters outside an emoji flag too), and the ends are trimmed. Returns
/// `None` when nothing is left.
#[must_use]
pub fn clean_chat(raw: &str) -> Option<String> {
    let mut cleaned = String::with_capacity(raw.len());
    let mut prev = None;
    for c in raw.chars() {
        let keep = match c {
            '\n' | '\r' | '\t' | '\u{2028}' | '\u{2029}' => Some(' '),
            c if is_forbidden_char(c) => None,
            c if is_tag(c) && !tag_allowed_after(prev) => None,
            c => Some(c),
        };
        if let Some(k) = keep {
            cleaned.push(k);
            prev = Some(k);
        }
    }
    let trimmed = cleaned.trim();
    (!trimmed.is_empty()).then(|| trimmed.to_owned())
}

/// Prepares a line the local player typed: cleaned, then cut to
/// [`CHAT_MAX_CHARS`] characters (the input box also stops at 500).
pub fn outgoing_chat(raw: &str) -> Result<String, ChatError> {
    let cleaned = clean_chat(raw).ok_or(ChatError::Empty)?;
    Ok(cleaned.chars().take(CHAT_MAX_CHARS).collect())
}

/// Checks a line a peer sent: over [`CHAT_MAX_CHARS`] characters is dropped
/// (a well-behaved peer never sends one), otherwise it is cleaned.
pub fn incoming_chat(raw: &str) -> Result<String, ChatError> {
    if raw.chars().count() > CHAT_MAX_CHARS {
        return Err(ChatError::TooLong);
    }
    clean_chat(raw).ok_or(ChatError::Empty)
}

/// `true` if the first letter of `text` is from a right-to-left script
/// (Hebrew, Arabic, Syriac, Thaana, NKo and their presentation forms): what
/// `dir="auto"` will pick for the line. The page uses it to put the sender's
/// name on the same side as the line.
#[must_use]
pub fn looks_rtl(text: &str) -> bool {
    text.chars().find(|c| c.is_alphabetic()).is_some_and(|c| {
        matches!(c, '\u{0590}'..='\u{08FF}' | '\u{FB1D}'..='\u{FDFF}' | '\u{FE70}'..='\u{FEFF}')
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_of_any_script_and_emoji_are_accepted() {
        assert_eq!(clean_name("Ada").unwrap(), "Ada");
        assert_eq!(clean_name("  דנה  ").unwrap(), "דנה");
        assert_eq!(clean_name("🏀 Bo 7").unwrap(), "🏀 Bo 7");
        assert_eq!(clean_name("x").unwrap(), "x");
        assert_eq!(clean_name(&"a".repeat(20)).unwrap().len(), 20);
        assert_eq!(clean_name(&"ש".repeat(20)).unwrap().chars().count(), 20);
    }

    #[test]
    fn names_out_of_length_are_refused() {
        assert_eq!(clean_name(""), Err(NameError::Empty));
        assert_eq!(clean_name("   "), Err(NameError::Empty));
        assert_eq!(clean_name(&"a".repeat(21)), Err(NameError::TooLong));
        assert_eq!(clean_name(&"🏀".repeat(21)), Err(NameError::TooLong));
    }

    #[test]
    fn names_with_control_or_bidi_override_are_refused() {
        for bad in [
            "a\u{0}b",
            "a\nb",
            "a\tb",
            "a\u{7f}",
            "a\u{85}b",
            "\u{202E}evil",
            "a\u{202A}",
            "a\u{2066}b",
            "a\u{2069}",
        ] {
            assert_eq!(
                clean_name(bad),
                Err(NameError::ForbiddenCharacter),
                "{bad:?}"
            );
        }
        // Plain direction marks are not overrides.
        assert!(clean_name("a\u{200F}b").is_ok());
    }

    #[test]
    fn names_with_invisible_characters_are_refused() {
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
        ] {
            assert_eq!(
                clean_name(bad),
                Err(NameError::ForbiddenCharacter),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn names_keep_emoji_joiners_and_flag_tags() {
        // Woman technologist: U+1F469 ZWJ U+1F4BB.
        assert!(clean_name("Bo \u{1F469}\u{200D}\u{1F4BB}").is_ok());
        // The flag of England: black flag, tags "gbeng", cancel tag.
        let england = "\u{1F3F4}\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F}";
        assert_eq!(clean_name(england).unwrap(), england);
        // Persian needs the zero-width non-joiner.
        assert!(clean_name("می\u{200C}خواهم").is_ok());
        assert_eq!(clean_name("שלום🏀").unwrap(), "שלום🏀");
    }

    #[test]
    fn chat_is_stripped_of_invisible_characters() {
        assert_eq!(
            clean_chat("a\u{200B}b\u{2060}c\u{FEFF}d\u{00AD}e").unwrap(),
            "abcde"
        );
        assert_eq!(
            clean_chat("one\u{2028}two\u{2029}three").unwrap(),
            "one two three"
        );
        assert_eq!(clean_chat("\u{200B}\u{FEFF} \u{2060}"), None);
        // Hidden tag text is dropped; a tagged flag keeps its tags.
        assert_eq!(clean_chat("hi\u{E0068}\u{E0069}").unwrap(), "hi");
        let england = "\u{1F3F4}\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F}";
        assert_eq!(
            clean_chat(&format!("go {england}!")).unwrap(),
            format!("go {england}!")
        );
        let family = "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}";
        assert_eq!(clean_chat(family).unwrap(), family);
        assert_eq!(
            clean_chat("שלום\u{200F} עולם").unwrap(),
            "שלום\u{200F} עולם"
        );
    }

    #[test]
    fn names_with_a_hash_or_that_draw_nothing_are_refused() {
        assert_eq!(clean_name("Alice#Xy7"), Err(NameError::TagSeparator));
        assert_eq!(clean_name("#"), Err(NameError::TagSeparator));
        for blank in [
            "\u{2800}",
            "\u{2800} \u{2800}",
            "\u{0301}",
            "\u{0301}\u{0308}\u{20DD}",
            "\u{05B7}",
            "\u{200D}\u{200C}",
            "\u{FE0F}",
            "\u{200E}\u{0301}",
        ] {
            assert_eq!(clean_name(blank), Err(NameError::Blank), "{blank:?}");
        }
        // A mark on a letter, a Braille pattern that is not blank, a
        // Hebrew word with points, and an emoji with its selector draw.
        for ok in [
            "e\u{0301}",
            "\u{2801}",
            "שָׁלוֹם",
            "\u{2764}\u{FE0F}",
            "A\u{2800}B",
        ] {
            assert_eq!(clean_name(ok).as_deref(), Ok(ok), "{ok:?}");
        }
    }

    #[test]
    fn display_name_puts_the_tag_after_the_name() {
        assert_eq!(display_name("Ada", "XY7"), "Ada#XY7");
        assert_eq!(display_name("דנה", "ABC"), "דנה#ABC");
    }

    #[test]
    fn chat_is_stripped_of_controls_and_bidi_overrides() {
        assert_eq!(clean_chat("hi\u{202E}there\u{0}!").unwrap(), "hithere!");
        assert_eq!(clean_chat("two\nlines\tx").unwrap(), "two lines x");
        assert_eq!(clean_chat("  \u{2066}\u{7} "), None);
        // Markup is kept as characters; the page inserts text, never HTML.
        assert_eq!(
            clean_chat("<img src=x onerror=alert(1)>").unwrap(),
            "<img src=x onerror=alert(1)>"
        );
        assert_eq!(clean_chat("שלום עולם").unwrap(), "שלום עולם");
    }

    #[test]
    fn direction_follows_the_first_letter() {
        assert!(looks_rtl("שלום world"));
        assert!(looks_rtl("123 مرحبا"));
        assert!(!looks_rtl("hello שלום"));
        assert!(!looks_rtl("123 !?"));
        assert!(!looks_rtl(""));
    }

    #[test]
    fn outgoing_chat_is_cut_to_500_characters() {
        let long = "ש".repeat(600);
        assert_eq!(outgoing_chat(&long).unwrap().chars().count(), 500);
        assert_eq!(outgoing_chat(" \n "), Err(ChatError::Empty));
    }

    #[test]
    fn incoming_chat_over_500_characters_is_dropped() {
        assert_eq!(incoming_chat(&"a".repeat(501)), Err(ChatError::TooLong));
        assert_eq!(incoming_chat(&"a".repeat(500)).unwrap().len(), 500);
        assert_eq!(incoming_chat("\u{202E}"), Err(ChatError::Empty));
    }
}
