//! The desync report: what a player downloads after a desync, and what a
//! developer replays with another build to find where it diverges.
//!
//! A report holds the match's input log cut at the first diverging tick
//! (both players' inputs, the seed, the build id, and the writer's state
//! hash at that tick), the writer's side, the peer's hash, every part with
//! the writer's hash, the peer's hash when it arrived and, where the game
//! can print it, the writer's value; and the writer's state hash after
//! every tick up to the desync, so a replay finds the first tick where
//! another build parts ways with the writer's.
//!
//! Byte format (postcard; `docs/protocol.md`): the magic `LSDR`, the format
//! version (varint), the input log's own bytes (a length-prefixed byte
//! string, [`InputLog::to_bytes`]), the writer's side (one byte), the
//! peer's hash (8 bytes little-endian), the parts (a count, then for each
//! its name as a string, the writer's hash, an optional peer hash and an
//! optional value), and the trace (a count, then 8 bytes per tick).
//! Decoding is strict: the whole file is capped at
//! [`MAX_REPORT_BYTES`], every count and string at its own cap, trailing
//! bytes and non-canonical encodings are refused.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::{Capped, StatePart, MAX_PARTS, MAX_PART_NAME};
use crate::game::DeterministicGame;
use crate::input_log::{InputLog, LogDecodeError};
use crate::session::Outcome;

/// The first bytes of every desync report.
pub const REPORT_MAGIC: [u8; 4] = *b"LSDR";

/// Version of the report format written by [`DesyncReport::to_bytes`].
pub const REPORT_VERSION: u32 = 1;

/// The largest report file, in bytes.
pub const MAX_REPORT_BYTES: usize = 4 << 20;

/// The most ticks a report covers: one hour at 60 ticks per second.
pub const MAX_REPORT_TICKS: u32 = 216_000;

/// The longest printed value of one part, in bytes (longer ones are cut
/// at a character boundary when written).
pub const MAX_PART_VALUE: usize = 512;

/// One part of the state at the desync tick, as the report records it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportPart {
    /// The part's name (at most [`MAX_PART_NAME`] bytes, printable).
    pub name: String,
    /// The writer's hash of the part.
    pub local: u64,
    /// The peer's hash of the part, if it arrived.
    pub remote: Option<u64>,
    /// The writer's value of the part, as the game prints it.
    pub value: Option<String>,
}

/// A desync report (see the module documentation).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DesyncReport<I> {
    /// Every player's inputs up to the desync tick; its `final_hash` is
    /// the writer's state hash at that tick.
    pub log: InputLog<I>,
    /// The writer's slot (0 host, 1 and up the guests).
    pub side: u8,
    /// The peer's state hash at the desync tick.
    pub remote_hash: u64,
    /// The parts at the desync tick, in the game's order (empty for a game
    /// without parts).
    pub parts: Vec<ReportPart>,
    /// The writer's state hash after each tick its log holds, from the
    /// log's start to the desync tick (entry `i` after tick
    /// `start_tick + i + 1`), or empty.
    pub trace: Vec<u64>,
}

/// Why a report could not be written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WriteError {
    /// The outcome is not a desync.
    NotADesync,
    /// The input log holds fewer ticks than the desync's tick, or more
    /// than [`MAX_REPORT_TICKS`].
    TicksOutOfRange {
        /// The desync's tick.
        tick: u32,
        /// The ticks the log holds.
        logged: u32,
    },
    /// The log's build is not the game's.
    BuildMismatch,
    /// A part name is empty, too long or not printable ASCII.
    BadPartName,
    /// The game's input type does not encode.
    Encode,
}

/// Why bytes are not a desync report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReportDecodeError {
    /// More than [`MAX_REPORT_BYTES`].
    TooLarge(usize),
    /// The bytes do not start with [`REPORT_MAGIC`].
    BadMagic,
    /// A format version this build cannot read.
    UnsupportedVersion(u32),
    /// Truncated, a count or string over its cap, a bad value.
    Malformed,
    /// Bytes left over after the report.
    TrailingBytes(usize),
    /// The embedded input log does not decode.
    Log(LogDecodeError),
    /// The parts, trace or side do not fit the log (a player count
    /// outside 2 to 8, a side (slot) not below it, a trace that is neither
    /// empty nor one hash per tick, too many ticks, a bad part name).
    Inconsistent(&'static str),
    /// The bytes decode, but not to the canonical encoding of the report.
    NonCanonical,
}

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WriteError::NotADesync => write!(f, "the match did not end in a desync"),
            WriteError::TicksOutOfRange { tick, logged } => {
                write!(f, "desync at tick {tick}, but the log holds {logged} ticks")
            }
            WriteError::BuildMismatch => write!(f, "the log was played by another build"),
            WriteError::BadPartName => write!(f, "a part name is empty, too long or not ASCII"),
            WriteError::Encode => write!(f, "the game's inputs do not encode"),
        }
    }
}

