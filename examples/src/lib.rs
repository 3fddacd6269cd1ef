//! The harness behind the runnable examples in `examples/`.
//!
//! Each example is a thin `main` around a function here, so the tests in
//! `examples/tests/` run exactly what the examples run (minus printing):
//!
//! - [`play_loopback`]: two sessions of the `dots` game on the perfect
//!   in-process loopback (example `loopback`);
//! - [`play_simulated`]: the same over the seeded, virtual-time `netsim`
//!   link with latency, jitter, loss, duplication and reordering (example
//!   `simulated`);
//! - [`replay_log`]: replays an input log exported by `simulated
//!   --save-log FILE` (example `replay`).
//!
//! - [`basketball`]: NtBA, CPU against CPU, on either link (examples
//!   `ntba_loopback` and `ntba_simulated`).
//! - [`desync_report`]: replays a desync report with this build and says
//!   what diverged (example `desync_report`).
//!
//! [`play`] is the driver all of them share, generic over the game (a
//! [`Bot`] per side plays it, an [`Observer`] watches). It is an example of
//! how to drive two sans-IO [`Session`]s, in lock-step or rollback mode:
//! time is virtual, so a minute of play takes a few milliseconds of real
//! time, and a seed reproduces a run exactly.
//!
//! ```
//! use lockstep_examples::{play_loopback, MatchConfig};
//!
//! let report = play_loopback(&MatchConfig { ticks: 600, ..MatchConfig::default() });
//! assert!(report.in_sync());
//! assert_eq!(report.host.hash_at_target, report.guest.hash_at_target);
//! ```
#![warn(missing_docs)]

pub mod args;
pub mod basketball;
pub mod desync_report;
pub mod simulated;

use std::fmt;

use dots::Dots;
use lockstep::{
    DeterministicGame, Event, InputLog, LogDecodeError, Millis, Outcome, PeerId, ReplayError,
    Session, SessionConfig, SessionStats, Transport,
};
use lockstep_testing::{Member, Net, Schedule, Wake};
use netsim::{LinkConfig, PathStats};

pub use args::ArgError;

// Compiles and runs every Rust block of docs/writing-a-game.md as a doc test.
#[cfg(doctest)]
#[doc = include_str!("../../docs/writing-a-game.md")]
pub struct WritingAGameDoc;

/// The game of the `loopback`, `simulated` and `replay` examples (and of the
/// default type parameters below): the input of one player for one tick is
/// one byte. The NtBA examples play [`ntba::Ntba`] through the same driver
/// (see the [`basketball`] module).
pub type Game = Dots;

/// When 60 Hz frame `n` starts (integer milliseconds, without drift:
/// frame 60 starts at exactly 1000); the driver's own.
pub use lockstep_testing::frame_time;

/// What to play, and how the sessions play it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MatchConfig {
    /// Ticks both peers must simulate (60 per second of play). The NtBA
    /// examples play until the final whistle instead and ignore it.
    pub ticks: u32,
    /// The match seed (the host picks it; the guest adopts it).
    pub seed: u64,
    /// Input delay in ticks (6 = 100 ms); with
    /// [`delay_from_rtt`](Self::delay_from_rtt), only a fallback.
    pub input_delay: u8,
    /// Prediction window in ticks: 0 is lock-step, above 0 rollback
    /// ([`SessionConfig::prediction_window`]; the host's value counts).
    pub window: u8,
    /// The host picks the input delay from round trips measured before the
    /// first tick ([`SessionConfig::input_delay_from_rtt`]).
    pub delay_from_rtt: bool,
    /// Frames between two Inputs packets, on both sides
    /// ([`SessionConfig::send_interval_frames`]; 1 = every frame).
    pub send_interval: u8,
    /// In rollback, the most frames an Inputs packet may be held back while
    /// nothing new needs sending ([`SessionConfig::max_hold_frames`]; 0
    /// sends one every frame).
    pub max_hold: u8,
}

impl Default for MatchConfig {
    /// One minute of play (3,600 ticks), seed 1, lock-step with an input
    /// delay of 6 ticks, one Inputs packet per frame.
    fn default() -> Self {
        MatchConfig {
            ticks: 3600,
            seed: 1,
            input_delay: 6,
            window: 0,
            delay_from_rtt: false,
            send_interval: 1,
            max_hold: lockstep::session::DEFAULT_MAX_HOLD_FRAMES,
        }
    }
}

