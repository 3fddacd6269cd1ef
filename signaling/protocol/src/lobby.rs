//! The lobby socket (`GET /lobby/ws`): presence and handshake relay.
//!
//! | direction | frames |
//! | --- | --- |
//! | page → lobby | `hello {id, nick}`, `status {status}`, `signal {to, data}`, `ping` ([`lobby_out`], read by [`LobbyRequest::parse`]) |
//! | lobby → page | `welcome {you, roster, lobby?}`, `joined {player}`, `left {id}`, `status {id, status}`, `signal {from, data}`, `full`, `error {reason}`, `pong` ([`lobby_server`], read by [`LobbyServerMsg::parse`]) |
//!
//! A `signal`'s `data` is one of two things, both opaque to the lobby,
//! which relays it untouched: a mesh handshake message ([`Signal`]), or a
//! lobby message between two pages whose mesh link is not open, `{"msg":
//! text}` with `text` exactly what the mesh would have carried (a
//! [`crate::PeerMsg`]'s encoding; see [`relayed_data`] and
//! [`relayed_text`]).

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;

use crate::id::{PeerId, PlayerTag};
use crate::json::{parse_json, shaped, string, to_json, typed, ErrorMsg, Incoming, TypeOnly};
use crate::limits::MAX_LOBBY_FRAME_BYTES;
use crate::room::Signal;
use crate::text::clean_name;
use crate::MessageError;

/// A player's state as the lobby shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum PlayerStatus {
    /// In the lobby and free to be challenged (`"lobby"`).
    #[serde(rename = "lobby")]
    Lobby,
    /// Playing a match (`"in-match"`).
    #[serde(rename = "in-match")]
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

    /// Reads `lobby` or `in-match`.
    #[must_use]
    pub fn parse(s: &str) -> Option<PlayerStatus> {
        match s {
            "lobby" => Some(PlayerStatus::Lobby),
            "in-match" => Some(PlayerStatus::InMatch),
            _ => None,
        }
    }

    fn from_value(v: &Value) -> Result<PlayerStatus, MessageError> {
        v.as_str()
            .and_then(PlayerStatus::parse)
            .ok_or(MessageError::BadValue)
    }
}

/// One roster entry, as the lobby sends it and the page reads it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RosterEntry {
    /// The player's id.
    pub id: PeerId,
    /// The player's name, cleaned by [`clean_name`].
    pub nick: String,
    /// The tag the lobby gave the player, shown as `nick#TAG`.
    pub tag: PlayerTag,
    /// Lobby or in a match.
    pub status: PlayerStatus,
}

impl RosterEntry {
    fn from_value(v: &Value) -> Result<RosterEntry, MessageError> {
        let p = shaped(v, &["id", "nick", "tag", "status"], &[])?;
        let id = peer_id(string(p, "id")?)?;
        let nick = clean_name(string(p, "nick")?).map_err(|_| MessageError::BadValue)?;
        let tag = PlayerTag::parse(string(p, "tag")?).ok_or(MessageError::BadValue)?;
        Ok(RosterEntry {
            id,
            nick,
            tag,
            status: PlayerStatus::from_value(&p["status"])?,
        })
    }
}

fn peer_id(s: &str) -> Result<PeerId, MessageError> {
    PeerId::parse(s).ok_or(MessageError::BadValue)
}

/// A frame from the lobby, as the page reads it.
#[derive(Debug, Clone, PartialEq)]
pub enum LobbyServerMsg {
    /// We joined; here is everyone, ourselves included, in join order.
    Welcome {
        /// Our id as the lobby knows it.
        you: PeerId,
        /// Everyone in the lobby.
        roster: Vec<RosterEntry>,
        /// The number of the lobby we were placed in (as `GET /lobbies`
        /// lists it), when the service says.
        lobby: Option<u32>,
    },
    /// Someone joined.
    Joined(RosterEntry),
    /// Someone left.
    Left(PeerId),
    /// Someone's status changed.
    Status(PeerId, PlayerStatus),
    /// A handshake message from another player (not yet validated: see
    /// [`Signal::from_value`]).
    Signal {
        /// The sender.
        from: PeerId,
        /// The payload as the peer sent it.
        data: Value,
    },
    /// The lobby has no room for us.
    Full,
    /// The lobby refused something we sent.
    Error(String),
    /// The answer to our heartbeat ([`crate::heartbeat::PONG`]).
    Pong,
}

