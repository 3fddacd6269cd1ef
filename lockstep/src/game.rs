//! The one trait a game implements to get netplay.

use alloc::vec::Vec;
use core::fmt::Debug;
use serde::{de::DeserializeOwned, Serialize};

use crate::parts::StatePart;

/// A game whose simulation is exactly reproducible.
///
/// The same seed, player count and sequence of inputs must give the same
/// [`state_hash`](DeterministicGame::state_hash) after every tick, on every
/// machine, native or wasm. See `docs/determinism.md` for the rules (integers
/// or fixed-point only in the state, no clock, no OS randomness, no hash-map
/// iteration order, hashing over canonical bytes).
///
/// Saving and restoring a state is `Clone`: rollback, rejoin and spectators
/// keep copies of the game and put one back. Keep the state compact and
/// cheap to clone (no `Rc`, no shared interior mutability).
pub trait DeterministicGame: Clone {
    /// One player's input for one tick (NtBA: one pad byte per team).
    ///
    /// It travels on the wire encoded with serde (postcard). `Default` is the
    /// neutral input (nothing pressed).
    type Input: Copy + Eq + Default + Debug + Serialize + DeserializeOwned;

    /// The build id peers compare before playing: the game's golden hash,
    /// pinned by a test that replays a fixed synthetic input script. Change it
    /// (on purpose, in its own commit) whenever simulation behaviour changes.
    const BUILD_ID: u64;

    /// Creates the initial state from a seed for `players` players.
    fn new(seed: u64, players: u8) -> Self;

    /// Advances one tick. `inputs[i]` is player `i`'s input for this tick;
    /// `inputs.len()` equals the player count given to [`new`](Self::new).
    fn step(&mut self, inputs: &[Self::Input]);

    /// A 64-bit hash of every field that affects the simulation, over
    /// canonical bytes (see [`crate::Fnv1a`]).
    fn state_hash(&self) -> u64;

    /// Rollback mode: a guess at a player's input for a tick whose real
    /// input has not arrived. `last` is that player's newest known input
    /// (the default input before any) and `ticks_ahead` how many ticks past
    /// it the guess is for (1 = the next tick).
    ///
    /// The default repeats `last` (players mostly hold buttons). A guess
    /// only costs a re-simulation when wrong; it never affects the final
    /// state, so it need not be deterministic across machines, but it must
    /// not panic.
    fn predict_input(last: Self::Input, ticks_ahead: u32) -> Self::Input {
        let _ = ticks_ahead;
        last
    }

    /// The input every member plays for slot `slot` of a match of
    /// `players` players while nobody drives it: a slot benched while its
    /// player is away (see [`plays_on_while_held`](Self::plays_on_while_held)),
    /// or one whose player left for good and that no newcomer took (see
    /// [`plays_on_after_leave`](Self::plays_on_after_leave)). The default
    /// is the neutral input ([`Default`] of [`Input`](Self::Input)): the
    /// slot stands still.
    ///
    /// A game with an AI of its own returns instead a value its
    /// [`step`](Self::step) reads as "my AI drives this slot" (one no
    /// player's pad can produce), and plays the slot with that AI, from
    /// the state, in `step`: the slot is then a stand-in, not a statue,
    /// until its player comes back and the slot plays that player's
    /// inputs again. The value itself travels nowhere: every member
    /// computes it, and the input log records it, so a replay plays the
    /// stand-in exactly as the match did. It must therefore be a pure
    /// function of its arguments (the same on every machine, native or
    /// wasm) and must not panic.
    ///
    /// It is not the input of a tick nobody has sampled yet: the ticks of
    /// the input delay at the start of a match, and the placeholders
    /// before a saved state a member starts from, stay [`Default`].
    fn absent_input(players: u8, slot: u8) -> Self::Input {
        let _ = (players, slot);
        Self::Input::default()
    }

    /// Whether a match of this game plays on when a player left (did not
    /// come back within the rejoin window, see
    /// `SessionConfig::rejoin_window`) and `remaining` players are left
    /// (at least 2): the left player's slot then plays the game's input
    /// for a slot nobody drives ([`absent_input`](Self::absent_input),
    /// the neutral input by default) on every side from a tick the host
    /// orders.
    ///
    /// It is the game's to say, not each side's setting, because every
    /// side must agree and a game knows whether a slot standing still is
    /// still a fair match (a team game with a bench may say yes; a duel
    /// says no). The default says no: the match ends for everyone with
    /// `Outcome::PlayerLeft`.
    fn plays_on_after_leave(remaining: u8) -> bool {
        let _ = remaining;
        false
    }

