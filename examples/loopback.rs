//! Example 1: two peers play one minute (3,600 ticks) of the `dots` game
//! over the perfect in-process loopback, then print both final hashes.
//!
//! ```sh
//! cargo run --release -p lockstep-examples --example loopback
//! ```

use lockstep_examples::{describe_outcome, play_loopback, MatchConfig};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [flag] = args.as_slice() {
        if flag == "-h" || flag == "--help" {
            println!("usage: loopback (no options; see the `simulated` example for a lossy link and rollback)");
            return;
        }
    }
    if !args.is_empty() {
        eprintln!("usage: loopback (no options; see the `simulated` example for a lossy link and rollback)");
        std::process::exit(2);
    }
    // The host picks the seed and the input delay; the guest adopts both
    // from the host's Hello. `play_loopback` drives both sessions frame by
    // frame (in virtual time: it does not wait 60 seconds).
    let cfg = MatchConfig::default();
    let report = play_loopback(&cfg);

    for peer in [&report.host, &report.guest] {
        let name = if peer.side == 0 { "host " } else { "guest" };
        match peer.hash_at_target {
            Some(hash) => println!(
                "{name}: tick {} hash {hash:#018x} ({} stalled frames; {})",
                cfg.ticks,
                peer.stats.stalled_frames,
                describe_outcome(peer.outcome.as_ref())
            ),
            None => println!(
                "{name}: stopped at tick {} ({})",
                peer.ticks,
                describe_outcome(peer.outcome.as_ref())
            ),
        }
    }
    if report.in_sync() {
        println!(
            "in sync: both peers reached tick {} with the same state",
            cfg.ticks
        );
    } else {
        println!("NOT in sync");
        std::process::exit(1);
    }
}
