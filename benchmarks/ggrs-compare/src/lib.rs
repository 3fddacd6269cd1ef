//! Side by side: our `lockstep::Session` against GGRS's `P2PSession`.
//!
//! Both engines play the same games (`dots` and NtBA) over the same
//! simulated link (`netsim`, one fresh pair per engine with the same
//! conditions and seed), in the same process and the same frame loop, with
//! the same input delay. GGRS reads the wall clock itself, so everything
//! runs in real time at 60 frames per second and netsim's virtual clock is
//! moved to the elapsed wall-clock milliseconds before every frame.
//!
//! For every peer the harness gathers: ticks advanced, stalled frames
//! (frames that could not advance), frames skipped for time
//! synchronisation (our rollback mode's `Frame::Skipped`, GGRS's
//! `WaitRecommendation`), re-simulated ticks, packets and payload bytes sent
//! (counted by netsim, both channels, every retransmission of a reliable
//! datagram counted again), the round trip, and the CPU time
//! spent inside the session's own calls, excluding the game's code (step,
//! hash, clone: see [`game::Timed`]) and the simulated link. The rows are
//! [`Engine`]s: ours and GGRS, each in lock-step or with a prediction
//! window ([`DEFAULT_ENGINES`]).
//!
//! The binary (`cargo run --release -p ggrs-compare`) runs every scenario
//! and prints a table and the targets; `docs/benchmarks.md`
//! ("Against GGRS") records the figures and the command.
//!
//! [`mesh`] does the same for matches of more than two players (every
//! player linked to every other) and for a host with spectators
//! (`cargo run --release -p ggrs-compare -- mesh`).
//!
//! ```no_run
//! use ggrs_compare::{run_scenario, GameKind, RunSettings, DEFAULT_ENGINES, SCENARIOS};
//! use std::time::Duration;
//!
//! let settings = RunSettings::new(SCENARIOS[1].link, Duration::from_secs(2));
//! let results = run_scenario(&SCENARIOS[1], &[GameKind::Dots], DEFAULT_ENGINES, &settings)
//!     .expect("valid settings");
//! for r in &results {
//!     assert!(r.sync.is_ok());
//! }
//! ```
#![warn(missing_docs)]

pub mod game;
mod ggrs_side;
pub mod mesh;
mod ours;
mod ours_mesh;
pub mod report;

use std::fmt;
use std::time::{Duration, Instant};

use lockstep::session::DEFAULT_MAX_HOLD_FRAMES;
use lockstep::wire::{MAX_INPUT_DELAY, MAX_PREDICTION_WINDOW};
use lockstep::Millis;
use netsim::{LinkConfig, PathStats};

pub use ggrs_side::{GgrsConfig, NetsimSocket};

/// A link condition to play over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scenario {
    /// Its letter, `a` to `d`, as in the engine session tables of
    /// `docs/benchmarks.md` and in `docs/ggrs-comparison.md`.
    pub id: char,
    /// A short description for the table.
    pub label: &'static str,
    /// The link, the same both ways.
    pub link: LinkConfig,
}

const fn link(latency: u64, jitter: u64, loss_percent: u8) -> LinkConfig {
    LinkConfig {
        latency: Millis(latency),
        jitter: Millis(jitter),
        loss_percent,
        duplicate_percent: 0,
        reorder_percent: 0,
        reorder_delay: Millis(20),
        reliable_retransmit_delay: Millis(200),
    }
}

/// The four scenarios every engine figure uses: (a) no latency, (b) 50 ms one way
/// ±10 ms, (c) the same with 5% loss, (d) 100 ms ±20 ms with 25% loss.
pub const SCENARIOS: [Scenario; 4] = [
    Scenario {
        id: 'a',
        label: "(a) no latency",
        link: link(0, 0, 0),
    },
    Scenario {
        id: 'b',
        label: "(b) 50 ms ±10",
        link: link(50, 10, 0),
    },
    Scenario {
        id: 'c',
        label: "(c) 50 ms ±10, 5% loss",
        link: link(50, 10, 5),
    },
    Scenario {
        id: 'd',
        label: "(d) 100 ms ±20, 25% loss",
        link: link(100, 20, 25),
    },
];

/// Which game to play.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GameKind {
    /// The small example game (one byte of direction bits per player; a
    /// scripted walker that turns every 23 ticks).
    Dots,
    /// NtBA, CPU against CPU (one pad byte per team), or its input script
    /// with [`RunSettings::scripted_ntba`].
    Ntba,
}

