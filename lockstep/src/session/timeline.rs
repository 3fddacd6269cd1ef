//! The timeline of a match: the game, the inputs of both players by tick,
//! the states saved before ticks that ran on a guess, and the restore and
//! re-simulate step that corrects a wrong guess.
//!
//! The timeline knows nothing of the peer, the wire or the clock. It tells
//! whoever drives it what happened through a [`Watch`]: each tick stepped,
//! and each final tick that is due a hash. A match's session and
//! [`crate::SyncTest`] drive the same timeline with different watches.

use alloc::collections::VecDeque;
use alloc::vec;
use alloc::vec::Vec;

use crate::game::DeterministicGame;
use crate::input_log::InputLog;
use crate::parts::{hashes_of, StatePart};

/// What the driver of a [`Timeline`] hears from it, in the order things
/// happen.
pub(crate) trait Watch<G> {
    /// A tick ran: `tick` is the tick count after it and `state` the state
    /// it produced. `resim` marks a tick run again after a wrong guess.
    fn stepped(&mut self, tick: u32, state: &G, resim: bool);

    /// The state after `tick` ticks is final (every input known, every
    /// guess before it corrected) and `tick` is due a hash: `hash` is its
    /// state hash and `parts` the hashes of its named parts (empty for a
    /// game that names none; see [`crate::parts`]). Called once per tick,
    /// in ascending order.
    fn final_hash(&mut self, tick: u32, hash: u64, parts: Vec<StatePart>);

    /// A final tick already passed to [`final_hash`](Self::final_hash) was
    /// computed again and now hashes `hash`: the state a rollback restores
    /// (the last final one, reported before the rollback began), or the
    /// final ticks a forced rollback re-simulates. A match has nothing to
    /// do with it (the default ignores it); a sync test compares.
    fn final_again(&mut self, tick: u32, hash: u64) {
        let _ = (tick, hash);
    }

    /// `true` once the driver wants no more hashes (the match ended): the
    /// timeline then finishes a re-simulation under way, so the present
    /// never moves back, but reports no more final ticks.
    fn stopped(&self) -> bool;
}

/// Counters of guessing and correcting, for [`crate::SessionStats`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct TimelineStats {
    /// Ticks first simulated on a predicted remote input.
    pub(crate) predicted_ticks: u64,
    /// Wrong guesses corrected.
    pub(crate) rollbacks: u64,
    /// Ticks simulated again after a wrong guess.
    pub(crate) resimulated_ticks: u64,
    /// The longest single re-simulation, in ticks.
    pub(crate) max_rollback: u32,
}

/// The most players a timeline steps.
pub(crate) const MAX_PLAYERS: usize = 8;

/// A state saved before a tick that ran on a predicted input (or before
/// any tick, when the timeline keeps states behind the present).
#[derive(Clone)]
struct Saved<G: DeterministicGame> {
    tick: u32,
    state: G,
    /// Every player's input the tick ran on: a guess, or the real input
    /// when it was known (in player order; unused entries past the
    /// player count).
    ran_on: [G::Input; MAX_PLAYERS],
}

/// The game and the inputs that drive it: every player's inputs by tick,
/// this side's among them.
pub(crate) struct Timeline<G: DeterministicGame> {
    game: G,
    /// Ticks simulated so far (the present).
    tick: u32,
    /// This side's player number.
    slot: usize,
    /// Every player's inputs by tick, in player order, each received
    /// without a gap (ticks below the delay are the default input).
    inputs: Vec<Vec<G::Input>>,
    /// How many ticks may run past the newest remote input on guesses
    /// (0 = lock-step).
    window: u8,
    /// Ticks between two hashed final ticks.
    hash_interval: u32,
    /// Slots nobody drives (their player left, or is benched while away):
    /// from the tick their inputs end at, they play the game's input for
    /// such a slot ([`DeterministicGame::absent_input`], the neutral input
    /// by default), kept as long as this side's own.
    neutral: Vec<usize>,
    /// States kept behind the present even once final (0 in a match: a
    /// state is kept only while a guess before it is pending). Above 0, a
    /// state is saved before every tick.
    keep: u32,
    /// For each tick at or past the first remote input still missing when
    /// it ran (or each of the last `keep`), the state before it (oldest
    /// first).
    saved: VecDeque<Saved<G>>,
    /// Ticks whose state is final; equals `tick` in lock-step.
    confirmed: u32,
    /// The last final tick handed to [`Watch::final_hash`] (0 before the
    /// first).
    last_hashed: u32,
    /// The first tick whose inputs are held: 0, or the tick of the saved
    /// state a rejoiner started from (the inputs before it are
    /// placeholders, never stepped).
    base: u32,
    /// The saved state the timeline started from at `base` (empty when it
    /// started from the seed): where this side's input log starts.
    base_state: Vec<u8>,
    stats: TimelineStats,
}

