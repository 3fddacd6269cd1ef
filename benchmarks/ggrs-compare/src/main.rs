//! `ggrs-compare`: our session and GGRS side by side, in real time.
//!
//! ```sh
//! cargo run --release -p ggrs-compare              # every scenario, both games, 12 s each
//! cargo run --release -p ggrs-compare -- --seconds 20 --scenarios b,d --games ntba --delay 2
//! cargo run --release -p ggrs-compare -- mesh     # 2, 4, 8 players; spectators (see mesh_main.rs)
//! ```
//!
//! Prints, ready to paste into `docs/benchmarks.md`: the command, the
//! machine's load average before and after, a markdown table (every
//! per-peer cell is `host / guest`), any problem a peer reported, and a
//! markdown table of the targets for each of our rows.

mod mesh_main;

use std::process::ExitCode;
use std::time::Duration;

use lockstep::session::DEFAULT_MAX_HOLD_FRAMES;

use ggrs_compare::{
    check_settings, report, run_scenario, Engine, GameKind, RunSettings, DEFAULT_ENGINES, SCENARIOS,
};

const USAGE: &str = "\
usage: ggrs-compare mesh ...          (the larger matches and spectators; mesh --help)
       ggrs-compare [--seconds S] [--scenarios a,b,c,d] [--games dots,ntba]
                    [--engines ours:0,ours:8,ggrs:8] [--delay TICKS] [--seed N]
                    [--net-seed N] [--ggrs-desync FRAMES] [--ntba-pads cpu|script]

  --seconds S          wall-clock seconds of play per scenario (default 12)
  --scenarios LIST     which of (a) to (d) to run (default all)
  --games LIST         dots, ntba (default both)
  --engines LIST       rows (WINDOW at most 60): ours:WINDOW, ours:WINDOW/SEND_INTERVAL (an Inputs
                       packet every SEND_INTERVAL frames),
                       ours:WINDOW/SEND_INTERVAL/MAX_HOLD (rollback holds a
                       packet with nothing urgent back up to MAX_HOLD frames;
                       default 2, 0 sends every frame), ggrs:WINDOW
                       (default ours:0,ours:8,ours:8/1/0,ours:8/2,ggrs:8,ggrs:0)
  --delay TICKS        input delay of both engines, at most 60 (default 6)
  --seed N             match seed (default 1)
  --net-seed N         link seed (default 1)
  --ggrs-desync N      GGRS desync-detection interval, 0 = off (default 60,
                       like our session's hash every 60 ticks)
  --ntba-pads P        cpu: NtBA's CPU plays both teams (default); script:
                       the golden input script, the same pads for every engine";

struct Options {
    seconds: f64,
    scenarios: Vec<usize>,
    games: Vec<GameKind>,
    engines: Vec<Engine>,
    settings: RunSettings,
}

fn number<T: std::str::FromStr>(flag: &str, value: Option<String>) -> Result<T, String> {
    let value = value.ok_or_else(|| format!("{flag} needs a value"))?;
    value
        .parse()
        .map_err(|_| format!("{flag}: cannot read {value:?}"))
}

fn list<T>(
    flag: &str,
    value: Option<String>,
    item: impl Fn(&str) -> Option<T>,
) -> Result<Vec<T>, String> {
    let value = value.ok_or_else(|| format!("{flag} needs a value"))?;
    value
        .split(',')
        .map(|s| item(s.trim()).ok_or_else(|| format!("{flag}: unknown {s:?}")))
        .collect()
}

/// `ours:WINDOW`, `ours:WINDOW/SEND_INTERVAL`,
/// `ours:WINDOW/SEND_INTERVAL/MAX_HOLD` or `ggrs:WINDOW`.
fn engine(s: &str) -> Option<Engine> {
    let (name, rest) = s.split_once(':')?;
    match name {
        "ours" => {
            let mut parts = rest.split('/');
            let window = parts.next()?.parse().ok()?;
            let send_interval = parts.next().map_or(Some(1), |s| s.parse().ok())?;
            let max_hold = parts
                .next()
                .map_or(Some(DEFAULT_MAX_HOLD_FRAMES), |s| s.parse().ok())?;
            if parts.next().is_some() {
                return None;
            }
            Some(Engine::Ours {
                window,
                send_interval,
                max_hold,
            })
        }
        "ggrs" => Some(Engine::Ggrs {
            window: rest.parse().ok()?,
        }),
        _ => None,
    }
}

fn parse(mut args: impl Iterator<Item = String>) -> Result<Options, String> {
    let mut o = Options {
        seconds: 12.0,
        scenarios: (0..SCENARIOS.len()).collect(),
        games: vec![GameKind::Dots, GameKind::Ntba],
        engines: DEFAULT_ENGINES.to_vec(),
        settings: RunSettings::new(SCENARIOS[0].link, Duration::ZERO),
    };
    while let Some(flag) = args.next() {
        let value = args.next();
        match flag.as_str() {
            "--seconds" => o.seconds = number(&flag, value)?,
            "--scenarios" => {
                o.scenarios = list(&flag, value, |s| {
                    SCENARIOS
                        .iter()
                        .position(|sc| s.len() == 1 && s.starts_with(sc.id))
                })?;
            }
            "--games" => {
                o.games = list(&flag, value, |s| match s {
                    "dots" => Some(GameKind::Dots),
                    "ntba" => Some(GameKind::Ntba),
                    _ => None,
                })?;
            }
            "--engines" => o.engines = list(&flag, value, engine)?,
            "--delay" => o.settings.input_delay = number(&flag, value)?,
            "--seed" => o.settings.match_seed = number(&flag, value)?,
            "--net-seed" => o.settings.net_seed = number(&flag, value)?,
            "--ggrs-desync" => o.settings.ggrs_desync_interval = number(&flag, value)?,
            "--ntba-pads" => {
                o.settings.scripted_ntba = match value.as_deref() {
                    Some("cpu") => false,
                    Some("script") => true,
                    _ => return Err("--ntba-pads takes cpu or script".into()),
                };
            }
            "-h" | "--help" => return Err(String::new()),
            _ => return Err(format!("unknown option {flag:?}")),
        }
    }
    if !(o.seconds > 0.0 && o.seconds <= 3600.0) {
        return Err("--seconds must be above 0 and at most 3600".into());
    }
    check_settings(&o.engines, &o.settings)?;
    o.settings.duration = Duration::from_secs_f64(o.seconds);
    Ok(o)
}

/// The load average over 1, 5 and 15 minutes as `uptime` prints it (the
/// benchmark runs in real time: a busy machine shows in its figures), or
/// "unknown" where `/proc/loadavg` cannot be read.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| {
            let fields: Vec<&str> = s.split_whitespace().take(3).collect();
            (fields.len() == 3).then(|| fields.join(", "))
        })
        .unwrap_or_else(|| "unknown".to_string())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().is_some_and(|a| a == "mesh") {
        return mesh_main::main(&args[1..]);
    }
    let o = match parse(args.iter().cloned()) {
        Ok(o) => o,
        Err(e) => {
            if !e.is_empty() {
                eprintln!("ggrs-compare: {e}");
            }
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    let command = if args.is_empty() {
        "cargo run --release -p ggrs-compare".to_string()
    } else {
        format!("cargo run --release -p ggrs-compare -- {}", args.join(" "))
    };
    println!("Command: `{command}`\n");
    println!(
        "{} s of real-time play per scenario at 60 frames/s, input delay {} ticks, \
         match seed {}, link seed {}, GGRS desync detection {}, NtBA pads from {}. \
         Load average at the start: {}.",
        o.seconds,
        o.settings.input_delay,
        o.settings.match_seed,
        o.settings.net_seed,
        match o.settings.ggrs_desync_interval {
            0 => "off".to_string(),
            n => format!("every {n} frames"),
        },
        if o.settings.scripted_ntba {
            "the input script"
        } else {
            "the CPU"
        },
        load_average()
    );
    let mut all = Vec::new();
    let mut problems = String::new();
    for &i in &o.scenarios {
        let scenario = &SCENARIOS[i];
        eprintln!("playing {} ...", scenario.label);
        match run_scenario(scenario, &o.games, &o.engines, &o.settings) {
            Ok(results) => {
                if let Some(r) = results.first() {
                    let due = (r.seconds * 60.0) as u64;
                    if r.frames + due / 100 < due {
                        problems.push_str(&format!(
                            "- {}: the loop ran {} frames of {due} (the machine fell behind; \
                             late frames were dropped for every engine alike)\n",
                            scenario.label, r.frames
                        ));
                    }
                }
                for r in &results {
                    problems.push_str(&report::problems(r));
                }
                all.extend(results);
            }
            Err(e) => {
                eprintln!("ggrs-compare: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    println!();
    print!("{}", report::table_header());
    for r in &all {
        print!("{}", report::table_row(r));
    }
    if !problems.is_empty() {
        println!(
            "\nNotes (problems the peers reported; frames left out of µs/tick):\n\n{problems}"
        );
    }
    println!("\nLoad average at the end: {}.", load_average());
    println!(
        "\nTargets (ours against GGRS, same scenario and game, \
         mean of host and guest, counts per minute of running time):\n"
    );
    print!("{}", report::targets_header());
    print!("{}", report::targets(&all));
    if all.iter().any(|r| !r.sync.is_ok()) {
        eprintln!("ggrs-compare: a pair did not stay in sync (see the table)");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> impl Iterator<Item = String> + '_ {
        line.split_whitespace().map(str::to_string)
    }

    #[test]
    fn reads_rows_and_settings() {
        let o = parse(args("--engines ours:8/1/0,ggrs:4 --delay 2 --seconds 5")).unwrap();
        assert_eq!(
            o.engines,
            [
                Engine::Ours {
                    window: 8,
                    send_interval: 1,
                    max_hold: 0
                },
                Engine::Ggrs { window: 4 }
            ]
        );
        assert_eq!(o.settings.input_delay, 2);
        assert_eq!(o.settings.duration, Duration::from_secs(5));
    }

    #[test]
    fn refuses_windows_and_delays_out_of_range_with_a_clear_error() {
        // GGRS 0.13 would panic on a window plus delay of 128 or more; our
        // session refuses windows and delays above 60. Both are refused
        // before anything runs, for both engines.
        for (line, says) in [
            ("--engines ggrs:61", "at most 60"),
            ("--engines ggrs:255", "at most 60"),
            ("--engines ours:61", "at most 60"),
            ("--delay 61", "input delay 61: at most 60"),
            ("--delay 255 --engines ggrs:8", "at most 60"),
            ("--engines ggrs:256", "unknown \"ggrs:256\""),
            ("--engines ggrs:-1", "unknown"),
            ("--delay 300", "cannot read"),
        ] {
            let e = parse(args(line)).err();
            let e = e.unwrap_or_else(|| panic!("{line}: accepted"));
            assert!(e.contains(says), "{line}: {e}");
        }
        // The largest accepted: window 60 and delay 60 (120 < 128).
        assert!(parse(args("--engines ggrs:60,ours:60 --delay 60")).is_ok());
    }

    #[test]
    fn refuses_unknown_options_and_bad_lengths() {
        assert!(parse(args("--speed 3")).is_err());
        assert!(parse(args("--seconds 0")).is_err());
        assert!(parse(args("--seconds")).is_err());
        assert!(parse(args("--scenarios e")).is_err());
    }
}
