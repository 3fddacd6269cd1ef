//! Invite links: the rules of the link itself and of the codes an
//! inviting page hands out.
//!
//! A link is this page's address with `?invite=ID.CODE`: `ID` is the
//! inviter's peer id on its current lobby connection (12 letters or
//! digits) and `CODE` a secret of 12 more, drawn by the inviting page from
//! random bytes ([`InviteCode`]). The friend who opens it joins the lobby,
//! finds `ID` in the roster and, once their mesh link is open, sends
//! `{"type":"invited","code":CODE}`; the inviter's page checks the code
//! against the ones it issued ([`Issued::check`]) and answers with an
//! ordinary challenge, or with `invite-refused` and the reason. The lobby
//! client ([`crate::lobby`]) runs both sides; this module holds what can
//! be decided alone.
//!
//! A code stays valid for [`INVITE_TTL`] from when it was made, for any
//! number of friends (a friend whose page reloads can use it again). It
//! dies sooner with the inviter's lobby connection: a reconnect draws a new
//! peer id, so a link naming the old one is stale, and the friend's page
//! says so once the roster is known.

pub use signaling_protocol::{InviteCode, InviteRefusal};

use crate::id::PeerId;
use lockstep::Millis;
use std::collections::VecDeque;

/// How long a code is honoured after it was made: 30 minutes, time to send
/// a link by chat or mail and for the friend to open it.
pub const INVITE_TTL: Millis = Millis(30 * 60 * 1000);

/// Codes an inviting page remembers, the newest first kept: a new one is
/// only made when the last one expired, so a handful spans hours.
pub const MAX_ISSUED: usize = 8;

/// The query key of an invite link.
pub const INVITE_KEY: &str = "invite";

/// What an invite link carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InviteLink {
    /// The inviter's peer id on the lobby connection that made the link.
    pub host: PeerId,
    /// The secret the inviter's page checks.
    pub code: InviteCode,
    /// The lobby the inviter is in (as the service numbers them), when the
    /// service said: the friend's page asks to be placed there.
    pub lobby: Option<u32>,
}

/// The highest lobby number a link may name (the services hold at most
/// 64 lobbies).
pub const MAX_LOBBY: u32 = 63;

/// `?invite=` was there but is not a link this page can use (cut short,
/// mistyped, or made up).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Damaged;

impl InviteLink {
    /// Reads the value of `?invite=`: exactly `ID.CODE` or `ID.CODE.LOBBY`,
    /// the first two parts 12 ASCII letters or digits each, the lobby 1 or
    /// 2 digits up to [`MAX_LOBBY`] without a leading zero.
    pub fn parse(value: &str) -> Result<InviteLink, Damaged> {
        let mut parts = value.split('.');
        let host = PeerId::parse(parts.next().ok_or(Damaged)?).ok_or(Damaged)?;
        let code = InviteCode::parse(parts.next().ok_or(Damaged)?).ok_or(Damaged)?;
        let lobby = match parts.next() {
            None => None,
            Some(n) => Some(lobby_number(n).ok_or(Damaged)?),
        };
        if parts.next().is_some() {
            return Err(Damaged);
        }
        Ok(InviteLink { host, code, lobby })
    }

    /// The value of `?invite=`.
    #[must_use]
    pub fn value(&self) -> String {
        let mut v = format!("{}.{}", self.host.as_str(), self.code.as_str());
        if let Some(n) = self.lobby {
            v.push_str(&format!(".{n}"));
        }
        v
    }

    /// The whole link: `page` (this page's origin and path, no query)
    /// with the invite as its only option.
    #[must_use]
    pub fn url(&self, page: &str) -> String {
        let sep = if page.contains('?') { '&' } else { '?' };
        format!("{page}{sep}{INVITE_KEY}={}", self.value())
    }
}

/// A lobby number as a link writes it: digits only, no leading zero, at
/// most [`MAX_LOBBY`].
fn lobby_number(s: &str) -> Option<u32> {
    let ok = !s.is_empty()
        && s.len() <= 2
        && s.bytes().all(|b| b.is_ascii_digit())
        && (s == "0" || !s.starts_with('0'));
    s.parse().ok().filter(|n| ok && *n <= MAX_LOBBY)
}

/// `?invite=` of the page's query string: `None` when absent, otherwise the
/// link or [`Damaged`].
#[must_use]
pub fn invite_option(search: &str) -> Option<Result<InviteLink, Damaged>> {
    crate::options::query_param(search, INVITE_KEY).map(|v| InviteLink::parse(&v))
}

/// The codes an inviting page made on its current lobby connection, with
/// when each expires, newest last.
#[derive(Debug, Clone, Default)]
pub struct Issued {
    codes: VecDeque<(InviteCode, Millis)>,
}