impl MatchConfig {
    /// The host's and the guest's session configurations (the delay and
    /// the window clamped to what the session accepts, a send interval of
    /// 0 taken as 1).
    pub fn sessions(&self) -> (SessionConfig, SessionConfig) {
        let delay = self.input_delay.min(lockstep::wire::MAX_INPUT_DELAY);
        let window = self.window.min(lockstep::wire::MAX_PREDICTION_WINDOW);
        let every = self.send_interval.max(1);
        let mut host = SessionConfig::host(self.seed, delay)
            .prediction_window(window)
            .send_interval_frames(every)
            .max_hold_frames(self.max_hold);
        if self.delay_from_rtt {
            host = host.input_delay_from_rtt();
        }
        let guest = SessionConfig::guest()
            .send_interval_frames(every)
            .max_hold_frames(self.max_hold);
        (host, guest)
    }
}

/// Round-trip times a session measured.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RttSummary {
    /// Number of round trips measured.
    pub samples: u32,
    /// Shortest.
    pub min: Option<Millis>,
    /// Mean, rounded down.
    pub mean: Option<Millis>,
    /// Longest.
    pub max: Option<Millis>,
    sum: u64,
}

impl RttSummary {
    fn add(&mut self, rtt: Millis) {
        self.samples += 1;
        self.sum += rtt.0;
        self.min = Some(self.min.map_or(rtt, |m| m.min(rtt)));
        self.max = Some(self.max.map_or(rtt, |m| m.max(rtt)));
        self.mean = Some(Millis(self.sum / u64::from(self.samples)));
    }
}

/// What one peer did during a match.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PeerReport<G: DeterministicGame = Game> {
    /// 0 for the host, 1 for the guest.
    pub side: u8,
    /// Ticks simulated by the end (a peer may run a few ticks past the
    /// target while its opponent catches up; in rollback mode the last
    /// ones may rest on predictions).
    pub ticks: u32,
    /// The first confirmed tick at which the match's goal was met (tick
    /// [`MatchConfig::ticks`] for dots, the final whistle for NtBA), if the
    /// peer got there.
    pub target_tick: Option<u32>,
    /// The game's state hash right after [`target_tick`](Self::target_tick).
    pub hash_at_target: Option<u64>,
    /// How the match ended for this peer.
    pub outcome: Option<Outcome>,
    /// The session's counters (frames, stalls, datagrams and bytes, and in
    /// rollback mode predicted ticks, rollbacks and re-simulated ticks).
    pub stats: SessionStats,
    /// Round trips measured by pings.
    pub rtt: RttSummary,
    /// Virtual time at which this peer confirmed the target tick.
    pub reached_target_at: Option<Millis>,
    /// The input delay in force (the host's choice), once started.
    pub input_delay: Option<u8>,
    /// The prediction window in force (0 = lock-step), once started.
    pub window: Option<u8>,
    /// Times the driver's own replay of the confirmed inputs disagreed with
    /// the session's confirmed state: always 0 unless the engine is wrong or
    /// the game is not rollback-safe (a `Clone` that is not a full save).
    pub follow_errors: u32,
    /// Every confirmed tick, as an exportable input log.
    pub log: InputLog<G::Input>,
}

impl<G: DeterministicGame> PeerReport<G> {
    /// Datagrams this peer's session sent, both channels.
    #[must_use]
    pub fn packets_sent(&self) -> u64 {
        self.stats.reliable_packets + self.stats.unreliable_packets
    }

    /// Payload bytes this peer's session sent, both channels.
    #[must_use]
    pub fn bytes_sent(&self) -> u64 {
        self.stats.reliable_bytes + self.stats.unreliable_bytes
    }
}

/// What happened in a whole match.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatchReport<G: DeterministicGame = Game> {
    /// The configuration played.
    pub config: MatchConfig,
    /// Side 0.
    pub host: PeerReport<G>,
    /// Side 1.
    pub guest: PeerReport<G>,
    /// Virtual time from the start until both peers reached the target
    /// tick (or until the match ended early).
    pub played: Millis,
    /// Virtual time when the driver stopped (both sessions ended, or the
    /// cap).
    pub stopped: Millis,
    /// Frames driven.
    pub frames: u64,
    /// For the simulated link: what happened to the traffic, host to guest
    /// and guest to host.
    pub link: Option<[PathStats; 2]>,
}

