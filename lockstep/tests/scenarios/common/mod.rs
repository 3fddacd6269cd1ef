//! Shared pieces of the scenario tests: a tiny deterministic game, and a
//! pair of sessions over the simulated network driven in virtual time by
//! `lockstep-testing` (the driver the examples and benchmarks share).
#![allow(dead_code)] // each test file uses a different part of this module

use lockstep::parts::StatePart;
use lockstep::{
    DeterministicGame, Event, Fnv1a, InputLog, Millis, Outcome, Session, SessionConfig,
};
use lockstep_testing::{member_id, Member, Net, Player, SimLink};
use netsim::{LinkConfig, SimEndpoint};

#[allow(unused_imports)] // each test file uses some of them
pub use lockstep_testing::{frame_time, in_both_modes, Mode, Pads, Seen, MODES};

pub mod host_moved;

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

/// Two sessions (host plays `A`, guest plays `B`) over a simulated link,
/// driven frame by frame in virtual time. `host` and `guest` deref to
/// their sessions; each holds its pads, what it saw and whether it runs.
pub struct Pair<A: DeterministicGame<Input = u8>, B: DeterministicGame<Input = u8>> {
    pub host: Player<A, Pads>,
    pub guest: Player<B, Pads>,
    /// The link: end 0 is the host's, end 1 the guest's.
    pub net: Net<SimLink>,
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
        let mut net = Net::new();
        net.join(0, 1, SimLink::new(link, net_seed));
        Pair {
            host: Player::new(
                // Cannot fail: the configuration is valid (delay <= 60, non-zero intervals).
                Session::new(host).expect("valid host config"),
                Pads::new(net_seed.wrapping_mul(3)),
            ),
            guest: Player::new(
                // Cannot fail: the configuration is valid (non-zero intervals and timeout).
                Session::new(guest).expect("valid guest config"),
                Pads::new(net_seed.wrapping_mul(5).wrapping_add(1)),
            ),
            net,
        }
    }

    /// The host's end of the link.
    pub fn host_net(&self) -> &SimEndpoint {
        &self.link().0
    }

    /// The guest's end of the link.
    pub fn guest_net(&self) -> &SimEndpoint {
        &self.link().1
    }

    fn link(&self) -> &SimLink {
        // Cannot fail: `new` joined members 0 and 1.
        self.net.link(0, 1).expect("the pair's link")
    }

    /// Both ends of the link, to change them (close one, say).
    pub fn link_mut(&mut self) -> &mut SimLink {
        // Cannot fail: `new` joined members 0 and 1.
        self.net.link_mut(0, 1).expect("the pair's link")
    }

    /// Pumps the guest's session over its end of the link now.
    pub fn pump_guest(&mut self, now: Millis) {
        // Cannot fail: `new` joined members 0 and 1.
        let link = self.net.link_mut(0, 1).expect("the pair's link");
        self.guest.session.pump(now, member_id(0), &mut link.1);
    }

    /// Frames advanced so far.
    pub fn frame(&self) -> u64 {
        self.net.frame
    }

    pub fn now(&self) -> Millis {
        self.host_net().now()
    }

    /// Runs one 60 Hz frame: delivers every datagram due before the frame
    /// at its arrival time, then advances both sessions and sends.
    pub fn step_frame(&mut self) {
        self.net
            .step_frame(&mut [&mut self.host as &mut dyn Member, &mut self.guest]);
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
            self.net.frame,
            self.host.outcome(),
            self.guest.outcome()
        )
    }

    /// Runs frames until both sides have simulated `ticks` ticks (or one
    /// has ended), at most `max_frames`. Returns whether both got there.
    /// In rollback the present tick may rest on predictions: to compare
    /// final states, use [`run_to_confirmed`](Self::run_to_confirmed).
    pub fn run_to_tick(&mut self, ticks: u32, max_frames: u64) -> bool {
        while self.net.frame < max_frames {
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
        while self.net.frame < max_frames {
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
        let limit = self.net.frame + extra_frames;
        while self.net.frame < limit && !(matched(&self.host.seen) && matched(&self.guest.seen)) {
            self.step_frame();
        }
        assert!(
            matched(&self.host.seen) && matched(&self.guest.seen),
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
        while self.net.frame < max_frames
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
        for (t, h) in &self.host.seen.hashes {
            if let Some(g) = self.guest.seen.hashes.get(t) {
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
        p.frame(),
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
        p.host.seen.hash_matches >= hashes,
        "{}",
        p.host.seen.hash_matches
    );
    assert!(
        p.guest.seen.hash_matches >= hashes,
        "{}",
        p.guest.seen.hash_matches
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

/// The same as [`running_pair`], with sessions that hold no slot for a
/// dropped player (rejoin window 0): a silent peer or a lost link ends the
/// match at once.
pub fn running_pair_without_hold(mode: Mode, seed: u64) -> Pair<Tiny, Tiny> {
    let mut p = Pair::new(
        mode.cfg(SessionConfig::host(seed, 6))
            .rejoin_window(Millis::ZERO),
        mode.cfg(SessionConfig::guest()).rejoin_window(Millis::ZERO),
        outcome_link(),
        seed,
    );
    assert!(p.run_to_tick(300, 1000));
    p
}

/// Opens the link between a hand-driven host and guest at time 0: the
/// host names it `PeerId(1)` and the guest `PeerId(0)` (each by the
/// other's slot), as [`lockstep_testing::Net`] does. Each queues its Hello.
pub fn open_link<A: DeterministicGame, B: DeterministicGame>(
    host: &mut Session<A>,
    guest: &mut Session<B>,
) {
    host.handle_link_state(Millis(0), lockstep::PeerId(1), lockstep::LinkState::Open);
    guest.handle_link_state(Millis(0), lockstep::PeerId(0), lockstep::LinkState::Open);
}

/// A game for matches of any size: one mixing accumulator over every
/// player's input (each weighed by its slot) and a tick counter. Integers
/// only; every field is hashed.
#[derive(Clone, Debug)]
pub struct Crowd {
    acc: u64,
    players: u8,
    ticks: u32,
}

impl DeterministicGame for Crowd {
    type Input = u8;
    const BUILD_ID: u64 = 0xc20_0001;

    fn new(seed: u64, players: u8) -> Self {
        Crowd {
            acc: seed,
            players,
            ticks: 0,
        }
    }

    fn step(&mut self, inputs: &[u8]) {
        for (slot, &i) in (1u64..).zip(inputs) {
            self.acc = self.acc.rotate_left(5)
                ^ (u64::from(i) + 1).wrapping_mul(slot.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        }
        self.ticks += 1;
    }

    fn state_hash(&self) -> u64 {
        let mut h = Fnv1a::new();
        h.write_u64(self.acc);
        h.write_u8(self.players);
        h.write_u32(self.ticks);
        h.finish()
    }
}

/// Runs a [`Crowd`] match of `n` players over a full mesh of `link`s in
/// `mode` until every player has confirmed 3,600 ticks, and checks that
/// every player recorded the same state at every final tick any two
/// recorded, that the final inputs agree, that each one's input log
/// replays to its own confirmed state, and that hashes were compared with
/// every peer. Returns the mesh.
pub fn assert_mesh_in_sync_for_3600_ticks(
    n: u8,
    mode: Mode,
    link: LinkConfig,
    net_seed: u64,
    delay: u8,
) -> lockstep_testing::Mesh<Crowd> {
    let mut m = lockstep_testing::Mesh::<Crowd>::new(
        n,
        mode.cfg(SessionConfig::host(0xfeed ^ net_seed, delay)),
        mode.cfg(SessionConfig::guest()),
        link,
        net_seed,
    );
    let reached = m.run_to_confirmed(3600, 3600 * 4);
    assert!(reached, "stopped {}", m.progress());
    // A few more frames for the last hashes to cross.
    for _ in 0..120 {
        m.step_frame();
    }
    for p in &m.players {
        assert_eq!(p.outcome(), None, "{}", m.progress());
        assert_eq!(
            p.session.side().map(usize::from),
            m.players.iter().position(|q| std::ptr::eq(q, p))
        );
    }
    let host = &m.players[0];
    let mut compared = 0;
    for p in &m.players[1..] {
        for (t, h) in &host.seen.hashes {
            if let Some(g) = p.seen.hashes.get(t) {
                assert_eq!(h, g, "hashes differ at tick {t}");
                compared += 1;
            }
        }
    }
    let want = if mode == Mode::LockStep { 3600 } else { 600 };
    assert!(
        compared >= want * (usize::from(n) - 1),
        "only {compared} ticks compared"
    );
    let logs: Vec<InputLog<u8>> = m.players.iter().map(|p| p.input_log()).collect();
    let shortest = logs.iter().map(|l| l.inputs.len()).min().unwrap_or(0);
    assert!(shortest >= 3600 * usize::from(n), "{shortest} final inputs");
    for (i, log) in logs.iter().enumerate() {
        assert_eq!(log.players, n);
        assert_eq!(
            log.inputs[..shortest],
            logs[0].inputs[..shortest],
            "player {i}'s inputs"
        );
        assert!(
            log.replay::<Crowd>().is_ok(),
            "player {i}: {:?}",
            log.replay::<Crowd>()
        );
    }
    // Every player compares every hash with each of its n - 1 peers.
    for p in &m.players {
        assert!(
            p.seen.hash_matches >= 56 * (u32::from(n) - 1),
            "{} hash checks",
            p.seen.hash_matches
        );
    }
    m
}

/// The links of the scenarios, with the input delay each uses in lock-step
/// and in rollback: (a) no latency, (b) 50 ms ±10, (c) the same with 5%
/// loss, (d) 100 ms ±20 with 25% loss, (e) 30 ms ±15 with 20% duplication
/// and 20% reordering.
pub fn scenario_links() -> [(&'static str, LinkConfig, u8, u8); 5] {
    let b = LinkConfig {
        latency: Millis(50),
        jitter: Millis(10),
        ..LinkConfig::default()
    };
    [
        ("(a)", LinkConfig::default(), 2, 2),
        ("(b)", b, 6, 2),
        (
            "(c)",
            LinkConfig {
                loss_percent: 5,
                ..b
            },
            6,
            2,
        ),
        (
            "(d)",
            LinkConfig {
                latency: Millis(100),
                jitter: Millis(20),
                loss_percent: 25,
                ..LinkConfig::default()
            },
            6,
            6,
        ),
        (
            "(e)",
            LinkConfig {
                latency: Millis(30),
                jitter: Millis(15),
                duplicate_percent: 20,
                reorder_percent: 20,
                reorder_delay: Millis(40),
                ..LinkConfig::default()
            },
            4,
            1,
        ),
    ]
}

/// [`assert_mesh_in_sync_for_3600_ticks`] for `n` players over every link
/// of [`scenario_links`], in both modes.
pub fn assert_mesh_in_sync_over_every_link(n: u8) {
    in_both_modes(|mode| {
        for (i, (name, link, lock_step_delay, rollback_delay)) in
            scenario_links().into_iter().enumerate()
        {
            eprintln!("link {name}");
            let delay = if mode == Mode::LockStep {
                lock_step_delay
            } else {
                rollback_delay
            };
            let m = assert_mesh_in_sync_for_3600_ticks(n, mode, link, 40 + i as u64, delay);
            let stalled: Vec<u64> = m.players.iter().map(|p| p.stats().stalled_frames).collect();
            eprintln!("{name}: {} frames, stalled {stalled:?}", m.net.frame);
        }
    });
}

/// [`Crowd`], except that its state is nudged after tick `AT`: a desync
/// injected into one player. Same build id and input.
#[derive(Clone, Debug)]
pub struct CrowdNudgedAt<const AT: u32>(pub Crowd);

impl<const AT: u32> DeterministicGame for CrowdNudgedAt<AT> {
    type Input = u8;
    const BUILD_ID: u64 = Crowd::BUILD_ID;

    fn new(seed: u64, players: u8) -> Self {
        CrowdNudgedAt(Crowd::new(seed, players))
    }

    fn step(&mut self, inputs: &[u8]) {
        self.0.step(inputs);
        if self.0.ticks == AT {
            self.0.acc ^= 1;
        }
    }

    fn state_hash(&self) -> u64 {
        self.0.state_hash()
    }
}

/// [`Crowd`], in a game whose matches play on when a player left (its
/// slot then plays the neutral input). Same build id and input.
#[derive(Clone, Debug)]
pub struct Bench(pub Crowd);

impl DeterministicGame for Bench {
    type Input = u8;
    const BUILD_ID: u64 = Crowd::BUILD_ID;

    fn new(seed: u64, players: u8) -> Self {
        Bench(Crowd::new(seed, players))
    }

    fn step(&mut self, inputs: &[u8]) {
        self.0.step(inputs);
    }

    fn state_hash(&self) -> u64 {
        self.0.state_hash()
    }

    fn plays_on_after_leave(remaining: u8) -> bool {
        remaining >= 2
    }
}

/// Checks that players `who` of `m` agree: the same state at every final
/// tick any two recorded (at least `compared` ticks compared between the
/// first and each other), and the same final inputs, each log replaying
/// to its own confirmed state. Returns the shortest log's tick count.
pub fn assert_players_agree<G: DeterministicGame<Input = u8>>(
    m: &lockstep_testing::Mesh<G>,
    who: &[usize],
    compared: usize,
) -> usize {
    let first = &m.players[who[0]];
    for &i in &who[1..] {
        let p = &m.players[i];
        let mut n = 0;
        for (t, h) in &first.seen.hashes {
            if let Some(g) = p.seen.hashes.get(t) {
                assert_eq!(h, g, "players {} and {i} differ at tick {t}", who[0]);
                n += 1;
            }
        }
        assert!(
            n >= compared,
            "players {} and {i}: only {n} ticks compared",
            who[0]
        );
    }
    let logs: Vec<InputLog<u8>> = who.iter().map(|&i| m.players[i].input_log()).collect();
    let shortest = logs.iter().map(|l| l.inputs.len()).min().unwrap_or(0);
    for (log, &i) in logs.iter().zip(who) {
        assert_eq!(
            log.inputs[..shortest],
            logs[0].inputs[..shortest],
            "player {i}'s inputs"
        );
        assert!(
            log.replay::<G>().is_ok(),
            "player {i}: {:?}",
            log.replay::<G>()
        );
    }
    shortest / usize::from(logs[0].players)
}

/// A host played by hand, for a rejoiner of [`Tiny`] on link 0: the
/// fresh session (rejoining slot 1 with token 5) has opened its link and
/// sent its `Rejoin`, and has been given the host's Hello (seed 3, delay
/// 2, hash interval 60, two players, `window` ticks of prediction). The
/// caller sends the catch-up.
pub fn rejoiner_after_the_hosts_hello(window: u8) -> Session<Tiny> {
    use lockstep::wire::{Hello, Message};
    use lockstep::{Channel, LinkState, PeerId};
    let cfg = SessionConfig::guest().rejoin(1, 5);
    let mut s = Session::<Tiny>::new(cfg).expect("a valid configuration");
    s.handle_link_state(Millis(0), PeerId(0), LinkState::Open);
    let (_, ch, bytes) = s.poll_transmit().expect("the rejoin goes out");
    assert_eq!(ch, Channel::Reliable);
    assert!(
        matches!(Message::<u8>::decode(&bytes), Ok(Message::Rejoin(r)) if r.slot == 1 && r.token == 5)
    );
    let hello = Message::<u8>::Hello(Hello {
        protocol: lockstep::PROTOCOL_VERSION,
        build: Tiny::BUILD_ID,
        seed: 3,
        side: 0,
        input_delay: 2,
        hash_interval: 60,
        prediction_window: window,
        players: 2,
        slot: 1,
        match_id: 11,
        rejoin_token: 5,
        host_proof: 0,
        proofs: [0; 8],
    });
    let bytes = hello.encode().expect("a Hello encodes");
    s.handle_datagram(Millis(30), PeerId(0), Channel::Reliable, &bytes);
    assert_eq!(s.outcome(), None);
    s
}

/// Both slots' inputs for the first `ticks` ticks of a catch-up from
/// [`rejoiner_after_the_hosts_hello`]'s host (defaults for the delay), and
/// the hash [`Tiny`] reaches on them.
pub fn catch_up_inputs(ticks: u32) -> ([Vec<u8>; 2], u64) {
    let pad = |slot: u32, t: u32| if t < 2 { 0 } else { ((t * 7 + slot) % 5) as u8 };
    let a: Vec<u8> = (0..ticks).map(|t| pad(0, t)).collect();
    let b: Vec<u8> = (0..ticks).map(|t| pad(1, t)).collect();
    let mut g = Tiny::new(3, 2);
    for t in 0..ticks as usize {
        g.step(&[a[t], b[t]]);
    }
    ([a, b], g.state_hash())
}

/// A mesh of `players` over `link` whose host issues rejoin tokens keyed
/// by `entropy`, with `delays` ticks of input delay (lock-step, rollback)
/// and `seed` as both the match's seed and the network's.
pub fn rejoin_mesh(
    mode: Mode,
    players: u8,
    seed: u64,
    entropy: u128,
    link: LinkConfig,
    delays: (u8, u8),
) -> lockstep_testing::Mesh<Bench> {
    let delay = if mode == Mode::LockStep {
        delays.0
    } else {
        delays.1
    };
    lockstep_testing::Mesh::new(
        players,
        mode.cfg(SessionConfig::host(seed, delay).rejoin_entropy(entropy)),
        mode.cfg(SessionConfig::guest()),
        link,
        seed,
    )
}

// Not every scenario plays it.
#[allow(unused_imports)]
pub use lockstep_testing::OpenDots;

/// [`Bench`], in a game that also takes new players into free slots.
#[derive(Clone, Debug)]
pub struct OpenBench(pub Crowd);

impl DeterministicGame for OpenBench {
    type Input = u8;
    const BUILD_ID: u64 = Crowd::BUILD_ID;

    fn new(seed: u64, players: u8) -> Self {
        OpenBench(Crowd::new(seed, players))
    }

    fn step(&mut self, inputs: &[u8]) {
        self.0.step(inputs);
    }

    fn state_hash(&self) -> u64 {
        self.0.state_hash()
    }

    fn plays_on_after_leave(remaining: u8) -> bool {
        remaining >= 2
    }

    fn takes_joiners(_players: u8) -> bool {
        true
    }
}

/// The `Event::Joined` player `i` of `m` raised: (slot, tick) each.
pub fn joins_seen<G: DeterministicGame>(m: &lockstep_testing::Mesh<G>, i: usize) -> Vec<(u8, u32)> {
    m.players[i]
        .seen
        .events
        .iter()
        .filter_map(|e| match e {
            Event::Joined { slot, tick } => Some((*slot, *tick)),
            _ => None,
        })
        .collect()
}

/// Runs `m` until players `who` all reach `ticks` confirmed ticks, at
/// most `max_frames` frames in all; the others may end meanwhile. Whether
/// they got there.
pub fn run_some_to_confirmed<G: DeterministicGame<Input = u8>>(
    m: &mut lockstep_testing::Mesh<G>,
    who: &[usize],
    ticks: u32,
    max_frames: u64,
) -> bool {
    while m.net.frame < max_frames {
        if who.iter().all(|&i| m.players[i].confirmed_tick() >= ticks) {
            return true;
        }
        assert!(
            who.iter().all(|&i| m.players[i].outcome().is_none()),
            "a player ended early: {}",
            m.progress()
        );
        m.step_frame();
    }
    false
}

/// A mildly rough link: 30 ms ± 5 ms, 2 % loss.
pub fn mild_link() -> LinkConfig {
    LinkConfig {
        latency: Millis(30),
        jitter: Millis(5),
        loss_percent: 2,
        ..LinkConfig::default()
    }
}

/// A lossy link: 40 ms ± 10 ms, 5 % loss.
pub fn lossy_link() -> LinkConfig {
    LinkConfig {
        latency: Millis(40),
        jitter: Millis(10),
        loss_percent: 5,
        ..LinkConfig::default()
    }
}

/// A match of `players` of `G` over `link` (host with rejoin entropy)
/// that ran 600 confirmed ticks, after which the last member's links were
/// cut for good: the others waited out the window, every one of them saw
/// that slot leave, and they play on past `ticks` confirmed ticks with it
/// neutral.
pub fn mesh_after_a_leave<G: DeterministicGame<Input = u8>>(
    mode: Mode,
    seed: u64,
    link: LinkConfig,
    players: u8,
    ticks: u32,
) -> lockstep_testing::Mesh<G> {
    let delay = if mode == Mode::LockStep { 4 } else { 2 };
    let host = mode.cfg(SessionConfig::host(seed, delay).rejoin_entropy(0x107e_2026));
    let mut m = lockstep_testing::Mesh::<G>::new(
        players,
        host,
        mode.cfg(SessionConfig::guest()),
        link,
        seed,
    );
    assert!(m.run_to_confirmed(600, 3000), "{}", m.progress());
    let slot = players - 1;
    let gone = usize::from(slot);
    m.sever_player(gone);
    assert!(
        m.run_first_to_confirmed(gone, ticks, 60 * 200),
        "{}",
        m.progress()
    );
    assert!(
        m.players[..gone].iter().all(|p| p
            .seen
            .events
            .iter()
            .any(|e| matches!(e, Event::Left { slot: s, .. } if *s == slot))),
        "{}",
        m.progress()
    );
    m
}

/// A newcomer with configuration `cfg` asks players `to` of `m` to join;
/// returns how it ended once it did (within 2 s). The match must be
/// untouched: no player saw a join, none ended, and (with `play_on`)
/// players `to` play on 600 more confirmed ticks agreeing on every hash
/// compared.
pub fn refused_join<G: DeterministicGame<Input = u8>>(
    m: &mut lockstep_testing::Mesh<G>,
    cfg: SessionConfig,
    to: &[usize],
    play_on: bool,
) -> Outcome {
    let joiner = m.add_player(cfg, to).expect("a valid configuration");
    assert!(m.run_until_all_end_of(&[joiner], 120), "{}", m.progress());
    let outcome = m.players[joiner].outcome().cloned().expect("it ended");
    for &i in to {
        assert!(joins_seen(m, i).is_empty(), "player {i} saw a join");
        assert_eq!(m.players[i].outcome(), None);
    }
    if !play_on {
        return outcome;
    }
    let from = to
        .iter()
        .map(|&i| m.players[i].confirmed_tick())
        .max()
        .unwrap_or(0);
    assert!(
        run_some_to_confirmed(m, to, from + 600, m.net.frame + 6000),
        "{}",
        m.progress()
    );
    for &i in to {
        assert!(joins_seen(m, i).is_empty(), "player {i} saw a join");
        assert_eq!(m.players[i].outcome(), None);
    }
    let first = &m.players[to[0]];
    for &i in &to[1..] {
        let mut n = 0;
        for (t, h) in &first.seen.hashes {
            if let Some(g) = m.players[i].seen.hashes.get(t) {
                assert_eq!(h, g, "players {} and {i} differ at tick {t}", to[0]);
                n += 1;
            }
        }
        assert!(n > 0, "nothing compared");
    }
    outcome
}

/// A running match of three of `G` (host with rejoin entropy) over a
/// slightly lossy link, 600 confirmed ticks in.
pub fn running_three<G: DeterministicGame<Input = u8>>(
    mode: Mode,
    seed: u64,
) -> lockstep_testing::Mesh<G> {
    let link = LinkConfig {
        latency: Millis(30),
        jitter: Millis(5),
        loss_percent: 2,
        ..LinkConfig::default()
    };
    let delay = if mode == Mode::LockStep { 4 } else { 2 };
    let host = mode.cfg(SessionConfig::host(seed, delay).rejoin_entropy(0x107e_2027));
    let mut m =
        lockstep_testing::Mesh::<G>::new(3, host, mode.cfg(SessionConfig::guest()), link, seed);
    assert!(m.run_to_confirmed(600, 3000), "{}", m.progress());
    m
}

/// `log`, recorded by a member that entered a running match from the
/// host's saved state, starts there (a tick past 0 with the state's
/// bytes), holds inputs from then on, reads back from its bytes unchanged,
/// replays to its own final hash, and ends where the host's `host_log`
/// (from the seed) stands at the same tick.
pub fn assert_log_from_saved_state<G: DeterministicGame<Input = u8>>(
    log: &InputLog<u8>,
    host_log: &InputLog<u8>,
) {
    assert!(
        log.start_tick > 0,
        "the log starts at tick {}",
        log.start_tick
    );
    assert!(
        !log.start_state.is_empty(),
        "the log carries the saved state"
    );
    assert!(
        log.recorded_ticks() > 0,
        "the log holds ticks after the state"
    );
    let bytes = log.to_bytes().expect("encodes");
    assert_eq!(InputLog::<u8>::from_bytes(&bytes).as_ref(), Ok(log));
    assert_eq!(log.replay::<G>(), Ok(log.final_hash));
    // Where both logs reach: either side may have confirmed a tick or
    // two more than the other when the match ended.
    let at = log.ticks().min(host_log.ticks());
    assert!(
        log.ticks().abs_diff(host_log.ticks()) <= 30,
        "the logs end at ticks {} and {}",
        log.ticks(),
        host_log.ticks()
    );
    let host = host_log
        .game_at::<G>(at)
        .expect("the host's log reaches the tick");
    let mine = log.game_at::<G>(at).expect("the log reaches the tick");
    assert_eq!(host.state_hash(), mine.state_hash(), "at tick {at}");
    // Before its start the log has nothing to give.
    assert_eq!(
        log.game_at::<G>(log.start_tick - 1).err(),
        Some(lockstep::ReplayError::BeforeStart {
            start: log.start_tick
        })
    );
}

/// The stalled frames of each of players `who` of `m` so far.
pub fn stalls_of<G: DeterministicGame>(m: &lockstep_testing::Mesh<G>, who: &[usize]) -> Vec<u64> {
    who.iter()
        .map(|&i| m.players[i].stats().stalled_frames)
        .collect()
}

/// The ticks of the events of player `i` of `m` that `of` reads as
/// concerning slot `slot` (it gives the slot and the tick, or `None`).
fn slot_ticks<G: DeterministicGame>(
    m: &lockstep_testing::Mesh<G>,
    i: usize,
    slot: u8,
    of: fn(&Event) -> Option<(u8, u32)>,
) -> Vec<u32> {
    m.players[i]
        .seen
        .events
        .iter()
        .filter_map(of)
        .filter(|(s, _)| *s == slot)
        .map(|(_, tick)| tick)
        .collect()
}

/// The ticks at which player `i` of `m` saw slot `slot` benched.
pub fn benched_at<G: DeterministicGame>(
    m: &lockstep_testing::Mesh<G>,
    i: usize,
    slot: u8,
) -> Vec<u32> {
    slot_ticks(m, i, slot, |e| match e {
        Event::Benched { slot, tick } => Some((*slot, *tick)),
        _ => None,
    })
}

/// The ticks at which player `i` of `m` saw slot `slot` leave for good.
pub fn left_at<G: DeterministicGame>(
    m: &lockstep_testing::Mesh<G>,
    i: usize,
    slot: u8,
) -> Vec<u32> {
    slot_ticks(m, i, slot, |e| match e {
        Event::Left { slot, tick } => Some((*slot, *tick)),
        _ => None,
    })
}

/// The ticks at which player `i` of `m` saw slot `slot` handed back.
pub fn unbenched_at<G: DeterministicGame>(
    m: &lockstep_testing::Mesh<G>,
    i: usize,
    slot: u8,
) -> Vec<u32> {
    slot_ticks(m, i, slot, |e| match e {
        Event::Unbenched { slot, tick } => Some((*slot, *tick)),
        _ => None,
    })
}

/// A match of `n` dots players in `mode` whose game plays a held slot on,
/// the host benching a silent player after a quarter of a second, run to
/// confirmed tick 600 over mild links.
pub fn bench_mesh(
    mode: Mode,
    n: u8,
    seed: u64,
) -> lockstep_testing::Mesh<lockstep_testing::BenchDots> {
    let delay = if mode == Mode::LockStep { 4 } else { 2 };
    let host = SessionConfig::host(seed, delay)
        .players(n)
        .rejoin_entropy(u128::from(seed ^ 0x2026))
        .bench_after(Millis(250));
    let mut m = lockstep_testing::Mesh::new(
        n,
        mode.cfg(host),
        mode.cfg(SessionConfig::guest()),
        mild_link(),
        seed + u64::from(n),
    );
    assert!(m.run_to_confirmed(600, 3000), "{}", m.progress());
    m
}

/// Reloads the pages of players `who` of `m` one after the other, `gap`
/// frames apart (0: in the same frame), then runs until every one of
/// them plays again on its fresh session, for at most `within` frames,
/// while nobody ends. Returns the frames from the first reload until all
/// were back.
pub fn reload_at_once<G: DeterministicGame<Input = u8>>(
    m: &mut lockstep_testing::Mesh<G>,
    who: &[usize],
    gap: u64,
    within: u64,
) -> u64 {
    let start = m.net.frame;
    for (k, &i) in who.iter().enumerate() {
        if k > 0 {
            m.run_frames(gap);
        }
        m.reload(i).expect("a guest's slot can be rejoined");
    }
    while !who.iter().all(|&i| m.players[i].is_running()) {
        assert!(
            m.net.frame < start + within,
            "not all back in {within} frames: {}",
            m.progress()
        );
        for (i, p) in m.players.iter().enumerate() {
            assert_eq!(p.outcome(), None, "player {i}: {}", m.progress());
        }
        m.step_frame();
    }
    m.net.frame - start
}

/// After [`reload_at_once`]: `m` plays on to `ticks` more confirmed ticks;
/// nobody ended or saw a slot leave, each of `who` rejoined once, every
/// player knows which slot each of its links leads to, and all hashed
/// the same states.
pub fn assert_all_back_in_sync<G: DeterministicGame<Input = u8>>(
    m: &mut lockstep_testing::Mesh<G>,
    who: &[usize],
    ticks: u32,
) {
    let from = m.players[0].confirmed_tick();
    assert!(
        m.run_to_confirmed(from + ticks, m.net.frame + 4 * u64::from(ticks)),
        "{}",
        m.progress()
    );
    let n = m.players.len();
    for (i, p) in m.players.iter().enumerate() {
        assert_eq!(p.outcome(), None, "player {i}: {}", m.progress());
        let left = p
            .seen
            .events
            .iter()
            .any(|e| matches!(e, lockstep::Event::Left { .. }));
        assert!(!left, "player {i} saw a slot leave");
        for j in (0..n).filter(|&j| j != i) {
            let slot = u8::try_from(j).expect("a few players");
            assert_eq!(
                p.peer_slot(lockstep_testing::member_id(j)),
                Some(slot),
                "player {i}'s link to {j}"
            );
        }
    }
    for &i in who {
        let rejoined = m.players[i]
            .seen
            .events
            .iter()
            .filter(|e| matches!(e, lockstep::Event::Rejoined { .. }))
            .count();
        assert_eq!(rejoined, 1, "player {i}: {}", m.progress());
    }
    let all: Vec<usize> = (0..n).collect();
    assert_players_agree(m, &all, 10);
}

// ----- a gone session's hashes --------------------------------------------------

/// Four [`Bench`] players, a hash every tick: guest 3's way to the host
/// and to guest 1 is cut, but guest 2 still hears it (so guest 2 plays,
/// and hashes, ticks the others cannot play yet); once the host holds
/// slot 3, guest 2's page reloads. Returns the mesh and the tick guest 2
/// had confirmed before.
pub fn gone_session_reloaded(mode: Mode) -> (lockstep_testing::Mesh<Bench>, u32) {
    let delay = if mode == Mode::LockStep { 4 } else { 2 };
    let host = SessionConfig::host(61, delay)
        .hash_interval(1)
        .rejoin_window(Millis(3000))
        .rejoin_entropy(0x6a5_2026);
    let guest = SessionConfig::guest().hash_interval(1);
    let mut m =
        lockstep_testing::Mesh::<Bench>::new(4, mode.cfg(host), mode.cfg(guest), mild_link(), 61);
    assert!(m.run_to_confirmed(600, 2000), "{}", m.progress());
    for other in [0, 1] {
        if let Some(l) = m.net.link(other, 3) {
            // End 1 is guest 3's.
            l.1.sever(netsim::Direction::Outgoing);
        }
    }
    m.run_frames(40);
    let ahead = m.players[2].confirmed_tick();
    let stuck = m.players[1].confirmed_tick();
    assert!(ahead > stuck, "guest 2 at {ahead}, guest 1 at {stuck}");
    // The host holds slot 3 (silent for the timeout) before guest 2's
    // page reloads, so the fresh session waits for it.
    let dropped = |m: &lockstep_testing::Mesh<Bench>| {
        m.players[0]
            .seen
            .events
            .iter()
            .any(|e| matches!(e, Event::Dropped { slot: 3, .. }))
    };
    while !dropped(&m) {
        assert!(m.net.frame < 2000, "{}", m.progress());
        m.step_frame();
    }
    // A second later: slot 3's window (3 s) runs out well before slot 2's.
    m.run_frames(60);
    m.reload(2).expect("a guest's slot can be rejoined");
    (m, ahead)
}

/// After [`gone_session_reloaded`]: guest 2's fresh session comes back
/// (by frame `start + 900`, nobody's match ending meanwhile), the three
/// play on past `ahead + 600` in sync, and the host and guest 1 saw slot
/// 3 leave.
pub fn gone_session_back_in_sync(m: &mut lockstep_testing::Mesh<Bench>, ahead: u32, start: u64) {
    while !m.players[2].is_running() {
        assert!(m.net.frame < start + 900, "{}", m.progress());
        for i in 0..3 {
            assert_eq!(m.players[i].outcome(), None, "player {i}: {}", m.progress());
        }
        m.step_frame();
    }
    let until = m.net.frame + 3000;
    assert!(
        run_some_to_confirmed(m, &[0, 1, 2], ahead + 600, until),
        "{}",
        m.progress()
    );
    for i in 0..3 {
        assert_eq!(m.players[i].outcome(), None, "player {i}: {}", m.progress());
    }
    // Guest 2's fresh session came back after it: the catch-up says the
    // slot plays the neutral input.
    for i in 0..2 {
        let left = m.players[i]
            .seen
            .events
            .iter()
            .any(|e| matches!(e, Event::Left { slot: 3, .. }));
        assert!(left, "player {i} never saw slot 3 leave");
    }
    assert_players_agree(m, &[0, 1, 2], 10);
}

/// The host's configuration of a [`rejoin_mesh`] of two (the same `seed`,
/// `entropy` and `delays`), for its fresh session coming back with
/// `token`: what a page rebuilds from its session storage.
pub fn host_back_cfg(
    mode: Mode,
    seed: u64,
    entropy: u128,
    delays: (u8, u8),
    token: u64,
) -> SessionConfig {
    let delay = if mode == Mode::LockStep {
        delays.0
    } else {
        delays.1
    };
    mode.cfg(SessionConfig::host(seed, delay).rejoin_entropy(entropy))
        .back_as_host(token)
}

/// The host's page (member 0 of `m`) is gone: its session gets no more
/// frames and its links carry nothing more, for `frames` frames; the
/// others play on meanwhile.
pub fn host_gone_for<G: DeterministicGame<Input = u8>>(
    m: &mut lockstep_testing::Mesh<G>,
    frames: u64,
) {
    m.players[0].runs = false;
    m.sever_player(0);
    m.run_frames(frames);
}

/// Runs `m` until its host (member 0) plays live, at most `max_frames`
/// frames; returns the virtual time that took.
pub fn until_host_live<G: DeterministicGame<Input = u8>>(
    m: &mut lockstep_testing::Mesh<G>,
    max_frames: u64,
) -> Option<Millis> {
    let start = m.net.now();
    for _ in 0..max_frames {
        if m.players[0].is_running() {
            return Some(Millis(m.net.now().0 - start.0));
        }
        assert!(
            m.players[0].outcome().is_none(),
            "the returning host ended: {}",
            m.progress()
        );
        m.step_frame();
    }
    None
}

/// How many times player `i` of `m` raised `event`.
pub fn count_events<G: DeterministicGame>(
    m: &lockstep_testing::Mesh<G>,
    i: usize,
    event: &Event,
) -> usize {
    m.players[i]
        .seen
        .events
        .iter()
        .filter(|e| *e == event)
        .count()
}

/// The ticks of every `Event::Rejoined` player `i` of `m` raised.
pub fn rejoined_ticks<G: DeterministicGame>(m: &lockstep_testing::Mesh<G>, i: usize) -> Vec<u32> {
    m.players[i]
        .seen
        .events
        .iter()
        .filter_map(|e| match e {
            Event::Rejoined { tick } => Some(*tick),
            _ => None,
        })
        .collect()
}
