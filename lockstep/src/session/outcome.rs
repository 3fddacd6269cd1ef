//! What a session reports: events, what a frame did, how a match ended,
//! what the peer did wrong, and counters.

use alloc::vec::Vec;
use core::fmt;

use super::PeerId;
use crate::parts::DesyncParts;
use crate::time::Millis;
use crate::transport::Channel;
use crate::wire::{DecodeError, RejoinRefusal, WatchRefusal};

// Only the documentation links to it.
#[cfg(doc)]
use super::SessionConfig;

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
    /// A guest's [`Member`](crate::wire::Member) names another match.
    OtherMatch,
    /// A slot claimed that is not the sender's to claim: this side's own,
    /// the host's, beyond the player count, or held by another link.
    SlotClaimed {
        /// The slot claimed.
        slot: u8,
    },
    /// A [`Member`](crate::wire::Member) from or to the host, twice on one
    /// link, or before the link's Hello.
    UnexpectedMember,
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
    /// A membership message ([`Missing`](crate::wire::Missing),
    /// [`Held`](crate::wire::Held), [`Roster`](crate::wire::Roster) or a
    /// roster acknowledgement) that the sender may not send, out of turn,
    /// or that does not fit what this side holds.
    UnexpectedRoster,
    /// Part hashes for a tick this side is not waiting on (it sends its
    /// own only after finding that tick's hashes differ, which the peer
    /// finds too, first).
    UnexpectedParts {
        /// The tick.
        tick: u32,
    },
    /// The host's catch-up does not fit: a datagram that does not decode
    /// while it comes, a run for a slot beyond the match or not where the
    /// slot's last one ended, too long, a slot short of the catch-up's
    /// tick, or catch-up messages to a session that is not rejoining. For
    /// a host coming back, also a guest's `Resume` that does not name
    /// its match, comes twice, or comes to a session that is no
    /// returning host.
    BadCatchUp,
    /// The host's catch-up replays to another state than the host's.
    CatchUpHashMismatch {
        /// The catch-up's tick.
        tick: u32,
        /// The replayed state's hash.
        local: u64,
        /// The host's.
        remote: u64,
    },
    /// A player in the match sent a `Rejoin` for another slot.
    UnexpectedRejoin,
    /// A spectator's message where it does not belong: a `Watch`,
    /// `Welcome`, `Confirmed` or `WatchAck` between players, or, to a
    /// spectator, anything but what the host sends one, or out of turn
    /// (a run that leaves a gap, a player count other than the match's).
    UnexpectedWatch,
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
            Violation::OtherMatch => write!(f, "a member of another match"),
            Violation::SlotClaimed { slot } => write!(f, "slot {slot} claimed by the wrong link"),
            Violation::UnexpectedMember => write!(f, "unexpected member introduction"),
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
            Violation::UnexpectedRoster => write!(f, "unexpected membership message"),
            Violation::BadCatchUp => write!(f, "the catch-up does not fit the match"),
            Violation::CatchUpHashMismatch {
                tick,
                local,
                remote,
            } => write!(
                f,
                "the catch-up replays to {local:#018x} at tick {tick}, the host had {remote:#018x}"
            ),
            Violation::UnexpectedRejoin => write!(f, "rejoin for another slot from a player"),
            Violation::UnexpectedWatch => write!(f, "spectator message out of place"),
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
    /// This side called [`Session::quit`](super::Session::quit).
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
        /// The slots of the players whose hash of `tick` differs from this
        /// side's, among those compared when the desync was found (the
        /// other player in a two-player match). With three players or
        /// more, the players that agree name the one that differs; the one
        /// that differs names everyone it compared with.
        slots: Vec<u8>,
    },
    /// Different protocol version or game build; refused before any tick.
    VersionMismatch {
        /// This side's version.
        local: Version,
        /// The peer's version, if its Hello arrived.
        remote: Option<Version>,
    },
    /// The player in `slot` dropped (its link failed or went silent) and
    /// did not come back within the rejoin window (see
    /// [`SessionConfig::rejoin_window`]), or a peer said the same: the
    /// match cannot go on without it.
    PlayerLeft {
        /// The slot of the player that left.
        slot: u8,
    },
    /// The peer sent something this side refuses (or said we did).
    InvalidData {
        /// What was wrong.
        violation: Violation,
    },
    /// The host refused this session's rejoin (see
    /// [`SessionConfig::rejoin`]); the match goes on without it.
    RejoinRefused {
        /// Why.
        why: RejoinRefusal,
    },
    /// Spectator: the host refused to let this session watch, or stopped
    /// its stream (see [`SessionConfig::spectator`]); the match goes on
    /// without it.
    WatchRefused {
        /// Why.
        why: WatchRefusal,
    },
}

