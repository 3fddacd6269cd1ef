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

/// What the driver of a [`Timeline`] hears from it, in the order things
/// happen.
pub(crate) trait Watch<G> {
    /// A tick ran: `tick` is the tick count after it and `state` the state
    /// it produced. `resim` marks a tick run again after a wrong guess.
    fn stepped(&mut self, tick: u32, state: &G, resim: bool);

    /// The state after `tick` ticks is final (every input known, every
    /// guess before it corrected) and `tick` is due a hash: `hash` is its
    /// state hash. Called once per tick, in ascending order.
    fn final_hash(&mut self, tick: u32, hash: u64);

    /// A final tick already passed to [`final_hash`](Self::final_hash) was
    /// computed again and now hashes `hash`. Only a rollback into final
    /// ticks does that, which a match never forces (the default ignores
    /// it); a sync test forces it and compares.
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

/// A state saved before a tick that ran on a predicted remote input (or
/// before any tick, when the timeline keeps states behind the present).
#[derive(Clone)]
struct Saved<G: DeterministicGame> {
    tick: u32,
    state: G,
    /// The remote input the tick ran on: the guess, or the real input
    /// when it was known.
    predicted: G::Input,
}

/// The game and the inputs that drive it, for one two-player match.
pub(crate) struct Timeline<G: DeterministicGame> {
    game: G,
    /// Ticks simulated so far (the present).
    tick: u32,
    /// This side's player number: the order of the two inputs for `step`.
    side: u8,
    /// Local inputs by tick (ticks below the delay are the default input).
    local: Vec<G::Input>,
    /// Remote inputs by tick, received without a gap.
    remote: Vec<G::Input>,
    /// How many ticks may run past the newest remote input on guesses
    /// (0 = lock-step).
    window: u8,
    /// Ticks between two hashed final ticks.
    hash_interval: u32,
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
    stats: TimelineStats,
}

impl<G: DeterministicGame> Timeline<G> {
    /// The start of a match from `seed`: the first `delay` ticks of both
    /// players are the default input.
    pub(crate) fn new(seed: u64, side: u8, delay: u8, window: u8, hash_interval: u16) -> Self {
        let d = usize::from(delay);
        Timeline {
            game: G::new(seed, 2),
            tick: 0,
            side,
            local: vec![G::Input::default(); d],
            remote: vec![G::Input::default(); d],
            window,
            hash_interval: u32::from(hash_interval.max(1)),
            keep: 0,
            saved: VecDeque::new(),
            confirmed: 0,
            last_hashed: 0,
            stats: TimelineStats::default(),
        }
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

    /// The prediction window (0 = lock-step).
    pub(crate) fn window(&self) -> u8 {
        self.window
    }

    /// Every local input held, by tick.
    pub(crate) fn local(&self) -> &[G::Input] {
        &self.local
    }

    /// Every remote input received, by tick.
    pub(crate) fn remote(&self) -> &[G::Input] {
        &self.remote
    }

    /// Counters of guessing and correcting.
    pub(crate) fn stats(&self) -> TimelineStats {
        self.stats
    }

    /// Whether the local input for the tick `delay` ahead of the present is
    /// still missing (the pad must be sampled).
    pub(crate) fn needs_local(&self, delay: u8) -> bool {
        self.local.len() <= self.tick as usize + usize::from(delay)
    }

    /// Whether the present tick can run now: its local input is held and
    /// its remote input is known or within the prediction window.
    pub(crate) fn can_run(&self) -> bool {
        let t = self.tick as usize;
        t < self.local.len() && t < self.remote.len() + usize::from(self.window)
    }

    // ----- feeding ----------------------------------------------------------

    /// Appends this side's next input.
    pub(crate) fn push_local(&mut self, pad: G::Input) {
        self.local.push(pad);
    }

    /// Appends remote inputs that follow the last one held without a gap.
    pub(crate) fn extend_remote(&mut self, pads: &[G::Input]) {
        self.remote.extend_from_slice(pads);
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
        let Some(&l) = self.local.get(t) else {
            // Unreachable: every caller runs only ticks whose local input
            // is held (the driver checks `can_run`; a re-simulation
            // replays ticks that ran before).
            debug_assert!(false, "no local input for tick {t}");
            return false;
        };
        let (r, guessed) = match self.remote.get(t) {
            Some(&r) => (r, false),
            None => {
                let last = self.remote.last().copied().unwrap_or_default();
                let ahead = (t + 1 - self.remote.len()) as u32;
                (G::predict_input(last, ahead), true)
            }
        };
        if guessed || self.keep > 0 {
            self.saved.push_back(Saved {
                tick: self.tick,
                state: self.game.clone(),
                predicted: r,
            });
            if guessed && !resim {
                self.stats.predicted_ticks += 1;
            }
        }
        let inputs = if self.side == 0 { [l, r] } else { [r, l] };
        self.game.step(&inputs);
        self.tick += 1;
        if resim {
            self.stats.resimulated_ticks += 1;
        }
        watch.stepped(self.tick, &self.game, resim);
        if self.tick as usize <= self.remote.len() {
            // Every input so far is known, and every guess before this
            // tick was checked (at the start of the frame, or before this
            // re-simulation began): final.
            self.confirmed = self.tick;
            if self.tick.is_multiple_of(self.hash_interval) {
                let hash = self.game.state_hash();
                self.record(self.tick, hash, watch);
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
        let known = self.remote.len();
        // Everything before `known` is final once any wrong guess before
        // it is corrected.
        let final_tick = (known as u32).min(self.tick);
        let wrong = self.saved.iter().position(|s| {
            (s.tick as usize) < known && self.remote.get(s.tick as usize) != Some(&s.predicted)
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
            let hash = if next == self.tick {
                Some(self.game.state_hash())
            } else {
                self.saved_state(next).map(G::state_hash)
            };
            match hash {
                Some(h) => self.record(next, h, watch),
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
        let known = self.remote.len();
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
            let hash = self.game.state_hash();
            self.record(self.tick, hash, watch);
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
    fn record(&mut self, tick: u32, hash: u64, watch: &mut impl Watch<G>) {
        if watch.stopped() {
            return;
        }
        if tick <= self.last_hashed {
            watch.final_again(tick, hash);
            return;
        }
        self.last_hashed = tick;
        watch.final_hash(tick, hash);
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
        if tick >= self.confirmed {
            return false;
        }
        let t = tick as usize;
        let (Some(&l), Some(&r)) = (self.local.get(t), self.remote.get(t)) else {
            // Unreachable: a confirmed tick ran on both inputs.
            debug_assert!(false, "confirmed tick {t} without both inputs");
            return false;
        };
        let pair = if self.side == 0 { [l, r] } else { [r, l] };
        out.extend_from_slice(&pair);
        true
    }

    /// Every confirmed tick so far as an exportable [`InputLog`], both
    /// players' inputs in player order.
    pub(crate) fn input_log(&self, seed: u64, delay: u8) -> InputLog<G::Input> {
        let ticks = self.confirmed as usize;
        let mut inputs = Vec::with_capacity(ticks * 2);
        for t in 0..ticks {
            let (Some(&l), Some(&r)) = (self.local.get(t), self.remote.get(t)) else {
                // Unreachable: a confirmed tick ran on both inputs.
                debug_assert!(false, "confirmed tick {t} without both inputs");
                break;
            };
            let pair = if self.side == 0 { [l, r] } else { [r, l] };
            inputs.extend_from_slice(&pair);
        }
        let final_hash = self
            .confirmed_game()
            .map_or_else(|| G::new(seed, 2).state_hash(), G::state_hash);
        InputLog {
            build: G::BUILD_ID,
            seed,
            players: 2,
            input_delay: delay,
            final_hash,
            inputs,
        }
    }
}