impl<G: DeterministicGame> MatchReport<G> {
    /// Both peers reached the target on the same tick with the same state
    /// hash (and their confirmed states matched a replay of their inputs
    /// all along).
    #[must_use]
    pub fn in_sync(&self) -> bool {
        let (h, g) = (&self.host, &self.guest);
        h.hash_at_target.is_some()
            && h.hash_at_target == g.hash_at_target
            && h.target_tick == g.target_tick
            && h.follow_errors == 0
            && g.follow_errors == 0
    }

    /// `count` per second of [`played`](Self::played) time.
    #[must_use]
    pub fn per_second(&self, count: u64) -> f64 {
        if self.played.0 == 0 {
            return 0.0;
        }
        count as f64 * 1000.0 / self.played.0 as f64
    }

    /// Both peers.
    #[must_use]
    pub fn peers(&self) -> [&PeerReport<G>; 2] {
        [&self.host, &self.guest]
    }
}

/// A snapshot passed to [`Observer::frame`] after every frame.
#[derive(Debug, Clone, Copy)]
pub struct Progress<'a, G = Game> {
    /// Virtual time.
    pub now: Millis,
    /// Frames driven so far.
    pub frame: u64,
    /// Ticks simulated by the host and the guest.
    pub ticks: [u32; 2],
    /// Stalled frames so far, host and guest.
    pub stalled: [u64; 2],
    /// Rollbacks so far, host and guest (0 in lock-step).
    pub rollbacks: [u64; 2],
    /// The host's last measured round trip.
    pub rtt: Option<Millis>,
    /// The host's game, once the match has started (for drawing it; in
    /// rollback mode it may rest on predictions).
    pub game: Option<&'a G>,
}

/// Plays one side: produces its pad whenever the session asks for one.
pub trait Bot<G: DeterministicGame> {
    /// Whether [`pad`](Self::pad) looks at the game. When it does, the
    /// driver copies the present state (`Clone`) before each frame so the
    /// bot can read it while the session samples.
    const LOOKS: bool = true;

    /// The pad for the next input the session needs; `game` is the present
    /// state (what a person would see on the screen), `None` when
    /// [`LOOKS`](Self::LOOKS) is false or before the match starts.
    fn pad(&mut self, game: Option<&G>) -> G::Input;
}

/// The dots examples' player: `dots::scripted_input`, a fixed walking
/// pattern, advanced by one step each time the session samples it.
#[derive(Debug, Clone, Copy)]
pub struct ScriptedDots {
    side: u8,
    sampled: u32,
}

impl ScriptedDots {
    /// The player of `side`.
    #[must_use]
    pub fn new(side: u8) -> Self {
        ScriptedDots { side, sampled: 0 }
    }
}

impl Bot<Dots> for ScriptedDots {
    const LOOKS: bool = false;
    fn pad(&mut self, _game: Option<&Dots>) -> u8 {
        let pad = dots::scripted_input(self.sampled, self.side);
        self.sampled += 1;
        pad
    }
}

/// Watches a match as [`play`] drives it. Every method does nothing by
/// default.
pub trait Observer<G: DeterministicGame> {
    /// After every frame.
    fn frame(&mut self, _progress: &Progress<'_, G>) {}
    /// Every event a session raised (`side` 0 is the host).
    fn event(&mut self, _side: u8, _event: &Event) {}
    /// Every confirmed tick of each side, in order, once: `game` is the
    /// state right after tick `tick`, final in both modes (in rollback
    /// mode it may come a few frames after the tick first ran).
    fn confirmed(&mut self, _side: u8, _game: &G, _tick: u32) {}
}

/// An [`Observer`] that watches nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoObserver;

impl<G: DeterministicGame> Observer<G> for NoObserver {}

/// An [`Observer`] that only calls a closure after every frame.
pub struct OnFrame<F>(pub F);

impl<G: DeterministicGame, F: FnMut(&Progress<'_, G>)> Observer<G> for OnFrame<F> {
    fn frame(&mut self, progress: &Progress<'_, G>) {
        (self.0)(progress);
    }
}

/// When a match has reached its goal: `done(game, tick)` is asked of each
/// confirmed state in turn.
pub struct Goal<'a, G> {
    /// True once the match is over for the driver's purposes.
    pub done: &'a dyn Fn(&G, u32) -> bool,
    /// Virtual time after which the driver gives up.
    pub cap: Millis,
}