impl GameKind {
    /// The name in the table.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            GameKind::Dots => <dots::Dots as game::BenchGame>::NAME,
            GameKind::Ntba => <ntba::Ntba as game::BenchGame>::NAME,
        }
    }
}

/// Which session plays.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    /// Our `lockstep::Session`; `window` is its prediction window (0 is
    /// lock-step, above 0 rollback).
    Ours {
        /// Ticks it may run ahead of the peer's inputs.
        window: u8,
        /// Frames between two Inputs packets
        /// (`SessionConfig::send_interval_frames`; 1 is every frame, the
        /// session's default).
        send_interval: u8,
        /// Rollback: the most frames in a row an Inputs packet with
        /// nothing urgent may be held back
        /// (`SessionConfig::max_hold_frames`; 0 sends every frame).
        max_hold: u8,
    },
    /// GGRS's `P2PSession` with this maximum prediction window (GGRS's
    /// default is 8; 0 is its lock-step mode).
    Ggrs {
        /// Ticks it may run ahead of the peer's inputs.
        window: u8,
    },
}

impl Engine {
    /// Its prediction window (0 is lock-step).
    #[must_use]
    pub fn window(self) -> u8 {
        match self {
            Engine::Ours { window, .. } | Engine::Ggrs { window } => window,
        }
    }
}

impl fmt::Display for Engine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Engine::Ours {
                window,
                send_interval,
                max_hold,
            } => {
                match window {
                    0 => write!(f, "ours (lock-step")?,
                    w => write!(f, "ours (rollback, window {w}")?,
                }
                match (window, send_interval, max_hold) {
                    (0, 1, _) => write!(f, ")"),
                    (_, 1, 0) => write!(f, ", sends every frame)"),
                    (_, 1, DEFAULT_MAX_HOLD_FRAMES) => write!(f, ")"),
                    (_, 1, h) => write!(f, ", holds up to {h} frames)"),
                    (_, n, _) => write!(f, ", sends every {n} frames)"),
                }
            }
            Engine::Ggrs { window: 0 } => write!(f, "GGRS (lock-step)"),
            Engine::Ggrs { window } => write!(f, "GGRS (rollback, window {window})"),
        }
    }
}

/// The rows played by default: our session in lock-step and in rollback
/// with the default window of 8 (as it ships, holding back packets with
/// nothing urgent; sending every frame; and sending every second frame),
/// GGRS with its default prediction window (8, the reference the targets
/// of `docs/ggrs-comparison.md` are measured against) and GGRS in its
/// lock-step mode (window 0, the like-for-like row for our lock-step
/// mode). A row is one line here.
pub const DEFAULT_ENGINES: &[Engine] = &[
    Engine::Ours {
        window: 0,
        send_interval: 1,
        max_hold: DEFAULT_MAX_HOLD_FRAMES,
    },
    Engine::Ours {
        window: 8,
        send_interval: 1,
        max_hold: DEFAULT_MAX_HOLD_FRAMES,
    },
    Engine::Ours {
        window: 8,
        send_interval: 1,
        max_hold: 0,
    },
    Engine::Ours {
        window: 8,
        send_interval: 2,
        max_hold: DEFAULT_MAX_HOLD_FRAMES,
    },
    Engine::Ggrs { window: 8 },
    Engine::Ggrs { window: 0 },
];

/// Everything a run needs besides the scenario, game and engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunSettings {
    /// The link's conditions ([`run_scenario`] replaces them with the
    /// scenario's).
    pub link: LinkConfig,
    /// The link's seed (which packets are lost, each packet's delay).
    pub net_seed: u64,
    /// The match seed.
    pub match_seed: u64,
    /// Input delay in ticks, the same for both engines.
    pub input_delay: u8,
    /// GGRS's desync-detection interval in frames (0 turns it off). Our
    /// session always compares a state hash every 60 ticks; 60 here gives
    /// GGRS the same job.
    pub ggrs_desync_interval: u32,
    /// NtBA's teams follow the fixed input script (the same pads for every
    /// engine, whatever the game shows) instead of the CPU player.
    pub scripted_ntba: bool,
    /// Wall-clock time to play (with [`RunSettings::until_confirmed`], the
    /// deadline).
    pub duration: Duration,
    /// End the run early, as soon as both peers of every row have
    /// confirmed at least this many ticks (`None`: play the whole
    /// `duration`). For tests: they wait for progress, not for a fixed
    /// time, so a slow machine makes them slower, not wrong.
    pub until_confirmed: Option<u32>,
}

