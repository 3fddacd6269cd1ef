//! The session's watch on its timeline during a match: each new tick
//! becomes an event, and each final tick's hash is sent to every peer
//! (and kept for the spectators), compared with each one's, and its part
//! hashes kept until no peer can differ there; the first peer found to
//! differ ends the match in a desync.

use alloc::collections::VecDeque;
use alloc::vec;
use alloc::vec::Vec;

use super::audience::Audience;
use super::hash_book::{Comparison, LocalHashes, LOCAL_HASHES_KEPT};
use super::outcome::Event;
use super::peer::Peer;
use super::timeline::Watch;
use crate::game::DeterministicGame;
use crate::parts::{PartsExchange, StatePart};
use crate::wire::{HashReport, Message};

/// A peer (index) whose hash of `tick` differs from ours, and the slots
/// of every peer found to differ at that tick.
#[derive(Debug, Clone)]
pub(super) struct Differ {
    pub(super) peer: usize,
    pub(super) tick: u32,
    pub(super) local: u64,
    pub(super) remote: u64,
    pub(super) slots: Vec<u8>,
}

/// The session's [`Watch`] on its timeline: new ticks become events, and
/// final ticks' hashes are sent to every peer and compared with each
/// one's.
pub(super) struct MatchWatch<'a> {
    pub(super) peers: &'a mut [Peer],
    /// The host's spectators, sent the same hashes later.
    pub(super) audience: &'a mut Audience,
    pub(super) local: &'a mut LocalHashes,
    pub(super) parts: &'a mut PartsExchange,
    pub(super) events: &'a mut VecDeque<Event>,
    /// The first peer whose hash differs from ours: the match ends.
    pub(super) desync: Option<Differ>,
}

impl<G: DeterministicGame> Watch<G> for MatchWatch<'_> {
    fn stepped(&mut self, tick: u32, _state: &G, resim: bool) {
        if !resim {
            self.events.push_back(Event::Ticked(tick));
        }
    }

    fn final_hash(&mut self, tick: u32, hash: u64, parts: Vec<StatePart>) {
        let report = Message::<G::Input>::Hash(HashReport { tick, hash });
        for p in self.peers.iter_mut() {
            p.out.send(&report);
        }
        self.audience.record_hash(tick, hash);
        // The parts of the same state, kept in case this tick differs.
        self.parts.keep(tick, parts, LOCAL_HASHES_KEPT);
        self.local.record(tick, hash);
        for (i, p) in self.peers.iter_mut().enumerate() {
            match p.hashes.record_local(tick, hash) {
                Some(Comparison::Matched(t)) => {
                    log::debug!("state hashes agree with {} at tick {t}", p.id);
                    self.events.push_back(Event::HashMatched(t));
                }
                Some(Comparison::Differ {
                    tick,
                    local,
                    remote,
                }) => {
                    // Every peer that differs at this tick is named; the
                    // first one found gets the part exchange.
                    let slot = p.slot.unwrap_or(0);
                    match &mut self.desync {
                        Some(d) => d.slots.push(slot),
                        None => {
                            self.desync = Some(Differ {
                                peer: i,
                                tick,
                                local,
                                remote,
                                slots: vec![slot],
                            });
                        }
                    }
                }
                None => {}
            }
        }
        // Our hashes of ticks every peer's hashes have caught up with are
        // done.
        let done = compared_by_all(self.peers);
        self.local.forget_upto(done);
        if self.desync.is_some() {
            // The differing tick's parts stay for the exchange.
            return;
        }
        // So are their parts.
        self.parts.forget_upto(done);
    }

    fn stopped(&self) -> bool {
        self.desync.is_some()
    }
}

/// The last tick whose hash every peer has sent.
pub(super) fn compared_by_all(peers: &[Peer]) -> u32 {
    peers
        .iter()
        .map(|p| p.hashes.last_remote_tick())
        .min()
        .unwrap_or(0)
}
