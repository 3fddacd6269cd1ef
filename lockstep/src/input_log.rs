//! Recorded matches: every tick's inputs, exportable and replayable offline.

use alloc::vec::Vec;
use core::fmt;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::game::DeterministicGame;

/// The first bytes of every exported input log.
pub const INPUT_LOG_MAGIC: [u8; 4] = *b"LSIL";

/// Version of the input log byte format written by [`InputLog::to_bytes`].
pub const INPUT_LOG_VERSION: u32 = 1;

/// The inputs of every simulated tick of one match, with what is needed to
/// replay it: the game build, the seed and the player count.
///
/// A session records one ([`Session::input_log`](crate::Session::input_log));
/// [`InputLog::replay`] runs it through a fresh game and checks the final
/// hash.
///
/// Byte format (postcard, see `docs/protocol.md`): the magic `LSIL`, the
/// format version (varint), the build id, seed and final hash (8 bytes
/// little-endian each), the player count and input delay (one byte each),
/// the tick count (varint), then the inputs (a varint length followed by
/// `ticks * players` inputs, tick by tick, side 0 first).
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
    /// Inputs, `players` per tick, tick by tick.
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
    /// The player count is 0, or the input count is not `ticks * players`.
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
    /// The player count is 0 or does not divide the inputs.
    Inconsistent,
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
            ReplayError::Inconsistent => write!(f, "input count does not match the players"),
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
    ticks: u32,
    inputs: Vec<I>,
}

impl<I> InputLog<I> {
    /// Number of complete ticks recorded.
    #[must_use]
    pub fn ticks(&self) -> u32 {
        if self.players == 0 {
            return 0;
        }
        u32::try_from(self.inputs.len() / usize::from(self.players)).unwrap_or(u32::MAX)
    }

    /// The inputs of tick `t` (one per player, side 0 first).
    #[must_use]
    pub fn tick_inputs(&self, t: u32) -> Option<&[I]> {
        let p = usize::from(self.players);
        let start = usize::try_from(t).ok()?.checked_mul(p)?;
        self.inputs.get(start..start.checked_add(p)?)
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
            ticks: self.ticks(),
            inputs: &self.inputs,
        })
    }

    /// Reads a log exported by [`to_bytes`](Self::to_bytes), strictly:
    /// wrong magic, other versions, truncation, trailing bytes and an input
    /// count that does not match the ticks are errors.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, LogDecodeError> {
        let (head, _) =
            postcard::take_from_bytes::<LogHead>(bytes).map_err(|_| LogDecodeError::BadMagic)?;
        if head.magic != INPUT_LOG_MAGIC {
            return Err(LogDecodeError::BadMagic);
        }
        if head.version != INPUT_LOG_VERSION {
            return Err(LogDecodeError::UnsupportedVersion(head.version));
        }
        let (log, rest) =
            postcard::take_from_bytes::<LogIn<I>>(bytes).map_err(|_| LogDecodeError::Malformed)?;
        if !rest.is_empty() {
            return Err(LogDecodeError::TrailingBytes(rest.len()));
        }
        let expected = u64::from(log.ticks) * u64::from(log.players);
        if log.players == 0 || expected != log.inputs.len() as u64 {
            return Err(LogDecodeError::Inconsistent);
        }
        Ok(InputLog {
            build: u64::from_le_bytes(log.build),
            seed: u64::from_le_bytes(log.seed),
            players: log.players,
            input_delay: log.input_delay,
            final_hash: u64::from_le_bytes(log.final_hash),
            inputs: log.inputs,
        })
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
        if self.build != G::BUILD_ID {
            return Err(ReplayError::BuildMismatch {
                log: self.build,
                game: G::BUILD_ID,
            });
        }
        let p = usize::from(self.players);
        if p == 0 || !self.inputs.len().is_multiple_of(p) {
            return Err(ReplayError::Inconsistent);
        }
        let mut game = G::new(self.seed, self.players);
        for tick in self.inputs.chunks_exact(p) {
            game.step(tick);
        }
        Ok(game)
    }
}
