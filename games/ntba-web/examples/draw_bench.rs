//! How much drawing a frame costs natively: a whole CPU-against-CPU match is
//! drawn every tick into the recording painter, and the time per frame and
//! the number of painter calls per frame (each one a canvas call in the
//! browser) are printed. Best of 5 runs.
//!
//! `cargo run --release -p ntba-web --example draw_bench`

use std::time::Instant;

use lockstep::DeterministicGame;
use ntba::{Cpu, Level, Ntba};
use ntba_web::{record::Recorder, Mode, NtbaFrontEnd};
use web_shell::front_end::FrontEnd;

fn main() {
    let mut best = f64::MAX;
    let mut ops = (0usize, 0usize, 0u32);
    for run in 0..5 {
        let mut front = NtbaFrontEnd::new();
        front.set_mode(Mode::VsCpu(Level::Normal));
        let mut game = Ntba::new(42, 2);
        let mut cpus = [
            Cpu::with_level(1, Level::Hard),
            Cpu::with_level(2, Level::Hard),
        ];
        let mut canvas = Recorder::new(640.0, 360.0);
        let (mut total, mut most, mut frames) = (0usize, 0usize, 0u32);
        let mut drawing = 0.0;
        while !game.is_over() {
            let pads = [cpus[0].pad(&game, 0), cpus[1].pad(&game, 1)];
            game.step(&pads);
            canvas.ops.clear();
            let t = Instant::now();
            front.draw(&game, &mut canvas);
            drawing += t.elapsed().as_secs_f64();
            total += canvas.ops.len();
            most = most.max(canvas.ops.len());
            frames += 1;
        }
        let per = drawing / f64::from(frames) * 1e6;
        println!("run {run}: {frames} frames, {per:.1} µs per frame");
        best = best.min(per);
        ops = (total / frames as usize, most, frames);
    }
    println!(
        "draw into the recorder: best {best:.1} µs per frame; painter calls per frame: {} on average, {} at most ({} frames)",
        ops.0, ops.1, ops.2
    );
}
