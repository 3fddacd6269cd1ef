//! Who plays which slot while the match runs: players that dropped and
//! the time their slot is held, and the membership changes the host
//! orders (a player that left plays the neutral input from a tick on; a
//! player that rejoined sends its slot's inputs again from a tick on).
//!
//! A leave goes in three steps, all on the reliable channel:
//!
//! 1. the host asks every remaining player which of the gone player's
//!    inputs it holds beyond the host's own ([`Missing`]); each stops
//!    taking that player's inputs and answers with its runs ([`Held`]);
//! 2. the longest run wins (every run is a prefix of the same stream: the
//!    gone player sent the same inputs to everyone), and its end is the
//!    change's tick: nobody can have confirmed a tick past it, since that
//!    needs the gone player's input for it;
//! 3. the host hands every player the inputs it lacks up to that tick
//!    ([`Held`]) and then the change ([`Roster`]); each applies it and
//!    acknowledges it.
//!
//! A rejoin in a match of three players or more goes the same way: the
//! host gathers the player's inputs the others hold, so its fresh session
//! starts from the longest stream anyone has, and the change hands the
//! slot back (`Returned`) instead of playing it neutral.
//!
//! A drop in a game that plays on while a slot is held goes the same way
//! as a leave, at once instead of when the window runs out: the change
//! (`Benched`) plays the slot neutral but keeps it its player's, and the
//! player's return is ordered like a late join (`Joined`, with the
//! fingerprint of the slot's own token).
//!
//! A late join needs no gathering (every side holds the same neutral
//! inputs of a free slot): the host orders the change (`Joined`) at a
//! tick past any it sent inputs for, holds back its own inputs from that
//! tick until every player acknowledged the change, and only then sends
//! the new player its catch-up ([`Joining`], [`Newcomer`]).
//!
//! [`Missing`]: crate::wire::Missing
//! [`Held`]: crate::wire::Held
//! [`Roster`]: crate::wire::Roster
//! [`RosterChange`]: crate::wire::RosterChange

use alloc::vec::Vec;

use super::peer::PeerId;
use crate::time::Millis;
use crate::wire::{Held, Rejoin, MAX_RUN};

/// A player whose link failed or went silent, while its slot is held.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Dropped {
    /// When the slot stops being held.
    pub(super) until: Millis,
    /// The whole seconds left last announced in an `Event::Waiting`.
    pub(super) announced: u64,
    /// The window ran out and the session acted on it (it now waits for
    /// the host's change, or has begun it).
    pub(super) ran_out: bool,
    /// Still heard, but its inputs stopped while this side waited on them
    /// (a link cut one way only, or a game that froze): only new inputs
    /// bring it back, not its pings.
    pub(super) deaf: bool,
}

/// A benched slot: its player dropped, the slot plays the neutral input
/// on every side from `tick`, and it stays its player's until the
/// player rejoins or (host) the window runs out at `until`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Benched {
    /// The slot.
    pub(super) slot: u8,
    /// The first tick it played the neutral input.
    pub(super) tick: u32,
    /// Host: when the slot stops being held.
    pub(super) until: Millis,
    /// Guest: `Rejoin` claims (link, token) for the slot, kept until the
    /// host's word that its player is back.
    pub(super) claims: Vec<(PeerId, u64)>,
}

/// The most `Rejoin` claims a guest keeps for a benched slot until the
/// host's word (one per link a fresh session may speak on).
pub(super) const MAX_BENCH_CLAIMS: usize = 8;

/// Host: a fresh session's `Rejoin` for a held slot that was right (the
/// slot's token, its window still open) but could not be taken up when it
/// came: another player was away, or a change was under way. It waits,
/// one per slot, and is checked again until it can be taken or must be
/// refused; meanwhile its link gets a keep-alive every ping interval.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct WaitingRejoin {
    /// The link the fresh session spoke on (for a slot still held by a
    /// `Peer`, that peer's link since the request came).
    pub(super) link: PeerId,
    /// The request.
    pub(super) rejoin: Rejoin,
    /// Frames since the last keep-alive on `link`.
    pub(super) quiet_frames: u32,
}

/// Host: a new player taking a free slot (one that plays the neutral
/// input), from the change until every player acknowledged it. Until
/// then the host samples none of its own inputs for `tick` or later, so
/// no player can have made final a tick from `tick` on with the neutral
/// input in that slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Joining {
    /// The slot taken.
    pub(super) slot: u8,
    /// The link the new player's session spoke on.
    pub(super) link: PeerId,
    /// The first tick the slot plays the new player's inputs.
    pub(super) tick: u32,
    /// The change's number.
    pub(super) seq: u16,
    /// The slot's own player coming back from the bench (with the slot's
    /// token) rather than a new one.
    pub(super) back: bool,
    /// A newcomer (not `back`) replayed a first catch-up to this tick
    /// before the change: its second catch-up starts there.
    pub(super) from: u32,
}

