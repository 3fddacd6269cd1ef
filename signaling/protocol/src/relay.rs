//! The match relay: a WebSocket through the signalling service that carries
//! a match when no direct WebRTC path forms.
//!
//! | step | who | what |
//! | --- | --- | --- |
//! | 1 | page → room | `{"type":"relay-ticket"}` on its room socket ([`relay_out::ticket_request`]) |
//! | 2 | room → that page | `{"type":"relay-ticket","ticket":T,"ttl":60}` ([`relay_server::ticket`], read by [`RelayTicketMsg::parse`]) |
//! | 3 | page → service | `GET /relay/<code>/ws?ticket=T` ([`relay_path`]): a WebSocket paired with the other side's |
//! | 4 | relay → both pages | `{"type":"paired"}` ([`relay_server::paired`]) once both sides are connected |
//! | 5 | either page | binary frames, passed to the other side unchanged |
//!
//! A ticket names the room and the side it was issued to, and is signed
//! by the service: only a page on a room's socket can get one, so only the
//! two members of that room can reach its relay.
//!
//! A member room (see [`crate::members`]) has one relay per pair of members
//! that link to each other: a member asks for the ticket of its end of the
//! pair with `{"type":"relay-ticket","to":ID}` ([`crate::member_out::relay_ticket`]),
//! and the ticket names the pair ([`MemberPair`]) and which end the asker
//! is. Its text is `<me>-<peer>.<expiry>.<signature>` (`3-0.…` for member 3
//! linking to the host), on the same route as a two-seat room's. The service never reads
//! what the frames hold; how the pages fill them (a channel byte and a
//! datagram) is their own business and is written up with the page's relay
//! transport.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::id::RoomCode;
use crate::json::{string, to_json, typed, TypeOnly};
use crate::limits::MAX_MESSAGE_BYTES;
use crate::members::{MemberId, MemberRole};
use crate::room::Role;
use crate::MessageError;

/// The `type` of the ticket request and of its answer.
pub const TICKET_TYPE: &str = "relay-ticket";

/// The `type` of the relay's one frame of its own, sent to both sides
/// once both are connected.
pub const PAIRED_TYPE: &str = "paired";

/// Longest ticket text accepted anywhere (a real one is about 50 bytes).
pub const TICKET_MAX_BYTES: usize = 96;

/// Length of a ticket's signature, in hexadecimal digits (128 bits).
pub const TICKET_MAC_HEX: usize = 32;

/// Two members of a member room that link to each other, and so may share
/// a relay: lower id first. Only pairs that the page links are pairs here:
/// two players (the host among them), or the host and a spectator
/// (spectators link to the host alone).
///
/// On its relay the lower id holds the seat a two-seat room's host holds
/// ([`Role::Host`]), the higher id the guest's ([`MemberPair::end`]), so the
/// relay needs no other notion of sides.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "PairFields")]
pub struct MemberPair {
    low: MemberId,
    high: MemberId,
}

/// [`MemberPair`] as stored, checked on the way in.
#[derive(Deserialize)]
struct PairFields {
    low: MemberId,
    high: MemberId,
}

impl TryFrom<PairFields> for MemberPair {
    type Error = &'static str;
    fn try_from(f: PairFields) -> Result<MemberPair, &'static str> {
        MemberPair::new(f.low, f.high)
            .filter(|p| p.low == f.low)
            .ok_or("not a pair of members that link to each other, lower id first")
    }
}

impl MemberPair {
    /// The pair of `a` and `b`, in either order; `None` unless both are
    /// ids a member can hold, they differ, and they link to each other.
    #[must_use]
    pub fn new(a: MemberId, b: MemberId) -> Option<MemberPair> {
        let (low, high) = if a < b { (a, b) } else { (b, a) };
        let links = matches!(
            (low.role()?, high.role()?),
            (MemberRole::Host, MemberRole::Player | MemberRole::Spectator)
                | (MemberRole::Player, MemberRole::Player)
        );
        (links && low != high).then_some(MemberPair { low, high })
    }

