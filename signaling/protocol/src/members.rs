//! Member rooms: one room holding a whole match's members, up to
//! [`MAX_ROOM_PLAYERS`] players (the host among them) and
//! [`MAX_ROOM_SPECTATORS`] spectators, where every member can address
//! handshake messages to any other by its member id, so that each pair
//! builds its own peer connection.
//!
//! A room is a member room when `POST /rooms?players=N` created it
//! ([`RoomCapacity::from_query`]); without `players` it is the two-seat
//! room of [`crate::room`], unchanged.
//!
//! | direction | frames |
//! | --- | --- |
//! | page → room | `signal {to, data}`, `relay-ticket {to}`, `done`, `ping` ([`member_out`], read by [`MemberRequest::parse`]) |
//! | room → page | `welcome {you, role, members}`, `member-joined {member}`, `member-left {id}`, `signal {from, data}`, `relay-ticket {ticket, ttl}` ([`crate::relay_server::ticket`]), `error {reason}`, `pong` ([`member_server`], read by [`MemberServerMsg::parse`]) |

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;

use crate::json::{parse_json, string, to_json, typed, ErrorMsg, Incoming, TypeOnly};
use crate::limits::{MAX_MESSAGE_BYTES, MAX_ROOM_PLAYERS, MAX_ROOM_SPECTATORS};
use crate::room::Role;
use crate::MessageError;

/// The role a socket asks for in `GET /rooms/<code>/ws?role=...`: `host`
/// or `guest` in a two-seat room; `host`, `player` or `spectator` in a
/// member room.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JoinRole {
    /// The room's creator (both kinds of room).
    Host,
    /// The other side of a two-seat room.
    Guest,
    /// A player of a member room.
    Player,
    /// A spectator of a member room.
    Spectator,
}

impl JoinRole {
    /// Reads `host`, `guest`, `player` or `spectator`.
    #[must_use]
    pub fn parse(s: &str) -> Option<JoinRole> {
        match s {
            "host" => Some(JoinRole::Host),
            "guest" => Some(JoinRole::Guest),
            "player" => Some(JoinRole::Player),
            "spectator" => Some(JoinRole::Spectator),
            _ => None,
        }
    }
}

impl From<Role> for JoinRole {
    fn from(role: Role) -> JoinRole {
        match role {
            Role::Host => JoinRole::Host,
            Role::Guest => JoinRole::Guest,
        }
    }
}

/// What a member of a member room is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MemberRole {
    /// The player who created the room: always member 0.
    Host,
    /// Another player: members 1 to 7.
    Player,
    /// A spectator: members 8 to 23.
    Spectator,
}

impl MemberRole {
    /// `"host"`, `"player"` or `"spectator"`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            MemberRole::Host => "host",
            MemberRole::Player => "player",
            MemberRole::Spectator => "spectator",
        }
    }
}

/// A member's id in its room. Players hold the ids of their slots, 0 (the
/// host) to 7; spectators hold 8 to 23. An id is given to the lowest free
/// place of the role when a socket joins and freed when it leaves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct MemberId(pub u8);

impl MemberId {
    /// The host's id.
    pub const HOST: MemberId = MemberId(0);
    /// The first spectator's id (spectators follow the eight player slots).
    pub const FIRST_SPECTATOR: u8 = MAX_ROOM_PLAYERS;
    /// One past the last id any member can hold.
    pub const END: u8 = MAX_ROOM_PLAYERS + MAX_ROOM_SPECTATORS;

    /// The role that holds this id, or `None` for an id no member can hold.
    #[must_use]
    pub fn role(self) -> Option<MemberRole> {
        match self.0 {
            0 => Some(MemberRole::Host),
            n if n < Self::FIRST_SPECTATOR => Some(MemberRole::Player),
            n if n < Self::END => Some(MemberRole::Spectator),
            _ => None,
        }
    }

