//! Session figures for the link scenarios (a)-(d) at 60 ticks per second:
//! packets and payload bytes sent per second per peer, stalled frames,
//! measured round trip, and the session's own CPU time per tick.
//!
//! Run: `cargo bench -p lockstep --bench session` (prints a table).
//!
//! Bytes are given for two pad models: a new random pad every frame (the
//! worst case) and a pad that changes on one frame in eight (a busy human).
//!
//! Two sessions of a trivial game play 3,600 ticks over `netsim` in virtual
//! time, run by the engine's test driver (`lockstep-testing`). Only the session calls are timed (`handle_datagram`,
//! `advance_frame`, `poll_transmit`, `poll_event`), never the simulated
//! network, and the game's `step` is a few integer operations. Each
//! scenario runs 7 times; the CPU figure is the best run.
//!
//! Every scenario runs in lock-step (prediction window 0, input delay 6) and
//! in rollback (window 8, input delay 2), where the rollback rows add the
//! predicted, re-simulated and skipped ticks. The session time includes the
//! game's re-simulation (steps and state copies); the cost of those alone is
//! measured separately (the trivial game's step and clone in a tight loop)
//! and subtracted in the last column.

use std::hint::black_box;
use std::time::{Duration, Instant};

use lockstep::{
    Channel, DeterministicGame, Millis, PeerId, Session, SessionConfig, SessionStats, Transport,
};
use lockstep_testing::{LinkConfig, Member, Net, SimLink};

#[derive(Clone)]
struct Trivial(u64);

impl DeterministicGame for Trivial {
    type Input = u8;
    const BUILD_ID: u64 = 0xbe4c;
    fn new(seed: u64, _: u8) -> Self {
        Trivial(seed)
    }
    fn step(&mut self, i: &[u8]) {
        self.0 = self.0.rotate_left(3) ^ u64::from(i[0]) ^ (u64::from(i[1]) << 8);
    }
    fn state_hash(&self) -> u64 {
        self.0
    }
}

/// How the simulated players press buttons.
#[derive(Clone, Copy, PartialEq)]
enum PadModel {
    /// A new random 5-button pad every frame: the worst case for bytes.
    Random,
    /// A new random pad on 1 frame in 8 on average, held otherwise (a busy
    /// human player).
    Held,
}

struct Side {
    session: Session<Trivial>,
    pad: u64,
    pad_now: u8,
    model: PadModel,
    busy: Duration,
    inbox: Vec<(Channel, Vec<u8>)>,
    outbox: Vec<(Channel, Vec<u8>)>,
}

impl Side {
    fn new(cfg: SessionConfig, pad: u64, model: PadModel) -> Self {
        Side {
            // Cannot fail: the configuration is valid (delay <= 60, non-zero intervals).
            session: Session::new(cfg).expect("valid config"),
            pad,
            pad_now: 0,
            model,
            busy: Duration::ZERO,
            inbox: Vec::new(),
            outbox: Vec::new(),
        }
    }

    /// The session's outgoing datagrams and events, drained (timed by the
    /// caller).
    fn drain(&mut self) {
        while let Some((_, ch, bytes)) = self.session.poll_transmit() {
            self.outbox.push((ch, bytes));
        }
        while let Some(e) = self.session.poll_event() {
            black_box(e);
        }
    }
}

/// The test driver runs the two sides: at every arrival and at every frame
/// each side is pumped, and at every frame it advances once.
impl Member for Side {
    /// Receives from the network (untimed), feeds the session (timed),
    /// then sends what it produced, this frame's included (untimed).
    fn pump(&mut self, now: Millis, peer: PeerId, end: &mut dyn Transport) {
        while let Some(d) = end.recv() {
            self.inbox.push(d);
        }
        let link = end.state();
        let start = Instant::now();
        for (ch, bytes) in self.inbox.drain(..) {
            self.session.handle_datagram(now, peer, ch, &bytes);
        }
        self.session.handle_link_state(now, peer, link);
        self.drain();
        self.busy += start.elapsed();
        for (ch, bytes) in self.outbox.drain(..) {
            let _ = end.send(ch, &bytes);
        }
    }

