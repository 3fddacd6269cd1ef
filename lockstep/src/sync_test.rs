//! Proving a game rollback-safe without a network: [`SyncTest`].
//!
//! Rollback restores a saved copy of the game (`Clone`) and steps it again,
//! sometimes after the game already ran ahead on wrong guesses. That is
//! only correct if the copy holds the whole state (no `Rc` shared with the
//! original, no global or thread-local state), and if stepping is a pure
//! function of the state and the inputs (no clock, no OS randomness, no
//! hash-map iteration order). [`SyncTest`] checks exactly that, on one
//! machine, through the same code a match runs: it drives the timeline a
//! [`Session`](crate::Session) in rollback mode runs (the game, the
//! inputs, the saved states and the restore-and-re-simulate step), with no
//! peer.
//!
//! * Player 0's input goes in at once; every other player's reaches the
//!   timeline half the check distance later, as a packet would, so the
//!   newest ticks run
//!   on the game's own guesses
//!   ([`predict_input`](crate::DeterministicGame::predict_input)) and a
//!   wrong guess is corrected as in a match (restore the state saved before
//!   it, re-simulate to the present).
//! * Every frame runs as a match's frame does (wrong guesses corrected,
//!   then one new tick), and every tick is hashed once it is final, as
//!   the in-band desync check does.
//! * Then, every `every` ticks, it forces a rollback of `distance` ticks
//!   whatever the guesses were, through the same restore-and-re-simulate
//!   code: the copy restored must still hash as that tick did when it
//!   became final, every re-simulated tick must hash as it did just
//!   before, and every final tick as it did when it first became final.
//!
//! Any difference is a [`SyncTestError`] naming the first tick that
//! differs and both hashes.
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
//! // Player 1's input changes every tick: the repeat-last guess is always
//! // wrong, and the timeline corrected it as in a match.
//! assert!(t.mispredictions() > 500);
//! ```

use alloc::collections::VecDeque;
use alloc::vec::Vec;
use core::fmt;

use crate::game::DeterministicGame;
use crate::parts::StatePart;
use crate::session::timeline::{Timeline, Watch, MAX_PLAYERS};
use crate::wire::MAX_PREDICTION_WINDOW;

/// Default number of ticks a [`SyncTest`] rolls back.
pub const DEFAULT_CHECK_DISTANCE: u32 = 8;

/// How a game failed a [`SyncTest`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SyncTestError {
    /// A saved copy no longer hashes as the state did when its tick became
    /// final: the copy shares state with the game (or hashing is not a
    /// function of the state).
    SavedStateChanged {
        /// The tick of the saved copy (ticks run before it).
        tick: u32,
        /// The hash when the tick became final.
        saved: u64,
        /// The copy's hash now.
        now: u64,
    },
    /// Re-simulating from a saved copy gave another state than before
    /// after `tick` ticks.
    Diverged {
        /// The first tick count after which the hashes differ.
        tick: u32,
        /// The hash before.
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
    /// A sync test plays 2 to 8 players; the test was made for another
    /// count.
    UnsupportedPlayers {
        /// The player count asked for.
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
            SyncTestError::UnsupportedPlayers { players } => {
                write!(f, "a sync test plays 2 to 8 players, not {players}")
            }
        }
    }
}

impl core::error::Error for SyncTestError {}

/// Runs a game on a match's timeline, with no peer, that rolls back and
/// re-simulates all the time, checking that every re-simulation
/// reproduces the hashes of the run before (see the
/// [module documentation](self)).
pub struct SyncTest<G: DeterministicGame> {
    timeline: Timeline<G>,
    watch: SyncWatch,
    seed: u64,
    players: u8,
    distance: u32,
    every: u32,
    /// The other players' inputs on their way to the timeline, oldest
    /// first (player 0's entry unused).
    in_flight: VecDeque<[G::Input; MAX_PLAYERS]>,
    checks: u64,
    resimulated: u64,
}

impl<G: DeterministicGame> fmt::Debug for SyncTest<G> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SyncTest")
            .field("tick", &self.tick())
            .field("distance", &self.distance)
            .field("every", &self.every)
            .field("checks", &self.checks)
            .finish_non_exhaustive()
    }
}

