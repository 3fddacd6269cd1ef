//! The harness behind the runnable examples in `examples/`.
//!
//! Each example is a thin `main` around a function here, so the tests in
//! `examples/tests/` run exactly what the examples run (minus printing):
//!
//! - [`play_loopback`]: two sessions of the `dots` game on the perfect
//!   in-process loopback (example `loopback`);
//! - [`play_simulated`]: the same over the seeded, virtual-time `netsim`
//!   link with latency, jitter, loss, duplication and reordering (example
//!   `simulated`, which `scripts/play.sh` runs);
//! - [`replay_log`]: replays an input log exported by `simulated
//!   --save-log FILE` (example `replay`).
//!
//! [`play`] is the driver all of them share. It is an example of how to
//! drive two sans-IO [`Session`]s: time is virtual, so a minute of play takes
//! a few milliseconds of real time, and a seed reproduces a run exactly.
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
pub mod simulated;

use std::fmt;

use dots::Dots;
use lockstep::{
    DeterministicGame, Event, InputLog, LogDecodeError, Millis, Outcome, ReplayError, Session,
    SessionConfig, SessionStats, Transport,
};
use netsim::{LinkConfig, PathStats, SimEndpoint};

pub use args::ArgError;

// Compiles and runs every Rust block of docs/writing-a-game.md as a doc test.
#[cfg(doctest)]
#[doc = include_str!("../../docs/writing-a-game.md")]
pub struct WritingAGameDoc;

/// The examples' game: the input of one player for one tick is one byte.
pub type Game = Dots;

/// How long one 60 Hz frame lasts, as a function of the frame number
/// (integer milliseconds, without drift: frame 60 starts at exactly 1000).
#[must_use]
pub fn frame_time(frame: u64) -> Millis {
    Millis(frame * 1000 / 60)
}

/// What to play.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MatchConfig {
    /// Ticks both peers must simulate (60 per second of play).
    pub ticks: u32,
    /// The match seed (the host picks it; the guest adopts it).
    pub seed: u64,
    /// Input delay in ticks (6 = 100 ms).
    pub input_delay: u8,
}

