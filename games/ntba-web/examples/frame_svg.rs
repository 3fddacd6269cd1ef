//! Draws NtBA frames to SVG files without a browser: a CPU-against-CPU match
//! is played from a seed, and the frames at the given ticks are written.
//!
//! `cargo run -p ntba-web --example frame_svg -- OUT_DIR SEED TICK...`
//! (defaults: `target/ntba-frames 7 600`). A tick past the end of the match
//! draws the end screen.

use lockstep::DeterministicGame;
use ntba::{Cpu, Level, Ntba};
use ntba_web::{record::Recorder, Mode, NtbaFrontEnd};
use web_shell::front_end::FrontEnd;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let dir = args.first().map_or("target/ntba-frames", String::as_str);
    let seed: u64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(7);
    let mut ticks: Vec<u32> = args.iter().skip(2).filter_map(|s| s.parse().ok()).collect();
    if ticks.is_empty() {
        ticks.push(600);
    }
    ticks.sort_unstable();
    if let Err(e) = std::fs::create_dir_all(dir) {
        eprintln!("cannot create {dir}: {e}");
        std::process::exit(1);
    }
    let mut front = NtbaFrontEnd::new();
    front.set_mode(Mode::VsCpu(Level::Normal));
    let mut game = Ntba::new(seed, 2);
    let mut home = Cpu::with_level(seed ^ 1, Level::Hard);
    let mut away = Cpu::with_level(seed ^ 2, Level::Hard);
    let mut canvas = Recorder::new(640.0, 360.0);
    for &t in &ticks {
        while game.tick() < t && !game.is_over() {
            let pads = [home.pad(&game, 0), away.pad(&game, 1)];
            game.step(&pads);
            canvas.ops.clear();
            front.draw(&game, &mut canvas);
        }
        let path = format!("{dir}/frame-{seed}-{t}.svg");
        if let Err(e) = std::fs::write(&path, canvas.to_svg()) {
            eprintln!("cannot write {path}: {e}");
            std::process::exit(1);
        }
        println!("{path} (tick {}, score {:?})", game.tick(), game.score());
    }
}