/// The goal of the dots examples: tick `ticks`, given up after ten times
/// the match's length plus a minute (only a pathological link gets there).
pub fn tick_goal<G>(ticks: u32) -> (impl Fn(&G, u32) -> bool, Millis) {
    let cap = frame_time(u64::from(ticks) * 10) + Millis(60_000);
    (move |_: &G, t: u32| t >= ticks, cap)
}

// The links (netsim's simulated one and the loopback) are the engine's
// test driver's, shared with the scenario tests and the benchmarks.
pub use lockstep_testing::{Link, LoopbackLink, SimLink};

/// One peer under the driver: its session, its bot and what it saw.
struct Peer<G: DeterministicGame, B> {
    session: Session<G>,
    bot: B,
    side: u8,
    /// The driver's own copy of the confirmed state and its tick, stepped
    /// with the session's confirmed inputs (the session's confirmed state
    /// is taken over whenever it moved by one tick).
    follow: Option<(u32, G)>,
    follow_errors: u32,
    /// The inputs of one confirmed tick, reused from tick to tick.
    inputs: Vec<G::Input>,
    target: Option<(u32, u64)>,
    reached_target_at: Option<Millis>,
    rtt: RttSummary,
}

impl<G: DeterministicGame, B: Bot<G>> Peer<G, B> {
    fn new(cfg: SessionConfig, bot: B, side: u8) -> Self {
        Peer {
            // Both configurations come from MatchConfig::sessions, which
            // clamps the delay and the window and keeps intervals non-zero.
            session: Session::new(cfg).expect("MatchConfig::sessions builds valid configs"),
            bot,
            side,
            follow: None,
            follow_errors: 0,
            inputs: Vec::new(),
            target: None,
            reached_target_at: None,
            rtt: RttSummary::default(),
        }
    }

    /// Runs one frame; the bot is sampled only when the session asks.
    fn advance_frame(&mut self, now: Millis) {
        let view = if B::LOOKS {
            self.session.game().cloned()
        } else {
            None
        };
        let bot = &mut self.bot;
        self.session.advance_frame(now, || bot.pad(view.as_ref()));
    }

    fn drain_events(&mut self, now: Millis, goal: &Goal<'_, G>, obs: &mut dyn Observer<G>) {
        while let Some(event) = self.session.poll_event() {
            if let Event::RoundTrip(rtt) = event {
                self.rtt.add(rtt);
            }
            obs.event(self.side, &event);
        }
        self.follow_confirmed(now, goal, obs);
    }

    /// Walks the driver's copy of the confirmed state up to the session's
    /// confirmed tick, one tick at a time, showing each to the observer and
    /// checking the goal. In lock-step the confirmed tick moves by at most
    /// one per frame; in rollback mode it can jump several ticks when late
    /// inputs arrive, and the ticks in between are replayed from the
    /// session's confirmed inputs.
    fn follow_confirmed(&mut self, now: Millis, goal: &Goal<'_, G>, obs: &mut dyn Observer<G>) {
        let Some(confirmed) = self.session.confirmed_game() else {
            return;
        };
        let c = self.session.confirmed_tick();
        let (mut t, mut g) = match self.follow.take() {
            Some(f) => f,
            None => match self.session.parameters() {
                Some((seed, _)) => (0, G::new(seed, 2)),
                None => return,
            },
        };
        // One tick: take the session's state. Several: replay them from the
        // session's confirmed inputs, then check the result against the
        // session's state.
        let replay = c > t + 1;
        while t < c {
            if !replay {
                g = confirmed.clone();
            } else if self.session.confirmed_inputs(t, &mut self.inputs) {
                g.step(&self.inputs);
            } else {
                self.follow_errors += 1;
                g = confirmed.clone();
                t = c - 1;
            }
            t += 1;
            obs.confirmed(self.side, &g, t);
            if self.target.is_none() && (goal.done)(&g, t) {
                self.target = Some((t, g.state_hash()));
                self.reached_target_at = Some(now);
            }
        }
        if g.state_hash() != confirmed.state_hash() {
            self.follow_errors += 1;
            g = confirmed.clone();
        }
        self.follow = Some((t, g));
    }

    fn report(self) -> PeerReport<G> {
        PeerReport {
            side: self.side,
            ticks: self.session.tick(),
            target_tick: self.target.map(|(t, _)| t),
            hash_at_target: self.target.map(|(_, h)| h),
            outcome: self.session.outcome().cloned(),
            stats: self.session.stats(),
            rtt: self.rtt,
            reached_target_at: self.reached_target_at,
            input_delay: self.session.parameters().map(|(_, d)| d),
            window: self.session.prediction_window(),
            follow_errors: self.follow_errors,
            log: self.session.input_log(),
        }
    }
}