impl LobbyServerMsg {
    /// Parses one text frame from the lobby socket, strictly.
    pub fn parse(text: &str) -> Result<LobbyServerMsg, MessageError> {
        if text.len() > MAX_LOBBY_FRAME_BYTES {
            return Err(MessageError::TooLarge);
        }
        let v = parse_json(text)?;
        let (kind, m) = typed(
            &v,
            &[
                ("welcome", &["you", "roster"], &["lobby"]),
                ("joined", &["player"], &[]),
                ("left", &["id"], &[]),
                ("status", &["id", "status"], &[]),
                ("signal", &["from", "data"], &[]),
                ("full", &[], &[]),
                ("error", &["reason"], &[]),
                ("pong", &[], &[]),
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
                    .filter_map(|p| RosterEntry::from_value(p).ok())
                    .collect(),
                lobby: match m.get("lobby") {
                    None => None,
                    Some(n) => Some(
                        n.as_u64()
                            .and_then(|n| u32::try_from(n).ok())
                            .ok_or(MessageError::BadValue)?,
                    ),
                },
            },
            "joined" => LobbyServerMsg::Joined(RosterEntry::from_value(&m["player"])?),
            "left" => LobbyServerMsg::Left(peer_id(string(m, "id")?)?),
            "status" => LobbyServerMsg::Status(
                peer_id(string(m, "id")?)?,
                PlayerStatus::from_value(&m["status"])?,
            ),
            "signal" => LobbyServerMsg::Signal {
                from: peer_id(string(m, "from")?)?,
                data: m["data"].clone(),
            },
            "full" => LobbyServerMsg::Full,
            "pong" => LobbyServerMsg::Pong,
            _ => LobbyServerMsg::Error(string(m, "reason")?.to_owned()),
        })
    }
}

/// The `signal` data that carries the lobby message `text` (a
/// [`crate::PeerMsg`]'s encoding) through the lobby: `{"msg": text}`.
#[must_use]
pub fn relayed_data(text: &str) -> Value {
    serde_json::json!({ "msg": text })
}

/// The lobby message a `signal`'s `data` carries, if it is of the
/// [`relayed_data`] kind: `None` for anything else (a handshake message, to
/// be read by [`Signal::from_value`]). An object with a `msg` key must hold
/// that key alone, a string (its own checks are the peer message's, by
/// [`crate::PeerMsg::parse`]); otherwise it is malformed.
#[must_use]
pub fn relayed_text(data: &Value) -> Option<Result<&str, MessageError>> {
    data.as_object().filter(|o| o.contains_key("msg"))?;
    Some(shaped(data, &["msg"], &[]).and_then(|m| string(m, "msg")))
}

/// Frames the page sends to the lobby.
pub mod lobby_out {
    use super::*;

    #[derive(Serialize)]
    struct Hello<'a> {
        #[serde(rename = "type")]
        kind: &'static str,
        id: &'a PeerId,
        nick: &'a str,
    }

    #[derive(Serialize)]
    struct Status {
        #[serde(rename = "type")]
        kind: &'static str,
        status: PlayerStatus,
    }

    #[derive(Serialize)]
    struct SignalTo<'a> {
        #[serde(rename = "type")]
        kind: &'static str,
        to: &'a PeerId,
        data: Value,
    }

    /// `hello`: join the roster.
    #[must_use]
    pub fn hello(id: &PeerId, nick: &str) -> String {
        to_json(&Hello {
            kind: "hello",
            id,
            nick,
        })
    }

    /// `status`: lobby or in a match.
    #[must_use]
    pub fn status(status: PlayerStatus) -> String {
        to_json(&Status {
            kind: "status",
            status,
        })
    }

    /// `signal`: relay handshake data to a player.
    #[must_use]
    pub fn signal(to: &PeerId, data: &Signal) -> String {
        to_json(&SignalTo {
            kind: "signal",
            to,
            data: data.to_value(),
        })
    }

    /// `signal` carrying the lobby message `text` ([`relayed_data`]) to a
    /// player whose mesh link is not open.
    #[must_use]
    pub fn relayed(to: &PeerId, text: &str) -> String {
        to_json(&SignalTo {
            kind: "signal",
            to,
            data: relayed_data(text),
        })
    }
}

/// Why the lobby refused a frame from the page. The lobby answers
/// `{"type":"error","reason":...}` with [`RequestError::reason`] and keeps
/// the socket.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RequestError {
    /// Not a JSON object with a string `type`.
    NotAnObject,
    /// A `type` this socket does not take.
    UnsupportedType,
    /// A `hello` whose id is not a [`PeerId`].
    BadId,
    /// A `hello` whose nick [`clean_name`] refuses.
    BadNick,
    /// A `status` that is not `lobby` or `in-match`.
    BadStatus,
    /// A `signal` without a string `to` and a `data` field.
    BadSignal,
}

