//! NtBA through the examples' driver: CPU against CPU, on the loopback or
//! the simulated link, in lock-step or rollback mode (examples
//! `ntba_loopback` and `ntba_simulated`).
//!
//! The match runs until the final whistle. The host's confirmed ticks print
//! the score at each half (and, with `--watch N`, the court every N seconds
//! of play); at the end both peers' final tick, hash and score are printed,
//! and each peer's exported input log is replayed offline.
//!
//! ```no_run
//! // (A whole match: about 15,000 ticks; tests/rollback.rs runs one.)
//! use lockstep_examples::basketball::{play_ntba, NtbaOptions};
//! use lockstep_examples::LoopbackLink;
//!
//! let mut o = NtbaOptions::loopback();
//! o.game.window = 8; // rollback
//! let (report, finals) =
//!     play_ntba::<ntba::Ntba, _>(&mut LoopbackLink::new(), &o, &mut std::io::sink());
//! assert!(report.in_sync());
//! assert_eq!(finals[0], finals[1]);
//! ```

use std::io::Write;

use lockstep::{DeterministicGame, Event, Millis};
use netsim::LinkConfig;
use ntba::{Cpu, Ntba, Pad, Phase};

use crate::args::{ArgError, Args};
use crate::{play, Bot, Goal, Link, MatchConfig, MatchReport, Observer};

/// A game that is NtBA underneath: NtBA itself, or NtBA with another
/// rollback predictor (to compare predictors on the same matches).
pub trait NtbaGame: DeterministicGame<Input = Pad> {
    /// The NtBA state.
    fn ntba(&self) -> &Ntba;
}

impl NtbaGame for Ntba {
    fn ntba(&self) -> &Ntba {
        self
    }
}

/// NtBA with the candidate predictor measured in
/// `games/ntba/tests/predictor.rs`: the last pad with pass/steal and switch
/// let go (NtBA itself repeats the last pad). The simulation, the hashes and
/// the build id are NtBA's; only the guesses differ, so a match ends on the
/// same tick with the same hash, after different numbers of rollbacks.
#[derive(Debug, Clone)]
pub struct ReleaseTaps(pub Ntba);

impl DeterministicGame for ReleaseTaps {
    type Input = Pad;
    const BUILD_ID: u64 = Ntba::BUILD_ID;

    fn new(seed: u64, players: u8) -> Self {
        ReleaseTaps(Ntba::new(seed, players))
    }

    fn step(&mut self, inputs: &[Pad]) {
        self.0.step(inputs);
    }

    fn state_hash(&self) -> u64 {
        self.0.state_hash()
    }

    fn predict_input(last: Pad, _ticks_ahead: u32) -> Pad {
        Pad(last.0 & !(Pad::ACTION | Pad::SWITCH))
    }
}

impl NtbaGame for ReleaseTaps {
    fn ntba(&self) -> &Ntba {
        &self.0
    }
}

/// A CPU playing one team: it reads the present state, like a person
/// looking at the screen; the session asks for a pad only when it needs one
/// (for a tick `input_delay` ticks ahead).
#[derive(Debug, Clone)]
pub struct CpuBot {
    cpu: Cpu,
    side: u8,
}

impl CpuBot {
    /// The CPU of `side` (0 Home, 1 Away) in a match with this seed.
    #[must_use]
    pub fn new(seed: u64, side: u8) -> Self {
        let salt = if side == 0 { 0x686f_6d65 } else { 0x6177_6179 };
        CpuBot {
            cpu: Cpu::new(seed ^ salt),
            side,
        }
    }
}

impl<G: NtbaGame> Bot<G> for CpuBot {
    fn pad(&mut self, game: Option<&G>) -> Pad {
        game.map_or(Pad::NONE, |g| self.cpu.pad(g.ntba(), self.side))
    }
}

/// Which rollback predictor the NtBA examples use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Predictor {
    /// NtBA's own (`Ntba::predict_input`: repeat the last pad).
    Ntba,
    /// [`ReleaseTaps`].
    ReleaseTaps,
}

/// The options of the NtBA examples.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NtbaOptions {
    /// Seed, delay and session mode (`ticks` is unused: the match runs to
    /// the final whistle).
    pub game: MatchConfig,
    /// The simulated link's conditions (`None`: the loopback).
    pub link: Option<LinkConfig>,
    /// Seed of the simulated network.
    pub net_seed: u64,
    /// Draw the court every this many seconds of play (0: never).
    pub watch: u32,
    /// The rollback predictor.
    pub predictor: Predictor,
}

