//! Rooms (`POST /rooms`, `GET /rooms/{code}/ws?role=host|guest`) and the
//! WebRTC handshake data that the lobby and rooms relay.
//!
//! | direction | frames |
//! | --- | --- |
//! | page → room | `offer`, `answer`, `ice` ([`Signal`], relayed verbatim), `done` ([`room_out`]), `relay-ticket` ([`crate::relay_out`]); all read by [`RoomRequest::parse`] |
//! | room → page | `peer-joined`, `error {reason}` ([`room_server`]), `relay-ticket {ticket, ttl}` ([`crate::relay_server`]), the other side's `offer`/`answer`/`ice`; all read by [`Signal::parse_room`] |

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::id::RoomCode;
use crate::json::{string, to_json, typed, ErrorMsg, Incoming, TypeOnly};
use crate::limits::{CANDIDATE_MAX_BYTES, MAX_MESSAGE_BYTES, SDP_MAX_BYTES, SDP_MID_MAX_BYTES};
use crate::lobby::RequestError;
use crate::MessageError;

/// Which side of a room a socket is (`role=host` or `role=guest`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The player who created the room and makes the offer.
    Host,
    /// The player who joins with the code.
    Guest,
}

impl Role {
    /// `"host"` or `"guest"`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Host => "host",
            Role::Guest => "guest",
        }
    }

    /// Reads `host` or `guest`.
    #[must_use]
    pub fn parse(s: &str) -> Option<Role> {
        match s {
            "host" => Some(Role::Host),
            "guest" => Some(Role::Guest),
            _ => None,
        }
    }
}

/// WebRTC handshake data, relayed through the lobby (inside `signal.data`)
/// or a room (as the frame itself, with `type` = `offer`, `answer`, `ice`).
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

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
enum SignalOut<'a> {
    Offer {
        attempt: u8,
        sdp: &'a str,
    },
    Answer {
        attempt: u8,
        sdp: &'a str,
    },
    Ice {
        attempt: u8,
        candidate: &'a str,
        #[serde(rename = "sdpMid")]
        sdp_mid: Option<&'a str>,
        #[serde(rename = "sdpMLineIndex")]
        sdp_m_line_index: Option<u16>,
    },
}

impl Signal {
    fn out(&self) -> SignalOut<'_> {
        let attempt = self.attempt;
        match &self.kind {
            SignalKind::Offer(sdp) => SignalOut::Offer { attempt, sdp },
            SignalKind::Answer(sdp) => SignalOut::Answer { attempt, sdp },
            SignalKind::Ice {
                candidate,
                sdp_mid,
                sdp_m_line_index,
            } => SignalOut::Ice {
                attempt,
                candidate,
                sdp_mid: sdp_mid.as_deref(),
                sdp_m_line_index: *sdp_m_line_index,
            },
        }
    }

    /// The JSON object for this handshake message.
    #[must_use]
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self.out()).unwrap_or(Value::Null)
    }

    /// Validates handshake data a peer sent: one of the three shapes
    /// exactly, within [`SDP_MAX_BYTES`] and [`CANDIDATE_MAX_BYTES`], attempt
    /// 1 or 2 (1 when absent).
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
                    || sdp_mid
                        .as_ref()
                        .is_some_and(|m| m.len() > SDP_MID_MAX_BYTES)
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

    /// Parses a frame from the room socket, as the page reads it: handshake
    /// data from the other side, or one of the room's own frames.
    pub fn parse_room(text: &str) -> Result<RoomServerMsg, MessageError> {
        if text.len() > MAX_MESSAGE_BYTES {
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
            Some(crate::relay::TICKET_TYPE) => {
                crate::relay::RelayTicketMsg::parse(text).map(RoomServerMsg::RelayTicket)
            }
            Some(_) => Signal::from_value(value).map(RoomServerMsg::Signal),
            None => Err(MessageError::Malformed),
        }
    }
}

/// A frame from the room socket, as the page reads it.
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
    /// This side's relay ticket, asked for with `relay-ticket`.
    RelayTicket(crate::relay::RelayTicketMsg),
}

/// Frames the page sends to a room.
pub mod room_out {
    use super::*;

    /// Handshake data, relayed verbatim to the other side.
    #[must_use]
    pub fn signal(data: &Signal) -> String {
        to_json(&data.out())
    }

    /// `done`: our match channels are open; the room may close.
    #[must_use]
    pub fn done() -> String {
        to_json(&TypeOnly { kind: "done" })
    }
}

/// A frame from the page, as the room reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RoomRequest {
    /// `offer`, `answer` or `ice`: relay the frame verbatim to the other
    /// side (the receiving page validates it).
    Relay,
    /// `done`: the match channels are open; end the room.
    Done,
    /// `ping`: a heartbeat, answered with [`crate::heartbeat::PONG`] and
    /// not relayed.
    Ping,
    /// `relay-ticket`: send this side its ticket for the match relay
    /// (see [`crate::relay`]).
    RelayTicket,
}

impl RoomRequest {
    /// Reads one text frame (the size cap is the caller's, checked first).
    /// Errors are [`RequestError::NotAnObject`] and
    /// [`RequestError::UnsupportedType`].
    pub fn parse(text: &str) -> Result<RoomRequest, RequestError> {
        let kind = Incoming::parse(text)
            .and_then(|m| m.kind())
            .ok_or(RequestError::NotAnObject)?;
        match kind.as_str() {
            "offer" | "answer" | "ice" => Ok(RoomRequest::Relay),
            "done" => Ok(RoomRequest::Done),
            "ping" => Ok(RoomRequest::Ping),
            crate::relay::TICKET_TYPE => Ok(RoomRequest::RelayTicket),
            _ => Err(RequestError::UnsupportedType),
        }
    }
}

/// Frames a room sends of its own (the rest is relayed).
pub mod room_server {
    use super::*;

    /// `peer-joined`: the guest is here (sent to the host).
    #[must_use]
    pub fn peer_joined() -> String {
        to_json(&TypeOnly {
            kind: "peer-joined",
        })
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

#[derive(Serialize)]
struct ErrorBody<'a> {
    error: &'a str,
}

/// The JSON body of an HTTP error: `{"error":"<reason>"}`.
#[must_use]
pub fn error_body(reason: &str) -> String {
    to_json(&ErrorBody { error: reason })
}

/// The answer to `POST /rooms`: `{"code":"K7M2QX","ttl":600}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoomCreated {
    /// The new room's code.
    pub code: RoomCode,
    /// Seconds until it expires.
    pub ttl: u64,
}

impl RoomCreated {
    /// The JSON body.
    #[must_use]
    pub fn to_json(&self) -> String {
        to_json(self)
    }

    /// Reads the body (strictly: a valid code and a whole number of seconds).
    pub fn parse(text: &str) -> Result<RoomCreated, MessageError> {
        if text.len() > MAX_MESSAGE_BYTES {
            return Err(MessageError::TooLarge);
        }
        serde_json::from_str(text).map_err(|_| MessageError::Malformed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
