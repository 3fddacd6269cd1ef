//! The printed tables: the two-player comparison and its
//! targets, the larger matches and the spectators.

use std::fmt::Write as _;

use crate::mesh::{MeshResult, Side, SpectatorResult};
use crate::{Engine, PeerFigures, RunResult, SyncCheck};

/// Every peer's value, host first, separated by " / ".
fn each<T: std::fmt::Display>(peers: &[PeerFigures], f: impl Fn(&PeerFigures) -> T) -> String {
    let cells: Vec<String> = peers.iter().map(|p| f(p).to_string()).collect();
    cells.join(" / ")
}

fn rate(r: &RunResult, f: impl Fn(&RunResult, usize) -> f64, decimals: usize) -> String {
    let cells: Vec<String> = (0..r.peers.len())
        .map(|i| format!("{:.*}", decimals, f(r, i)))
        .collect();
    cells.join(" / ")
}

/// The header of [`table_row`]'s markdown table.
#[must_use]
pub fn table_header() -> String {
    "| scenario | game | engine | running from ms | ticks | stalled | skipped | re-simulated | packets/s | of which resent | payload B/s | payload + 48 B/packet, B/s | session µs/tick | RTT ms | in sync |\n\
     |---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n"
        .to_string()
}

fn sync_cell(sync: SyncCheck) -> String {
    match sync {
        SyncCheck::Agreed { ticks } if ticks > 0 => format!("yes ({ticks} ticks)"),
        SyncCheck::Agreed { .. } => "nothing confirmed".to_string(),
        SyncCheck::Diverged { tick } => format!("NO, from tick {tick}"),
    }
}

/// One markdown table row: every per-peer cell is `host / guest`.
#[must_use]
pub fn table_row(r: &RunResult) -> String {
    let p = &r.peers;
    let rtt = |p: &PeerFigures| p.rtt_ms.map_or("-".to_string(), |v| v.to_string());
    let from = |p: &PeerFigures| p.started_ms.map_or("never".to_string(), |v| v.to_string());
    format!(
        "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
        r.scenario.label,
        r.game.name(),
        r.engine,
        each(p, from),
        each(p, |p| p.ticks),
        each(p, |p| p.stalled),
        each(p, |p| p.skipped),
        each(p, |p| p.resimulated),
        rate(r, RunResult::packets_per_second, 1),
        each(p, |p| p.resent),
        rate(r, RunResult::payload_per_second, 0),
        rate(r, RunResult::wire_per_second, 0),
        rate(r, RunResult::session_micros_per_tick, 2),
        each(p, rtt),
        sync_cell(r.sync),
    )
}

/// Problems the peers reported (early ends, desyncs, errors), one
/// markdown list item each, and how many timed sections were left out as preempted; empty when
/// there were none.
#[must_use]
pub fn problems(r: &RunResult) -> String {
    let mut out = String::new();
    for p in &r.peers {
        if p.preempted > 0 {
            let _ = writeln!(
                out,
                "- {} {} {} side {}: {} of {} frames preempted (left out of µs/tick)",
                r.scenario.label,
                r.game.name(),
                r.engine,
                p.side,
                p.preempted,
                p.frames
            );
        }
        for problem in &p.problems {
            let _ = writeln!(
                out,
                "- {} {} {} side {}: {problem}",
                r.scenario.label,
                r.game.name(),
                r.engine,
                p.side
            );
        }
    }
    out
}

/// The mean of `f` over every peer of `r`.
fn mean(r: &RunResult, f: impl Fn(&RunResult, usize) -> f64) -> f64 {
    let n = r.peers.len();
    (0..n).map(|i| f(r, i)).sum::<f64>() / n.max(1) as f64
}

fn verdict(met: bool) -> &'static str {
    if met {
        "met"
    } else {
        "MISSED"
    }
}

/// The header of [`targets`]' markdown table.
#[must_use]
pub fn targets_header() -> String {
    "| scenario | game | ours | GGRS | packets/s, ours / GGRS (at most half) | payload + 48 B/packet per s (at most half) | frames without a tick per minute (no more) | re-simulated ticks per minute, GGRS at the same window (no more) | session µs/tick (no higher) |\n\
     |---|---|---|---|---|---|---|---|---|\n"
        .to_string()
}

