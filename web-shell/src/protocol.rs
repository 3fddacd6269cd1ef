//! JSON messages: the lobby presence socket (issue 4's contract), the room
//! socket, the handshake data relayed between peers, and the peer-to-peer
//! messages of the lobby mesh (chat and challenges).
//!
//! Everything received is parsed strictly: size caps first, then exact
//! shapes (unknown fields and unknown types are refused), then the values
//! (ids, room codes, text). A refused message is dropped by the caller and
//! logged without its content; nothing here panics.
//!
//! Shapes are checked by hand over a parsed `serde_json::Value` rather than
//! with derived, internally tagged enums: that keeps the rules in one place
//! and saves about a fifth of the wasm (serde's buffering of tagged enums).

use crate::id::{PeerId, RoomCode};
use serde_json::{json, Map, Value};

/// Largest peer-to-peer lobby message accepted, in bytes.
pub const PEER_MESSAGE_MAX_BYTES: usize = 4096;
/// Largest message accepted from the lobby or room socket, in bytes (the
/// server caps at 8 KiB as well).
pub const SERVER_MESSAGE_MAX_BYTES: usize = 8192;
/// Largest SDP accepted in a relayed handshake message.
pub const SDP_MAX_BYTES: usize = 7000;
/// Largest ICE candidate line accepted.
pub const CANDIDATE_MAX_BYTES: usize = 1024;

/// Why a received message was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MessageError {
    /// Over the size cap.
    TooLarge,
    /// Not JSON, or not one of the known shapes.
    Malformed,
    /// The right shape with a bad value (an id, a code, a status).
    BadValue,
}

/// A player's state as the lobby shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlayerStatus {
    /// In the lobby and free to be challenged.
    Lobby,
    /// Playing a match.
    InMatch,
}

impl PlayerStatus {
    /// The wire name: `lobby` or `in-match`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            PlayerStatus::Lobby => "lobby",
            PlayerStatus::InMatch => "in-match",
        }
    }

    fn parse(v: &Value) -> Result<PlayerStatus, MessageError> {
        match v.as_str() {
            Some("lobby") => Ok(PlayerStatus::Lobby),
            Some("in-match") => Ok(PlayerStatus::InMatch),
            _ => Err(MessageError::BadValue),
        }
    }
}

/// A JSON object whose keys are exactly `required` plus any of `optional`.
fn shaped<'a>(
    v: &'a Value,
    required: &[&str],
    optional: &[&str],
) -> Result<&'a Map<String, Value>, MessageError> {
    let obj = v.as_object().ok_or(MessageError::Malformed)?;
    let known = |k: &str| required.contains(&k) || optional.contains(&k);
    if !obj.keys().all(|k| known(k)) || !required.iter().all(|k| obj.contains_key(*k)) {
        return Err(MessageError::Malformed);
    }
    Ok(obj)
}

fn string<'a>(obj: &'a Map<String, Value>, key: &str) -> Result<&'a str, MessageError> {
    obj.get(key)
        .and_then(Value::as_str)
        .ok_or(MessageError::Malformed)
}

/// The `type` of a message object, with the other keys checked against the
/// table of shapes `(type, required, optional)`.
fn typed<'a>(
    v: &'a Value,
    shapes: &[(&'a str, &[&str], &[&str])],
) -> Result<(&'a str, &'a Map<String, Value>), MessageError> {
    let kind = v
        .get("type")
        .and_then(Value::as_str)
        .ok_or(MessageError::Malformed)?;
    let (name, required, optional) = shapes
        .iter()
        .find(|(t, ..)| *t == kind)
        .ok_or(MessageError::Malformed)?;
    let mut req: Vec<&str> = required.to_vec();
    req.push("type");
    Ok((name, shaped(v, &req, optional)?))
}

fn parse_json(text: &str) -> Result<Value, MessageError> {
    serde_json::from_str(text).map_err(|_| MessageError::Malformed)
}

/// One roster entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RosterEntry {
    /// The player's id.
    pub id: PeerId,
    /// The player's name.
    pub nick: String,
    /// Lobby or in a match.
    pub status: PlayerStatus,
}