impl NtbaOptions {
    /// `ntba_loopback`'s defaults: seed 1, input delay 2, lock-step.
    #[must_use]
    pub fn loopback() -> Self {
        NtbaOptions {
            game: MatchConfig {
                input_delay: 2,
                ..MatchConfig::default()
            },
            link: None,
            net_seed: 99,
            watch: 0,
            predictor: Predictor::Ntba,
        }
    }

    /// `ntba_simulated`'s defaults: 50 ms ±10 ms one way, 10% loss,
    /// network seed 99, input delay 6, lock-step.
    #[must_use]
    pub fn simulated() -> Self {
        NtbaOptions {
            game: MatchConfig::default(),
            link: Some(LinkConfig {
                latency: Millis(50),
                jitter: Millis(10),
                loss_percent: 10,
                ..LinkConfig::default()
            }),
            ..Self::loopback()
        }
    }

    /// Parses the command line (without the program name) over `self`'s
    /// values. The link flags are accepted only when `self.link` is set.
    pub fn parse(mut self, args: impl IntoIterator<Item = String>) -> Result<Self, ArgError> {
        let mut a = Args::new(args);
        const MS: u64 = 5_000;
        while let Some(flag) = a.next_flag()? {
            let link = self.link.as_mut();
            match (flag.as_str(), link) {
                ("--seed", _) => self.game.seed = a.number("--seed", 0, u64::MAX)?,
                ("--delay", _) => {
                    let max = u64::from(lockstep::wire::MAX_INPUT_DELAY);
                    self.game.input_delay = a.number("--delay", 0, max)? as u8;
                }
                ("--watch", _) => self.watch = a.number("--watch", 0, 600)? as u32,
                ("--predictor", _) => {
                    self.predictor = match a.string("--predictor")?.as_str() {
                        "ntba" | "repeat-last" => Predictor::Ntba,
                        "release-taps" => Predictor::ReleaseTaps,
                        other => {
                            return Err(ArgError::BadValue {
                                flag: "--predictor",
                                value: other.to_string(),
                                expected: "ntba (repeat-last) or release-taps".to_string(),
                            })
                        }
                    }
                }
                ("--net-seed", Some(_)) => self.net_seed = a.number("--net-seed", 0, u64::MAX)?,
                ("--latency", Some(l)) => l.latency = Millis(a.number("--latency", 0, MS)?),
                ("--jitter", Some(l)) => l.jitter = Millis(a.number("--jitter", 0, MS)?),
                ("--loss", Some(l)) => l.loss_percent = a.number("--loss", 0, 90)? as u8,
                _ if a.session_flag(&flag, &mut self.game)? => {}
                _ => return Err(ArgError::Unknown(flag)),
            }
        }
        if let Some(l) = &self.link {
            if l.jitter > l.latency {
                return Err(ArgError::BadValue {
                    flag: "--jitter",
                    value: l.jitter.0.to_string(),
                    expected: format!("at most the latency ({} ms)", l.latency.0),
                });
            }
        }
        Ok(self)
    }
}

/// How the session is set up, for the examples' first line: empty in
/// lock-step with a fixed delay and one packet per frame.
#[must_use]
pub fn mode_suffix(cfg: &MatchConfig) -> String {
    let mut s = String::new();
    if cfg.window > 0 {
        s.push_str(&format!(
            "; rollback, prediction window {} ticks",
            cfg.window
        ));
    }
    if cfg.delay_from_rtt {
        s.push_str("; input delay from the measured round trip");
    }
    if cfg.send_interval > 1 {
        s.push_str(&format!(
            "; one Inputs packet every {} frames",
            cfg.send_interval
        ));
    }
    s
}