impl core::error::Error for WriteError {}

impl fmt::Display for ReportDecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReportDecodeError::TooLarge(n) => {
                write!(f, "{n} bytes is more than a desync report may hold")
            }
            ReportDecodeError::BadMagic => write!(f, "not a desync report (bad magic)"),
            ReportDecodeError::UnsupportedVersion(v) => {
                write!(f, "desync report format version {v} is not supported")
            }
            ReportDecodeError::Malformed => write!(f, "malformed desync report"),
            ReportDecodeError::TrailingBytes(n) => write!(f, "{n} trailing bytes after the report"),
            ReportDecodeError::Log(e) => write!(f, "the report's input log: {e}"),
            ReportDecodeError::Inconsistent(what) => {
                write!(f, "inconsistent desync report: {what}")
            }
            ReportDecodeError::NonCanonical => write!(f, "non-canonical desync report"),
        }
    }
}

impl core::error::Error for ReportDecodeError {}

#[derive(Serialize, Deserialize)]
struct PartWire {
    name: String,
    local: [u8; 8],
    remote: Option<[u8; 8]>,
    value: Option<String>,
}

#[derive(Serialize, Deserialize)]
struct ReportWire {
    magic: [u8; 4],
    version: u32,
    log: Capped<u8, MAX_REPORT_BYTES>,
    side: u8,
    remote_hash: [u8; 8],
    parts: Capped<PartWire, MAX_PARTS>,
    trace: Capped<[u8; 8], { MAX_REPORT_TICKS as usize }>,
}

#[derive(Deserialize)]
struct Head {
    magic: [u8; 4],
    version: u32,
}

fn name_ok(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_PART_NAME
        && name.bytes().all(|b| b.is_ascii_graphic() || b == b' ')
}

/// `s` cut to at most `max` bytes, at a character boundary.
fn cut(mut s: String, max: usize) -> String {
    if s.len() > max {
        let mut end = max;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        s.truncate(end);
    }
    s
}

/// The game after replaying `log` to tick `ticks` (counted from the
/// match's start), whatever build recorded it, calling `each` with the
/// state after every tick. A log that starts from a saved state starts
/// there; the flag says whether that state loaded in this build (if not,
/// the replay runs from the seed and cannot match the writer's).
fn replay_to<G: DeterministicGame>(
    log: &InputLog<G::Input>,
    ticks: u32,
    mut each: impl FnMut(u32, &G),
) -> (G, bool) {
    let loaded = if log.start_state.is_empty() {
        None
    } else {
        G::load(&log.start_state)
    };
    let started = log.start_state.is_empty() || loaded.is_some();
    let mut game = loaded.unwrap_or_else(|| G::new(log.seed, log.players));
    for t in log.start_tick..ticks {
        if let Some(inputs) = log.tick_inputs(t) {
            game.step(inputs);
            each(t + 1, &game);
        }
    }
    (game, started)
}

impl<I: Copy + Serialize + DeserializeOwned> DesyncReport<I> {
    /// Writes the report of a match that ended in `outcome` (a desync)
    /// after recording `log` (the session's
    /// [`input_log`](crate::Session::input_log)) on side `side`.
    ///
    /// It replays the log to the desync tick with `G` for the trace, and
    /// asks `describe` for each part's printed value (`None` where the game
    /// cannot print a part).
    pub fn write<G: DeterministicGame<Input = I>>(
        log: &InputLog<I>,
        side: u8,
        outcome: &Outcome,
        describe: impl Fn(&G, &str) -> Option<String>,
    ) -> Result<Self, WriteError> {
        Self::write_replayed(log, side, outcome, describe).map(|(report, _)| report)
    }

