//! Recorded matches: every tick's inputs, exportable and replayable offline.

use alloc::vec::Vec;
use core::fmt;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::game::DeterministicGame;

/// The first bytes of every exported input log.
pub const INPUT_LOG_MAGIC: [u8; 4] = *b"LSIL";

/// Version of the input log byte format written by [`InputLog::to_bytes`].
/// Version 1 (no starting state) is still read.
pub const INPUT_LOG_VERSION: u32 = 2;

/// The inputs of every simulated tick of one match, with what is needed to
/// replay it: the game build, the seed and the player count.
///
/// A session records one ([`Session::input_log`](crate::Session::input_log));
/// [`InputLog::replay`] runs it through a fresh game and checks the final
/// hash.
///
/// A log usually starts at tick 0, from the seed. The log of a member that
/// entered a running match from the host's saved state starts where that
/// state stands instead: [`start_tick`](Self::start_tick) and
/// [`start_state`](Self::start_state) (the bytes of
/// [`DeterministicGame::save`]) say where, and the inputs follow from
/// there. Ticks are counted from the match's start either way.
///
/// Byte format (postcard, see `docs/protocol.md`): the magic `LSIL`, the
/// format version (varint), the build id, seed and final hash (8 bytes
/// little-endian each), the player count and input delay (one byte each),
/// the start tick (varint) and the saved state (varint length and bytes,
/// none for a log from the seed), the count of recorded ticks (varint),
/// then the inputs (a varint length followed by `recorded ticks * players`
/// inputs, tick by tick, side 0 first).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputLog<I> {
    /// The build id of the game that played the match.
    pub build: u64,
    /// The match seed.
    pub seed: u64,
    /// Number of players (inputs per tick).
    pub players: u8,
    /// The input delay the match was played with (informational).
    pub input_delay: u8,
    /// `state_hash` after the last recorded tick (of the fresh game when no
    /// tick was recorded).
    pub final_hash: u64,
    /// The tick the log starts at: 0, or the tick of
    /// [`start_state`](Self::start_state).
    pub start_tick: u32,
    /// The game's saved state at [`start_tick`](Self::start_tick) (see
    /// [`DeterministicGame::save`]); empty when the log starts from the
    /// seed.
    pub start_state: Vec<u8>,
    /// Inputs, `players` per tick, tick by tick from
    /// [`start_tick`](Self::start_tick).
    pub inputs: Vec<I>,
}

/// Why bytes are not an input log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LogDecodeError {
    /// The bytes do not start with [`INPUT_LOG_MAGIC`].
    BadMagic,
    /// A format version this build cannot read.
    UnsupportedVersion(u32),
    /// The bytes are not a well-formed log (truncated, bad values).
    Malformed,
    /// Bytes are left over after the log.
    TrailingBytes(usize),
    /// The player count is 0, the input count is not `ticks * players`, or
    /// a start tick past 0 comes without a saved state (or the reverse).
    Inconsistent,
}

impl fmt::Display for LogDecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LogDecodeError::BadMagic => write!(f, "not an input log (bad magic)"),
            LogDecodeError::UnsupportedVersion(v) => {
                write!(f, "input log format version {v} is not supported")
            }
            LogDecodeError::Malformed => write!(f, "malformed input log"),
            LogDecodeError::TrailingBytes(n) => write!(f, "{n} trailing bytes after the log"),
            LogDecodeError::Inconsistent => write!(f, "input count does not match the ticks"),
        }
    }
}

impl core::error::Error for LogDecodeError {}

/// Why a replay did not reproduce the match.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReplayError {
    /// The log was recorded with another build of the game.
    BuildMismatch {
        /// Build id in the log.
        log: u64,
        /// Build id of the game replaying it.
        game: u64,
    },
    /// The replay ended on another hash than the one recorded.
    HashMismatch {
        /// Hash recorded in the log.
        expected: u64,
        /// Hash the replay produced.
        got: u64,
    },
    /// The player count is 0 or does not divide the inputs, or the start
    /// tick and the saved state disagree (one without the other).
    Inconsistent,
    /// The saved state the log starts from does not load in this game.
    BadStartState,
    /// A tick before the log's start was asked for (see
    /// [`InputLog::game_at`]).
    BeforeStart {
        /// The log's first tick.
        start: u32,
    },
    /// A tick past the log's end was asked for (see [`InputLog::game_at`]).
    PastEnd {
        /// The tick after the last one recorded.
        end: u32,
    },
}