    /// The lower id.
    #[must_use]
    pub fn low(self) -> MemberId {
        self.low
    }

    /// The higher id.
    #[must_use]
    pub fn high(self) -> MemberId {
        self.high
    }

    /// Which end of the pair's relay `id` holds: [`Role::Host`] for the
    /// lower id, [`Role::Guest`] for the higher; `None` for a member
    /// outside the pair.
    #[must_use]
    pub fn end(self, id: MemberId) -> Option<Role> {
        if id == self.low {
            Some(Role::Host)
        } else if id == self.high {
            Some(Role::Guest)
        } else {
            None
        }
    }

    /// The member holding `end` of the relay.
    #[must_use]
    pub fn member(self, end: Role) -> MemberId {
        match end {
            Role::Host => self.low,
            Role::Guest => self.high,
        }
    }
}

/// A relay ticket, as text: `<side>.<expiry>.<signature>`, where `side`
/// is `host` or `guest` for a two-seat room's relay, or `<me>-<peer>` (two
/// member ids, the asker's first) for a member room's pair; `expiry` the
/// service's clock in milliseconds (decimal) after which the ticket no
/// longer opens a relay socket, and `signature` 32 lowercase hexadecimal
/// digits. Only the service can tell whether the signature is right;
/// [`RelayTicket::parse`] checks the form.
#[derive(Clone, PartialEq, Eq)]
pub struct RelayTicket {
    role: Role,
    pair: Option<MemberPair>,
    expires_at_ms: u64,
    mac: String,
}

impl core::fmt::Debug for RelayTicket {
    // A ticket is a credential: never print its signature.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("RelayTicket")
            .field("role", &self.role)
            .field("pair", &self.pair)
            .field("expires_at_ms", &self.expires_at_ms)
            .finish_non_exhaustive()
    }
}

impl RelayTicket {
    /// A two-seat room's ticket from its parts. `mac` must be
    /// [`TICKET_MAC_HEX`] lowercase hexadecimal digits, else `None`.
    #[must_use]
    pub fn new(role: Role, expires_at_ms: u64, mac: String) -> Option<RelayTicket> {
        let ok = mac.len() == TICKET_MAC_HEX
            && mac
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
        ok.then_some(RelayTicket {
            role,
            pair: None,
            expires_at_ms,
            mac,
        })
    }

    /// A member room's ticket for member `me`'s end of `pair`; `None` when
    /// `me` is not in the pair or `mac` is not a signature's form.
    #[must_use]
    pub fn for_member(
        pair: MemberPair,
        me: MemberId,
        expires_at_ms: u64,
        mac: String,
    ) -> Option<RelayTicket> {
        let role = pair.end(me)?;
        let mut ticket = RelayTicket::new(role, expires_at_ms, mac)?;
        ticket.pair = Some(pair);
        Some(ticket)
    }

    /// The same ticket with the signature `mac` instead (of the form
    /// [`RelayTicket::new`] takes, else `None`).
    #[must_use]
    pub fn with_mac(&self, mac: String) -> Option<RelayTicket> {
        let signed = RelayTicket::new(self.role, self.expires_at_ms, mac)?;
        Some(RelayTicket {
            pair: self.pair,
            ..signed
        })
    }

    /// Reads a ticket's form (not its signature). `None` for anything
    /// that is not exactly `<host|guest>.<digits>.<32 hex digits>` or
    /// `<me>-<peer>.<digits>.<32 hex digits>` with two member ids that link
    /// to each other, each written as the service writes it.
    #[must_use]
    pub fn parse(text: &str) -> Option<RelayTicket> {
        if text.len() > TICKET_MAX_BYTES {
            return None;
        }
        let mut parts = text.split('.');
        let (Some(side), Some(expiry), Some(mac), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return None;
        };
        if expiry.is_empty() || expiry.len() > 20 || !expiry.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let expires_at_ms = expiry.parse().ok()?;
        match Role::parse(side) {
            Some(role) => RelayTicket::new(role, expires_at_ms, mac.to_owned()),
            None => {
                let (me, peer) = side.split_once('-')?;
                let id = |s: &str| {
                    let n: u8 = s.parse().ok()?;
                    // Only as the service writes it: no sign, no leading 0.
                    (n.to_string() == s).then_some(MemberId(n))
                };
                let (me, peer) = (id(me)?, id(peer)?);
                let pair = MemberPair::new(me, peer)?;
                RelayTicket::for_member(pair, me, expires_at_ms, mac.to_owned())
            }
        }
    }