/// The GGRS run `ours` is measured against: GGRS's default prediction
/// window (8, the reference of the targets in `docs/ggrs-comparison.md`),
/// failing that GGRS at our row's window, failing that the first GGRS run
/// of the same scenario and game.
fn reference<'a>(results: &'a [RunResult], ours: &RunResult) -> Option<&'a RunResult> {
    let ggrs = |window: Option<u8>| {
        results.iter().find(|r| {
            r.scenario == ours.scenario
                && r.game == ours.game
                && match r.engine {
                    Engine::Ggrs { window: w } => window.is_none_or(|want| w == want),
                    Engine::Ours { .. } => false,
                }
        })
    };
    ggrs(Some(8))
        .or_else(|| ggrs(Some(ours.engine.window())))
        .or_else(|| ggrs(None))
}

/// The GGRS run with the same scenario, game and prediction window as
/// `ours` (re-simulation only compares like with like).
fn same_window<'a>(results: &'a [RunResult], ours: &RunResult) -> Option<&'a RunResult> {
    results.iter().find(|r| {
        r.scenario == ours.scenario
            && r.game == ours.game
            && r.engine
                == Engine::Ggrs {
                    window: ours.engine.window(),
                }
    })
}

/// The targets as markdown table rows (see [`targets_header`]), one
/// for every run of our session in `results`, averaging host and guest:
/// at most half of GGRS's packets per second and of its bytes per second
/// (payload plus 48 bytes per packet), no more frames without a tick
/// (stalled plus skipped) per minute of running time, no more session time
/// per tick, all against GGRS's default row (see [`reference`]); and no
/// more re-simulated ticks per minute than GGRS at the same prediction
/// window and input delay ("n/a" when no such GGRS row ran).
#[must_use]
pub fn targets(results: &[RunResult]) -> String {
    let mut out = String::new();
    for ours in results {
        let Engine::Ours { .. } = ours.engine else {
            continue;
        };
        if let Some(theirs) = reference(results, ours) {
            compare(&mut out, ours, theirs, same_window(results, ours));
        }
    }
    out
}

fn compare(out: &mut String, ours: &RunResult, theirs: &RunResult, alike: Option<&RunResult>) {
    let both = |f: fn(&RunResult, usize) -> f64| (mean(ours, f), mean(theirs, f));
    let pps = both(RunResult::packets_per_second);
    let wire = both(RunResult::wire_per_second);
    // Counts per minute of running time (GGRS's handshake takes longer, so
    // its peers run for less of the wall-clock time).
    let idle = both(|r, i| r.per_minute(i, r.peers[i].stalled + r.peers[i].skipped));
    let resim_of = |r: &RunResult| mean(r, |r, i| r.per_minute(i, r.peers[i].resimulated));
    let resim = match alike {
        Some(alike) => {
            let (a, b) = (resim_of(ours), resim_of(alike));
            format!("{a:.1} / {b:.1} {}", verdict(a <= b))
        }
        None => format!("n/a (no GGRS row with window {})", ours.engine.window()),
    };
    let us = both(RunResult::session_micros_per_tick);
    let _ = writeln!(
        out,
        "| {} | {} | {} | {} | {:.1} / {:.1} {} | {:.0} / {:.0} {} | {:.1} / {:.1} {} | {} | {:.2} / {:.2} {} |",
        ours.scenario.label,
        ours.game.name(),
        ours.engine,
        theirs.engine,
        pps.0,
        pps.1,
        verdict(pps.0 <= pps.1 / 2.0),
        wire.0,
        wire.1,
        verdict(wire.0 <= wire.1 / 2.0),
        idle.0,
        idle.1,
        verdict(idle.0 <= idle.1),
        resim,
        us.0,
        us.1,
        verdict(us.0 <= us.1),
    );
}

/// The header of [`mesh_row`]'s markdown table.
#[must_use]
pub fn mesh_header() -> String {
    "| players | scenario | mode, input delay | engine | running from ms (last player) | ticks (fewest) | stalled frames per minute, mean / worst player | skipped frames per minute, mean / worst | re-simulated ticks per minute, mean / worst | packets/s per player, mean / worst | payload B/s per player, mean / worst | payload + 48 B/packet, B/s per player, mean / worst | session µs/tick, mean / worst | RTT ms (longest) | in sync |\n\
     |---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n"
        .to_string()
}