/// Guest: the host let a new player into `slot`; its session is taken on
/// the link whose `Rejoin` shows the token with fingerprint `proof`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Newcomer {
    /// The slot taken.
    pub(super) slot: u8,
    /// The fingerprint of the new player's token.
    pub(super) proof: u64,
    /// How many of this side's inputs the host had acknowledged when the
    /// change came: the host's catch-up for the new player came later, so
    /// it holds at least these.
    pub(super) host_had: u32,
    /// The first tick the slot plays the new player's inputs.
    pub(super) tick: u32,
    /// The slot's own player coming back (rejoining a slot this side
    /// entered the match without meeting: its player was away then)
    /// rather than a new one.
    pub(super) returned: bool,
}

/// One remaining player's answer to the host's [`Missing`](crate::wire::Missing).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Reply {
    pub(super) peer: PeerId,
    /// The tick its next run must start at (`None` before its first).
    pub(super) next: Option<u32>,
    /// Its last run came (one shorter than [`MAX_RUN`]).
    pub(super) done: bool,
}

/// Why a run from a remaining player was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum RunRefused {
    /// Not from a player asked, after its last run, or not where its
    /// previous run ended (or, the first, past the host's own inputs).
    OutOfTurn,
    /// An input differs from the one the host already holds for its tick.
    Conflict(u32),
    /// A tick further ahead than an honest player can hold.
    TooFarAhead(u32),
}

/// The host gathering a gone player's inputs from the players that
/// remain.
#[derive(Debug)]
pub(super) struct Leaving<I> {
    /// The gone player's slot.
    pub(super) slot: u8,
    /// How many of its inputs the host held when it asked.
    pub(super) have: u32,
    /// Its inputs beyond `have`, learned from the answers.
    pub(super) tail: Vec<I>,
    /// One per remaining player.
    pub(super) replies: Vec<Reply>,
    /// The player is not gone but rejoining: the link its fresh session
    /// spoke on and its token. The change then hands the slot back to it
    /// instead of the neutral input.
    pub(super) rejoin: Option<(PeerId, u64)>,
    /// The player dropped in a game that plays on while its slot is held:
    /// the change benches the slot (neutral input, still held) instead of
    /// ending its player's place in the match.
    pub(super) bench: bool,
}

impl<I: Copy + PartialEq> Leaving<I> {
    /// The host asks `peers` about `slot`, holding `have` of its inputs.
    pub(super) fn new(slot: u8, have: u32, peers: impl Iterator<Item = PeerId>) -> Self {
        Leaving {
            slot,
            have,
            tail: Vec::new(),
            replies: peers
                .map(|peer| Reply {
                    peer,
                    next: None,
                    done: false,
                })
                .collect(),
            rejoin: None,
            bench: false,
        }
    }

    /// The tick the change will hold from, as far as the answers so far
    /// tell.
    pub(super) fn end(&self) -> u32 {
        // Cannot overflow: the tail is bounded by `limit` in `fold`.
        self.have + self.tail.len() as u32
    }

    /// Whether every remaining player answered in full.
    pub(super) fn complete(&self) -> bool {
        self.replies.iter().all(|r| r.done)
    }

    /// `peer`'s answer is no longer awaited: its player's old session is
    /// gone for good (a fresh one waits to take the slot back, starting
    /// from the host's record), so what it held of the slot's inputs
    /// plays no part any more. What it sent already stays.
    pub(super) fn forget(&mut self, peer: PeerId) {
        self.replies.retain(|r| r.peer != peer);
    }

    /// Where `peer`'s inputs of the slot end (after its answer).
    pub(super) fn count_of(&self, peer: PeerId) -> Option<u32> {
        self.replies
            .iter()
            .find(|r| r.peer == peer)
            .and_then(|r| r.next)
    }

    /// Takes one run `h` from `peer`: checks it against the host's own
    /// inputs of the slot (`own`, `have` of them) and what the others
    /// sent, and keeps what is new. `limit` is the furthest tick an honest
    /// player can hold. Nothing changes when it is refused.
    pub(super) fn fold(
        &mut self,
        peer: PeerId,
        own: &[I],
        h: &Held<I>,
        limit: u32,
    ) -> Result<(), RunRefused> {
        let have = self.have;
        let end = self.end();
        let Some(reply) = self.replies.iter().find(|r| r.peer == peer) else {
            return Err(RunRefused::OutOfTurn);
        };
        let in_turn = !reply.done
            && h.slot == self.slot
            && match reply.next {
                Some(next) => h.first_tick == next,
                None => h.first_tick <= have,
            };
        if !in_turn {
            return Err(RunRefused::OutOfTurn);
        }
        // Cannot overflow: the decoder checked first_tick + len <= u32::MAX.
        let stop = h.first_tick + h.pads.len() as u32;
        if stop > limit {
            return Err(RunRefused::TooFarAhead(stop));
        }
        // Validate every input before keeping any.
        for (i, pad) in h.pads.iter().enumerate() {
            let t = h.first_tick + i as u32;
            let known = if t < have {
                own.get(t as usize)
            } else {
                self.tail.get((t - have) as usize)
            };
            if known.is_some_and(|k| k != pad) {
                return Err(RunRefused::Conflict(t));
            }
        }
        if stop > end {
            let fresh = (end - h.first_tick) as usize;
            if let Some(new) = h.pads.get(fresh..) {
                self.tail.extend_from_slice(new);
            }
        }
        if let Some(r) = self.replies.iter_mut().find(|r| r.peer == peer) {
            r.next = Some(stop);
            r.done = h.pads.len() < MAX_RUN;
        }
        Ok(())
    }
}

