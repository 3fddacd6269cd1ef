//! Rejoin after a reload: the tokens the host gives its guests, the
//! catch-up it sends a player that comes back with a fresh session, and
//! the rejoiner gathering that catch-up before it replays it.
//!
//! The host's record is the truth: the catch-up carries every input the
//! host holds of each slot, the rejoiner's own included. Inputs the
//! rejoiner's old session had sampled but the host never received are
//! gone; the fresh session samples its pad again from the first tick the
//! host lacks.

use alloc::vec;
use alloc::vec::Vec;

use super::sender::Outbox;
use crate::wire::{
    CatchUp, CatchUpRun, Message, SavedState, MAX_RUN, MAX_SAVED_STATE, MAX_STATE_PIECE,
};
use serde::de::DeserializeOwned;
use serde::Serialize;

/// The most ticks a catch-up may carry per slot: two hours at 60 ticks per
/// second (a longer one is refused rather than held in memory).
pub(super) const MAX_CATCH_UP_TICKS: u32 = 2 * 60 * 60 * 60;

/// The token the host gives the player in `slot` of match `match_id`, from
/// the caller's entropy: a keyed hash (SipHash 2-4), so it cannot be
/// guessed from what the wire shows. Never 0 (0 means "no token").
/// `seat` counts the players that took the slot after the first (by a
/// late join): each gets a token of its own, and the one before it can no
/// longer come back.
pub(super) fn token(entropy: u128, match_id: u64, slot: u8, seat: u8) -> u64 {
    // Core's SipHash is deprecated as a general-purpose `Hasher` in
    // favour of std's `DefaultHasher` (which is not available without
    // std and whose algorithm is unspecified); as a keyed hash it is
    // exactly what is wanted here.
    #[allow(deprecated)]
    let mut h = core::hash::SipHasher::new_with_keys(entropy as u64, (entropy >> 64) as u64);
    core::hash::Hasher::write(&mut h, &match_id.to_le_bytes());
    core::hash::Hasher::write(&mut h, &[slot]);
    if seat > 0 {
        // The first player's token stays what it always was.
        core::hash::Hasher::write(&mut h, &[seat]);
    }
    core::hash::Hasher::finish(&h).max(1)
}

/// The fingerprint of `token` the host shows the other guests when the
/// player in `slot` rejoins: a hash keyed by the token, so a guest can
/// check the token the rejoiner shows it without learning it beforehand
/// (and could not use the fingerprint to rejoin as that player).
pub(super) fn proof(token: u64, match_id: u64, slot: u8) -> u64 {
    self::token(u128::from(token), match_id, slot, 0)
}

/// The host's own token (slot 0, from its `entropy` in match `match_id`),
/// which its fresh session shows to come back after a reload.
pub(super) fn host_token(entropy: u128, match_id: u64) -> u64 {
    token(entropy, match_id, 0, 0)
}

/// The check of the host's own token its Hello gives every guest: the
/// token's fingerprint (see [`proof`]), so a guest can check a returning
/// host's token without being able to show one itself.
pub(super) fn host_proof(entropy: u128, match_id: u64) -> u64 {
    proof(host_token(entropy, match_id), match_id, 0)
}

/// Every slot's inputs (`inputs[s]`, from tick 0) from tick `from` on as
/// catch-up runs, slot by slot.
pub(super) fn runs<I: Copy>(inputs: &[&[I]], from: u32) -> Vec<CatchUpRun<I>> {
    let mut out = Vec::new();
    for (slot, pads) in inputs.iter().enumerate() {
        let pads = pads.get(from as usize..).unwrap_or(&[]);
        for (i, c) in pads.chunks(MAX_RUN).enumerate() {
            out.push(CatchUpRun {
                // Cannot truncate: at most MAX_PLAYERS slots.
                slot: slot as u8,
                // Cannot overflow: a timeline holds fewer than 2^32 inputs.
                first_tick: from + (i * MAX_RUN) as u32,
                pads: c.to_vec(),
            });
        }
    }
    out
}

/// The pieces of a saved state `bytes` of the state at `tick`; none when
/// it is empty or longer than [`MAX_SAVED_STATE`] (the catch-up then
/// replays).
pub(super) fn pieces(tick: u32, bytes: &[u8]) -> Option<Vec<SavedState>> {
    let total = u32::try_from(bytes.len())
        .ok()
        .filter(|&n| n > 0 && n <= MAX_SAVED_STATE)?;
    Some(
        bytes
            .chunks(MAX_STATE_PIECE)
            .enumerate()
            .map(|(i, c)| SavedState {
                tick,
                total,
                // Cannot overflow: at most MAX_SAVED_STATE bytes.
                offset: (i * MAX_STATE_PIECE) as u32,
                bytes: c.to_vec(),
            })
            .collect(),
    )
}

