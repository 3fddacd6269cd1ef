//! The lock-step session: a sans-IO state machine for one two-player match.

use alloc::collections::VecDeque;
use alloc::vec;
use alloc::vec::Vec;
use core::fmt;

use crate::game::DeterministicGame;
use crate::input_log::InputLog;
use crate::parts::{hashes_of, DesyncParts, PartHashes, PartsExchange, StatePart};
use crate::sync_test::SyncTestError;
use crate::time::Millis;
use crate::transport::{Channel, LinkState, Transport};
use crate::wire::{
    peek_hello_protocol, ByeReason, DecodeError, HashReport, Hello, Inputs, Message, Pong,
    MAX_INPUT_DELAY, MAX_PREDICTION_WINDOW, MAX_RUN, PROTOCOL_VERSION,
};

/// Default ticks between state hashes.
pub const DEFAULT_HASH_INTERVAL: u16 = 60;
/// Default frames between pings.
pub const DEFAULT_PING_INTERVAL_FRAMES: u16 = 30;
/// Default silence after which the session ends with [`Outcome::Timeout`].
pub const DEFAULT_TIMEOUT: Millis = Millis(5000);
/// Default time from the session's first call to the first tick, after
/// which it ends with [`Outcome::HandshakeTimeout`].
pub const DEFAULT_HANDSHAKE_TIMEOUT: Millis = Millis(10_000);
/// Default time this side may wait on the peer's next input, stalled,
/// before it ends with [`Outcome::NoProgress`].
pub const DEFAULT_PROGRESS_TIMEOUT: Millis = Millis(15_000);
/// The prediction window [`SessionConfig::rollback`] picks: how many ticks
/// a side may run ahead of the peer's inputs on predictions.
pub const DEFAULT_PREDICTION_WINDOW: u8 = 8;
/// The most frames in a row that a session in rollback mode holds back
/// its Inputs packet while it carries nothing the peer needs at once (see
/// [`SessionConfig::max_hold_frames`]).
pub const DEFAULT_MAX_HOLD_FRAMES: u8 = 2;
/// The largest [`SessionConfig::max_hold_frames`] (a quarter of a second).
pub const MAX_HOLD_FRAMES: u8 = 15;
/// Round trips measured before the host picks the input delay, when it
/// picks it from the round trip.
pub const HANDSHAKE_PINGS: usize = 5;

/// Milliseconds per tick at 60 ticks per second, times 3 (= 50), so tick
/// arithmetic on milliseconds stays in integers: `ticks = ms * 3 / 50`.
const MS_PER_3_TICKS: u64 = 50;
/// Time sync: a side skips a frame when its own view of its frame
/// advantage minus the peer's view reaches this many ticks (the half
/// difference, how far it runs ahead, is then 1.5 ticks or more). Below it
/// lies a dead band where the estimates' noise (jitter, a lost or held
/// packet) would cause skips that only hand the lead to the other side.
const SKIP_THRESHOLD: i32 = 3;
/// Frames between two time-synchronisation skips, at least.
const SKIP_SPACING_FRAMES: u32 = 20;
/// Rollback: ticks of room kept in the peer's prediction window when a
/// packet is held back (for jitter). More protects better against a
/// burst of losses but holds back less on a long trip, where the window
/// has little room to spare (`docs/benchmarks.md`, "Figures behind the
/// session's constants").
const HOLD_MARGIN_TICKS: i64 = 1;
/// Rollback: packets that leave at once, in consecutive frames, after the
/// local pad changes (more than one in case the first is lost).
const CHANGE_SENDS: u8 = 2;
/// Rollback: of the last 8 pings, how many lost (the ping or its pong) make
/// holding back keep room for one more lost packet (a round-trip loss of a
/// quarter or so).
const LOSSY_PING_LOSSES: u32 = 2;
/// Rollback: of the last 8 pings, how many lost stop holding back
/// altogether (a round-trip loss of a third or more): on such a link a
/// held packet followed by a lost one runs the peer's window out, and a
/// stalled frame costs a player more than a packet costs the link. Never
/// holding back would stall less still but double the packets on every
/// lossy link; a threshold of two cost re-simulation at low loss
/// (`docs/benchmarks.md`, "Figures behind the session's constants").
const NO_HOLD_PING_LOSSES: u32 = 3;
/// Frames between two frame-advantage reports, at least.
const ADVANTAGE_SPACING_FRAMES: u32 = 10;

/// How far (in ticks) beyond the proven bound a peer's inputs or hashes may
/// reach before the session calls it a flood. Two honest peers are never
/// more than `2 * delay + 2` input ticks apart.
const AHEAD_SLACK: u32 = 8;
/// Local hashes kept to answer a peer's hash or `Bye(Desync)`.
///
/// A hash is kept until the peer's hash for its tick (or a later one) has
/// arrived: the reliable channel delivers the peer's hashes in order, so
/// by then it has been compared. With a hash every tick on a very lossy
/// link, retransmissions hold the peer's hashes back by many ticks; the
/// bound (34 s of play at a hash every tick, far more at longer intervals)
/// is only reached by a reliable channel stuck that long, and the hashes
/// it drops then are not compared (logged at WARN).
const LOCAL_HASHES_KEPT: usize = 2048;
/// Pings kept waiting for their pong.
const PINGS_KEPT: usize = 8;
/// Delay from the round trip: pings kept waiting for their pong while the
/// host measures (one a frame; more than the 2 s a ping is waited for).
const PROBE_PINGS_KEPT: usize = 128;
/// Delay from the round trip: how long the host waits for the pong of a
/// measuring ping before forgetting it.
const PROBE_PING_EXPIRY: Millis = Millis(2000);

/// Which end of the match this session plays.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Side 0: picks the seed and the input delay (and the hash interval).
    Host {
        /// The match seed, passed to `DeterministicGame::new`.
        seed: u64,
        /// Ticks between sampling a local input and applying it.
        input_delay: u8,
    },
    /// Side 1: adopts the host's seed, input delay and hash interval from
    /// its Hello.
    Guest,
}

/// Settings of a [`Session`], built with `host`/`guest` and the chainable
/// setters, checked by [`Session::new`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[must_use]
pub struct SessionConfig {
    role: Role,
    hash_interval: u16,
    ping_interval_frames: u16,
    timeout: Millis,
    handshake_timeout: Millis,
    progress_timeout: Millis,
    prediction_window: u8,
    delay_from_rtt: bool,
    send_interval_frames: u8,
    max_hold_frames: u8,
}

impl SessionConfig {
    /// The host (side 0) of a match with this seed and input delay (ticks,
    /// at most [`MAX_INPUT_DELAY`]; 6 ticks = 100 ms is a good default on
    /// the internet). A delay of 0 is allowed, but then every tick waits for
    /// the peer's input sampled in the same frame, so even a perfect link
    /// runs at half speed: use at least 1.
    pub fn host(seed: u64, input_delay: u8) -> Self {
        SessionConfig {
            role: Role::Host { seed, input_delay },
            hash_interval: DEFAULT_HASH_INTERVAL,
            ping_interval_frames: DEFAULT_PING_INTERVAL_FRAMES,
            timeout: DEFAULT_TIMEOUT,
            handshake_timeout: DEFAULT_HANDSHAKE_TIMEOUT,
            progress_timeout: DEFAULT_PROGRESS_TIMEOUT,
            prediction_window: 0,
            delay_from_rtt: false,
            send_interval_frames: 1,
            max_hold_frames: DEFAULT_MAX_HOLD_FRAMES,
        }
    }

    /// The guest (side 1): seed, input delay and hash interval come from the
    /// host.
    pub fn guest() -> Self {
        SessionConfig {
            role: Role::Guest,
            hash_interval: DEFAULT_HASH_INTERVAL,
            ping_interval_frames: DEFAULT_PING_INTERVAL_FRAMES,
            timeout: DEFAULT_TIMEOUT,
            handshake_timeout: DEFAULT_HANDSHAKE_TIMEOUT,
            progress_timeout: DEFAULT_PROGRESS_TIMEOUT,
            prediction_window: 0,
            delay_from_rtt: false,
            send_interval_frames: 1,
            max_hold_frames: DEFAULT_MAX_HOLD_FRAMES,
        }
    }

    /// Ticks between state hashes (default 60). Only the host's value
    /// counts; the guest adopts it. Must not be 0.
    pub fn hash_interval(mut self, ticks: u16) -> Self {
        self.hash_interval = ticks;
        self
    }

    /// Frames between pings (default 30). Must not be 0. Keep it well
    /// under the timeout: while a side has no input to send, pings are
    /// what keeps the peer from timing it out.
    pub fn ping_interval_frames(mut self, frames: u16) -> Self {
        self.ping_interval_frames = frames;
        self
    }

    /// Silence (no datagram from the peer) after which the match ends with
    /// [`Outcome::Timeout`] (default 5 s). Must not be 0.
    pub fn timeout(mut self, timeout: Millis) -> Self {
        self.timeout = timeout;
        self
    }

    /// How long the handshake may take, from the session's first call (any
    /// method given the time) to the start of the match, before it ends
    /// with [`Outcome::HandshakeTimeout`] (default 10 s). Must not be 0.
    /// Both sides keep talking while they wait (pings), so the silence
    /// timeout does not end a handshake that is only slow; this bounds
    /// one that cannot finish: a link too poor for the Hellos or the
    /// host's round-trip measure to get through, or a peer that never
    /// sends its Hello.
    pub fn handshake_timeout(mut self, timeout: Millis) -> Self {
        self.handshake_timeout = timeout;
        self
    }

    /// How long this side may stall waiting for the peer's next input
    /// while the peer is still heard (it answers pings, say) before the
    /// match ends with [`Outcome::NoProgress`] (default 15 s). Must not be
    /// 0. Any new input from the peer, or any tick, starts the wait over.
    pub fn progress_timeout(mut self, timeout: Millis) -> Self {
        self.progress_timeout = timeout;
        self
    }

    /// How many ticks this side may simulate ahead of the peer's inputs,
    /// on predicted inputs (at most [`MAX_PREDICTION_WINDOW`]). 0, the
    /// default, is lock-step: a tick runs only when both inputs are known.
    /// Above 0 is rollback: a missing remote input is predicted (see
    /// [`DeterministicGame::predict_input`]), and when the real one differs
    /// the session restores the last correct state and re-simulates to the
    /// present within the same frame. Only the host's value counts; the
    /// guest adopts it from the host's Hello.
    pub fn prediction_window(mut self, ticks: u8) -> Self {
        self.prediction_window = ticks;
        self
    }