    /// As [`write`](Self::write), and also hands back the game as it was
    /// at the desync tick (the replay the report was written from), for a
    /// caller that words a message from it without replaying again.
    pub fn write_replayed<G: DeterministicGame<Input = I>>(
        log: &InputLog<I>,
        side: u8,
        outcome: &Outcome,
        describe: impl Fn(&G, &str) -> Option<String>,
    ) -> Result<(Self, G), WriteError> {
        let Outcome::Desync {
            tick,
            local,
            remote,
            parts,
            ..
        } = outcome
        else {
            return Err(WriteError::NotADesync);
        };
        if log.build != G::BUILD_ID {
            return Err(WriteError::BuildMismatch);
        }
        let logged = log.ticks();
        if *tick > logged || *tick > MAX_REPORT_TICKS || *tick <= log.start_tick {
            return Err(WriteError::TicksOutOfRange {
                tick: *tick,
                logged,
            });
        }
        if parts.local.iter().any(|p| !name_ok(p.name)) || parts.local.len() > MAX_PARTS {
            return Err(WriteError::BadPartName);
        }
        let rows = (*tick - log.start_tick) as usize;
        let cut_at = rows * usize::from(log.players);
        let mut trace = Vec::with_capacity(rows);
        let (game, _) = replay_to(log, *tick, |_, g: &G| trace.push(g.state_hash()));
        let report = DesyncReport {
            log: InputLog {
                build: log.build,
                seed: log.seed,
                players: log.players,
                input_delay: log.input_delay,
                final_hash: *local,
                start_tick: log.start_tick,
                start_state: log.start_state.clone(),
                inputs: log.inputs.get(..cut_at).unwrap_or(&log.inputs).to_vec(),
            },
            side,
            remote_hash: *remote,
            parts: parts
                .local
                .iter()
                .enumerate()
                .map(|(i, p)| ReportPart {
                    name: String::from(p.name),
                    local: p.hash,
                    remote: parts.remote.get(i).copied(),
                    value: describe(&game, p.name).map(|v| cut(v, MAX_PART_VALUE)),
                })
                .collect(),
            trace,
        };
        // Make sure what is handed out also reads back.
        report.to_bytes().map_err(|_| WriteError::Encode)?;
        Ok((report, game))
    }

    /// The desync tick (the ticks the log holds).
    #[must_use]
    pub fn tick(&self) -> u32 {
        self.log.ticks()
    }

    /// The writer's state hash at the desync tick.
    #[must_use]
    pub fn local_hash(&self) -> u64 {
        self.log.final_hash
    }

    /// The names of the parts whose writer and peer hashes differ.
    #[must_use]
    pub fn differing(&self) -> Vec<&str> {
        self.parts
            .iter()
            .filter(|p| p.remote.is_some_and(|r| r != p.local))
            .map(|p| p.name.as_str())
            .collect()
    }

    /// The report in its byte format.
    ///
    /// Fails only when the input type does not encode with postcard.
    pub fn to_bytes(&self) -> Result<Vec<u8>, postcard::Error> {
        let log = self.log.to_bytes()?;
        let wire = ReportWire {
            magic: REPORT_MAGIC,
            version: REPORT_VERSION,
            log: Capped(log),
            side: self.side,
            remote_hash: self.remote_hash.to_le_bytes(),
            parts: Capped(
                self.parts
                    .iter()
                    .map(|p| PartWire {
                        name: p.name.clone(),
                        local: p.local.to_le_bytes(),
                        remote: p.remote.map(u64::to_le_bytes),
                        value: p.value.clone(),
                    })
                    .collect(),
            ),
            trace: Capped(self.trace.iter().map(|h| h.to_le_bytes()).collect()),
        };
        postcard::to_allocvec(&wire)
    }