impl Default for MatchConfig {
    /// One minute of play (3,600 ticks), seed 1, input delay 6 ticks.
    fn default() -> Self {
        MatchConfig {
            ticks: 3600,
            seed: 1,
            input_delay: 6,
        }
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
pub struct PeerReport {
    /// 0 for the host, 1 for the guest.
    pub side: u8,
    /// Ticks simulated by the end (a peer may run a few ticks past the
    /// target while its opponent catches up).
    pub ticks: u32,
    /// The game's state hash right after tick [`MatchConfig::ticks`], if
    /// the peer got there.
    pub hash_at_target: Option<u64>,
    /// How the match ended for this peer.
    pub outcome: Option<Outcome>,
    /// The session's counters (frames, stalled frames, datagrams and bytes).
    pub stats: SessionStats,
    /// Round trips measured by pings.
    pub rtt: RttSummary,
    /// Virtual time at which this peer reached the target tick.
    pub reached_target_at: Option<Millis>,
    /// Everything this peer simulated, as an exportable input log.
    pub log: InputLog<<Game as DeterministicGame>::Input>,
}

impl PeerReport {
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
pub struct MatchReport {
    /// The configuration played.
    pub config: MatchConfig,
    /// Side 0.
    pub host: PeerReport,
    /// Side 1.
    pub guest: PeerReport,
    /// Virtual time from the start until both peers reached the target
    /// tick (or until the match ended early).
    pub played: Millis,
    /// Frames driven.
    pub frames: u64,
    /// For the simulated link: what happened to the traffic, host to guest
    /// and guest to host.
    pub link: Option<[PathStats; 2]>,
}

impl MatchReport {
    /// Both peers reached the target tick with the same state hash.
    #[must_use]
    pub fn in_sync(&self) -> bool {
        self.host.hash_at_target.is_some() && self.host.hash_at_target == self.guest.hash_at_target
    }

    /// `count` per second of [`played`](Self::played) time.
    #[must_use]
    pub fn per_second(&self, count: u64) -> f64 {
        if self.played.0 == 0 {
            return 0.0;
        }
        count as f64 * 1000.0 / self.played.0 as f64
    }
}

/// A snapshot passed to the progress callback of [`play`] after every
/// frame.
#[derive(Debug, Clone, Copy)]
pub struct Progress<'a> {
    /// Virtual time.
    pub now: Millis,
    /// Frames driven so far.
    pub frame: u64,
    /// Ticks simulated by the host and the guest.
    pub ticks: [u32; 2],
    /// Stalled frames so far, host and guest.
    pub stalled: [u64; 2],
    /// The host's last measured round trip.
    pub rtt: Option<Millis>,
    /// The host's game, once the match has started (for drawing it).
    pub game: Option<&'a Game>,
}

/// Two transports joined by some link, with the link's notion of time.
pub trait Link {
    /// The transport type of both ends.
    type End: Transport;
    /// Both ends: the host's, then the guest's.
    fn ends(&mut self) -> (&mut Self::End, &mut Self::End);
    /// Moves the link's clock to `now` (a no-op for a link without delay).
    fn advance_to(&mut self, now: Millis);
    /// When the next datagram will arrive at either end, if one is on its
    /// way and not deliverable yet.
    fn next_arrival(&self) -> Option<Millis>;
}

/// The loopback pair as a [`Link`]: no delay, so no clock.
#[derive(Debug)]
pub struct LoopbackLink(
    pub loopback::LoopbackEndpoint,
    pub loopback::LoopbackEndpoint,
);

impl LoopbackLink {
    /// A fresh loopback pair.
    #[must_use]
    pub fn new() -> Self {
        let (a, b) = loopback::pair();
        LoopbackLink(a, b)
    }
}

impl Default for LoopbackLink {
    fn default() -> Self {
        Self::new()
    }
}

impl Link for LoopbackLink {
    type End = loopback::LoopbackEndpoint;
    fn ends(&mut self) -> (&mut Self::End, &mut Self::End) {
        (&mut self.0, &mut self.1)
    }
    fn advance_to(&mut self, _now: Millis) {}
    fn next_arrival(&self) -> Option<Millis> {
        None
    }
}

/// The simulated network as a [`Link`].
#[derive(Debug)]
pub struct SimLink(pub SimEndpoint, pub SimEndpoint);

impl SimLink {
    /// A simulated link with these conditions and this network seed.
    #[must_use]
    pub fn new(cfg: LinkConfig, seed: u64) -> Self {
        let (a, b) = netsim::pair(cfg, seed);
        SimLink(a, b)
    }
}

impl Link for SimLink {
    type End = SimEndpoint;
    fn ends(&mut self) -> (&mut Self::End, &mut Self::End) {
        (&mut self.0, &mut self.1)
    }
    fn advance_to(&mut self, now: Millis) {
        self.0.advance_to(now);
    }
    fn next_arrival(&self) -> Option<Millis> {
        [self.0.poll_timeout(), self.1.poll_timeout()]
            .into_iter()
            .flatten()
            .min()
    }
}

/// One peer under the driver: its session, its bot and what it saw.
struct Peer {
    session: Session<Game>,
    side: u8,
    /// Pads sampled so far (the bot's clock).
    sampled: u32,
    hash_at_target: Option<u64>,
    reached_target_at: Option<Millis>,
    rtt: RttSummary,
}

impl Peer {
    fn new(cfg: SessionConfig, side: u8) -> Self {
        Peer {
            // Both configurations are built by `play` from a MatchConfig
            // whose delay is clamped to the session's maximum.
            session: Session::new(cfg).expect("play() builds valid session configs"),
            side,
            sampled: 0,
            hash_at_target: None,
            reached_target_at: None,
            rtt: RttSummary::default(),
        }
    }

    /// Runs one frame: the local "player" is `dots::scripted_input`, a bot
    /// that walks in a fixed pattern, sampled only when the session asks.
    fn advance_frame(&mut self, now: Millis) {
        let (side, sampled) = (self.side, &mut self.sampled);
        self.session.advance_frame(now, || {
            let pad = dots::scripted_input(*sampled, side);
            *sampled += 1;
            pad
        });
    }

    fn drain_events(&mut self, now: Millis, target: u32) {
        while let Some(event) = self.session.poll_event() {
            match event {
                Event::Ticked(t) if t == target => {
                    // At most one tick per call, so the game is at `t`.
                    self.hash_at_target = self.session.game().map(|g| g.state_hash());
                    self.reached_target_at = Some(now);
                }
                Event::RoundTrip(rtt) => self.rtt.add(rtt),
                _ => {}
            }
        }
    }

    fn report(self) -> PeerReport {
        PeerReport {
            side: self.side,
            ticks: self.session.tick(),
            hash_at_target: self.hash_at_target,
            outcome: self.session.outcome().cloned(),
            stats: self.session.stats(),
            rtt: self.rtt,
            reached_target_at: self.reached_target_at,
            log: self.session.input_log(),
        }
    }
}

/// Plays one match of [`Game`] between a host and a guest over `link`, in
/// virtual time, and reports what happened.
///
/// Every 60 Hz frame both sessions advance once; between frames the clock
/// jumps to each datagram's arrival time, so the sessions see datagrams (and
/// measure round trips) at the moment they arrive. When both peers have
/// simulated `cfg.ticks` ticks, the host quits and the guest learns of it
/// over the link; the run also stops if either session ends on its own
/// (timeout, desync...) or after a generous cap on virtual time.
///
/// `progress` is called after every frame.
pub fn play<L: Link>(
    link: &mut L,
    cfg: &MatchConfig,
    progress: &mut dyn FnMut(&Progress),
) -> MatchReport {
    let delay = cfg.input_delay.min(lockstep::wire::MAX_INPUT_DELAY);
    let mut host = Peer::new(SessionConfig::host(cfg.seed, delay), 0);
    let mut guest = Peer::new(SessionConfig::guest(), 1);
    // Give up when the match takes ten times its nominal length plus a
    // minute (only a pathological link gets near this).
    let cap = frame_time(u64::from(cfg.ticks) * 10) + Millis(60_000);
    let mut frame = 0u64;
    let mut now = Millis::ZERO;
    let mut quit_sent = false;
    let mut played = None;

    loop {
        let next_frame = frame_time(frame);
        // The next moment anything happens: a frame, an arrival, a session
        // deadline.
        let mut t = next_frame;
        for deadline in [
            link.next_arrival(),
            host.session.poll_timeout(),
            guest.session.poll_timeout(),
        ]
        .into_iter()
        .flatten()
        {
            t = t.min(deadline);
        }
        now = now.max(t);
        link.advance_to(now);

        let (a, b) = link.ends();
        host.session.pump(now, a);
        guest.session.pump(now, b);
        if now >= next_frame {
            host.advance_frame(now);
            guest.advance_frame(now);
            frame += 1;
        }
        // Send what the frame produced; the loopback delivers at once, so
        // the host also hears the guest's reply within the same frame.
        host.session.pump(now, a);
        guest.session.pump(now, b);
        host.session.pump(now, a);
        host.drain_events(now, cfg.ticks);
        guest.drain_events(now, cfg.ticks);

        if now >= next_frame {
            progress(&Progress {
                now,
                frame,
                ticks: [host.session.tick(), guest.session.tick()],
                stalled: [
                    host.session.stats().stalled_frames,
                    guest.session.stats().stalled_frames,
                ],
                rtt: host.session.stats().last_rtt,
                game: host.session.game(),
            });
        }

        let both_there = host.reached_target_at.is_some() && guest.reached_target_at.is_some();
        if both_there && !quit_sent {
            played = Some(now);
            host.session.quit(now);
            host.session.pump(now, a);
            quit_sent = true;
        }
        let ended = [&host, &guest]
            .iter()
            .filter(|p| p.session.outcome().is_some())
            .count();
        if played.is_none() && ended > 0 {
            played = Some(now);
        }
        if ended == 2 || now >= cap {
            break;
        }
    }
    let (a, b) = link.ends();
    a.close();
    b.close();
    MatchReport {
        config: *cfg,
        played: played.unwrap_or(now),
        frames: frame,
        host: host.report(),
        guest: guest.report(),
        link: None,
    }
}

/// Example 1: a match on the perfect loopback.
#[must_use]
pub fn play_loopback(cfg: &MatchConfig) -> MatchReport {
    play(&mut LoopbackLink::new(), cfg, &mut |_| {})
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
    let mut report = play(&mut link, cfg, progress);
    report.link = Some([link.0.outgoing_stats(), link.1.outgoing_stats()]);
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
        Some(Outcome::Desync {
            tick,
            local,
            remote,
        }) => format!("DESYNC at tick {tick}: {local:#018x} here, {remote:#018x} there"),
        Some(Outcome::VersionMismatch { .. }) => "different game version".to_string(),
        Some(Outcome::InvalidData { violation }) => format!("invalid data: {violation}"),
    }
}