/// The engine of a mesh row as the table names it, with the setting that
/// gives its prediction limit.
fn mesh_engine(m: &MeshResult) -> String {
    match (m.side, m.window) {
        (Side::Ours, 0) => "ours (prediction window 0)".to_string(),
        (Side::Ours, w) => format!("ours (prediction window {w}: predicts ≤ {w})"),
        (Side::Ggrs, 0) => "GGRS (max_prediction 0)".to_string(),
        (Side::Ggrs, w) => format!("GGRS (max_prediction {w}: predicts ≤ {})", w - 1),
    }
}

/// One markdown row of the larger matches: per player, the mean over all
/// players and the worst one's value. Counts are per minute of each
/// player's running time (GGRS's handshake takes longer, so its players
/// run for less of the run).
#[must_use]
pub fn mesh_row(m: &MeshResult) -> String {
    let head = format!(
        "| {} | {} | {}, {} | {} |",
        m.players,
        m.scenario.label,
        m.mode,
        m.input_delay,
        mesh_engine(m)
    );
    let run = match &m.run {
        Ok(run) => run,
        Err(why) => {
            return format!(
                "{head} not measured: {why} | – | – | – | – | – | – | – | – | – | – |\n"
            );
        }
    };
    let two = |f: fn(&RunResult, usize) -> f64, decimals: usize| {
        m.mean_and_worst(f)
            .map_or("–".to_string(), |(mean, worst)| {
                format!("{mean:.*} / {worst:.*}", decimals, decimals)
            })
    };
    let per_minute = |f: fn(&PeerFigures) -> u64| {
        m.mean_and_worst(|r, i| r.per_minute(i, f(&r.peers[i])))
            .map_or("–".to_string(), |(mean, worst)| {
                format!("{mean:.1} / {worst:.1}")
            })
    };
    let started = if run.peers.iter().all(|p| p.started_ms.is_some()) {
        let last = run.peers.iter().filter_map(|p| p.started_ms).max();
        last.map_or("–".to_string(), |v| v.to_string())
    } else {
        "never (a player)".to_string()
    };
    let ticks = run.peers.iter().map(|p| p.ticks).min().unwrap_or(0);
    let rtt = run.peers.iter().filter_map(|p| p.rtt_ms).max();
    format!(
        "{head} {started} | {ticks} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
        per_minute(|p| p.stalled),
        per_minute(|p| p.skipped),
        per_minute(|p| p.resimulated),
        two(RunResult::packets_per_second, 1),
        two(RunResult::payload_per_second, 0),
        two(RunResult::wire_per_second, 0),
        two(RunResult::session_micros_per_tick, 2),
        rtt.map_or("–".to_string(), |v| v.to_string()),
        sync_cell(run.sync),
    )
}

/// Problems the players of a mesh row reported, one markdown list item
/// each; empty when there were none.
#[must_use]
pub fn mesh_problems(m: &MeshResult) -> String {
    let mut out = String::new();
    if let Ok(run) = &m.run {
        for p in &run.peers {
            for problem in &p.problems {
                let _ = writeln!(
                    out,
                    "- {} players, {}, {}, {}: player {}: {problem}",
                    m.players,
                    m.scenario.label,
                    m.mode,
                    mesh_engine(m),
                    p.side
                );
            }
        }
    }
    out
}

/// The header of [`spectators_row`]'s markdown table.
#[must_use]
pub fn spectators_header() -> String {
    "| scenario | engine | spectators | host to each spectator, packets/s | payload B/s | payload + 48 B/packet, B/s | host to the guest, payload + 48 B/packet, B/s | host upload in all, packets/s | host upload in all, payload + 48 B/packet, B/s | ticks: fewest of a spectator / host | frames a spectator waited (most) | spectators in sync |\n\
     |---|---|---|---|---|---|---|---|---|---|---|---|\n"
        .to_string()
}

/// One markdown row of the spectator table.
#[must_use]
pub fn spectators_row(s: &SpectatorResult) -> String {
    let fewest = s.watchers.iter().map(|w| w.ticks).min().unwrap_or(0);
    let host_ticks = s.players.first().map_or(0, |h| h.ticks);
    let waited = s.watchers.iter().map(|w| w.stalled).max().unwrap_or(0);
    let fewest = if s.watchers.is_empty() {
        "–".to_string()
    } else {
        fewest.to_string()
    };
    format!(
        "| {} | {} | {} | {:.1} | {:.0} | {:.0} | {:.0} | {:.1} | {:.0} | {fewest} / {host_ticks} | {waited} | {} |\n",
        s.scenario.label,
        s.side,
        s.spectators,
        s.packets_per_spectator(),
        s.payload_per_spectator(),
        s.wire_per_spectator(),
        s.wire_to_guest(),
        s.host_packets(),
        s.host_wire(),
        sync_cell(s.sync),
    )
}