    /// Advances the session (timed).
    fn frame(&mut self, now: Millis) {
        let (pad, pad_now, model) = (&mut self.pad, &mut self.pad_now, self.model);
        let start = Instant::now();
        black_box(self.session.advance_frame(now, || {
            *pad = pad.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            if model == PadModel::Random || (*pad >> 32) % 8 == 0 {
                *pad_now = (*pad >> 59) as u8; // a 5-button pad
            }
            *pad_now
        }));
        self.drain();
        self.busy += start.elapsed();
    }
}

struct Row {
    name: &'static str,
    delay: u8,
    window: u8,
    interval: u8,
    hold: u8,
    frames: u64,
    ticks: u32,
    stats: [SessionStats; 2],
    /// Payload bytes per second per peer with held pads.
    held_bytes_per_sec: f64,
    /// Packets per second per peer with held pads.
    held_packets_per_sec: f64,
    /// Both sides' counters with held pads.
    held_stats: [SessionStats; 2],
    busy_us_per_tick: f64,
}

fn run(
    name: &'static str,
    link: LinkConfig,
    (delay, window, interval, hold): Setup,
    ticks: u32,
    model: PadModel,
) -> Row {
    let mut net = Net::new();
    net.join(0, 1, SimLink::new(link, 2024));
    let host = SessionConfig::host(7, delay)
        .prediction_window(window)
        .send_interval_frames(interval)
        .max_hold_frames(hold);
    let guest = SessionConfig::guest()
        .send_interval_frames(interval)
        .max_hold_frames(hold);
    let mut sides = [Side::new(host, 1, model), Side::new(guest, 2, model)];
    while sides.iter().any(|s| s.session.tick() < ticks) && net.frame < u64::from(ticks) * 10 {
        let [h, g] = &mut sides;
        net.step_frame(&mut [h, g]);
        assert!(
            sides.iter().all(|s| s.session.outcome().is_none()),
            "{name}: ended early"
        );
    }
    let total_ticks = u64::from(sides[0].session.tick()) + u64::from(sides[1].session.tick());
    let busy = sides[0].busy + sides[1].busy;
    Row {
        name,
        delay,
        window,
        interval,
        hold,
        frames: net.frame,
        ticks,
        stats: [sides[0].session.stats(), sides[1].session.stats()],
        held_bytes_per_sec: 0.0,
        held_packets_per_sec: 0.0,
        held_stats: [SessionStats::default(); 2],
        busy_us_per_tick: busy.as_secs_f64() * 1e6 / total_ticks as f64,
    }
}

/// Runs a scenario `REPEAT` times: the traffic is identical every time
/// (seeded), the CPU time is the best of the runs (the machine is shared).
const REPEAT: usize = 7;

/// Input delay, prediction window, send interval, most frames held back.
type Setup = (u8, u8, u8, u8);

fn best(name: &'static str, link: LinkConfig, delay: Setup, ticks: u32) -> Row {
    let mut row = run(name, link, delay, ticks, PadModel::Random);
    for _ in 1..REPEAT {
        let again = run(name, link, delay, ticks, PadModel::Random);
        assert_eq!(again.stats, row.stats, "runs are deterministic");
        row.busy_us_per_tick = row.busy_us_per_tick.min(again.busy_us_per_tick);
    }
    let held = run(name, link, delay, ticks, PadModel::Held);
    let bytes = |s: &SessionStats| (s.reliable_bytes + s.unreliable_bytes) as f64;
    let secs = held.frames as f64 / 60.0;
    row.held_bytes_per_sec = (bytes(&held.stats[0]) + bytes(&held.stats[1])) / 2.0 / secs;
    let packets = |s: &SessionStats| (s.reliable_packets + s.unreliable_packets) as f64;
    row.held_packets_per_sec = (packets(&held.stats[0]) + packets(&held.stats[1])) / 2.0 / secs;
    row.held_stats = held.stats;
    row
}

