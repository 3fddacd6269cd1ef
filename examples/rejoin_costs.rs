//! What a dropped player costs an NtBA match, for `docs/benchmarks.md`:
//! two players over 50 ms ±10 links (virtual time); at minute 1, 5 and 10
//! the link between them is cut for 10 s and then restored. Printed for
//! each: the virtual time from the link returning to both players ticking
//! live again, the ticks re-simulated by the resume (rollback), and the
//! CPU time a replay of every confirmed input from tick 0 takes at that
//! point.
//!
//! Then the reload: in a second match per mode, at minute 1, 5 and 10 the
//! guest's session is destroyed with its link and a fresh one rejoins its
//! slot with its token. Printed: the virtual time from the fresh session's
//! first datagram to both players ticking live past where they were, the
//! catch-up's tick and size, and the longest frame's CPU time meanwhile
//! (the rejoiner's replay of the catch-up).
//!
//! ```sh
//! cargo run --release -p lockstep-examples --example rejoin_costs
//! ```

use std::time::{Duration, Instant};

use lockstep::{DeterministicGame, Event, InputLog, Millis, SessionConfig};
use lockstep_testing::{LinkConfig, Mesh, Mode};
use ntba::{Ntba, Pad};

/// NtBA with its pad as a plain byte, so the mesh's seeded pad sources can
/// play it.
#[derive(Clone)]
struct Court(Ntba);

impl DeterministicGame for Court {
    type Input = u8;
    const BUILD_ID: u64 = Ntba::BUILD_ID;

    fn new(seed: u64, players: u8) -> Self {
        Court(Ntba::new(seed, players))
    }

    fn step(&mut self, inputs: &[u8]) {
        // No allocation per tick: a match has at most 8 players.
        let pads: [Pad; 8] = std::array::from_fn(|i| Pad(inputs.get(i).copied().unwrap_or(0)));
        self.0.step(pads.get(..inputs.len()).unwrap_or(&pads));
    }

    fn state_hash(&self) -> u64 {
        self.0.state_hash()
    }
}

fn main() {
    let link = LinkConfig {
        latency: Millis(50),
        jitter: Millis(10),
        ..LinkConfig::default()
    };
    println!("| mode | cut at | back in play after the link returned | re-simulated by the resume | replay of every confirmed input (CPU) |");
    println!("| --- | --- | --- | --- | --- |");
    for mode in [Mode::LockStep, Mode::Rollback] {
        let delay = if mode == Mode::LockStep { 6 } else { 2 };
        let mut m = Mesh::<Court>::new(
            2,
            mode.cfg(SessionConfig::host(0x5eed, delay)),
            mode.cfg(SessionConfig::guest()),
            link,
            17,
        );
        for minute in [1u32, 5, 10] {
            let at = minute * 3600;
            assert!(
                m.run_to_confirmed(at, u64::from(at) * 2),
                "{}",
                m.progress()
            );
            m.sever(0, 1);
            m.run_frames(600);
            let stalled: Vec<u32> = m.players.iter().map(|p| p.tick()).collect();
            let resim: u64 = m.players.iter().map(|p| p.stats().resimulated_ticks).sum();
            m.restore(0, 1);
            let back = m.net.now();
            while m
                .players
                .iter()
                .zip(&stalled)
                .any(|(p, &t)| p.tick() <= t + 1)
            {
                assert!(
                    m.players.iter().all(|p| p.outcome().is_none()),
                    "{}",
                    m.progress()
                );
                m.step_frame();
            }
            let live = m.net.now().saturating_since(back);
            m.run_frames(60);
            let resim_after: u64 = m.players.iter().map(|p| p.stats().resimulated_ticks).sum();
            let log: InputLog<u8> = m.players[0].input_log();
            let start = Instant::now();
            let replayed = log.replay::<Court>();
            let cpu = start.elapsed();
            assert!(replayed.is_ok(), "{replayed:?}");
            println!(
                "| {mode:?} | minute {minute} (tick {}) | {} ms | {} ticks | {:.1} ms for {} ticks |",
                stalled[0],
                live.0,
                resim_after - resim,
                cpu.as_secs_f64() * 1000.0,
                log.inputs.len() / usize::from(log.players)
            );
        }
        assert!(m.players.iter().all(|p| p.outcome().is_none()));
    }
    reloads(link);
}

/// The guest's page reloads at minute 1, 5 and 10 of one match per mode.
fn reloads(link: LinkConfig) {
    println!();
    println!("| mode | reload at | back in play after the fresh session's first datagram | catch-up to tick | catch-up bytes (host to rejoiner) | longest frame meanwhile (CPU: the replay) |");
    println!("| --- | --- | --- | --- | --- | --- |");
    for mode in [Mode::LockStep, Mode::Rollback] {
        let delay = if mode == Mode::LockStep { 6 } else { 2 };
        let mut m = Mesh::<Court>::new(
            2,
            mode.cfg(SessionConfig::host(0x5eed, delay).rejoin_entropy(0x0123_4567_89ab_cdef)),
            mode.cfg(SessionConfig::guest()),
            link,
            19,
        );
        for minute in [1u32, 5, 10] {
            let at = minute * 3600;
            assert!(
                m.run_to_confirmed(at, m.net.frame + u64::from(at) * 2),
                "{}",
                m.progress()
            );
            let host_at = m.players[0].tick();
            let sent_before = m.players[0].stats().reliable_bytes;
            m.reload(1).expect("a guest's slot can be rejoined");
            let from = m.net.now();
            let mut longest = Duration::ZERO;
            let rejoined = |m: &Mesh<Court>| {
                m.players[1].seen.events.iter().find_map(|e| match e {
                    Event::Rejoined { tick } => Some(*tick),
                    _ => None,
                })
            };
            loop {
                if let Some(t) = rejoined(&m) {
                    if m.players[1].tick() > t + 1 && m.players[0].tick() > host_at + 1 {
                        break;
                    }
                }
                assert!(
                    m.players.iter().all(|p| p.outcome().is_none()),
                    "{}",
                    m.progress()
                );
                let start = Instant::now();
                m.step_frame();
                longest = longest.max(start.elapsed());
            }
            let back = m.net.now().saturating_since(from);
            let tick = rejoined(&m).unwrap_or(0);
            // The host's reliable bytes since the reload: the catch-up, and
            // a hash or two.
            let bytes = m.players[0].stats().reliable_bytes - sent_before;
            println!(
                "| {mode:?} | minute {minute} (tick {host_at}) | {} ms | {tick} | {bytes} B | {:.1} ms |",
                back.0,
                longest.as_secs_f64() * 1000.0
            );
        }
        assert!(m.players.iter().all(|p| p.outcome().is_none()));
    }
}