impl RunSettings {
    /// Defaults: net seed 1, match seed 1, input delay 6 ticks (100 ms, our
    /// engine's default), GGRS desync detection every 60 frames.
    #[must_use]
    pub fn new(link: LinkConfig, duration: Duration) -> Self {
        RunSettings {
            link,
            net_seed: 1,
            match_seed: 1,
            input_delay: 6,
            ggrs_desync_interval: 60,
            scripted_ntba: false,
            duration,
            until_confirmed: None,
        }
    }
}

/// What one peer did during a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PeerFigures {
    /// The player's slot: 0 for the host, 1 for the guest, 2 and up for
    /// the other players of a larger match.
    pub side: u8,
    /// Frames the harness ran (including the handshake).
    pub frames: u64,
    /// Ticks advanced (the game's tick at the end, re-simulations not
    /// counted twice).
    pub ticks: u32,
    /// Ticks both sides know to be final at the end (all inputs confirmed).
    pub confirmed: u32,
    /// Frames where the session could not advance (our stall; GGRS's
    /// `PredictionThreshold`, or no advance in its lock-step mode).
    pub stalled: u64,
    /// Frames let pass without a tick to let the peer catch up (time
    /// synchronisation: our rollback mode's `Frame::Skipped`, GGRS's
    /// `WaitRecommendation` honoured by skipping frames).
    pub skipped: u64,
    /// Ticks simulated again after a rollback (ours: the session's own
    /// count, checked against the game's steps; GGRS: `AdvanceFrame`
    /// requests beyond the first in one `advance_frame`).
    pub resimulated: u64,
    /// Game steps in all (ticks plus re-simulations).
    pub steps: u64,
    /// Wall-clock time (ms from the start) at which the session started
    /// running (the handshake done), if it did.
    pub started_ms: Option<u64>,
    /// Wall-clock time (ms from the start) at which the run ended.
    pub ended_ms: u64,
    /// Datagrams sent while running (both channels, handshake excluded,
    /// each retransmission of a reliable datagram counted again).
    pub packets: u64,
    /// Payload bytes sent while running (both channels, handshake
    /// excluded, retransmissions included).
    pub bytes: u64,
    /// Of `packets`: retransmissions of reliable datagrams (the simulated
    /// link's stand-in for SCTP resending a lost one; GGRS sends nothing
    /// reliable).
    pub resent: u64,
    /// Datagrams sent during the whole run, handshake and retransmissions
    /// included.
    pub total_packets: u64,
    /// Payload bytes sent during the whole run, handshake and
    /// retransmissions included.
    pub total_bytes: u64,
    /// Datagrams, payload bytes and retransmissions sent before the
    /// session was running.
    baseline: Sent,
    /// Nanoseconds inside session calls, minus game and link sections.
    pub session_nanos: u64,
    /// Timed sections (outer and excluded) behind `session_nanos`, each of
    /// which added about one clock read to it.
    pub timer_sections: u64,
    /// Timed sections left out of `session_nanos` because they took over
    /// a millisecond (the thread was preempted; no session call of either
    /// engine comes near that on its own).
    pub preempted: u64,
    /// The last round trip the session measured, in milliseconds.
    pub rtt_ms: Option<u64>,
    /// GGRS's `NetworkInterrupted` events.
    pub interruptions: u64,
    /// Anything that went wrong (an early end, a desync, an error).
    pub problems: Vec<String>,
    /// The state hash after every tick (`log[t]` after tick `t + 1`).
    pub log: Vec<u64>,
}

impl PeerFigures {
    fn new(side: u8) -> Self {
        PeerFigures {
            side,
            frames: 0,
            ticks: 0,
            confirmed: 0,
            stalled: 0,
            skipped: 0,
            resimulated: 0,
            steps: 0,
            started_ms: None,
            ended_ms: 0,
            packets: 0,
            bytes: 0,
            resent: 0,
            total_packets: 0,
            total_bytes: 0,
            baseline: Sent::default(),
            session_nanos: 0,
            timer_sections: 0,
            preempted: 0,
            rtt_ms: None,
            interruptions: 0,
            problems: Vec::new(),
            log: Vec::new(),
        }
    }

    /// Notes the first frame on which the session runs, and what the links
    /// had carried from this peer until then (`sent`: from the links'
    /// outgoing statistics at this peer's ends).
    fn mark_running(&mut self, now: Millis, sent: Sent) {
        if self.started_ms.is_none() {
            self.started_ms = Some(now.0);
            self.baseline = sent;
        }
    }