/// Nanoseconds per game step and per state copy of the trivial game, in a
/// tight loop (best of 7 runs of a million each).
fn game_costs() -> (f64, f64) {
    let n = 1_000_000u32;
    let (mut step, mut clone) = (f64::MAX, f64::MAX);
    for _ in 0..REPEAT {
        let mut g = Trivial::new(1, 2);
        let t0 = Instant::now();
        for i in 0..n {
            g.step(black_box(&[i as u8, (i >> 8) as u8]));
        }
        black_box(&g);
        step = step.min(t0.elapsed().as_secs_f64() * 1e9 / f64::from(n));
        let t0 = Instant::now();
        for _ in 0..n {
            black_box(black_box(&g).clone());
        }
        clone = clone.min(t0.elapsed().as_secs_f64() * 1e9 / f64::from(n));
    }
    (step, clone)
}

fn main() {
    let ticks = 3600;
    let ms = Millis;
    let (step_ns, clone_ns) = game_costs();
    let hold = lockstep::session::DEFAULT_MAX_HOLD_FRAMES;
    let lockstep = (6, 0, 1, hold);
    let rollback = (2, 8, 1, hold);
    let link_b = LinkConfig {
        latency: ms(50),
        jitter: ms(10),
        ..LinkConfig::default()
    };
    let link_c = LinkConfig {
        loss_percent: 5,
        ..link_b
    };
    let link_d = LinkConfig {
        latency: ms(100),
        jitter: ms(20),
        loss_percent: 25,
        ..LinkConfig::default()
    };
    let rollback_rows = [
        best("(a) no latency", LinkConfig::default(), rollback, ticks),
        best("(b) 50 ms ±10", link_b, rollback, ticks),
        best("(c) 50 ms ±10, 5% loss", link_c, rollback, ticks),
        best("(d) 100 ms ±20, 25% loss", link_d, rollback, ticks),
        best("(d) same, delay 4", link_d, (4, 8, 1, hold), ticks),
        best("(b), never held", link_b, (2, 8, 1, 0), ticks),
        best("(c), never held", link_c, (2, 8, 1, 0), ticks),
        best("(d), never held", link_d, (2, 8, 1, 0), ticks),
        best("(d), delay 4, never held", link_d, (4, 8, 1, 0), ticks),
        best("(b), every 2nd frame", link_b, (2, 8, 2, hold), ticks),
        best("(d), every 2nd frame", link_d, (2, 8, 2, hold), ticks),
        best(
            "(d), delay 4, every 2nd frame",
            link_d,
            (4, 8, 2, hold),
            ticks,
        ),
    ];
    let rows = [
        best("(a) no latency", LinkConfig::default(), lockstep, ticks),
        best(
            "(b) 50 ms ±10",
            LinkConfig {
                latency: ms(50),
                jitter: ms(10),
                ..LinkConfig::default()
            },
            lockstep,
            ticks,
        ),
        best(
            "(c) 50 ms ±10, 5% loss",
            LinkConfig {
                latency: ms(50),
                jitter: ms(10),
                loss_percent: 5,
                ..LinkConfig::default()
            },
            lockstep,
            ticks,
        ),
        best(
            "(d) 100 ms ±20, 25% loss",
            LinkConfig {
                latency: ms(100),
                jitter: ms(20),
                loss_percent: 25,
                ..LinkConfig::default()
            },
            lockstep,
            ticks,
        ),
        best(
            "(d) same, delay 9",
            LinkConfig {
                latency: ms(100),
                jitter: ms(20),
                loss_percent: 25,
                ..LinkConfig::default()
            },
            (9, 0, 1, hold),
            ticks,
        ),
    ];
    println!(
        "| scenario | delay | ticks | frames | stalled frames (host/guest) | packets/s/peer | payload B/s/peer, random pads | payload B/s/peer, held pads | last RTT ms | session µs/tick |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for r in &rows {
        let secs = r.frames as f64 / 60.0;
        let per_peer =
            |f: fn(&SessionStats) -> u64| (f(&r.stats[0]) + f(&r.stats[1])) as f64 / 2.0 / secs;
        let packets = per_peer(|s| s.reliable_packets + s.unreliable_packets);
        let bytes = per_peer(|s| s.reliable_bytes + s.unreliable_bytes);
        println!(
            "| {} | {} | {} | {} | {}/{} | {:.1} | {:.0} | {:.0} | {} | {:.2} |",
            r.name,
            r.delay,
            r.ticks,
            r.frames,
            r.stats[0].stalled_frames,
            r.stats[1].stalled_frames,
            packets,
            bytes,
            r.held_bytes_per_sec,
            r.stats[0].last_rtt.map_or(0, |m| m.0),
            r.busy_us_per_tick
        );
    }
    println!();
    println!(
        "Rollback (window 8). Game costs measured alone: step {step_ns:.1} ns, state copy {clone_ns:.1} ns."
    );
    println!();
    println!(
        "| scenario | delay | window | send every | hold up to | frames | stalled (host/guest) | skipped (host/guest) | predicted ticks/peer | rollbacks/peer | re-simulated ticks/peer | longest rollback | packets/s/peer | payload B/s/peer, random pads | held pads: packets/s/peer | held pads: payload B/s/peer | held pads: stalled (host/guest) | held pads: skipped (host/guest) | held pads: re-simulated ticks/peer | session µs/tick, all | of which game steps + copies | session µs/tick without them |"
    );
    println!(
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    );
    for r in &rollback_rows {
        let secs = r.frames as f64 / 60.0;
        let per_peer = |f: fn(&SessionStats) -> u64| (f(&r.stats[0]) + f(&r.stats[1])) as f64 / 2.0;
        let packets = per_peer(|s| s.reliable_packets + s.unreliable_packets) / secs;
        let bytes = per_peer(|s| s.reliable_bytes + s.unreliable_bytes) / secs;
        let resim = per_peer(|s| s.resimulated_ticks);
        let copies = per_peer(|s| s.predicted_ticks + s.resimulated_ticks);
        // Per tick: one step, plus the re-simulated steps, plus the copies
        // (one per predicted tick; a re-simulated tick may save one too,
        // counted generously as one each).
        let game_us =
            ((f64::from(r.ticks) + resim) * step_ns + copies * clone_ns) / f64::from(r.ticks) / 1e3;
        println!(
            "| {} | {} | {} | {} | {} | {} | {}/{} | {}/{} | {:.0} | {:.0} | {:.0} | {} | {:.1} | {:.0} | {:.1} | {:.0} | {}/{} | {}/{} | {:.0} | {:.2} | {:.2} | {:.2} |",
            r.name,
            r.delay,
            r.window,
            r.interval,
            r.hold,
            r.frames,
            r.stats[0].stalled_frames,
            r.stats[1].stalled_frames,
            r.stats[0].skipped_frames,
            r.stats[1].skipped_frames,
            per_peer(|s| s.predicted_ticks),
            per_peer(|s| s.rollbacks),
            resim,
            r.stats[0].max_rollback.max(r.stats[1].max_rollback),
            packets,
            bytes,
            r.held_packets_per_sec,
            r.held_bytes_per_sec,
            r.held_stats[0].stalled_frames,
            r.held_stats[1].stalled_frames,
            r.held_stats[0].skipped_frames,
            r.held_stats[1].skipped_frames,
            (r.held_stats[0].resimulated_ticks + r.held_stats[1].resimulated_ticks) as f64 / 2.0,
            r.busy_us_per_tick,
            game_us,
            (r.busy_us_per_tick - game_us).max(0.0),
        );
    }
}