    /// Whether a dropped player's slot plays on while it is held, in a
    /// match of `players` players: instead of every other player waiting
    /// (a freeze) until the player comes back or the rejoin window runs
    /// out, the host orders (a numbered `Roster` change at a tick, as for
    /// a leave) that the slot plays the game's input for a slot nobody
    /// drives ([`absent_input`](Self::absent_input): the neutral input,
    /// or the game's own AI standing in) on every side from that tick.
    /// The slot stays its player's for the window: a fresh session that
    /// rejoins with the slot's token takes it back from a later tick the
    /// host orders; once the window ran out, the slot is left as
    /// [`plays_on_after_leave`](Self::plays_on_after_leave) says (the
    /// match ends with `Outcome::PlayerLeft`, or the slot plays on
    /// unattended and is free for a joiner). See `docs/engine.md`,
    /// "Playing on while a slot is held".
    ///
    /// A game's rule, like playing on after a leave: every side must
    /// agree, and only the game knows whether a slot standing still (or
    /// played by its AI) for a while is fair. The default says no: the
    /// others wait for the dropped player.
    fn plays_on_while_held(players: u8) -> bool {
        let _ = players;
        false
    }

    /// Whether a new player may take a free slot of a running match of
    /// `players` players: a slot whose player left for good (see
    /// [`plays_on_after_leave`](Self::plays_on_after_leave)) and that
    /// plays the input for a slot nobody drives
    /// ([`absent_input`](Self::absent_input)). The newcomer catches up
    /// (the confirmed inputs so far, or a saved state and the inputs
    /// since) and, from a tick the host orders, the slot plays its inputs
    /// instead on every side (see `docs/engine.md`, "Late join into a
    /// free slot").
    ///
    /// Like playing on, it is the game's rule and not a side's setting:
    /// only the game knows whether a fresh player dropped into a match
    /// under way is fair (a drop-in party game says yes; a ranked duel
    /// says no). The default says no: a `Join` is refused with
    /// `RejoinRefusal::NoJoiners`.
    fn takes_joiners(players: u8) -> bool {
        let _ = players;
        false
    }

    /// The state as bytes, for a player coming back to a running match:
    /// a game that saves its state lets the host send it the state
    /// instead of every input since the start to replay (see
    /// `docs/engine.md`, "Catch-up from a saved state"). `None` (the
    /// default) keeps the catch-up a replay.
    ///
    /// [`load`](Self::load) must rebuild a state that hashes and plays
    /// exactly as this one; a saved state longer than
    /// [`MAX_SAVED_STATE`](crate::wire::MAX_SAVED_STATE) is not sent (the
    /// catch-up replays instead).
    fn save(&self) -> Option<Vec<u8>> {
        None
    }

    /// Rebuilds a state from the bytes [`save`](Self::save) gave, strictly:
    /// bytes that are not exactly one saved state of this game (truncated,
    /// trailing bytes, values out of range) give `None`, never a panic or
    /// a half-built state. The bytes come from a peer; the session checks
    /// the loaded state against the host's hash before playing on it.
    ///
    /// The default (a game that saves nothing) loads nothing.
    fn load(bytes: &[u8]) -> Option<Self> {
        let _ = bytes;
        None
    }

    /// The state described as named parts, each with its own hash, so that
    /// a desync can say what diverged (see [`crate::parts`]).
    ///
    /// Return the same names in the same order for every state, at most
    /// [`MAX_PARTS`](crate::parts::MAX_PARTS) of them, each at most
    /// [`MAX_PART_NAME`](crate::parts::MAX_PART_NAME) bytes of printable
    /// ASCII, phrased to read in a sentence ("the ball", "Away player 2").
    /// Together the parts should cover every field
    /// [`state_hash`](Self::state_hash) covers, hashed the same canonical
    /// way; a part hash never replaces the whole-state hash.
    ///
    /// The default describes no part: a desync then names nothing, and
    /// ends the match at once, as it always did.
    fn state_parts(&self) -> Vec<StatePart> {
        Vec::new()
    }
}