/// Queues a whole catch-up on `out`: the saved state at `end.tick` when
/// there is one (`state`, see [`pieces`]) and every slot's inputs from
/// there, or else every slot's inputs (`inputs[s]`, from tick 0) from the
/// start, as runs; then `end` (the tick, the host's hash there and its
/// last membership change). Returns how many messages went before `end`.
pub(super) fn send_catch_up<I>(
    out: &mut Outbox,
    inputs: &[&[I]],
    state: Option<Vec<SavedState>>,
    end: CatchUp,
) -> usize
where
    I: Copy + Serialize + DeserializeOwned + PartialEq,
{
    send_catch_up_from(out, inputs, state, end, 0)
}

/// As [`send_catch_up`], for a receiver that holds every slot's inputs
/// up to tick `from` already (without a saved state): the runs start
/// there.
pub(super) fn send_catch_up_from<I>(
    out: &mut Outbox,
    inputs: &[&[I]],
    state: Option<Vec<SavedState>>,
    end: CatchUp,
    from: u32,
) -> usize
where
    I: Copy + Serialize + DeserializeOwned + PartialEq,
{
    let mut count = 0;
    let from = match state {
        Some(pieces) => {
            count += pieces.len();
            for p in pieces {
                out.send(&Message::<I>::SavedState(p));
            }
            end.tick
        }
        None => from,
    };
    let runs = runs(inputs, from);
    count += runs.len();
    for r in runs {
        out.send(&Message::CatchUpRun(r));
    }
    out.send(&Message::<I>::CatchUp(end));
    count
}

/// Why a catch-up run was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum RunRefused {
    /// A slot beyond the match's players.
    Slot,
    /// Not where the slot's previous run ended.
    Gap,
    /// More than [`MAX_CATCH_UP_TICKS`].
    TooLong,
    /// A piece of saved state out of turn: after a run, for another tick
    /// or length, or not where the previous piece ended.
    State,
}

/// The host's saved state as it arrives.
#[derive(Debug, Clone)]
pub(super) struct StateSoFar {
    /// The tick it stands at.
    pub(super) tick: u32,
    /// Its whole length.
    pub(super) total: u32,
    /// The bytes so far.
    pub(super) bytes: Vec<u8>,
}

impl StateSoFar {
    /// Whether every byte came.
    pub(super) fn complete(&self) -> bool {
        self.bytes.len() == self.total as usize
    }
}

/// The rejoiner gathering the host's catch-up: a saved state, if the
/// game saves one, and the runs of inputs.
#[derive(Debug)]
pub(super) struct Gathered<I> {
    /// Each slot's inputs so far, from tick [`base`](Self::base).
    pub(super) inputs: Vec<Vec<I>>,
    /// The saved state the inputs follow (`None`: they follow the start).
    pub(super) state: Option<StateSoFar>,
}

impl<I: Copy> Gathered<I> {
    /// Ready for a match of `players` players.
    pub(super) fn new(players: u8) -> Self {
        Gathered {
            inputs: vec![Vec::new(); usize::from(players)],
            state: None,
        }
    }

    /// The tick the inputs start at: the saved state's, or 0.
    pub(super) fn base(&self) -> u32 {
        self.state.as_ref().map_or(0, |s| s.tick)
    }

    /// Takes one piece of the saved state: the first before any run, the
    /// others each where the one before ended, all for the same tick and
    /// length. Nothing changes when it is refused.
    pub(super) fn fold_state(&mut self, piece: &SavedState) -> Result<(), RunRefused> {
        if self.inputs.iter().any(|i| !i.is_empty()) {
            return Err(RunRefused::State);
        }
        match &mut self.state {
            None if piece.offset == 0 => {
                self.state = Some(StateSoFar {
                    tick: piece.tick,
                    total: piece.total,
                    bytes: piece.bytes.clone(),
                });
                Ok(())
            }
            Some(s)
                if s.tick == piece.tick
                    && s.total == piece.total
                    && s.bytes.len() == piece.offset as usize =>
            {
                s.bytes.extend_from_slice(&piece.bytes);
                Ok(())
            }
            _ => Err(RunRefused::State),
        }
    }

    /// Takes one run; nothing changes when it is refused.
    pub(super) fn fold(&mut self, run: &CatchUpRun<I>) -> Result<(), RunRefused> {
        if self.state.as_ref().is_some_and(|s| !s.complete()) {
            return Err(RunRefused::State);
        }
        let base = u64::from(self.base());
        let Some(have) = self.inputs.get_mut(usize::from(run.slot)) else {
            return Err(RunRefused::Slot);
        };
        if u64::from(run.first_tick) != base + have.len() as u64 {
            return Err(RunRefused::Gap);
        }
        if have.len() + run.pads.len() > MAX_CATCH_UP_TICKS as usize {
            return Err(RunRefused::TooLong);
        }
        have.extend_from_slice(&run.pads);
        Ok(())
    }

