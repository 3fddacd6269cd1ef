//! The host's place moves to a guest when the host never comes back.
//!
//! While slot 0 is held, one guest acts for the absent host: the lowest
//! guest slot still driven (`acting_slot`, which every guest finds alone
//! from the membership they share, since nobody orders a change while
//! slot 0 is held). When slot 0's window runs out in a game that plays on
//! after a leave with the players who remain (at least two), that guest
//! leaves slot 0 exactly as a host leaves a gone guest's slot:
//!
//! 1. it asks every other guest which of slot 0's inputs it holds past
//!    its own count (`Missing { slot: 0 }`); each stops taking the old
//!    host's inputs and answers with its runs (`Held`), as for a return
//!    of the host;
//! 2. the longest answer wins (every answer is a prefix of the one stream
//!    the old host sent everyone, and nobody confirmed a tick past its
//!    end `T`); it hands each guest the inputs of slot 0 it lacks, then
//!    orders `Roster { HostMoved { host } }` at `T`, `host` being its own
//!    slot;
//! 3. every member plays slot 0's absent input from `T`, raises
//!    `Event::Left { slot: 0, tick: T }` and `Event::HostMoved { slot:
//!    host, tick: T }`, and takes `host` for the match's host from then
//!    on: its changes (leaves, benches, the spectator count) are the ones
//!    that count, and its link is the one whose silence is waited out.
//!
//! A guest takes the change only from the link of the guest it finds
//! acting itself, and only naming that guest's slot, in turn (after that
//! guest's question about slot 0, at the end of slot 0's inputs it was
//! handed): anything else is refused on that link alone and changes
//! nothing.

use super::handshake::match_hello;
use super::rejoin;
use super::{Event, Message, Phase, Session, Violation};
use crate::game::DeterministicGame;
use crate::time::Millis;
use crate::wire::{Missing, Rejoin, RejoinRefusal, Roster, MAX_PLAYERS};
use alloc::vec::Vec;

use super::roster::Leaving;

impl<G: DeterministicGame> Session<G> {
    /// Whether this side is the match's host: slot 0, or (once the host
    /// left for good and its place moved, see [`Event::HostMoved`]) the
    /// guest that took it over. The page of the host orders the party's
    /// rooms (comebacks of rejoining players, spectators).
    pub fn is_host(&self) -> bool {
        self.side == self.members.host()
    }

    /// The slot of the match's host: 0, or the slot its place moved to
    /// (see [`Event::HostMoved`]).
    pub fn host_slot(&self) -> u8 {
        self.members.host()
    }

    /// Whether slot 0 leaving may move the host's place to a guest here:
    /// this side is a guest, and the host is still slot 0 (a host that
    /// moved once does not move again: its slot leaving ends the match).
    pub(super) fn host_may_move(&self, slot: u8) -> bool {
        slot == 0 && self.members.host() == 0 && self.side != 0
    }

    /// The guest acting for the absent host, once slot 0's window ran
    /// out in a game that plays on: asks every other guest for slot 0's
    /// inputs past its own, to leave the slot at the end of the longest
    /// stream and take the host's place. Returns whether it began (it
    /// does not while another gathering is under way).
    pub(super) fn begin_host_move(&mut self, now: Millis) -> bool {
        if self.acting_slot() != Some(self.side) {
            return false;
        }
        let Phase::Running(run) = &mut self.phase else {
            return false;
        };
        if run.leaving.is_some() || run.entry.is_some() {
            return false;
        }
        let have = run.timeline.inputs_of(0).len() as u32;
        let mut others = Vec::new();
        for p in &mut self.peers {
            if p.slot == Some(0) {
                p.frozen = true;
            } else if p.slot.is_some() {
                p.out
                    .send(&Message::<G::Input>::Missing(Missing { slot: 0, have }));
                others.push(p.id);
            }
        }
        run.leaving = Some(Leaving::new(0, have, others.into_iter()));
        log::info!(
            "the host did not come back: asking the other guests for its inputs past tick {have}"
        );
        let complete = run.leaving.as_ref().is_some_and(Leaving::complete);
        if complete {
            self.finish_leave(now);
        }
        true
    }

