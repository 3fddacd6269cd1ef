//! Proving a game rollback-safe without a network: [`SyncTest`].
//!
//! Rollback restores a saved copy of the game (`Clone`) and steps it again,
//! sometimes after a copy already ran ahead on wrong inputs. That is only
//! correct if the copy holds the whole state (no `Rc` shared with the
//! original, no global or thread-local state), and if stepping is a pure
//! function of the state and the inputs (no clock, no OS randomness, no
//! hash-map iteration order). [`SyncTest`] checks exactly that, on one
//! machine, as the game runs:
//!
//! * every `every` ticks it takes the copy saved `distance` ticks ago;
//! * it checks the copy still hashes as the original did at that tick;
//! * it runs a second copy ahead on wrong inputs (as a misprediction would)
//!   and throws it away;
//! * it re-simulates the first copy to the present with the real inputs and
//!   checks the hash after every tick against the one recorded the first
//!   time.
//!
//! Any difference is a [`SyncTestError`] naming the tick and both hashes.
//!
//! ```
//! use lockstep::{DeterministicGame, Fnv1a, SyncTest};
//!
//! #[derive(Clone)]
//! struct Sum(u64);
//! impl DeterministicGame for Sum {
//!     type Input = u8;
//!     const BUILD_ID: u64 = 1;
//!     fn new(seed: u64, _: u8) -> Self { Sum(seed) }
//!     fn step(&mut self, i: &[u8]) { self.0 = self.0.wrapping_mul(31) + u64::from(i[0]) + 3 * u64::from(i[1]) }
//!     fn state_hash(&self) -> u64 { let mut h = Fnv1a::new(); h.write_u64(self.0); h.finish() }
//! }
//!
//! let mut t = SyncTest::<Sum>::new(7, 2); // roll back 8 ticks, every tick
//! for tick in 0..600u32 {
//!     t.advance(&[(tick % 7) as u8, (tick % 5) as u8]).expect("rollback-safe");
//! }
//! assert!(t.resimulated_ticks() > 4000);
//! ```

use core::fmt;
use std::collections::VecDeque;

use crate::game::DeterministicGame;

/// Default number of ticks a [`SyncTest`] rolls back.
pub const DEFAULT_CHECK_DISTANCE: u32 = 8;

/// How a game failed a [`SyncTest`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SyncTestError {
    /// A saved copy no longer hashes as the original did when it was saved:
    /// the copy shares state with the original (or hashing is not a
    /// function of the state).
    SavedStateChanged {
        /// The tick of the saved copy.
        tick: u32,
        /// The hash when it was saved.
        saved: u64,
        /// Its hash now.
        now: u64,
    },
    /// Re-simulating from a saved copy gave another state than the first
    /// run after `tick` ticks.
    Diverged {
        /// The tick count after which the hashes differ.
        tick: u32,
        /// The hash of the first run.
        first: u64,
        /// The hash of the re-simulation.
        again: u64,
    },
    /// The inputs for one tick did not have one entry per player.
    WrongInputCount {
        /// Entries given.
        given: usize,
        /// The player count.
        players: u8,
    },
}

impl fmt::Display for SyncTestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SyncTestError::SavedStateChanged { tick, saved, now } => write!(
                f,
                "the copy saved at tick {tick} changed: {saved:#018x} then {now:#018x}"
            ),
            SyncTestError::Diverged { tick, first, again } => write!(
                f,
                "re-simulation diverged after tick {tick}: {first:#018x} then {again:#018x}"
            ),
            SyncTestError::WrongInputCount { given, players } => {
                write!(f, "{given} inputs for {players} players")
            }
        }
    }
}

impl std::error::Error for SyncTestError {}

/// One tick of history: the state before it, its inputs, the hash after.
struct Past<G: DeterministicGame> {
    before: G,
    before_hash: u64,
    inputs: Vec<G::Input>,
    after_hash: u64,
}