impl<G: DeterministicGame, B: Bot<G>> Member for Peer<G, B> {
    fn pump(&mut self, now: Millis, peer: PeerId, end: &mut dyn Transport) {
        self.session.pump(now, peer, end);
    }

    fn frame(&mut self, now: Millis) {
        self.advance_frame(now);
    }

    fn poll_timeout(&self) -> Option<Millis> {
        self.session.poll_timeout()
    }
}

/// Plays one match of any game between a host and a guest over `link`, in
/// virtual time, and reports what happened.
///
/// The engine's test driver ([`lockstep_testing::Net`], on its
/// [`Schedule::Deadlines`] schedule) runs the sessions: every 60 Hz frame
/// both advance once; between frames the clock jumps to each datagram's
/// arrival and to each session's own deadline, so the sessions see
/// datagrams (and measure round trips) at the moment they arrive. Each peer's confirmed
/// ticks are followed one by one (see [`Observer::confirmed`]); when both
/// peers have confirmed a state that meets `goal`, the host quits and the
/// guest learns of it over the link. The run also stops if both sessions
/// end on their own (timeout, desync...) or at `goal.cap`.
pub fn play<G, L, B>(
    link: &mut L,
    cfg: &MatchConfig,
    bots: [B; 2],
    goal: &Goal<'_, G>,
    observer: &mut dyn Observer<G>,
) -> MatchReport<G>
where
    G: DeterministicGame,
    L: Link,
    B: Bot<G>,
{
    let (host_cfg, guest_cfg) = cfg.sessions();
    let [host_bot, guest_bot] = bots;
    let mut host = Peer::new(host_cfg, host_bot, 0);
    let mut guest = Peer::new(guest_cfg, guest_bot, 1);
    // The driver wakes the sessions at every arrival and every deadline of
    // theirs, as a browser's timers would, and runs 60 frames a second.
    let mut net = Net::with_schedule(Schedule::Deadlines);
    net.join(0, 1, link);
    let mut quit_sent = false;
    let mut played = None;

    loop {
        let wake = net.step(&mut [&mut host, &mut guest]);
        let now = net.now();
        host.drain_events(now, goal, observer);
        guest.drain_events(now, goal, observer);

        if let Wake::Frame(_) = wake {
            observer.frame(&Progress {
                now,
                frame: net.frame,
                ticks: [host.session.tick(), guest.session.tick()],
                stalled: [
                    host.session.stats().stalled_frames,
                    guest.session.stats().stalled_frames,
                ],
                rollbacks: [
                    host.session.stats().rollbacks,
                    guest.session.stats().rollbacks,
                ],
                rtt: host.session.stats().last_rtt,
                game: host.session.game(),
            });
        }

        let both_there = host.target.is_some() && guest.target.is_some();
        if both_there && !quit_sent {
            played = Some(now);
            host.session.quit(now);
            net.pump(&mut [&mut host, &mut guest]);
            quit_sent = true;
        }
        let ended = [&host.session, &guest.session]
            .iter()
            .filter(|s| s.outcome().is_some())
            .count();
        if played.is_none() && ended > 0 {
            played = Some(now);
        }
        if ended == 2 || now >= goal.cap {
            break;
        }
    }
    let now = net.now();
    let frames = net.frame;
    if let Some(link) = net.link_mut(0, 1) {
        let (a, b) = link.ends();
        a.close();
        b.close();
    }
    MatchReport {
        config: *cfg,
        played: played.unwrap_or(now),
        stopped: now,
        frames,
        host: host.report(),
        guest: guest.report(),
        link: None,
    }
}

/// Plays a dots match to tick `cfg.ticks` with the scripted players.
pub fn play_dots<L: Link>(
    link: &mut L,
    cfg: &MatchConfig,
    observer: &mut dyn Observer<Dots>,
) -> MatchReport {
    let (done, cap) = tick_goal(cfg.ticks);
    let goal = Goal { done: &done, cap };
    let bots = [ScriptedDots::new(0), ScriptedDots::new(1)];
    play(link, cfg, bots, &goal, observer)
}

/// Example 1: a match on the perfect loopback.
#[must_use]
pub fn play_loopback(cfg: &MatchConfig) -> MatchReport {
    play_dots(&mut LoopbackLink::new(), cfg, &mut NoObserver)
}

