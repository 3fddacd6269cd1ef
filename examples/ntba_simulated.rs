//! NtBA, CPU against CPU, between two lock-step sessions over the simulated
//! network (seeded latency, jitter and loss, in virtual time). Prints the
//! score at each half and both peers' final tick and hash (they must agree).
//!
//! ```sh
//! cargo run --release -p lockstep-examples --example ntba_simulated -- --latency 60 --jitter 15 --loss 20
//! ```
//! Options: `--seed`, `--net-seed`, `--delay` (ticks), `--latency` and
//! `--jitter` (ms, one way), `--loss` (percent), `--watch N` (draw the court
//! every N seconds of play).

#[path = "ntba/driver.rs"]
mod driver;

use lockstep::Millis;
use lockstep_examples::SimLink;
use netsim::LinkConfig;

fn main() {
    let names = [
        "--seed",
        "--net-seed",
        "--delay",
        "--latency",
        "--jitter",
        "--loss",
        "--watch",
    ];
    let flags = match driver::parse_flags(&names) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("ntba_simulated: {e}");
            std::process::exit(2);
        }
    };
    let seed = flags[0].unwrap_or(1);
    let net_seed = flags[1].unwrap_or(99);
    let delay = flags[2]
        .unwrap_or(6)
        .min(lockstep::wire::MAX_INPUT_DELAY.into()) as u8;
    let link = LinkConfig {
        latency: Millis(flags[3].unwrap_or(50).min(5_000)),
        jitter: Millis(flags[4].unwrap_or(10).min(5_000)),
        loss_percent: flags[5].unwrap_or(10).min(90) as u8,
        ..LinkConfig::default()
    };
    let watch = flags[6].unwrap_or(0).min(600) as u32;
    println!(
        "NtBA over a simulated link: {} ms one way, jitter {} ms, {}% loss (network seed {net_seed}); \
         CPU (Home, host) against CPU (Away, guest), seed {seed}, input delay {delay} ticks",
        link.latency.0, link.jitter.0, link.loss_percent
    );
    let report = driver::play(&mut SimLink::new(link, net_seed), seed, delay, watch);
    driver::print_report(&report);
    if !report.in_sync() {
        std::process::exit(1);
    }
}
