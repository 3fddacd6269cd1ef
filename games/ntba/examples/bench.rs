//! Prints NtBA simulation speed: ticks per second and the cost of saving
//! (clone) and restoring a state.
//!
//! `cargo run --release -p ntba --example bench`
use lockstep::DeterministicGame;
use ntba::{
    golden_hash, match_hash, script_hash, script_pad, script_run, Cpu, Ntba, Pad, GOLDEN_TICKS,
};
use std::hint::black_box;
use std::time::Instant;

fn main() {
    // 1. Record the pads of a full CPU-against-CPU match, so the timed loop
    //    below measures the simulation alone (not the CPU players).
    let mut g = Ntba::new(2026, 2);
    let (mut a, mut b) = (Cpu::new(1), Cpu::new(2));
    let mut pads: Vec<[Pad; 2]> = Vec::new();
    while !g.is_over() {
        let p = [a.pad(&g, 0), b.pad(&g, 1)];
        g.step(&p);
        pads.push(p);
    }
    let final_hash = g.state_hash();
    println!(
        "recorded match: {} ticks, score {:?}",
        pads.len(),
        g.score()
    );

    // 2. Replay it several times; report the best run.
    let mut best = f64::MAX;
    for _ in 0..5 {
        let t = Instant::now();
        let mut r = Ntba::new(2026, 2);
        for p in &pads {
            r.step(black_box(p));
        }
        let dt = t.elapsed().as_secs_f64();
        assert_eq!(r.state_hash(), final_hash, "replay diverged");
        best = best.min(dt);
    }
    println!(
        "match replay: {:.1} ms for {} ticks = {:.0} ticks/s",
        best * 1e3,
        pads.len(),
        pads.len() as f64 / best
    );

    // 3. The scripted pads (the loop the wasm benchmark times too): a fresh
    //    match every 3,600 ticks so every tick is live play.
    let ticks = 200_000u32;
    let mut best = f64::MAX;
    for _ in 0..5 {
        let t = Instant::now();
        black_box(script_run(black_box(2026), black_box(ticks)));
        best = best.min(t.elapsed().as_secs_f64());
    }
    println!(
        "script run: {:.1} ms for {} ticks = {:.0} ticks/s (same loop as the wasm benchmark)",
        best * 1e3,
        ticks,
        f64::from(ticks) / best
    );
    // The golden replays (what a build-id check costs): best of 5 each.
    let best_ms = |f: &dyn Fn() -> u64| {
        (0..5)
            .map(|_| {
                let t = Instant::now();
                black_box(f());
                t.elapsed().as_secs_f64() * 1e3
            })
            .fold(f64::INFINITY, f64::min)
    };
    println!(
        "golden script replay (3,600 ticks, every tick hashed): {:.2} ms",
        best_ms(&|| script_hash(black_box(GOLDEN_TICKS)))
    );
    println!(
        "golden matches replay (CPU match + idle match, with the CPU players): {:.2} ms",
        best_ms(&match_hash)
    );
    println!("golden hash (all of it): {:.2} ms", best_ms(&golden_hash));

    // 4. Save (clone) + restore (assign back) of a mid-match state.
    let mut live = Ntba::new(9, 2);
    for t in 0..1_000 {
        live.step(&[script_pad(t, 0), script_pad(t, 1)]);
    }
    let n = 1_000_000u32;
    let mut best = f64::MAX;
    for _ in 0..5 {
        let t = Instant::now();
        for _ in 0..n {
            let saved = black_box(&live).clone();
            live = black_box(saved);
        }
        best = best.min(t.elapsed().as_secs_f64());
    }
    println!(
        "save+restore: {:.1} ns per pair (state is {} bytes)",
        best * 1e9 / f64::from(n),
        std::mem::size_of::<Ntba>()
    );
    let t = Instant::now();
    let mut h = 0u64;
    for _ in 0..100_000 {
        h ^= black_box(&live).state_hash();
    }
    black_box(h);
    println!(
        "state_hash: {:.0} ns per call",
        t.elapsed().as_secs_f64() * 1e9 / 100_000.0
    );
}
