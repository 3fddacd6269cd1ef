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
use crate::wire::{CatchUp, CatchUpRun, Message, MAX_RUN};
use serde::de::DeserializeOwned;
use serde::Serialize;

/// The most ticks a catch-up may carry per slot: two hours at 60 ticks per
/// second (a longer one is refused rather than held in memory).
pub(super) const MAX_CATCH_UP_TICKS: u32 = 2 * 60 * 60 * 60;

/// The token the host gives the player in `slot` of match `match_id`, from
/// the caller's entropy: a keyed hash (SipHash 2-4), so it cannot be
/// guessed from what the wire shows. Never 0 (0 means "no token").
pub(super) fn token(entropy: u128, match_id: u64, slot: u8) -> u64 {
    // Core's SipHash is deprecated as a general-purpose `Hasher` in
    // favour of std's `DefaultHasher` (which is not available without
    // std and whose algorithm is unspecified); as a keyed hash it is
    // exactly what is wanted here.
    #[allow(deprecated)]
    let mut h = core::hash::SipHasher::new_with_keys(entropy as u64, (entropy >> 64) as u64);
    core::hash::Hasher::write(&mut h, &match_id.to_le_bytes());
    core::hash::Hasher::write(&mut h, &[slot]);
    core::hash::Hasher::finish(&h).max(1)
}

/// The fingerprint of `token` the host shows the other guests when the
/// player in `slot` rejoins: a hash keyed by the token, so a guest can
/// check the token the rejoiner shows it without learning it beforehand
/// (and could not use the fingerprint to rejoin as that player).
pub(super) fn proof(token: u64, match_id: u64, slot: u8) -> u64 {
    self::token(u128::from(token), match_id, slot)
}

/// Every slot's inputs (`inputs[s]`, from tick 0) as catch-up runs, slot
/// by slot.
pub(super) fn runs<I: Copy>(inputs: &[&[I]]) -> Vec<CatchUpRun<I>> {
    let mut out = Vec::new();
    for (slot, pads) in inputs.iter().enumerate() {
        for (i, c) in pads.chunks(MAX_RUN).enumerate() {
            out.push(CatchUpRun {
                // Cannot truncate: at most MAX_PLAYERS slots.
                slot: slot as u8,
                // Cannot overflow: a timeline holds fewer than 2^32 inputs.
                first_tick: (i * MAX_RUN) as u32,
                pads: c.to_vec(),
            });
        }
    }
    out
}

/// Queues a whole catch-up on `out`: every slot's inputs (`inputs[s]`,
/// from tick 0) as runs, then `end` (the tick, the host's hash there and
/// its last membership change). Returns how many runs went.
pub(super) fn send_catch_up<I>(out: &mut Outbox, inputs: &[&[I]], end: CatchUp) -> usize
where
    I: Copy + Serialize + DeserializeOwned + PartialEq,
{
    let runs = runs(inputs);
    let count = runs.len();
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
}

/// The rejoiner gathering the host's catch-up runs.
#[derive(Debug)]
pub(super) struct Gathered<I> {
    /// Each slot's inputs so far, from tick 0.
    pub(super) inputs: Vec<Vec<I>>,
}

impl<I: Copy> Gathered<I> {
    /// Ready for a match of `players` players.
    pub(super) fn new(players: u8) -> Self {
        Gathered {
            inputs: vec![Vec::new(); usize::from(players)],
        }
    }

    /// Takes one run; nothing changes when it is refused.
    pub(super) fn fold(&mut self, run: &CatchUpRun<I>) -> Result<(), RunRefused> {
        let Some(have) = self.inputs.get_mut(usize::from(run.slot)) else {
            return Err(RunRefused::Slot);
        };
        if run.first_tick as usize != have.len() {
            return Err(RunRefused::Gap);
        }
        if have.len() + run.pads.len() > MAX_CATCH_UP_TICKS as usize {
            return Err(RunRefused::TooLong);
        }
        have.extend_from_slice(&run.pads);
        Ok(())
    }

    /// The fewest inputs any slot has.
    pub(super) fn shortest(&self) -> u32 {
        self.inputs.iter().map(Vec::len).min().unwrap_or(0) as u32
    }

    /// The most inputs any slot has.
    pub(super) fn longest(&self) -> u32 {
        self.inputs.iter().map(Vec::len).max().unwrap_or(0) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_differ_by_slot_match_and_entropy_and_are_never_zero() {
        let t = token(7, 100, 1);
        assert_eq!(t, token(7, 100, 1));
        assert_ne!(t, token(7, 100, 2));
        assert_ne!(t, token(7, 101, 1));
        assert_ne!(t, token(8, 100, 1));
        assert_ne!(t, token(7 | 1 << 64, 100, 1));
        assert_ne!(token(0, 0, 0), 0);
    }

    #[test]
    fn runs_follow_each_other_per_slot() {
        let a = [1u8; 300];
        let b = [2u8; 5];
        let all = runs(&[&a[..], &b[..]]);
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
}