    /// Reads a report strictly (see the module documentation).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, ReportDecodeError> {
        if bytes.len() > MAX_REPORT_BYTES {
            return Err(ReportDecodeError::TooLarge(bytes.len()));
        }
        let (head, _) =
            postcard::take_from_bytes::<Head>(bytes).map_err(|_| ReportDecodeError::BadMagic)?;
        if head.magic != REPORT_MAGIC {
            return Err(ReportDecodeError::BadMagic);
        }
        if head.version != REPORT_VERSION {
            return Err(ReportDecodeError::UnsupportedVersion(head.version));
        }
        let (wire, rest) = postcard::take_from_bytes::<ReportWire>(bytes)
            .map_err(|_| ReportDecodeError::Malformed)?;
        if !rest.is_empty() {
            return Err(ReportDecodeError::TrailingBytes(rest.len()));
        }
        let log = InputLog::<I>::from_bytes(&wire.log.0).map_err(ReportDecodeError::Log)?;
        let ticks = log.ticks();
        let recorded = log.recorded_ticks();
        if !(2..=crate::wire::MAX_PLAYERS).contains(&log.players) {
            return Err(ReportDecodeError::Inconsistent("players"));
        }
        if wire.side >= log.players {
            return Err(ReportDecodeError::Inconsistent("side"));
        }
        if recorded == 0 || ticks > MAX_REPORT_TICKS {
            return Err(ReportDecodeError::Inconsistent("ticks"));
        }
        if !wire.trace.0.is_empty() && wire.trace.0.len() != recorded as usize {
            return Err(ReportDecodeError::Inconsistent("trace"));
        }
        let mut parts = Vec::with_capacity(wire.parts.0.len());
        for p in wire.parts.0 {
            if !name_ok(&p.name) {
                return Err(ReportDecodeError::Inconsistent("part name"));
            }
            if p.value.as_ref().is_some_and(|v| v.len() > MAX_PART_VALUE) {
                return Err(ReportDecodeError::Inconsistent("part value"));
            }
            parts.push(ReportPart {
                name: p.name,
                local: u64::from_le_bytes(p.local),
                remote: p.remote.map(u64::from_le_bytes),
                value: p.value,
            });
        }
        let report = DesyncReport {
            log,
            side: wire.side,
            remote_hash: u64::from_le_bytes(wire.remote_hash),
            parts,
            trace: wire.trace.0.into_iter().map(u64::from_le_bytes).collect(),
        };
        match report.to_bytes() {
            Ok(again) if again == bytes => Ok(report),
            _ => Err(ReportDecodeError::NonCanonical),
        }
    }

    /// This build's `G` after `tick` ticks of the report's inputs (counted
    /// from the match's start; from the log's saved starting state where it
    /// has one and this build loads it), whatever build wrote the report.
    #[must_use]
    pub fn game_at<G: DeterministicGame<Input = I>>(&self, tick: u32) -> G {
        replay_to(&self.log, tick.min(self.tick()), |_, _: &G| {}).0
    }

    /// Replays the report with this build's `G` (even when the build id
    /// differs: that is the point) and says where it parts ways with the
    /// writer and the peer.
    #[must_use]
    pub fn replay<G: DeterministicGame<Input = I>>(&self) -> Replayed<G> {
        let mut first_diverging_tick = None;
        let start = self.log.start_tick;
        let (game, started): (G, bool) = replay_to(&self.log, self.tick(), |t, g: &G| {
            let recorded = self.trace.get((t - start) as usize - 1);
            if first_diverging_tick.is_none() && recorded.is_some_and(|&h| h != g.state_hash()) {
                first_diverging_tick = Some(t);
            }
        });
        // A saved state this build cannot load parts ways at the start.
        if !started {
            first_diverging_tick = Some(start);
        }
        let parts = game.state_parts();
        let by_name = |name: &str| self.parts.iter().find(|p| p.name == name);
        let differs = |peer: bool| -> Vec<&'static str> {
            parts
                .iter()
                .filter(|p| {
                    let recorded =
                        by_name(p.name).and_then(|r| if peer { r.remote } else { Some(r.local) });
                    recorded.is_some_and(|h| h != p.hash)
                })
                .map(|p| p.name)
                .collect()
        };
        Replayed {
            same_build: self.log.build == G::BUILD_ID,
            first_diverging_tick,
            hash: game.state_hash(),
            differ_from_writer: differs(false),
            differ_from_peer: differs(true),
            parts,
            game,
        }
    }
}

/// What replaying a report with one build found ([`DesyncReport::replay`]).
#[derive(Debug, Clone)]
pub struct Replayed<G> {
    /// Whether the build replaying is the build that wrote the report.
    pub same_build: bool,
    /// The first tick after which this build's state hash differs from
    /// the writer's trace (`None`: the same at every tick, or no trace).
    pub first_diverging_tick: Option<u32>,
    /// This build's state hash at the desync tick.
    pub hash: u64,
    /// This build's parts at the desync tick.
    pub parts: Vec<StatePart>,
    /// The parts whose hash differs from the writer's.
    pub differ_from_writer: Vec<&'static str>,
    /// The parts whose hash differs from the peer's (where it arrived).
    pub differ_from_peer: Vec<&'static str>,
    /// This build's game at the desync tick (to print parts from).
    pub game: G,
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;
    use alloc::vec;

    fn sample() -> DesyncReport<u8> {
        DesyncReport {
            log: InputLog {
                build: 7,
                seed: 9,
                players: 2,
                input_delay: 3,
                final_hash: 11,
                start_tick: 0,
                start_state: vec![],
                inputs: vec![1, 2, 3, 4],
            },
            side: 1,
            remote_hash: 12,
            parts: vec![ReportPart {
                name: "the ball".to_string(),
                local: 5,
                remote: Some(6),
                value: Some("x: 1".to_string()),
            }],
            trace: vec![20, 11],
        }
    }