    /// Rollback mode with the default window of
    /// [`DEFAULT_PREDICTION_WINDOW`] ticks: `prediction_window(8)`.
    pub fn rollback(self) -> Self {
        self.prediction_window(DEFAULT_PREDICTION_WINDOW)
    }

    /// The host measures the round trip during the handshake
    /// ([`HANDSHAKE_PINGS`] round trips before the first tick) and picks the input
    /// delay from it (see [`delay_for_round_trips`]), instead of the fixed
    /// delay given to [`host`](Self::host). The guest adopts the result from
    /// the host's Hello as usual. No effect on a guest.
    pub fn input_delay_from_rtt(mut self) -> Self {
        self.delay_from_rtt = true;
        self
    }

    /// Frames between two Inputs packets (default 1: one per frame; must
    /// not be 0). 2 halves the packet rate for up to one frame (16.7 ms) of
    /// extra age on each input: lock-step needs a delay covering it (or it
    /// stalls more), rollback predicts up to a tick further. Nothing else
    /// changes: every packet still carries every unacknowledged input, and
    /// pings and pongs wait for the next packet (the pong says how long).
    /// Each side's own choice; the peer need not use the same.
    pub fn send_interval_frames(mut self, frames: u8) -> Self {
        self.send_interval_frames = frames;
        self
    }

    /// Rollback mode: the most frames in a row this side may hold back
    /// its Inputs packet while it carries nothing the peer needs at once
    /// (default [`DEFAULT_MAX_HOLD_FRAMES`]; 0 sends one every frame).
    ///
    /// A packet goes out at once when it carries a pad that differs from
    /// the one before it and the peer has not acknowledged it yet (the
    /// peer's repeat-last guess would be wrong), when it acknowledges such
    /// a change from the peer (so the peer stops resending it), or when
    /// the peer's prediction window could run out before the next packet.
    /// Otherwise the new pads equal the last one the peer knows, which it
    /// predicts anyway: holding them costs no re-simulation, and they, the
    /// acknowledgement, pings, pongs and the frame advantage ride on the
    /// next packet, at most this many frames later. Lock-step (window 0)
    /// always sends every frame, as does a side whose
    /// [`send_interval_frames`](Self::send_interval_frames) is above 1.
    /// Each side's own choice; the wire is unchanged.
    /// Values above [`MAX_HOLD_FRAMES`] count as that.
    pub fn max_hold_frames(mut self, frames: u8) -> Self {
        self.max_hold_frames = frames.min(MAX_HOLD_FRAMES);
        self
    }

    /// The role this configuration plays.
    #[must_use]
    pub fn role(&self) -> Role {
        self.role
    }

    /// The prediction window asked for (0 = lock-step).
    #[must_use]
    pub fn window(&self) -> u8 {
        self.prediction_window
    }

    fn validate(&self) -> Result<(), ConfigError> {
        if let Role::Host { input_delay, .. } = self.role {
            if input_delay > MAX_INPUT_DELAY {
                return Err(ConfigError::InputDelayTooLarge {
                    delay: input_delay,
                    max: MAX_INPUT_DELAY,
                });
            }
        }
        if self.prediction_window > MAX_PREDICTION_WINDOW {
            return Err(ConfigError::PredictionWindowTooLarge {
                window: self.prediction_window,
                max: MAX_PREDICTION_WINDOW,
            });
        }
        if self.hash_interval == 0 {
            return Err(ConfigError::ZeroHashInterval);
        }
        if self.ping_interval_frames == 0 {
            return Err(ConfigError::ZeroPingInterval);
        }
        if self.send_interval_frames == 0 {
            return Err(ConfigError::ZeroSendInterval);
        }
        if self.timeout == Millis::ZERO
            || self.handshake_timeout == Millis::ZERO
            || self.progress_timeout == Millis::ZERO
        {
            return Err(ConfigError::ZeroTimeout);
        }
        Ok(())
    }
}

/// A [`SessionConfig`] or game the session cannot work with (a mistake in
/// the calling program, not in anything a peer sent).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConfigError {
    /// The input delay is over [`MAX_INPUT_DELAY`].
    InputDelayTooLarge {
        /// The delay asked for.
        delay: u8,
        /// The largest allowed.
        max: u8,
    },
    /// The prediction window is over [`MAX_PREDICTION_WINDOW`].
    PredictionWindowTooLarge {
        /// The window asked for.
        window: u8,
        /// The largest allowed.
        max: u8,
    },
    /// A hash interval of 0.
    ZeroHashInterval,
    /// A ping interval of 0.
    ZeroPingInterval,
    /// A send interval of 0.
    ZeroSendInterval,
    /// A timeout of 0 (silence, handshake or progress).
    ZeroTimeout,
    /// The game's input type does not serialize with postcard.
    InputNotEncodable(postcard::Error),
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::InputDelayTooLarge { delay, max } => {
                write!(f, "input delay {delay} is over the maximum of {max} ticks")
            }
            ConfigError::PredictionWindowTooLarge { window, max } => {
                write!(
                    f,
                    "prediction window {window} is over the maximum of {max} ticks"
                )
            }
            ConfigError::ZeroHashInterval => write!(f, "hash interval must not be 0"),
            ConfigError::ZeroPingInterval => write!(f, "ping interval must not be 0"),
            ConfigError::ZeroSendInterval => write!(f, "send interval must not be 0"),
            ConfigError::ZeroTimeout => write!(f, "timeout must not be 0"),
            ConfigError::InputNotEncodable(e) => {
                write!(f, "the game's input type cannot be encoded: {e}")
            }
        }
    }
}

impl core::error::Error for ConfigError {}

/// What the peer did wrong, in [`Outcome::InvalidData`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Violation {
    /// A datagram failed strict decoding.
    Malformed {
        /// The channel it came on.
        channel: Channel,
        /// Why it was rejected.
        error: DecodeError,
    },
    /// A message arrived on the channel it must not use.
    WrongChannel {
        /// The channel it came on.
        received_on: Channel,
    },
    /// A second Hello.
    UnexpectedHello,
    /// The peer's Hello claims our own side.
    SideConflict {
        /// The side the peer claimed.
        remote_side: u8,
    },
    /// A state hash before the Hellos were exchanged (before the peer's
    /// Hello, or before this side sent its own).
    HashBeforeHello,
    /// An input for a tick differs from the one received earlier.
    ConflictingInput {
        /// The tick.
        tick: u32,
    },
    /// A run of inputs starts after the first one missing (honest peers
    /// always resend from our acknowledgement).
    InputGap {
        /// The first tick still missing.
        expected: u32,
        /// The tick the run started at.
        first: u32,
    },
    /// Inputs or a hash for ticks further ahead than an honest peer can be.
    TooFarAhead {
        /// The tick reached.
        tick: u32,
    },
    /// An acknowledgement of inputs never sent.
    AckBeyondSent {
        /// The ack received.
        ack: u32,
        /// How many inputs were sent.
        sent: u32,
    },
    /// A state hash for a tick that is not a later multiple of the interval.
    BadHashTick {
        /// The tick.
        tick: u32,
    },
    /// A `Bye(Desync)` for a tick this side never hashed, or whose two
    /// hashes it already compared and found equal.
    UnknownDesyncTick {
        /// The tick.
        tick: u32,
    },
    /// The peer ended the match saying *we* sent invalid data.
    RejectedByPeer,
    /// Part hashes for a tick this side is not waiting on (it sends its
    /// own only after finding that tick's hashes differ, which the peer
    /// finds too, first).
    UnexpectedParts {
        /// The tick.
        tick: u32,
    },
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Violation::Malformed { channel, error } => {
                write!(f, "malformed datagram on {channel:?}: {error}")
            }
            Violation::WrongChannel { received_on } => {
                write!(f, "message on the wrong channel ({received_on:?})")
            }
            Violation::UnexpectedHello => write!(f, "second Hello"),
            Violation::SideConflict { remote_side } => {
                write!(f, "peer claims our side {remote_side}")
            }
            Violation::HashBeforeHello => write!(f, "state hash before Hello"),
            Violation::ConflictingInput { tick } => write!(f, "conflicting input for tick {tick}"),
            Violation::InputGap { expected, first } => {
                write!(f, "inputs start at tick {first}, {expected} still missing")
            }
            Violation::TooFarAhead { tick } => write!(f, "tick {tick} is too far ahead"),
            Violation::AckBeyondSent { ack, sent } => {
                write!(f, "ack {ack} beyond the {sent} inputs sent")
            }
            Violation::BadHashTick { tick } => write!(f, "state hash for unexpected tick {tick}"),
            Violation::UnknownDesyncTick { tick } => {
                write!(f, "desync reported for unhashed tick {tick}")
            }
            Violation::UnexpectedParts { tick } => {
                write!(
                    f,
                    "part hashes for tick {tick}, which was not found to differ"
                )
            }
            Violation::RejectedByPeer => write!(f, "the peer rejected data we sent"),
        }
    }
}

/// A protocol version and game build, as compared in Hello.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Version {
    /// Wire protocol version.
    pub protocol: u32,
    /// Game build id; `None` when the peer's Hello could not be read past
    /// its protocol version.
    pub build: Option<u64>,
}

/// How a match ended. Each has its own message for the player (see
/// `docs/engine.md`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Outcome {
    /// This side called [`Session::quit`].
    LocalQuit,
    /// The peer quit.
    RemoteQuit,
    /// The transport reported the link closed or failed.
    TransportLost,
    /// Nothing arrived from the peer for the configured timeout, or the peer
    /// said the same of us.
    Timeout,
    /// The match did not start within the handshake timeout although the
    /// peer was heard (see [`SessionConfig::handshake_timeout`]), or the
    /// peer said the same: the link loses too much for the Hellos (or the
    /// host's round-trip measure) to get through, or the peer never sent
    /// its Hello.
    HandshakeTimeout,
    /// This side waited for the peer's next input for the progress
    /// timeout while still hearing from it (see
    /// [`SessionConfig::progress_timeout`]), or the peer said the same of
    /// us: the peer's game stopped advancing, or sends only pings.
    NoProgress,
    /// The state hashes differ at `tick`.
    Desync {
        /// The first tick found to differ.
        tick: u32,
        /// This side's hash at that tick.
        local: u64,
        /// The peer's hash at that tick.
        remote: u64,
        /// Both sides' part hashes at that tick and the names of the parts
        /// that differ, for a game that describes its parts (see
        /// [`crate::parts`]); empty otherwise.
        parts: DesyncParts,
    },
    /// Different protocol version or game build; refused before any tick.
    VersionMismatch {
        /// This side's version.
        local: Version,
        /// The peer's version, if its Hello arrived.
        remote: Option<Version>,
    },
    /// The peer sent something this side refuses (or said we did).
    InvalidData {
        /// What was wrong.
        violation: Violation,
    },
}

