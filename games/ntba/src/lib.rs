//! NtBA: an arcade two-on-two basketball game, as a deterministic simulation
//! for lock-step netplay.
//!
//! Two teams, Home (side 0) and Away (side 1), two players each, on one
//! court seen from above. With two people each team sends one [`Pad`] byte
//! per tick and the player it does not control is moved by a built-in AI;
//! with three or four each person sends a pad byte for one court player of
//! their own (the [`Lineup`] comes from the seed) and the
//! AI plays the court player nobody drives. [`Cpu`] produces a pad for solo
//! play and tests. The state is integers and
//! fixed-point numbers of the `fixed` crate only (no floats, no clock, no
//! hash maps) and one seeded PRNG, so the same seed and pads give the same
//! match, bit for bit, natively and in wasm. Renderers read lengths as
//! plain `i32`s of 1/4096 m ([`UNITS_PER_METER`]).
//!
//! Rules, controls, the pad layout and the AI are described in
//! `docs/ntba.md`.
//!
//! Every byte is a valid [`Pad`] and [`step`](lockstep::DeterministicGame::step)
//! accepts any number of pads (missing ones count as nothing pressed), so no
//! input from a peer can make the simulation panic ([`Pad::ABSENT`], which
//! no person's pad produces, hands that pad slot's court players to the AI
//! for the tick); a test mashes random
//! pads through whole matches and checks the court's invariants every tick.
//!
//! ```
//! use lockstep::DeterministicGame;
//! use ntba::{Cpu, Ntba, Pad};
//!
//! let mut game = Ntba::new(7, 2);
//! let (mut home, mut away) = (Cpu::new(1), Cpu::new(2));
//! for _ in 0..600 {
//!     // Each team's pad for this tick: a person's buttons or the CPU's.
//!     let pads = [home.pad(&game, 0), away.pad(&game, 1)];
//!     game.step(&pads);
//!     for event in game.events() {
//!         // Short effects: sounds, flashes, score pop-ups.
//!         let _ = event;
//!     }
//! }
//! // Everything a renderer draws comes from read-only views.
//! let ball = game.ball();
//! let players = game.players();
//! let clocks = game.clocks();
//! assert!(players.iter().all(|p| p.x > 0 && p.x < ntba::COURT_LENGTH));
//! assert!(clocks.game_clock < ntba::HALF_TICKS);
//! let _ = (ball, game.score());
//! // Or all of it at once, to keep for interpolation between two frames.
//! let frame: ntba::Snapshot = game.snapshot();
//! assert_eq!(frame.players, players);
//! ```
#![warn(missing_docs)]

mod ai;
mod consts;
mod length;
mod lineup;
mod math;
mod pad;
mod parts;
mod rng;
mod save;
mod script;
mod sim;
mod view;
mod view_lengths;

#[cfg(test)]
mod hash_tests;
#[cfg(test)]
mod parts_tests;
#[cfg(test)]
mod people_tests;
#[cfg(test)]
mod rules_tests;

pub use ai::{Cpu, Level};
pub use consts::{
    AFTER_SCORE_TICKS, AFTER_TURNOVER_TICKS, BLOCK_ODDS, BREAK_TICKS, HALF_TICKS, INTERCEPT_ODDS,
    JUMP_APEX, JUMP_TICKS, OVERTIME_TICKS, SHOT_CLOCK_TICKS, STAMINA_MAX, STEAL_COOLDOWN,
    STEAL_ODDS_AIRBORNE, STEAL_ODDS_MOVING, STEAL_ODDS_STILL, SUDDEN_DEATH_PERIOD,
    TICKS_PER_SECOND,
};
pub use length::MatchLength;
pub use lineup::{Lineup, LineupError};
pub use pad::Pad;
pub use parts::{
    desync_message, BALL, CLOCKS, CONTROLS, EVENTS, PART_NAMES, PLAYERS, RANDOM, RESTART, SCORE,
};
pub use rng::Rng;
pub use save::MAX_SAVED_BYTES;
pub use script::{
    combine, golden_hash, match_hash, people_hash, people_script_hash, people_script_pad,
    play_golden_matches, play_people_script, rules_hash, script_hash, script_pad, script_run,
    GOLDEN_SEED, GOLDEN_TICKS, IDLE_SEED, MATCH_SEED, MATCH_TICK_CAP, PEOPLE4_LINEUP,
};
pub use sim::{Ntba, MAX_EVENTS};
pub use view::{
    Action, BallState, BallView, Clocks, Event, Phase, PlayerView, Snapshot, TeamStats,
};
pub use view_lengths::*;

use lockstep::{DeterministicGame, Fnv1a};