    fn decode(r: &DesyncReport<u8>) -> Result<DesyncReport<u8>, ReportDecodeError> {
        // Cannot fail: u8 inputs always encode.
        DesyncReport::from_bytes(&r.to_bytes().expect("encodes"))
    }

    #[test]
    fn a_report_round_trips() {
        let r = sample();
        assert_eq!(decode(&r), Ok(r.clone()));
        assert_eq!(r.tick(), 2);
        assert_eq!(r.local_hash(), 11);
        assert_eq!(r.differing(), vec!["the ball"]);
        // Cannot fail: u8 inputs always encode.
        let bytes = r.to_bytes().expect("encodes");
        assert_eq!(&bytes[..5], b"LSDR\x01");
    }

    #[test]
    fn inconsistent_reports_are_refused() {
        let bad = |f: &dyn Fn(&mut DesyncReport<u8>)| {
            let mut r = sample();
            f(&mut r);
            decode(&r)
        };
        let inconsistent = ReportDecodeError::Inconsistent;
        assert_eq!(bad(&|r| r.side = 2), Err(inconsistent("side")));
        assert_eq!(bad(&|r| r.trace.push(1)), Err(inconsistent("trace")));
        assert_eq!(bad(&|r| r.log.inputs.clear()), Err(inconsistent("ticks")));
        assert_eq!(
            bad(&|r| r.parts[0].name = "x".repeat(MAX_PART_NAME + 1)),
            Err(inconsistent("part name"))
        );
        assert_eq!(
            bad(&|r| r.parts[0].name = "tab\there".to_string()),
            Err(inconsistent("part name"))
        );
        assert_eq!(
            bad(&|r| r.parts[0].value = Some("v".repeat(MAX_PART_VALUE + 1))),
            Err(inconsistent("part value"))
        );
        assert_eq!(
            bad(&|r| {
                r.log.players = 9;
                r.log.inputs = vec![0; 18];
                r.trace = vec![0; 2];
            }),
            Err(inconsistent("players"))
        );
        // Three players are fine; the writer's slot must be one of them.
        assert!(bad(&|r| {
            r.log.players = 3;
            r.log.inputs = vec![0; 6];
            r.trace = vec![0; 2];
        })
        .is_ok());
        // Over the cap of parts: refused before reading them.
        let mut r = sample();
        r.parts = vec![r.parts[0].clone(); MAX_PARTS + 1];
        assert_eq!(decode(&r), Err(ReportDecodeError::Malformed));
    }

    #[test]
    fn garbage_is_refused() {
        assert_eq!(
            DesyncReport::<u8>::from_bytes(&[]),
            Err(ReportDecodeError::BadMagic)
        );
        assert_eq!(
            DesyncReport::<u8>::from_bytes(b"LSIL\x01"),
            Err(ReportDecodeError::BadMagic)
        );
        assert_eq!(
            DesyncReport::<u8>::from_bytes(b"LSDR\x02rest"),
            Err(ReportDecodeError::UnsupportedVersion(2))
        );
        let huge = vec![0u8; MAX_REPORT_BYTES + 1];
        assert_eq!(
            DesyncReport::<u8>::from_bytes(&huge),
            Err(ReportDecodeError::TooLarge(MAX_REPORT_BYTES + 1))
        );
        // A log length claimed far beyond the bytes there.
        assert_eq!(
            DesyncReport::<u8>::from_bytes(b"LSDR\x01\xff\xff\xff\x7f"),
            Err(ReportDecodeError::Malformed)
        );
        // An embedded log that is not one.
        // Cannot fail: u8 inputs always encode.
        let mut bytes = sample().to_bytes().expect("encodes");
        bytes[6] = b'X'; // inside the log's magic
        assert_eq!(
            DesyncReport::<u8>::from_bytes(&bytes),
            Err(ReportDecodeError::Log(LogDecodeError::BadMagic))
        );
    }

    #[test]
    fn long_values_are_cut_at_a_character_boundary() {
        let s = "é".repeat(MAX_PART_VALUE);
        let c = cut(s, MAX_PART_VALUE + 1);
        assert_eq!(c.len(), MAX_PART_VALUE);
        assert!(name_ok("Away player 2") && !name_ok(""));
    }
}