impl<G: DeterministicGame> Timeline<G> {
    /// The start of a match of `players` players (2 to [`MAX_PLAYERS`])
    /// from `seed`, this side playing `slot`: the first `delay` ticks of
    /// every player are the default input.
    pub(crate) fn new(
        seed: u64,
        players: u8,
        slot: u8,
        delay: u8,
        window: u8,
        hash_interval: u16,
    ) -> Self {
        let d = usize::from(delay);
        let players = usize::from(players).clamp(2, MAX_PLAYERS);
        Timeline {
            // Cannot truncate: at most MAX_PLAYERS.
            game: G::new(seed, players as u8),
            tick: 0,
            slot: usize::from(slot).min(players - 1),
            inputs: vec![vec![G::Input::default(); d]; players],
            window,
            hash_interval: u32::from(hash_interval.max(1)),
            neutral: Vec::new(),
            keep: 0,
            saved: VecDeque::new(),
            confirmed: 0,
            last_hashed: 0,
            base: 0,
            base_state: Vec::new(),
            stats: TimelineStats::default(),
        }
    }

    /// A rejoiner's timeline: the match from its start with every slot's
    /// `inputs` (from tick 0, the host's record, this side's own
    /// included), replayed to tick `upto` (at most the fewest inputs any
    /// slot has). The final ticks on the way count as hashed (the host
    /// compared them with the old session); nothing is reported.
    pub(crate) fn caught_up(mut self, inputs: Vec<Vec<G::Input>>, upto: u32) -> Self {
        struct Quiet;
        impl<G> Watch<G> for Quiet {
            fn stepped(&mut self, _: u32, _: &G, _: bool) {}
            fn final_hash(&mut self, _: u32, _: u64, _: Vec<StatePart>) {}
            fn stopped(&self) -> bool {
                false
            }
        }
        for (mine, theirs) in self.inputs.iter_mut().zip(inputs) {
            *mine = theirs;
        }
        let upto = upto.min(self.known() as u32).min(self.local().len() as u32);
        while self.tick < upto {
            self.run_tick(false, &mut Quiet);
        }
        self
    }

    /// A rejoiner's timeline from the host's saved state: `game` (loaded
    /// from `bytes`) stands at tick `at`, every slot's `inputs` follow from
    /// there (the host's record, this side's own included), replayed to
    /// tick `upto` (at most the fewest inputs any slot has). As for
    /// [`caught_up`](Self::caught_up), the final ticks on the way count as
    /// hashed and nothing is reported.
    pub(crate) fn caught_up_from(
        mut self,
        game: G,
        bytes: Vec<u8>,
        at: u32,
        inputs: Vec<Vec<G::Input>>,
        upto: u32,
    ) -> Self {
        let mut held = Vec::with_capacity(inputs.len());
        for slot in inputs {
            // The ticks before the state are never stepped again.
            let mut all = vec![G::Input::default(); at as usize];
            all.extend(slot);
            held.push(all);
        }
        self.game = game;
        self.tick = at;
        self.confirmed = at;
        self.last_hashed = at - at % self.hash_interval;
        self.base = at;
        self.base_state = bytes;
        self.caught_up(held, upto)
    }

    /// Keeps the states of the last `ticks` ticks even once final, so a
    /// driver can roll back into them on purpose (see
    /// [`roll_back_to`](Self::roll_back_to)).
    pub(crate) fn keep_states(mut self, ticks: u32) -> Self {
        self.keep = ticks;
        self
    }

    // ----- reading ----------------------------------------------------------

    /// The present state (which may rest on guesses).
    pub(crate) fn game(&self) -> &G {
        &self.game
    }

    /// Ticks simulated so far.
    pub(crate) fn tick(&self) -> u32 {
        self.tick
    }

