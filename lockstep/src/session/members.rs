//! Who is in the match: which slot the host holds, this side's rejoin
//! token and the checks of everyone's (the host's own too), how many
//! players took each slot, the slots held for a dropped player (benched),
//! the links of players that left, and the links outside the match that
//! wait for an answer.
//!
//! The session asks this part its questions (is a slot benched, what is a
//! slot's seat or proof, is a link gone) and tells it what changed; the
//! rules of who may come back and when stay with the session, which sees
//! the links and the timeline.

use alloc::vec::Vec;

use super::peer::PeerId;
use super::roster::Benched;
use super::sender::Outbox;
use crate::time::Millis;
use crate::transport::Channel;
use crate::wire::MAX_PLAYERS;

/// The match's membership as this side knows it.
#[derive(Debug, Default)]
pub(super) struct Members {
    /// Guest: the rejoin token the host gave this side (or, rejoining,
    /// the one it came back with).
    token: Option<u64>,
    /// Guest: the check of the host's own token from the host's Hello
    /// (0: the host issues no tokens), against which a fresh session of
    /// the host coming back is checked.
    host_check: u64,
    /// The host's slot: 0, or the guest's its place moved to when the
    /// host left for good (see `migrate.rs`).
    host: u8,
    /// Guest: the check of every slot's token (see `rejoin::proof`), from
    /// the host's Hello and every later change that names one; the guest
    /// the host's place moves to checks returning players with it.
    proofs: [u64; MAX_PLAYERS as usize],
    /// Host: for each slot, how many players took it after its first
    /// (late joins); each one's rejoin token differs.
    seats: [u8; MAX_PLAYERS as usize],
    /// Slots of the running match whose dropped player is benched: they
    /// play the neutral input while held.
    benched: Vec<Benched>,
    /// The links of players that left the match: their datagrams are
    /// dropped.
    gone: Vec<PeerId>,
    /// Host: links the match does not know that asked to rejoin or join,
    /// and the answer waiting for each.
    strangers: Vec<(PeerId, Outbox)>,
}

impl Members {
    /// A side that holds `token` (a rejoiner's) or none yet.
    pub(super) fn new(token: Option<u64>) -> Self {
        Members {
            token,
            ..Members::default()
        }
    }

    // ----- the host and this side's token ---------------------------------

    /// The host's slot.
    pub(super) fn host(&self) -> u8 {
        self.host
    }

    /// The host's place moved to slot `host`.
    pub(super) fn host_moved(&mut self, host: u8) {
        self.host = host;
    }

    /// The check of the host's own token (0: the host issues none).
    pub(super) fn host_check(&self) -> u64 {
        self.host_check
    }

    /// This side's rejoin token, once it has one.
    pub(super) fn token(&self) -> Option<u64> {
        self.token
    }

    /// Keeps `token`, the one the host gave this side.
    pub(super) fn keep_token(&mut self, token: u64) {
        self.token = Some(token);
    }

    // ----- slots -------------------------------------------------------

    /// How many players took `slot` after its first (its rejoin token's
    /// seat).
    pub(super) fn seat(&self, slot: u8) -> u8 {
        self.seats.get(usize::from(slot)).copied().unwrap_or(0)
    }

    /// Every slot's seat, as the host's Hello carries them.
    pub(super) fn seats(&self) -> &[u8; MAX_PLAYERS as usize] {
        &self.seats
    }

    /// Sets `slot`'s seat (a late join took it, or a released newcomer
    /// burnt its token).
    pub(super) fn set_seat(&mut self, slot: u8, seat: u8) {
        if let Some(x) = self.seats.get_mut(usize::from(slot)) {
            *x = seat;
        }
    }

    /// One more player took `slot` (or a newcomer's token for it was
    /// burnt, so it is never given again).
    pub(super) fn take_seat(&mut self, slot: u8) {
        self.set_seat(slot, self.seat(slot).saturating_add(1));
    }

    /// The check of `slot`'s token (0: none known).
    pub(super) fn proof(&self, slot: u8) -> u64 {
        self.proofs.get(usize::from(slot)).copied().unwrap_or(0)
    }

    /// Every slot's check.
    pub(super) fn proofs(&self) -> &[u64; MAX_PLAYERS as usize] {
        &self.proofs
    }

    /// Keeps `proof` as the check of `slot`'s token.
    pub(super) fn keep_proof(&mut self, slot: u8, proof: u64) {
        if let Some(check) = self.proofs.get_mut(usize::from(slot)) {
            *check = proof;
        }
    }