    /// The seat on its relay: the side of a two-seat room, or for a member
    /// room's pair the end the holder takes ([`MemberPair::end`]).
    #[must_use]
    pub fn role(&self) -> Role {
        self.role
    }

    /// The pair of members whose relay it opens; `None` for a two-seat
    /// room's relay.
    #[must_use]
    pub fn pair(&self) -> Option<MemberPair> {
        self.pair
    }

    /// The side as the ticket's text writes it, and as its signature
    /// covers it: `host`, `guest`, or `<me>-<peer>`.
    #[must_use]
    pub fn side_text(&self) -> String {
        match self.pair {
            None => self.role.as_str().to_owned(),
            Some(pair) => {
                let other = match self.role {
                    Role::Host => Role::Guest,
                    Role::Guest => Role::Host,
                };
                format!("{}-{}", pair.member(self.role).0, pair.member(other).0)
            }
        }
    }

    /// When it stops opening relay sockets (the service's clock, ms).
    #[must_use]
    pub fn expires_at_ms(&self) -> u64 {
        self.expires_at_ms
    }

    /// Its signature, in hexadecimal.
    #[must_use]
    pub fn mac(&self) -> &str {
        &self.mac
    }

    /// The ticket as text, as the URL and the room's answer carry it.
    #[must_use]
    pub fn to_text(&self) -> String {
        format!("{}.{}.{}", self.side_text(), self.expires_at_ms, self.mac)
    }
}

/// The path of a room's relay socket with a ticket:
/// `/relay/<code>/ws?ticket=<ticket>` (a ticket needs no escaping).
#[must_use]
pub fn relay_path(code: &RoomCode, ticket: &RelayTicket) -> String {
    format!("/relay/{code}/ws?ticket={}", ticket.to_text())
}

/// Frames the page sends about the relay (on its room socket).
pub mod relay_out {
    use super::*;

    /// `relay-ticket`: ask the room for this side's relay ticket.
    #[must_use]
    pub fn ticket_request() -> String {
        to_json(&TypeOnly { kind: TICKET_TYPE })
    }
}

#[derive(Serialize)]
struct TicketOut<'a> {
    #[serde(rename = "type")]
    kind: &'a str,
    ticket: &'a str,
    ttl: u64,
}

/// Frames the service sends about the relay.
pub mod relay_server {
    use super::*;

    /// `paired`: both sides are on the relay; it now passes frames on.
    /// Sent on the relay socket, the only text frame it ever carries.
    #[must_use]
    pub fn paired() -> String {
        to_json(&TypeOnly { kind: PAIRED_TYPE })
    }

    /// The answer to a ticket request: the ticket and the seconds it
    /// stays good for opening the relay socket.
    #[must_use]
    pub fn ticket(ticket: &RelayTicket, ttl_seconds: u64) -> String {
        to_json(&TicketOut {
            kind: TICKET_TYPE,
            ticket: &ticket.to_text(),
            ttl: ttl_seconds,
        })
    }
}

/// The room's answer to a ticket request, as the page reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RelayTicketMsg {
    /// This side's ticket.
    pub ticket: RelayTicket,
    /// Seconds it stays good for opening the relay socket.
    pub ttl: u64,
}

