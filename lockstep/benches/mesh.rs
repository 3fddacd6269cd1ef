//! Matches of 2, 4 and 8 players over a full mesh of simulated links
//! (every pair of players joined by its own `netsim` link with the same
//! conditions), in lock-step and in rollback: traffic per peer, stalled
//! frames, re-simulated ticks and the session's CPU time per tick.
//!
//! Run with `cargo bench -p lockstep --bench mesh`. Each player plays a
//! trivial game for 3,600 ticks in virtual time on the engine's test
//! driver (`lockstep-testing`), with a pad that changes on one frame in
//! eight (a busy human player). Only the session calls are timed
//! (`handle_datagram`, `handle_link_state`, `advance_frame`,
//! `poll_transmit_to`, `poll_event`).
//!
//! Columns: "per peer" is what one player sends to one other player (one
//! link, one direction) per second of play; a player's uplink is that
//! times `players - 1`. Stalled frames and re-simulated ticks are the mean
//! per player over the match.

use std::hint::black_box;
use std::time::{Duration, Instant};

use lockstep::{
    DeterministicGame, Fnv1a, Millis, PeerId, Session, SessionConfig, SessionStats, Transport,
};
use lockstep_testing::{LinkConfig, Member, Net, SimLink};

#[derive(Clone)]
struct Mix(u64);

impl DeterministicGame for Mix {
    type Input = u8;
    const BUILD_ID: u64 = 0x3e54_0001;
    fn new(seed: u64, _players: u8) -> Self {
        Mix(seed)
    }
    fn step(&mut self, inputs: &[u8]) {
        for (k, &i) in (1u64..).zip(inputs) {
            self.0 = self.0.rotate_left(7) ^ (u64::from(i) + k).wrapping_mul(0x9e37_79b9);
        }
    }
    fn state_hash(&self) -> u64 {
        let mut h = Fnv1a::new();
        h.write_u64(self.0);
        h.finish()
    }
}

/// One player: its session, its pad, and the time spent in session calls.
struct Player {
    session: Session<Mix>,
    pad: u64,
    pad_now: u8,
    busy: Duration,
}

impl Member for Player {
    fn pump(&mut self, now: Millis, peer: PeerId, end: &mut dyn Transport) {
        let mut inbox = Vec::new();
        while let Some(d) = end.recv() {
            inbox.push(d);
        }
        let state = end.state();
        let mut outbox = Vec::new();
        let start = Instant::now();
        for (ch, bytes) in inbox {
            self.session.handle_datagram(now, peer, ch, &bytes);
        }
        self.session.handle_link_state(now, peer, state);
        while let Some(d) = self.session.poll_transmit_to(peer) {
            outbox.push(d);
        }
        while let Some(e) = self.session.poll_event() {
            black_box(e);
        }
        self.busy += start.elapsed();
        for (ch, bytes) in outbox {
            let _ = end.send(ch, &bytes);
        }
    }

    fn frame(&mut self, now: Millis) {
        let (pad, pad_now) = (&mut self.pad, &mut self.pad_now);
        let start = Instant::now();
        black_box(self.session.advance_frame(now, || {
            *pad = pad.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            if (*pad >> 32) % 8 == 0 {
                *pad_now = (*pad >> 59) as u8;
            }
            *pad_now
        }));
        self.busy += start.elapsed();
    }
}

struct Row {
    players: u8,
    link: &'static str,
    mode: &'static str,
    delay: u8,
    frames: u64,
    stats: Vec<SessionStats>,
    busy_us_per_tick: f64,
}

const TICKS: u32 = 3600;

fn run(players: u8, link_name: &'static str, link: LinkConfig, window: u8, delay: u8) -> Row {
    let mut net = Net::new();
    let mut k = 0;
    for a in 0..usize::from(players) {
        for b in a + 1..usize::from(players) {
            k += 1;
            net.join(a, b, SimLink::new(link, 2024 + k));
        }
    }
    let mut all: Vec<Player> = (0..players)
        .map(|i| {
            let cfg = if i == 0 {
                SessionConfig::host(7, delay).players(players)
            } else {
                SessionConfig::guest()
            };
            Player {
                // Cannot fail: the configurations are valid.
                session: Session::new(cfg.prediction_window(window)).expect("valid config"),
                pad: u64::from(i) + 1,
                pad_now: 0,
                busy: Duration::ZERO,
            }
        })
        .collect();
    while all.iter().any(|p| p.session.tick() < TICKS) && net.frame < u64::from(TICKS) * 10 {
        let mut members: Vec<&mut dyn Member> =
            all.iter_mut().map(|p| p as &mut dyn Member).collect();
        net.step_frame(&mut members);
        assert!(
            all.iter().all(|p| p.session.outcome().is_none()),
            "{players} players over {link_name}: ended early"
        );
    }
    let ticks: u64 = all.iter().map(|p| u64::from(p.session.tick())).sum();
    let busy: Duration = all.iter().map(|p| p.busy).sum();
    Row {
        players,
        link: link_name,
        mode: if window == 0 { "lock-step" } else { "rollback" },
        delay,
        frames: net.frame,
        stats: all.iter().map(|p| p.session.stats()).collect(),
        busy_us_per_tick: busy.as_secs_f64() * 1e6 / ticks as f64,
    }
}

fn main() {
    let b = LinkConfig {
        latency: Millis(50),
        jitter: Millis(10),
        ..LinkConfig::default()
    };
    let d = LinkConfig {
        latency: Millis(100),
        jitter: Millis(20),
        loss_percent: 25,
        ..LinkConfig::default()
    };
    println!("| players | link | mode | delay | frames | packets/s per peer | payload B/s per peer | with 48 B/packet, B/s per peer | stalled frames/player | re-simulated ticks/player | session µs/tick/player |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    for players in [2u8, 4, 8] {
        for (name, link) in [("(b)", b), ("(d)", d)] {
            for (window, delay) in [(0u8, 6u8), (8, 2)] {
                // The CPU time is the best of three runs (the machine is
                // shared); the traffic is the same every time (seeded).
                let rows: Vec<Row> = (0..3)
                    .map(|_| run(players, name, link, window, delay))
                    .collect();
                let best = rows
                    .iter()
                    .map(|r| r.busy_us_per_tick)
                    .fold(f64::INFINITY, f64::min);
                let r = &rows[0];
                let n = f64::from(r.players);
                let secs = r.frames as f64 / 60.0;
                let links = n * (n - 1.0);
                let packets: u64 = r
                    .stats
                    .iter()
                    .map(|s| s.reliable_packets + s.unreliable_packets)
                    .sum();
                let bytes: u64 = r
                    .stats
                    .iter()
                    .map(|s| s.reliable_bytes + s.unreliable_bytes)
                    .sum();
                let pps = packets as f64 / links / secs;
                let bps = bytes as f64 / links / secs;
                let stalled = r.stats.iter().map(|s| s.stalled_frames).sum::<u64>() as f64 / n;
                let resim = r.stats.iter().map(|s| s.resimulated_ticks).sum::<u64>() as f64 / n;
                println!(
                    "| {} | {} | {} | {} | {} | {:.1} | {:.0} | {:.0} | {:.0} | {:.0} | {:.2} |",
                    r.players,
                    r.link,
                    r.mode,
                    r.delay,
                    r.frames,
                    pps,
                    bps,
                    bps + 48.0 * pps,
                    stalled,
                    resim,
                    best
                );
            }
        }
    }
}