impl fmt::Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReplayError::BuildMismatch { log, game } => {
                write!(
                    f,
                    "log build {log:#018x} differs from game build {game:#018x}"
                )
            }
            ReplayError::HashMismatch { expected, got } => {
                write!(
                    f,
                    "replay hash {got:#018x} differs from recorded {expected:#018x}"
                )
            }
            ReplayError::Inconsistent => {
                write!(f, "input count or starting state does not match the log")
            }
            ReplayError::BadStartState => write!(f, "the log's starting state does not load"),
            ReplayError::BeforeStart { start } => write!(f, "the log starts at tick {start}"),
            ReplayError::PastEnd { end } => write!(f, "the log ends at tick {end}"),
        }
    }
}

impl core::error::Error for ReplayError {}

#[derive(Serialize)]
struct LogOut<'a, I> {
    magic: [u8; 4],
    version: u32,
    build: [u8; 8],
    seed: [u8; 8],
    final_hash: [u8; 8],
    players: u8,
    input_delay: u8,
    start_tick: u32,
    start_state: &'a [u8],
    ticks: u32,
    inputs: &'a [I],
}

#[derive(Deserialize)]
struct LogHead {
    magic: [u8; 4],
    version: u32,
}

#[derive(Deserialize)]
struct LogIn<I> {
    _magic: [u8; 4],
    _version: u32,
    build: [u8; 8],
    seed: [u8; 8],
    final_hash: [u8; 8],
    players: u8,
    input_delay: u8,
    start_tick: u32,
    start_state: Vec<u8>,
    ticks: u32,
    inputs: Vec<I>,
}

/// Version 1: every log started from the seed.
#[derive(Deserialize)]
struct LogInV1<I> {
    _magic: [u8; 4],
    _version: u32,
    build: [u8; 8],
    seed: [u8; 8],
    final_hash: [u8; 8],
    players: u8,
    input_delay: u8,
    ticks: u32,
    inputs: Vec<I>,
}

impl<I> From<LogInV1<I>> for LogIn<I> {
    fn from(v1: LogInV1<I>) -> Self {
        LogIn {
            _magic: v1._magic,
            _version: v1._version,
            build: v1.build,
            seed: v1.seed,
            final_hash: v1.final_hash,
            players: v1.players,
            input_delay: v1.input_delay,
            start_tick: 0,
            start_state: Vec::new(),
            ticks: v1.ticks,
            inputs: v1.inputs,
        }
    }
}

impl<I> InputLog<I> {
    /// The tick after the last one recorded, counted from the match's
    /// start: the ticks a replay reaches ([`start_tick`](Self::start_tick)
    /// plus [`recorded_ticks`](Self::recorded_ticks)).
    #[must_use]
    pub fn ticks(&self) -> u32 {
        self.start_tick.saturating_add(self.recorded_ticks())
    }

    /// Number of complete ticks whose inputs the log holds.
    #[must_use]
    pub fn recorded_ticks(&self) -> u32 {
        if self.players == 0 {
            return 0;
        }
        u32::try_from(self.inputs.len() / usize::from(self.players)).unwrap_or(u32::MAX)
    }

    /// The inputs of tick `t`, counted from the match's start (one per
    /// player, side 0 first); `None` before [`start_tick`](Self::start_tick)
    /// and past the end.
    #[must_use]
    pub fn tick_inputs(&self, t: u32) -> Option<&[I]> {
        let p = usize::from(self.players);
        let row = t.checked_sub(self.start_tick)?;
        let start = usize::try_from(row).ok()?.checked_mul(p)?;
        self.inputs.get(start..start.checked_add(p)?)
    }

    /// Whether the start tick and the saved state agree: both absent (a
    /// log from the seed) or both present.
    fn start_is_whole(&self) -> bool {
        (self.start_tick == 0) == self.start_state.is_empty()
    }
}

impl<I: Copy + Serialize + DeserializeOwned> InputLog<I> {
    /// Exports the log in the versioned byte format.
    ///
    /// Fails only when the input type cannot be serialized by postcard,
    /// which `Session::new` rules out for logs a session records.
    pub fn to_bytes(&self) -> Result<Vec<u8>, postcard::Error> {
        postcard::to_allocvec(&LogOut {
            magic: INPUT_LOG_MAGIC,
            version: INPUT_LOG_VERSION,
            build: self.build.to_le_bytes(),
            seed: self.seed.to_le_bytes(),
            final_hash: self.final_hash.to_le_bytes(),
            players: self.players,
            input_delay: self.input_delay,
            start_tick: self.start_tick,
            start_state: &self.start_state,
            ticks: self.recorded_ticks(),
            inputs: &self.inputs,
        })
    }