    /// Records the links' totals at the end of the run.
    fn finish_traffic(&mut self, end: Millis, sent: Sent) {
        self.ended_ms = end.0;
        self.total_packets = sent.packets;
        self.total_bytes = sent.bytes;
        if self.started_ms.is_some() {
            self.packets = sent.packets.saturating_sub(self.baseline.packets);
            self.bytes = sent.bytes.saturating_sub(self.baseline.bytes);
            self.resent = sent.resent.saturating_sub(self.baseline.resent);
        }
    }

    /// Seconds from the start of the session's running phase to the end.
    #[must_use]
    pub fn running_seconds(&self) -> f64 {
        self.started_ms
            .map_or(0.0, |s| self.ended_ms.saturating_sub(s) as f64 / 1000.0)
    }

    fn add_session_time(&mut self, elapsed: Duration, excluded_nanos: u64, sections: u64) {
        let nanos = (elapsed.as_nanos() as u64).saturating_sub(excluded_nanos);
        if nanos > PREEMPTED_NANOS {
            // The thread was descheduled (the machine is shared): this
            // measures the scheduler, not the session.
            self.preempted += 1;
            return;
        }
        self.session_nanos += nanos;
        self.timer_sections += 1 + sections;
    }
}

/// What one end has put on the wire: every datagram accepted, plus every
/// retransmission of a reliable one (netsim's `sent` counts a datagram
/// once, however many attempts it took).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Sent {
    pub(crate) packets: u64,
    pub(crate) bytes: u64,
    pub(crate) resent: u64,
}

impl Sent {
    /// What one end sent (`stats`: its outgoing statistics).
    pub(crate) fn of(stats: &PathStats) -> Sent {
        let sent = stats.sent.total();
        Sent {
            packets: sent.packets + stats.retransmissions,
            bytes: sent.bytes + stats.retransmitted_bytes,
            resent: stats.retransmissions,
        }
    }

    /// What several ends sent in all (a member of a larger match has one
    /// end per link).
    pub(crate) fn sum<'a>(stats: impl IntoIterator<Item = &'a PathStats>) -> Sent {
        stats
            .into_iter()
            .map(Sent::of)
            .fold(Sent::default(), |a, b| Sent {
                packets: a.packets + b.packets,
                bytes: a.bytes + b.bytes,
                resent: a.resent + b.resent,
            })
    }

    /// Both together.
    pub(crate) fn plus(self, other: Sent) -> Sent {
        Sent {
            packets: self.packets + other.packets,
            bytes: self.bytes + other.bytes,
            resent: self.resent + other.resent,
        }
    }

    /// What was sent since `earlier`.
    pub(crate) fn since(self, earlier: Sent) -> Sent {
        Sent {
            packets: self.packets.saturating_sub(earlier.packets),
            bytes: self.bytes.saturating_sub(earlier.bytes),
            resent: self.resent.saturating_sub(earlier.resent),
        }
    }
}

/// The seed of the link joining members `a` and `b` (`a < b`; slots of
/// up to 32 members), from the run's link seed: the link between 0 and 1
/// keeps the run's seed itself, so a two-player match plays over the same
/// link whichever harness builds it, and every other link gets its own
/// stream. Both engines' links are built from it, so the same pair of
/// members meets the same losses and delays in either engine.
#[must_use]
pub fn link_seed(net_seed: u64, a: u8, b: u8) -> u64 {
    let (a, b) = (u64::from(a.min(b)), u64::from(a.max(b)));
    net_seed.wrapping_add(0x9e37_79b9_7f4a_7c15_u64.wrapping_mul(a * 32 + b - 1))
}

/// A timed section longer than this (1 ms) is counted as preempted and
/// left out of the session time.
const PREEMPTED_NANOS: u64 = 1_000_000;

/// Whether the peers simulated the same game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SyncCheck {
    /// Every tick all have confirmed has the same state hash on all.
    Agreed {
        /// Ticks compared.
        ticks: u32,
    },
    /// The hashes differ from this tick on.
    Diverged {
        /// The first differing tick.
        tick: u32,
    },
}

impl SyncCheck {
    /// `true` for [`SyncCheck::Agreed`] with at least one tick compared.
    #[must_use]
    pub fn is_ok(&self) -> bool {
        matches!(self, SyncCheck::Agreed { ticks } if *ticks > 0)
    }

