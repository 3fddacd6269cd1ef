//! Replays a desync report (downloaded from the page after a desync) with
//! this build and prints when the desync was found, which parts the peers
//! disagreed on, the first tick after which this build's state differs
//! from the writer's, and, where the game can print a part, both values.
//!
//! ```sh
//! cargo run --release -p lockstep-examples --example desync_report -- ntba-desync-1234.report
//! # a report written by another build: say which game to replay it as
//! cargo run --release -p lockstep-examples --example desync_report -- old.report --game ntba
//! ```

use dots::Dots;
use lockstep::parts::report::MAX_REPORT_BYTES;
use lockstep::{DesyncReport, DeterministicGame};
use lockstep_examples::desync_report::{explain, Explained};
use ntba::Ntba;

const USAGE: &str = "usage: desync_report FILE [--game ntba|dots]

Replays a desync report (as downloaded from the page after a desync) with
this build's game and prints what diverged: the tick and parts the two
peers disagreed on, the first tick after which this build differs from the
writer, the parts where it differs from each peer, and printable values.
The game is picked from the report's build id; --game forces one (for a
report written by another build).";

fn fail(msg: &str) -> ! {
    eprintln!("{msg}");
    std::process::exit(1);
}

/// The report as `G`'s, if it decodes and (unless forced) is `G`'s build.
fn as_game<G: Explained>(bytes: &[u8], forced: bool) -> Option<Result<String, String>> {
    match DesyncReport::<G::Input>::from_bytes(bytes) {
        Ok(r) if forced || r.log.build == G::BUILD_ID => Some(Ok(explain::<G>(&r))),
        Ok(_) => None,
        Err(e) => Some(Err(e.to_string())),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.is_empty() || args.iter().any(|a| a == "-h" || a == "--help") {
        println!("{USAGE}");
        return;
    }
    let path = &args[0];
    let game = match &args[1..] {
        [] => None,
        [flag, g] if flag == "--game" && (g == "ntba" || g == "dots") => Some(g.as_str()),
        _ => fail(&format!("bad options\n{USAGE}")),
    };
    // Refuse an oversized file before reading it.
    let size = std::fs::metadata(path)
        .unwrap_or_else(|e| fail(&format!("cannot read {path}: {e}")))
        .len();
    if size > MAX_REPORT_BYTES as u64 {
        fail(&format!(
            "{path}: {size} bytes is more than a desync report may hold"
        ));
    }
    let bytes = std::fs::read(path).unwrap_or_else(|e| fail(&format!("cannot read {path}: {e}")));
    let found = match game {
        Some("ntba") => as_game::<Ntba>(&bytes, true),
        Some(_) => as_game::<Dots>(&bytes, true),
        None => as_game::<Ntba>(&bytes, false).or_else(|| as_game::<Dots>(&bytes, false)),
    };
    match found {
        Some(Ok(text)) => print!("{text}"),
        Some(Err(e)) => fail(&format!("{path}: {e}")),
        None => fail(&format!(
            "{path}: written by a build of neither game here (NtBA {:#018x}, dots {:#018x}); \
             pass --game ntba or --game dots to replay it with this build",
            Ntba::BUILD_ID,
            Dots::BUILD_ID
        )),
    }
}
