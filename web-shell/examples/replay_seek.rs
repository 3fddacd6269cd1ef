//! How long a replay takes to open and to seek, on a five-minute NtBA
//! match (18,000 ticks at 60 a second) of two CPU players.
//!
//! ```sh
//! cargo run --release -p web-shell --example replay_seek
//! ```
//!
//! Prints the time to open the log (the one pass that checks its hash and
//! saves a copy of the game every 5 s), the time to seek from the start to
//! the end, the slowest seek there can be (to the tick before a saved
//! copy), and, for comparison, simulating the whole match from the start
//! as a seek without saved copies would.

use lockstep::{DeterministicGame, InputLog};
use ntba::{Cpu, Level, Ntba, Pad};
use std::time::Instant;
use web_shell::replay::{Playback, SAVE_EVERY};

const TICKS: u32 = 5 * 60 * 60;
const RUNS: usize = 50;

fn match_log() -> Vec<u8> {
    let seed = 0x5EED_0015;
    let mut g = Ntba::new(seed, 2);
    let mut cpus = [
        Cpu::with_level(seed, Level::Normal),
        Cpu::with_level(seed ^ 1, Level::Hard),
    ];
    let mut inputs: Vec<Pad> = Vec::with_capacity(2 * TICKS as usize);
    for _ in 0..TICKS {
        let pads = [cpus[0].pad(&g, 0), cpus[1].pad(&g, 1)];
        g.step(&pads);
        inputs.extend(pads);
    }
    let [home, away] = g.score();
    println!("match: {TICKS} ticks, HOME {home} - {away} AWAY");
    InputLog {
        build: Ntba::BUILD_ID,
        seed,
        players: 2,
        input_delay: 2,
        final_hash: g.state_hash(),
        start_tick: 0,
        start_state: Vec::new(),
        inputs,
    }
    .to_bytes()
    .expect("pads encode")
}

fn score(g: &Ntba) -> Option<String> {
    let [home, away] = g.score();
    Some(format!("HOME {home} - {away} AWAY"))
}

/// Median and worst of `RUNS` timings of `f`, in ms.
fn time(mut f: impl FnMut()) -> (f64, f64) {
    let mut ms: Vec<f64> = (0..RUNS)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    ms.sort_by(f64::total_cmp);
    (ms[RUNS / 2], ms[RUNS - 1])
}

fn main() {
    let bytes = match_log();
    println!("log: {} bytes", bytes.len());
    let mut p = None;
    let (open, open_max) = time(|| {
        p = Some(Playback::<Ntba>::open(&bytes, Ntba::BUILD_ID, score).expect("opens"));
    });
    let mut p = p.expect("opened");
    println!(
        "open (check and save every {SAVE_EVERY} ticks): median {open:.2} ms, max {open_max:.2} ms; {} score marks",
        p.marks().len()
    );
    let (end, end_max) = time(|| {
        p.seek(0);
        p.seek(TICKS);
    });
    assert_eq!(p.tick(), TICKS);
    println!("seek from the start to the end: median {end:.3} ms, max {end_max:.3} ms");
    let worst_target = TICKS - TICKS % SAVE_EVERY - 1;
    let (worst, worst_max) = time(|| {
        p.seek(0);
        p.seek(worst_target);
    });
    println!(
        "seek to tick {worst_target} ({} ticks past a saved copy): median {worst:.3} ms, max {worst_max:.3} ms",
        SAVE_EVERY - 1
    );
    let log = InputLog::<Pad>::from_bytes(&bytes).expect("decodes");
    let (all, all_max) = time(|| {
        let mut g = Ntba::new(log.seed, 2);
        for t in 0..log.ticks() {
            g.step(log.tick_inputs(t).expect("every tick"));
        }
        assert_eq!(g.state_hash(), log.final_hash);
    });
    println!("without saved copies (simulate all {TICKS} ticks): median {all:.2} ms, max {all_max:.2} ms");
}