/// Problems the host, the guest or a spectator reported, one markdown
/// list item each.
#[must_use]
pub fn spectators_problems(s: &SpectatorResult) -> String {
    let mut out = String::new();
    for p in s.players.iter().chain(&s.watchers) {
        for problem in &p.problems {
            let _ = writeln!(
                out,
                "- {}, {} spectators: member {}: {problem}",
                s.scenario.label, s.spectators, p.side
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{GameKind, PeerFigures, SCENARIOS};

    fn run(engine: Engine, resimulated: u64) -> RunResult {
        let peer = |side| {
            let mut p = PeerFigures::new(side);
            p.started_ms = Some(0);
            p.ended_ms = 60_000;
            p.ticks = 3600;
            p.resimulated = resimulated;
            p
        };
        let peers = vec![peer(0), peer(1)];
        RunResult {
            scenario: SCENARIOS[1],
            game: GameKind::Dots,
            engine,
            seconds: 60.0,
            frames: 3600,
            clock_nanos: 0.0,
            peers,
            sync: SyncCheck::Agreed { ticks: 3600 },
        }
    }

    fn ours(window: u8) -> Engine {
        Engine::Ours {
            window,
            send_interval: 1,
            max_hold: 0,
        }
    }

    #[test]
    fn re_simulation_is_compared_at_the_same_window_or_not_at_all() {
        let results = [
            run(ours(8), 100),
            run(ours(0), 0),
            run(ours(4), 50),
            run(Engine::Ggrs { window: 8 }, 90),
            run(Engine::Ggrs { window: 0 }, 0),
        ];
        let table = targets(&results);
        let rows: Vec<&str> = table.lines().collect();
        assert_eq!(rows.len(), 3, "{table}");
        // Window 8 against GGRS's window 8: 100 a minute over its 90.
        assert!(rows[0].contains("| 100.0 / 90.0 MISSED |"), "{}", rows[0]);
        // Lock-step against GGRS's lock-step, not its window 8.
        assert!(rows[1].contains("| 0.0 / 0.0 met |"), "{}", rows[1]);
        // Every row's other targets are against GGRS's default (window 8).
        assert!(
            rows[1].contains("| GGRS (rollback, window 8) |"),
            "{}",
            rows[1]
        );
        // No GGRS row with window 4: no verdict.
        assert!(
            rows[2].contains("n/a (no GGRS row with window 4)"),
            "{}",
            rows[2]
        );
        // Same header width as rows.
        let cells = |line: &str| line.matches('|').count();
        let header = targets_header();
        assert!(rows
            .iter()
            .all(|r| cells(r) == cells(header.lines().next().unwrap())));
    }

    #[test]
    fn mesh_rows_give_per_minute_means_and_the_worst_player_in_every_column() {
        use crate::mesh::{MeshResult, Mode, Side};
        let mut r = run(Engine::Ggrs { window: 9 }, 0);
        // Four players, a minute each; stalls 10 to 40.
        r.peers = (0..4u8)
            .map(|side| {
                let mut p = r.peers[0].clone();
                p.side = side;
                p.stalled = 10 * u64::from(side + 1);
                p
            })
            .collect();
        let measured = MeshResult {
            scenario: SCENARIOS[1],
            players: 4,
            mode: Mode::Rollback,
            side: Side::Ggrs,
            input_delay: 2,
            window: 9,
            run: Ok(r),
        };
        let row = mesh_row(&measured);
        assert!(row.contains("| 25.0 / 40.0 |"), "{row}");
        assert!(
            row.contains("GGRS (max_prediction 9: predicts ≤ 8)"),
            "{row}"
        );
        let waiting = MeshResult {
            side: Side::Ours,
            window: 8,
            run: Err("waiting"),
            ..measured.clone()
        };
        let row_waiting = mesh_row(&waiting);
        assert!(
            row_waiting.contains("not measured: waiting"),
            "{row_waiting}"
        );
        let cells = |line: &str| line.matches('|').count();
        let header = mesh_header();
        let width = cells(header.lines().next().unwrap());
        assert_eq!(cells(&row), width, "{row}");
        assert_eq!(cells(&row_waiting), width, "{row_waiting}");
    }
}