/// A message from the lobby server.
#[derive(Debug, Clone, PartialEq)]
pub enum LobbyServerMsg {
    /// We joined; here is everyone (ourselves included or not).
    Welcome {
        /// Our id as the server knows it.
        you: PeerId,
        /// Everyone in the lobby.
        roster: Vec<RosterEntry>,
    },
    /// Someone joined.
    Joined(RosterEntry),
    /// Someone left.
    Left(PeerId),
    /// Someone's status changed.
    Status(PeerId, PlayerStatus),
    /// A handshake message from another player (not yet validated).
    Signal {
        /// The sender.
        from: PeerId,
        /// The payload as the peer sent it.
        data: Value,
    },
    /// The lobby has no room for us.
    Full,
    /// The server refused something we sent.
    Error(String),
}

fn entry(v: &Value) -> Result<RosterEntry, MessageError> {
    let p = shaped(v, &["id", "nick", "status"], &[])?;
    let id = peer_id(string(p, "id")?)?;
    let nick = crate::text::clean_name(string(p, "nick")?).map_err(|_| MessageError::BadValue)?;
    Ok(RosterEntry {
        id,
        nick,
        status: PlayerStatus::parse(&p["status"])?,
    })
}

fn peer_id(s: &str) -> Result<PeerId, MessageError> {
    PeerId::parse(s).ok_or(MessageError::BadValue)
}

impl LobbyServerMsg {
    /// Parses one text frame from the lobby socket.
    pub fn parse(text: &str) -> Result<LobbyServerMsg, MessageError> {
        if text.len() > SERVER_MESSAGE_MAX_BYTES * 8 {
            // A welcome carries up to 16 players; anything far beyond that is not ours.
            return Err(MessageError::TooLarge);
        }
        let v = parse_json(text)?;
        let (kind, m) = typed(
            &v,
            &[
                ("welcome", &["you", "roster"], &[]),
                ("joined", &["player"], &[]),
                ("left", &["id"], &[]),
                ("status", &["id", "status"], &[]),
                ("signal", &["from", "data"], &[]),
                ("full", &[], &[]),
                ("error", &["reason"], &[]),
            ],
        )?;
        Ok(match kind {
            "welcome" => LobbyServerMsg::Welcome {
                you: peer_id(string(m, "you")?)?,
                // A bad entry is left out rather than losing the whole roster.
                roster: m["roster"]
                    .as_array()
                    .ok_or(MessageError::Malformed)?
                    .iter()
                    .filter_map(|p| entry(p).ok())
                    .collect(),
            },
            "joined" => LobbyServerMsg::Joined(entry(&m["player"])?),
            "left" => LobbyServerMsg::Left(peer_id(string(m, "id")?)?),
            "status" => LobbyServerMsg::Status(
                peer_id(string(m, "id")?)?,
                PlayerStatus::parse(&m["status"])?,
            ),
            "signal" => LobbyServerMsg::Signal {
                from: peer_id(string(m, "from")?)?,
                data: m["data"].clone(),
            },
            "full" => LobbyServerMsg::Full,
            _ => LobbyServerMsg::Error(string(m, "reason")?.to_owned()),
        })
    }
}

/// A message to the lobby server, as a JSON text frame.
pub mod lobby_out {
    use super::*;

    /// `hello`: join the roster.
    #[must_use]
    pub fn hello(id: &PeerId, nick: &str) -> String {
        json!({"type": "hello", "id": id.as_str(), "nick": nick}).to_string()
    }

    /// `status`: lobby or in a match.
    #[must_use]
    pub fn status(status: PlayerStatus) -> String {
        json!({"type": "status", "status": status.as_str()}).to_string()
    }

    /// `signal`: relay handshake data to a player.
    #[must_use]
    pub fn signal(to: &PeerId, data: &Signal) -> String {
        json!({"type": "signal", "to": to.as_str(), "data": data.to_value()}).to_string()
    }
}

/// WebRTC handshake data, relayed through the lobby (inside `signal.data`)
/// or the room (as the message itself, with `type` = `offer`, `answer`,
/// `ice`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SignalKind {
    /// An SDP offer.
    Offer(String),
    /// An SDP answer.
    Answer(String),
    /// A trickled ICE candidate (an empty candidate ends the trickle).
    Ice {
        /// The candidate line.
        candidate: String,
        /// Its media id.
        sdp_mid: Option<String>,
        /// Its media line index.
        sdp_m_line_index: Option<u16>,
    },
}