    /// Reads a member id from JSON: a whole number below [`MemberId::END`].
    #[must_use]
    pub fn from_value(v: &Value) -> Option<MemberId> {
        v.as_u64()
            .and_then(|n| u8::try_from(n).ok())
            .map(MemberId)
            .filter(|id| id.role().is_some())
    }
}

/// How many players (the host included) and spectators a member room
/// holds, as `POST /rooms?players=N&spectators=M` asked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoomCapacity {
    /// Player places, 2 to [`MAX_ROOM_PLAYERS`].
    pub players: u8,
    /// Spectator places, 0 to [`MAX_ROOM_SPECTATORS`].
    pub spectators: u8,
}

/// Why `POST /rooms` refused its query (400).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CapacityError {
    /// `players` is not a whole number from 2 to 8.
    Players,
    /// `spectators` is not a whole number from 0 to 16, or came without
    /// `players`.
    Spectators,
}

impl CapacityError {
    /// The `error` text of the JSON body.
    #[must_use]
    pub fn reason(self) -> &'static str {
        match self {
            CapacityError::Players => "players must be a whole number from 2 to 8",
            CapacityError::Spectators => {
                "spectators must be a whole number from 0 to 16, with players"
            }
        }
    }
}

impl RoomCapacity {
    /// Reads `players` and `spectators` from `POST /rooms`' query string
    /// (as [`crate::query_param`] reads it). No `players`: `Ok(None)`, a
    /// two-seat room. `spectators` defaults to [`MAX_ROOM_SPECTATORS`].
    pub fn from_query(query: &str) -> Result<Option<RoomCapacity>, CapacityError> {
        let number = |name: &str, low: u8, high: u8| {
            crate::query_param(query, name).map(|v| {
                // Digits only, so `+3` or ` 3` are refused as written.
                v.bytes()
                    .all(|b| b.is_ascii_digit())
                    .then(|| v.parse::<u8>().ok())
                    .flatten()
                    .filter(|n| (low..=high).contains(n))
            })
        };
        let players = match number("players", 2, MAX_ROOM_PLAYERS) {
            None => {
                return match crate::query_param(query, "spectators") {
                    None => Ok(None),
                    Some(_) => Err(CapacityError::Spectators),
                }
            }
            Some(None) => return Err(CapacityError::Players),
            Some(Some(n)) => n,
        };
        let spectators = match number("spectators", 0, MAX_ROOM_SPECTATORS) {
            None => MAX_ROOM_SPECTATORS,
            Some(None) => return Err(CapacityError::Spectators),
            Some(Some(n)) => n,
        };
        Ok(Some(RoomCapacity {
            players,
            spectators,
        }))
    }

    /// The ids a member of `role` may hold in this room, lowest first.
    pub fn ids(self, role: MemberRole) -> impl Iterator<Item = MemberId> {
        let range = match role {
            MemberRole::Host => 0..1,
            MemberRole::Player => 1..self.players,
            MemberRole::Spectator => {
                MemberId::FIRST_SPECTATOR..MemberId::FIRST_SPECTATOR + self.spectators
            }
        };
        range.map(MemberId)
    }
}

/// The answer to `POST /rooms?players=N`:
/// `{"code":"K7M2QX","ttl":600,"players":8,"spectators":16}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemberRoomCreated {
    /// The new room's code.
    pub code: crate::RoomCode,
    /// Seconds until it expires.
    pub ttl: u64,
    /// Player places (the host's included).
    pub players: u8,
    /// Spectator places.
    pub spectators: u8,
}

impl MemberRoomCreated {
    /// The JSON body.
    #[must_use]
    pub fn to_json(&self) -> String {
        to_json(self)
    }

    /// Reads the body.
    pub fn parse(text: &str) -> Result<MemberRoomCreated, MessageError> {
        if text.len() > MAX_MESSAGE_BYTES {
            return Err(MessageError::TooLarge);
        }
        serde_json::from_str(text).map_err(|_| MessageError::Malformed)
    }
}

