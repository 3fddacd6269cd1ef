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
    "| scenario | game | engine | running from ms | ticks | stalled | skipped | re-simulated | packets/s | payload B/s | payload + 48 B/packet, B/s | session µs/tick | RTT ms | in sync |\n\
     |---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n"
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
        "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
        r.scenario.label,
        r.game.name(),
        r.engine,
        pair(from(h), from(g)),
        pair(h.ticks, g.ticks),
        pair(h.stalled, g.stalled),
        pair(h.skipped, g.skipped),
        pair(h.resimulated, g.resimulated),
        rate(r, RunResult::packets_per_second, 1),
        rate(r, RunResult::payload_per_second, 0),
        rate(r, RunResult::wire_per_second, 0),
        rate(r, RunResult::session_micros_per_tick, 2),
        pair(rtt(h), rtt(g)),
        sync,
    )
}

/// Problems the peers reported (early ends, desyncs, errors), one line
/// each, and how many timed sections were left out as preempted; empty when
/// there were none.
#[must_use]
pub fn problems(r: &RunResult) -> String {
    let mut out = String::new();
    for p in &r.peers {
        if p.preempted > 0 {
            let _ = writeln!(
                out,
                "  {} {} {} side {}: {} of {} frames preempted (left out of µs/tick)",
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
                "  {} {} {} side {}: {problem}",
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

/// The issue-7 targets for every run of our session against the GGRS run
/// of the same scenario and game with GGRS's default prediction window (8;
/// failing that, the first GGRS run) in `results`: at most half of GGRS's
/// packets per second and of its bytes per second (payload plus 48 bytes
/// per packet), no more frames without a tick (stalled plus skipped) and no
/// more re-simulated ticks per minute of running time, no more session time
/// per tick. Every figure is the mean of host and guest.
#[must_use]
pub fn targets(results: &[RunResult]) -> String {
    let mut out = String::new();
    for ours in results {
        let Engine::Ours { .. } = ours.engine else {
            continue;
        };
        let same = |r: &&RunResult| r.scenario == ours.scenario && r.game == ours.game;
        let reference = results
            .iter()
            .filter(same)
            .find(|r| r.engine == Engine::Ggrs { window: 8 })
            .or_else(|| {
                results
                    .iter()
                    .filter(same)
                    .find(|r| matches!(r.engine, Engine::Ggrs { .. }))
            });
        if let Some(theirs) = reference {
            compare(&mut out, ours, theirs);
        }
    }
    out
}

fn compare(out: &mut String, ours: &RunResult, theirs: &RunResult) {
    let both = |f: fn(&RunResult, usize) -> f64| (mean(ours, f), mean(theirs, f));
    let pps = both(RunResult::packets_per_second);
    let wire = both(RunResult::wire_per_second);
    // Counts per minute of running time (GGRS's handshake takes longer, so
    // its peers run for less of the wall-clock time).
    let idle = both(|r, i| r.per_minute(i, r.peers[i].stalled + r.peers[i].skipped));
    let resim = both(|r, i| r.per_minute(i, r.peers[i].resimulated));
    let us = both(RunResult::session_micros_per_tick);
    let _ = writeln!(
        out,
        "{} {}, {} against {}:\n  packets/s {:.1} vs {:.1} (at most half: {}); \
         payload+48 B/s {:.0} vs {:.0} (at most half: {}); \
         frames without a tick per minute {:.1} vs {:.1} ({}); \
         re-simulated ticks per minute {:.1} vs {:.1} ({}); \
         session µs/tick {:.2} vs {:.2} ({})",
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
        resim.0,
        resim.1,
        verdict(resim.0 <= resim.1),
        us.0,
        us.1,
        verdict(us.0 <= us.1),
    );
}
