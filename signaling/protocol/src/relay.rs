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
//! two members of that room can reach its relay. The service never reads
//! what the frames hold; how the pages fill them (a channel byte and a
//! datagram) is their own business and is written up with the page's relay
//! transport.

use serde::Serialize;
use serde_json::Value;

use crate::id::RoomCode;
use crate::json::{string, to_json, typed, TypeOnly};
use crate::limits::MAX_MESSAGE_BYTES;
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

/// A relay ticket, as text: `<role>.<expiry>.<signature>`, where `role`
/// is `host` or `guest`, `expiry` the service's clock in milliseconds
/// (decimal) after which the ticket no longer opens a relay socket, and
/// `signature` 32 lowercase hexadecimal digits. Only the service can tell
/// whether the signature is right; [`RelayTicket::parse`] checks the form.
#[derive(Clone, PartialEq, Eq)]
pub struct RelayTicket {
    role: Role,
    expires_at_ms: u64,
    mac: String,
}

impl core::fmt::Debug for RelayTicket {
    // A ticket is a credential: never print its signature.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("RelayTicket")
            .field("role", &self.role)
            .field("expires_at_ms", &self.expires_at_ms)
            .finish_non_exhaustive()
    }
}

impl RelayTicket {
    /// A ticket from its parts. `mac` must be [`TICKET_MAC_HEX`] lowercase
    /// hexadecimal digits, else `None`.
    #[must_use]
    pub fn new(role: Role, expires_at_ms: u64, mac: String) -> Option<RelayTicket> {
        let ok = mac.len() == TICKET_MAC_HEX
            && mac
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
        ok.then_some(RelayTicket {
            role,
            expires_at_ms,
            mac,
        })
    }

    /// Reads a ticket's form (not its signature). `None` for anything
    /// that is not exactly `<host|guest>.<digits>.<32 hex digits>`.
    #[must_use]
    pub fn parse(text: &str) -> Option<RelayTicket> {
        if text.len() > TICKET_MAX_BYTES {
            return None;
        }
        let mut parts = text.split('.');
        let (Some(role), Some(expiry), Some(mac), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return None;
        };
        let role = Role::parse(role)?;
        if expiry.is_empty() || expiry.len() > 20 || !expiry.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let expires_at_ms = expiry.parse().ok()?;
        RelayTicket::new(role, expires_at_ms, mac.to_owned())
    }

    /// The side of the room it was issued to.
    #[must_use]
    pub fn role(&self) -> Role {
        self.role
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
        format!("{}.{}.{}", self.role.as_str(), self.expires_at_ms, self.mac)
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
    fn debug_never_shows_the_signature() {
        let t = RelayTicket::new(Role::Host, 5, mac()).unwrap();
        assert!(!format!("{t:?}").contains("0123"));
    }
}