/// Splits `pads` (the slot's inputs from tick `first`) into runs of at
/// most [`MAX_RUN`]; with `terminated`, the last run is shorter than
/// [`MAX_RUN`] (an empty one follows a full one), so the receiver knows
/// the answer is over.
pub(super) fn runs<I: Copy>(slot: u8, first: u32, pads: &[I], terminated: bool) -> Vec<Held<I>> {
    let mut out: Vec<Held<I>> = pads
        .chunks(MAX_RUN)
        .enumerate()
        .map(|(i, c)| Held {
            slot,
            // Cannot overflow: the caller's pads end at a tick it holds.
            first_tick: first + (i * MAX_RUN) as u32,
            pads: c.to_vec(),
        })
        .collect();
    if terminated && out.last().is_none_or(|h| h.pads.len() == MAX_RUN) {
        out.push(Held {
            slot,
            first_tick: first + pads.len() as u32,
            pads: Vec::new(),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    fn held(first_tick: u32, pads: Vec<u8>) -> Held<u8> {
        Held {
            slot: 2,
            first_tick,
            pads,
        }
    }

    #[test]
    fn the_longest_answer_sets_the_tick_and_shorter_ones_must_agree() {
        let own = [1u8, 2, 3, 4];
        let mut l = Leaving::new(2, 4, [PeerId(1), PeerId(3)].into_iter());
        // One player holds two more than the host, the other one fewer.
        assert_eq!(l.fold(PeerId(1), &own, &held(4, vec![5, 6]), 100), Ok(()));
        assert!(!l.complete());
        assert_eq!(
            l.fold(PeerId(3), &own, &held(3, vec![9]), 100),
            Err(RunRefused::Conflict(3))
        );
        assert_eq!(l.fold(PeerId(3), &own, &held(3, vec![4]), 100), Ok(()));
        assert!(l.complete());
        assert_eq!(l.end(), 6);
        assert_eq!(l.tail, vec![5, 6]);
        assert_eq!(l.count_of(PeerId(3)), Some(4));
        // Nothing more from a player whose answer is over.
        assert_eq!(
            l.fold(PeerId(1), &own, &held(6, vec![]), 100),
            Err(RunRefused::OutOfTurn)
        );
    }

    #[test]
    fn runs_must_follow_each_other_and_stay_within_reach() {
        let own = [0u8; 10];
        let mut l = Leaving::new(2, 10, [PeerId(1)].into_iter());
        assert_eq!(
            l.fold(PeerId(1), &own, &held(11, vec![]), 100),
            Err(RunRefused::OutOfTurn)
        );
        assert_eq!(
            l.fold(PeerId(9), &own, &held(10, vec![]), 100),
            Err(RunRefused::OutOfTurn)
        );
        let full = vec![7u8; MAX_RUN];
        assert_eq!(
            l.fold(PeerId(1), &own, &held(10, full.clone()), 100),
            Err(RunRefused::TooFarAhead(10 + MAX_RUN as u32))
        );
        assert_eq!(l.fold(PeerId(1), &own, &held(10, full), 1000), Ok(()));
        assert!(!l.complete());
        assert_eq!(
            l.fold(PeerId(1), &own, &held(10, vec![]), 1000),
            Err(RunRefused::OutOfTurn)
        );
        assert_eq!(
            l.fold(PeerId(1), &own, &held(10 + MAX_RUN as u32, vec![]), 1000),
            Ok(())
        );
        assert!(l.complete());
    }

    #[test]
    fn an_answer_ends_with_a_short_run() {
        let pads = vec![1u8; MAX_RUN];
        let r = runs(3, 5, &pads, true);
        assert_eq!(r.len(), 2);
        assert_eq!(r[1].first_tick, 5 + MAX_RUN as u32);
        assert!(r[1].pads.is_empty());
        assert_eq!(runs(3, 5, &pads[..3], true).len(), 1);
        assert_eq!(runs::<u8>(3, 5, &[], true).len(), 1);
        assert!(runs::<u8>(3, 5, &[], false).is_empty());
    }
}