impl Issued {
    /// The newest code, while it is valid at `now`.
    #[must_use]
    pub fn current(&self, now: Millis) -> Option<&InviteCode> {
        self.codes
            .back()
            .filter(|(_, expires)| now < *expires)
            .map(|(code, _)| code)
    }

    /// Remembers `code`, made at `now`; the oldest is forgotten beyond
    /// [`MAX_ISSUED`].
    pub fn issue(&mut self, code: InviteCode, now: Millis) {
        if self.codes.len() == MAX_ISSUED {
            self.codes.pop_front();
        }
        self.codes.push_back((code, now + INVITE_TTL));
    }

    /// Whether a friend who came with `code` at `now` is honoured: an
    /// expired code is told apart from one this page never made (or has
    /// forgotten, which reads the same to the friend).
    pub fn check(&self, code: &InviteCode, now: Millis) -> Result<(), InviteRefusal> {
        match self.codes.iter().find(|(c, _)| c == code) {
            None => Err(InviteRefusal::Unknown),
            Some((_, expires)) if now >= *expires => Err(InviteRefusal::Expired),
            Some(_) => Ok(()),
        }
    }

    /// Forgets every code: the lobby connection they named is gone.
    pub fn clear(&mut self) {
        self.codes.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOST: &str = "AbCdEfGhIj12";
    const CODE: &str = "zYxWvU987654";

    #[test]
    fn a_link_reads_back_as_made() {
        let link = InviteLink::parse(&format!("{HOST}.{CODE}")).unwrap();
        assert_eq!(link.host.as_str(), HOST);
        assert_eq!(link.code.as_str(), CODE);
        assert_eq!(
            link.url("http://127.0.0.1:8080/"),
            format!("http://127.0.0.1:8080/?invite={HOST}.{CODE}")
        );
        let search = format!("?mesh_ms=500&invite={}", link.value());
        assert_eq!(invite_option(&search), Some(Ok(link)));
        assert_eq!(invite_option("?mesh_ms=500"), None);
    }

    #[test]
    fn a_link_names_the_inviters_lobby_when_the_service_said() {
        for n in [0, 9, 63] {
            let value = format!("{HOST}.{CODE}.{n}");
            let link = InviteLink::parse(&value).unwrap();
            assert_eq!(link.lobby, Some(n));
            assert_eq!(link.value(), value);
        }
        assert_eq!(
            InviteLink::parse(&format!("{HOST}.{CODE}")).unwrap().lobby,
            None
        );
    }

    #[test]
    fn a_damaged_link_is_told_apart() {
        for bad in [
            "",
            HOST,
            "AbCdEfGhIj12.",
            "AbCdEfGhIj12.zYxWvU98765",
            "AbCdEfGhIj12.zYxWvU9876543",
            "AbCdEfGhIj1.zYxWvU987654",
            "AbCdEfGhIj12-zYxWvU987654",
            "AbCdEfGhIj12.zYxWvU98765%34",
            "AbCdEfGhIj12.zYxWvU98765é",
            "AbCdEfGhIj12.zYx.vU987654",
            "AbCdEfGhIj12.zYxWvU987654.",
            "AbCdEfGhIj12.zYxWvU987654.64",
            "AbCdEfGhIj12.zYxWvU987654.07",
            "AbCdEfGhIj12.zYxWvU987654.+1",
            "AbCdEfGhIj12.zYxWvU987654.123",
            "AbCdEfGhIj12.zYxWvU987654.1.2",
        ] {
            assert_eq!(InviteLink::parse(bad), Err(Damaged), "{bad}");
        }
        assert_eq!(invite_option("?invite="), Some(Err(Damaged)));
    }

    #[test]
    fn codes_are_valid_until_they_expire_and_forgotten_past_the_cap() {
        let code = |i: u8| InviteCode::generate(move || i);
        let mut issued = Issued::default();
        assert_eq!(issued.current(Millis(0)), None);
        issued.issue(code(1), Millis(1_000));
        assert_eq!(issued.current(Millis(1_000)), Some(&code(1)));
        assert_eq!(issued.check(&code(1), Millis(1_000)), Ok(()));
        assert_eq!(
            issued.check(&code(2), Millis(1_000)),
            Err(InviteRefusal::Unknown)
        );
        let end = Millis(1_000) + INVITE_TTL;
        assert_eq!(issued.check(&code(1), Millis(end.0 - 1)), Ok(()));
        assert_eq!(issued.check(&code(1), end), Err(InviteRefusal::Expired));
        assert_eq!(issued.current(end), None);
        for i in 2..=(MAX_ISSUED as u8 + 1) {
            issued.issue(code(i), end);
        }
        assert_eq!(
            issued.check(&code(1), end),
            Err(InviteRefusal::Unknown),
            "the oldest was forgotten"
        );
        issued.clear();
        assert_eq!(issued.check(&code(2), end), Err(InviteRefusal::Unknown));
    }
}