impl RequestError {
    /// The `reason` text sent back.
    #[must_use]
    pub fn reason(self) -> &'static str {
        match self {
            RequestError::NotAnObject => "expected a JSON object with a string type",
            RequestError::UnsupportedType => "unsupported message type",
            RequestError::BadId => "id must be 12 characters from A-Z, a-z, 0-9",
            RequestError::BadNick => {
                "nick must be 1 to 20 characters, not blank, without #, control or bidi override characters"
            }
            RequestError::BadStatus => "status must be lobby or in-match",
            RequestError::BadSignal => "signal needs a string to and a data field",
        }
    }

    /// True for a malformed `status` or `signal` (which a socket that has not
    /// said hello is told to say hello first about, like a well-formed one).
    #[must_use]
    pub fn needs_hello(self) -> bool {
        matches!(self, RequestError::BadStatus | RequestError::BadSignal)
    }
}

/// A frame from the page, as the lobby reads it (tolerantly: unknown fields
/// are ignored).
#[derive(Debug, Clone)]
pub enum LobbyRequest<'a> {
    /// `hello {id, nick}`, with the nick cleaned.
    Hello {
        /// The id the page chose.
        id: PeerId,
        /// Its name, cleaned by [`clean_name`].
        nick: String,
    },
    /// `status {status}`.
    Status(PlayerStatus),
    /// `signal {to, data}`.
    Signal {
        /// The recipient's id as sent (it may name nobody).
        to: String,
        /// The payload, untouched, to relay byte for byte.
        data: &'a RawValue,
    },
    /// `ping`: a heartbeat, answered with [`crate::heartbeat::PONG`].
    Ping,
}

impl<'a> LobbyRequest<'a> {
    /// Reads one text frame (the size cap is the caller's, checked first).
    pub fn parse(text: &'a str) -> Result<LobbyRequest<'a>, RequestError> {
        let msg = Incoming::parse(text).ok_or(RequestError::NotAnObject)?;
        match msg.kind().as_deref() {
            Some("hello") => {
                let id = msg
                    .str_field("id")
                    .and_then(|id| PeerId::parse(&id))
                    .ok_or(RequestError::BadId)?;
                let nick = msg
                    .str_field("nick")
                    .and_then(|n| clean_name(&n).ok())
                    .ok_or(RequestError::BadNick)?;
                Ok(LobbyRequest::Hello { id, nick })
            }
            Some("status") => msg
                .str_field("status")
                .and_then(|s| PlayerStatus::parse(&s))
                .map(LobbyRequest::Status)
                .ok_or(RequestError::BadStatus),
            Some("signal") => match (msg.str_field("to"), msg.raw_field("data")) {
                (Some(to), Some(data)) => Ok(LobbyRequest::Signal { to, data }),
                _ => Err(RequestError::BadSignal),
            },
            Some("ping") => Ok(LobbyRequest::Ping),
            Some(_) => Err(RequestError::UnsupportedType),
            None => Err(RequestError::NotAnObject),
        }
    }
}

/// Frames the lobby sends to the page.
pub mod lobby_server {
    use super::*;

    #[derive(Serialize)]
    struct Welcome<'a> {
        #[serde(rename = "type")]
        kind: &'static str,
        you: &'a PeerId,
        roster: &'a [RosterEntry],
        #[serde(skip_serializing_if = "Option::is_none")]
        lobby: Option<u32>,
    }