impl<G: DeterministicGame> SyncTest<G> {
    /// A game from `seed` for `players` players (2 to 8; any other count
    /// makes [`advance`](Self::advance) fail with
    /// [`SyncTestError::UnsupportedPlayers`]), rolled back
    /// [`DEFAULT_CHECK_DISTANCE`] ticks on every tick.
    #[must_use]
    pub fn new(seed: u64, players: u8) -> Self {
        let (timeline, watch) = start(seed, players, DEFAULT_CHECK_DISTANCE as u8);
        SyncTest {
            timeline,
            watch,
            seed,
            players,
            distance: DEFAULT_CHECK_DISTANCE,
            every: 1,
            in_flight: VecDeque::new(),
            checks: 0,
            resimulated: 0,
        }
    }

    /// How many ticks each check rolls back: 1 to 60 (the largest
    /// prediction window; default 8, the default window). It is the
    /// timeline's prediction window, and the other players' inputs arrive half of it
    /// late. Starts the test afresh: call it on a new `SyncTest`.
    #[must_use]
    pub fn check_distance(mut self, ticks: u32) -> Self {
        self.distance = ticks.clamp(1, u32::from(MAX_PREDICTION_WINDOW));
        // Cannot truncate: clamped to at most 60 just above.
        let window = u8::try_from(self.distance).unwrap_or(MAX_PREDICTION_WINDOW);
        (self.timeline, self.watch) = start(self.seed, self.players, window);
        self.in_flight.clear();
        self.checks = 0;
        self.resimulated = 0;
        self
    }

    /// Check every `ticks` ticks (at least 1; default every tick). Between
    /// checks only wrong guesses roll back.
    #[must_use]
    pub fn every(mut self, ticks: u32) -> Self {
        self.every = ticks.max(1);
        self
    }

    /// How late the other players' inputs reach the timeline, in ticks.
    fn lag(&self) -> usize {
        (self.distance / 2) as usize
    }

