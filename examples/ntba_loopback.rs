//! NtBA, CPU against CPU, between two sessions on the perfect in-process
//! loopback. Prints the score at each half and both peers' final tick and
//! hash (they must agree).
//!
//! ```sh
//! cargo run --release -p lockstep-examples --example ntba_loopback -- --seed 7 --watch 20
//! cargo run --release -p lockstep-examples --example ntba_loopback -- --rollback
//! ```
//! `--watch N` draws the court in the terminal every N seconds of play;
//! `--help` lists the options.

use lockstep_examples::basketball::{
    mode_suffix, play_ntba, print_report, NtbaOptions, Predictor, ReleaseTaps, HELP_COMMON,
};
use lockstep_examples::{ArgError, LoopbackLink};
use ntba::Ntba;

fn main() {
    let o = match NtbaOptions::loopback().parse(std::env::args().skip(1)) {
        Ok(o) => o,
        Err(ArgError::HelpRequested) => {
            println!(
                "NtBA, CPU against CPU, over the in-process loopback (virtual time).\n\n\
                 USAGE:\n    cargo run --release -p lockstep-examples --example ntba_loopback -- [OPTIONS]\n\n\
                 OPTIONS (defaults: seed 1, delay 2, lock-step):\n{HELP_COMMON}"
            );
            return;
        }
        Err(e) => {
            eprintln!("ntba_loopback: {e}");
            std::process::exit(2);
        }
    };
    println!(
        "NtBA over the loopback: CPU (Home, host) against CPU (Away, guest), seed {}{}",
        o.game.seed,
        mode_suffix(&o.game)
    );
    let mut out = std::io::stdout();
    let in_sync = match o.predictor {
        Predictor::Ntba => {
            let (r, finals) = play_ntba::<Ntba, _>(&mut LoopbackLink::new(), &o, &mut out);
            let _ = print_report(&mut out, &r, &finals);
            r.in_sync()
        }
        Predictor::ReleaseTaps => {
            let (r, finals) = play_ntba::<ReleaseTaps, _>(&mut LoopbackLink::new(), &o, &mut out);
            let _ = print_report(&mut out, &r, &finals);
            r.in_sync()
        }
    };
    if !in_sync {
        std::process::exit(1);
    }
}
