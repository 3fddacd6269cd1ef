//! Shared pieces of the scenario tests: a tiny deterministic game and a
//! driver that runs two sessions over the simulated network in virtual time.
#![allow(dead_code)] // each test file uses a different part of this module

use std::collections::BTreeMap;

use lockstep::parts::StatePart;
use lockstep::{
    DeterministicGame, Event, Fnv1a, Frame, InputLog, Millis, Outcome, Session, SessionConfig,
};
use netsim::{LinkConfig, SimEndpoint};

/// A tiny game: a mixing accumulator per player plus a tick counter.
/// Integers only; every field is hashed.
#[derive(Clone, Debug)]
pub struct Tiny {
    acc: [u64; 2],
    ticks: u32,
}

impl Tiny {
    /// Ticks this state has been stepped.
    pub fn ticks(&self) -> u32 {
        self.ticks
    }
}

impl DeterministicGame for Tiny {
    type Input = u8;
    const BUILD_ID: u64 = 0x7157_0001;

    fn new(seed: u64, _players: u8) -> Self {
        Tiny {
            acc: [seed, !seed],
            ticks: 0,
        }
    }

    fn step(&mut self, inputs: &[u8]) {
        for (acc, &i) in self.acc.iter_mut().zip(inputs) {
            *acc = acc.rotate_left(7) ^ u64::from(i).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
        self.acc[0] = self.acc[0].wrapping_add(self.acc[1] >> 3);
        self.ticks += 1;
    }

    fn state_hash(&self) -> u64 {
        let mut h = Fnv1a::new();
        h.write_u64(self.acc[0]);
        h.write_u64(self.acc[1]);
        h.write_u32(self.ticks);
        h.finish()
    }
}

/// `Tiny`, except that its state is nudged after tick `AT`: a desync
/// injected into one peer. Same build id and input, so the handshake passes.
#[derive(Clone, Debug)]
pub struct TinyDesyncAt<const AT: u32>(pub Tiny);

impl<const AT: u32> DeterministicGame for TinyDesyncAt<AT> {
    type Input = u8;
    const BUILD_ID: u64 = Tiny::BUILD_ID;
    fn new(seed: u64, players: u8) -> Self {
        TinyDesyncAt(Tiny::new(seed, players))
    }
    fn step(&mut self, inputs: &[u8]) {
        self.0.step(inputs);
        if self.0.ticks == AT {
            self.0.acc[1] ^= 1;
        }
    }
    fn state_hash(&self) -> u64 {
        self.0.state_hash()
    }
}

/// A game of three parts: two counters mixed by the inputs and a turn
/// that flips every tick. After tick `AT` (never when 0) the part numbered
/// `PART` is nudged: a desync injected into one part of one peer.
#[derive(Clone, Debug)]
pub struct Trio<const AT: u32, const PART: u8> {
    left: u64,
    right: u64,
    turn: u8,
    ticks: u32,
}

/// The names of `Trio`'s parts, in order.
pub const TRIO_PARTS: [&str; 3] = ["the left counter", "the right counter", "the turn"];

impl<const AT: u32, const PART: u8> DeterministicGame for Trio<AT, PART> {
    type Input = u8;
    const BUILD_ID: u64 = 0x7210_0001;

    fn new(seed: u64, _players: u8) -> Self {
        Trio {
            left: seed,
            right: !seed,
            turn: 0,
            ticks: 0,
        }
    }

    fn step(&mut self, inputs: &[u8]) {
        let i = |n: usize| u64::from(inputs.get(n).copied().unwrap_or(0));
        self.left = self.left.rotate_left(5) ^ i(0).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        self.right = self.right.rotate_left(3) ^ i(1).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        self.turn ^= 1;
        self.ticks += 1;
        if self.ticks == AT {
            match PART {
                0 => self.left ^= 1,
                1 => self.right ^= 1,
                _ => self.turn ^= 1,
            }
        }
    }

    fn state_hash(&self) -> u64 {
        let mut h = Fnv1a::new();
        h.write_u64(self.left);
        h.write_u64(self.right);
        h.write_u8(self.turn);
        h.write_u32(self.ticks);
        h.finish()
    }

