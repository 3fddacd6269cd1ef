//! `ggrs-compare mesh`: the larger matches and the spectators.
//!
//! ```sh
//! cargo run --release -p ggrs-compare -- mesh     # 2, 4, 8 players over (b) and (d); 0, 1, 4 and 16 spectators
//! ```
//!
//! Prints, ready to paste into `docs/benchmarks.md`: the command, the
//! settings and the load average, the players' table, the spectators'
//! table and any problem a member reported.

use std::process::ExitCode;
use std::time::Duration;

use ggrs_compare::mesh::{
    run_mesh, run_spectators, MeshSettings, Mode, Side, MAX_SPECTATORS, MESH_SCENARIOS,
    PLAYER_COUNTS,
};
use ggrs_compare::{report, SCENARIOS};

use crate::{list, load_average, number};

const USAGE: &str = "\
usage: ggrs-compare mesh [--seconds S] [--spectator-seconds S] [--scenarios b,d]
                         [--players 2,4,8] [--spectators N] [--ahead TICKS]
                         [--lockstep-delay TICKS] [--rollback-delay TICKS]
                         [--seed N] [--net-seed N] [--ggrs-desync FRAMES]

  --seconds S            wall-clock seconds of play per scenario, every player
                         count and both modes at once (default 25)
  --spectator-seconds S  wall-clock seconds of the spectator runs per scenario
                         (default 15)
  --scenarios LIST       which of (a) to (d) to run (default b,d)
  --players LIST         player counts, 2 to 8 (default 2,4,8), or none
  --spectators N         spectator runs with 0, 1, 4, 16 and N spectators up
                         to N (each engine's host; GGRS from 1, ours to 16),
                         0 for none, at most 30 (default 16)
  --ahead TICKS          rollback: the most ticks either engine predicts ahead
                         (our window TICKS, GGRS's max_prediction TICKS + 1;
                         default 8)
  --lockstep-delay T     input delay of both engines in lock-step (default 6)
  --rollback-delay T     input delay of both engines in rollback (default 2)
  --seed N               match seed (default 1)
  --net-seed N           link seed (default 1)
  --ggrs-desync N        GGRS desync-detection interval, 0 = off (default 60)";

struct Options {
    seconds: f64,
    spectator_seconds: f64,
    scenarios: Vec<usize>,
    players: Vec<u8>,
    spectators: u8,
    settings: MeshSettings,
}

fn parse(mut args: impl Iterator<Item = String>) -> Result<Options, String> {
    let mut o = Options {
        seconds: 25.0,
        spectator_seconds: 15.0,
        scenarios: SCENARIOS
            .iter()
            .enumerate()
            .filter(|(_, s)| MESH_SCENARIOS.contains(&s.id))
            .map(|(i, _)| i)
            .collect(),
        players: PLAYER_COUNTS.to_vec(),
        spectators: MAX_SPECTATORS,
        settings: MeshSettings::new(Duration::ZERO),
    };
    while let Some(flag) = args.next() {
        let value = args.next();
        match flag.as_str() {
            "--seconds" => o.seconds = number(&flag, value)?,
            "--spectator-seconds" => o.spectator_seconds = number(&flag, value)?,
            "--scenarios" => {
                o.scenarios = list(&flag, value, |s| {
                    SCENARIOS
                        .iter()
                        .position(|sc| s.len() == 1 && s.starts_with(sc.id))
                })?;
            }
            "--players" if value.as_deref() == Some("none") => o.players = Vec::new(),
            "--players" => {
                o.players = list(&flag, value, |s| {
                    s.parse().ok().filter(|n| (2..=8).contains(n))
                })?;
            }
            "--spectators" => o.spectators = number(&flag, value)?,
            "--ahead" => o.settings.ahead = number(&flag, value)?,
            "--lockstep-delay" => o.settings.lockstep_delay = number(&flag, value)?,
            "--rollback-delay" => o.settings.rollback_delay = number(&flag, value)?,
            "--seed" => o.settings.match_seed = number(&flag, value)?,
            "--net-seed" => o.settings.net_seed = number(&flag, value)?,
            "--ggrs-desync" => o.settings.ggrs_desync_interval = number(&flag, value)?,
            "-h" | "--help" => return Err(String::new()),
            _ => return Err(format!("unknown option {flag:?}")),
        }
    }
    for (flag, s) in [
        ("--seconds", o.seconds),
        ("--spectator-seconds", o.spectator_seconds),
    ] {
        if !(s > 0.0 && s <= 3600.0) {
            return Err(format!("{flag} must be above 0 and at most 3600"));
        }
    }
    if o.spectators > 30 {
        return Err("--spectators: at most 30".into());
    }
    o.settings.check()?;
    o.settings.duration = Duration::from_secs_f64(o.seconds);
    Ok(o)
}

/// Runs the subcommand with the arguments after `mesh`.
pub(crate) fn main(args: &[String]) -> ExitCode {
    let o = match parse(args.iter().cloned()) {
        Ok(o) => o,
        Err(e) => {
            if !e.is_empty() {
                eprintln!("ggrs-compare mesh: {e}");
            }
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    let mut command = "cargo run --release -p ggrs-compare -- mesh".to_string();
    for a in args {
        command.push(' ');
        command.push_str(a);
    }
    let s = &o.settings;
    println!("Command: `{command}`\n");
    println!(
        "Players: {} s of real-time play per scenario at 60 frames/s, every row at once; \
         dots, a full mesh of links; lock-step at input delay {} (both engines' \
         prediction off: our window 0, GGRS's max_prediction 0); rollback at input delay {} \
         with equal limits, both predicting at most {} ticks ahead (our prediction window {}, \
         GGRS's max_prediction {}: GGRS predicts one tick less than its setting). Match seed \
         {}, link seed {}, GGRS desync detection {}. Load average at the start: {}.",
        o.seconds,
        s.lockstep_delay,
        s.rollback_delay,
        s.ahead,
        s.window(Side::Ours, Mode::Rollback),
        s.window(Side::Ggrs, Mode::Rollback),
        s.match_seed,
        s.net_seed,
        match s.ggrs_desync_interval {
            0 => "off".to_string(),
            n => format!("every {n} frames"),
        },
        load_average()
    );
    let mut problems = String::new();
    let mut rows = Vec::new();
    let mut in_sync = true;
    for &i in o.scenarios.iter().filter(|_| !o.players.is_empty()) {
        let scenario = &SCENARIOS[i];
        eprintln!(
            "playing {} with {:?} players ...",
            scenario.label, o.players
        );
        match run_mesh(scenario, &o.players, s) {
            Ok(results) => {
                for m in &results {
                    problems.push_str(&report::mesh_problems(m));
                    in_sync &= m.run.as_ref().map_or(true, |r| r.sync.is_ok());
                }
                rows.extend(results);
            }
            Err(e) => {
                eprintln!("ggrs-compare mesh: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    // Rows by player count, then scenario, then mode (ours before GGRS).
    rows.sort_by_key(|m| m.players);
    if !rows.is_empty() {
        println!();
        print!("{}", report::mesh_header());
        for m in &rows {
            print!("{}", report::mesh_row(m));
        }
    }

    if o.spectators > 0 {
        let mut counts: Vec<u8> = [0, 1, 4, 16, o.spectators]
            .into_iter()
            .filter(|&k| k <= o.spectators)
            .collect();
        counts.dedup();
        let settings = MeshSettings {
            duration: Duration::from_secs_f64(o.spectator_seconds),
            ..*s
        };
        println!(
            "\nSpectators: a two-player match (dots, rollback at input delay {}: our prediction \
             window {}, GGRS's max_prediction {}) whose host also serves {counts:?} spectators \
             (ours: `SessionConfig::spectator()`, watch delay 12; GGRS: `SpectatorSession`, \
             from 1 spectator), each over a link of its own with the scenario's conditions; \
             {} s of real-time play per scenario and engine, every count at once. Rates are \
             per second of the host's running time.\n",
            settings.rollback_delay,
            settings.window(Side::Ours, Mode::Rollback),
            settings.window(Side::Ggrs, Mode::Rollback),
            o.spectator_seconds
        );
        print!("{}", report::spectators_header());
        for &i in &o.scenarios {
            let scenario = &SCENARIOS[i];
            for side in [Side::Ours, Side::Ggrs] {
                let here: Vec<u8> = counts
                    .iter()
                    .copied()
                    .filter(|&k| match side {
                        Side::Ours => k <= lockstep::MAX_SPECTATORS,
                        Side::Ggrs => k >= 1,
                    })
                    .collect();
                eprintln!("playing {} with spectators ({side}) ...", scenario.label);
                match run_spectators(scenario, &here, Mode::Rollback, &settings, side) {
                    Ok(results) => {
                        for r in &results {
                            print!("{}", report::spectators_row(r));
                            problems.push_str(&report::spectators_problems(r));
                            in_sync &= r.sync.is_ok();
                        }
                    }
                    Err(e) => {
                        eprintln!("ggrs-compare mesh: {e}");
                        return ExitCode::FAILURE;
                    }
                }
            }
        }
    }
    if !problems.is_empty() {
        println!("\nNotes (problems the members reported):\n\n{problems}");
    }
    println!("\nLoad average at the end: {}.", load_average());
    if !in_sync {
        eprintln!("ggrs-compare mesh: a match did not stay in sync (see the tables)");
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
    fn reads_counts_and_limits() {
        let o = parse(args("--players 3,8 --spectators 4 --ahead 7 --seconds 5")).unwrap();
        assert_eq!(o.players, [3, 8]);
        assert_eq!(o.spectators, 4);
        assert_eq!(o.settings.window(Side::Ggrs, Mode::Rollback), 8);
        assert_eq!(o.settings.duration, Duration::from_secs(5));
        // The default: (b) and (d).
        let o = parse(args("")).unwrap();
        let ids: Vec<char> = o.scenarios.iter().map(|&i| SCENARIOS[i].id).collect();
        assert_eq!(ids, ['b', 'd']);
    }

    #[test]
    fn refuses_counts_and_limits_out_of_range() {
        for line in [
            "--players 1",
            "--players 9",
            "--spectators 31",
            "--ahead 0",
            "--ahead 60",
            "--lockstep-delay 61",
            "--seconds 0",
            "--spectator-seconds 4000",
            "--scenarios e",
        ] {
            assert!(parse(args(line)).is_err(), "{line}: accepted");
        }
    }
}