/// Something that happened, drained with [`Session::poll_event`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Event {
    /// Both Hellos were accepted: the match runs with these parameters.
    Started {
        /// This side (0 host, 1 guest).
        side: u8,
        /// The match seed.
        seed: u64,
        /// The input delay in ticks.
        input_delay: u8,
    },
    /// One new tick ran; the value is the tick count after it. In rollback
    /// mode it may rest on predicted remote inputs (re-simulated ticks
    /// raise no event; see [`SessionStats::resimulated_ticks`]).
    Ticked(u32),
    /// A frame passed without a tick: the peer's input for this tick (the
    /// value) is missing.
    Stalled(u32),
    /// Both sides' hashes at this tick were compared and are equal.
    HashMatched(u32),
    /// A round trip was measured.
    RoundTrip(Millis),
    /// The match is over; no further event follows.
    Ended(Outcome),
}

/// What [`Session::advance_frame`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Frame {
    /// Still waiting for the peer's Hello (or, after a desync, for the
    /// peer's part hashes: see [`crate::parts`]).
    Waiting,
    /// Ran one tick; the tick count is now the value.
    Ticked(u32),
    /// Could not run the tick (the value): the peer's input is missing (or,
    /// in rollback mode, the prediction window is used up).
    Stalled(u32),
    /// Rollback mode only: this side runs ahead of the peer and let one
    /// frame pass without a tick (the value) so the peer can catch up
    /// (time synchronisation; at most one frame in
    /// 20, so it never shows as a freeze).
    Skipped(u32),
    /// The match is over (see [`Session::outcome`]).
    Ended,
}

/// Counters, for diagnostics and benchmarks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SessionStats {
    /// Frames advanced since the match started.
    pub frames: u64,
    /// Of those, frames that could not run a tick.
    pub stalled_frames: u64,
    /// Datagrams queued on the reliable channel.
    pub reliable_packets: u64,
    /// Payload bytes queued on the reliable channel.
    pub reliable_bytes: u64,
    /// Datagrams queued on the unreliable channel.
    pub unreliable_packets: u64,
    /// Payload bytes queued on the unreliable channel.
    pub unreliable_bytes: u64,
    /// Datagrams received.
    pub received_packets: u64,
    /// Payload bytes received.
    pub received_bytes: u64,
    /// The last round trip measured.
    pub last_rtt: Option<Millis>,
    /// Rollback mode: ticks first simulated on a predicted remote input.
    pub predicted_ticks: u64,
    /// Rollback mode: mispredictions corrected (each restores a saved
    /// state and re-simulates to the present).
    pub rollbacks: u64,
    /// Rollback mode: ticks simulated again after a misprediction.
    pub resimulated_ticks: u64,
    /// Rollback mode: the longest single re-simulation, in ticks.
    pub max_rollback: u32,
    /// Rollback mode: frames let pass without a tick to let the peer
    /// catch up (time synchronisation), not counted in `stalled_frames`.
    pub skipped_frames: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Handshake,
    Running,
    Ended,
}

/// One side of a two-player lock-step match, sans-IO.
///
/// The session never reads a clock and never touches a socket. The caller
/// feeds it what happened (datagrams, link changes, the passing of frames,
/// the local player leaving) with the current time in [`Millis`], and takes
/// out what it produced: datagrams to send, events, and the time it wants
/// to be called by at the latest.
///
/// # Calling contract
///
/// 1. Create the session with [`Session::new`] once the transport is
///    [`Open`](LinkState::Open) (its Hello is queued at once).
/// 2. Feed every received datagram to [`handle_datagram`](Self::handle_datagram)
///    and every change of the link state to
///    [`handle_link_state`](Self::handle_link_state).
/// 3. Call [`advance_frame`](Self::advance_frame) once per display frame
///    (60 Hz), never more to catch up after a pause: it samples the local
///    pad only when a new input is needed, runs at most one tick and sends
///    this frame's inputs. Between frames, call
///    [`handle_timeout`](Self::handle_timeout) if
///    [`poll_timeout`](Self::poll_timeout)'s deadline passes.
/// 4. After **every** call above (and after [`quit`](Self::quit)), drain
///    [`poll_transmit`](Self::poll_transmit) into the transport, then
///    [`poll_event`](Self::poll_event), until both return `None`.
///    [`pump`](Self::pump) does steps 2 and 4's sending for any
///    [`Transport`].
/// 5. When [`Event::Ended`] arrives the match is over: keep draining
///    `poll_transmit` (a `Bye` may be queued) before closing the transport.
///    Later calls change nothing.
///
/// Every method takes the current time; times must not go backwards (a
/// smaller time is treated as no time passing).
///
/// # Panics
///
/// Never, whatever the peer sends or in whatever order methods are called
/// (a panic would be a bug in this crate). Bad data from the peer ends the
/// match with [`Outcome::InvalidData`]: see `docs/engine.md`.
///
/// # Example
///
/// ```
/// # use lockstep::*;
/// # #[derive(Clone)] struct Counter(u64);
/// # impl DeterministicGame for Counter {
/// #     type Input = u8; const BUILD_ID: u64 = 1;
/// #     fn new(seed: u64, _: u8) -> Self { Counter(seed) }
/// #     fn step(&mut self, i: &[u8]) { self.0 = self.0.wrapping_mul(31).wrapping_add(u64::from(i[0]) + 7 * u64::from(i[1])) }
/// #     fn state_hash(&self) -> u64 { self.0 }
/// # }
/// // Cannot fail: the configuration is valid (delay <= 60, non-zero intervals).
/// let mut host = Session::<Counter>::new(SessionConfig::host(42, 2)).expect("valid config");
/// // Cannot fail: the configuration is valid (delay <= 60, non-zero intervals).
/// let mut guest = Session::<Counter>::new(SessionConfig::guest()).expect("valid config");
/// for frame in 0..100u64 {
///     let now = Millis(frame * 16);
///     host.advance_frame(now, || 1);
///     guest.advance_frame(now, || 2);
///     // A perfect, instant link: hand each side's datagrams to the other.
///     while let Some((ch, bytes)) = host.poll_transmit() { guest.handle_datagram(now, ch, &bytes) }
///     while let Some((ch, bytes)) = guest.poll_transmit() { host.handle_datagram(now, ch, &bytes) }
/// }
/// assert!(host.tick() > 90);
/// assert_eq!(host.tick(), guest.tick());
/// assert_eq!(host.game().map(|g| g.0), guest.game().map(|g| g.0));
/// ```
pub struct Session<G: DeterministicGame> {
    cfg: SessionConfig,
    phase: Phase,
    side: u8,
    seed: u64,
    delay: u8,
    hash_interval: u16,
    game: Option<G>,
    tick: u32,
    /// Local inputs by tick (ticks below the delay are the default input).
    local: Vec<G::Input>,
    /// Remote inputs by tick, received without a gap.
    remote: Vec<G::Input>,
    /// Rollback: the prediction window in force (0 = lock-step).
    window: u8,
    /// Rollback: for each tick at or past the first remote input still
    /// missing when it ran, the state before it and the remote input
    /// predicted for it (oldest first).
    saved: VecDeque<Saved<G>>,
    /// Ticks whose state is final (every input known, any misprediction
    /// corrected); equals `tick` in lock-step.
    confirmed: u32,
    /// The last tick hashed locally (0 before the first).
    last_hashed: u32,
    /// Time sync: this side's frame advantage, averaged, in 1/256 ticks.
    advantage_avg: i32,
    /// Time sync: the peer's last reported frame advantage.
    remote_advantage: i8,
    /// Time sync: the advantage last reported to the peer.
    sent_advantage: i8,
    frames_since_advantage: u32,
    frames_since_skip: u32,
    /// Frames since the last Inputs packet could go out.
    frames_since_send: u8,
    /// Rollback: frames in a row the Inputs packet was held back.
    held_frames: u8,
    /// Rollback: how many local inputs the last Inputs packet carried up
    /// to (the newest tick the peer will know when it arrives, plus one).
    sent_upto: u32,
    /// Rollback: the same for the two packets before the last one (newest
    /// first): what the peer holds if the last one, or the last two, were
    /// lost.
    sent_upto_before: [u32; 2],
    /// Rollback: packets still to go out at once for the newest local pad
    /// that differs from the one before it.
    change_sends_left: u8,
    /// Rollback: frames since the remote inputs last grew (the peer may
    /// hold back packets, so its tick moves on in between).
    frames_since_remote: u32,
    /// The last 8 pings, newest in the lowest bit: 1 where the ping or
    /// its pong was lost.
    ping_losses: u8,
    /// Delay from the round trip: round trips measured in the handshake.
    rtt_samples: Vec<Millis>,
    /// Delay from the round trip: when the host starts (after its Hello).
    start_at: Option<Millis>,
    /// How many of our inputs the peer holds (highest ack seen).
    peer_ack: u32,
    /// The ack we last sent.
    sent_ack: Option<u32>,
    local_hashes: VecDeque<(u32, u64)>,
    remote_hashes: VecDeque<(u32, u64)>,
    last_remote_hash_tick: u32,
    remote_version: Option<Version>,
    next_ping_id: u16,
    pings: VecDeque<(u16, Millis)>,
    pong_owed: Option<(u16, Millis)>,
    frames_since_ping: u16,
    last_heard: Option<Millis>,
    /// The time of the first call: the handshake's deadline counts from it.
    began: Option<Millis>,
    /// Since when this side has stalled on the peer's next input (none
    /// while ticks run).
    waiting_since: Option<Millis>,
    outcome: Option<Outcome>,
    transmit: VecDeque<(Channel, Vec<u8>)>,
    events: VecDeque<Event>,
    stats: SessionStats,
    /// Sync-test mode only (no peer; see [`crate::sync_test`]).
    sync: Option<SyncCheck>,
    /// Part hashes of the hashed ticks, and a desync waiting for the
    /// peer's (see [`crate::parts`]).
    parts: PartsExchange,
}

/// A state saved before a tick that ran on a predicted remote input (or,
/// in sync-test mode, before any tick).
#[derive(Clone)]
struct Saved<G: DeterministicGame> {
    tick: u32,
    state: G,
    /// The remote input the tick ran on: the guess, or the real input
    /// when it was known.
    predicted: G::Input,
}