    /// Compares every peer's hash log with the first peer's over the
    /// ticks all of them have confirmed.
    pub(crate) fn of(peers: &[PeerFigures]) -> SyncCheck {
        let n = peers
            .iter()
            .map(|p| (p.confirmed as usize).min(p.log.len()))
            .min()
            .unwrap_or(0);
        let Some((first, others)) = peers.split_first() else {
            return SyncCheck::Agreed { ticks: 0 };
        };
        match (0..n).find(|&i| others.iter().any(|p| p.log[i] != first.log[i])) {
            Some(i) => SyncCheck::Diverged { tick: i as u32 + 1 },
            None => SyncCheck::Agreed { ticks: n as u32 },
        }
    }
}

/// One engine playing one game over one scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct RunResult {
    /// The scenario.
    pub scenario: Scenario,
    /// The game.
    pub game: GameKind,
    /// The engine.
    pub engine: Engine,
    /// Wall-clock seconds played (handshakes included).
    pub seconds: f64,
    /// Frames the loop ran (60 per second unless the machine fell behind
    /// and frames were dropped).
    pub frames: u64,
    /// Cost of one clock read in nanoseconds, subtracted once per timed
    /// section.
    pub clock_nanos: f64,
    /// Host, then guest (then the other players of a larger match, by
    /// slot).
    pub peers: Vec<PeerFigures>,
    /// Whether they agreed.
    pub sync: SyncCheck,
}

impl RunResult {
    /// `count` per second of `peer`'s running time (from the end of its
    /// handshake to the end of the run: the steady state of a match).
    #[must_use]
    pub fn per_second(&self, peer: usize, count: u64) -> f64 {
        let seconds = self.peers[peer].running_seconds();
        if seconds > 0.0 {
            count as f64 / seconds
        } else {
            0.0
        }
    }

    /// `count` per minute of `peer`'s running time.
    #[must_use]
    pub fn per_minute(&self, peer: usize, count: u64) -> f64 {
        60.0 * self.per_second(peer, count)
    }

    /// Packets per second sent by `peer` while running.
    #[must_use]
    pub fn packets_per_second(&self, peer: usize) -> f64 {
        self.per_second(peer, self.peers[peer].packets)
    }

    /// Payload bytes per second sent by `peer` while running.
    #[must_use]
    pub fn payload_per_second(&self, peer: usize) -> f64 {
        self.per_second(peer, self.peers[peer].bytes)
    }

    /// Payload plus an estimated 48 bytes of headers per packet (IP, UDP,
    /// DTLS and SCTP on a WebRTC data channel), per second, sent by `peer`
    /// while running.
    #[must_use]
    pub fn wire_per_second(&self, peer: usize) -> f64 {
        let p = &self.peers[peer];
        self.per_second(peer, p.bytes + 48 * p.packets)
    }

    /// Session CPU time per tick advanced by `peer`, in microseconds, with
    /// the cost of the clock reads taken out.
    #[must_use]
    pub fn session_micros_per_tick(&self, peer: usize) -> f64 {
        let p = &self.peers[peer];
        if p.ticks == 0 {
            return 0.0;
        }
        let timers = self.clock_nanos * p.timer_sections as f64;
        let nanos = (p.session_nanos as f64 - timers).max(0.0);
        nanos / f64::from(p.ticks) / 1000.0
    }
}

/// Whatever the frame loop ([`play`]) runs: one engine's members of one
/// match.
pub(crate) trait Runner {
    /// Runs one 60 Hz frame at wall-clock time `now` (from the start).
    fn frame(&mut self, now: Millis);
    /// The ticks every member has confirmed so far (the lowest).
    fn confirmed(&self) -> u32;
}

/// One engine's players of one match (a pair, or a larger mesh).
pub(crate) trait Contender: Runner {
    /// The figures of every player by slot (host, guest, then the
    /// others), the run having ended at `end`.
    fn finish(self: Box<Self>, end: Millis) -> Vec<PeerFigures>;
}

/// GGRS 0.13's input queue holds this many frames and `assert!`s (panics)
/// when more are pending: a GGRS row's prediction window plus input delay
/// must stay below it.
const GGRS_INPUT_QUEUE: usize = 128;

// The checks in `check_settings` (our largest window and delay) keep every
// GGRS row inside GGRS's input queue; if lockstep's limits ever grow, this
// stops the build rather than letting GGRS panic at run time.
const _: () = assert!(
    (MAX_PREDICTION_WINDOW as usize) + (MAX_INPUT_DELAY as usize) < GGRS_INPUT_QUEUE,
    "a GGRS row could overrun GGRS's input queue: add a check"
);