    /// Runs one frame with one input per player: the others' inputs from
    /// half the check distance ago reaches the timeline, the timeline
    /// corrects any wrong guess and runs one new tick, then, when a check
    /// is due, rolls back and re-simulates (see the module documentation).
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
        let (&[local, ..], 2..=MAX_PLAYERS) = (inputs, inputs.len()) else {
            return Err(SyncTestError::UnsupportedPlayers {
                players: self.players,
            });
        };
        let mut others = [G::Input::default(); MAX_PLAYERS];
        for (slot, &input) in others.iter_mut().zip(inputs).skip(1) {
            *slot = input;
        }
        self.in_flight.push_back(others);
        let revealed = if self.in_flight.len() > self.lag() {
            self.in_flight.pop_front()
        } else {
            None
        };
        let after = self.tick() + 1;
        let check = after.is_multiple_of(self.every) && after >= self.distance;
        let resimulated = self.frame(local, revealed, check)?;
        if resimulated > 0 {
            self.checks += 1;
            self.resimulated += u64::from(resimulated);
        }
        Ok(())
    }

    /// The game as the timeline has it now, as [`Session::game`](crate::Session::game) would
    /// show it: its last ticks rest on guesses of the other players' inputs.
    #[must_use]
    pub fn game(&self) -> &G {
        self.timeline.game()
    }

    /// The game after [`confirmed_tick`](Self::confirmed_tick) ticks, on
    /// the real inputs only.
    #[must_use]
    pub fn confirmed_game(&self) -> &G {
        // Cannot fail: the timeline holds its confirmed state (the present,
        // or a saved copy it keeps while guesses are pending).
        self.timeline
            .confirmed_game()
            .expect("the timeline holds its confirmed state")
    }

    /// Ticks run.
    #[must_use]
    pub fn tick(&self) -> u32 {
        self.timeline.tick()
    }

    /// Ticks whose every input has reached the timeline.
    #[must_use]
    pub fn confirmed_tick(&self) -> u32 {
        self.timeline.confirmed_tick()
    }

    /// Forced rollbacks checked so far.
    #[must_use]
    pub fn checks(&self) -> u64 {
        self.checks
    }

    /// Ticks re-simulated by the checks so far.
    #[must_use]
    pub fn resimulated_ticks(&self) -> u64 {
        self.resimulated
    }

    /// Ticks first run on a guess of another player's input.
    #[must_use]
    pub fn predicted_ticks(&self) -> u64 {
        self.timeline.stats().predicted_ticks
    }

    /// Wrong guesses the timeline corrected (rollbacks as in a match, not
    /// counting the forced ones).
    #[must_use]
    pub fn mispredictions(&self) -> u64 {
        self.timeline.stats().rollbacks
    }

    /// One frame of a match. `revealed` is the remote player's next input,
    /// arriving now as a packet would bring it (a few ticks late, so the
    /// ticks after it run on the game's own guesses); `local` is this
    /// side's pad. The frame runs as a match's frame runs it: wrong
    /// guesses corrected, then one new tick. With `check`, it then rolls
    /// back `window` ticks whatever the guesses were, through the same
    /// restore-and-re-simulate code, and compares every re-simulated tick
    /// with the hash it had just before (and every final one with the hash
    /// recorded when it first became final).
    ///
    /// Returns the ticks re-simulated by the check.
    fn frame(
        &mut self,
        local: G::Input,
        revealed: Option<[G::Input; MAX_PLAYERS]>,
        check: bool,
    ) -> Result<u32, SyncTestError> {
        if let Some(others) = revealed {
            for slot in 1..self.timeline.players() {
                if let Some(&input) = others.get(slot) {
                    self.timeline.extend_inputs(slot, &[input]);
                }
            }
        }
        self.timeline.reconcile(&mut self.watch);
        if self.timeline.needs_local(0) {
            self.timeline.push_local(local);
        }
        if self.timeline.can_run() {
            self.timeline.step(&mut self.watch);
        } else {
            // Unreachable: inputs are revealed less than `window` ticks
            // late, so the window never runs out.
            debug_assert!(false, "sync test: frame without a tick");
            log::error!("sync test: frame without a tick");
        }
        self.watch.take_failure()?;
        let window = u32::from(self.timeline.window());
        if !check || self.timeline.tick() < window {
            return Ok(0);
        }
        let start = self.timeline.tick() - window;
        let Some(saved) = self.timeline.saved_state(start) else {
            // Unreachable: the timeline keeps `window` states behind the
            // present.
            debug_assert!(false, "sync test: no state held for tick {start}");
            log::error!("sync test: no state held for tick {start}");
            return Ok(0);
        };
        // The copy about to be restored must still hash as the state did
        // when its tick became final (a copy sharing state with the game,
        // an `Rc` say, has changed since).
        if let Some(first) = self.watch.first_hash(start) {
            let now = saved.state_hash();
            if now != first {
                return Err(SyncTestError::SavedStateChanged {
                    tick: start,
                    saved: first,
                    now,
                });
            }
        }
        self.watch.expect = self.timeline.hashes_after(start);
        self.timeline.roll_back_to(start, &mut self.watch);
        self.watch.expect.clear();
        self.watch.take_failure()?;
        Ok(window)
    }
}

/// The hashes of final ticks kept to compare a re-simulation with (far
/// more than the largest check distance).
const FIRST_HASHES_KEPT: usize = 2048;

/// A match's timeline from `seed` with no input delay and a prediction
/// window of `window` ticks, hashing every final tick and keeping the
/// states of the last `window` ticks for the forced rollbacks; and a
/// watch that holds the start state's hash (the record a forced
/// re-simulation must reproduce begins there).
fn start<G: DeterministicGame>(seed: u64, players: u8, window: u8) -> (Timeline<G>, SyncWatch) {
    let window = window.min(MAX_PREDICTION_WINDOW);
    let timeline =
        Timeline::<G>::new(seed, players, 0, 0, window, 1).keep_states(u32::from(window));
    let mut watch = SyncWatch::new();
    watch.first.push_back((0, timeline.game().state_hash()));
    (timeline, watch)
}