/// Runs a game locally and rolls it back and re-simulates it all the time,
/// checking that every re-simulation reproduces the first run (see the
/// [module documentation](self)).
pub struct SyncTest<G: DeterministicGame> {
    game: G,
    players: u8,
    tick: u32,
    distance: u32,
    every: u32,
    history: VecDeque<Past<G>>,
    checks: u64,
    resimulated: u64,
}

impl<G: DeterministicGame> fmt::Debug for SyncTest<G> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SyncTest")
            .field("tick", &self.tick)
            .field("distance", &self.distance)
            .field("every", &self.every)
            .field("checks", &self.checks)
            .finish_non_exhaustive()
    }
}

impl<G: DeterministicGame> SyncTest<G> {
    /// A game from `seed` for `players` players, rolled back
    /// [`DEFAULT_CHECK_DISTANCE`] ticks on every tick.
    #[must_use]
    pub fn new(seed: u64, players: u8) -> Self {
        SyncTest {
            game: G::new(seed, players),
            players,
            tick: 0,
            distance: DEFAULT_CHECK_DISTANCE,
            every: 1,
            history: VecDeque::new(),
            checks: 0,
            resimulated: 0,
        }
    }

    /// How many ticks each check rolls back (at least 1; default 8, the
    /// default prediction window).
    #[must_use]
    pub fn check_distance(mut self, ticks: u32) -> Self {
        self.distance = ticks.max(1);
        self
    }

    /// Check every `ticks` ticks (at least 1; default every tick).
    #[must_use]
    pub fn every(mut self, ticks: u32) -> Self {
        self.every = ticks.max(1);
        self
    }

    /// Runs one tick with one input per player, then, when a check is due,
    /// rolls back and re-simulates (see the module documentation).
    ///
    /// # Errors
    ///
    /// The first difference found, or a wrong number of inputs (nothing is
    /// stepped then).
    pub fn advance(&mut self, inputs: &[G::Input]) -> Result<(), SyncTestError> {
        if inputs.len() != usize::from(self.players) {
            return Err(SyncTestError::WrongInputCount {
                given: inputs.len(),
                players: self.players,
            });
        }
        let before = self.game.clone();
        let before_hash = before.state_hash();
        self.game.step(inputs);
        self.tick += 1;
        if self.history.len() == self.distance as usize {
            self.history.pop_front();
        }
        self.history.push_back(Past {
            before,
            before_hash,
            inputs: inputs.to_vec(),
            after_hash: self.game.state_hash(),
        });
        if self.tick % self.every == 0 && self.history.len() == self.distance as usize {
            self.check()?;
        }
        Ok(())
    }

    fn check(&mut self) -> Result<(), SyncTestError> {
        let Some(oldest) = self.history.front() else {
            return Ok(());
        };
        let start = self.tick - self.history.len() as u32;
        let now = oldest.before.state_hash();
        if now != oldest.before_hash {
            return Err(SyncTestError::SavedStateChanged {
                tick: start,
                saved: oldest.before_hash,
                now,
            });
        }
        // A misprediction: a copy runs ahead on other inputs, and is
        // thrown away.
        let mut wrong = oldest.before.clone();
        for past in &self.history {
            // Every input replaced: the neutral one by the last non-neutral
            // input of the tick, anything else by the neutral one.
            let alt = past
                .inputs
                .iter()
                .rev()
                .find(|&&i| i != G::Input::default())
                .copied()
                .unwrap_or_default();
            let other: Vec<G::Input> = past
                .inputs
                .iter()
                .map(|&i| {
                    if i == G::Input::default() {
                        alt
                    } else {
                        G::Input::default()
                    }
                })
                .collect();
            wrong.step(&other);
        }
        drop(wrong);
        // The correction: from the saved copy, the real inputs again.
        let mut again = oldest.before.clone();
        for (i, past) in self.history.iter().enumerate() {
            again.step(&past.inputs);
            self.resimulated += 1;
            let hash = again.state_hash();
            if hash != past.after_hash {
                return Err(SyncTestError::Diverged {
                    tick: start + i as u32 + 1,
                    first: past.after_hash,
                    again: hash,
                });
            }
        }
        self.checks += 1;
        Ok(())
    }