    /// Ticks whose state is final.
    pub(crate) fn confirmed_tick(&self) -> u32 {
        self.confirmed
    }

    /// The state after [`confirmed_tick`](Self::confirmed_tick) ticks, the
    /// present or a saved copy.
    pub(crate) fn confirmed_game(&self) -> Option<&G> {
        if self.confirmed == self.tick {
            return Some(&self.game);
        }
        self.saved_state(self.confirmed)
    }

    /// The state saved before tick `tick` ran, if it is held.
    pub(crate) fn saved_state(&self, tick: u32) -> Option<&G> {
        self.saved.iter().find(|s| s.tick == tick).map(|s| &s.state)
    }

    /// The first tick whose inputs are held (see the field).
    pub(crate) fn base(&self) -> u32 {
        self.base
    }

    /// The prediction window (0 = lock-step).
    pub(crate) fn window(&self) -> u8 {
        self.window
    }

    /// Every local input held, by tick.
    pub(crate) fn local(&self) -> &[G::Input] {
        self.inputs_of(self.slot)
    }

    /// Player `slot`'s inputs held, by tick (none for a slot past the
    /// player count).
    pub(crate) fn inputs_of(&self, slot: usize) -> &[G::Input] {
        self.inputs.get(slot).map_or(&[], Vec::as_slice)
    }

    /// How many players the timeline steps.
    pub(crate) fn players(&self) -> usize {
        self.inputs.len()
    }

    /// Ticks for which every other player's input is known.
    fn known(&self) -> usize {
        self.inputs
            .iter()
            .enumerate()
            .filter(|&(s, _)| s != self.slot)
            .map(|(_, i)| i.len())
            .min()
            .unwrap_or(0)
    }

    /// Whether every other player's input for the present tick is known
    /// (running it guesses nothing).
    pub(crate) fn knows_present(&self) -> bool {
        (self.tick as usize) < self.known()
    }

    /// Counters of guessing and correcting.
    pub(crate) fn stats(&self) -> TimelineStats {
        self.stats
    }

    /// Whether the local input for the tick `delay` ahead of the present is
    /// still missing (the pad must be sampled).
    pub(crate) fn needs_local(&self, delay: u8) -> bool {
        self.local().len() <= self.tick as usize + usize::from(delay)
    }

    /// Whether the present tick can run now: its local input is held and
    /// every other player's input is known or within the prediction
    /// window.
    pub(crate) fn can_run(&self) -> bool {
        let t = self.tick as usize;
        t < self.local().len() && t < self.known() + usize::from(self.window)
    }

    // ----- feeding ----------------------------------------------------------

    /// Appends this side's next input (and the absent input of every slot
    /// nobody drives, up to the same tick).
    pub(crate) fn push_local(&mut self, pad: G::Input) {
        self.extend_inputs(self.slot, &[pad]);
        self.fill_neutral();
    }

    /// From the end of player `slot`'s inputs on, nobody drives the slot
    /// (its player left, or is benched): it plays the game's absent input
    /// ([`DeterministicGame::absent_input`]).
    pub(crate) fn play_neutral(&mut self, slot: usize) {
        if slot != self.slot && slot < self.players() && !self.neutral.contains(&slot) {
            self.neutral.push(slot);
        }
        self.fill_neutral();
    }

    /// A new player takes neutral slot `slot` from tick `from` on: the
    /// slot's inputs are the absent input up to `from` (filled, or those
    /// filled past it dropped) and from there only what arrives. The
    /// caller checked that no tick at or past `from` is final here; a tick
    /// past it that ran on guesses is re-simulated once the new player's
    /// inputs say otherwise.
    pub(crate) fn take_neutral_slot(&mut self, slot: usize, from: u32) {
        self.neutral.retain(|&s| s != slot);
        let absent = self.absent(slot);
        if let Some(i) = self.inputs.get_mut(slot) {
            i.resize(from as usize, absent);
        }
    }

    /// Whether nobody drives player `slot` (it plays the absent input).
    pub(crate) fn is_neutral(&self, slot: usize) -> bool {
        self.neutral.contains(&slot)
    }