    /// Guest: what the host's Hello says of the match's members: the
    /// host's slot, the check of its own token and of every slot's.
    pub(super) fn heard_hello(
        &mut self,
        host: u8,
        host_check: u64,
        proofs: [u64; MAX_PLAYERS as usize],
    ) {
        self.host = host;
        self.host_check = host_check;
        self.proofs = proofs;
    }

    // ----- the bench -----------------------------------------------------

    /// Whether `slot` is benched.
    pub(super) fn is_benched(&self, slot: u8) -> bool {
        self.benched.iter().any(|b| b.slot == slot)
    }

    /// Whether any slot is benched.
    pub(super) fn any_benched(&self) -> bool {
        !self.benched.is_empty()
    }

    /// The first tick benched `slot` played the neutral input.
    pub(super) fn bench_tick(&self, slot: u8) -> Option<u32> {
        self.benched.iter().find(|b| b.slot == slot).map(|b| b.tick)
    }

    /// Benches `b.slot` (a slot benched already is benched anew).
    pub(super) fn bench(&mut self, b: Benched) {
        self.benched.retain(|x| x.slot != b.slot);
        self.benched.push(b);
    }

    /// The benched slots.
    pub(super) fn benches(&self) -> impl Iterator<Item = &Benched> + '_ {
        self.benched.iter()
    }

    /// Benched `slot`, to keep a claim for it.
    pub(super) fn bench_of(&mut self, slot: u8) -> Option<&mut Benched> {
        self.benched.iter_mut().find(|b| b.slot == slot)
    }

    /// Takes `slot` off the bench: what it held, `None` if not benched.
    pub(super) fn unbench(&mut self, slot: u8) -> Option<Benched> {
        let i = self.benched.iter().position(|b| b.slot == slot)?;
        Some(self.benched.remove(i))
    }

    /// Host: takes off the bench a slot whose window ran out by `now`.
    pub(super) fn bench_ran_out(&mut self, now: Millis) -> Option<Benched> {
        let i = self.benched.iter().position(|b| now >= b.until)?;
        Some(self.benched.remove(i))
    }

    /// When each bench runs out.
    pub(super) fn bench_deadlines(&self) -> impl Iterator<Item = Millis> + '_ {
        self.benched.iter().map(|b| b.until)
    }

    // ----- links ---------------------------------------------------------

    /// Whether link `id` belongs to a player that left.
    pub(super) fn is_gone(&self, id: PeerId) -> bool {
        self.gone.contains(&id)
    }

    /// Link `id`'s player left: its datagrams are dropped from now on.
    pub(super) fn left(&mut self, id: PeerId) {
        self.gone.push(id);
    }

    /// Link `id` speaks for a player of the match again: its datagrams
    /// are no longer dropped.
    pub(super) fn forget_gone(&mut self, id: PeerId) {
        self.gone.retain(|g| *g != id);
    }

    /// A player's link changed from `old` to `new` (its fresh session
    /// came back on another): `old` is gone and `new` no stranger.
    pub(super) fn relinked(&mut self, old: PeerId, new: PeerId) {
        self.left(old);
        self.drop_stranger(new);
    }

    /// Link `id` speaks for a player of the match again (a fresh session
    /// on it came back or joined): it is neither gone nor a stranger.
    pub(super) fn welcome(&mut self, id: PeerId) {
        self.forget_gone(id);
        self.drop_stranger(id);
    }

    /// The answer queue of stranger `link`, made on first use.
    pub(super) fn stranger_out(&mut self, link: PeerId) -> &mut Outbox {
        let i = match self.strangers.iter().position(|(id, _)| *id == link) {
            Some(i) => i,
            None => {
                self.strangers.push((link, Outbox::default()));
                self.strangers.len() - 1
            }
        };
        &mut self.strangers[i].1
    }

    /// Keeps `out` as the answers owed to stranger `link`.
    pub(super) fn add_stranger(&mut self, link: PeerId, out: Outbox) {
        self.strangers.push((link, out));
    }

    /// Forgets stranger `link` and what it was owed.
    pub(super) fn drop_stranger(&mut self, link: PeerId) {
        self.strangers.retain(|(id, _)| *id != link);
    }

    /// The next datagram owed to any stranger, the one that came first
    /// served first; strangers owed nothing more are forgotten on the way,
    /// so one drained stranger never hides another's answer.
    pub(super) fn poll_any_stranger(&mut self) -> Option<(PeerId, Channel, Vec<u8>)> {
        while let Some((id, out)) = self.strangers.first_mut() {
            let id = *id;
            if let Some((channel, bytes)) = out.pop() {
                return Some((id, channel, bytes));
            }
            self.strangers.remove(0);
        }
        None
    }

    /// The next datagram owed to stranger `link`; a stranger owed nothing
    /// more is forgotten.
    pub(super) fn poll_stranger_to(&mut self, link: PeerId) -> Option<(Channel, Vec<u8>)> {
        let i = self.strangers.iter().position(|(id, _)| *id == link)?;
        let next = self.strangers.get_mut(i).and_then(|(_, out)| out.pop());
        if next.is_none() {
            self.strangers.remove(i);
        }
        next
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seats_and_proofs_read_zero_for_unknown_slots() {
        let mut m = Members::new(Some(9));
        assert_eq!(m.token(), Some(9));
        m.set_seat(2, 3);
        m.keep_proof(2, 77);
        assert_eq!((m.seat(2), m.proof(2)), (3, 77));
        assert_eq!((m.seat(1), m.proof(1)), (0, 0));
        // A slot beyond the match's players is no panic, and holds nothing.
        m.set_seat(200, 1);
        m.keep_proof(200, 1);
        assert_eq!((m.seat(200), m.proof(200)), (0, 0));
    }

    #[test]
    fn the_hosts_hello_names_the_host_and_the_checks() {
        let mut m = Members::default();
        let mut proofs = [0; MAX_PLAYERS as usize];
        proofs[1] = 5;
        m.heard_hello(0, 42, proofs);
        assert_eq!((m.host(), m.host_check(), m.proof(1)), (0, 42, 5));
        m.host_moved(2);
        assert_eq!(m.host(), 2);
        assert_eq!(m.token(), None);
        m.keep_token(7);
        assert_eq!(m.token(), Some(7));
    }

    #[test]
    fn a_slot_benched_again_is_benched_once_and_runs_out_by_its_own_deadline() {
        let mut m = Members::default();
        m.bench(Benched {
            slot: 1,
            tick: 10,
            until: Millis(1_000),
            claims: Vec::new(),
        });
        m.bench(Benched {
            slot: 2,
            tick: 20,
            until: Millis(500),
            claims: Vec::new(),
        });
        m.bench(Benched {
            slot: 1,
            tick: 30,
            until: Millis(2_000),
            claims: Vec::new(),
        });
        assert_eq!(m.benched.len(), 2);
        assert_eq!(m.bench_tick(1), Some(30));
        assert_eq!(m.bench_ran_out(Millis(400)), None);
        assert_eq!(m.bench_ran_out(Millis(600)).map(|b| b.slot), Some(2));
        assert_eq!(m.bench_ran_out(Millis(600)), None);
        assert!(m.is_benched(1) && !m.is_benched(2));
        assert_eq!(m.unbench(1).map(|b| b.tick), Some(30));
        assert!(!m.any_benched());
        assert_eq!(m.unbench(1), None);
    }

    #[test]
    fn a_link_welcomed_back_is_neither_gone_nor_a_stranger() {
        let mut m = Members::default();
        let (a, b) = (PeerId(1), PeerId(2));
        m.left(a);
        m.stranger_out(a);
        m.stranger_out(b);
        assert!(m.is_gone(a));
        m.welcome(a);
        assert!(!m.is_gone(a));
        // Nothing is owed to `b`: polling forgets it.
        assert_eq!(m.poll_stranger_to(b), None);
        assert_eq!(m.poll_any_stranger(), None);
    }

    #[test]
    fn a_stranger_owed_nothing_does_not_hide_the_next_ones_answer() {
        let mut m = Members::default();
        let (a, b) = (PeerId(1), PeerId(2));
        m.stranger_out(a);
        let bye = crate::wire::Message::<u8>::Bye(crate::wire::ByeReason::Quit);
        m.stranger_out(b).send(&bye);
        let (link, channel, bytes) = m.poll_any_stranger().expect("b's answer");
        assert_eq!((link, channel), (b, bye.channel()));
        assert_eq!(Some(bytes), bye.encode().ok());
        assert_eq!(m.poll_any_stranger(), None, "both forgotten");
        assert_eq!(m.poll_stranger_to(a), None);
    }
}