    fn state_parts(&self) -> Vec<StatePart> {
        vec![
            StatePart::hashed(TRIO_PARTS[0], |h| h.write_u64(self.left)),
            StatePart::hashed(TRIO_PARTS[1], |h| h.write_u64(self.right)),
            StatePart::hashed(TRIO_PARTS[2], |h| {
                h.write_u8(self.turn);
                h.write_u32(self.ticks);
            }),
        ]
    }
}

/// `Tiny` under another build id (a different game version).
#[derive(Clone, Debug)]
pub struct TinyOtherBuild(pub Tiny);

impl DeterministicGame for TinyOtherBuild {
    type Input = u8;
    const BUILD_ID: u64 = Tiny::BUILD_ID + 1;
    fn new(seed: u64, players: u8) -> Self {
        TinyOtherBuild(Tiny::new(seed, players))
    }
    fn step(&mut self, inputs: &[u8]) {
        self.0.step(inputs);
    }
    fn state_hash(&self) -> u64 {
        self.0.state_hash()
    }
}

/// A seeded pad source: each time it is sampled, the pad changes to a new
/// pseudo-random byte with probability 1/3 and is held otherwise (players
/// hold buttons), so both run encodings are exercised.
#[derive(Clone, Debug)]
pub struct Pads(u64, u64, u8, u64);

impl Pads {
    pub fn new(seed: u64) -> Self {
        Pads(seed ^ 0x5151_5151, 0, 0, 3)
    }
    /// The same, but the pad changes with probability 1/`odds` per sample
    /// (a human player changes far less often than one frame in three).
    pub fn changing_one_in(seed: u64, odds: u64) -> Self {
        Pads(seed ^ 0x5151_5151, 0, 0, odds.max(1))
    }
    /// How many pads were sampled.
    pub fn sampled(&self) -> u64 {
        self.1
    }
    pub fn next(&mut self) -> u8 {
        self.1 += 1;
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let r = self.0 >> 32;
        if r.is_multiple_of(self.3) {
            self.2 = (r >> 8) as u8;
        }
        self.2
    }
}

/// The two ways a session plays: every scenario runs in both.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Prediction window 0: a tick runs only when both inputs are known.
    LockStep,
    /// Prediction window 8: missing remote inputs are predicted.
    Rollback,
}

/// Both modes, lock-step first.
pub const MODES: [Mode; 2] = [Mode::LockStep, Mode::Rollback];

impl Mode {
    /// `cfg` in this mode.
    pub fn cfg(self, cfg: SessionConfig) -> SessionConfig {
        match self {
            Mode::LockStep => cfg,
            Mode::Rollback => cfg.rollback(),
        }
    }
}

/// Runs `f` in both modes, saying which one runs (shown on failure).
pub fn in_both_modes(mut f: impl FnMut(Mode)) {
    for mode in MODES {
        eprintln!("--- mode {mode:?}");
        f(mode);
    }
}

/// Virtual time of frame `n` at 60 frames per second.
pub fn frame_time(n: u64) -> Millis {
    Millis(n * 1000 / 60)
}

/// Everything one side saw.
#[derive(Debug, Default)]
pub struct Seen {
    /// State hash after every tick, by tick.
    pub hashes: BTreeMap<u32, u64>,
    pub events: Vec<Event>,
    pub frames: Vec<Frame>,
    pub hash_matches: u32,
    pub round_trips: Vec<Millis>,
    pub started: bool,
}

impl Seen {
    pub fn record<G: DeterministicGame>(&mut self, s: &mut Session<G>) {
        while let Some(e) = s.poll_event() {
            match &e {
                Event::HashMatched(_) => self.hash_matches += 1,
                Event::RoundTrip(rtt) => self.round_trips.push(*rtt),
                Event::Started { .. } => self.started = true,
                _ => {}
            }
            self.events.push(e);
        }
        // The state of the last final tick (in lock-step, the present: one
        // tick per frame at most, recorded after every frame, so every
        // tick; in rollback, the confirmed state, which moves in steps).
        let c = s.confirmed_tick();
        if c > 0 && !self.hashes.contains_key(&c) {
            if let Some(g) = s.confirmed_game() {
                self.hashes.insert(c, g.state_hash());
            }
        }
    }
}