    /// The input slot `slot` plays while nobody drives it (see
    /// [`DeterministicGame::absent_input`]).
    fn absent(&self, slot: usize) -> G::Input {
        // Cannot truncate: both at most MAX_PLAYERS.
        G::absent_input(self.players() as u8, slot as u8)
    }

    /// Brings every neutral slot's inputs up to this side's own, with the
    /// game's absent input.
    fn fill_neutral(&mut self) {
        let upto = self.local().len();
        // Cannot truncate: at most MAX_PLAYERS.
        let players = self.players() as u8;
        for &s in &self.neutral {
            if let Some(i) = self.inputs.get_mut(s) {
                if i.len() < upto {
                    i.resize(upto, G::absent_input(players, s as u8));
                }
            }
        }
    }

    /// Appends player `slot`'s inputs that follow the last one held
    /// without a gap (nothing for a slot past the player count).
    pub(crate) fn extend_inputs(&mut self, slot: usize, pads: &[G::Input]) {
        if let Some(i) = self.inputs.get_mut(slot) {
            i.extend_from_slice(pads);
        }
    }

    // ----- running ----------------------------------------------------------

    /// Runs the present tick as a new one (see [`run_tick`](Self::run_tick)).
    pub(crate) fn step(&mut self, watch: &mut impl Watch<G>) -> bool {
        self.run_tick(false, watch)
    }

    /// Runs tick `self.tick` on the known inputs, predicting the remote
    /// one when it is missing (the state before is saved first). `resim`
    /// marks a re-simulation after a wrong guess. Returns whether the
    /// tick ran (always, when the caller checked the local input exists).
    fn run_tick(&mut self, resim: bool, watch: &mut impl Watch<G>) -> bool {
        let t = self.tick as usize;
        if self.local().len() <= t {
            // Unreachable: every caller runs only ticks whose local input
            // is held (the driver checks `can_run`; a re-simulation
            // replays ticks that ran before).
            debug_assert!(false, "no local input for tick {t}");
            return false;
        }
        let mut ran_on = [G::Input::default(); MAX_PLAYERS];
        let mut guessed = false;
        for (input, known) in ran_on.iter_mut().zip(&self.inputs) {
            *input = match known.get(t) {
                Some(&i) => i,
                None => {
                    guessed = true;
                    let last = known.last().copied().unwrap_or_default();
                    let ahead = (t + 1 - known.len()) as u32;
                    G::predict_input(last, ahead)
                }
            };
        }
        if guessed || self.keep > 0 {
            self.saved.push_back(Saved {
                tick: self.tick,
                state: self.game.clone(),
                ran_on,
            });
            if guessed && !resim {
                self.stats.predicted_ticks += 1;
            }
        }
        let players = self.players();
        self.game.step(ran_on.get(..players).unwrap_or(&ran_on));
        self.tick += 1;
        if resim {
            self.stats.resimulated_ticks += 1;
        }
        watch.stepped(self.tick, &self.game, resim);
        if self.tick as usize <= self.known() {
            // Every input so far is known, and every guess before this
            // tick was checked (at the start of the frame, or before this
            // re-simulation began): final.
            self.confirmed = self.tick;
            if self.tick.is_multiple_of(self.hash_interval) {
                let hashes = hashes_of(&self.game);
                self.record(self.tick, hashes, watch);
            }
        }
        true
    }

    /// Rollback mode, at the start of a frame: checks the guesses that the
    /// remote inputs received since have settled; on the first wrong one,
    /// restores the state saved before that tick and re-simulates to the
    /// present. Then reports the ticks that became final and drops the
    /// saved states no longer needed. Returns early (with nothing more
    /// reported) once the watch stops.
    pub(crate) fn reconcile(&mut self, watch: &mut impl Watch<G>) {
        let known = self.known();
        // Everything before `known` is final once any wrong guess before
        // it is corrected. A guess is wrong as soon as that player's real
        // input for its tick is in, whatever the others' are.
        let final_tick = (known as u32).min(self.tick);
        let wrong = self.saved.iter().position(|s| {
            let t = s.tick as usize;
            self.inputs
                .iter()
                .zip(&s.ran_on)
                .any(|(real, ran)| real.get(t).is_some_and(|r| r != ran))
        });
        if let Some(i) = wrong {
            let from = self.saved.get(i).map_or(self.tick, |s| s.tick);
            // The ticks up to the wrong guess were guessed right: their
            // saved states are final. Hash them now, while they are still
            // held (the re-simulation drops every state from `from` on).
            self.hash_final_ticks(from.min(final_tick), watch);
            if watch.stopped() {
                return;
            }
            let length = self.tick.saturating_sub(from);
            log::debug!("misprediction at tick {from}: re-simulating {length} ticks");
            self.stats.rollbacks += 1;
            self.stats.max_rollback = self.stats.max_rollback.max(length);
            self.roll_back(i, watch);
            if watch.stopped() {
                return;
            }
        }
        self.hash_final_ticks(final_tick, watch);
        if watch.stopped() {
            return;
        }
        // States kept behind the present on purpose stay (`keep` ticks
        // behind it after this frame's tick).
        let keep_from = final_tick.min((self.tick + 1).saturating_sub(self.keep));
        while self.saved.front().is_some_and(|s| s.tick < keep_from) {
            self.saved.pop_front();
        }
        self.confirmed = self.confirmed.max(final_tick);
    }