/// The script replay's hash: [`script_hash`]`(`[`GOLDEN_TICKS`]`)`, the
/// fold of every tick's state hash over one minute of scripted play.
pub const SCRIPT_HASH: u64 = 0xd2fb_5c42_6da2_6fbf;
/// The golden matches' hash: [`match_hash`]`()`, the fold of every tick's
/// state hash over a whole CPU match that goes to overtime and a whole idle
/// match that ends on the tiebreak.
pub const MATCH_HASH: u64 = 0x30dd_8dff_b5d1_de2c;
/// The rules' numbers: [`rules_hash`]`()`, every tuning constant and the
/// shot-odds table.
pub const RULES_HASH: u64 = 0x258e_bd1f_625b_89a1;
/// The three-person script's hash: [`people_script_hash`]`(3,
/// `[`GOLDEN_TICKS`]`)`, the fold of every tick's state hash over a minute
/// of scripted play by three people (one court player played by the AI).
pub const PEOPLE3_HASH: u64 = 0x2f63_d75a_70ab_e629;
/// The four-person script's hash: [`people_script_hash`]`(4,
/// `[`GOLDEN_TICKS`]`)`, a minute of scripted play by four people on the
/// line-up [`PEOPLE4_LINEUP`].
pub const PEOPLE4_HASH: u64 = 0x3f82_a135_b812_2452;
/// The three- and four-person scripts' hash: [`people_hash`]`()`, the
/// FNV-1a fold of [`PEOPLE3_HASH`] and [`PEOPLE4_HASH`].
pub const PEOPLE_HASH: u64 = 0xf7f1_fbb3_1bd7_26d9;
/// The golden hash and build id:
/// [`combine`]`(`[`SCRIPT_HASH`]`, `[`MATCH_HASH`]`, `[`RULES_HASH`]`,
/// `[`PEOPLE_HASH`]`)`, what [`golden_hash`] recomputes. Peers compare it
/// before playing; a native test pins all seven constants, and
/// `scripts/ci/30-ntba-wasm.sh` checks that wasm in Node and wasmtime
/// recompute the golden hash (all four parts) and its first three parts
/// one by one.
pub const GOLDEN_HASH: u64 = 0xd13a_baa1_6e4a_4d55;

impl DeterministicGame for Ntba {
    type Input = Pad;
    const BUILD_ID: u64 = GOLDEN_HASH;

    /// A new match for `players` people ([`Ntba::with_people`]): with two
    /// each drives a team; with three or four each drives one court player,
    /// on the teams the seed carries ([`Lineup::for_match`]), and the AI plays
    /// the court player nobody drives.
    fn new(seed: u64, players: u8) -> Self {
        Ntba::with_people(seed, players)
    }

    /// One tick. `inputs[i]` is pad slot `i`'s pad: with two people
    /// `inputs[0]` is Home's, `inputs[1]` Away's. A missing pad counts as
    /// nothing pressed and extra ones are ignored.
    fn step(&mut self, inputs: &[Pad]) {
        let pad = |i: usize| inputs.get(i).copied().unwrap_or_default();
        self.advance([pad(0), pad(1), pad(2), pad(3)]);
    }

    /// [`Pad::ABSENT`], for every pad slot: a slot nobody drives (its
    /// person dropped and is benched, or left) has its court players
    /// played by the built-in AI, exactly as the court player no pad
    /// drives in a match of three, until its person comes back.
    fn absent_input(_players: u8, _slot: u8) -> Pad {
        Pad::ABSENT
    }

    /// Yes, for every match (two to four people): while a dropped
    /// person's slot is held the built-in AI plays it
    /// ([`absent_input`](Self::absent_input)), so the others play on
    /// against a team that still runs, defends and shoots rather than
    /// freeze for up to the rejoin window; the person gets the slot back
    /// on rejoin. A court player played by the AI is fair game in NtBA:
    /// a match of three has one throughout. What happens once the window
    /// runs out is [`plays_on_after_leave`](Self::plays_on_after_leave)'s
    /// rule: NtBA keeps the default, the match ends with `PlayerLeft`.
    fn plays_on_while_held(players: u8) -> bool {
        (2..=4).contains(&players)
    }

    /// The state as bytes ([`Ntba::to_bytes`]), so that a player coming
    /// back gets it instead of every input since the start to replay.
    fn save(&self) -> Option<Vec<u8>> {
        Some(self.to_bytes())
    }

    /// [`Ntba::from_bytes`]: `None` unless the bytes are exactly one saved
    /// state the simulation can reach.
    fn load(bytes: &[u8]) -> Option<Self> {
        Ntba::from_bytes(bytes)
    }

    fn state_hash(&self) -> u64 {
        let mut h = Fnv1a::new();
        self.hash_into(&mut h);
        h.finish()
    }

    /// The clocks, the score, the ball, each court player, the restart,
    /// the controls, the random generator and the events ([`Ntba::parts`]).
    fn state_parts(&self) -> Vec<lockstep::StatePart> {
        self.parts()
    }
}