/// Two sessions (host plays `A`, guest plays `B`) over a simulated link,
/// driven frame by frame in virtual time.
pub struct Pair<A: DeterministicGame<Input = u8>, B: DeterministicGame<Input = u8>> {
    pub host: Session<A>,
    pub guest: Session<B>,
    pub host_net: SimEndpoint,
    pub guest_net: SimEndpoint,
    pub host_pads: Pads,
    pub guest_pads: Pads,
    pub host_seen: Seen,
    pub guest_seen: Seen,
    /// Frames advanced so far.
    pub frame: u64,
    /// When false, the host's session gets no frames (its player's tab is
    /// frozen); the same for the guest.
    pub host_runs: bool,
    pub guest_runs: bool,
}

impl Pair<Tiny, Tiny> {
    /// Two `Tiny` sessions: the host with `seed` and `delay`.
    pub fn tiny(link: LinkConfig, net_seed: u64, seed: u64, delay: u8) -> Self {
        Pair::tiny_in(Mode::LockStep, link, net_seed, seed, delay)
    }

    /// The same in `mode`.
    pub fn tiny_in(mode: Mode, link: LinkConfig, net_seed: u64, seed: u64, delay: u8) -> Self {
        Pair::new(
            mode.cfg(SessionConfig::host(seed, delay)),
            mode.cfg(SessionConfig::guest()),
            link,
            net_seed,
        )
    }
}

impl<A: DeterministicGame<Input = u8>, B: DeterministicGame<Input = u8>> Pair<A, B> {
    pub fn new(host: SessionConfig, guest: SessionConfig, link: LinkConfig, net_seed: u64) -> Self {
        let (host_net, guest_net) = netsim::pair(link, net_seed);
        Pair {
            // Cannot fail: the configuration is valid (delay <= 60, non-zero intervals).
            host: Session::new(host).expect("valid host config"),
            // Cannot fail: the configuration is valid (non-zero intervals and timeout).
            guest: Session::new(guest).expect("valid guest config"),
            host_net,
            guest_net,
            host_pads: Pads::new(net_seed.wrapping_mul(3)),
            guest_pads: Pads::new(net_seed.wrapping_mul(5).wrapping_add(1)),
            host_seen: Seen::default(),
            guest_seen: Seen::default(),
            frame: 0,
            host_runs: true,
            guest_runs: true,
        }
    }

    pub fn now(&self) -> Millis {
        self.host_net.now()
    }

    fn pump_both(&mut self, now: Millis) {
        self.host.pump(now, &mut self.host_net);
        self.guest.pump(now, &mut self.guest_net);
        self.host_seen.record(&mut self.host);
        self.guest_seen.record(&mut self.guest);
    }

    /// Runs one 60 Hz frame: delivers every datagram due before the frame
    /// at its arrival time, then advances both sessions and sends.
    pub fn step_frame(&mut self) {
        let t = frame_time(self.frame);
        loop {
            let next = [self.host_net.poll_timeout(), self.guest_net.poll_timeout()]
                .into_iter()
                .flatten()
                .min();
            match next {
                Some(at) if at <= t => {
                    self.host_net.advance_to(at);
                    self.pump_both(at);
                }
                _ => break,
            }
        }
        self.host_net.advance_to(t);
        self.pump_both(t);
        if self.host_runs {
            let pads = &mut self.host_pads;
            let f = self.host.advance_frame(t, || pads.next());
            self.host_seen.frames.push(f);
        }
        if self.guest_runs {
            let pads = &mut self.guest_pads;
            let f = self.guest.advance_frame(t, || pads.next());
            self.guest_seen.frames.push(f);
        }
        self.pump_both(t);
        self.frame += 1;
    }

    /// Where the pair stands, for a failed assertion's message: both
    /// sides' present and confirmed ticks, the frames run, the outcomes.
    pub fn progress(&self) -> String {
        format!(
            "ticks {} / {} (confirmed {} / {}) after {} frames: {:?} / {:?}",
            self.host.tick(),
            self.guest.tick(),
            self.host.confirmed_tick(),
            self.guest.confirmed_tick(),
            self.frame,
            self.host.outcome(),
            self.guest.outcome()
        )
    }