    /// Reports every multiple of the hash interval past the last one
    /// reported, up to `upto` (final ticks whose state is the present or a
    /// saved one).
    fn hash_final_ticks(&mut self, upto: u32, watch: &mut impl Watch<G>) {
        let mut next = self.last_hashed + self.hash_interval;
        while next <= upto && !watch.stopped() {
            let hashes = if next == self.tick {
                Some(hashes_of(&self.game))
            } else {
                self.saved_state(next).map(hashes_of)
            };
            match hashes {
                Some(h) => {
                    // The tick is final: it counts as confirmed now, not
                    // only at the end of the frame, so that a desync found
                    // here (which stops the frame) leaves an input log
                    // that reaches the diverging tick.
                    self.confirmed = self.confirmed.max(next);
                    self.record(next, h, watch);
                }
                None => {
                    // Unreachable: a tick past the last one hashed that was
                    // not final when it ran was predicted, so it was saved.
                    debug_assert!(false, "no state held for final tick {next}");
                    log::error!("no state held for tick {next}: hash skipped");
                    self.last_hashed = next;
                }
            }
            next += self.hash_interval;
        }
    }

    /// Rolls back on purpose to the state saved before tick `tick` and
    /// re-simulates to the present, whatever the guesses were. Returns
    /// `false` (changing nothing) when that state is not held.
    pub(crate) fn roll_back_to(&mut self, tick: u32, watch: &mut impl Watch<G>) -> bool {
        match self.saved.iter().position(|s| s.tick == tick) {
            Some(i) => {
                self.roll_back(i, watch);
                true
            }
            None => false,
        }
    }

    /// The hashes of the states saved after tick `tick`'s (tick count
    /// after each, oldest first) and of the present: what a re-simulation
    /// from `tick` must reproduce.
    pub(crate) fn hashes_after(&self, tick: u32) -> VecDeque<(u32, u64)> {
        let mut out: VecDeque<(u32, u64)> = self
            .saved
            .iter()
            .filter(|s| s.tick > tick)
            .map(|s| (s.tick, s.state.state_hash()))
            .collect();
        out.push_back((self.tick, self.game.state_hash()));
        out
    }

    /// Restores the state saved at `self.saved[i]` (dropping it and every
    /// later one) and re-simulates to the present tick, guessing again
    /// past the newest remote input.
    fn roll_back(&mut self, i: usize, watch: &mut impl Watch<G>) {
        let known = self.known();
        let present = self.tick;
        let mut dropped = self.saved.drain(i..);
        if let Some(first) = dropped.next() {
            self.game = first.state;
            self.tick = first.tick;
        }
        drop(dropped);
        // The restored state itself may be final and due a hash (the
        // entry that held it is gone).
        if self.tick.is_multiple_of(self.hash_interval) && self.tick as usize <= known {
            let hashes = hashes_of(&self.game);
            self.record(self.tick, hashes, watch);
        }
        // Re-simulate to the present even if a hash reported on the way
        // stops the watch: the present state and tick must never move back
        // to a point part-way through.
        while self.tick < present {
            if !self.run_tick(true, watch) {
                break;
            }
        }
    }