impl RelayTicketMsg {
    /// Reads `{"type":"relay-ticket","ticket":T,"ttl":N}` strictly.
    pub fn parse(text: &str) -> Result<RelayTicketMsg, MessageError> {
        if text.len() > MAX_MESSAGE_BYTES {
            return Err(MessageError::TooLarge);
        }
        let value: Value = serde_json::from_str(text).map_err(|_| MessageError::Malformed)?;
        let (_, m) = typed(&value, &[(TICKET_TYPE, &["ticket", "ttl"], &[])])?;
        let ticket = RelayTicket::parse(string(m, "ticket")?).ok_or(MessageError::BadValue)?;
        let ttl = m
            .get("ttl")
            .and_then(Value::as_u64)
            .ok_or(MessageError::Malformed)?;
        Ok(RelayTicketMsg { ticket, ttl })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mac() -> String {
        "0123456789abcdef0123456789abcdef".to_owned()
    }

    #[test]
    fn tickets_read_back_as_written() {
        let t = RelayTicket::new(Role::Guest, 61_000, mac()).unwrap();
        assert_eq!(t.to_text(), format!("guest.61000.{}", mac()));
        assert_eq!(RelayTicket::parse(&t.to_text()), Some(t.clone()));
        let msg = RelayTicketMsg::parse(&relay_server::ticket(&t, 60)).unwrap();
        assert_eq!(msg, RelayTicketMsg { ticket: t, ttl: 60 });
    }

    #[test]
    fn malformed_tickets_are_refused() {
        for bad in [
            "",
            "host",
            "host.1",
            "host.1.abc",
            "owner.1.0123456789abcdef0123456789abcdef",
            "host.-1.0123456789abcdef0123456789abcdef",
            "host.+1.0123456789abcdef0123456789abcdef",
            "host..0123456789abcdef0123456789abcdef",
            "host.1.0123456789ABCDEF0123456789ABCDEF",
            "host.1.0123456789abcdef0123456789abcdef.x",
            "host.99999999999999999999.0123456789abcdef0123456789abcdef",
            "host.1.0123456789abcdef0123456789abcde%",
        ] {
            assert_eq!(RelayTicket::parse(bad), None, "{bad}");
        }
        assert!(RelayTicket::new(Role::Host, 1, "xyz".into()).is_none());
    }

    #[test]
    fn member_tickets_name_the_pair_and_the_asker() {
        let pair = MemberPair::new(MemberId(3), MemberId(0)).unwrap();
        assert_eq!((pair.low(), pair.high()), (MemberId(0), MemberId(3)));
        let t = RelayTicket::for_member(pair, MemberId(3), 7, mac()).unwrap();
        assert_eq!(t.to_text(), format!("3-0.7.{}", mac()));
        assert_eq!((t.role(), t.pair()), (Role::Guest, Some(pair)));
        assert_eq!(RelayTicket::parse(&t.to_text()), Some(t));
        let host = RelayTicket::parse(&format!("0-3.7.{}", mac())).unwrap();
        assert_eq!((host.role(), host.pair()), (Role::Host, Some(pair)));
        // Spectators link to the host alone; nobody links to itself.
        for bad in [
            "8-3", "3-8", "8-9", "3-3", "0-24", "03-0", "+3-0", "3-0-1", "-0", "3-",
        ] {
            assert_eq!(
                RelayTicket::parse(&format!("{bad}.7.{}", mac())),
                None,
                "{bad}"
            );
        }
        assert!(RelayTicket::parse(&format!("8-0.7.{}", mac())).is_some());
        assert!(RelayTicket::for_member(pair, MemberId(5), 7, mac()).is_none());
        let stored = serde_json::to_string(&pair).unwrap();
        assert_eq!(stored, r#"{"low":0,"high":3}"#);
        assert_eq!(serde_json::from_str::<MemberPair>(&stored).unwrap(), pair);
        assert!(serde_json::from_str::<MemberPair>(r#"{"low":3,"high":0}"#).is_err());
    }

    #[test]
    fn debug_never_shows_the_signature() {
        let t = RelayTicket::new(Role::Host, 5, mac()).unwrap();
        assert!(!format!("{t:?}").contains("0123"));
    }
}