    /// Runs frames until both sides have simulated `ticks` ticks (or one
    /// has ended), at most `max_frames`. Returns whether both got there.
    /// In rollback the present tick may rest on predictions: to compare
    /// final states, use [`run_to_confirmed`](Self::run_to_confirmed).
    pub fn run_to_tick(&mut self, ticks: u32, max_frames: u64) -> bool {
        while self.frame < max_frames {
            if self.host.tick() >= ticks && self.guest.tick() >= ticks {
                return true;
            }
            if self.host.outcome().is_some() || self.guest.outcome().is_some() {
                return false;
            }
            self.step_frame();
        }
        false
    }

    /// Runs frames until both sides' confirmed tick (every input known,
    /// every misprediction corrected) has reached `ticks` (or one has
    /// ended), at most `max_frames`. Returns whether both got there.
    pub fn run_to_confirmed(&mut self, ticks: u32, max_frames: u64) -> bool {
        while self.frame < max_frames {
            if self.host.confirmed_tick() >= ticks && self.guest.confirmed_tick() >= ticks {
                return true;
            }
            if self.host.outcome().is_some() || self.guest.outcome().is_some() {
                return false;
            }
            self.step_frame();
        }
        false
    }

    /// Asserts that both sides hold the same state after `tick` ticks,
    /// once both have confirmed it ([`run_to_confirmed`](Self::run_to_confirmed)):
    ///
    /// * the sessions' own check: both sides compared their hashes of
    ///   their live confirmed states at `tick` (a multiple of the hash
    ///   interval) and saw them agree (runs up to `extra_frames` more
    ///   frames for the hash reports to cross);
    /// * each side's final inputs, replayed in a fresh game to `tick`,
    ///   give the same state;
    /// * each side's confirmed state is the replay of its own final inputs
    ///   (the session's rollbacks left nothing behind).
    ///
    /// Returns the state hash at `tick`.
    pub fn assert_same_state_at(&mut self, tick: u32, extra_frames: u64) -> u64 {
        assert!(
            self.host.confirmed_tick() >= tick && self.guest.confirmed_tick() >= tick,
            "confirmed ticks {} / {}",
            self.host.confirmed_tick(),
            self.guest.confirmed_tick()
        );
        let matched = |seen: &Seen| seen.events.contains(&Event::HashMatched(tick));
        let limit = self.frame + extra_frames;
        while self.frame < limit && !(matched(&self.host_seen) && matched(&self.guest_seen)) {
            self.step_frame();
        }
        assert!(
            matched(&self.host_seen) && matched(&self.guest_seen),
            "no hash check at tick {tick} within {extra_frames} frames: {:?} / {:?}",
            self.host.outcome(),
            self.guest.outcome()
        );
        let replayed_to = |mut log: InputLog<u8>| {
            assert!(log.ticks() >= tick, "{} final ticks", log.ticks());
            log.inputs.truncate(tick as usize * 2);
            log
        };
        let host_log = self.host.input_log();
        let guest_log = self.guest.input_log();
        let host_at = replayed_to(host_log.clone())
            .replay_game::<A>()
            .map(|g| g.state_hash());
        let guest_at = replayed_to(guest_log.clone())
            .replay_game::<B>()
            .map(|g| g.state_hash());
        assert!(host_at.is_ok(), "{host_at:?}");
        assert_eq!(host_at, guest_at, "the final inputs to tick {tick} differ");
        // `replay` checks the log's final hash: the session's confirmed state.
        assert!(
            host_log.replay::<A>().is_ok(),
            "host: {:?}",
            host_log.replay::<A>()
        );
        assert!(
            guest_log.replay::<B>().is_ok(),
            "guest: {:?}",
            guest_log.replay::<B>()
        );
        host_at.unwrap_or_default()
    }

    /// Runs `n` frames.
    pub fn run_frames(&mut self, n: u64) {
        for _ in 0..n {
            self.step_frame();
        }
    }