    /// `Roster { HostMoved { host } }` on link `pi`. A guest takes it only
    /// from the guest acting for the absent host, naming its own slot,
    /// after its question about slot 0 and at the end of the inputs of
    /// slot 0 it handed over; otherwise it refuses it on that link alone
    /// (logged), and nothing changes. The host never gets one:
    /// [`Violation::UnexpectedRoster`].
    pub(super) fn on_host_moved(&mut self, now: Millis, pi: usize, r: Roster, host: u8) {
        if self.is_host() {
            // Nobody moves the place of a host that is here.
            self.violation(Violation::UnexpectedRoster);
            return;
        }
        let acting = self.is_acting_link(pi) && self.acting_slot() == Some(host);
        let Phase::Running(run) = &mut self.phase else {
            return;
        };
        let held = run.timeline.inputs_of(0).len() as u32;
        let fits = acting
            && self.members.host() == 0
            && r.seq == run.roster_seq.wrapping_add(1)
            && run.asked == Some(0)
            && held == r.tick;
        if !fits {
            let link = self.peers.get(pi).map(|p| p.id);
            log::warn!(
                "a move of the host's place to slot {host} on {link:?} that is not the acting \
                 guest's, or out of turn: refused"
            );
            return;
        }
        run.roster_seq = r.seq;
        run.asked = None;
        // As for any leave: a hash of ticks from the change on that came
        // before it may be one a gone session computed with other inputs
        // of slot 0; the new host's are checked, as the host's would be.
        for p in &mut self.peers {
            if p.slot != Some(0) && p.slot != Some(host) {
                p.hashes.forget_from(r.tick);
            }
        }
        self.apply_host_moved(now, r.tick, host);
    }

    /// Slot 0 plays the absent input from `tick` on and `host` is the
    /// match's host: the new host orders the spectator count down to 0
    /// (the old host's spectators watched it alone and are gone with it).
    pub(super) fn apply_host_moved(&mut self, _now: Millis, tick: u32, host: u8) {
        self.apply_neutral(0, tick);
        self.members.host_moved(host);
        if let (true, Phase::Running(run)) = (self.is_host(), &self.phase) {
            // The guests apply the change without acknowledging it (as
            // a change of the host's return): it counts as acknowledged,
            // so the next change this side orders is waited for from
            // there.
            for p in &mut self.peers {
                p.roster_acked = run.roster_seq;
            }
        }
        log::info!("slot {host} is the host from tick {tick}");
        self.events.push_back(Event::HostMoved { slot: host, tick });
        let counted = match &self.phase {
            Phase::Running(run) => run.watchers.at(run.timeline.tick()) > 0,
            _ => false,
        };
        if self.is_host() && counted {
            self.order_spectator_count();
        }
    }

    /// Guest: the host benched `slot` with `held_for` milliseconds of its
    /// window left. A guest that has not seen the player go yet (its own
    /// link to it may close later, or never, once the slot is benched)
    /// raises `Event::Dropped` with the host's time left, so its page
    /// shows the same countdown as the host's.
    pub(super) fn heard_of_bench(&mut self, slot: u8, held_for: u32) {
        let unseen = self
            .peers
            .iter()
            .any(|p| p.slot == Some(slot) && p.dropped.is_none());
        if unseen {
            self.events.push_back(Event::Dropped {
                slot,
                held_for: Millis(u64::from(held_for)),
            });
        }
    }

    /// Guest: the host named `proof` as the check of slot `slot`'s token
    /// (a player came back to it, or a new one took it).
    pub(super) fn keep_proof(&mut self, slot: u8, proof: u64) {
        self.members.keep_proof(slot, proof);
    }

    /// Host: whether `r.token` is the token of slot `r.slot` in match
    /// `match_id`. Slot 0's host computes it from its entropy; a guest the
    /// host's place moved to holds no entropy (and must not: it could
    /// then make every token) but checks the token against the check the
    /// old host's Hello gave it, as every guest checks a returning host's.
    pub(super) fn check_token(&self, match_id: u64, r: &Rejoin) -> Result<(), RejoinRefusal> {
        let fits = if self.side == 0 {
            let Some(e) = self.cfg.rejoin_entropy else {
                return Err(RejoinRefusal::HostUnable);
            };
            let seat = self.members.seat(r.slot);
            rejoin::token(e, match_id, r.slot, seat) == r.token
        } else {
            let check = self.members.proof(r.slot);
            if check == 0 {
                // The old host issued no token for the slot.
                return Err(RejoinRefusal::HostUnable);
            }
            rejoin::proof(r.token, match_id, r.slot) == check
        };
        if fits {
            Ok(())
        } else {
            Err(RejoinRefusal::WrongToken)
        }
    }

    /// The Hello of a guest the host's place moved to, to a player
    /// rejoining slot `to`: the match as the old host's Hello gave it,
    /// this side's slot as the host's, and the checks of every slot's
    /// token it holds. No token: the rejoiner keeps the one it came back
    /// with (this side could not make one).
    pub(super) fn moved_host_hello(&self, to: u8) -> Message<G::Input> {
        let p = self.phase.params();
        let mut proofs = [0; MAX_PLAYERS as usize];
        for (s, check) in proofs.iter_mut().enumerate().take(usize::from(p.players)) {
            // Slot 0 left for good: nobody can take it back.
            if s != 0 {
                *check = self.members.proofs().get(s).copied().unwrap_or(0);
            }
        }
        Message::Hello(match_hello(&p, G::BUILD_ID, self.side, to, proofs))
    }
}
