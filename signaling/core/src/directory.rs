//! The lobby directory's rule, shared by both hosts: what a lobby reports
//! about its fill, and which lobby a newcomer without `?lobby=N` is sent
//! to.

use std::net::IpAddr;

use serde::{Deserialize, Serialize};

use crate::Lobby;

/// One lobby's fill, as the directory reads it. The Worker's lobby objects
/// answer it as JSON to the entry Worker, which places newcomers; the
/// embedded server reads it from its lobbies directly.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
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
        }
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
    fn lobby_numbers_are_read_as_written() {
        assert_eq!(lobby_number("2", 3), Some(2));
        assert_eq!(lobby_number("3", 3), None);
        for bad in ["", "-1", "+1", "x", " 1", "99999999999999999999999"] {
            assert_eq!(lobby_number(bad, 3), None, "{bad}");
        }
    }
}