    /// Runs frames until both sessions have ended, at most `max_frames`.
    pub fn run_until_both_end(&mut self, max_frames: u64) -> (Option<Outcome>, Option<Outcome>) {
        while self.frame < max_frames
            && (self.host.outcome().is_none() || self.guest.outcome().is_none())
        {
            self.step_frame();
        }
        (self.host.outcome().cloned(), self.guest.outcome().cloned())
    }

    /// Asserts both sides agree at every final tick both recorded, and
    /// that their final inputs agree, and returns how many ticks were
    /// compared by state.
    pub fn assert_in_sync(&self) -> usize {
        let mut compared = 0;
        for (t, h) in &self.host_seen.hashes {
            if let Some(g) = self.guest_seen.hashes.get(t) {
                assert_eq!(h, g, "hashes differ at tick {t}");
                compared += 1;
            }
        }
        let (a, b) = (self.host.input_log(), self.guest.input_log());
        let n = a.inputs.len().min(b.inputs.len());
        assert_eq!(a.inputs[..n], b.inputs[..n], "final inputs differ");
        compared
    }
}

/// Runs a `Tiny` match over `link` until both sides have confirmed 3,600
/// ticks and checks they hold the same state at tick 3,600 (see
/// [`Pair::assert_same_state_at`]), agree at every tick both recorded,
/// that the in-band hash checks ran and that nothing ended the match.
pub fn assert_in_sync_for_3600_ticks(
    link: LinkConfig,
    net_seed: u64,
    delay: u8,
) -> Pair<Tiny, Tiny> {
    assert_in_sync_for_3600_ticks_in(Mode::LockStep, link, net_seed, delay)
}

/// The same in `mode`. In rollback the state is compared at every final
/// tick both sides recorded (the confirmed tick moves in steps), and the
/// inputs of every final tick.
pub fn assert_in_sync_for_3600_ticks_in(
    mode: Mode,
    link: LinkConfig,
    net_seed: u64,
    delay: u8,
) -> Pair<Tiny, Tiny> {
    let mut p = Pair::tiny_in(mode, link, net_seed, 0xfeed ^ net_seed, delay);
    let reached = p.run_to_confirmed(3600, 3600 * 4);
    assert!(reached, "stopped: {}", p.progress());
    assert_eq!(p.host.outcome(), None);
    assert_eq!(p.guest.outcome(), None);
    p.assert_same_state_at(3600, 600);
    assert_eq!(p.host.outcome(), None);
    assert_eq!(p.guest.outcome(), None);
    let compared = p.assert_in_sync();
    eprintln!(
        "frames {} stalled {}/{} compared {compared} host {:?}",
        p.frame,
        p.host.stats().stalled_frames,
        p.guest.stats().stalled_frames,
        p.host.stats()
    );
    let want = if mode == Mode::LockStep { 3600 } else { 600 };
    assert!(compared >= want, "only {compared} ticks compared");
    // 3,600 ticks / 60 = 60 hash checks each; the last may still be in
    // flight (in rollback, hashes wait for their tick to be final too).
    let hashes = if mode == Mode::LockStep { 58 } else { 56 };
    assert!(
        p.host_seen.hash_matches >= hashes,
        "{}",
        p.host_seen.hash_matches
    );
    assert!(
        p.guest_seen.hash_matches >= hashes,
        "{}",
        p.guest_seen.hash_matches
    );
    p
}

/// The link of the outcome scenarios: 50 ms ±10 one way, 5% loss.
pub fn outcome_link() -> LinkConfig {
    LinkConfig {
        latency: Millis(50),
        jitter: Millis(10),
        loss_percent: 5,
        ..LinkConfig::default()
    }
}

/// Two `Tiny` sessions over [`outcome_link`] (input delay 6), run to tick
/// 300: the starting point of the outcome scenarios.
pub fn running_pair(mode: Mode, seed: u64) -> Pair<Tiny, Tiny> {
    let mut p = Pair::tiny_in(mode, outcome_link(), seed, seed, 6);
    assert!(p.run_to_tick(300, 1000));
    p
}
