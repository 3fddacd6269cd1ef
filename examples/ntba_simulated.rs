//! NtBA, CPU against CPU, between two sessions over the simulated network
//! (seeded latency, jitter and loss, in virtual time). Prints the score at
//! each half and both peers' final tick and hash (they must agree), and in
//! rollback mode the predicted ticks, rollbacks and re-simulated ticks.
//!
//! ```sh
//! cargo run --release -p lockstep-examples --example ntba_simulated -- --latency 60 --jitter 15 --loss 20
//! cargo run --release -p lockstep-examples --example ntba_simulated -- --rollback --delay-from-rtt
//! ```
//! Options: `--seed`, `--net-seed`, `--delay` (ticks), `--latency` and
//! `--jitter` (ms, one way), `--loss` (percent), `--rollback [WINDOW]`,
//! `--delay-from-rtt`, `--send-interval N`, `--predictor P`, `--watch N`
//! (draw the court every N seconds of play); `--help` describes them.

use lockstep_examples::basketball::{
    mode_suffix, play_ntba, print_report, NtbaOptions, Predictor, ReleaseTaps, HELP_COMMON,
};
use lockstep_examples::{ArgError, SimLink};
use ntba::Ntba;

fn main() {
    let o = match NtbaOptions::simulated().parse(std::env::args().skip(1)) {
        Ok(o) => o,
        Err(ArgError::HelpRequested) => {
            println!(
                "NtBA, CPU against CPU, over a simulated network (virtual time).\n\n\
                 USAGE:\n    cargo run --release -p lockstep-examples --example ntba_simulated -- [OPTIONS]\n\n\
                 OPTIONS (defaults: 50 ms +-10 ms one way, 10% loss, network seed 99,\n\
                 seed 1, delay 6, lock-step):\n\
                 \x20   --latency MS        one-way latency, 0-5000\n\
                 \x20   --jitter MS         each packet's delay varies by +-MS (at most the latency)\n\
                 \x20   --loss PCT          packets lost, 0-90\n\
                 \x20   --net-seed N        seed of the network's random decisions\n{HELP_COMMON}"
            );
            return;
        }
        Err(e) => {
            eprintln!("ntba_simulated: {e}");
            std::process::exit(2);
        }
    };
    let Some(link) = o.link else {
        unreachable!("NtbaOptions::simulated() always has a link");
    };
    println!(
        "NtBA over a simulated link: {} ms one way, jitter {} ms, {}% loss (network seed {}); \
         CPU (Home, host) against CPU (Away, guest), seed {}, input delay {} ticks{}",
        link.latency.0,
        link.jitter.0,
        link.loss_percent,
        o.net_seed,
        o.game.seed,
        o.game.input_delay,
        mode_suffix(&o.game)
    );
    let mut out = std::io::stdout();
    let in_sync = match o.predictor {
        Predictor::Ntba => {
            let mut l = SimLink::new(link, o.net_seed);
            let (r, finals) = play_ntba::<Ntba, _>(&mut l, &o, &mut out);
            let _ = print_report(&mut out, &r, &finals);
            r.in_sync()
        }
        Predictor::ReleaseTaps => {
            let mut l = SimLink::new(link, o.net_seed);
            let (r, finals) = play_ntba::<ReleaseTaps, _>(&mut l, &o, &mut out);
            let _ = print_report(&mut out, &r, &finals);
            r.in_sync()
        }
    };
    if !in_sync {
        std::process::exit(1);
    }
}