    #[derive(Serialize)]
    struct Joined<'a> {
        #[serde(rename = "type")]
        kind: &'static str,
        player: &'a RosterEntry,
    }

    #[derive(Serialize)]
    struct Left<'a> {
        #[serde(rename = "type")]
        kind: &'static str,
        id: &'a PeerId,
    }

    #[derive(Serialize)]
    struct StatusChanged<'a> {
        #[serde(rename = "type")]
        kind: &'static str,
        id: &'a PeerId,
        status: PlayerStatus,
    }

    #[derive(Serialize)]
    struct SignalFrom<'a> {
        #[serde(rename = "type")]
        kind: &'static str,
        from: &'a PeerId,
        data: &'a RawValue,
    }

    /// `welcome {you, roster}`: the roster in join order, `you` included.
    #[must_use]
    pub fn welcome(you: &PeerId, roster: &[RosterEntry]) -> String {
        welcome_in(None, you, roster)
    }

    /// `welcome {you, roster, lobby}`: [`welcome`] saying which lobby of
    /// the directory this is (`None`: the field is left out).
    #[must_use]
    pub fn welcome_in(lobby: Option<u32>, you: &PeerId, roster: &[RosterEntry]) -> String {
        to_json(&Welcome {
            kind: "welcome",
            you,
            roster,
            lobby,
        })
    }

    /// `joined {player}`.
    #[must_use]
    pub fn joined(player: &RosterEntry) -> String {
        to_json(&Joined {
            kind: "joined",
            player,
        })
    }

    /// `left {id}`.
    #[must_use]
    pub fn left(id: &PeerId) -> String {
        to_json(&Left { kind: "left", id })
    }

    /// `status {id, status}`.
    #[must_use]
    pub fn status(id: &PeerId, status: PlayerStatus) -> String {
        to_json(&StatusChanged {
            kind: "status",
            id,
            status,
        })
    }

    /// `signal {from, data}`, with `data` exactly as the sender wrote it.
    #[must_use]
    pub fn signal(from: &PeerId, data: &RawValue) -> String {
        to_json(&SignalFrom {
            kind: "signal",
            from,
            data,
        })
    }

    /// `full`: the roster has no room.
    #[must_use]
    pub fn full() -> String {
        to_json(&TypeOnly { kind: "full" })
    }

    /// `error {reason}`.
    #[must_use]
    pub fn error(reason: &str) -> String {
        to_json(&ErrorMsg {
            kind: "error",
            reason,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::room::SignalKind;
    use serde_json::json;

    const A: &str = "AAAAAAAAAAAA";
    const B: &str = "BBBBBBBBBBBB";

    #[test]
    fn relayed_lobby_messages_are_told_from_handshakes_and_read_strictly() {
        let text = r#"{"type":"chat","text":"hi \"you\""}"#;
        let frame = lobby_out::relayed(&PeerId::parse(B).unwrap(), text);
        let v: Value = serde_json::from_str(&frame).unwrap();
        assert_eq!(v["type"], "signal");
        assert_eq!(relayed_text(&v["data"]), Some(Ok(text)));
        // A handshake message is not one.
        let offer = serde_json::json!({"type": "offer", "sdp": "v=0"});
        assert_eq!(relayed_text(&offer), None);
        assert_eq!(relayed_text(&Value::Null), None);
        for bad in [
            serde_json::json!({"msg": 5}),
            serde_json::json!({"msg": null}),
            serde_json::json!({"msg": "x", "type": "offer"}),
            serde_json::json!({"msg": "x", "extra": 1}),
        ] {
            assert_eq!(relayed_text(&bad), Some(Err(MessageError::Malformed)));
        }
    }

    #[test]
    fn lobby_server_messages_parse() {
        let welcome = format!(
            r#"{{"type":"welcome","you":"{A}","roster":[{{"id":"{B}","nick":"דנה","tag":"K7M","status":"in-match"}},{{"id":"bad","nick":"x","tag":"K7M","status":"lobby"}},{{"id":"{A}","nick":"x","tag":"K7","status":"lobby"}}]}}"#
        );
        match LobbyServerMsg::parse(&welcome).unwrap() {
            LobbyServerMsg::Welcome { you, roster, .. } => {
                assert_eq!(you.as_str(), A);
                assert_eq!(roster.len(), 1);
                assert_eq!(roster[0].nick, "דנה");
                assert_eq!(roster[0].tag.as_str(), "K7M");
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
        assert_eq!(
            LobbyServerMsg::parse(crate::heartbeat::PONG).unwrap(),
            LobbyServerMsg::Pong
        );
        assert!(matches!(
            LobbyRequest::parse(crate::heartbeat::PING),
            Ok(LobbyRequest::Ping)
        ));
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
}

/// One lobby in the directory (`GET /lobbies`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LobbyFill {
    /// The lobby's number: `GET /lobby/ws?lobby=N` joins it.
    pub lobby: u32,
    /// Players on its roster.
    pub players: u32,
    /// Players it holds at most.
    pub capacity: u32,
}

/// The answer to `GET /lobbies`: every lobby of the service with its fill,
/// by number.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LobbyDirectory {
    /// The lobbies, by number.
    pub lobbies: Vec<LobbyFill>,
}

impl LobbyDirectory {
    /// As JSON.
    #[must_use]
    pub fn to_json(&self) -> String {
        to_json(self)
    }

    /// Reads [`LobbyDirectory::to_json`]'s output strictly.
    pub fn parse(text: &str) -> Result<LobbyDirectory, MessageError> {
        serde_json::from_str(text).map_err(|_| MessageError::Malformed)
    }
}