/// Checks that every row can be set up with `settings` before anything
/// runs: the input delay at most lockstep's `MAX_INPUT_DELAY`, every
/// prediction window (ours and GGRS's) at most lockstep's
/// `MAX_PREDICTION_WINDOW`, and for GGRS window plus delay below the 128
/// frames its input queue holds (GGRS panics beyond; the first two checks
/// already imply it).
///
/// # Errors
///
/// A description of the first setting out of range.
pub fn check_settings(engines: &[Engine], settings: &RunSettings) -> Result<(), String> {
    let delay = settings.input_delay;
    if delay > MAX_INPUT_DELAY {
        return Err(format!(
            "input delay {delay}: at most {MAX_INPUT_DELAY} ticks"
        ));
    }
    for &engine in engines {
        if engine.window() > MAX_PREDICTION_WINDOW {
            return Err(format!(
                "{engine}: a prediction window of at most {MAX_PREDICTION_WINDOW} ticks \
                 (our session's largest; the GGRS rows are held to the same)"
            ));
        }
        if let Engine::Ggrs { window } = engine {
            if usize::from(window) + usize::from(delay) >= GGRS_INPUT_QUEUE {
                return Err(format!(
                    "{engine} at input delay {delay}: window plus delay must stay below \
                     {GGRS_INPUT_QUEUE} (GGRS's input queue)"
                ));
            }
        }
    }
    Ok(())
}

fn contender(
    game: GameKind,
    engine: Engine,
    settings: &RunSettings,
) -> Result<Box<dyn Contender>, String> {
    Ok(match (game, engine) {
        (
            GameKind::Dots,
            Engine::Ours {
                window,
                send_interval,
                max_hold,
            },
        ) => Box::new(ours::OursPair::<dots::Dots>::new(
            settings,
            window,
            send_interval,
            max_hold,
        )?),
        (
            GameKind::Ntba,
            Engine::Ours {
                window,
                send_interval,
                max_hold,
            },
        ) => Box::new(ours::OursPair::<ntba::Ntba>::new(
            settings,
            window,
            send_interval,
            max_hold,
        )?),
        (GameKind::Dots, Engine::Ggrs { window }) => Box::new(
            ggrs_side::GgrsMesh::<dots::Dots>::new(settings, usize::from(window), 2)?,
        ),
        (GameKind::Ntba, Engine::Ggrs { window }) => Box::new(
            ggrs_side::GgrsMesh::<ntba::Ntba>::new(settings, usize::from(window), 2)?,
        ),
    })
}

/// The cost of one `Instant::now()` on this machine, in nanoseconds (the
/// mean gap between two consecutive reads).
#[must_use]
pub fn calibrate_clock() -> f64 {
    const N: u32 = 200_000;
    let mut total = Duration::ZERO;
    for _ in 0..N {
        let a = Instant::now();
        let b = Instant::now();
        total += b - a;
    }
    total.as_nanos() as f64 / f64::from(N)
}

const FRAME: Duration = Duration::from_nanos(16_666_667);

/// How long before a frame the loop stops sleeping and spins, so the core
/// is awake (not in a deep idle state) when the sessions are timed.
const SPIN: Duration = Duration::from_micros(300);

/// Fisher-Yates with a xorshift generator (the order only needs to vary,
/// not to be unpredictable).
fn shuffle(order: &mut [usize], state: &mut u64) {
    for i in (1..order.len()).rev() {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        let j = (*state % (i as u64 + 1)) as usize;
        order.swap(i, j);
    }
}

/// Sleeps until shortly before `deadline`, then spins up to it.
fn wait_until(deadline: Instant) {
    let now = Instant::now();
    if now + SPIN < deadline {
        std::thread::sleep(deadline - now - SPIN);
    }
    while Instant::now() < deadline {
        std::hint::spin_loop();
    }
}

/// Plays `scenario` for `settings.duration` of wall-clock time with every
/// game × engine combination at once, in one 60 Hz frame loop (the `play` loop;
/// each combination on its own link with the same conditions and seed),
/// and returns one result per combination, games outer, engines inner.
///
/// With [`RunSettings::until_confirmed`] the run ends as soon as every
/// row's two peers have confirmed that many ticks, or at the deadline.
///
/// # Errors
///
/// A description of the first engine that could not be set up (a setting
/// [`check_settings`] refuses, or one a session refuses).
pub fn run_scenario(
    scenario: &Scenario,
    games: &[GameKind],
    engines: &[Engine],
    settings: &RunSettings,
) -> Result<Vec<RunResult>, String> {
    let settings = RunSettings {
        link: scenario.link,
        ..*settings
    };
    check_settings(engines, &settings)?;
    let clock_nanos = calibrate_clock();
    let mut labels = Vec::new();
    let mut rows = Vec::new();
    for &game in games {
        for &engine in engines {
            rows.push(contender(game, engine, &settings)?);
            labels.push((game, engine));
        }
    }

    let played = play(&mut rows, settings.duration, settings.until_confirmed);
    let (seconds, end) = (played.seconds(), played.end());

    let mut results = Vec::new();
    for ((game, engine), c) in labels.into_iter().zip(rows) {
        let peers = c.finish(end);
        let sync = SyncCheck::of(&peers);
        results.push(RunResult {
            scenario: *scenario,
            game,
            engine,
            seconds,
            frames: played.frames,
            clock_nanos,
            peers,
            sync,
        });
    }
    Ok(results)
}