    /// Hands final tick `tick`'s hash to the watch: the first time as
    /// [`Watch::final_hash`], again as [`Watch::final_again`].
    fn record(
        &mut self,
        tick: u32,
        (hash, parts): (u64, Vec<StatePart>),
        watch: &mut impl Watch<G>,
    ) {
        if watch.stopped() {
            return;
        }
        if tick <= self.last_hashed {
            watch.final_again(tick, hash);
            return;
        }
        self.last_hashed = tick;
        watch.final_hash(tick, hash, parts);
    }

    /// The last final tick handed to the watch (0 before the first).
    pub(crate) fn last_hashed(&self) -> u32 {
        self.last_hashed
    }

    /// Writes the inputs of confirmed tick `tick` (ticks run before it)
    /// into `out`, one per player in player order, replacing what it
    /// held. `false` (and `out` left empty) for a tick not confirmed yet.
    pub(crate) fn confirmed_inputs(&self, tick: u32, out: &mut Vec<G::Input>) -> bool {
        out.clear();
        if tick >= self.confirmed || tick < self.base {
            return false;
        }
        let t = tick as usize;
        for player in &self.inputs {
            let Some(&i) = player.get(t) else {
                // Unreachable: a confirmed tick ran on every input.
                debug_assert!(false, "confirmed tick {t} without every input");
                out.clear();
                return false;
            };
            out.push(i);
        }
        true
    }

