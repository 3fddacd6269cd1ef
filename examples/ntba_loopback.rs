//! NtBA, CPU against CPU, between two lock-step sessions on the perfect
//! in-process loopback. Prints the score at each half and both peers' final
//! tick and hash (they must agree).
//!
//! ```sh
//! cargo run --release -p lockstep-examples --example ntba_loopback -- --seed 7 --watch 20
//! ```
//! `--watch N` draws the court in the terminal every N seconds of play.

#[path = "ntba/driver.rs"]
mod driver;

use lockstep_examples::LoopbackLink;

fn main() {
    let flags = match driver::parse_flags(&["--seed", "--delay", "--watch"]) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("ntba_loopback: {e}");
            std::process::exit(2);
        }
    };
    let seed = flags[0].unwrap_or(1);
    let delay = flags[1]
        .unwrap_or(2)
        .min(lockstep::wire::MAX_INPUT_DELAY.into()) as u8;
    let watch = flags[2].unwrap_or(0).min(600) as u32;
    println!("NtBA over the loopback: CPU (Home, host) against CPU (Away, guest), seed {seed}");
    let report = driver::play(&mut LoopbackLink::new(), seed, delay, watch);
    driver::print_report(&report);
    if !report.in_sync() {
        std::process::exit(1);
    }
}
