//! The printed table and the issue-7 targets.

use std::fmt::Write as _;

use crate::{Engine, RunResult, SyncCheck};

fn pair<T: std::fmt::Display>(a: T, b: T) -> String {
    format!("{a} / {b}")
}

fn rate(r: &RunResult, f: impl Fn(&RunResult, usize) -> f64, decimals: usize) -> String {
    pair(
        format!("{:.*}", decimals, f(r, 0)),
        format!("{:.*}", decimals, f(r, 1)),
    )
}

/// The header of [`table_row`]'s markdown table.
#[must_use]
pub fn table_header() -> String {
    "| scenario | game | engine | running from ms | ticks | stalled | skipped | re-simulated | packets/s | of which resent | payload B/s | payload + 48 B/packet, B/s | session µs/tick | RTT ms | in sync |\n\
     |---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n"
        .to_string()
}

/// One markdown table row: every per-peer cell is `host / guest`.
#[must_use]
pub fn table_row(r: &RunResult) -> String {
    let [h, g] = &r.peers;
    let rtt = |p: &crate::PeerFigures| p.rtt_ms.map_or("-".to_string(), |v| v.to_string());
    let sync = match r.sync {
        SyncCheck::Agreed { ticks } if ticks > 0 => format!("yes ({ticks} ticks)"),
        SyncCheck::Agreed { .. } => "nothing confirmed".to_string(),
        SyncCheck::Diverged { tick } => format!("NO, from tick {tick}"),
    };
    let from = |p: &crate::PeerFigures| p.started_ms.map_or("never".to_string(), |v| v.to_string());
    format!(
        "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
        r.scenario.label,
        r.game.name(),
        r.engine,
        pair(from(h), from(g)),
        pair(h.ticks, g.ticks),
        pair(h.stalled, g.stalled),
        pair(h.skipped, g.skipped),
        pair(h.resimulated, g.resimulated),
        rate(r, RunResult::packets_per_second, 1),
        pair(h.resent, g.resent),
        rate(r, RunResult::payload_per_second, 0),
        rate(r, RunResult::wire_per_second, 0),
        rate(r, RunResult::session_micros_per_tick, 2),
        pair(rtt(h), rtt(g)),
        sync,
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

fn mean(r: &RunResult, f: impl Fn(&RunResult, usize) -> f64) -> f64 {
    (f(r, 0) + f(r, 1)) / 2.0
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

/// The issue-7 targets as markdown table rows (see [`targets_header`]), one
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
        let peers = [peer(0), peer(1)];
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
}