    /// A copy holding every slot's inputs up to `tick` only (no further
    /// than what it holds), so that a later catch-up's runs from `tick`
    /// follow on.
    pub(super) fn up_to(&self, tick: u32) -> Self {
        let n = tick.saturating_sub(self.base()) as usize;
        Gathered {
            inputs: self
                .inputs
                .iter()
                .map(|i| i.get(..n).unwrap_or(i).to_vec())
                .collect(),
            state: self.state.clone(),
        }
    }

    /// The tick where the slot with the fewest inputs ends.
    pub(super) fn shortest(&self) -> u32 {
        let n = self.inputs.iter().map(Vec::len).min().unwrap_or(0) as u32;
        self.base().saturating_add(n)
    }

    /// The tick where the slot with the most inputs ends.
    pub(super) fn longest(&self) -> u32 {
        let n = self.inputs.iter().map(Vec::len).max().unwrap_or(0) as u32;
        self.base().saturating_add(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_differ_by_slot_match_and_entropy_and_are_never_zero() {
        let t = token(7, 100, 1, 0);
        assert_eq!(t, token(7, 100, 1, 0));
        assert_ne!(t, token(7, 100, 2, 0));
        assert_ne!(t, token(7, 101, 1, 0));
        assert_ne!(t, token(8, 100, 1, 0));
        assert_ne!(t, token(7 | 1 << 64, 100, 1, 0));
        assert_ne!(t, token(7, 100, 1, 1));
        assert_ne!(token(7, 100, 1, 1), token(7, 100, 1, 2));
        assert_ne!(token(0, 0, 0, 0), 0);
    }

    #[test]
    fn the_hosts_check_matches_only_the_hosts_token() {
        let check = host_proof(7, 100);
        assert_eq!(proof(host_token(7, 100), 100, 0), check);
        assert_ne!(proof(host_token(8, 100), 100, 0), check);
        assert_ne!(proof(host_token(7, 100), 101, 0), check);
        // A guest's token is not the host's, and the check is not a token.
        assert_ne!(proof(token(7, 100, 1, 0), 100, 0), check);
        assert_ne!(host_token(7, 100), check);
    }

    #[test]
    fn runs_follow_each_other_per_slot() {
        let a = [1u8; 300];
        let b = [2u8; 5];
        let all = runs(&[&a[..], &b[..]], 0);
        assert_eq!(all.len(), 4);
        let mut g = Gathered::new(2);
        for r in &all {
            assert_eq!(g.fold(r), Ok(()));
        }
        assert_eq!(g.shortest(), 5);
        assert_eq!(g.longest(), 300);
        assert_eq!(g.fold(&all[0]), Err(RunRefused::Gap));
        let far = CatchUpRun {
            slot: 2,
            first_tick: 0,
            pads: vec![1u8],
        };
        assert_eq!(g.fold(&far), Err(RunRefused::Slot));
    }

    #[test]
    fn a_saved_state_comes_first_and_the_runs_follow_its_tick() {
        let bytes: Vec<u8> = (0..2500u32).map(|i| i as u8).collect();
        let sent = pieces(300, &bytes).expect("a state within the cap");
        assert_eq!(sent.len(), 3);
        let mut g = Gathered::<u8>::new(2);
        // A run before the state is complete is out of turn.
        let early = CatchUpRun {
            slot: 0,
            first_tick: 300,
            pads: vec![1u8],
        };
        assert_eq!(g.fold_state(&sent[1]), Err(RunRefused::State));
        assert_eq!(g.fold_state(&sent[0]), Ok(()));
        assert_eq!(g.fold(&early), Err(RunRefused::State));
        assert_eq!(g.fold_state(&sent[2]), Err(RunRefused::State));
        assert_eq!(g.fold_state(&sent[1]), Ok(()));
        assert_eq!(g.fold_state(&sent[2]), Ok(()));
        assert!(g.state.as_ref().is_some_and(StateSoFar::complete));
        assert_eq!(g.state.as_ref().map(|s| s.bytes.clone()), Some(bytes));
        // Runs start at the state's tick.
        let from_zero = CatchUpRun {
            slot: 0,
            first_tick: 0,
            pads: vec![1u8],
        };
        assert_eq!(g.fold(&from_zero), Err(RunRefused::Gap));
        assert_eq!(g.fold(&early), Ok(()));
        assert_eq!((g.shortest(), g.longest()), (300, 301));
        // No more state once a run came; none empty or over the cap.
        assert_eq!(g.fold_state(&sent[0]), Err(RunRefused::State));
        assert!(pieces(0, &[]).is_none());
        assert!(pieces(0, &vec![0; MAX_SAVED_STATE as usize + 1]).is_none());
        let following = runs(&[&[5u8; 400][..], &[6u8; 300][..]], 300);
        assert_eq!(following.len(), 1);
        let f = &following[0];
        assert_eq!((f.slot, f.first_tick, f.pads.len()), (0, 300, 100));
    }
}
