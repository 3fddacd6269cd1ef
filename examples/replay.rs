//! Example 3: replays an input log exported by
//! `simulated --save-log FILE` and prints the final hash.
//!
//! ```sh
//! cargo run --release -p lockstep-examples --example simulated -- --save-log match.log
//! cargo run --release -p lockstep-examples --example replay -- match.log
//! ```

use lockstep_examples::replay_log;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = match args.as_slice() {
        [flag] if flag == "-h" || flag == "--help" => {
            println!("usage: replay FILE\n\nReplays an input log written by `simulated --save-log FILE` offline and\nchecks that it reproduces the state hash recorded at the end of the match.");
            return;
        }
        [path] => path,
        _ => {
            eprintln!("usage: replay FILE (try --help)");
            std::process::exit(2);
        }
    };
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) => {
            eprintln!("cannot read {path}: {e}");
            std::process::exit(1);
        }
    };
    // Decoding is strict (wrong magic, other versions, truncation and
    // trailing bytes are errors); replaying checks the build id and the
    // final hash recorded in the log.
    match replay_log(&bytes) {
        Ok(r) => println!(
            "replayed {} ticks (seed {}, input delay {}): final hash {:#018x}, as recorded",
            r.ticks, r.seed, r.input_delay, r.hash
        ),
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(1);
        }
    }
}