    /// The game as the first run left it.
    #[must_use]
    pub fn game(&self) -> &G {
        &self.game
    }

    /// Ticks run.
    #[must_use]
    pub fn tick(&self) -> u32 {
        self.tick
    }

    /// Rollbacks checked so far.
    #[must_use]
    pub fn checks(&self) -> u64 {
        self.checks
    }

    /// Ticks re-simulated so far.
    #[must_use]
    pub fn resimulated_ticks(&self) -> u64 {
        self.resimulated
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;
    use std::rc::Rc;

    #[derive(Clone)]
    struct Good(u64);
    impl DeterministicGame for Good {
        type Input = u8;
        const BUILD_ID: u64 = 1;
        fn new(seed: u64, _: u8) -> Self {
            Good(seed)
        }
        fn step(&mut self, i: &[u8]) {
            self.0 = self.0.rotate_left(5) ^ u64::from(i[0]) ^ (u64::from(i[1]) << 8);
        }
        fn state_hash(&self) -> u64 {
            self.0
        }
    }

    /// Keeps part of its state behind an `Rc`: copies share it.
    #[derive(Clone)]
    struct Shared(u64, Rc<Cell<u64>>);
    impl DeterministicGame for Shared {
        type Input = u8;
        const BUILD_ID: u64 = 2;
        fn new(seed: u64, _: u8) -> Self {
            Shared(seed, Rc::new(Cell::new(0)))
        }
        fn step(&mut self, i: &[u8]) {
            self.1.set(self.1.get().wrapping_add(u64::from(i[0]) + 1));
            self.0 = self.0.wrapping_mul(31).wrapping_add(self.1.get());
        }
        fn state_hash(&self) -> u64 {
            self.0 ^ self.1.get()
        }
    }

    /// Steps differently the second time through a tick (hidden state
    /// outside the game, like a global counter or a clock).
    #[derive(Clone)]
    struct Impure(u64);
    thread_local!(static CALLS: Cell<u64> = const { Cell::new(0) });
    impl DeterministicGame for Impure {
        type Input = u8;
        const BUILD_ID: u64 = 3;
        fn new(seed: u64, _: u8) -> Self {
            Impure(seed)
        }
        fn step(&mut self, _: &[u8]) {
            let n = CALLS.with(|c| {
                c.set(c.get() + 1);
                c.get()
            });
            self.0 = self.0.wrapping_add(n);
        }
        fn state_hash(&self) -> u64 {
            self.0
        }
    }

    #[test]
    fn a_sound_game_passes() {
        let mut t = SyncTest::<Good>::new(1, 2).check_distance(5).every(2);
        for k in 0..100u8 {
            assert_eq!(t.advance(&[k, k / 3]), Ok(()));
        }
        assert_eq!(t.tick(), 100);
        assert!(t.checks() >= 47);
        assert_eq!(t.resimulated_ticks(), t.checks() * 5);
    }

    #[test]
    fn shared_state_is_caught() {
        let mut t = SyncTest::<Shared>::new(1, 2);
        let err = (0..50u8).find_map(|k| t.advance(&[k, 0]).err());
        assert!(
            matches!(err, Some(SyncTestError::SavedStateChanged { .. })),
            "{err:?}"
        );
    }

    #[test]
    fn hidden_state_is_caught() {
        let mut t = SyncTest::<Impure>::new(1, 2).check_distance(3);
        let err = (0..50u8).find_map(|k| t.advance(&[k, 0]).err());
        assert!(
            matches!(err, Some(SyncTestError::Diverged { .. })),
            "{err:?}"
        );
    }

    #[test]
    fn wrong_input_counts_are_refused() {
        let mut t = SyncTest::<Good>::new(1, 2);
        assert_eq!(
            t.advance(&[1]),
            Err(SyncTestError::WrongInputCount {
                given: 1,
                players: 2
            })
        );
        assert_eq!(t.tick(), 0);
    }
}
