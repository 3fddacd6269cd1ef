//! Reading a desync report with this build (example `desync_report`).
//!
//! A report (`lockstep::DesyncReport`, downloaded from the page after a
//! desync) holds both players' inputs up to the first tick whose state
//! hashes differed, each part's hash on both sides and the writer's state
//! hash after every tick. [`explain`] replays it with this build's game
//! and says, in plain text: when the desync was found and which parts the
//! two peers disagreed on; the first tick after which this build's state
//! differs from the writer's; the parts where this build differs from the
//! writer and from the peer; and, where the game can print a part, this
//! build's value beside the writer's.

use std::fmt::Write as _;

use dots::Dots;
use lockstep::parts::in_words;
use lockstep::{DesyncReport, DeterministicGame, StatePart};
use ntba::Ntba;

/// A game the tool can replay: how to print a part, and when a state is
/// in game time.
pub trait Explained: DeterministicGame {
    /// The game's name.
    const NAME: &'static str;
    /// The part `name`'s value, if the game can print it.
    fn part_value(&self, name: &str) -> Option<String>;
    /// When this state is, in the game's own terms (" (at 1:23 in the
    /// first half)"), or nothing.
    fn when(&self) -> String;
}

impl Explained for Ntba {
    const NAME: &'static str = "NtBA";
    fn part_value(&self, name: &str) -> Option<String> {
        self.describe_part(name)
    }
    fn when(&self) -> String {
        format!(" ({})", self.game_time_in_words())
    }
}

impl Explained for Dots {
    const NAME: &'static str = "dots";
    fn part_value(&self, name: &str) -> Option<String> {
        if name == "the coin" {
            let (x, y) = self.coin();
            return Some(format!("at ({x}, {y})"));
        }
        let i = dots::PLAYER_NAMES.iter().position(|n| *n == name)?;
        self.players().get(i).map(|p| format!("{p:?}"))
    }
    fn when(&self) -> String {
        String::new()
    }
}

fn names(v: &[&str]) -> String {
    if v.is_empty() {
        "nothing".to_owned()
    } else {
        in_words(v)
    }
}

/// Replays `report` with this build's `G` and explains it (see the
/// module documentation). Infallible: a decoded report always replays.
#[must_use]
pub fn explain<G: Explained>(report: &DesyncReport<G::Input>) -> String {
    let mut out = String::new();
    let log = &report.log;
    let tick = report.tick();
    let r = report.replay::<G>();
    let side = if report.side == 0 { "host" } else { "guest" };
    // Writing to a String cannot fail.
    let _ = writeln!(
        out,
        "{} desync report written by the {side}: build {:#018x}, seed {:#018x}, {} players",
        G::NAME,
        log.build,
        log.seed,
        log.players
    );
    let _ = writeln!(
        out,
        "the hashes differed at tick {tick}{}: the writer's {:#018x}, the peer's {:#018x}",
        r.game.when(),
        report.local_hash(),
        report.remote_hash
    );
    if report.parts.is_empty() {
        let _ = writeln!(out, "the report names no parts (the game describes none)");
    } else if report.parts.iter().all(|p| p.remote.is_none()) {
        let _ = writeln!(out, "the peer's part hashes did not arrive");
    } else {
        let _ = writeln!(
            out,
            "the peers' parts that differ: {}",
            names(&report.differing())
        );
    }
    let build = if r.same_build {
        "the same build as the writer's".to_owned()
    } else {
        format!("another build ({:#018x})", G::BUILD_ID)
    };
    let _ = writeln!(out, "replayed with this build, {build}:");
    match (r.first_diverging_tick, report.trace.is_empty()) {
        (_, true) => {
            let _ = writeln!(out, "  the report has no trace of the writer's hashes");
        }
        (None, false) => {
            let _ = writeln!(
                out,
                "  this build's state equals the writer's after every tick up to {tick}"
            );
        }
        (Some(t), false) => {
            let at: G = report.game_at(t);
            let _ = writeln!(
                out,
                "  this build first differs from the writer after tick {t}{}",
                at.when()
            );
        }
    }
    let agrees = |h: u64| if h == r.hash { "equal to" } else { "unlike" };
    let _ = writeln!(
        out,
        "  at tick {tick} its state hash {:#018x} is {} the writer's and {} the peer's",
        r.hash,
        agrees(report.local_hash()),
        agrees(report.remote_hash)
    );
    if !report.parts.is_empty() {
        let _ = writeln!(
            out,
            "  parts that differ from the writer's: {}",
            names(&r.differ_from_writer)
        );
        let _ = writeln!(
            out,
            "  parts that differ from the peer's: {}",
            names(&r.differ_from_peer)
        );
    }
    // Values: every part that differs somewhere, this build's beside the
    // writer's where both are printable.
    let shown = |p: &&StatePart| {
        r.differ_from_writer.contains(&p.name)
            || r.differ_from_peer.contains(&p.name)
            || report.differing().contains(&p.name)
    };
    for part in r.parts.iter().filter(shown) {
        let ours = r.game.part_value(part.name);
        let theirs = report
            .parts
            .iter()
            .find(|p| p.name == part.name)
            .and_then(|p| p.value.clone());
        if ours.is_none() && theirs.is_none() {
            continue;
        }
        let _ = writeln!(out, "{} at tick {tick}:", part.name);
        let na = || "(not printed)".to_owned();
        let _ = writeln!(out, "  this build: {}", ours.unwrap_or_else(na));
        let _ = writeln!(out, "  the writer: {}", theirs.unwrap_or_else(na));
    }
    out
}
