//! The games under test, wrapped so the harness can tell the game's own
//! work apart from the session's.
//!
//! [`Timed`] wraps any [`DeterministicGame`]: it forwards every call to the
//! game, times it (so the time can be subtracted from the session's), counts
//! steps (so re-simulated ticks show up whatever the session does inside) and
//! records the state hash after every tick in a per-peer log (so the two
//! peers can be compared tick by tick, re-simulations overwriting predicted
//! ticks). The bookkeeping lives in a thread-local [`Ledger`] that the
//! harness swaps in before calling a session and out afterwards.

use std::cell::RefCell;
use std::time::Instant;

use lockstep::DeterministicGame;
use ntba::{Cpu, Ntba};

/// What the game's code cost during one call into a session (or during
/// fulfilling GGRS's requests), gathered by [`Timed`].
#[derive(Debug, Default)]
pub struct Ledger {
    /// Nanoseconds spent in game code (and in the link, for GGRS's socket).
    pub excluded_nanos: u64,
    /// Number of timed sections inside (each costs about one clock read
    /// that the outer measurement cannot avoid; see `calibrate_clock`).
    pub excluded_sections: u64,
    /// Game ticks stepped.
    pub steps: u64,
    /// The current peer's hash log: `log[t]` is the state hash after tick
    /// `t + 1`.
    pub log: Vec<u64>,
}

thread_local! {
    static LEDGER: RefCell<Ledger> = RefCell::new(Ledger::default());
}

/// Starts a section of calls made on behalf of one peer: clears the
/// counters and lends the peer's hash log to the ledger.
pub fn enter(log: &mut Vec<u64>) {
    LEDGER.with(|l| {
        let mut l = l.borrow_mut();
        l.excluded_nanos = 0;
        l.excluded_sections = 0;
        l.steps = 0;
        std::mem::swap(&mut l.log, log);
    });
}

/// Ends the section: gives the hash log back and returns
/// `(excluded_nanos, excluded_sections, steps)`.
pub fn leave(log: &mut Vec<u64>) -> (u64, u64, u64) {
    LEDGER.with(|l| {
        let mut l = l.borrow_mut();
        std::mem::swap(&mut l.log, log);
        (l.excluded_nanos, l.excluded_sections, l.steps)
    })
}

/// Adds a timed section that does not belong to the session (the game, or
/// the simulated link under GGRS's socket).
pub fn exclude(since: Instant) {
    let nanos = since.elapsed().as_nanos() as u64;
    LEDGER.with(|l| {
        let mut l = l.borrow_mut();
        l.excluded_nanos += nanos;
        l.excluded_sections += 1;
    });
}

/// A game plus its tick count, timing and logging every call (see the
/// module docs).
#[derive(Debug)]
pub struct Timed<G> {
    game: G,
    tick: u32,
}

impl<G> Timed<G> {
    /// The wrapped game (for reading it without timing anything).
    #[must_use]
    pub fn inner(&self) -> &G {
        &self.game
    }

    /// Ticks this copy of the game has simulated.
    #[must_use]
    pub fn tick(&self) -> u32 {
        self.tick
    }
}

impl<G: Clone> Clone for Timed<G> {
    fn clone(&self) -> Self {
        let t0 = Instant::now();
        let copy = Timed {
            game: self.game.clone(),
            tick: self.tick,
        };
        exclude(t0);
        copy
    }
}

impl<G: DeterministicGame> DeterministicGame for Timed<G> {
    type Input = G::Input;
    const BUILD_ID: u64 = G::BUILD_ID;

    fn new(seed: u64, players: u8) -> Self {
        let t0 = Instant::now();
        let game = G::new(seed, players);
        exclude(t0);
        Timed { game, tick: 0 }
    }

    fn step(&mut self, inputs: &[Self::Input]) {
        let t0 = Instant::now();
        self.game.step(inputs);
        self.tick += 1;
        let hash = self.game.state_hash();
        LEDGER.with(|l| {
            let mut l = l.borrow_mut();
            l.steps += 1;
            // A re-simulated tick replaces the predicted one and everything
            // after it.
            l.log.truncate(self.tick as usize - 1);
            l.log.push(hash);
        });
        exclude(t0);
    }

    fn state_hash(&self) -> u64 {
        let t0 = Instant::now();
        let hash = self.game.state_hash();
        exclude(t0);
        hash
    }
}

/// A game the benchmark can play, with the "player" that presses its
/// buttons.
pub trait BenchGame: DeterministicGame + 'static {
    /// The game's name in the table.
    const NAME: &'static str;
    /// The player's state (cloned when a sample may go unused).
    type Bot: Clone;
    /// A player for `side`, from the match seed; `scripted` asks for a
    /// fixed input script instead of a player that reacts to the game.
    fn bot(seed: u64, side: u8, scripted: bool) -> Self::Bot;
    /// The player's pad for its `index`-th input (sampled for the tick
    /// `index + delay`), looking at the game as this peer currently shows it.
    fn pad(bot: &mut Self::Bot, game: &Self, index: u32, side: u8) -> Self::Input;
}

impl BenchGame for dots::Dots {
    const NAME: &'static str = "dots";
    type Bot = ();
    fn bot(_seed: u64, _side: u8, _scripted: bool) -> Self::Bot {}
    /// The examples' walking bot: a new direction every 23 ticks.
    fn pad(_bot: &mut (), _game: &Self, index: u32, side: u8) -> u8 {
        dots::scripted_input(index, side)
    }
}

impl BenchGame for Ntba {
    const NAME: &'static str = "NtBA";
    /// The CPU team, or `None` for the golden input script.
    type Bot = Option<Cpu>;
    fn bot(seed: u64, side: u8, scripted: bool) -> Option<Cpu> {
        (!scripted).then(|| Cpu::new(seed ^ (0x6e74_6261 + u64::from(side))))
    }
    /// The built-in CPU team, reading the state it would see on screen; or
    /// the script (`ntba::script_pad`), the same pads whatever happens.
    fn pad(bot: &mut Option<Cpu>, game: &Self, index: u32, side: u8) -> ntba::Pad {
        match bot {
            Some(cpu) => cpu.pad(game, side),
            None => ntba::script_pad(index, side),
        }
    }
}