/// The options every NtBA example takes, for `--help`.
pub const HELP_COMMON: &str = "    \
    --seed N            the match seed (the host's choice)
    --delay N           input delay in ticks, 0-60
    --rollback [W]      rollback mode: predict the other team's late pads up
                        to W ticks ahead (1-60, default 8) instead of stalling
    --delay-from-rtt    the host picks the input delay from 5 round trips
                        measured before the first tick
    --send-interval N   one Inputs packet every N frames, 1-60 (default 1)
    --max-hold N        rollback: hold an unneeded Inputs packet back at most
                        N frames, 0-15 (default 2; 0 sends every frame)
    --predictor P       rollback guess: ntba (NtBA's own: repeat the last pad)
                        or release-taps (let go of pass and switch)
    --watch N           draw the court every N seconds of play
    -h, --help          print this help
";

/// Prints the match as the host's confirmed ticks go by (the score at each
/// half, the court now and then) and the sessions' start and end, and keeps
/// each side's final score.
struct Commentary<'w> {
    out: &'w mut dyn Write,
    watch: u32,
    finals: [Option<[u16; 2]>; 2],
}

fn name(side: u8) -> &'static str {
    if side == 0 {
        "host "
    } else {
        "guest"
    }
}

impl<G: NtbaGame> Observer<G> for Commentary<'_> {
    fn event(&mut self, side: u8, event: &Event) {
        // Writing to stdout or a sink: a failed write only loses a line.
        let _ = match event {
            Event::Started {
                side: s,
                seed,
                input_delay,
            } => writeln!(
                self.out,
                "{}: started as side {s}, seed {seed}, input delay {input_delay} ticks",
                name(side)
            ),
            Event::Ended(o) => writeln!(self.out, "{}: ended: {o:?}", name(side)),
            _ => Ok(()),
        };
    }

    fn confirmed(&mut self, side: u8, game: &G, tick: u32) {
        let g = game.ntba();
        if g.is_over() && self.finals[usize::from(side)].is_none() {
            self.finals[usize::from(side)] = Some(g.score());
        }
        if side == 0 {
            let _ = report_tick(self.out, g, tick, self.watch);
        }
    }
}

/// Prints the score at the end of each period (and the court now and then).
fn report_tick(out: &mut dyn Write, g: &Ntba, tick: u32, watch: u32) -> std::io::Result<()> {
    for e in g.events() {
        match e {
            ntba::Event::PeriodEnd { period } => {
                let s = g.score();
                let what = match period {
                    0 => "half time".to_string(),
                    1 => "end of the second half".to_string(),
                    n => format!("end of overtime {}", n - 1),
                };
                writeln!(
                    out,
                    "  tick {tick:>5}: {what}: Home {} - {} Away",
                    s[0], s[1]
                )?;
            }
            ntba::Event::GameOver { winner } => {
                let s = g.score();
                let w = if *winner == 0 { "Home" } else { "Away" };
                writeln!(
                    out,
                    "  tick {tick:>5}: final: Home {} - {} Away, {w} wins",
                    s[0], s[1]
                )?;
            }
            _ => {}
        }
    }
    if watch > 0 && tick.is_multiple_of(watch * 60) && g.clocks().phase != Phase::Over {
        writeln!(out, "{}", render(g))?;
    }
    Ok(())
}

/// Plays one CPU-against-CPU match of `G` (NtBA, or NtBA with another
/// predictor) over `link` until the final whistle, writing the commentary
/// to `out`. Returns the report and each side's final score.
pub fn play_ntba<G: NtbaGame, L: Link>(
    link: &mut L,
    o: &NtbaOptions,
    out: &mut dyn Write,
) -> (MatchReport<G>, [Option<[u16; 2]>; 2]) {
    let done = |g: &G, _t: u32| g.ntba().is_over();
    let goal = Goal {
        done: &done,
        cap: Millis(60 * 60 * 1000),
    };
    let bots = [CpuBot::new(o.game.seed, 0), CpuBot::new(o.game.seed, 1)];
    let mut commentary = Commentary {
        out,
        watch: o.watch,
        finals: [None, None],
    };
    let report = play(link, &o.game, bots, &goal, &mut commentary);
    (report, commentary.finals)
}