/// What a sync test hears from the timeline: the hash of every final tick
/// when it first became final, compared with later computations of it,
/// and, during a forced rollback, every re-simulated tick compared with
/// the hash it had just before.
#[derive(Debug)]
struct SyncWatch {
    /// The hash of each final tick when it first became final (tick count
    /// after it, oldest first), the start state's included.
    first: VecDeque<(u32, u64)>,
    /// The hash after each tick the forced re-simulation runs, as the
    /// timeline had it just before (oldest first).
    expect: VecDeque<(u32, u64)>,
    /// The first difference, until [`take_failure`](Self::take_failure).
    failure: Option<SyncTestError>,
}

impl SyncWatch {
    fn new() -> Self {
        SyncWatch {
            first: VecDeque::new(),
            expect: VecDeque::new(),
            failure: None,
        }
    }

    fn fail(&mut self, e: SyncTestError) {
        if self.failure.is_none() {
            self.failure = Some(e);
        }
    }

    fn take_failure(&mut self) -> Result<(), SyncTestError> {
        match self.failure.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// The hash `tick` had when it first became final, if still kept.
    fn first_hash(&self, tick: u32) -> Option<u64> {
        self.first
            .binary_search_by_key(&tick, |&(t, _)| t)
            .ok()
            .and_then(|i| self.first.get(i))
            .map(|&(_, h)| h)
    }
}

impl<G: DeterministicGame> Watch<G> for SyncWatch {
    fn stepped(&mut self, tick: u32, state: &G, _resim: bool) {
        while self.expect.front().is_some_and(|&(t, _)| t < tick) {
            self.expect.pop_front();
        }
        if let Some(&(t, first)) = self.expect.front() {
            if t == tick {
                self.expect.pop_front();
                let again = state.state_hash();
                if first != again {
                    self.fail(SyncTestError::Diverged { tick, first, again });
                }
            }
        }
    }

    fn final_hash(&mut self, tick: u32, hash: u64, _parts: Vec<StatePart>) {
        if self.first.len() >= FIRST_HASHES_KEPT {
            self.first.pop_front();
        }
        self.first.push_back((tick, hash));
    }

    fn final_again(&mut self, tick: u32, again: u64) {
        if let Some(first) = self.first_hash(tick) {
            if first != again {
                self.fail(SyncTestError::Diverged { tick, first, again });
            }
        }
    }