/// Sync-test mode: what a rollback forced by [`crate::SyncTest`] must
/// reproduce, and the first difference found.
#[derive(Debug, Default)]
struct SyncCheck {
    /// The hash after each tick the forced re-simulation runs, as the
    /// session had it just before (tick count after the tick, oldest
    /// first).
    expect: VecDeque<(u32, u64)>,
    /// The first difference, until the driver takes it.
    failure: Option<SyncTestError>,
}

impl SyncCheck {
    fn fail(&mut self, e: SyncTestError) {
        if self.failure.is_none() {
            self.failure = Some(e);
        }
    }

    /// The state after `tick` ticks hashes `hash` now: compare it with
    /// the expectation for that tick, if any.
    fn compare(&mut self, tick: u32, hash: u64) {
        while self.expect.front().is_some_and(|&(t, _)| t < tick) {
            self.expect.pop_front();
        }
        if let Some(&(t, first)) = self.expect.front() {
            if t == tick {
                self.expect.pop_front();
                if first != hash {
                    self.fail(SyncTestError::Diverged {
                        tick,
                        first,
                        again: hash,
                    });
                }
            }
        }
    }
}

/// The input delay the host picks from the round trips measured in the
/// handshake (milliseconds, any order), for a match at 60 ticks per second
/// with the given prediction window (0 = lock-step). See `docs/engine.md`.
///
/// With `hi` the largest round trip and `mid` the median:
///
/// * lock-step: `ceil(hi / 2 / 16.7 ms) + 1` ticks: an input sampled at
///   tick `t - delay` reaches the peer by the frame that runs `t` even on the
///   slowest measured trip, with one frame of margin for the two sides'
///   frame phases, so stalls stay rare;
/// * rollback: `ceil(mid / 2 / 16.7 ms) + 1 - min(window, 3)` ticks: typical
///   predictions, and so rollbacks, stay about 3 ticks long.
///
/// Clamped to 1..=[`MAX_INPUT_DELAY`]; no sample gives the lock-step
/// delay of a 100 ms round trip (4 ticks).
#[must_use]
pub fn delay_for_round_trips(samples: &[Millis], window: u8) -> u8 {
    let mut ms: Vec<u64> = samples.iter().map(|m| m.0).collect();
    ms.sort_unstable();
    let (hi, mid) = match (ms.last(), ms.get(ms.len() / 2)) {
        (Some(&hi), Some(&mid)) => (hi, mid),
        _ => (100, 100),
    };
    // Ticks for half the round trip, rounded up: ms / 2 * 60 / 1000.
    let one_way = |rtt: u64| rtt.saturating_mul(3).div_ceil(2 * MS_PER_3_TICKS);
    let d = if window == 0 {
        one_way(hi).saturating_add(1)
    } else {
        one_way(mid)
            .saturating_add(1)
            .saturating_sub(u64::from(window.min(3)))
    };
    u8::try_from(d.clamp(1, u64::from(MAX_INPUT_DELAY))).unwrap_or(MAX_INPUT_DELAY)
}

impl<G: DeterministicGame> fmt::Debug for Session<G> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Session")
            .field("phase", &self.phase)
            .field("side", &self.side)
            .field("tick", &self.tick)
            .field("outcome", &self.outcome)
            .finish_non_exhaustive()
    }
}

impl<G: DeterministicGame> Session<G> {
    /// Checks the configuration (and that the game's input encodes), and
    /// queues this side's Hello.
    pub fn new(cfg: SessionConfig) -> Result<Self, ConfigError> {
        cfg.validate()?;
        postcard::to_allocvec(&G::Input::default()).map_err(ConfigError::InputNotEncodable)?;
        let mut s = Self::with_config(cfg);
        if !s.probing() {
            s.send_hello();
        }
        Ok(s)
    }

    /// The session before its first message (the configuration is valid).
    fn with_config(cfg: SessionConfig) -> Self {
        let (side, seed, delay) = match cfg.role {
            Role::Host { seed, input_delay } => (0, seed, input_delay),
            Role::Guest => (1, 0, 0),
        };
        Session {
            cfg,
            phase: Phase::Handshake,
            side,
            seed,
            delay,
            hash_interval: cfg.hash_interval,
            game: None,
            tick: 0,
            local: Vec::new(),
            remote: Vec::new(),
            window: cfg.prediction_window,
            saved: VecDeque::new(),
            confirmed: 0,
            last_hashed: 0,
            advantage_avg: 0,
            remote_advantage: 0,
            sent_advantage: 0,
            frames_since_advantage: 0,
            frames_since_skip: 0,
            frames_since_send: 0,
            held_frames: 0,
            sent_upto: 0,
            sent_upto_before: [0; 2],
            change_sends_left: 0,
            frames_since_remote: 0,
            ping_losses: 0,
            rtt_samples: Vec::new(),
            start_at: None,
            peer_ack: 0,
            sent_ack: None,
            local_hashes: VecDeque::new(),
            remote_hashes: VecDeque::new(),
            last_remote_hash_tick: 0,
            remote_version: None,
            next_ping_id: 0,
            pings: VecDeque::new(),
            pong_owed: None,
            frames_since_ping: 0,
            last_heard: None,
            began: None,
            waiting_since: None,
            outcome: None,
            transmit: VecDeque::new(),
            events: VecDeque::new(),
            stats: SessionStats::default(),
            sync: None,
            parts: PartsExchange::default(),
        }
    }

    /// The host measuring round trips before it sends its Hello.
    fn probing(&self) -> bool {
        self.cfg.delay_from_rtt && self.side == 0 && self.start_at.is_none()
    }

    fn send_hello(&mut self) {
        let host = self.side == 0;
        self.send(&Message::Hello(Hello {
            protocol: PROTOCOL_VERSION,
            build: G::BUILD_ID,
            seed: self.seed,
            side: self.side,
            input_delay: self.delay,
            hash_interval: self.cfg.hash_interval,
            prediction_window: if host { self.window } else { 0 },
        }));
    }

    // ----- inputs ---------------------------------------------------------

    /// Feeds one datagram received on `channel`.
    ///
    /// Any datagram counts as a sign of life. Inputs that arrive before
    /// the match starts are dropped (they are sent again); a Ping before
    /// the start is answered at once with a Pong (the host measures the
    /// round trip that way); pongs for unknown pings and anything after
    /// the end are dropped (logged at debug). Anything that fails strict
    /// decoding or breaks the protocol ends the match with
    /// [`Outcome::InvalidData`] (see `docs/engine.md`).
    pub fn handle_datagram(&mut self, now: Millis, channel: Channel, bytes: &[u8]) {
        if self.phase == Phase::Ended {
            log::debug!(
                "{} byte datagram after the end of the match: dropped",
                bytes.len()
            );
            return;
        }
        self.began.get_or_insert(now);
        self.last_heard = Some(now.max(self.last_heard.unwrap_or(now)));
        self.stats.received_packets += 1;
        self.stats.received_bytes += bytes.len() as u64;
        let msg = match Message::<G::Input>::decode(bytes) {
            Ok(m) => m,
            Err(error) => {
                if let Some(protocol) = peek_hello_protocol(bytes) {
                    if protocol != PROTOCOL_VERSION && self.phase == Phase::Handshake {
                        self.version_mismatch(Version {
                            protocol,
                            build: None,
                        });
                        return;
                    }
                }
                self.violation(Violation::Malformed { channel, error });
                return;
            }
        };
        if msg.channel() != channel {
            self.violation(Violation::WrongChannel {
                received_on: channel,
            });
            return;
        }
        match msg {
            Message::Hello(h) => self.on_hello(h),
            Message::Inputs(m) => self.on_inputs(now, m),
            Message::Hash(h) => self.on_hash(h),
            Message::Ping(id) => self.on_ping(now, id),
            Message::Pong(p) => self.on_pong(now, p),
            Message::Bye(r) => self.on_bye(r),
            // The peer's part hashes after a desync (parts.rs).
            Message::Parts(p) => self.on_parts(p),
        }
    }

    /// Feeds a change of the transport's link state. `Closed` or `Failed`
    /// ends the match with [`Outcome::TransportLost`] (after any `Bye`
    /// already fed, which takes precedence).
    pub fn handle_link_state(&mut self, now: Millis, state: LinkState) {
        let _ = now;
        if state.is_terminal() && self.phase != Phase::Ended {
            log::info!("link {state:?}: transport lost");
            self.end(Outcome::TransportLost, None);
        }
    }

    /// Checks the silence timeout. Call it when
    /// [`poll_timeout`](Self::poll_timeout)'s deadline has passed and no
    /// other call is due; every other method checks it too.
    pub fn handle_timeout(&mut self, now: Millis) {
        self.check_timeout(now);
    }

    /// The local player leaves: sends `Bye(Quit)` and ends with
    /// [`Outcome::LocalQuit`]. Drain [`poll_transmit`](Self::poll_transmit)
    /// afterwards so the peer learns of it.
    pub fn quit(&mut self, now: Millis) {
        let _ = now;
        self.end(Outcome::LocalQuit, Some(ByeReason::Quit));
    }

    /// Advances one display frame: samples the local pad through `sample`
    /// only when a new input is needed (at most once), runs at most one tick
    /// when both inputs for it are known, and queues this frame's datagrams.
    ///
    /// Call it once per frame and never more to catch up: after a stall the
    /// match resumes at normal pace.
    pub fn advance_frame(&mut self, now: Millis, mut sample: impl FnMut() -> G::Input) -> Frame {
        self.check_timeout(now);
        if self.phase == Phase::Handshake {
            self.handshake_frame(now);
        }
        match self.phase {
            Phase::Ended => return Frame::Ended,
            Phase::Handshake => return Frame::Waiting,
            Phase::Running => {}
        }
        // A desync waits for the peer's part hashes: nothing runs (parts.rs).
        if self.parts.waiting() {
            return Frame::Waiting;
        }
        self.stats.frames += 1;
        if self.window > 0 {
            // Correct any misprediction the inputs received since the last
            // frame revealed, before anything new runs.
            self.reconcile();
            if self.phase == Phase::Ended {
                return Frame::Ended;
            }
        }
        let t = self.tick as usize;
        // Sample only when the input `delay` ticks ahead is still missing.
        if self.local.len() <= t + usize::from(self.delay) {
            let pad = sample();
            if self.local.last() != Some(&pad) {
                self.change_sends_left = CHANGE_SENDS;
            }
            self.local.push(pad);
        }
        let can_run = t < self.local.len() && t < self.remote.len() + usize::from(self.window);
        if can_run {
            self.waiting_since = None;
        }
        // (A sync test has no peer to wait for: it never skips.)
        let frame = if can_run && self.window > 0 && self.sync.is_none() && self.time_sync_skip() {
            self.stats.skipped_frames += 1;
            Frame::Skipped(self.tick)
        } else if can_run {
            self.run_tick(false);
            if self.phase == Phase::Ended {
                return Frame::Ended;
            }
            Frame::Ticked(self.tick)
        } else {
            self.waiting_since.get_or_insert(now);
            self.stats.stalled_frames += 1;
            self.events.push_back(Event::Stalled(self.tick));
            Frame::Stalled(self.tick)
        };
        if self.window > 0 {
            self.update_advantage();
        }
        self.frames_since_ping = self.frames_since_ping.saturating_add(1);
        self.flush_unreliable(now);
        frame
    }

