//! Replays an NtBA input log, such as the one the browser page offers after
//! an online match ("Download the input log"), and checks that it reaches
//! the final state hash recorded in it.
//!
//! ```sh
//! cargo run --release -p lockstep-examples --example ntba_replay -- ntba-0123456789abcdef.log
//! # also require a hash and a tick count (as shown by the page), or print the hash after tick T
//! cargo run --release -p lockstep-examples --example ntba_replay -- match.log --expect 5be3... --ticks 796 --at 600
//! ```

use lockstep::{DeterministicGame, InputLog};
use ntba::{Ntba, Pad};

const USAGE: &str = "usage: ntba_replay FILE [--expect HASH] [--ticks N] [--at T]

Replays an NtBA input log (as downloaded from the page after an online
match) in a fresh game and checks that it reaches the final state hash
recorded in the log. --expect also requires that hash (hex), --ticks that
tick count; --at prints the state hash after tick T as well.";

fn fail(msg: &str) -> ! {
    eprintln!("{msg}");
    std::process::exit(1);
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.is_empty() || args.iter().any(|a| a == "-h" || a == "--help") {
        println!("{USAGE}");
        return;
    }
    let path = &args[0];
    let (mut expect, mut ticks, mut at) = (None, None, None);
    let mut rest = args[1..].iter();
    while let Some(flag) = rest.next() {
        let value = rest
            .next()
            .unwrap_or_else(|| fail(&format!("{flag} needs a value\n{USAGE}")));
        match flag.as_str() {
            "--expect" => {
                let hex = value.trim_start_matches("0x");
                expect = Some(
                    u64::from_str_radix(hex, 16)
                        .unwrap_or_else(|_| fail("--expect: not a hex hash")),
                );
            }
            "--ticks" => {
                ticks = Some(
                    value
                        .parse::<u32>()
                        .unwrap_or_else(|_| fail("--ticks: not a number")),
                )
            }
            "--at" => {
                at = Some(
                    value
                        .parse::<u32>()
                        .unwrap_or_else(|_| fail("--at: not a number")),
                )
            }
            _ => fail(&format!("unknown option {flag}\n{USAGE}")),
        }
    }
    let bytes = std::fs::read(path).unwrap_or_else(|e| fail(&format!("cannot read {path}: {e}")));
    // Strict decoding: wrong magic, other versions, truncation and trailing
    // bytes are errors.
    let log = InputLog::<Pad>::from_bytes(&bytes).unwrap_or_else(|e| fail(&format!("{path}: {e}")));
    if let Some(t) = at {
        // Refuses a tick outside the log (before a saved state it starts
        // from, or past its end).
        let g = log
            .game_at::<Ntba>(t)
            .unwrap_or_else(|e| fail(&format!("--at {t}: {e}")));
        println!("after tick {t}: state hash {:016x}", g.state_hash());
    }
    // Checks the build id and the recorded final hash.
    let hash = log
        .replay::<Ntba>()
        .unwrap_or_else(|e| fail(&format!("{path}: {e}")));
    let [home, away] = log
        .replay_game::<Ntba>()
        .map(|g| g.score())
        .unwrap_or([0, 0]);
    let from = if log.start_tick > 0 {
        format!(" from the saved state at tick {}", log.start_tick)
    } else {
        String::new()
    };
    println!(
        "replayed {} ticks of NtBA{from} (seed {:016x}, input delay {}): HOME {home} - {away} AWAY, final hash {hash:016x}, as recorded",
        log.ticks(),
        log.seed,
        log.input_delay
    );
    if let Some(want) = expect {
        if want != hash {
            fail(&format!(
                "expected final hash {want:016x}, the replay reached {hash:016x}"
            ));
        }
    }
    if let Some(want) = ticks {
        if want != log.ticks() {
            fail(&format!(
                "expected {want} ticks, the log has {}",
                log.ticks()
            ));
        }
    }
}