/// Something that happened, drained with [`Session::poll_event`](super::Session::poll_event).
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
    /// The player in `slot` dropped: its link failed, or nothing came
    /// from it for the timeout. The match goes on as far as the inputs
    /// allow, then waits; the slot is held for `held_for`.
    Dropped {
        /// The slot.
        slot: u8,
        /// How long the slot is still held.
        held_for: Millis,
    },
    /// Still waiting for the dropped player in `slot` (raised each
    /// second while the match stalls on it).
    Waiting {
        /// The slot.
        slot: u8,
        /// How long the slot is still held.
        held_for: Millis,
    },
    /// The dropped player in `slot` was heard again: its inputs flow and
    /// the match resumes. Also raised when a fresh session of that
    /// player was taken back after a reload (slot 0: the host came back,
    /// on its guest).
    Resumed {
        /// The slot.
        slot: u8,
    },
    /// The player in `slot` left for good and the match plays on: from
    /// `tick` on, the slot plays the game's input for a slot nobody drives
    /// ([`DeterministicGame::absent_input`](crate::DeterministicGame::absent_input),
    /// the neutral input by default) on every side.
    Left {
        /// The slot.
        slot: u8,
        /// The first tick played with the absent input.
        tick: u32,
    },
    /// A new player took the free `slot` (see [`SessionConfig::join`]):
    /// from `tick` on, the slot plays that player's inputs instead of the
    /// absent input, on every side. The new player's own session raises
    /// it too, after [`Event::Started`], for its own slot.
    Joined {
        /// The slot.
        slot: u8,
        /// The first tick played with the new player's inputs.
        tick: u32,
    },
    /// The dropped player in `slot` is benched (the game plays on while
    /// a slot is held, see
    /// [`DeterministicGame::plays_on_while_held`](crate::DeterministicGame::plays_on_while_held)):
    /// from `tick` on, the slot plays the game's absent input
    /// ([`DeterministicGame::absent_input`](crate::DeterministicGame::absent_input):
    /// the neutral input, or the game's AI standing in) on every side, and
    /// nobody waits for it. The slot stays its player's until the window
    /// runs out ([`Event::Left`] then, or the match ends with
    /// [`Outcome::PlayerLeft`]) or the player rejoins
    /// ([`Event::Unbenched`]).
    Benched {
        /// The slot.
        slot: u8,
        /// The first tick played with the absent input.
        tick: u32,
    },
    /// The benched player in `slot` rejoined: from `tick` on, the slot
    /// plays its fresh session's inputs again, on every side.
    Unbenched {
        /// The slot.
        slot: u8,
        /// The first tick played with the player's inputs again.
        tick: u32,
    },
    /// The host (slot 0) left for good (its rejoin window ran out, in a
    /// game that plays on after a leave with the players who remain) and
    /// the guest in `slot`, the one that acted for it, is the match's
    /// host from `tick` on (the same tick as the [`Event::Left`] for
    /// slot 0 that comes just before). Every member raises it; on the new
    /// host's own session [`Session::is_host`](super::Session::is_host)
    /// says so from then on, and its page takes over what the host's
    /// page did (see `docs/engine.md`, "A host that never comes back").
    HostMoved {
        /// The new host's slot.
        slot: u8,
        /// The first tick slot 0 plays the absent input.
        tick: u32,
    },
    /// The match is over; no further event follows.
    Ended(Outcome),
    /// This session rejoined a running match (see
    /// [`SessionConfig::rejoin`]): the host's catch-up replayed to its
    /// hash at `tick`, and the match plays on live from there. Follows
    /// [`Event::Started`]. A host coming back
    /// ([`SessionConfig::back_as_host`]) raises it too, once the guest's
    /// catch-up replayed: it is the host again.
    Rejoined {
        /// The tick the catch-up replayed to.
        tick: u32,
    },
    /// Spectator: the host admitted this session and its catch-up
    /// replayed to the host's hash at `tick` (0 for a spectator there
    /// from the start); the match is watched from there.
    Watching {
        /// Players in the match.
        players: u8,
        /// The tick the catch-up replayed to.
        tick: u32,
    },
    /// Host: the spectator on `link` was admitted (`joined`) or left
    /// (quit, went silent, fell too far behind or misbehaved).
    Spectator {
        /// The spectator's link.
        link: PeerId,
        /// Whether it joined (else it left).
        joined: bool,
    },
}

impl Event {
    /// Whether this is the start of the match for this session: a
    /// player's [`Event::Started`] or a spectator's [`Event::Watching`].
    #[must_use]
    pub fn is_start(&self) -> bool {
        matches!(self, Event::Started { .. } | Event::Watching { .. })
    }
}

/// What [`Session::advance_frame`](super::Session::advance_frame) did.
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
    /// The match is over (see [`Session::outcome`](super::Session::outcome)).
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
