//! What the session keeps for one remote player: the link's name, the
//! player's slot, its Hello, the round trips to it, what was heard from it
//! and when, the datagrams waiting for its link, our input stream towards
//! it, its hashes and its frame advantage.
//!
//! Everything shared by the whole match (the timeline, this side's own
//! hashes, the configuration) lives in the session; a two-player match is
//! a session with one peer.

use alloc::vec::Vec;
use core::fmt;

use super::hash_book::HashBook;
use super::outcome::Version;
use super::ping::Pinger;
use super::roster::Dropped;
use super::sender::{Outbox, Sender};
use super::time_sync::TimeSync;
use crate::time::Millis;
use crate::wire::Member;

/// The caller's name for one link (one remote member): any number the
/// caller picks when the link opens, unique among the session's links.
/// The session names the link by it in
/// [`poll_transmit`](super::Session::poll_transmit); the remote's player
/// slot is learned in the handshake (see
/// [`Session::peer_slot`](super::Session::peer_slot)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PeerId(pub u16);

impl fmt::Display for PeerId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "link {}", self.0)
    }
}

/// One remote player, as the session knows it.
#[derive(Debug)]
pub(super) struct Peer {
    /// The caller's name for the link.
    pub(super) id: PeerId,
    /// The remote's player slot, once known (from its Hello, or assigned
    /// by this side when it hosts).
    pub(super) slot: Option<u8>,
    /// The remote's version, once its Hello arrived.
    pub(super) hello: Option<Version>,
    /// Another guest's introduction that came before the host's Hello
    /// (checked when it comes).
    pub(super) member: Option<Member>,
    /// Round trips measured before the start (the host picking the input
    /// delay from them).
    pub(super) rtt_samples: Vec<Millis>,
    /// Pings to it and the pong owed to it.
    pub(super) pinger: Pinger,
    /// The last round trip measured to it.
    pub(super) last_rtt: Option<Millis>,
    /// When it was last heard (or when its link opened).
    pub(super) last_heard: Millis,
    /// Datagrams waiting for its link.
    pub(super) out: Outbox,
    /// Its hashes of final ticks, compared with ours.
    pub(super) hashes: HashBook,
    /// Our input stream towards it (reset at the start).
    pub(super) sender: Sender,
    /// The frame advantage between it and us.
    pub(super) time_sync: TimeSync,
    /// While its link is down (failed, or silent for the timeout) in a
    /// running match: until when its slot is held.
    pub(super) dropped: Option<Dropped>,
    /// The host asked about this player's inputs as it leaves: nothing
    /// more is taken from it.
    pub(super) frozen: bool,
    /// Host: the last membership change it acknowledged.
    pub(super) roster_acked: u16,
    /// Guest: the host said this player rejoined; the fingerprint of its
    /// token, which its fresh session's `Rejoin` must match here.
    pub(super) returning: Option<u64>,
    /// Guest: `Rejoin`s for this player's slot (the link each came on and
    /// its token), waiting for the host's word that the slot came back: a
    /// few, one per link, so a forged one cannot push the real one out.
    pub(super) claims: Vec<(PeerId, u64)>,
    /// Guest: the token of the fresh session this side last took back on
    /// this link (its `Rejoin` said again later is not a new claim).
    pub(super) taken_token: Option<u64>,
    /// Guest: how many of our inputs the host had acknowledged when it
    /// asked what we hold of this player's (before a leave or a rejoin).
    /// The host's catch-up for this player comes later, so a rejoiner
    /// holds at least these of ours.
    pub(super) host_had: u32,
    /// A player that entered the running match (a late joiner, or a
    /// benched player back) plays its own inputs from this tick: they
    /// may reach that far ahead of this side's present at first.
    pub(super) enters_at: u32,
    /// Host: a player whose catch-up went (back from a reload, or new)
    /// and whose fresh session has sent no input yet: the catch-up may
    /// take a few round trips to cross, so only the timeout drops it
    /// meanwhile, never the shorter `bench_after`.
    pub(super) catching_up: bool,
}

/// The most `Rejoin`s a guest keeps for one slot until the host's word.
pub(super) const MAX_CLAIMS: usize = 4;

impl Peer {
    /// A link that opened at `now`.
    pub(super) fn new(id: PeerId, now: Millis) -> Self {
        Peer {
            id,
            slot: None,
            hello: None,
            member: None,
            rtt_samples: Vec::new(),
            pinger: Pinger::default(),
            last_rtt: None,
            last_heard: now,
            out: Outbox::default(),
            hashes: HashBook::default(),
            sender: Sender::new(0),
            time_sync: TimeSync::default(),
            dropped: None,
            frozen: false,
            roster_acked: 0,
            returning: None,
            claims: Vec::new(),
            taken_token: None,
            host_had: 0,
            enters_at: 0,
            catching_up: false,
        }
    }

    /// Keeps a `Rejoin` for this player's slot on `link` with `token`
    /// (one per link: a later one replaces it; the oldest link's goes when
    /// there are too many).
    pub(super) fn keep_claim(&mut self, link: PeerId, token: u64) {
        self.claims.retain(|(l, _)| *l != link);
        if self.claims.len() >= MAX_CLAIMS {
            self.claims.remove(0);
        }
        self.claims.push((link, token));
    }

    /// A datagram from it arrived at `now`.
    pub(super) fn heard(&mut self, now: Millis) {
        self.last_heard = self.last_heard.max(now);
    }
}