/// The court as text: 48 columns (half a metre each) by 14 rows (a metre
/// each). H/h are Home (capital: controlled), A/a Away, o the ball on or
/// near the floor, O the ball in the air, | the hoops; `>>` or `<<` beside
/// a team's score is the way it attacks (the ends change at half time).
#[must_use]
pub fn render(g: &Ntba) -> String {
    const W: usize = 48;
    const H: usize = 14;
    let mut grid = vec![[' '; W]; H];
    let cell = |x: i32, y: i32| {
        let cx = (i64::from(x) * W as i64 / i64::from(ntba::COURT_LENGTH)).clamp(0, W as i64 - 1);
        let cy = (i64::from(y) * H as i64 / i64::from(ntba::COURT_WIDTH)).clamp(0, H as i64 - 1);
        (cx as usize, cy as usize)
    };
    for side in 0..2 {
        let (hx, hy) = g.attacked_hoop(side);
        let (cx, cy) = cell(hx, hy);
        grid[cy][cx] = '|';
    }
    let b = g.ball();
    let (bx, by) = cell(b.x, b.y);
    grid[by][bx] = if b.z > 2 * ntba::UNITS_PER_METER {
        'O'
    } else {
        'o'
    };
    for p in g.players() {
        let (cx, cy) = cell(p.x, p.y);
        grid[cy][cx] = match (p.side, p.controlled) {
            (0, true) => 'H',
            (0, false) => 'h',
            (_, true) => 'A',
            (_, false) => 'a',
        };
    }
    let c = g.clocks();
    let (m, s) = c.game_clock_min_sec();
    let score = g.score();
    let shot = c
        .shot_clock_seconds()
        .map_or("--".to_string(), |s| format!("{s:>2}"));
    // Which way each team attacks (teams change ends at half time).
    let arrow = |side: u8| if g.attacks_right(side) { ">>" } else { "<<" };
    let mut out = format!(
        "  Home {} {:>3} - {:<3} {} Away   period {}  {m}:{s:02}  shot {shot}\n",
        arrow(0),
        score[0],
        score[1],
        arrow(1),
        u16::from(c.period) + 1
    );
    out.push_str(&format!("  +{}+\n", "-".repeat(W)));
    for row in &grid {
        out.push_str("  |");
        out.extend(row.iter());
        out.push_str("|\n");
    }
    out.push_str(&format!("  +{}+", "-".repeat(W)));
    out
}

/// Prints both peers' final tick, hash and score, whether each one's input
/// log replays offline, and in rollback mode the prediction counters.
pub fn print_report<G: NtbaGame>(
    out: &mut dyn Write,
    r: &MatchReport<G>,
    finals: &[Option<[u16; 2]>; 2],
) -> std::io::Result<()> {
    writeln!(
        out,
        "\nafter {:.1} s of virtual time:",
        r.stopped.0 as f64 / 1000.0
    )?;
    for p in r.peers() {
        let (tick, hash) = match (p.target_tick, p.hash_at_target) {
            (Some(t), Some(h)) => (t.to_string(), format!("{h:#018x}")),
            _ => ("-".into(), "-".into()),
        };
        let score =
            finals[usize::from(p.side)].map_or("-".into(), |s| format!("{}-{}", s[0], s[1]));
        writeln!(
            out,
            "  {} (side {}): final tick {tick}, hash {hash}, score {score} \
             ({} ticks simulated, {} stalled frames, outcome {:?})",
            name(p.side),
            p.side,
            p.ticks,
            p.stats.stalled_frames,
            p.outcome
        )?;
        let bytes = p.log.to_bytes().map_or(0, |b| b.len());
        match p.log.replay::<G>() {
            Ok(h) => writeln!(
                out,
                "         its input log ({bytes} bytes, {} ticks) replays offline to its last state, hash {h:#018x}",
                p.log.ticks()
            )?,
            Err(e) => writeln!(out, "         its input log does NOT replay: {e}")?,
        }
        if p.window.unwrap_or(0) > 0 {
            writeln!(out, "         {}", rollback_line(p))?;
        }
    }
    if r.in_sync() {
        writeln!(
            out,
            "in sync: both peers saw the match end on the same tick with the same hash"
        )?;
    } else {
        writeln!(out, "NOT in sync")?;
    }
    Ok(())
}

/// One line of prediction counters: the window and delay in force,
/// predicted ticks, rollbacks, re-simulated ticks (and the longest
/// re-simulation) and frames skipped by time synchronisation.
#[must_use]
pub fn rollback_line<G: DeterministicGame>(p: &crate::PeerReport<G>) -> String {
    let s = &p.stats;
    format!(
        "rollback: window {}, input delay {}: {} predicted ticks, {} rollbacks, \
         {} re-simulated ticks (longest {}), {} skipped frames",
        p.window.unwrap_or(0),
        p.input_delay.map_or("-".into(), |d| d.to_string()),
        s.predicted_ticks,
        s.rollbacks,
        s.resimulated_ticks,
        s.max_rollback,
        s.skipped_frames
    )
}