/// Example 2: a match over the simulated network, with the link's counters
/// in the report. `progress` is called after every frame.
#[must_use]
pub fn play_simulated(
    cfg: &MatchConfig,
    link_cfg: LinkConfig,
    net_seed: u64,
    progress: &mut dyn FnMut(&Progress),
) -> MatchReport {
    let mut link = SimLink::new(link_cfg, net_seed);
    let mut report = play_dots(&mut link, cfg, &mut OnFrame(progress));
    report.link = Some(link.stats());
    report
}

/// What a replayed input log gave.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReplaySummary {
    /// Ticks replayed.
    pub ticks: u32,
    /// The match seed.
    pub seed: u64,
    /// The input delay the match was played with.
    pub input_delay: u8,
    /// The state hash after the last tick (equal to the one recorded).
    pub hash: u64,
}

/// Why a log could not be replayed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReplayFailure {
    /// The bytes are not an input log of this format.
    Decode(LogDecodeError),
    /// The log is for another build, or the replay did not reach the
    /// recorded hash.
    Replay(ReplayError),
}

impl fmt::Display for ReplayFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReplayFailure::Decode(e) => write!(f, "cannot read the input log: {e}"),
            ReplayFailure::Replay(e) => write!(f, "replay failed: {e}"),
        }
    }
}

impl std::error::Error for ReplayFailure {}

/// Example 3: replays an exported input log of [`Game`] offline, checking
/// that it reproduces the hash recorded at the end of the match.
pub fn replay_log(bytes: &[u8]) -> Result<ReplaySummary, ReplayFailure> {
    let log = InputLog::<<Game as DeterministicGame>::Input>::from_bytes(bytes)
        .map_err(ReplayFailure::Decode)?;
    let hash = log.replay::<Game>().map_err(ReplayFailure::Replay)?;
    Ok(ReplaySummary {
        ticks: log.ticks(),
        seed: log.seed,
        input_delay: log.input_delay,
        hash,
    })
}

/// Draws the grid of a `dots` game as text: `.` for an empty cell, `$` for
/// the coin, and each player's number (the lowest on top when dots share a
/// cell), with the scores below.
#[must_use]
pub fn render_grid(game: &Game) -> String {
    let (w, h) = (usize::from(dots::WIDTH), usize::from(dots::HEIGHT));
    let mut cells = vec![b'.'; w * h];
    let (cx, cy) = game.coin();
    cells[usize::from(cy) * w + usize::from(cx)] = b'$';
    for (i, p) in game.players().iter().enumerate().rev() {
        cells[usize::from(p.y) * w + usize::from(p.x)] = b'0' + (i % 10) as u8;
    }
    let mut out = String::with_capacity((w + 1) * (h + 3));
    for row in cells.chunks(w) {
        out.extend(row.iter().map(|&c| char::from(c)));
        out.push('\n');
    }
    let scores: Vec<String> = game
        .players()
        .iter()
        .enumerate()
        .map(|(i, p)| format!("player {i}: {}", p.score))
        .collect();
    out.push_str(&scores.join("   "));
    out.push('\n');
    out
}

/// A one-line description of how a match ended, for printing.
#[must_use]
pub fn describe_outcome(outcome: Option<&Outcome>) -> String {
    match outcome {
        None => "still running".to_string(),
        Some(Outcome::LocalQuit) => "left the match".to_string(),
        Some(Outcome::RemoteQuit) => "the other player left".to_string(),
        Some(Outcome::TransportLost) => "connection lost".to_string(),
        Some(Outcome::Timeout) => "the other player stopped responding".to_string(),
        Some(Outcome::HandshakeTimeout) => "the match could not start (link too poor)".to_string(),
        Some(Outcome::NoProgress) => "the other player's game stopped sending inputs".to_string(),
        Some(Outcome::Desync {
            tick,
            local,
            remote,
            parts,
            ..
        }) if parts.differing.is_empty() => {
            format!("DESYNC at tick {tick}: {local:#018x} here, {remote:#018x} there")
        }
        Some(Outcome::Desync { tick, parts, .. }) => format!(
            "DESYNC at tick {tick}: {} differ",
            lockstep::parts::in_words(&parts.differing)
        ),
        Some(Outcome::VersionMismatch { .. }) => "different game version".to_string(),
        Some(Outcome::InvalidData { violation }) => format!("invalid data: {violation}"),
        Some(other) => format!("{other:?}"),
    }
}