    // ----- outputs --------------------------------------------------------

    /// The next datagram to send, and its channel.
    pub fn poll_transmit(&mut self) -> Option<(Channel, Vec<u8>)> {
        self.transmit.pop_front()
    }

    /// The next event.
    pub fn poll_event(&mut self) -> Option<Event> {
        self.events.pop_front()
    }

    /// The time by which [`handle_timeout`](Self::handle_timeout) (or any
    /// other call) must happen at the latest: the earliest of the silence
    /// deadline, the handshake's deadline (before the start) and the
    /// progress deadline (while stalled on the peer's input). `None`
    /// once the match has ended, or before the first call that passed a
    /// time.
    #[must_use]
    pub fn poll_timeout(&self) -> Option<Millis> {
        if self.phase == Phase::Ended {
            return None;
        }
        let silence = self.last_heard.map(|t| t + self.cfg.timeout);
        let handshake = match self.phase {
            Phase::Handshake => self.began.map(|t| t + self.cfg.handshake_timeout),
            _ => None,
        };
        let progress = self.waiting_since.map(|t| t + self.cfg.progress_timeout);
        // The end of a desync's wait for the peer's part hashes (parts.rs).
        let parts = self.parts.deadline(self.cfg.timeout);
        [silence, handshake, progress, parts]
            .into_iter()
            .flatten()
            .min()
    }

    /// Receives everything `transport` holds, feeds its link state, checks
    /// the timeout and, while the link is open, sends every queued datagram.
    /// Events are left for [`poll_event`](Self::poll_event).
    pub fn pump<T: Transport + ?Sized>(&mut self, now: Millis, transport: &mut T) {
        while let Some((channel, bytes)) = transport.recv() {
            self.handle_datagram(now, channel, &bytes);
        }
        let state = transport.state();
        self.handle_link_state(now, state);
        self.check_timeout(now);
        if state == LinkState::Open {
            while let Some((channel, bytes)) = self.poll_transmit() {
                if let Err(e) = transport.send(channel, &bytes) {
                    log::warn!("transport refused a {} byte datagram: {e}", bytes.len());
                }
            }
        }
    }

    // ----- state ----------------------------------------------------------

    /// The game, once the match has started: the present state, which in
    /// rollback mode may rest on predicted remote inputs (draw this one;
    /// see [`confirmed_game`](Self::confirmed_game) for the final one).
    #[must_use]
    pub fn game(&self) -> Option<&G> {
        self.game.as_ref()
    }

    /// Ticks simulated so far. In rollback mode the last ones may have run
    /// on predicted remote inputs (see [`confirmed_tick`](Self::confirmed_tick)).
    #[must_use]
    pub fn tick(&self) -> u32 {
        self.tick
    }

    /// Ticks whose state is final: every input for them is known and any
    /// misprediction among them has been corrected (as of the last
    /// [`advance_frame`](Self::advance_frame)). Equal to
    /// [`tick`](Self::tick) in lock-step.
    #[must_use]
    pub fn confirmed_tick(&self) -> u32 {
        self.confirmed
    }

    /// The game as it is after [`confirmed_tick`](Self::confirmed_tick)
    /// ticks (the same as [`game`](Self::game) in lock-step, or when no
    /// prediction is pending).
    #[must_use]
    pub fn confirmed_game(&self) -> Option<&G> {
        if self.confirmed == self.tick {
            return self.game.as_ref();
        }
        self.saved
            .iter()
            .find(|s| s.tick == self.confirmed)
            .map(|s| &s.state)
    }

    /// The prediction window in force (0 = lock-step), once the match has
    /// started (the guest adopts the host's).
    #[must_use]
    pub fn prediction_window(&self) -> Option<u8> {
        self.game.as_ref().map(|_| self.window)
    }

    /// How the match ended, once it has.
    #[must_use]
    pub fn outcome(&self) -> Option<&Outcome> {
        self.outcome.as_ref()
    }

    /// This side: 0 for the host, 1 for the guest.
    #[must_use]
    pub fn side(&self) -> Option<u8> {
        Some(self.side)
    }

    /// `true` once both Hellos were accepted (and until the end).
    #[must_use]
    pub fn is_running(&self) -> bool {
        self.phase == Phase::Running
    }

    /// The seed and input delay in force, once the match has started.
    #[must_use]
    pub fn parameters(&self) -> Option<(u64, u8)> {
        self.game.as_ref().map(|_| (self.seed, self.delay))
    }

    /// Counters.
    #[must_use]
    pub fn stats(&self) -> SessionStats {
        self.stats
    }

    /// Every confirmed tick so far (see
    /// [`confirmed_tick`](Self::confirmed_tick); every simulated tick in
    /// lock-step), as an exportable [`InputLog`].
    #[must_use]
    pub fn input_log(&self) -> InputLog<G::Input> {
        let ticks = self.confirmed as usize;
        let mut inputs = Vec::with_capacity(ticks * 2);
        for t in 0..ticks {
            let (Some(&l), Some(&r)) = (self.local.get(t), self.remote.get(t)) else {
                // Unreachable: a confirmed tick ran on both inputs.
                debug_assert!(false, "confirmed tick {t} without both inputs");
                break;
            };
            let pair = if self.side == 0 { [l, r] } else { [r, l] };
            inputs.extend_from_slice(&pair);
        }
        let final_hash = match self.confirmed_game() {
            Some(g) => g.state_hash(),
            None => G::new(self.seed, 2).state_hash(),
        };
        InputLog {
            build: G::BUILD_ID,
            seed: self.seed,
            players: 2,
            input_delay: self.delay,
            final_hash,
            inputs,
        }
    }

    // ----- sync-test mode (driven by crate::sync_test) ----------------------

    /// A session with no peer for [`crate::SyncTest`]: the host of a match
    /// from `seed` with no input delay and a prediction window of `window`
    /// ticks, started at once. It hashes every final tick (the record a
    /// forced re-simulation must reproduce, from the start state on),
    /// never skips a frame for time sync and sends nothing.
    pub(crate) fn sync_test(seed: u64, window: u8) -> Self {
        let window = window.min(MAX_PREDICTION_WINDOW);
        let cfg = SessionConfig::host(seed, 0)
            .prediction_window(window)
            .hash_interval(1);
        let mut s = Self::with_config(cfg);
        s.sync = Some(SyncCheck::default());
        s.start();
        s.events.clear();
        if let Some(h) = s.game.as_ref().map(G::state_hash) {
            s.local_hashes.push_back((0, h));
        }
        s
    }

    /// Sync-test mode: one frame of a match. `revealed` is the remote
    /// player's next input, arriving now as a packet would bring it (a
    /// few ticks late, so the ticks after it run on the game's own
    /// guesses); `local` is this side's pad. The frame runs exactly as
    /// [`advance_frame`](Self::advance_frame) runs it: wrong guesses
    /// corrected, then one new tick. With `check`, it then rolls back
    /// `window` ticks whatever the guesses were, through the same
    /// restore-and-re-simulate code, and compares every re-simulated tick
    /// with the hash it had just before (and every final one with the hash
    /// recorded when it first became final).
    ///
    /// Returns the ticks re-simulated by the check.
    pub(crate) fn sync_test_frame(
        &mut self,
        local: G::Input,
        revealed: Option<G::Input>,
        check: bool,
    ) -> Result<u32, SyncTestError> {
        if let Some(r) = revealed {
            self.remote.push(r);
            self.frames_since_remote = 0;
        }
        let frame = self.advance_frame(Millis::ZERO, || local);
        self.events.clear();
        if !matches!(frame, Frame::Ticked(_)) {
            // Unreachable: the driver reveals inputs less than `window`
            // ticks late and no peer can end the match.
            debug_assert!(false, "sync test: frame without a tick ({frame:?})");
            log::error!("sync test: frame without a tick ({frame:?})");
        }
        self.take_sync_failure()?;
        let window = u32::from(self.window);
        if !check || self.tick < window {
            return Ok(0);
        }
        let start = self.tick - window;
        let Some(i) = self.saved.iter().position(|s| s.tick == start) else {
            // Unreachable: reconcile keeps `window` states in this mode.
            debug_assert!(false, "sync test: no state held for tick {start}");
            log::error!("sync test: no state held for tick {start}");
            return Ok(0);
        };
        // The copy about to be restored must still hash as the state did
        // when its tick became final (a copy sharing state with the game,
        // an `Rc` say, has changed since).
        if let (Some(first), Some(saved)) = (self.local_hash(start), self.saved.get(i)) {
            let now = saved.state.state_hash();
            if now != first {
                return Err(SyncTestError::SavedStateChanged {
                    tick: start,
                    saved: first,
                    now,
                });
            }
        }
        let mut expect: VecDeque<(u32, u64)> = self
            .saved
            .iter()
            .skip(i + 1)
            .map(|s| (s.tick, s.state.state_hash()))
            .collect();
        if let Some(h) = self.game.as_ref().map(G::state_hash) {
            expect.push_back((self.tick, h));
        }
        if let Some(sync) = self.sync.as_mut() {
            sync.expect = expect;
        }
        self.roll_back(i);
        if let Some(sync) = self.sync.as_mut() {
            sync.expect.clear();
        }
        self.take_sync_failure()?;
        Ok(window)
    }

