//! How long a match lasts: the full length, or a short match for a party
//! that wants a quick game.
//!
//! Like the line-up, the length travels inside the seed, so every peer of
//! a session plays the length the host picked: the host writes it with
//! [`MatchLength::seed`] and every page reads it back with
//! [`MatchLength::of_match`]. Only a seed that carries a line-up (three or
//! four people, [`Lineup::seed`](crate::Lineup::seed)) carries a length;
//! every other seed plays the full length, so a two-person match, local
//! play and every seed made before lengths existed are unchanged.

use crate::consts::{HALF_TICKS, OVERTIME_TICKS, TICKS_PER_SECOND};
use crate::lineup::MARK;

/// Where the length's code sits in a seed that carries a line-up: bits
/// 52 to 55, just below the line-up's byte.
const SHIFT: u32 = 52;

/// The length of a match.
///
/// ```
/// use ntba::{Lineup, MatchLength, Ntba};
/// use lockstep::DeterministicGame;
///
/// let seed = MatchLength::Short.seed(Lineup::alternating(4)?.seed(99));
/// assert_eq!(MatchLength::of_match(seed, 4), MatchLength::Short);
/// let game = Ntba::new(seed, 4);
/// assert_eq!(game.length(), MatchLength::Short);
/// assert_eq!(game.clocks().game_clock, MatchLength::Short.half_ticks());
/// // A two-person match always plays the full length.
/// assert_eq!(MatchLength::of_match(seed, 2), MatchLength::Full);
/// # Ok::<(), ntba::LineupError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum MatchLength {
    /// Two halves of two minutes, overtimes of thirty seconds.
    #[default]
    Full,
    /// Two halves of thirty seconds, overtimes of fifteen: a whole match
    /// in about a minute and a half.
    Short,
}

impl MatchLength {
    /// Every length, the default first, in the order a chooser offers them.
    pub const ALL: [MatchLength; 2] = [MatchLength::Full, MatchLength::Short];

    /// What a chooser calls it.
    #[must_use]
    pub const fn label(self) -> &'static str {
        match self {
            MatchLength::Full => "Full (2 × 2 min)",
            MatchLength::Short => "Short (2 × 30 s)",
        }
    }

    /// Ticks of game clock in each half.
    #[must_use]
    pub const fn half_ticks(self) -> u32 {
        match self {
            MatchLength::Full => HALF_TICKS,
            MatchLength::Short => 30 * TICKS_PER_SECOND,
        }
    }

    /// Ticks of game clock in each overtime period (the sudden-death one
    /// included).
    #[must_use]
    pub const fn overtime_ticks(self) -> u32 {
        match self {
            MatchLength::Full => OVERTIME_TICKS,
            MatchLength::Short => 15 * TICKS_PER_SECOND,
        }
    }

    const fn code(self) -> u64 {
        match self {
            MatchLength::Full => 0,
            MatchLength::Short => 1,
        }
    }

    /// `seed` carrying this length in bits 52 to 55; the other bits are
    /// kept. It counts only in a seed that carries a line-up, so write the
    /// line-up first or after ([`Lineup::seed`](crate::Lineup::seed) keeps
    /// these bits).
    #[must_use]
    pub const fn seed(self, seed: u64) -> u64 {
        (seed & !(0xf << SHIFT)) | self.code() << SHIFT
    }

    /// The length a match of `people` from `seed` lasts: the one the seed
    /// carries when it carries a line-up for three or four people, the
    /// full length otherwise (an unknown code too).
    #[must_use]
    pub const fn of_match(seed: u64, people: u8) -> MatchLength {
        if people < 3 || seed >> 60 != MARK {
            return MatchLength::Full;
        }
        match (seed >> SHIFT) & 0xf {
            1 => MatchLength::Short,
            _ => MatchLength::Full,
        }
    }
}