    fn stopped(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;
    use std::format;
    use std::rc::Rc;
    use std::thread_local;
    use std::vec::Vec;

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

    /// Keeps the last input it saw outside the struct (a thread-local
    /// "previous pad", as a game might to detect presses): a restored copy
    /// then steps with the pad of the present, not the one before it.
    #[derive(Clone)]
    struct Outside(u64);
    thread_local!(static PREVIOUS: Cell<u8> = const { Cell::new(0) });
    impl DeterministicGame for Outside {
        type Input = u8;
        const BUILD_ID: u64 = 4;
        fn new(seed: u64, _: u8) -> Self {
            Outside(seed)
        }
        fn step(&mut self, i: &[u8]) {
            let pressed = PREVIOUS.with(|p| p.replace(i[1])) != i[1];
            self.0 = self.0.rotate_left(3) ^ u64::from(i[0]) ^ u64::from(pressed);
        }
        fn state_hash(&self) -> u64 {
            self.0
        }
    }

    /// Sound, except that the second time tick 55 runs it goes wrong.
    #[derive(Clone)]
    struct Glitch {
        ticks: u32,
        acc: u64,
    }
    thread_local!(static RUNS_OF_55: Cell<u32> = const { Cell::new(0) });
    impl DeterministicGame for Glitch {
        type Input = u8;
        const BUILD_ID: u64 = 5;
        fn new(seed: u64, _: u8) -> Self {
            Glitch {
                ticks: 0,
                acc: seed,
            }
        }
        fn step(&mut self, i: &[u8]) {
            self.acc = self.acc.rotate_left(5) ^ u64::from(i[0]) ^ (u64::from(i[1]) << 8);
            if self.ticks == 55 && RUNS_OF_55.with(|r| r.replace(r.get() + 1)) == 1 {
                self.acc ^= 1 << 40;
            }
            self.ticks += 1;
        }
        fn state_hash(&self) -> u64 {
            self.acc ^ u64::from(self.ticks)
        }
    }

    /// `Good` with a predictor that knows player 1 counts up by one per
    /// tick, and counts its calls.
    #[derive(Clone)]
    struct Counting(Good);
    thread_local!(static GUESSES: Cell<u64> = const { Cell::new(0) });
    impl DeterministicGame for Counting {
        type Input = u8;
        const BUILD_ID: u64 = 6;
        fn new(seed: u64, players: u8) -> Self {
            Counting(Good::new(seed, players))
        }
        fn step(&mut self, i: &[u8]) {
            self.0.step(i);
        }
        fn state_hash(&self) -> u64 {
            self.0.state_hash()
        }
        fn predict_input(last: u8, ticks_ahead: u32) -> u8 {
            GUESSES.with(|g| g.set(g.get() + 1));
            last.wrapping_add(ticks_ahead as u8)
        }
    }

    #[test]
    fn a_sound_game_passes() {
        let mut t = SyncTest::<Good>::new(1, 2).check_distance(5).every(2);
        for k in 0..100u8 {
            assert_eq!(t.advance(&[k, k / 3]), Ok(()));
        }
        assert_eq!(t.tick(), 100);
        assert_eq!(t.checks(), 48); // ticks 6, 8, ..., 100
        assert_eq!(t.resimulated_ticks(), t.checks() * 5);
        // Player 1's inputs arrive 2 ticks late: every tick but the first
        // two ran on a guess first, and a change every third tick made
        // the repeat-last guess wrong that often.
        assert!(t.predicted_ticks() >= 98, "{}", t.predicted_ticks());
        assert!(t.mispredictions() >= 30, "{}", t.mispredictions());
        assert_eq!(t.confirmed_tick(), 98);
    }

    #[test]
    fn the_confirmed_game_is_the_game_on_the_real_inputs() {
        let mut t = SyncTest::<Good>::new(9, 2);
        let mut straight = Good::new(9, 2);
        let inputs: Vec<[u8; 2]> = (0..300u32)
            .map(|k| [(k % 11) as u8, (k / 7 % 5) as u8])
            .collect();
        for i in &inputs {
            assert_eq!(t.advance(i), Ok(()));
        }
        for i in &inputs[..t.confirmed_tick() as usize] {
            straight.step(i);
        }
        assert_eq!(t.confirmed_tick(), 300 - 4);
        assert_eq!(t.confirmed_game().0, straight.0);
    }

    #[test]
    fn shared_state_is_caught() {
        let mut t = SyncTest::<Shared>::new(1, 2);
        let err = (0..50u8).find_map(|k| t.advance(&[k, 0]).err());
        // The first check restores the start state, whose shared counter
        // has moved on since.
        assert!(
            matches!(err, Some(SyncTestError::SavedStateChanged { tick: 0, .. })),
            "{err:?}"
        );
        assert_eq!(t.tick(), 8);
    }

    #[test]
    fn hidden_state_is_caught() {
        let mut t = SyncTest::<Impure>::new(1, 2).check_distance(3);
        let err = (0..50u8).find_map(|k| t.advance(&[k, 0]).err());
        assert!(
            matches!(err, Some(SyncTestError::Diverged { tick: 1, .. })),
            "{err:?}"
        );
    }

    #[test]
    fn state_outside_the_struct_is_caught() {
        let mut t = SyncTest::<Outside>::new(1, 2);
        // Player 1 changes pad every fourth tick.
        let err = (0..200u32).find_map(|k| t.advance(&[k as u8, (k / 4) as u8]).err());
        assert!(
            matches!(err, Some(SyncTestError::Diverged { .. })),
            "{err:?}"
        );
        // ... and it passes when player 1 holds one pad throughout.
        let mut t = SyncTest::<Outside>::new(1, 2);
        PREVIOUS.with(|p| p.set(0));
        for k in 0..200u32 {
            assert_eq!(t.advance(&[k as u8, 0]), Ok(()));
        }
    }

    #[test]
    fn the_first_wrong_tick_is_named() {
        // Every tick, or every 10: the second run of tick 55 (the 56th
        // tick; in the check at tick 56, or the one at 60) is named.
        for every in [1, 10] {
            RUNS_OF_55.with(|r| r.set(0));
            let mut t = SyncTest::<Glitch>::new(3, 2).every(every);
            let err = (0..200u32).find_map(|k| t.advance(&[k as u8, (k / 100) as u8]).err());
            assert!(
                matches!(err, Some(SyncTestError::Diverged { tick: 56, .. })),
                "every {every}: {err:?}"
            );
        }
    }

    #[test]
    fn the_games_own_predictor_makes_the_guesses() {
        // Player 1 counts up by one per tick (from the neutral 0 before
        // tick 0): the game's predictor always guesses right, so nothing
        // but the forced checks rolls back.
        GUESSES.with(|g| g.set(0));
        let mut t = SyncTest::<Counting>::new(1, 2);
        for k in 0..300u32 {
            assert_eq!(t.advance(&[7, (k + 1) as u8]), Ok(()));
        }
        assert_eq!(t.mispredictions(), 0);
        assert!(
            GUESSES.with(Cell::get) >= 296,
            "{}",
            GUESSES.with(Cell::get)
        );
        // The same inputs with the repeat-last guess: wrong every tick.
        let mut t = SyncTest::<Good>::new(1, 2);
        for k in 0..300u32 {
            assert_eq!(t.advance(&[7, k as u8]), Ok(()));
        }
        assert!(t.mispredictions() >= 290, "{}", t.mispredictions());
    }

    /// `Good` for any number of players: every input mixed in.
    #[derive(Clone)]
    struct Many(u64);
    impl DeterministicGame for Many {
        type Input = u8;
        const BUILD_ID: u64 = 6;
        fn new(seed: u64, players: u8) -> Self {
            Many(seed ^ u64::from(players))
        }
        fn step(&mut self, i: &[u8]) {
            for (n, &p) in i.iter().enumerate() {
                self.0 = self.0.rotate_left(5) ^ (u64::from(p) << (n % 8 * 8));
            }
        }
        fn state_hash(&self) -> u64 {
            self.0
        }
    }

    #[test]
    fn every_player_count_from_2_to_8_is_checked_and_an_impure_game_fails() {
        for players in 2..=8u8 {
            let mut t = SyncTest::<Many>::new(3, players);
            let n = usize::from(players);
            for tick in 0..300u32 {
                let inputs: Vec<u8> = (0..n).map(|p| (tick / (p as u32 + 1) % 7) as u8).collect();
                assert_eq!(t.advance(&inputs), Ok(()), "{players} players, tick {tick}");
            }
            assert_eq!(t.checks(), 300 - 7, "{players} players");
            assert!(t.mispredictions() > 50, "{players} players");
            // The final state is the straight run of the same inputs.
            let mut g = Many::new(3, players);
            for tick in 0..t.confirmed_tick() {
                let inputs: Vec<u8> = (0..n).map(|p| (tick / (p as u32 + 1) % 7) as u8).collect();
                g.step(&inputs);
            }
            assert_eq!(t.confirmed_game().state_hash(), g.state_hash());
            let mut t = SyncTest::<Impure>::new(3, players);
            let failed = (0..100u8).any(|i| t.advance(&std::vec![i; n]).is_err());
            assert!(failed, "{players} players: the impure game passed");
        }
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
        for players in [1, 9] {
            let mut t = SyncTest::<Good>::new(1, players);
            let inputs = std::vec![0; usize::from(players)];
            assert_eq!(
                t.advance(&inputs),
                Err(SyncTestError::UnsupportedPlayers { players })
            );
            assert_eq!(t.tick(), 0);
        }
    }

    #[test]
    fn check_distance_is_clamped_to_the_largest_window() {
        let mut t = SyncTest::<Good>::new(1, 2).check_distance(500);
        for k in 0..200u8 {
            assert_eq!(t.advance(&[k, k / 2]), Ok(()));
        }
        assert_eq!(t.checks(), 200 - 59);
        assert_eq!(t.resimulated_ticks(), t.checks() * 60);
        let t = SyncTest::<Good>::new(1, 2).check_distance(0);
        assert!(format!("{t:?}").contains("distance: 1"), "{t:?}");
    }
}