    /// Every confirmed tick so far as an exportable [`InputLog`], every
    /// player's inputs in slot order; from the saved state the timeline
    /// started from, if it did.
    pub(crate) fn input_log(&self, seed: u64, delay: u8) -> InputLog<G::Input> {
        let players = self.players();
        let ticks = self.confirmed.saturating_sub(self.base) as usize;
        let mut inputs = Vec::with_capacity(ticks * players);
        let mut tick = Vec::with_capacity(players);
        for t in self.base..self.confirmed {
            if !self.confirmed_inputs(t, &mut tick) {
                break;
            }
            inputs.extend_from_slice(&tick);
        }
        // Cannot truncate: at most MAX_PLAYERS.
        let players = players as u8;
        let final_hash = self
            .confirmed_game()
            .map_or_else(|| G::new(seed, players).state_hash(), G::state_hash);
        InputLog {
            build: G::BUILD_ID,
            seed,
            players,
            input_delay: delay,
            final_hash,
            start_tick: self.base,
            start_state: self.base_state.clone(),
            inputs,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A game whose state depends on every input and their order.
    #[derive(Clone, Debug)]
    struct Mix(u64);

    impl DeterministicGame for Mix {
        type Input = u8;
        const BUILD_ID: u64 = 0x7e57;
        fn new(seed: u64, _: u8) -> Self {
            Mix(seed)
        }
        fn step(&mut self, i: &[u8]) {
            self.0 = self.0.rotate_left(9) ^ (u64::from(i[0]) << 8 | u64::from(i[1]));
        }
        fn state_hash(&self) -> u64 {
            self.0.wrapping_mul(0x9e37_79b9_7f4a_7c15)
        }
    }

    /// What the timeline reported.
    #[derive(Default)]
    struct Record {
        new_ticks: Vec<u32>,
        resimulated: Vec<u32>,
        finals: Vec<(u32, u64)>,
        again: Vec<(u32, u64)>,
    }

    impl Watch<Mix> for Record {
        fn stepped(&mut self, tick: u32, _: &Mix, resim: bool) {
            if resim {
                self.resimulated.push(tick);
            } else {
                self.new_ticks.push(tick);
            }
        }
        fn final_hash(&mut self, tick: u32, hash: u64, _parts: Vec<StatePart>) {
            self.finals.push((tick, hash));
        }
        fn final_again(&mut self, tick: u32, hash: u64) {
            self.again.push((tick, hash));
        }
        fn stopped(&self) -> bool {
            false
        }
    }

    /// The state after `ticks` ticks of these inputs, stepped straight.
    fn straight(seed: u64, local: &[u8], remote: &[u8], ticks: u32) -> Mix {
        let mut g = Mix::new(seed, 2);
        for t in 0..ticks as usize {
            g.step(&[local[t], remote[t]]);
        }
        g
    }

    #[test]
    fn lock_step_runs_a_tick_only_on_both_inputs_and_every_tick_is_final() {
        let mut tl = Timeline::<Mix>::new(3, 2, 0, 2, 0, 2);
        let mut rec = Record::default();
        assert!(tl.needs_local(2));
        for pad in [1, 2, 3] {
            tl.push_local(pad);
        }
        // The delay's two default inputs run; then the peer's are missing.
        assert!(tl.can_run() && tl.step(&mut rec));
        assert!(tl.can_run() && tl.step(&mut rec));
        assert!(!tl.can_run());
        tl.extend_inputs(1, &[9]);
        assert!(tl.can_run() && tl.step(&mut rec));
        assert_eq!((tl.tick(), tl.confirmed_tick()), (3, 3));
        assert_eq!(rec.new_ticks, [1, 2, 3]);
        let want = straight(3, &[0, 0, 1], &[0, 0, 9], 2).state_hash();
        assert_eq!(rec.finals, [(2, want)]);
        assert_eq!(tl.stats(), TimelineStats::default());
    }

    #[test]
    fn a_wrong_guess_is_rolled_back_and_the_state_is_the_straight_one() {
        let local = [1u8, 2, 3, 4, 5, 6, 7, 8];
        let remote = [5u8, 5, 6, 6, 6, 7, 7, 7];
        let mut tl = Timeline::<Mix>::new(11, 2, 1, 0, 4, 1);
        let mut rec = Record::default();
        // The first two remote inputs arrive in time; the rest later.
        tl.extend_inputs(0, &remote[..2]);
        for &pad in &local[..6] {
            tl.reconcile(&mut rec);
            tl.push_local(pad);
            assert!(tl.can_run());
            tl.step(&mut rec);
        }
        // Ticks 2..6 ran on a repeat of 5; the real input is 6 from tick 2.
        assert_eq!((tl.tick(), tl.confirmed_tick()), (6, 2));
        assert_eq!(tl.stats().predicted_ticks, 4);
        tl.extend_inputs(0, &remote[2..6]);
        tl.reconcile(&mut rec);
        assert_eq!(tl.stats().rollbacks, 1);
        assert_eq!(tl.stats().max_rollback, 4);
        assert_eq!(rec.resimulated, [3, 4, 5, 6]);
        assert_eq!(tl.confirmed_tick(), 6);
        // Side 1: the local player is player 1.
        let want = straight(11, &remote, &local, 6);
        assert_eq!(tl.game().state_hash(), want.state_hash());
        // Every final tick reported once, in order, with its true hash.
        let ticks: Vec<u32> = rec.finals.iter().map(|&(t, _)| t).collect();
        assert_eq!(ticks, [1, 2, 3, 4, 5, 6]);
        for &(t, h) in &rec.finals {
            assert_eq!(h, straight(11, &remote, &local, t).state_hash(), "tick {t}");
        }
        // The state restored (before tick 2, final) was reported again,
        // with the same hash.
        assert_eq!(rec.again.len(), 1);
        assert!(rec.finals.contains(&rec.again[0]));
        // The confirmed inputs are the real ones, in player order.
        let mut buf = Vec::new();
        assert!(tl.confirmed_inputs(3, &mut buf));
        assert_eq!(buf, [remote[3], local[3]]);
        assert!(!tl.confirmed_inputs(6, &mut buf));
    }

    #[test]
    fn a_forced_rollback_into_kept_final_states_reports_them_again() {
        let mut tl = Timeline::<Mix>::new(5, 2, 0, 0, 3, 1).keep_states(3);
        let mut rec = Record::default();
        for pad in 0..6u8 {
            tl.extend_inputs(1, &[pad ^ 1]);
            tl.reconcile(&mut rec);
            tl.push_local(pad);
            tl.step(&mut rec);
        }
        let before = tl.game().state_hash();
        let expected = tl.hashes_after(3);
        assert!(tl.roll_back_to(3, &mut rec));
        assert_eq!(tl.game().state_hash(), before);
        assert_eq!(rec.resimulated, [4, 5, 6]);
        // Ticks 3 to 6 were final already: each reported again, same hash.
        let again: Vec<u32> = rec.again.iter().map(|&(t, _)| t).collect();
        assert_eq!(again, [3, 4, 5, 6]);
        for (t, h) in expected {
            assert!(rec.again.contains(&(t, h)), "tick {t}");
        }
        // Nothing older than three ticks is kept.
        assert!(!tl.roll_back_to(2, &mut rec));
    }
}
