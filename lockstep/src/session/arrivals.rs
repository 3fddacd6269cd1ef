//! Players on their way into a running match, from either end.
//!
//! On the host: fresh sessions whose rejoin waits for what blocks it to
//! clear, and the newcomer catching up before the change that gives it a
//! free slot. On a side entering the match (rejoining, joining, or a host
//! coming back): the host's catch-up gathered so far, the tick of the
//! first catch-up a joiner replayed, what came early (other players'
//! `Rejoin`s for slots it has not met, spectator count changes from
//! before its start), the players of unmet slots the host took back since,
//! and the bench a returning host is handed back.
//!
//! The session decides what to do with each; this part keeps them and
//! answers what is kept.

use alloc::vec::Vec;

use super::peer::{Peer, PeerId};
use super::rejoin::Gathered;
use super::roster::{Newcomer, WaitingRejoin, MAX_BENCH_CLAIMS};
use crate::time::Millis;
use crate::wire::{Rejoin, Roster, MAX_PLAYERS};

/// Host: a newcomer catching up, before the change that gives it its slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Admission {
    /// The slot it will take (neutral until the change).
    pub(super) slot: u8,
    /// The link its session spoke on.
    pub(super) link: PeerId,
    /// The tick its first catch-up ended at; its `JoinReady` names it.
    pub(super) tick: u32,
    /// When the slot is released if it has not said it is ready.
    pub(super) until: Millis,
    /// It said it is ready; the change waits only for what blocks it
    /// (another change under way, a player away).
    pub(super) ready: bool,
}

/// What is under way for players entering the match.
#[derive(Debug)]
pub(super) struct Arrivals<I> {
    /// Rejoining or watching: the host's catch-up so far, once its Hello
    /// (or Welcome) came.
    pub(super) gathered: Option<Gathered<I>>,
    /// Host, running: rejoins that wait for what blocked them to clear,
    /// one per slot, in the order they came.
    waiting: Vec<WaitingRejoin>,
    /// Entering (rejoining or joining): `Rejoin`s of other players' fresh
    /// sessions (link, slot, token) for slots this side has not met,
    /// kept until the host says the slot came back; a few at most.
    early_claims: Vec<(PeerId, u8, u64)>,
    /// Entering, running: players of slots this side never met (away
    /// when it came back) whom the host took back since, until their
    /// fresh sessions show up on a link; several may come back one after
    /// the other before the first shows up.
    back: Vec<Newcomer>,
    /// Guest: spectator count changes the host sent before this side
    /// started (applied at the start), with the peer (index) they came
    /// from.
    early_roster: Vec<(usize, Roster)>,
    /// A host coming back: the slots benched when it left (one bit
    /// each) and their bench ticks, from the guest's `Resume`, taken up
    /// once its catch-up replayed.
    pub(super) bench_back: (u8, [u32; MAX_PLAYERS as usize]),
    /// Joining: the tick of the host's first catch-up, once this side
    /// replayed it and said it is ready (the second one follows the
    /// change).
    pub(super) join_ready: Option<u32>,
    /// Host, running: a newcomer catching up before its change (see
    /// `join.rs`).
    pub(super) admitting: Option<Admission>,
}

impl<I> Default for Arrivals<I> {
    fn default() -> Self {
        Arrivals {
            gathered: None,
            waiting: Vec::new(),
            early_claims: Vec::new(),
            back: Vec::new(),
            early_roster: Vec::new(),
            bench_back: (0, [0; MAX_PLAYERS as usize]),
            join_ready: None,
            admitting: None,
        }
    }
}

/// The most `Rejoin` claims an entering side keeps for slots it has not
/// met.
const MAX_EARLY_CLAIMS: usize = 2 * MAX_BENCH_CLAIMS;

impl<I> Arrivals<I> {
    // ----- host: rejoins that wait ----------------------------------------

    /// Whether a rejoin waits on `link`.
    pub(super) fn waits_on(&self, link: PeerId) -> bool {
        self.waiting.iter().any(|w| w.link == link)
    }

    /// Whether a fresh session of player `p` waits to rejoin (its old
    /// session is then gone for good).
    pub(super) fn rejoin_waits(&self, p: &Peer) -> bool {
        self.waiting.iter().any(|w| Some(w.rejoin.slot) == p.slot)
    }