/// Handshake data with the connection attempt it belongs to (the lobby mesh
/// retries a pair once; stale messages of an earlier attempt are ignored).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signal {
    /// 1 for the first attempt, 2 for the retry. Always 1 in rooms.
    pub attempt: u8,
    /// What is carried.
    pub kind: SignalKind,
}

impl Signal {
    /// The JSON object for this handshake message.
    #[must_use]
    pub fn to_value(&self) -> Value {
        let attempt = self.attempt;
        match &self.kind {
            SignalKind::Offer(sdp) => json!({"type": "offer", "attempt": attempt, "sdp": sdp}),
            SignalKind::Answer(sdp) => json!({"type": "answer", "attempt": attempt, "sdp": sdp}),
            SignalKind::Ice {
                candidate,
                sdp_mid,
                sdp_m_line_index,
            } => json!({
                "type": "ice",
                "attempt": attempt,
                "candidate": candidate,
                "sdpMid": sdp_mid,
                "sdpMLineIndex": sdp_m_line_index,
            }),
        }
    }

    /// Validates handshake data a peer sent.
    pub fn from_value(value: Value) -> Result<Signal, MessageError> {
        let (kind, m) = typed(
            &value,
            &[
                ("offer", &["sdp"], &["attempt"]),
                ("answer", &["sdp"], &["attempt"]),
                (
                    "ice",
                    &["candidate"],
                    &["attempt", "sdpMid", "sdpMLineIndex"],
                ),
            ],
        )?;
        let attempt = match m.get("attempt") {
            None => 1,
            Some(a) => a.as_u64().ok_or(MessageError::Malformed)?,
        };
        let kind = match kind {
            "offer" => SignalKind::Offer(string(m, "sdp")?.to_owned()),
            "answer" => SignalKind::Answer(string(m, "sdp")?.to_owned()),
            _ => SignalKind::Ice {
                candidate: string(m, "candidate")?.to_owned(),
                sdp_mid: match m.get("sdpMid") {
                    None | Some(Value::Null) => None,
                    Some(v) => Some(v.as_str().ok_or(MessageError::Malformed)?.to_owned()),
                },
                sdp_m_line_index: match m.get("sdpMLineIndex") {
                    None | Some(Value::Null) => None,
                    Some(v) => Some(
                        v.as_u64()
                            .and_then(|n| u16::try_from(n).ok())
                            .ok_or(MessageError::Malformed)?,
                    ),
                },
            },
        };
        let too_big = match &kind {
            SignalKind::Offer(sdp) | SignalKind::Answer(sdp) => sdp.len() > SDP_MAX_BYTES,
            SignalKind::Ice {
                candidate, sdp_mid, ..
            } => {
                candidate.len() > CANDIDATE_MAX_BYTES
                    || sdp_mid.as_ref().is_some_and(|m| m.len() > 64)
            }
        };
        if too_big {
            return Err(MessageError::TooLarge);
        }
        let attempt = u8::try_from(attempt)
            .ok()
            .filter(|a| (1..=2).contains(a))
            .ok_or(MessageError::BadValue)?;
        Ok(Signal { attempt, kind })
    }

    /// Parses a room socket frame that carries handshake data. Other room
    /// frames (`peer-joined`, `error`) come back as [`RoomServerMsg`].
    pub fn parse_room(text: &str) -> Result<RoomServerMsg, MessageError> {
        if text.len() > SERVER_MESSAGE_MAX_BYTES {
            return Err(MessageError::TooLarge);
        }
        let value: Value = serde_json::from_str(text).map_err(|_| MessageError::Malformed)?;
        match value.get("type").and_then(Value::as_str) {
            Some("peer-joined") => Ok(RoomServerMsg::PeerJoined),
            Some("error") => Ok(RoomServerMsg::Error(
                value
                    .get("reason")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned(),
            )),
            Some("done") => Ok(RoomServerMsg::Done),
            Some(_) => Signal::from_value(value).map(RoomServerMsg::Signal),
            None => Err(MessageError::Malformed),
        }
    }
}

