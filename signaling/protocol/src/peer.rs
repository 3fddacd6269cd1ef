//! Messages between two lobby players over their data channel: chat and
//! challenges. They never pass through the service, but they share the
//! service's room codes and the chat rules of [`crate::text`], so they live
//! beside them.

use serde_json::json;

use crate::id::RoomCode;
use crate::json::{parse_json, string, typed};
use crate::limits::PEER_MESSAGE_MAX_BYTES;
use crate::MessageError;

/// Why a challenge was declined.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeclineReason {
    /// The player pressed Decline.
    Declined,
    /// The player is in a match (or connecting to one).
    Busy,
    /// The player has muted the challenger.
    Muted,
    /// Both challenged each other at once.
    Mutual,
}

impl DeclineReason {
    /// The wire name.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            DeclineReason::Declined => "declined",
            DeclineReason::Busy => "busy",
            DeclineReason::Muted => "muted",
            DeclineReason::Mutual => "mutual",
        }
    }

    fn parse(s: &str) -> Option<DeclineReason> {
        Some(match s {
            "declined" => DeclineReason::Declined,
            "busy" => DeclineReason::Busy,
            "muted" => DeclineReason::Muted,
            "mutual" => DeclineReason::Mutual,
            _ => return None,
        })
    }
}

/// A message between two lobby players over their data channel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PeerMsg {
    /// A chat line (already cleaned when received).
    Chat(String),
    /// "Play me": the challenger hosts `room`.
    Challenge(RoomCode),
    /// The target accepted and is joining the room.
    Accept,
    /// The target declined.
    Decline(DeclineReason),
    /// The challenger withdrew (or gave up waiting).
    Cancel,
}

impl PeerMsg {
    /// Encodes for the data channel.
    #[must_use]
    pub fn encode(&self) -> String {
        match self {
            PeerMsg::Chat(text) => json!({"type": "chat", "text": text}),
            PeerMsg::Challenge(room) => json!({"type": "challenge", "room": room.as_str()}),
            PeerMsg::Accept => json!({"type": "accept"}),
            PeerMsg::Decline(reason) => json!({"type": "decline", "reason": reason.as_str()}),
            PeerMsg::Cancel => json!({"type": "cancel"}),
        }
        .to_string()
    }

    /// Parses what a peer sent: at most [`PEER_MESSAGE_MAX_BYTES`], one of
    /// the known shapes exactly, a valid room code, a chat line of at most
    /// 500 characters (returned cleaned).
    pub fn parse(text: &str) -> Result<PeerMsg, MessageError> {
        if text.len() > PEER_MESSAGE_MAX_BYTES {
            return Err(MessageError::TooLarge);
        }
        let v = parse_json(text)?;
        let (kind, m) = typed(
            &v,
            &[
                ("chat", &["text"], &[]),
                ("challenge", &["room"], &[]),
                ("accept", &[], &[]),
                ("decline", &["reason"], &[]),
                ("cancel", &[], &[]),
            ],
        )?;
        Ok(match kind {
            "chat" => PeerMsg::Chat(crate::text::incoming_chat(string(m, "text")?).map_err(
                |e| match e {
                    crate::text::ChatError::TooLong => MessageError::TooLarge,
                    _ => MessageError::BadValue,
                },
            )?),
            "challenge" => PeerMsg::Challenge(
                RoomCode::parse(string(m, "room")?).ok_or(MessageError::BadValue)?,
            ),
            "accept" => PeerMsg::Accept,
            "decline" => PeerMsg::Decline(
                DeclineReason::parse(string(m, "reason")?).ok_or(MessageError::Malformed)?,
            ),
            _ => PeerMsg::Cancel,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::id::RoomCode;

    #[test]
    fn peer_messages_round_trip() {
        let room = RoomCode::parse("K7M2QX").unwrap();
        for msg in [
            PeerMsg::Chat("שלום <b>".into()),
            PeerMsg::Challenge(room),
            PeerMsg::Accept,
            PeerMsg::Decline(DeclineReason::Busy),
            PeerMsg::Decline(DeclineReason::Mutual),
            PeerMsg::Cancel,
        ] {
            assert_eq!(PeerMsg::parse(&msg.encode()).unwrap(), msg);
        }
        assert_eq!(PeerMsg::Accept.encode(), r#"{"type":"accept"}"#);
    }

    #[test]
    fn malformed_peer_messages_are_refused() {
        use MessageError::*;
        let cases = [
            ("", Malformed),
            ("null", Malformed),
            ("[1,2]", Malformed),
            (r#"{"type":"chat"}"#, Malformed),
            (r#"{"type":"chat","text":5}"#, Malformed),
            (r#"{"type":"chat","text":"hi","extra":1}"#, Malformed),
            (r#"{"type":"shout","text":"hi"}"#, Malformed),
            (r#"{"type":"accept","x":1}"#, Malformed),
            (r#"{"type":"decline","reason":"bored"}"#, Malformed),
            (r#"{"type":"challenge","room":"../../"}"#, BadValue),
            (r#"{"type":"chat","text":"\u202e"}"#, BadValue),
        ];
        for (text, want) in cases {
            assert_eq!(PeerMsg::parse(text), Err(want), "{text}");
        }
    }

    #[test]
    fn oversized_peer_messages_are_refused() {
        let long = PeerMsg::Chat("a".repeat(501)).encode();
        assert_eq!(PeerMsg::parse(&long), Err(MessageError::TooLarge));
        let huge = format!(r#"{{"type":"chat","text":"{}"}}"#, "a".repeat(5000));
        assert_eq!(PeerMsg::parse(&huge), Err(MessageError::TooLarge));
        let ok = PeerMsg::Chat("ש".repeat(500)).encode();
        assert!(PeerMsg::parse(&ok).is_ok());
    }

    #[test]
    fn received_chat_is_cleaned() {
        let text = r#"{"type":"chat","text":"a\u202Eb\u0007c"}"#;
        assert_eq!(PeerMsg::parse(text).unwrap(), PeerMsg::Chat("abc".into()));
    }
}
