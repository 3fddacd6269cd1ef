//! The lobby directory's rule, shared by both hosts: what a lobby reports
//! about its fill, and which lobby a newcomer without `?lobby=N` is sent
//! to.

use std::net::IpAddr;

use serde::{Deserialize, Serialize};

use crate::Lobby;

/// One lobby's fill, as the directory reads it. The Worker's lobby objects
/// answer it as JSON to the entry Worker, which places newcomers; the
/// embedded server reads it from its lobbies directly.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LobbyLoad {
    /// Players on the roster.
    pub players: usize,
    /// Open sockets, welcomed or not.
    pub sockets: usize,
    /// Whether a newcomer would find room ([`Lobby::has_room`]).
    pub has_room: bool,
    /// Open sockets from the asking client's address (its key, IPv6 by
    /// /64), for the per-address cap over every lobby together.
    pub from_address: usize,
    /// Open sockets by address key (IPv6 by /64), every address with at
    /// least one, when asked for ([`Lobby::sockets_by_address`]): a
    /// directory that keeps the fills for a moment counts any client's
    /// sockets from them without asking again. Empty otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub by_address: Vec<(IpAddr, usize)>,
}

impl LobbyLoad {
    /// Sockets `address` holds here, by its key, from [`LobbyLoad::by_address`].
    #[must_use]
    pub fn sockets_of(&self, address: IpAddr) -> usize {
        let key = crate::address_key(address);
        self.by_address
            .iter()
            .filter(|(k, _)| *k == key)
            .map(|(_, n)| n)
            .sum()
    }

    /// Counts one more socket from `address` (admitted since the fill was
    /// read), and whether the lobby still has room after it, under
    /// `limits`.
    pub fn note_admitted(&mut self, address: Option<IpAddr>, limits: &crate::LobbyLimits) {
        self.sockets += 1;
        self.has_room = limits.below_socket_cap(self.sockets) && self.sockets < limits.max_players;
        if let Some(key) = address.map(crate::address_key) {
            match self.by_address.iter_mut().find(|(k, _)| *k == key) {
                Some((_, n)) => *n += 1,
                None => self.by_address.push((key, 1)),
            }
        }
    }
}

impl Lobby {
    /// This lobby's fill, counting `address`'s sockets when given.
    #[must_use]
    pub fn load(&self, address: Option<IpAddr>) -> LobbyLoad {
        LobbyLoad {
            players: self.roster().len(),
            sockets: self.socket_count(),
            has_room: self.has_room(),
            from_address: address.map_or(0, |a| self.sockets_from(a)),
            by_address: Vec::new(),
        }
    }

    /// Open sockets by address key, for every address holding one (in
    /// the order of their keys).
    #[must_use]
    pub fn sockets_by_address(&self) -> Vec<(IpAddr, usize)> {
        let mut counts = std::collections::BTreeMap::new();
        for key in self.socket_addresses() {
            *counts.entry(key).or_insert(0) += 1;
        }
        counts.into_iter().collect()
    }
}

/// Where a newcomer without `?lobby=` goes: the lobby with the most open
/// sockets that still has room, so that players meet rather than spread
/// thin; the lower number on a tie; the first lobby when all are full
/// (which then refuses as usual).
#[must_use]
pub fn place_newcomer(loads: &[LobbyLoad]) -> usize {
    loads
        .iter()
        .enumerate()
        .filter(|(_, l)| l.has_room)
        .max_by_key(|(n, l)| (l.sockets, std::cmp::Reverse(*n)))
        .map_or(0, |(n, _)| n)
}

/// Reads `?lobby=N` against `lobbies` lobbies: `Some(N)` for a lobby's
/// number as written (digits only), `None` for anything else (404).
#[must_use]
pub fn lobby_number(text: &str, lobbies: usize) -> Option<usize> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse::<usize>().ok().filter(|n| *n < lobbies)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(sockets: usize, has_room: bool) -> LobbyLoad {
        LobbyLoad {
            sockets,
            has_room,
            ..LobbyLoad::default()
        }
    }

    #[test]
    fn newcomers_go_where_players_are_while_there_is_room() {
        assert_eq!(place_newcomer(&[load(0, true), load(0, true)]), 0);
        assert_eq!(place_newcomer(&[load(3, true), load(5, true)]), 1);
        assert_eq!(place_newcomer(&[load(16, false), load(1, true)]), 1);
        assert_eq!(place_newcomer(&[load(16, false), load(16, false)]), 0);
        assert_eq!(place_newcomer(&[]), 0);
    }

    #[test]
    fn a_kept_fill_counts_sockets_admitted_since_and_reads_back() {
        let limits = crate::LobbyLimits {
            max_players: 2,
            ..crate::LobbyLimits::default()
        };
        let a: IpAddr = "2001:db8::1".parse().unwrap();
        let a_too: IpAddr = "2001:db8::2".parse().unwrap();
        let mut l = load(0, true);
        l.note_admitted(Some(a), &limits);
        assert_eq!((l.sockets, l.has_room, l.sockets_of(a_too)), (1, true, 1));
        l.note_admitted(Some(a_too), &limits);
        assert_eq!((l.sockets, l.has_room, l.sockets_of(a)), (2, false, 2));
        let text = serde_json::to_string(&l).unwrap();
        assert_eq!(serde_json::from_str::<LobbyLoad>(&text).unwrap(), l);
        let bare = serde_json::to_string(&load(3, true)).unwrap();
        assert!(!bare.contains("by_address"), "{bare}");
    }

    #[test]
    fn lobby_numbers_are_read_as_written() {
        assert_eq!(lobby_number("2", 3), Some(2));
        assert_eq!(lobby_number("3", 3), None);
        for bad in ["", "-1", "+1", "x", " 1", "99999999999999999999999"] {
            assert_eq!(lobby_number(bad, 3), None, "{bad}");
        }
    }
}