/// A frame from the room socket.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RoomServerMsg {
    /// The guest connected (sent to the host).
    PeerJoined,
    /// Handshake data from the other side.
    Signal(Signal),
    /// The other side said the match channels are open.
    Done,
    /// The room refused something.
    Error(String),
}

/// Room socket frames we send.
pub mod room_out {
    use super::*;

    /// Handshake data, relayed verbatim to the other side.
    #[must_use]
    pub fn signal(data: &Signal) -> String {
        data.to_value().to_string()
    }

    /// `done`: our match channels are open; the room may close.
    #[must_use]
    pub fn done() -> String {
        json!({"type": "done"}).to_string()
    }
}

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

    const A: &str = "AAAAAAAAAAAA";
    const B: &str = "BBBBBBBBBBBB";

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

    #[test]
    fn lobby_server_messages_parse() {
        let welcome = format!(
            r#"{{"type":"welcome","you":"{A}","roster":[{{"id":"{B}","nick":"דנה","status":"in-match"}},{{"id":"bad","nick":"x","status":"lobby"}}]}}"#
        );
        match LobbyServerMsg::parse(&welcome).unwrap() {
            LobbyServerMsg::Welcome { you, roster } => {
                assert_eq!(you.as_str(), A);
                assert_eq!(roster.len(), 1);
                assert_eq!(roster[0].nick, "דנה");
                assert_eq!(roster[0].status, PlayerStatus::InMatch);
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(
            LobbyServerMsg::parse(r#"{"type":"full"}"#).unwrap(),
            LobbyServerMsg::Full
        );
        assert_eq!(
            LobbyServerMsg::parse(&format!(r#"{{"type":"left","id":"{B}"}}"#)).unwrap(),
            LobbyServerMsg::Left(PeerId::parse(B).unwrap())
        );
        assert!(LobbyServerMsg::parse(r#"{"type":"left","id":"short"}"#).is_err());
        assert!(
            LobbyServerMsg::parse(r#"{"type":"status","id":"AAAAAAAAAAAA","status":"away"}"#)
                .is_err()
        );
        assert!(LobbyServerMsg::parse("not json").is_err());
    }

    #[test]
    fn client_messages_have_the_contract_shape() {
        let id = PeerId::parse(A).unwrap();
        let v: Value = serde_json::from_str(&lobby_out::hello(&id, "Ada")).unwrap();
        assert_eq!(v, json!({"type":"hello","id":A,"nick":"Ada"}));
        let v: Value = serde_json::from_str(&lobby_out::status(PlayerStatus::InMatch)).unwrap();
        assert_eq!(v, json!({"type":"status","status":"in-match"}));
        let sig = Signal {
            attempt: 2,
            kind: SignalKind::Offer("v=0".into()),
        };
        let v: Value = serde_json::from_str(&lobby_out::signal(&id, &sig)).unwrap();
        assert_eq!(
            v,
            json!({"type":"signal","to":A,"data":{"type":"offer","attempt":2,"sdp":"v=0"}})
        );
    }

    #[test]
    fn signals_round_trip_and_are_validated() {
        let ice = Signal {
            attempt: 1,
            kind: SignalKind::Ice {
                candidate: "candidate:1 1 udp 1 127.0.0.1 5000 typ host".into(),
                sdp_mid: Some("0".into()),
                sdp_m_line_index: Some(0),
            },
        };
        assert_eq!(Signal::from_value(ice.to_value()).unwrap(), ice);
        assert_eq!(
            Signal::parse_room(&room_out::signal(&ice)).unwrap(),
            RoomServerMsg::Signal(ice)
        );
        assert_eq!(
            Signal::parse_room(r#"{"type":"peer-joined"}"#).unwrap(),
            RoomServerMsg::PeerJoined
        );
        assert!(Signal::from_value(json!({"type":"offer","sdp":"x".repeat(8000)})).is_err());
        assert!(Signal::from_value(json!({"type":"offer","sdp":"x","attempt":9})).is_err());
        assert!(Signal::from_value(json!({"type":"offer"})).is_err());
        assert!(Signal::from_value(json!("offer")).is_err());
        // A browser's null sdpMid is fine.
        assert!(Signal::from_value(json!({"type":"ice","candidate":"","sdpMid":null})).is_ok());
    }
}