/// A member as the room lists it: `{"id":3,"role":"player"}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemberEntry {
    /// Its id.
    pub id: MemberId,
    /// Its role.
    pub role: MemberRole,
}

impl MemberEntry {
    /// The entry of the member holding `id` (its role follows from the id).
    #[must_use]
    pub fn of(id: MemberId) -> Option<MemberEntry> {
        id.role().map(|role| MemberEntry { id, role })
    }

    fn from_value(v: &Value) -> Result<MemberEntry, MessageError> {
        let (id, role) = (v.get("id"), v.get("role"));
        let obj = v.as_object().ok_or(MessageError::Malformed)?;
        if obj.len() != 2 {
            return Err(MessageError::Malformed);
        }
        let id = id
            .and_then(MemberId::from_value)
            .ok_or(MessageError::BadValue)?;
        let role: MemberRole = role
            .cloned()
            .and_then(|r| serde_json::from_value(r).ok())
            .ok_or(MessageError::BadValue)?;
        // The role is the id's: anything else is not what a room sends.
        if id.role() != Some(role) {
            return Err(MessageError::BadValue);
        }
        Ok(MemberEntry { id, role })
    }
}

/// A frame from a member, as the room reads it (tolerantly: unknown fields
/// are ignored, `data` stays raw).
#[derive(Debug, Clone, Copy)]
pub enum MemberRequest<'a> {
    /// `signal {to, data}`: relay `data` to member `to`.
    Signal {
        /// The recipient (it may hold nobody).
        to: MemberId,
        /// The payload, untouched, to relay byte for byte.
        data: &'a RawValue,
    },
    /// `relay-ticket {to}`: send me my ticket for the relay of my pair
    /// with member `to` (see [`crate::relay`]).
    RelayTicket {
        /// The other end of the pair (it may hold nobody).
        to: MemberId,
    },
    /// `done`: from the host, the room ends; from another member, it
    /// leaves.
    Done,
    /// `ping`: answered with [`crate::heartbeat::PONG`].
    Ping,
}

/// Why a member room refused a frame (answered with `error {reason}`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemberRequestError {
    /// Not a JSON object with a string `type`.
    NotAnObject,
    /// A `type` a member room does not take.
    UnsupportedType,
    /// A `signal` without a member id `to` (0 to 23) and a `data` field.
    BadSignal,
    /// An `offer`, `answer` or `ice` frame of the two-seat room: in a member
    /// room it must go inside a `signal` naming its recipient.
    Unaddressed,
    /// `relay-ticket` without a member id `to` (0 to 23): a member room
    /// has a relay per pair of members, not one for the room.
    RelayTicketWithoutTo,
}

impl MemberRequestError {
    /// The `reason` text sent back.
    #[must_use]
    pub fn reason(self) -> &'static str {
        match self {
            MemberRequestError::NotAnObject => "expected a JSON object with a string type",
            MemberRequestError::UnsupportedType => "unsupported message type",
            MemberRequestError::BadSignal => "signal needs a member id to and a data field",
            MemberRequestError::Unaddressed => {
                "in a member room, send handshake data as signal with a member id to"
            }
            MemberRequestError::RelayTicketWithoutTo => {
                "in a member room, ask for relay-ticket with the member id to of the other end"
            }
        }
    }
}