/// What [`play`] did: frames run and the wall-clock time at the end.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Played {
    pub(crate) frames: u64,
    pub(crate) elapsed: Duration,
}

impl Played {
    pub(crate) fn seconds(self) -> f64 {
        self.elapsed.as_secs_f64()
    }

    pub(crate) fn end(self) -> Millis {
        Millis(self.elapsed.as_millis() as u64)
    }
}

/// The real-time frame loop every run shares: a 60 Hz frame for every row
/// (in a new shuffled order each frame) until `duration` has passed, or
/// until every row has confirmed `until_confirmed` ticks.
///
/// A frame that starts late is not made up for: like a browser's animation
/// frames, the loop goes on from the current time (no catch-up bursts).
pub(crate) fn play<R: Runner + ?Sized>(
    rows: &mut [Box<R>],
    duration: Duration,
    until_confirmed: Option<u32>,
) -> Played {
    let start = Instant::now();
    let mut next = start;
    let mut order: Vec<usize> = (0..rows.len()).collect();
    let mut frames = 0u64;
    let mut rng = 0x9e37_79b9_7f4a_7c15_u64;
    loop {
        wait_until(next);
        let elapsed = start.elapsed();
        if elapsed >= duration {
            break;
        }
        if let Some(goal) = until_confirmed {
            if rows.iter().all(|r| r.confirmed() >= goal) {
                break;
            }
        }
        let now_ms = Millis(elapsed.as_millis() as u64);
        // Whoever runs first after the wait, or after another engine's code,
        // finds the caches cold: shuffle the order every frame so no engine
        // is always first, or always follows its own twin (warm code).
        shuffle(&mut order, &mut rng);
        for &i in &order {
            rows[i].frame(now_ms);
        }
        frames += 1;
        next += FRAME;
        let now = Instant::now();
        if now > next + FRAME {
            // More than a frame late (the machine is busy): start again
            // from now, dropping the frames missed, as a browser does.
            next = now;
        }
    }
    Played {
        frames,
        elapsed: start.elapsed(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn peer(side: u8) -> PeerFigures {
        PeerFigures::new(side)
    }

    fn result(peers: [PeerFigures; 2]) -> RunResult {
        let peers = peers.to_vec();
        let sync = SyncCheck::of(&peers);
        RunResult {
            scenario: SCENARIOS[0],
            game: GameKind::Dots,
            engine: Engine::Ours {
                window: 0,
                send_interval: 1,
                max_hold: DEFAULT_MAX_HOLD_FRAMES,
            },
            seconds: 10.0,
            frames: 600,
            clock_nanos: 20.0,
            peers,
            sync,
        }
    }

    /// Outgoing statistics with `unreliable` datagrams of `len` bytes and
    /// `reliable` ones of `len` bytes, `resent` of them sent twice.
    fn stats(unreliable: u64, reliable: u64, resent: u64, len: u64) -> PathStats {
        let mut s = PathStats::default();
        s.sent.unreliable = netsim::Counter {
            packets: unreliable,
            bytes: unreliable * len,
        };
        s.sent.reliable = netsim::Counter {
            packets: reliable,
            bytes: reliable * len,
        };
        s.retransmissions = resent;
        s.retransmitted_bytes = resent * len;
        s
    }

    #[test]
    fn rates_count_only_the_running_time_and_its_traffic() {
        let mut a = peer(0);
        // 10 packets (100 bytes) of handshake, then running from 2 s to 6 s.
        a.mark_running(Millis(2000), Sent::of(&stats(10, 0, 0, 10)));
        // Only the first frame running counts as the start.
        a.mark_running(Millis(3000), Sent::of(&stats(70, 0, 0, 10)));
        a.finish_traffic(Millis(6000), Sent::of(&stats(250, 0, 0, 10)));
        let r = result([a, peer(1)]);
        assert_eq!(r.peers[0].total_packets, 250);
        assert_eq!(r.packets_per_second(0), 60.0); // 240 packets in 4 s
        assert_eq!(r.payload_per_second(0), 600.0); // 2400 bytes in 4 s
        assert_eq!(r.wire_per_second(0), 600.0 + 48.0 * 60.0);
        // A peer that never ran has no rate (not a division by zero).
        assert_eq!(r.packets_per_second(1), 0.0);
    }

    #[test]
    fn retransmissions_of_reliable_datagrams_count_as_packets_sent() {
        let mut a = peer(0);
        // Handshake: one reliable datagram resent once, not counted.
        a.mark_running(Millis(0), Sent::of(&stats(4, 1, 1, 10)));
        // Running: 200 unreliable and 10 reliable datagrams, 30 resends.
        a.finish_traffic(Millis(4000), Sent::of(&stats(204, 11, 31, 10)));
        assert_eq!(a.resent, 30);
        assert_eq!(a.packets, 200 + 10 + 30);
        assert_eq!(a.bytes, 10 * (200 + 10 + 30));
        assert_eq!(a.total_packets, 204 + 11 + 31);
        let r = result([a, peer(1)]);
        assert_eq!(r.packets_per_second(0), 60.0);
    }

    #[test]
    fn session_time_leaves_out_game_clock_reads_and_preemptions() {
        let mut a = peer(0);
        a.ticks = 2;
        // 10 µs in the call, 4 µs of it in the game (2 timed sections).
        a.add_session_time(Duration::from_micros(10), 4_000, 2);
        // A preempted frame is dropped whole.
        a.add_session_time(Duration::from_millis(3), 0, 0);
        assert_eq!(a.preempted, 1);
        assert_eq!((a.session_nanos, a.timer_sections), (6_000, 3));
        let r = result([a, peer(1)]);
        // (6000 ns - 3 clock reads of 20 ns) / 2 ticks = 2.97 µs.
        assert!((r.session_micros_per_tick(0) - 2.97).abs() < 1e-9);
        assert_eq!(r.session_micros_per_tick(1), 0.0);
    }

    #[test]
    fn sync_compares_confirmed_ticks_only_and_finds_the_first_difference() {
        let (mut a, mut b) = (peer(0), peer(1));
        a.log = vec![1, 2, 3, 4];
        b.log = vec![1, 2, 3, 9];
        // Tick 4 differs but is a prediction on one side: not compared.
        a.confirmed = 3;
        b.confirmed = 4;
        assert_eq!(
            SyncCheck::of(&[a.clone(), b.clone()]),
            SyncCheck::Agreed { ticks: 3 }
        );
        b.log[1] = 7;
        assert_eq!(
            SyncCheck::of(&[a.clone(), b]),
            SyncCheck::Diverged { tick: 2 }
        );
        // Nothing confirmed is not a pass.
        a.confirmed = 0;
        assert!(!SyncCheck::of(&[a.clone(), a]).is_ok());
    }

    #[test]
    fn sync_over_more_peers_finds_the_first_tick_any_of_them_differs() {
        let peers: Vec<PeerFigures> = (0..4)
            .map(|side| {
                let mut p = peer(side);
                p.log = vec![1, 2, 3, 4, 5];
                p.confirmed = 5;
                p
            })
            .collect();
        assert_eq!(SyncCheck::of(&peers), SyncCheck::Agreed { ticks: 5 });
        // The fewest confirmed ticks among all bound the comparison.
        let mut fewer = peers.clone();
        fewer[2].confirmed = 3;
        fewer[3].log[4] = 9;
        assert_eq!(SyncCheck::of(&fewer), SyncCheck::Agreed { ticks: 3 });
        // A difference in the last peer only is found.
        let mut wrong = peers;
        wrong[3].log[1] = 7;
        assert_eq!(SyncCheck::of(&wrong), SyncCheck::Diverged { tick: 2 });
    }

    #[test]
    fn link_seeds_keep_the_pair_seed_and_differ_for_every_other_link() {
        assert_eq!(link_seed(42, 0, 1), 42);
        assert_eq!(link_seed(42, 1, 0), 42);
        let mut seeds: Vec<u64> = (0..18u8)
            .flat_map(|a| (a + 1..18).map(move |b| link_seed(42, a, b)))
            .collect();
        let all = seeds.len();
        seeds.sort_unstable();
        seeds.dedup();
        assert_eq!(seeds.len(), all);
    }
}
