//! Lock-step's input delay, raised and lowered during the match as this
//! side's round trips change (`SessionConfig::adaptive_input_delay`).
//!
//! In lock-step a tick waits for every player's input. An input sampled
//! `delay` ticks ahead reaches the others in time only while half the
//! round trip fits in those ticks; past that every tick waits for it, and
//! the whole match slows to the pace the link allows (a 150 ms round trip
//! against a 2-tick delay halves it). Each side therefore watches its own
//! round trips and, when they call for more, samples its inputs further
//! ahead at once, repeating the pad it just sampled for the ticks it adds:
//! the others then hold this side's inputs that much earlier, and nobody
//! freezes for the change. When the round trips shrink again and stay
//! small, the delay comes down a tick at a time (a frame whose input is
//! already held samples nothing). The match's delay (the host's) is the
//! floor. Nothing goes on the wire: every input still names its tick, so
//! the others need not know this side's delay.

use super::delay_for_round_trips;
use crate::time::Millis;

/// The highest delay a side raises itself to: 12 ticks (200 ms, the one
/// way of a 400 ms round trip). Past that, lock-step is not worth playing.
/// Every side allows for it when it bounds how far ahead an honest peer's
/// inputs can reach.
pub const MAX_ADAPTIVE_DELAY: u8 = 12;

/// Round trips kept (from every peer together). At a ping every 30 frames
/// that is the last second or so with three peers, four with one.
const SAMPLES: usize = 8;
/// The two longest of the kept round trips are left out: a pong that
/// waited out a frozen tab, or a one-off spike, raises nothing.
const IGNORED: usize = 2;
/// Fewer round trips than this say nothing yet.
const MIN_SAMPLES: usize = 4;
/// Frames the round trips must keep calling for less before the delay
/// comes down one tick (3 s).
const LOWER_AFTER_FRAMES: u16 = 180;

/// This side's input delay during a lock-step match.
#[derive(Debug, Clone)]
pub(super) struct DelayTuner {
    floor: u8,
    current: u8,
    /// The last round trips, in milliseconds (a longer one counts as
    /// 65.5 s), in a ring: `count` of them, the next to go at `next`.
    samples: [u16; SAMPLES],
    count: u8,
    next: u8,
    /// Frames in a row the round trips called for less than `current`.
    lower_for: u16,
}

/// What a frame did to the delay.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Change {
    Kept,
    Raised(u8),
    Lowered(u8),
}

impl DelayTuner {
    /// The match's delay, in force from the first tick and never undercut.
    pub(super) fn new(delay: u8) -> Self {
        DelayTuner {
            floor: delay,
            current: delay,
            samples: [0; SAMPLES],
            count: 0,
            next: 0,
            lower_for: 0,
        }
    }

    /// The delay in force.
    pub(super) fn current(&self) -> u8 {
        self.current
    }

    /// A round trip measured to any peer.
    pub(super) fn round_trip(&mut self, rtt: Millis) {
        let ms = u16::try_from(rtt.0).unwrap_or(u16::MAX);
        if let Some(slot) = self.samples.get_mut(usize::from(self.next)) {
            *slot = ms;
        }
        self.next = (self.next + 1) % SAMPLES as u8;
        self.count = (self.count + 1).min(SAMPLES as u8);
    }

    /// The delay the kept round trips call for, if they say anything.
    fn wanted(&self) -> Option<u8> {
        let n = usize::from(self.count);
        if n < MIN_SAMPLES {
            return None;
        }
        let mut ms = [Millis::ZERO; SAMPLES];
        for (m, &s) in ms.iter_mut().zip(&self.samples[..n]) {
            *m = Millis(u64::from(s));
        }
        let kept = &mut ms[..n];
        kept.sort_unstable();
        let cap = MAX_ADAPTIVE_DELAY.max(self.floor);
        Some(delay_for_round_trips(&kept[..n - IGNORED], 0).clamp(self.floor, cap))
    }

