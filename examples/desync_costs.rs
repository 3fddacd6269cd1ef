//! What naming a desync's parts costs NtBA, for `docs/benchmarks.md`: the
//! time to compute the part hashes against the whole-state hash (over
//! every tick of a CPU match), the size of the part-hash message, and the
//! size of a desync report at the end of that match.
//!
//! ```sh
//! cargo run --release -p lockstep-examples --example desync_costs
//! ```

use std::hint::black_box;
use std::time::Instant;

use lockstep::parts::PartHashes;
use lockstep::wire::Message;
use lockstep::{DesyncParts, DesyncReport, DeterministicGame, InputLog, Outcome};
use ntba::{Cpu, Ntba, Pad};

fn main() {
    // A whole CPU match, every state kept for the timings.
    let seed = 0x5eed;
    let mut game = Ntba::new(seed, 2);
    let (mut home, mut away) = (Cpu::new(1), Cpu::new(2));
    let mut states = Vec::new();
    let mut inputs: Vec<Pad> = Vec::new();
    while !game.is_over() && states.len() < 40_000 {
        let pads = [home.pad(&game, 0), away.pad(&game, 1)];
        inputs.extend(pads);
        game.step(&pads);
        states.push(game.clone());
    }
    let n = states.len() as u32;
    let time = |f: &dyn Fn(&Ntba)| {
        let start = Instant::now();
        for _ in 0..5 {
            for s in &states {
                f(s);
            }
        }
        start.elapsed().as_nanos() as f64 / (5.0 * f64::from(n))
    };
    let whole = time(&|s| {
        black_box(s.state_hash());
    });
    let parts = time(&|s| {
        black_box(s.state_parts());
    });
    println!("{n} ticks of a CPU match");
    println!("state_hash: {whole:.0} ns per state; state_parts: {parts:.0} ns per state");

    let last = states
        .last()
        .map_or_else(|| Ntba::new(seed, 2), Clone::clone);
    let local = last.state_parts();
    let msg = Message::<Pad>::Parts(PartHashes {
        tick: n - n % 60,
        hashes: local.iter().map(|p| p.hash).collect(),
    });
    // Cannot fail: part hashes always encode.
    let bytes = msg.encode().expect("encodes");
    println!(
        "Parts message: {} parts, {} bytes",
        local.len(),
        bytes.len()
    );

    // A report as if the last hashed tick had differed in every part.
    let tick = n - n % 60;
    let log = InputLog {
        build: Ntba::BUILD_ID,
        seed,
        players: 2,
        input_delay: 2,
        final_hash: last.state_hash(),
        start_tick: 0,
        start_state: Vec::new(),
        inputs,
    };
    let outcome = Outcome::Desync {
        tick,
        local: 1,
        remote: 2,
        parts: DesyncParts {
            remote: local.iter().map(|p| !p.hash).collect(),
            differing: local.iter().map(|p| p.name).collect(),
            local,
        },
        slots: vec![1],
    };
    let start = Instant::now();
    let report = DesyncReport::write::<Ntba>(&log, 0, &outcome, |g, name| g.describe_part(name))
        .expect("a report");
    let written = start.elapsed();
    // Cannot fail: pads always encode.
    let size = report.to_bytes().expect("encodes").len();
    println!(
        "desync report at tick {tick}: {size} bytes ({} of trace), written in {:.1} ms",
        8 * tick,
        written.as_secs_f64() * 1000.0
    );
}