    /// Reads a log exported by [`to_bytes`](Self::to_bytes) (or by a build
    /// that wrote format version 1), strictly: wrong magic, other versions,
    /// truncation, trailing bytes, an input count that does not match the
    /// ticks and a start tick without a saved state (or the reverse) are
    /// errors.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, LogDecodeError> {
        let (head, _) =
            postcard::take_from_bytes::<LogHead>(bytes).map_err(|_| LogDecodeError::BadMagic)?;
        if head.magic != INPUT_LOG_MAGIC {
            return Err(LogDecodeError::BadMagic);
        }
        let (log, rest) = match head.version {
            1 => postcard::take_from_bytes::<LogInV1<I>>(bytes).map(|(l, r)| (LogIn::from(l), r)),
            INPUT_LOG_VERSION => postcard::take_from_bytes::<LogIn<I>>(bytes),
            v => return Err(LogDecodeError::UnsupportedVersion(v)),
        }
        .map_err(|_| LogDecodeError::Malformed)?;
        if !rest.is_empty() {
            return Err(LogDecodeError::TrailingBytes(rest.len()));
        }
        let expected = u64::from(log.ticks) * u64::from(log.players);
        if log.players == 0
            || expected != log.inputs.len() as u64
            || log.start_tick.checked_add(log.ticks).is_none()
        {
            return Err(LogDecodeError::Inconsistent);
        }
        let decoded = InputLog {
            build: u64::from_le_bytes(log.build),
            seed: u64::from_le_bytes(log.seed),
            players: log.players,
            input_delay: log.input_delay,
            final_hash: u64::from_le_bytes(log.final_hash),
            start_tick: log.start_tick,
            start_state: log.start_state,
            inputs: log.inputs,
        };
        if !decoded.start_is_whole() {
            return Err(LogDecodeError::Inconsistent);
        }
        Ok(decoded)
    }

    /// Replays the match in a fresh `G` and returns the final state hash,
    /// after checking it equals the recorded [`final_hash`](Self::final_hash).
    pub fn replay<G: DeterministicGame<Input = I>>(&self) -> Result<u64, ReplayError> {
        let game = self.replay_game::<G>()?;
        let got = game.state_hash();
        if got != self.final_hash {
            return Err(ReplayError::HashMismatch {
                expected: self.final_hash,
                got,
            });
        }
        Ok(got)
    }

    /// Replays the match in a fresh `G` and returns the game after the last
    /// tick, without checking the final hash (for inspecting a diverging
    /// replay).
    pub fn replay_game<G: DeterministicGame<Input = I>>(&self) -> Result<G, ReplayError> {
        self.game_at(self.ticks())
    }

    /// The game at the log's first tick ([`start_tick`](Self::start_tick)):
    /// a fresh `G` from the seed, or the saved state loaded.
    pub fn start_game<G: DeterministicGame<Input = I>>(&self) -> Result<G, ReplayError> {
        if self.build != G::BUILD_ID {
            return Err(ReplayError::BuildMismatch {
                log: self.build,
                game: G::BUILD_ID,
            });
        }
        let p = usize::from(self.players);
        if p == 0 || !self.inputs.len().is_multiple_of(p) || !self.start_is_whole() {
            return Err(ReplayError::Inconsistent);
        }
        if self.start_state.is_empty() {
            Ok(G::new(self.seed, self.players))
        } else {
            G::load(&self.start_state).ok_or(ReplayError::BadStartState)
        }
    }

    /// The game after `tick` ticks (counted from the match's start), replayed
    /// from the log's start; `tick` lies between
    /// [`start_tick`](Self::start_tick) and [`ticks`](Self::ticks).
    pub fn game_at<G: DeterministicGame<Input = I>>(&self, tick: u32) -> Result<G, ReplayError> {
        let mut game = self.start_game::<G>()?;
        if tick < self.start_tick {
            return Err(ReplayError::BeforeStart {
                start: self.start_tick,
            });
        }
        if tick > self.ticks() {
            return Err(ReplayError::PastEnd { end: self.ticks() });
        }
        let p = usize::from(self.players);
        let rows = (tick - self.start_tick) as usize;
        for inputs in self.inputs.chunks_exact(p).take(rows) {
            game.step(inputs);
        }
        Ok(game)
    }
}