    fn take_sync_failure(&mut self) -> Result<(), SyncTestError> {
        match self.sync.as_mut().and_then(|s| s.failure.take()) {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    // ----- internals ------------------------------------------------------

    fn send(&mut self, msg: &Message<G::Input>) {
        if self.sync.is_some() {
            // A sync test has no peer.
            return;
        }
        match msg.encode() {
            Ok(bytes) => {
                let channel = msg.channel();
                match channel {
                    Channel::Reliable => {
                        self.stats.reliable_packets += 1;
                        self.stats.reliable_bytes += bytes.len() as u64;
                    }
                    Channel::Unreliable => {
                        self.stats.unreliable_packets += 1;
                        self.stats.unreliable_bytes += bytes.len() as u64;
                    }
                }
                self.transmit.push_back((channel, bytes));
            }
            // Session::new checked that inputs encode; only a game whose
            // input serializes for some values and not others gets here.
            Err(e) => log::error!("cannot encode an outgoing message: {e}"),
        }
    }

    fn end(&mut self, outcome: Outcome, bye: Option<ByeReason>) {
        if self.phase == Phase::Ended {
            return;
        }
        if let Some(reason) = bye {
            self.send(&Message::Bye(reason));
        }
        log::info!("match ended at tick {}: {outcome:?}", self.tick);
        self.phase = Phase::Ended;
        self.outcome = Some(outcome.clone());
        self.events.push_back(Event::Ended(outcome));
    }

    fn violation(&mut self, violation: Violation) {
        log::warn!("invalid data from the peer: {violation}");
        self.end(
            Outcome::InvalidData { violation },
            Some(ByeReason::InvalidData),
        );
    }

    fn local_version() -> Version {
        Version {
            protocol: PROTOCOL_VERSION,
            build: Some(G::BUILD_ID),
        }
    }

    fn version_mismatch(&mut self, remote: Version) {
        log::warn!(
            "version mismatch: local protocol {} build {:#018x}, remote {remote:?}",
            PROTOCOL_VERSION,
            G::BUILD_ID
        );
        self.remote_version = Some(remote);
        self.end(
            Outcome::VersionMismatch {
                local: Self::local_version(),
                remote: Some(remote),
            },
            Some(ByeReason::VersionMismatch),
        );
    }

    fn check_timeout(&mut self, now: Millis) {
        if self.phase == Phase::Ended {
            return;
        }
        let began = *self.began.get_or_insert(now);
        let heard = *self.last_heard.get_or_insert(now);
        // A desync whose part hashes did not come in time ends without
        // them (parts.rs); the wait is shorter than the silence timeout.
        if self
            .parts
            .deadline(self.cfg.timeout)
            .is_some_and(|d| now >= d)
        {
            if let Some((outcome, bye)) = self.parts.give_up() {
                self.end(outcome, Some(bye));
                return;
            }
        }
        if now.saturating_since(heard) >= self.cfg.timeout {
            log::info!(
                "no datagram from the peer for {} ms",
                now.saturating_since(heard).0
            );
            self.end(Outcome::Timeout, Some(ByeReason::Timeout));
        } else if self.phase == Phase::Handshake
            && now.saturating_since(began) >= self.cfg.handshake_timeout
        {
            log::info!(
                "no start {} ms into the handshake (peer's Hello {}, round trips measured {})",
                now.saturating_since(began).0,
                if self.remote_version.is_some() {
                    "received"
                } else {
                    "missing"
                },
                self.rtt_samples.len()
            );
            self.end(Outcome::HandshakeTimeout, Some(ByeReason::HandshakeTimeout));
        } else if let Some(since) = self.waiting_since {
            if now.saturating_since(since) >= self.cfg.progress_timeout {
                log::info!(
                    "no new input from the peer for {} ms at tick {}",
                    now.saturating_since(since).0,
                    self.tick
                );
                self.end(Outcome::NoProgress, Some(ByeReason::NoProgress));
            }
        }
    }

    fn on_hello(&mut self, h: Hello) {
        if self.phase != Phase::Handshake || self.remote_version.is_some() {
            self.violation(Violation::UnexpectedHello);
            return;
        }
        let remote = Version {
            protocol: h.protocol,
            build: Some(h.build),
        };
        if remote != Self::local_version() {
            self.version_mismatch(remote);
            return;
        }
        self.remote_version = Some(remote);
        if h.side == self.side {
            self.violation(Violation::SideConflict {
                remote_side: h.side,
            });
            return;
        }
        if self.cfg.role == Role::Guest {
            self.seed = h.seed;
            self.delay = h.input_delay;
            self.hash_interval = h.hash_interval;
            self.window = h.prediction_window;
        }
        if self.probing() {
            // The host still measures the round trip; it starts once it has
            // sent its own Hello (see `handshake_frame`).
            return;
        }
        self.start();
    }

    /// One frame of the handshake. Every side but a measuring host sends
    /// a Ping every ping interval, so the peer keeps hearing it while it
    /// waits for the peer's Hello (the peer answers, or lets the pong
    /// ride on its inputs once it runs).
    ///
    /// The host that picks its delay from the round trip sends nothing
    /// until the guest's Hello is in (so the guest's session exists and
    /// answers at once: no ping waits in a queue to inflate the measure),
    /// then pings every frame until [`HANDSHAKE_PINGS`] pongs came back
    /// (on a lossy link more pings go out, never a pause), then sends its
    /// Hello and starts half a round trip later, about when the guest
    /// receives it.
    fn handshake_frame(&mut self, now: Millis) {
        self.frames_since_ping = self.frames_since_ping.saturating_add(1);
        if let Some(at) = self.start_at {
            if now >= at {
                self.start();
            }
            return;
        }
        if !self.probing() {
            if self.frames_since_ping >= self.cfg.ping_interval_frames {
                self.frames_since_ping = 0;
                let id = self.next_ping_id;
                self.next_ping_id = id.wrapping_add(1);
                if self.pings.len() >= PINGS_KEPT {
                    self.pings.pop_front();
                }
                self.pings.push_back((id, now));
                self.send(&Message::Ping(id));
            }
            return;
        }
        if self.remote_version.is_none() {
            return;
        }
        if self.rtt_samples.len() < HANDSHAKE_PINGS {
            // One ping a frame; one unanswered after PROBE_PING_EXPIRY is
            // forgotten (it, or its pong, was lost).
            self.pings
                .retain(|&(_, at)| now.saturating_since(at) < PROBE_PING_EXPIRY);
            if self.pings.len() >= PROBE_PINGS_KEPT {
                self.pings.pop_front();
            }
            let id = self.next_ping_id;
            self.next_ping_id = id.wrapping_add(1);
            self.pings.push_back((id, now));
            self.send(&Message::Ping(id));
            return;
        }
        self.delay = delay_for_round_trips(&self.rtt_samples, self.window);
        let mut ms: Vec<u64> = self.rtt_samples.iter().map(|m| m.0).collect();
        ms.sort_unstable();
        let mid = ms.get(ms.len() / 2).copied().unwrap_or(0);
        log::info!(
            "input delay {} ticks from round trips of {:?} ms",
            self.delay,
            ms
        );
        self.start_at = Some(now + Millis(mid / 2));
        self.send_hello();
        if mid / 2 == 0 {
            self.start();
        }
    }

    fn start(&mut self) {
        let d = usize::from(self.delay);
        self.game = Some(G::new(self.seed, 2));
        self.local = vec![G::Input::default(); d];
        self.remote = vec![G::Input::default(); d];
        self.peer_ack = u32::from(self.delay);
        self.sent_upto = u32::from(self.delay);
        self.sent_upto_before = [u32::from(self.delay); 2];
        self.frames_since_ping = self.cfg.ping_interval_frames; // ping at once
                                                                // Pings of the handshake neither count as lost nor keep a place.
        self.pings.clear();
        self.ping_losses = 0;
        self.phase = Phase::Running;
        log::info!(
            "match started: side {}, input delay {}, prediction window {}, hash every {} ticks",
            self.side,
            self.delay,
            self.window,
            self.hash_interval
        );
        self.events.push_back(Event::Started {
            side: self.side,
            seed: self.seed,
            input_delay: self.delay,
        });
    }

    /// The furthest tick an honest peer's inputs or hashes can reach now.
    fn ahead_limit(&self) -> u32 {
        self.tick
            .saturating_add(2 * u32::from(self.delay))
            .saturating_add(u32::from(self.window))
            .saturating_add(AHEAD_SLACK)
    }

    fn on_inputs(&mut self, now: Millis, m: Inputs<G::Input>) {
        if self.phase != Phase::Running {
            log::debug!("inputs before the match started: dropped");
            return;
        }
        // Validate everything before changing anything.
        let sent = self.local.len() as u32;
        if m.ack > sent {
            self.violation(Violation::AckBeyondSent { ack: m.ack, sent });
            return;
        }
        let have = self.remote.len() as u32;
        if m.first_tick > have {
            self.violation(Violation::InputGap {
                expected: have,
                first: m.first_tick,
            });
            return;
        }
        // Cannot overflow: the decoder checked first_tick + len <= u32::MAX.
        let end = m.first_tick + m.pads.len() as u32;
        if end > self.ahead_limit() {
            self.violation(Violation::TooFarAhead { tick: end });
            return;
        }
        let overlap = (have - m.first_tick) as usize;
        let start = m.first_tick as usize;
        for (i, pad) in m.pads.iter().take(overlap).enumerate() {
            if self.remote.get(start + i) != Some(pad) {
                self.violation(Violation::ConflictingInput {
                    tick: m.first_tick + i as u32,
                });
                return;
            }
        }
        if m.pads.len() > overlap {
            self.remote.extend_from_slice(&m.pads[overlap..]);
            self.frames_since_remote = 0;
            self.waiting_since = None;
        }
        self.peer_ack = self.peer_ack.max(m.ack);
        if let Some(a) = m.advantage {
            self.remote_advantage = a;
        }
        if let Some(id) = m.ping {
            self.on_ping(now, id);
        }
        if let Some(p) = m.pong {
            self.on_pong(now, p);
        }
    }

    fn on_ping(&mut self, now: Millis, id: u16) {
        match self.phase {
            Phase::Running => self.pong_owed = Some((id, now)),
            // The host measures the round trip before the match: answer at
            // once (one pong per ping, nothing kept).
            Phase::Handshake => self.send(&Message::Pong(Pong { id, held_ms: 0 })),
            Phase::Ended => {}
        }
    }

    fn on_pong(&mut self, now: Millis, p: Pong) {
        if let Some(i) = self.pings.iter().position(|&(id, _)| id == p.id) {
            let Some((_, sent)) = self.pings.remove(i) else {
                // Unreachable: `i` was just found in the queue.
                debug_assert!(false, "ping {i} vanished");
                return;
            };
            let rtt = now
                .saturating_since(sent)
                .saturating_since(Millis(u64::from(p.held_ms)));
            self.ping_losses <<= 1;
            self.stats.last_rtt = Some(rtt);
            if self.probing() && self.rtt_samples.len() < HANDSHAKE_PINGS {
                self.rtt_samples.push(rtt);
            }
            self.events.push_back(Event::RoundTrip(rtt));
        } else {
            log::debug!("pong for an unknown ping: dropped");
        }
    }

    fn on_hash(&mut self, h: HashReport) {
        // The peer can hash a tick only once it has both Hellos. A host
        // that picks its delay from the round trip starts half a round
        // trip after sending its Hello, so the guest (whose Hello came
        // first on this ordered channel) may already be hashing: keep its
        // hashes for comparison, as during the match.
        let hellos_exchanged = self.phase == Phase::Running || self.start_at.is_some();
        if !hellos_exchanged {
            self.violation(Violation::HashBeforeHello);
            return;
        }
        if !h.tick.is_multiple_of(u32::from(self.hash_interval))
            || h.tick <= self.last_remote_hash_tick
        {
            self.violation(Violation::BadHashTick { tick: h.tick });
            return;
        }
        if h.tick > self.ahead_limit() {
            self.violation(Violation::TooFarAhead { tick: h.tick });
            return;
        }
        self.last_remote_hash_tick = h.tick;
        if h.tick <= self.last_hashed {
            match self.local_hash(h.tick) {
                Some(local) => self.compare_hashes(h.tick, local, h.hash),
                None => log::warn!("peer hash for tick {} no longer held", h.tick),
            }
        } else {
            self.remote_hashes.push_back((h.tick, h.hash));
        }
        self.drop_compared_hashes();
    }

    fn on_bye(&mut self, reason: ByeReason) {
        // The peer ended a desync this side waits on the parts of: end it
        // without the peer's parts (parts.rs).
        if matches!(reason, ByeReason::Desync { .. }) {
            if let Some((outcome, _)) = self.parts.give_up() {
                return self.end(outcome, None);
            }
        }
        match reason {
            ByeReason::Quit => self.end(Outcome::RemoteQuit, None),
            ByeReason::Timeout => self.end(Outcome::Timeout, None),
            ByeReason::HandshakeTimeout => self.end(Outcome::HandshakeTimeout, None),
            ByeReason::NoProgress => self.end(Outcome::NoProgress, None),
            ByeReason::InvalidData => self.end(
                Outcome::InvalidData {
                    violation: Violation::RejectedByPeer,
                },
                None,
            ),
            ByeReason::VersionMismatch => self.end(
                Outcome::VersionMismatch {
                    local: Self::local_version(),
                    remote: self.remote_version,
                },
                None,
            ),
            ByeReason::Desync { tick, hash } => match self.local_hash(tick) {
                Some(local) => {
                    log::error!(
                        "desync reported by the peer at tick {tick}: local {local:#018x}, remote {hash:#018x}"
                    );
                    self.end(
                        Outcome::Desync {
                            tick,
                            local,
                            remote: hash,
                            parts: DesyncParts::default(),
                        },
                        None,
                    );
                }
                None => self.violation(Violation::UnknownDesyncTick { tick }),
            },
        }
    }

    /// This side's hash of `tick`, if it is still kept (the ticks are in
    /// ascending order).
    fn local_hash(&self, tick: u32) -> Option<u64> {
        self.local_hashes
            .binary_search_by_key(&tick, |&(t, _)| t)
            .ok()
            .and_then(|i| self.local_hashes.get(i))
            .map(|&(_, h)| h)
    }

    /// Drops the local hashes the peer's hashes have caught up with: each
    /// was compared when the later of the two arrived.
    fn drop_compared_hashes(&mut self) {
        if self.sync.is_some() {
            // No peer: the forced checks look up the hashes instead.
            return;
        }
        while self
            .local_hashes
            .front()
            .is_some_and(|&(t, _)| t <= self.last_remote_hash_tick)
        {
            self.local_hashes.pop_front();
        }
        // Their parts go with them (parts.rs).
        self.parts.forget_upto(self.last_remote_hash_tick);
    }

    fn compare_hashes(&mut self, tick: u32, local: u64, remote: u64) {
        if self.parts.waiting() {
            // A desync already waits for the peer's parts (parts.rs).
            return;
        }
        if local == remote {
            log::debug!("state hashes agree at tick {tick}");
            self.events.push_back(Event::HashMatched(tick));
        } else {
            log::error!("desync at tick {tick}: local {local:#018x}, remote {remote:#018x}");
            // With parts, send ours and wait for the peer's (parts.rs).
            let since = self.last_heard.unwrap_or_default();
            if let Some(msg) = self.parts.begin(tick, local, remote, since) {
                self.send(&Message::Parts(msg));
                return;
            }
            self.end(
                Outcome::Desync {
                    tick,
                    local,
                    remote,
                    parts: DesyncParts::default(),
                },
                Some(ByeReason::Desync { tick, hash: local }),
            );
        }
    }

    /// The peer's part hashes of the desync tick: end, naming the parts
    /// that differ (parts.rs).
    fn on_parts(&mut self, p: PartHashes) {
        match self.parts.receive(p) {
            Ok((outcome, bye)) => self.end(outcome, Some(bye)),
            Err(tick) => self.violation(Violation::UnexpectedParts { tick }),
        }
    }

    /// Runs tick `self.tick` on the known inputs, predicting the remote
    /// one when it is missing (rollback mode; the state before is saved
    /// first). `resim` marks a re-simulation after a misprediction: no
    /// `Ticked` event, counted in the stats instead. Returns whether the
    /// tick ran (always, when the caller checked the local input exists).
    fn run_tick(&mut self, resim: bool) -> bool {
        let t = self.tick as usize;
        let Some(&l) = self.local.get(t) else {
            // Unreachable: every caller runs only ticks whose local input
            // is held (advance_frame checks; a re-simulation replays ticks
            // that ran before).
            debug_assert!(false, "no local input for tick {t}");
            return false;
        };
        let (r, guessed) = match self.remote.get(t) {
            Some(&r) => (r, false),
            None => {
                let last = self.remote.last().copied().unwrap_or_default();
                let ahead = (t + 1 - self.remote.len()) as u32;
                (G::predict_input(last, ahead), true)
            }
        };
        // A sync test saves before every tick: it rolls back on purpose,
        // into final ticks too.
        if guessed || self.sync.is_some() {
            let Some(game) = self.game.as_ref() else {
                // Unreachable: the game exists from the start of the match.
                debug_assert!(false, "tick {t} ran before the match started");
                return false;
            };
            self.saved.push_back(Saved {
                tick: self.tick,
                state: game.clone(),
                predicted: r,
            });
            if guessed && !resim {
                self.stats.predicted_ticks += 1;
            }
        }
        let Some(game) = self.game.as_mut() else {
            debug_assert!(false, "tick {t} ran before the match started");
            return false;
        };
        let inputs = if self.side == 0 { [l, r] } else { [r, l] };
        game.step(&inputs);
        self.tick += 1;
        if resim {
            self.stats.resimulated_ticks += 1;
        } else {
            self.events.push_back(Event::Ticked(self.tick));
        }
        if let Some(sync) = self.sync.as_mut() {
            if !sync.expect.is_empty() {
                sync.compare(self.tick, game.state_hash());
            }
        }
        if self.tick as usize <= self.remote.len() {
            // Every input so far is known, and every prediction before
            // this tick was checked (at the start of the frame, or before
            // this re-simulation began): final.
            self.confirmed = self.tick;
            if self.tick.is_multiple_of(u32::from(self.hash_interval)) {
                let (hash, parts) = hashes_of(game);
                self.record_hash(self.tick, hash, parts);
            }
        }
        true
    }

    /// Rollback mode, at the start of a frame: checks the predictions that
    /// the remote inputs received since have settled; on the first wrong
    /// one, restores the state saved before that tick and re-simulates to
    /// the present. Then hashes the ticks that became final and drops the
    /// saved states no longer needed.
    fn reconcile(&mut self) {
        let known = self.remote.len();
        // Everything before `known` is final once any misprediction before
        // it is corrected.
        let final_tick = (known as u32).min(self.tick);
        let wrong = self.saved.iter().position(|s| {
            (s.tick as usize) < known && self.remote.get(s.tick as usize) != Some(&s.predicted)
        });
        if let Some(i) = wrong {
            let from = self.saved.get(i).map_or(self.tick, |s| s.tick);
            // The ticks up to the wrong guess were guessed right: their
            // saved states are final. Hash them now, while they are still
            // held (the re-simulation drops every state from `from` on).
            self.hash_final_ticks(from.min(final_tick));
            if self.phase == Phase::Ended {
                return;
            }
            let length = self.tick.saturating_sub(from);
            log::debug!("misprediction at tick {from}: re-simulating {length} ticks");
            self.stats.rollbacks += 1;
            self.stats.max_rollback = self.stats.max_rollback.max(length);
            self.roll_back(i);
            if self.phase == Phase::Ended {
                return;
            }
        }
        self.hash_final_ticks(final_tick);
        if self.phase == Phase::Ended {
            return;
        }
        // A sync test keeps the states its next forced rollback needs
        // (`window` ticks behind the present after this frame's tick).
        let keep_from = if self.sync.is_some() {
            final_tick.min((self.tick + 1).saturating_sub(u32::from(self.window)))
        } else {
            final_tick
        };
        while self.saved.front().is_some_and(|s| s.tick < keep_from) {
            self.saved.pop_front();
        }
        self.confirmed = self.confirmed.max(final_tick);
    }

    /// Records the hash of every multiple of the hash interval past the
    /// last one hashed, up to `upto` (final ticks whose state is the
    /// present or a saved one).
    fn hash_final_ticks(&mut self, upto: u32) {
        let interval = u32::from(self.hash_interval);
        let mut next = self.last_hashed + interval;
        while next <= upto && self.phase != Phase::Ended {
            let hash = if next == self.tick {
                self.game.as_ref().map(hashes_of)
            } else {
                self.saved
                    .iter()
                    .find(|s| s.tick == next)
                    .map(|s| hashes_of(&s.state))
            };
            match hash {
                Some((h, parts)) => self.record_hash(next, h, parts),
                None => {
                    // Unreachable: a tick past the last one hashed that was
                    // not final when it ran was predicted, so it was saved.
                    debug_assert!(false, "no state held for final tick {next}");
                    log::error!("no state held for tick {next}: hash skipped");
                    self.last_hashed = next;
                }
            }
            next += interval;
        }
    }

    /// Restores the state saved at `self.saved[i]` (dropping it and every
    /// later one) and re-simulates to the present tick, guessing again
    /// past the newest remote input.
    fn roll_back(&mut self, i: usize) {
        let known = self.remote.len();
        let present = self.tick;
        let mut dropped = self.saved.drain(i..);
        if let Some(first) = dropped.next() {
            self.game = Some(first.state);
            self.tick = first.tick;
        }
        drop(dropped);
        // The restored state itself may be final and due a hash (the
        // entry that held it is gone).
        if self.tick.is_multiple_of(u32::from(self.hash_interval)) && self.tick as usize <= known {
            if let Some((h, parts)) = self.game.as_ref().map(hashes_of) {
                self.record_hash(self.tick, h, parts);
            }
        }
        // Re-simulate to the present even if a hash compared on the way
        // ends the match: the present state and tick must never move back
        // to a point part-way through (after the end no hash is recorded).
        while self.tick < present {
            if !self.run_tick(true) {
                break;
            }
        }
    }

    /// Keeps this side's hash of final tick `tick`, sends it and compares
    /// it with the peer's if that arrived first.
    fn record_hash(&mut self, tick: u32, hash: u64, parts: Vec<StatePart>) {
        if self.phase == Phase::Ended {
            // A re-simulation finishing after the end: nothing to compare.
            return;
        }
        if tick <= self.last_hashed {
            // Only a sync test computes a final tick twice: the second
            // time must give the hash recorded the first.
            if self.sync.is_some() {
                if let Some(first) = self.local_hash(tick) {
                    if let Some(sync) = self.sync.as_mut() {
                        if first != hash {
                            sync.fail(SyncTestError::Diverged {
                                tick,
                                first,
                                again: hash,
                            });
                        }
                    }
                }
            }
            return;
        }
        self.last_hashed = tick;
        if self.local_hashes.len() >= LOCAL_HASHES_KEPT {
            if let Some((old, _)) = self.local_hashes.pop_front() {
                if self.sync.is_none() {
                    log::warn!("hash of tick {old} dropped before the peer's arrived");
                }
            }
        }
        self.local_hashes.push_back((tick, hash));
        // The parts of the same state, kept for a desync (parts.rs; a sync
        // test has no peer to compare them with).
        if self.sync.is_none() {
            self.parts.keep(tick, parts, LOCAL_HASHES_KEPT);
        }
        self.send(&Message::Hash(HashReport { tick, hash }));
        while let Some(&(rt, rh)) = self.remote_hashes.front() {
            if rt > tick {
                break;
            }
            self.remote_hashes.pop_front();
            if rt == tick {
                self.compare_hashes(rt, hash, rh);
            }
        }
        self.drop_compared_hashes();
    }

    /// Time sync: this side's frame advantage in ticks, from what it sees:
    /// its tick minus the peer's estimated tick now (the peer's newest
    /// input minus the delay, plus half a round trip of travel).
    fn local_advantage(&self) -> i32 {
        let adv = i64::from(self.tick) - self.peer_tick_estimate();
        i32::try_from(adv.clamp(-127, 127)).unwrap_or(0)
    }

    /// Half the last round trip, in ticks (0 before the first).
    fn travel_ticks(&self) -> i64 {
        let travel = self
            .stats
            .last_rtt
            .map_or(0, |r| r.0.saturating_mul(3) / (2 * MS_PER_3_TICKS));
        i64::try_from(travel).unwrap_or(i64::MAX / 4)
    }

    /// The peer's tick now, estimated: the tick its newest input was
    /// sampled for, minus the delay, plus half a round trip of travel,
    /// plus the frames since that input arrived (the peer runs on while
    /// it holds back its packets, however long its hold, or while one is
    /// lost). A peer never runs past our inputs it holds plus its
    /// prediction window: at most that, counting only our packets up to
    /// the one before the last (a peer that stalls because our last
    /// packet was lost waits there, as does one that stopped for longer).
    fn peer_tick_estimate(&self) -> i64 {
        ((self.remote.len() as i64) - i64::from(self.delay)
            + self.travel_ticks()
            + i64::from(self.frames_since_remote))
        .min(i64::from(self.sent_upto_before[0]) + i64::from(self.window))
    }

    /// Rollback: whether this frame's Inputs packet must go out now rather
    /// than be held back (see [`SessionConfig::max_hold_frames`]).
    fn inputs_urgent(&self) -> bool {
        // A new pad that differs from the one before it: the peer's
        // repeat-last guess is wrong from there on, so it leaves at once
        // (and in the next packets, in case one is lost).
        if self.change_sends_left > 0 {
            return true;
        }
        // On a very lossy link nothing is held back: a held packet
        // followed by a lost one leaves the peer's window empty, and a
        // stalled frame costs the player more than a packet costs the link
        // (see NO_HOLD_PING_LOSSES).
        let lost = self.ping_losses.count_ones();
        if lost >= NO_HOLD_PING_LOSSES {
            return true;
        }
        // The peer's prediction window: held back now, the inputs leave in
        // the next frame at the earliest (the question is asked again
        // then); the peer must still be short of running out when they
        // arrive, even if the last packet sent was lost (on a somewhat
        // lossy link, the last two). Counting on the last one alone let a
        // long hold end in a packet that, lost, left the peer stalling
        // until the next hold ran out, and the side holding ran ahead.
        //
        // A hold of at most the default is short: the next packet follows
        // within that many frames and repairs a loss before the peer runs
        // out in most cases, so it counts on the last packet (with a tick
        // more room on a lossy link) and keeps the default's packet rate.
        // A longer hold counts only on the packet before the last (two
        // before on a lossy link).
        let lossy = lost >= LOSSY_PING_LOSSES;
        let (arrived, margin) = if self.cfg.max_hold_frames <= DEFAULT_MAX_HOLD_FRAMES {
            let margin = HOLD_MARGIN_TICKS + i64::from(lossy);
            (self.sent_upto, margin)
        } else {
            let back = usize::from(lossy);
            let upto = self
                .sent_upto_before
                .get(back)
                .copied()
                .unwrap_or(self.sent_upto);
            (upto, HOLD_MARGIN_TICKS)
        };
        let peer_then = self.peer_tick_estimate() + self.travel_ticks() + 1;
        peer_then + margin >= i64::from(arrived) + i64::from(self.window)
    }

    /// Time sync, once per running frame: folds this frame's advantage into
    /// the running average (about the last 8 frames).
    fn update_advantage(&mut self) {
        let adv = self.local_advantage() * 256;
        self.advantage_avg += (adv - self.advantage_avg) / 8;
        self.frames_since_advantage = self.frames_since_advantage.saturating_add(1);
        self.frames_since_skip = self.frames_since_skip.saturating_add(1);
        self.frames_since_remote = self.frames_since_remote.saturating_add(1);
    }

    /// The averaged advantage, rounded to whole ticks.
    fn rounded_advantage(&self) -> i8 {
        let t = (self.advantage_avg + 128).div_euclid(256);
        i8::try_from(t.clamp(-127, 127)).unwrap_or(0)
    }

    /// Time sync: skip this frame when this side runs ahead of the peer by
    /// 1.5 ticks or more: its own view of its advantage minus the peer's
    /// view reaches [`SKIP_THRESHOLD`] (3; half that difference is how far
    /// it runs ahead, so that an uneven link cancels out). At most once
    /// per [`SKIP_SPACING_FRAMES`].
    fn time_sync_skip(&mut self) -> bool {
        if self.frames_since_skip < SKIP_SPACING_FRAMES {
            return false;
        }
        // The average, unless this frame's view says less: just after a
        // late burst of the peer's inputs the average still remembers the
        // gap, but the side is not ahead any more.
        let own = self.advantage_avg.min(self.local_advantage() * 256);
        let ahead = own - i32::from(self.remote_advantage) * 256;
        if ahead >= SKIP_THRESHOLD * 256 {
            self.frames_since_skip = 0;
            // The skipped tick shifts this side's view by one at once.
            self.advantage_avg -= 256;
            log::debug!("time sync: frame skipped at tick {}", self.tick);
            return true;
        }
        false
    }

    fn flush_unreliable(&mut self, now: Millis) {
        self.frames_since_send = self.frames_since_send.saturating_add(1);
        if self.frames_since_send < self.cfg.send_interval_frames {
            return;
        }
        self.frames_since_send = 0;
        if self.window > 0
            && self.cfg.send_interval_frames == 1
            && self.held_frames < self.cfg.max_hold_frames
            && !self.inputs_urgent()
        {
            self.held_frames += 1;
            return;
        }
        self.held_frames = 0;
        let sent = self.local.len();
        let from = (self.peer_ack as usize).min(sent);
        let to = sent.min(from + MAX_RUN);
        let ack = self.remote.len() as u32;
        let ping = if self.frames_since_ping >= self.cfg.ping_interval_frames {
            self.frames_since_ping = 0;
            let id = self.next_ping_id;
            self.next_ping_id = id.wrapping_add(1);
            // A ping unanswered for a second (or three round trips) was
            // lost, or its pong was.
            let rtt = self.stats.last_rtt.map_or(0, |r| r.0);
            let expiry = Millis(rtt.saturating_mul(3).max(1000));
            while self
                .pings
                .front()
                .is_some_and(|&(_, at)| now.saturating_since(at) >= expiry)
                || self.pings.len() >= PINGS_KEPT
            {
                self.pings.pop_front();
                self.ping_losses = (self.ping_losses << 1) | 1;
            }
            self.pings.push_back((id, now));
            Some(id)
        } else {
            None
        };
        let pong = self.pong_owed.take().map(|(id, at)| Pong {
            id,
            held_ms: u16::try_from(now.saturating_since(at).0).unwrap_or(u16::MAX),
        });
        let advantage = if self.window > 0
            && self.frames_since_advantage >= ADVANTAGE_SPACING_FRAMES
            && self.rounded_advantage() != self.sent_advantage
        {
            self.frames_since_advantage = 0;
            self.sent_advantage = self.rounded_advantage();
            Some(self.sent_advantage)
        } else {
            None
        };
        let needs_inputs = from < to || self.sent_ack != Some(ack) || advantage.is_some();
        if needs_inputs || (ping.is_some() && pong.is_some()) {
            self.sent_ack = Some(ack);
            self.sent_upto_before = [self.sent_upto, self.sent_upto_before[0]];
            self.sent_upto = to as u32;
            self.change_sends_left = self.change_sends_left.saturating_sub(1);
            let msg = Message::Inputs(Inputs {
                ack,
                first_tick: from as u32,
                pads: self
                    .local
                    .get(from..to)
                    .map(<[_]>::to_vec)
                    .unwrap_or_default(),
                ping,
                pong,
                advantage,
            });
            self.send(&msg);
        } else if let Some(id) = ping {
            self.send(&Message::Ping(id));
        } else if let Some(p) = pong {
            self.send(&Message::Pong(p));
        }
    }
}