    /// Whether player `p` is away only because its old session is gone
    /// and its own fresh session waits (not leaving, not frozen for
    /// another change).
    pub(super) fn only_rejoining(&self, p: &Peer) -> bool {
        self.rejoin_waits(p) && p.dropped.is_some() && !p.frozen
    }

    /// The slots whose rejoins wait ahead of `slot`'s (all of them if
    /// `slot`'s does not wait).
    pub(super) fn waiting_before(&self, slot: u8) -> impl Iterator<Item = u8> + '_ {
        self.waiting
            .iter()
            .take_while(move |w| w.rejoin.slot != slot)
            .map(|w| w.rejoin.slot)
    }

    /// Keeps rejoin `r` on `link` waiting; the one that waited for the
    /// same slot, if any, gives its place and is returned.
    pub(super) fn wait(&mut self, link: PeerId, r: Rejoin) -> Option<WaitingRejoin> {
        let old = self.take_waiting(r.slot);
        self.waiting.push(WaitingRejoin {
            link,
            rejoin: r,
            quiet_frames: 0,
        });
        old
    }

    /// The rejoin that waits at `k` in the order they came.
    pub(super) fn waiting_at(&self, k: usize) -> Option<WaitingRejoin> {
        self.waiting.get(k).copied()
    }

    /// Forgets the rejoin that waits at `k`.
    pub(super) fn remove_waiting(&mut self, k: usize) {
        if k < self.waiting.len() {
            self.waiting.remove(k);
        }
    }

    /// Takes out the rejoin that waits for `slot`.
    pub(super) fn take_waiting(&mut self, slot: u8) -> Option<WaitingRejoin> {
        let i = self.waiting.iter().position(|w| w.rejoin.slot == slot)?;
        Some(self.waiting.remove(i))
    }

    /// Forgets the rejoin that waits on `link` (its link closed, or it
    /// gave up).
    pub(super) fn forget_waiting_on(&mut self, link: PeerId) {
        self.waiting.retain(|w| w.link != link);
    }

    /// Takes out every rejoin that waits.
    pub(super) fn take_all_waiting(&mut self) -> Vec<WaitingRejoin> {
        core::mem::take(&mut self.waiting)
    }

    /// Counts a frame for each rejoin that waits; the links of those
    /// whose keep-alive is due after `every` quiet frames.
    pub(super) fn keep_alive_due(&mut self, every: u32) -> Vec<PeerId> {
        let mut due = Vec::new();
        for w in &mut self.waiting {
            w.quiet_frames += 1;
            if w.quiet_frames >= every {
                w.quiet_frames = 0;
                due.push(w.link);
            }
        }
        due
    }

    // ----- entering: what came early ---------------------------------------

    /// Keeps a claim on `link` for `slot` with `token`, until the host's
    /// word; a link's newer claim replaces its older one, and the oldest
    /// goes when too many are kept.
    pub(super) fn keep_claim(&mut self, link: PeerId, slot: u8, token: u64) {
        self.early_claims.retain(|c| c.0 != link);
        if self.early_claims.len() >= MAX_EARLY_CLAIMS {
            self.early_claims.remove(0);
        }
        self.early_claims.push((link, slot, token));
    }

    /// The claims (link, token) kept for `slot`, the newest first.
    pub(super) fn claims_for(&self, slot: u8) -> Vec<(PeerId, u64)> {
        self.early_claims
            .iter()
            .rev()
            .filter(|c| c.1 == slot)
            .map(|&(l, _, t)| (l, t))
            .collect()
    }

    /// Forgets the claims for `slot` (its player's session showed up).
    pub(super) fn forget_claims(&mut self, slot: u8) {
        self.early_claims.retain(|c| c.1 != slot);
    }

    /// Takes out every claim kept (link, slot, token).
    pub(super) fn take_claims(&mut self) -> Vec<(PeerId, u8, u64)> {
        core::mem::take(&mut self.early_claims)
    }

    /// Keeps a change from peer `pi` that came before the start, unless
    /// `max` are kept already; whether it was kept.
    pub(super) fn keep_early_roster(&mut self, pi: usize, r: Roster, max: usize) -> bool {
        if self.early_roster.len() >= max {
            return false;
        }
        self.early_roster.push((pi, r));
        true
    }

    /// Takes out the changes that came before the start.
    pub(super) fn take_early_roster(&mut self) -> Vec<(usize, Roster)> {
        core::mem::take(&mut self.early_roster)
    }

    /// Peer `pi` is gone: the changes kept from later peers name them by
    /// their new index.
    pub(super) fn peer_removed(&mut self, pi: usize) {
        for (i, _) in &mut self.early_roster {
            if *i > pi {
                *i -= 1;
            }
        }
    }

    // ----- entering: players back since ------------------------------------

    /// The host took back the player of unmet slot `n.slot`; its fresh
    /// session is awaited (a later word for the same slot replaces it).
    pub(super) fn came_back(&mut self, n: Newcomer) {
        self.back.retain(|b| b.slot != n.slot);
        self.back.push(n);
    }

    /// The player awaited back in `slot`, if any.
    pub(super) fn back_in(&self, slot: u8) -> Option<Newcomer> {
        self.back.iter().find(|n| n.slot == slot).copied()
    }

    /// The player back in `slot` showed up.
    pub(super) fn seen_back(&mut self, slot: u8) {
        self.back.retain(|b| b.slot != slot);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rejoin(slot: u8) -> Rejoin {
        Rejoin {
            protocol: 0,
            build: 0,
            slot,
            token: 1,
        }
    }

    #[test]
    fn a_newer_rejoin_for_a_slot_takes_the_older_ones_place() {
        let mut a = Arrivals::<u8>::default();
        assert_eq!(a.wait(PeerId(1), rejoin(1)), None);
        assert_eq!(a.wait(PeerId(2), rejoin(2)), None);
        let old = a.wait(PeerId(3), rejoin(1));
        assert_eq!(old.map(|w| w.link), Some(PeerId(1)));
        assert!(!a.waits_on(PeerId(1)) && a.waits_on(PeerId(3)));
        // The order they came in: slot 2's first.
        assert_eq!(a.waiting_at(0).map(|w| w.link), Some(PeerId(2)));
        a.forget_waiting_on(PeerId(2));
        assert_eq!(a.take_waiting(1).map(|w| w.link), Some(PeerId(3)));
        assert!(a.take_all_waiting().is_empty());
    }

    #[test]
    fn keep_alives_are_due_every_so_many_quiet_frames() {
        let mut a = Arrivals::<u8>::default();
        a.wait(PeerId(1), rejoin(1));
        assert!(a.keep_alive_due(3).is_empty());
        assert!(a.keep_alive_due(3).is_empty());
        assert_eq!(a.keep_alive_due(3), [PeerId(1)]);
        assert!(a.keep_alive_due(3).is_empty());
    }

    #[test]
    fn early_claims_are_one_per_link_and_capped_oldest_first() {
        let mut a = Arrivals::<u8>::default();
        a.keep_claim(PeerId(0), 1, 10);
        a.keep_claim(PeerId(0), 1, 11);
        assert_eq!(a.claims_for(1), [(PeerId(0), 11)]);
        for k in 1..=MAX_EARLY_CLAIMS as u16 {
            a.keep_claim(PeerId(k), 2, u64::from(k));
        }
        // The first link's claim went to make room.
        assert!(a.claims_for(1).is_empty());
        assert_eq!(a.claims_for(2).len(), MAX_EARLY_CLAIMS);
        let newest = MAX_EARLY_CLAIMS as u16;
        assert_eq!(
            a.claims_for(2).first(),
            Some(&(PeerId(newest), u64::from(newest)))
        );
        a.forget_claims(2);
        assert!(a.take_claims().is_empty());
    }

    #[test]
    fn early_changes_are_capped_and_follow_their_peers_index() {
        let mut a = Arrivals::<u8>::default();
        let r = Roster {
            seq: 1,
            tick: 0,
            change: crate::wire::RosterChange::Neutral { slot: 1 },
        };
        assert!(a.keep_early_roster(0, r, 2));
        assert!(a.keep_early_roster(2, r, 2));
        assert!(!a.keep_early_roster(1, r, 2));
        a.peer_removed(1);
        let kept: Vec<usize> = a.take_early_roster().into_iter().map(|(i, _)| i).collect();
        assert_eq!(kept, [0, 1]);
    }
}