impl<'a> MemberRequest<'a> {
    /// Reads one text frame (the size cap is the caller's, checked first).
    pub fn parse(text: &'a str) -> Result<MemberRequest<'a>, MemberRequestError> {
        let msg = Incoming::parse(text).ok_or(MemberRequestError::NotAnObject)?;
        match msg.kind().as_deref() {
            Some("signal") => {
                let to = msg
                    .raw_field("to")
                    .and_then(|raw| serde_json::from_str::<Value>(raw.get()).ok())
                    .and_then(|v| MemberId::from_value(&v));
                match (to, msg.raw_field("data")) {
                    (Some(to), Some(data)) => Ok(MemberRequest::Signal { to, data }),
                    _ => Err(MemberRequestError::BadSignal),
                }
            }
            Some("done") => Ok(MemberRequest::Done),
            Some("ping") => Ok(MemberRequest::Ping),
            Some("offer" | "answer" | "ice") => Err(MemberRequestError::Unaddressed),
            Some(crate::relay::TICKET_TYPE) => msg
                .raw_field("to")
                .and_then(|raw| serde_json::from_str::<Value>(raw.get()).ok())
                .and_then(|v| MemberId::from_value(&v))
                .map(|to| MemberRequest::RelayTicket { to })
                .ok_or(MemberRequestError::RelayTicketWithoutTo),
            Some(_) => Err(MemberRequestError::UnsupportedType),
            None => Err(MemberRequestError::NotAnObject),
        }
    }
}

/// Frames a member sends to its room.
pub mod member_out {
    use super::*;

    #[derive(Serialize)]
    struct SignalTo<'a> {
        #[serde(rename = "type")]
        kind: &'static str,
        to: MemberId,
        data: &'a Value,
    }

    /// `signal {to, data}`: handshake data (or anything else) for one
    /// member.
    #[must_use]
    pub fn signal(to: MemberId, data: &Value) -> String {
        to_json(&SignalTo {
            kind: "signal",
            to,
            data,
        })
    }

    #[derive(Serialize)]
    struct TicketTo {
        #[serde(rename = "type")]
        kind: &'static str,
        to: MemberId,
    }

    /// `relay-ticket {to}`: ask for this member's ticket for the relay of
    /// its pair with member `to`.
    #[must_use]
    pub fn relay_ticket(to: MemberId) -> String {
        to_json(&TicketTo {
            kind: crate::relay::TICKET_TYPE,
            to,
        })
    }

    /// `done`: the host ends the room; another member leaves it.
    #[must_use]
    pub fn done() -> String {
        to_json(&TypeOnly { kind: "done" })
    }
}

/// Frames a member room sends.
pub mod member_server {
    use super::*;