    /// Once a frame, before sampling: raises the delay at once to what the
    /// round trips call for, or lowers it by one after they have called
    /// for less for [`LOWER_AFTER_FRAMES`] frames.
    pub(super) fn frame(&mut self) -> Change {
        let Some(wanted) = self.wanted() else {
            return Change::Kept;
        };
        if wanted > self.current {
            self.current = wanted;
            self.lower_for = 0;
            return Change::Raised(wanted);
        }
        if wanted == self.current {
            self.lower_for = 0;
            return Change::Kept;
        }
        self.lower_for += 1;
        if self.lower_for < LOWER_AFTER_FRAMES {
            return Change::Kept;
        }
        self.lower_for = 0;
        self.current -= 1;
        Change::Lowered(self.current)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fed(delay: u8, rtts: &[u64]) -> DelayTuner {
        let mut t = DelayTuner::new(delay);
        for &r in rtts {
            t.round_trip(Millis(r));
        }
        t
    }

    #[test]
    fn nothing_changes_before_four_round_trips() {
        let mut t = fed(2, &[300, 300, 300]);
        assert_eq!(t.frame(), Change::Kept);
        assert_eq!(t.current(), 2);
    }

    #[test]
    fn longer_round_trips_raise_the_delay_at_once() {
        // 150 ms: 75 ms one way is 4.5 ticks, so 5 and one of margin.
        let mut t = fed(2, &[150, 150, 150, 150]);
        assert_eq!(t.frame(), Change::Raised(6));
        assert_eq!(t.frame(), Change::Kept);
        assert_eq!(t.current(), 6);
    }

    #[test]
    fn the_two_longest_round_trips_raise_nothing() {
        // A pong that waited out a frozen tab, and a spike.
        let mut t = fed(2, &[20, 2_000, 20, 20, 900, 20]);
        assert_eq!(t.frame(), Change::Kept);
        assert_eq!(t.current(), 2);
    }

    #[test]
    fn the_delay_never_passes_the_cap_nor_undercuts_the_floor() {
        let mut t = fed(2, &[1_000; 8]);
        assert_eq!(t.frame(), Change::Raised(MAX_ADAPTIVE_DELAY));
        // A match started above the cap keeps its delay.
        let mut t = fed(20, &[1_000; 8]);
        assert_eq!(t.frame(), Change::Kept);
        let mut t = fed(4, &[1; 8]);
        for _ in 0..1_000 {
            assert_eq!(t.frame(), Change::Kept);
        }
        assert_eq!(t.current(), 4);
    }

    #[test]
    fn shorter_round_trips_lower_it_one_tick_per_three_seconds() {
        let mut t = fed(2, &[150; 8]);
        assert_eq!(t.frame(), Change::Raised(6));
        for _ in 0..SAMPLES {
            t.round_trip(Millis(20));
        }
        // 20 ms calls for 2: down one tick each 180 frames.
        for lowered in [5, 4, 3, 2] {
            for _ in 1..LOWER_AFTER_FRAMES {
                assert_eq!(t.frame(), Change::Kept);
            }
            assert_eq!(t.frame(), Change::Lowered(lowered));
        }
        assert_eq!(t.frame(), Change::Kept);
    }

    #[test]
    fn a_round_trip_calling_for_the_delay_in_force_restarts_the_count() {
        let mut t = fed(2, &[150; 8]);
        assert_eq!(t.frame(), Change::Raised(6));
        for _ in 0..SAMPLES {
            t.round_trip(Millis(20));
        }
        for _ in 1..LOWER_AFTER_FRAMES {
            t.frame();
        }
        for _ in 0..SAMPLES {
            t.round_trip(Millis(150));
        }
        assert_eq!(t.frame(), Change::Kept);
        for _ in 0..SAMPLES {
            t.round_trip(Millis(20));
        }
        for _ in 1..LOWER_AFTER_FRAMES {
            assert_eq!(t.frame(), Change::Kept);
        }
        assert_eq!(t.frame(), Change::Lowered(5));
    }
}