    #[derive(Serialize)]
    struct Welcome<'a> {
        #[serde(rename = "type")]
        kind: &'static str,
        you: MemberId,
        role: MemberRole,
        members: &'a [MemberEntry],
    }

    #[derive(Serialize)]
    struct Joined {
        #[serde(rename = "type")]
        kind: &'static str,
        member: MemberEntry,
    }

    #[derive(Serialize)]
    struct Left {
        #[serde(rename = "type")]
        kind: &'static str,
        id: MemberId,
    }

    #[derive(Serialize)]
    struct SignalFrom<'a> {
        #[serde(rename = "type")]
        kind: &'static str,
        from: MemberId,
        data: &'a RawValue,
    }

    /// `welcome {you, role, members}`: sent to a member as it joins;
    /// `members` lists everyone present, it included, by id.
    #[must_use]
    pub fn welcome(you: MemberEntry, members: &[MemberEntry]) -> String {
        to_json(&Welcome {
            kind: "welcome",
            you: you.id,
            role: you.role,
            members,
        })
    }

    /// `member-joined {member}`: sent to every other member.
    #[must_use]
    pub fn joined(member: MemberEntry) -> String {
        to_json(&Joined {
            kind: "member-joined",
            member,
        })
    }

    /// `member-left {id}`: sent to every other member.
    #[must_use]
    pub fn left(id: MemberId) -> String {
        to_json(&Left {
            kind: "member-left",
            id,
        })
    }

    /// `signal {from, data}`, with `data` exactly as the sender wrote it.
    #[must_use]
    pub fn signal(from: MemberId, data: &RawValue) -> String {
        to_json(&SignalFrom {
            kind: "signal",
            from,
            data,
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

/// A frame from a member room, as a page reads it (strictly).
#[derive(Debug, Clone, PartialEq)]
pub enum MemberServerMsg {
    /// This socket joined as `you`; `members` is everyone present.
    Welcome {
        /// This socket's member entry.
        you: MemberEntry,
        /// Everyone present, `you` included, by id.
        members: Vec<MemberEntry>,
    },
    /// Another member joined.
    Joined(MemberEntry),
    /// A member left.
    Left(MemberId),
    /// Data a member addressed to this one.
    Signal {
        /// Who sent it.
        from: MemberId,
        /// What it sent (the page validates it, e.g. with
        /// [`crate::Signal::from_value`]).
        data: Value,
    },
    /// This member's ticket for the relay of one of its pairs, asked for
    /// with [`member_out::relay_ticket`] (the ticket names the pair).
    RelayTicket(crate::relay::RelayTicketMsg),
    /// The room refused the last frame.
    Error(String),
    /// The answer to `ping`.
    Pong,
}

impl MemberServerMsg {
    /// Parses one text frame from a member room, strictly.
    pub fn parse(text: &str) -> Result<MemberServerMsg, MessageError> {
        if text.len() > MAX_MESSAGE_BYTES {
            return Err(MessageError::TooLarge);
        }
        let v = parse_json(text)?;
        if v.get("type").and_then(Value::as_str) == Some(crate::relay::TICKET_TYPE) {
            return crate::relay::RelayTicketMsg::parse(text).map(MemberServerMsg::RelayTicket);
        }
        let (kind, m) = typed(
            &v,
            &[
                ("welcome", &["you", "role", "members"], &[]),
                ("member-joined", &["member"], &[]),
                ("member-left", &["id"], &[]),
                ("signal", &["from", "data"], &[]),
                ("error", &["reason"], &[]),
                ("pong", &[], &[]),
            ],
        )?;
        let id = |key: &str| MemberId::from_value(&m[key]).ok_or(MessageError::BadValue);
        Ok(match kind {
            "welcome" => {
                let you = MemberEntry::from_value(&serde_json::json!({
                    "id": m["you"], "role": m["role"],
                }))?;
                let members = m["members"]
                    .as_array()
                    .ok_or(MessageError::Malformed)?
                    .iter()
                    .map(MemberEntry::from_value)
                    .collect::<Result<Vec<_>, _>>()?;
                MemberServerMsg::Welcome { you, members }
            }
            "member-joined" => MemberServerMsg::Joined(MemberEntry::from_value(&m["member"])?),
            "member-left" => MemberServerMsg::Left(id("id")?),
            "signal" => MemberServerMsg::Signal {
                from: id("from")?,
                data: m["data"].clone(),
            },
            "pong" => MemberServerMsg::Pong,
            _ => MemberServerMsg::Error(string(m, "reason")?.to_owned()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn capacity_is_read_from_the_query() {
        assert_eq!(RoomCapacity::from_query(""), Ok(None));
        assert_eq!(
            RoomCapacity::from_query("players=8"),
            Ok(Some(RoomCapacity {
                players: 8,
                spectators: 16
            }))
        );
        assert_eq!(
            RoomCapacity::from_query("?players=2&spectators=0"),
            Ok(Some(RoomCapacity {
                players: 2,
                spectators: 0
            }))
        );
        for bad in [
            "players=1",
            "players=9",
            "players=",
            "players=+3",
            "players=x",
        ] {
            assert_eq!(
                RoomCapacity::from_query(bad),
                Err(CapacityError::Players),
                "{bad}"
            );
        }
        for bad in [
            "players=4&spectators=17",
            "spectators=3",
            "players=4&spectators=-1",
        ] {
            assert_eq!(
                RoomCapacity::from_query(bad),
                Err(CapacityError::Spectators),
                "{bad}"
            );
        }
    }

    #[test]
    fn ids_follow_the_roles() {
        let cap = RoomCapacity {
            players: 3,
            spectators: 2,
        };
        let ids = |r| cap.ids(r).map(|m| m.0).collect::<Vec<_>>();
        assert_eq!(ids(MemberRole::Host), [0]);
        assert_eq!(ids(MemberRole::Player), [1, 2]);
        assert_eq!(ids(MemberRole::Spectator), [8, 9]);
        assert_eq!(MemberId(7).role(), Some(MemberRole::Player));
        assert_eq!(MemberId(23).role(), Some(MemberRole::Spectator));
        assert_eq!(MemberId(24).role(), None);
    }

    #[test]
    fn frames_read_back_as_sent() {
        let data = json!({"type":"offer","sdp":"v=0"});
        match MemberRequest::parse(&member_out::signal(MemberId(5), &data)) {
            Ok(MemberRequest::Signal { to, data: raw }) => {
                assert_eq!(to, MemberId(5));
                assert_eq!(serde_json::from_str::<Value>(raw.get()).unwrap(), data);
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            MemberRequest::parse(&member_out::done()),
            Ok(MemberRequest::Done)
        ));
        assert!(matches!(
            MemberRequest::parse(&member_out::relay_ticket(MemberId(9))),
            Ok(MemberRequest::RelayTicket { to: MemberId(9) })
        ));
        for (bad, why) in [
            (
                r#"{"type":"signal","to":24,"data":1}"#,
                MemberRequestError::BadSignal,
            ),
            (
                r#"{"type":"signal","to":"3","data":1}"#,
                MemberRequestError::BadSignal,
            ),
            (r#"{"type":"signal","to":3}"#, MemberRequestError::BadSignal),
            (
                r#"{"type":"offer","sdp":"x"}"#,
                MemberRequestError::Unaddressed,
            ),
            (
                r#"{"type":"relay-ticket"}"#,
                MemberRequestError::RelayTicketWithoutTo,
            ),
            (
                r#"{"type":"relay-ticket","to":24}"#,
                MemberRequestError::RelayTicketWithoutTo,
            ),
            (r#"{"type":"shout"}"#, MemberRequestError::UnsupportedType),
            ("[1]", MemberRequestError::NotAnObject),
        ] {
            assert_eq!(MemberRequest::parse(bad).err(), Some(why), "{bad}");
        }

        let host = MemberEntry::of(MemberId::HOST).unwrap();
        let spectator = MemberEntry::of(MemberId(8)).unwrap();
        assert_eq!(
            MemberServerMsg::parse(&member_server::welcome(spectator, &[host, spectator])),
            Ok(MemberServerMsg::Welcome {
                you: spectator,
                members: vec![host, spectator]
            })
        );
        assert_eq!(
            MemberServerMsg::parse(&member_server::joined(host)),
            Ok(MemberServerMsg::Joined(host))
        );
        assert_eq!(
            MemberServerMsg::parse(&member_server::left(MemberId(3))),
            Ok(MemberServerMsg::Left(MemberId(3)))
        );
        let ticket = crate::RelayTicket::parse(&format!("3-0.9.{}", "ab".repeat(16))).unwrap();
        assert_eq!(
            MemberServerMsg::parse(&crate::relay_server::ticket(&ticket, 60)),
            Ok(MemberServerMsg::RelayTicket(crate::RelayTicketMsg {
                ticket,
                ttl: 60
            }))
        );
        let raw = RawValue::from_string(r#"{ "type" : "answer","sdp":"y" }"#.to_owned()).unwrap();
        let frame = member_server::signal(MemberId(2), &raw);
        assert!(frame.contains(r#"{ "type" : "answer","sdp":"y" }"#));
        assert_eq!(
            MemberServerMsg::parse(&frame),
            Ok(MemberServerMsg::Signal {
                from: MemberId(2),
                data: json!({"type":"answer","sdp":"y"})
            })
        );
        // A role that does not go with the id is not what a room sends.
        assert!(MemberServerMsg::parse(
            r#"{"type":"member-joined","member":{"id":9,"role":"player"}}"#
        )
        .is_err());
    }
}
