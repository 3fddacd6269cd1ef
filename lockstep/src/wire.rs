//! The wire protocol between the sessions of a match (one link per pair of
//! players): messages, their channels and a strict codec.
//!
//! Every datagram is exactly one [`Message`], encoded with postcard: a
//! varint tag, then the fields in order (unsigned integers as LEB128
//! varints, signed ones zig-zag varints, 64-bit hashes, build ids and seeds
//! as 8 raw little-endian bytes, the game's input through its own serde
//! implementation). `docs/protocol.md` gives the byte layout of each message.
//!
//! Decoding is strict, because the bytes come from another machine:
//!
//! * unknown tags, truncation and trailing bytes are errors;
//! * values outside their range (a side other than 0 or 1, a player count
//!   or slot outside 2..=8, an input delay
//!   over [`MAX_INPUT_DELAY`], a hash interval of 0, a run of more than
//!   [`MAX_RUN`] inputs, ticks that overflow) are errors;
//! * the encoding must be canonical: the decoded message is encoded again
//!   and must give back exactly the bytes received (this rejects overlong
//!   varints and the like, and makes decode-then-encode the identity).
//!
//! Decoding never panics and never allocates more than the datagram could
//! describe.

use alloc::vec::Vec;
use core::fmt;
use core::marker::PhantomData;
use serde::de::{self, DeserializeOwned, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};

use crate::parts::{PartHashes, PartsWire};
use crate::transport::Channel;

/// The version of this wire protocol, first field of [`Hello`]. Peers with
/// different versions refuse to play (outcome `VersionMismatch`).
///
/// Version 2 added the prediction window to [`Hello`] and the frame
/// advantage to [`Inputs`] (rollback mode); version 3 the
/// [`ByeReason`]s `HandshakeTimeout` and `NoProgress`; version 4 matches
/// of 2 to 8 players (the host's [`Hello`] names the player count, the
/// receiver's slot and the match id; [`Member`] introduces guests to each
/// other); version 5 drops and leaves ([`Missing`], [`Held`], [`Roster`],
/// [`Message::RosterAck`] and the [`ByeReason`] `PlayerLeft`); version 6
/// rejoin after a reload (the host's [`Hello`] carries the receiver's
/// rejoin token; [`Rejoin`], [`CatchUpRun`], [`CatchUp`] and the
/// [`ByeReason`] `RejoinRefused`); version 7 rejoin in matches of three
/// players or more (the [`RosterChange`] `Returned`, and the number of the
/// host's last membership change in [`CatchUp`]); version 8 spectators
/// ([`Watch`], [`Welcome`], [`Confirmed`], [`Message::WatchAck`], the
/// [`RosterChange`] `Spectators` and the [`ByeReason`] `WatchRefused`);
/// version 9 a spectator's stream on the unreliable channel
/// ([`Message::Streamed`], repeated until acknowledged, so a lost packet
/// costs the next send's interval instead of a retransmission), and the
/// spectator count in [`CatchUp`] (a rejoiner and a spectator read the
/// count from their first tick; a spectator gets the count's changes
/// too); version 10 a catch-up from a saved state ([`SavedState`]: the
/// game's own bytes of the host's confirmed state, before the runs of the
/// inputs since); version 11 late join into a free slot ([`Join`], the
/// [`RosterChange`] `Joined` and the [`RejoinRefusal`]s `NoJoiners`,
/// `SlotHeld` and `NoFreeSlot`); version 12 no new message but a wider
/// bound on how far ahead a lock-step peer's inputs may reach (a side may
/// raise its own input delay during the match, up to
/// [`MAX_ADAPTIVE_DELAY`](crate::MAX_ADAPTIVE_DELAY)); version 13 a
/// dropped player's slot played on while held (the [`RosterChange`]
/// `Benched`, and a `Neutral` change for a benched slot once its window
/// ran out); version 14 a host that reloads comes back (the host's
/// [`Hello`] carries a check of its own token, a [`Rejoin`] may name slot
/// 0, and a guest answers a returning host with [`Resume`]); version 15
/// a host that reloads comes back to a match of three or more ([`Missing`],
/// [`Held`] and a `Returned` change may name slot 0: a guest acting for
/// the absent host gathers its inputs and orders its return); version 16
/// [`Resume`] ends with the slots benched when the host left and their
/// bench ticks, so the returned host keeps them for their players;
/// version 17 a join in two steps: the host sends the newcomer a first
/// catch-up before any change, the newcomer answers
/// [`Message::JoinReady`] once it replayed it, and the change follows
/// (with the [`RejoinRefusal`] `NotReady` for a newcomer that never said
/// it); version 18 a host that never comes back hands its place on
/// (the [`RosterChange`] `HostMoved`, a check of every slot's token in
/// the host's [`Hello`], slot 0 among a catch-up's neutral slots, and the
/// window left in a `Benched` change).
pub const PROTOCOL_VERSION: u32 = 18;

/// The most spectators a match admits.
pub const MAX_SPECTATORS: u8 = 16;

/// The most players in a match.
pub const MAX_PLAYERS: u8 = 8;

/// The most inputs one [`Inputs`] message may carry.
pub const MAX_RUN: usize = 128;

/// The largest input delay, in ticks, a host may choose (one second at
/// 60 ticks per second). It also bounds how far apart two honest peers can
/// be, which the session uses to refuse floods.
pub const MAX_INPUT_DELAY: u8 = 60;

/// The largest prediction window, in ticks, a host may choose (one second
/// at 60 ticks per second). Like [`MAX_INPUT_DELAY`], it bounds how far
/// apart two honest peers can be.
pub const MAX_PREDICTION_WINDOW: u8 = 60;

/// First message each way on the reliable channel (a host that picks its
/// input delay from the round trip sends pings before it; see
/// `docs/protocol.md`).
///
/// The host fills in the seed, input delay, hash interval and prediction
/// window, the player count, the slot it gives the receiver and the match
/// id; a guest sends zeros for the seed, delay, window, players, slot and
/// match id and its own configured hash interval, which the host ignores.
/// The guest adopts the host's values. A guest sends its Hello on every
/// link (it does not know which one leads to the host); between two
/// guests, [`Member`] follows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hello {
    /// [`PROTOCOL_VERSION`] of the sender. Always the first field after the
    /// tag, so that any future version can still be recognised.
    pub protocol: u32,
    /// The sender's game build id (`DeterministicGame::BUILD_ID`).
    pub build: u64,
    /// The match seed (host), or 0 (guest).
    pub seed: u64,
    /// The sender's side: the host's slot (0, or the guest's slot its
    /// place moved to, see [`RosterChange::HostMoved`]) from the host,
    /// 1 from a guest. A Hello with a player count is the host's.
    pub side: u8,
    /// Input delay in ticks (host), or 0 (guest). At most [`MAX_INPUT_DELAY`].
    pub input_delay: u8,
    /// Ticks between state hashes. Never 0. Only the host's value counts;
    /// the guest sends its own configured interval, which is ignored.
    pub hash_interval: u16,
    /// How many ticks a side may run ahead of the peer's inputs on
    /// predictions (host), or 0 (guest). 0 is lock-step; at most
    /// [`MAX_PREDICTION_WINDOW`].
    pub prediction_window: u8,
    /// Players in the match, 2 to [`MAX_PLAYERS`] (host), or 0 (guest).
    pub players: u8,
    /// The receiver's slot, 1 to `players - 1` (host), or 0 (guest).
    pub slot: u8,
    /// The match id (host): a digest of the match's parameters that guests
    /// show each other in [`Member`]; 0 (guest).
    pub match_id: u64,
    /// The receiver's rejoin token (host), which a fresh session of the
    /// same player shows in [`Rejoin`] to take its slot back; 0 (guest).
    pub rejoin_token: u64,
    /// The check of the host's own token (host): a keyed hash of the
    /// token slot 0 comes back with after a reload, from which the token
    /// cannot be found; 0 when the host issues no tokens, and from a
    /// guest.
    pub host_proof: u64,
    /// The check of every slot's token (host): entry `s` is the keyed
    /// hash of the token slot `s`'s player shows to take its slot back
    /// (as `host_proof` is of the host's), so that a guest the host's
    /// place moves to can check a returning player's token without
    /// knowing any. Only the first `players` entries travel; 0 where the
    /// host issues no token, and everywhere from a guest.
    pub proofs: [u64; MAX_PLAYERS as usize],
}

/// A fresh session's request to take back its slot in a running match
/// (reliable; to the host, instead of a [`Hello`]): the player's page was
/// reloaded, say. The host checks the token against the slot it holds and
/// answers with its Hello and the catch-up, or refuses with
/// `Bye(RejoinRefused)`. Slot 0 is the host's own fresh session coming
/// back: the guest that held the match checks the token against the
/// host's [`Hello::host_proof`] and answers with [`Resume`] and the
/// catch-up, or refuses the same way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rejoin {
    /// [`PROTOCOL_VERSION`] of the sender (first field, as in [`Hello`]).
    pub protocol: u32,
    /// The sender's game build id.
    pub build: u64,
    /// The slot taken back, 0 (the host's) to [`MAX_PLAYERS`]` - 1`.
    pub slot: u8,
    /// The token the host's Hello gave that slot (slot 0: the host's own
    /// token).
    pub token: u64,
}

/// A guest's answer to its host's fresh session coming back (reliable,
/// before the catch-up, on the link the [`Rejoin`] for slot 0 came on):
/// the match as the host's Hello gave it to the guest, so the fresh
/// session can be its host again. The catch-up ([`SavedState`]s,
/// [`CatchUpRun`]s and [`CatchUp`]) follows, from the guest's record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Resume {
    /// The match seed.
    pub seed: u64,
    /// The match's input delay in ticks, at most [`MAX_INPUT_DELAY`].
    pub input_delay: u8,
    /// Ticks between state hashes, never 0.
    pub hash_interval: u16,
    /// The prediction window, at most [`MAX_PREDICTION_WINDOW`].
    pub prediction_window: u8,
    /// Players in the match, 2 to [`MAX_PLAYERS`].
    pub players: u8,
    /// The sender's slot, 1 to `players - 1`.
    pub slot: u8,
    /// The match id.
    pub match_id: u64,
    /// The benched slots, one bit each (bit `s` for slot `s`): their
    /// players dropped and they play the absent input, but stay theirs
    /// until their window runs out, so the returned host takes them
    /// back. Never the host's slot, the sender's or one past `players`.
    pub benched: u8,
    /// Each benched slot's bench tick (the first it played the absent
    /// input), by slot; 0 for the others. On the wire only the benched
    /// slots' ticks go, in slot order.
    pub bench_ticks: [u32; MAX_PLAYERS as usize],
}

/// A new player's request to take a free slot of a running match
/// (reliable; sent on every link instead of a [`Hello`], only the host
/// answers): a slot whose player left for good and that plays the
/// neutral input. The host answers at once with its Hello (the slot and
/// a fresh rejoin token) and a first catch-up, while the match goes on
/// without the newcomer; once it replayed that, the newcomer says
/// [`Message::JoinReady`], the host orders the [`RosterChange`] `Joined`
/// and, once every player applied it, sends a second catch-up from the
/// ready tick. A refusal is `Bye(RejoinRefused)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Join {
    /// [`PROTOCOL_VERSION`] of the sender (first field, as in [`Hello`]).
    pub protocol: u32,
    /// The sender's game build id.
    pub build: u64,
    /// The slot asked for, 1 to [`MAX_PLAYERS`]` - 1`, or 0: any free
    /// slot (the host picks the lowest).
    pub slot: u8,
}

/// A run of one slot's confirmed inputs in a catch-up (reliable, host to
/// rejoiner): every slot's inputs from tick 0, in runs of at most
/// [`MAX_RUN`], each following the slot's previous one, before the
/// [`CatchUp`] that closes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatchUpRun<I> {
    /// The slot, 0 to [`MAX_PLAYERS`]` - 1`.
    pub slot: u8,
    /// The tick of `pads[0]`.
    pub first_tick: u32,
    /// The inputs, oldest first, 1 to [`MAX_RUN`].
    pub pads: Vec<I>,
}

/// The end of a catch-up (reliable, host to rejoiner): the state after
/// `tick` ticks, replayed from the runs before, hashes `hash` at the host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatchUp {
    /// The tick the rejoiner replays to (the host's confirmed tick).
    pub tick: u32,
    /// The host's state hash after `tick` ticks.
    pub hash: u64,
    /// The number of the host's last [`Roster`] change (0 before the
    /// first): the rejoiner's next one is one more.
    pub roster: u16,
    /// How many spectators watch: `(from tick, count)` changes, oldest
    /// first, the first in force at `tick` or before (none: no spectator
    /// yet), then those the host ordered for later ticks. At most
    /// [`MAX_COUNT_CHANGES`], ticks never going back, counts at most
    /// [`MAX_SPECTATORS`].
    pub spectators: Vec<(u32, u8)>,
    /// The slots that play the neutral input from `tick` on (their
    /// players left for good), bit `s` for slot `s`; never bit 0 (the
    /// host's). The catch-up holds their neutral inputs up to the host's
    /// present; the receiver keeps filling them as the others do.
    pub neutral: u8,
}

/// A piece of the host's saved state in a catch-up (reliable, host to
/// rejoiner), for a game that saves its state: the bytes of
/// `DeterministicGame::save` of the state after `tick` ticks, in pieces
/// of 1 to [`MAX_STATE_PIECE`] bytes, each at the offset where the one
/// before ended, before the [`CatchUpRun`]s of the inputs from `tick` on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SavedState {
    /// The tick the state stands at (the host's confirmed tick).
    pub tick: u32,
    /// The whole state's length, 1 to [`MAX_SAVED_STATE`] bytes.
    pub total: u32,
    /// Where `bytes` start in the whole state.
    pub offset: u32,
    /// The piece, 1 to [`MAX_STATE_PIECE`] bytes, ending at most at
    /// `total`.
    pub bytes: Vec<u8>,
}

/// The most bytes of saved state one [`SavedState`] carries.
pub const MAX_STATE_PIECE: usize = 1024;

/// The longest saved state a catch-up may carry (256 KiB): a longer one is
/// refused rather than held in memory, and a host whose game saves more
/// sends inputs to replay instead.
pub const MAX_SAVED_STATE: u32 = 256 * 1024;

/// The most spectator count changes a [`CatchUp`] carries.
pub const MAX_COUNT_CHANGES: usize = 64;

/// Why the host refused a [`Rejoin`], in `Bye(RejoinRefused)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum RejoinRefusal {
    /// The token is not the one the host gave that slot.
    WrongToken,
    /// The slot's player is still in the match (not dropped).
    SlotLive,
    /// The slot is not held: its window ran out, its player left, or the
    /// match has no such slot.
    SlotNotHeld,
    /// The host cannot take the player back at all: it issues no tokens,
    /// holds no slots (a window of 0), is not running the match yet, or
    /// the match ended while the request waited. (A request that comes
    /// while another player is away or a change is under way waits
    /// instead.)
    HostUnable,
    /// A [`Join`]: the game takes no new players into a running match
    /// (`DeterministicGame::takes_joiners`).
    NoJoiners,
    /// A [`Join`]: the slot asked for (or, asking for any, every slot that
    /// could be free) is still held for its player to come back.
    SlotHeld,
    /// A [`Join`]: no slot is free (every player is there), or the slot
    /// asked for is beyond the match's players.
    NoFreeSlot,
    /// A [`Join`]: the newcomer was sent its catch-up but did not say it
    /// was ready ([`Message::JoinReady`]) in time; the slot is free again.
    NotReady,
}

/// A guest's introduction to another guest, after both Hellos on their
/// link (reliable): its slot and the match id the host gave it. The
/// receiver refuses another match's id and a slot that is its own, the
/// host's, beyond the player count or already held by another link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Member {
    /// The sender's slot, 1 to [`MAX_PLAYERS`]` - 1`.
    pub slot: u8,
    /// The match id from the host's Hello.
    pub match_id: u64,
}

/// The host's question to every remaining player when a dropped player's
/// rejoin window ran out and the match plays on without it (reliable):
/// "slot `slot` is gone; which of its inputs do you hold from tick
/// `have`?" The receiver stops taking that player's inputs and answers
/// with [`Held`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Missing {
    /// The slot that is gone, 1 to [`MAX_PLAYERS`]` - 1` (never the host's).
    pub slot: u8,
    /// How many of that slot's inputs the host holds.
    pub have: u32,
}

/// A run of a gone player's inputs (reliable): a player's answer to
/// [`Missing`], or the host handing every remaining player the inputs it
/// lacks before the [`Roster`] change. A reply is one or more messages in
/// tick order; the first one with fewer than [`MAX_RUN`] pads (possibly
/// none) is its last.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Held<I> {
    /// The slot whose inputs these are, 1 to [`MAX_PLAYERS`]` - 1`.
    pub slot: u8,
    /// The tick of `pads[0]` (or, when empty, of the first input the sender
    /// does not hold).
    pub first_tick: u32,
    /// The inputs, oldest first, at most [`MAX_RUN`].
    pub pads: Vec<I>,
}

/// A change of who plays which slot, ordered by the host (reliable). Every
/// remaining player applies it at the same `tick`, acknowledges it with
/// [`Message::RosterAck`], and the changes are numbered so none is missed
/// or applied twice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Roster {
    /// The change's number: 1 for the match's first, then one more each.
    pub seq: u16,
    /// The first tick the change holds for.
    pub tick: u32,
    /// What changes.
    pub change: RosterChange,
}

/// What a [`Roster`] message changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RosterChange {
    /// The player in `slot` left: from the change's tick on, the slot plays
    /// the game's input for a slot nobody drives (the game input's
    /// `Default` unless [`DeterministicGame::absent_input`] says otherwise)
    /// on every side.
    ///
    /// [`DeterministicGame::absent_input`]: crate::DeterministicGame::absent_input
    Neutral {
        /// The slot, 1 to [`MAX_PLAYERS`]` - 1`.
        slot: u8,
    },
    /// The player in `slot` rejoined after a reload: the host took it
    /// back, and from the change's tick on its fresh session sends the
    /// slot's inputs. Every other guest takes that session on its link to
    /// the slot once the session's [`Rejoin`] there shows the token whose
    /// fingerprint is `proof` (a keyed hash of the token: the guests
    /// never learn the token itself).
    Returned {
        /// The slot, 1 to [`MAX_PLAYERS`]` - 1`.
        slot: u8,
        /// The fingerprint of the slot's rejoin token.
        proof: u64,
    },
    /// A new player took the free `slot` (one that played the neutral
    /// input): from the change's tick on, its session sends the slot's
    /// inputs instead of the neutral input. Every other guest takes that
    /// session on a new link once its [`Rejoin`] there shows the token
    /// whose fingerprint is `proof` (the fresh token the host gave it).
    Joined {
        /// The slot, 1 to [`MAX_PLAYERS`]` - 1`.
        slot: u8,
        /// The fingerprint of the new player's rejoin token.
        proof: u64,
    },
    /// The player in `slot` dropped and the game plays on while its slot
    /// is held: from the change's tick on, the slot plays the game's
    /// absent input on every side (as for `Neutral`), but stays its
    /// player's for the rejoin window.
    /// A fresh session with the slot's token takes it back with a
    /// `Joined` change (its `proof` the fingerprint of the slot's token);
    /// once the window ran out, a `Neutral` change for the slot says it
    /// left for good (its `tick` the benched slot's first neutral tick).
    Benched {
        /// The slot, 1 to [`MAX_PLAYERS`]` - 1`.
        slot: u8,
        /// Milliseconds of the slot's rejoin window left when the host
        /// ordered the bench, so that a guest that has not seen the
        /// player go yet can show the same countdown.
        held_for: u32,
    },
    /// From the change's tick on, `count` spectators watch the match (0
    /// to [`MAX_SPECTATORS`]). Nothing in the game changes; every member
    /// reads the same count at the same tick.
    Spectators {
        /// How many watch.
        count: u8,
    },
    /// The host's slot 0 left for good (its rejoin window ran out, in a
    /// game that plays on after a leave): from the change's tick on, slot
    /// 0 plays the game's absent input on every side, as for `Neutral`,
    /// and the guest in slot `host` (the one that acted for the absent
    /// host, and the only one that may send this change) is the match's
    /// host from then on.
    HostMoved {
        /// The new host's slot, 1 to [`MAX_PLAYERS`]` - 1`.
        host: u8,
    },
}

/// A spectator's request to watch (reliable; its first and only message
/// to the host besides [`Message::WatchAck`] and `Bye`). The host answers
/// with [`Welcome`], the catch-up ([`CatchUpRun`]s and [`CatchUp`]) and
/// then the live stream of [`Confirmed`] inputs, or refuses with
/// `Bye(WatchRefused)` (or `Bye(VersionMismatch)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Watch {
    /// [`PROTOCOL_VERSION`] of the sender (first field, as in [`Hello`]).
    pub protocol: u32,
    /// The sender's game build id.
    pub build: u64,
}

/// The host's answer to a [`Watch`] it admits (reliable): what the
/// spectator needs to build the match's game. The catch-up follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Welcome {
    /// The match seed.
    pub seed: u64,
    /// Players in the match, 2 to [`MAX_PLAYERS`].
    pub players: u8,
    /// Ticks between state hashes (never 0): the host's [`HashReport`]s
    /// to the spectator are for multiples of it.
    pub hash_interval: u16,
    /// The match id.
    pub match_id: u64,
}

/// A run of confirmed ticks for a spectator (reliable, host to
/// spectator): every player's input of `ticks` ticks from `first_tick`,
/// slot after slot (slot 0's `ticks` inputs, then slot 1's, ...). At most
/// [`MAX_RUN`] inputs in all, so the player count is `pads.len() / ticks`
/// (2 to [`MAX_PLAYERS`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Confirmed<I> {
    /// The first tick of the run: where the previous one ended.
    pub first_tick: u32,
    /// How many ticks the run holds, at least 1.
    pub ticks: u8,
    /// The inputs, slot-major.
    pub pads: Vec<I>,
}

/// Why the host refused or dropped a spectator, in `Bye(WatchRefused)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum WatchRefusal {
    /// The match has as many spectators as the host admits.
    Full,
    /// The spectator fell further behind the match than the host keeps
    /// for it (its link is too slow for the stream).
    TooSlow,
}

/// An answer to a [`Message::Ping`], possibly riding on an [`Inputs`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pong {
    /// The id of the ping answered.
    pub id: u16,
    /// How long the answer waited at the sender before leaving, in
    /// milliseconds, so that the round trip excludes it.
    pub held_ms: u16,
}

/// The sender's unacknowledged inputs and its acknowledgement of ours, on
/// the unreliable channel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inputs<I> {
    /// How many of the receiver's inputs the sender holds without a gap
    /// (the tick of the first input it still misses).
    pub ack: u32,
    /// The tick of `pads[0]` (or, when `pads` is empty, of the sender's next
    /// input).
    pub first_tick: u32,
    /// The sender's inputs for ticks `first_tick..first_tick + len`, oldest
    /// first, at most [`MAX_RUN`].
    pub pads: Vec<I>,
    /// A ping riding along, if one is due.
    pub ping: Option<u16>,
    /// A pong riding along, if one is owed.
    pub pong: Option<Pong>,
    /// The sender's frame advantage in ticks (how far it believes it runs
    /// ahead of the receiver), in rollback mode and only when it changed.
    pub advantage: Option<i8>,
}

/// A state hash after `tick` ticks, on the reliable channel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HashReport {
    /// Number of ticks simulated when the hash was taken (a multiple of the
    /// hash interval, never 0).
    pub tick: u32,
    /// `DeterministicGame::state_hash` at that point.
    pub hash: u64,
}

/// Why a peer ends the match, sent in [`Message::Bye`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ByeReason {
    /// The player left.
    Quit,
    /// The sender found different state hashes at `tick`; `hash` is the
    /// sender's own.
    Desync {
        /// The tick whose hashes differ.
        tick: u32,
        /// The sender's hash at that tick.
        hash: u64,
    },
    /// The sender refuses the receiver's protocol version or build id.
    VersionMismatch,
    /// The sender received something it could not accept from the receiver.
    InvalidData,
    /// The sender heard nothing from the receiver for its timeout.
    Timeout,
    /// The match did not start within the sender's handshake timeout.
    HandshakeTimeout,
    /// The sender waited for the receiver's next input for its progress
    /// timeout.
    NoProgress,
    /// The sender held the player in `slot` for its rejoin window and the
    /// player did not come back: the match is over without it.
    PlayerLeft {
        /// The slot that was not rejoined.
        slot: u8,
    },
    /// The host refused the receiver's [`Rejoin`].
    RejoinRefused(RejoinRefusal),
    /// The host refused the receiver's [`Watch`], or stopped its stream.
    WatchRefused(WatchRefusal),
}

/// One datagram of the protocol.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Message<I> {
    /// Version check and match parameters (reliable).
    Hello(Hello),
    /// Redundant input window plus acknowledgement (unreliable).
    Inputs(Inputs<I>),
    /// State hash (reliable).
    Hash(HashReport),
    /// Round-trip probe (unreliable), when no [`Inputs`] goes out to carry it.
    Ping(u16),
    /// Answer to a ping (unreliable), when no [`Inputs`] goes out to carry it.
    Pong(Pong),
    /// End of the match (reliable).
    Bye(ByeReason),
    /// The sender's part hashes of a tick whose state hashes differ
    /// (reliable, before its `Bye`; see [`crate::parts`]).
    Parts(PartHashes),
    /// A guest's slot and match id, to another guest (reliable).
    Member(Member),
    /// The host asks which inputs of a gone player the receiver holds
    /// (reliable).
    Missing(Missing),
    /// A run of a gone player's inputs (reliable).
    Held(Held<I>),
    /// A membership change at a tick, from the host (reliable).
    Roster(Roster),
    /// A player applied the [`Roster`] change with this number (reliable).
    RosterAck(u16),
    /// A fresh session asks to take back its slot (reliable).
    Rejoin(Rejoin),
    /// A run of a slot's inputs in a catch-up (reliable).
    CatchUpRun(CatchUpRun<I>),
    /// The end of a catch-up, with the host's hash (reliable).
    CatchUp(CatchUp),
    /// A spectator asks to watch (reliable).
    Watch(Watch),
    /// The host admits a spectator (reliable).
    Welcome(Welcome),
    /// Confirmed ticks for a spectator (reliable): what the end of the
    /// match leaves for it, ahead of the host's `Bye`.
    Confirmed(Confirmed<I>),
    /// A spectator holds this many ticks of confirmed inputs (unreliable).
    WatchAck(u32),
    /// Confirmed ticks for a spectator (unreliable): the live stream. The
    /// host sends every tick from the spectator's last acknowledgement
    /// each time, so a run may overlap what the spectator holds, and a
    /// lost one is carried by the next.
    Streamed(Confirmed<I>),
    /// A piece of the host's saved state in a catch-up (reliable).
    SavedState(SavedState),
    /// A new player asks for a free slot (reliable).
    Join(Join),
    /// A guest takes its host's fresh session back (reliable).
    Resume(Resume),
    /// A newcomer replayed the host's first catch-up, which ended at this
    /// tick, and is ready for the change that gives it its slot
    /// (reliable, newcomer to host).
    JoinReady(u32),
}

impl<I> Message<I> {
    /// The channel this message must travel on. A message received on the
    /// other channel is invalid.
    #[must_use]
    pub fn channel(&self) -> Channel {
        match self {
            // Part hashes go with the hashes, on the reliable channel.
            Message::Hello(_)
            | Message::Hash(_)
            | Message::Bye(_)
            | Message::Parts(_)
            | Message::Member(_)
            | Message::Missing(_)
            | Message::Held(_)
            | Message::Roster(_)
            | Message::RosterAck(_)
            | Message::Rejoin(_)
            | Message::CatchUpRun(_)
            | Message::CatchUp(_)
            | Message::Watch(_)
            | Message::Welcome(_)
            | Message::Confirmed(_)
            | Message::SavedState(_)
            | Message::Join(_)
            | Message::Resume(_)
            | Message::JoinReady(_) => Channel::Reliable,
            Message::Inputs(_)
            | Message::Ping(_)
            | Message::Pong(_)
            | Message::WatchAck(_)
            | Message::Streamed(_) => Channel::Unreliable,
        }
    }
}

/// Why a datagram was rejected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecodeError {
    /// The datagram is empty.
    Empty,
    /// The tag names no message of this protocol version.
    UnknownTag(u32),
    /// The datagram ends in the middle of a message.
    Truncated,
    /// Bytes are left over after the message.
    TrailingBytes(usize),
    /// An [`Inputs`] message announces more than [`MAX_RUN`] inputs.
    RunTooLong(u32),
    /// A field holds a value outside its range, or bytes that are not valid
    /// for their type.
    BadValue(&'static str),
    /// The bytes decode, but are not the canonical encoding of the message
    /// (an overlong varint, for instance).
    NonCanonical,
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeError::Empty => write!(f, "empty datagram"),
            DecodeError::UnknownTag(t) => write!(f, "unknown message tag {t}"),
            DecodeError::Truncated => write!(f, "truncated message"),
            DecodeError::TrailingBytes(n) => write!(f, "{n} trailing bytes after the message"),
            DecodeError::RunTooLong(n) => {
                write!(f, "input run of {n} exceeds the maximum of {MAX_RUN}")
            }
            DecodeError::BadValue(what) => write!(f, "bad value: {what}"),
            DecodeError::NonCanonical => write!(f, "non-canonical encoding"),
        }
    }
}

impl core::error::Error for DecodeError {}

/// Why a message could not be encoded. The session never builds such
/// messages (it checks the input type once, in `Session::new`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EncodeError {
    /// The game's input type failed to serialize with postcard (for example
    /// a sequence of unknown length).
    Input(postcard::Error),
    /// An [`Inputs`] message whose `ack` and `first_tick` are 2^31 or more
    /// apart: the delta encoding cannot carry it.
    AckOutOfRange,
    /// An [`Inputs`] message with more than [`MAX_RUN`] pads.
    RunTooLong(usize),
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EncodeError::Input(e) => write!(f, "cannot encode the game input: {e}"),
            EncodeError::AckOutOfRange => write!(f, "ack too far from first_tick"),
            EncodeError::RunTooLong(n) => write!(f, "{n} pads exceed the maximum of {MAX_RUN}"),
        }
    }
}

impl core::error::Error for EncodeError {}

// ---------------------------------------------------------------------------
// Wire representation. Tags are the variant order of `Wire`; do not reorder.

const TAG_HELLO: u32 = 0;
const TAG_INPUTS: u32 = 1;
const TAG_INPUTS_EXT: u32 = 2;
const TAG_INPUTS_ADV: u32 = 7;
/// Part hashes after a desync (see [`crate::parts`]).
const TAG_PARTS: u32 = 8;
const TAG_HELD: u32 = 11;
const TAG_CATCH_UP_RUN: u32 = 15;
const TAG_CONFIRMED: u32 = 19;
const TAG_STREAMED: u32 = 21;
const TAG_SAVED_STATE: u32 = 22;
const TAG_COUNT: u32 = 26;

#[derive(Serialize, Deserialize)]
struct HelloWire {
    protocol: u32,
    build: [u8; 8],
    seed: [u8; 8],
    side: u8,
    input_delay: u8,
    hash_interval: u16,
    prediction_window: u8,
    players: u8,
    slot: u8,
    match_id: [u8; 8],
    rejoin_token: [u8; 8],
    host_proof: [u8; 8],
    proofs: Vec<[u8; 8]>,
}

#[derive(Serialize, Deserialize)]
struct InputsWire<P> {
    first_tick: u32,
    /// `ack - first_tick`: both are near the current tick, so this is
    /// usually one byte.
    ack_delta: i32,
    pads: P,
}

#[derive(Serialize, Deserialize)]
enum ByeWire {
    Quit,
    Desync(u32, [u8; 8]),
    VersionMismatch,
    InvalidData,
    Timeout,
    HandshakeTimeout,
    NoProgress,
    PlayerLeft(u8),
    RejoinRefused(u8),
    WatchRefused(u8),
}

#[derive(Serialize, Deserialize)]
enum ChangeWire {
    Neutral(u8),
    Returned(u8, [u8; 8]),
    Spectators(u8),
    Joined(u8, [u8; 8]),
    Benched(u8, u32),
    HostMoved(u8),
}

#[derive(Serialize, Deserialize)]
enum Wire<P> {
    Hello(HelloWire),
    Inputs(InputsWire<P>),
    InputsExt(InputsWire<P>, Option<u16>, Option<(u16, u16)>),
    Hash(u32, [u8; 8]),
    Ping(u16),
    Pong(u16, u16),
    Bye(ByeWire),
    /// Inputs with the sender's frame advantage (rollback mode, only when
    /// it changed): a tag of its own so lock-step traffic is unchanged.
    InputsAdv(InputsWire<P>, Option<u16>, Option<(u16, u16)>, i8),
    /// Part hashes of a desync tick: the codec and its cap are in
    /// `parts.rs`.
    Parts(PartsWire),
    /// A guest's slot and the match id.
    Member(u8, [u8; 8]),
    /// A gone slot and how many of its inputs the host holds.
    Missing(u8, u32),
    /// A gone slot, the first tick and a run of its inputs.
    Held(u8, u32, P),
    /// A change's number, its tick and the change.
    Roster(u16, u32, ChangeWire),
    /// The number of the change applied.
    RosterAck(u16),
    /// Protocol, build, slot and token.
    Rejoin(u32, [u8; 8], u8, [u8; 8]),
    /// A slot, the first tick and a run of its inputs.
    CatchUpRun(u8, u32, P),
    /// The catch-up's tick, the host's hash of it, its last change and
    /// the spectator count's changes and the neutral slots.
    CatchUp(u32, [u8; 8], u16, Vec<(u32, u8)>, u8),
    /// Protocol and build.
    Watch(u32, [u8; 8]),
    /// Seed, players, hash interval and match id.
    Welcome([u8; 8], u8, u16, [u8; 8]),
    /// The first tick, the number of ticks and the inputs, slot-major.
    Confirmed(u32, u8, P),
    /// Ticks of confirmed inputs held.
    WatchAck(u32),
    /// As `Confirmed`, on the unreliable channel.
    Streamed(u32, u8, P),
    /// The state's tick, its whole length, the piece's offset and the
    /// piece.
    SavedState(u32, u32, u32, Vec<u8>),
    /// Protocol, build and the slot asked for (0: any).
    Join(u32, [u8; 8], u8),
    /// Seed, input delay, hash interval, prediction window, players, the
    /// sender's slot, the match id, the benched slots and their ticks.
    Resume([u8; 8], u8, u16, u8, u8, u8, [u8; 8], u8, Vec<u32>),
    /// The tick of the first catch-up the newcomer replayed.
    JoinReady(u32),
}

/// Most bytes a repeat mask can take (one bit per pad after the first).
const MAX_MASK_BYTES: usize = MAX_RUN.div_ceil(8);

/// How many elements the pads "tuple" may hold at most: the head, the mask
/// and the inputs. Postcard tuples carry no length; the visitor reads only
/// what the head announces.
const MAX_PAD_ELEMENTS: usize = 1 + MAX_MASK_BYTES + MAX_RUN;

/// Repeat mask of `pads`: bit `j` (least significant first) is set when
/// `pads[j + 1] == pads[j]`. Returns the mask and how many inputs it leaves
/// to write (the first, and each one that differs from its predecessor).
fn repeat_mask<I: PartialEq>(pads: &[I]) -> ([u8; MAX_MASK_BYTES], usize, usize) {
    let mut mask = [0u8; MAX_MASK_BYTES];
    let mut explicit = usize::from(!pads.is_empty());
    for (j, w) in pads.windows(2).enumerate() {
        if w[0] == w[1] {
            if let Some(b) = mask.get_mut(j / 8) {
                *b |= 1 << (j % 8);
            }
        } else {
            explicit += 1;
        }
    }
    let mask_len = pads.len().saturating_sub(1).div_ceil(8);
    (mask, mask_len, explicit)
}

/// A run of inputs on the wire (see `docs/protocol.md`): a varint head
/// `count << 1 | masked`, then either `count` inputs (plain) or a repeat
/// mask of `ceil((count - 1) / 8)` bytes followed by only the inputs that
/// differ from their predecessor (masked). The encoder picks masked exactly
/// when it writes fewer inputs-plus-mask-bytes than plain.
struct PadsRef<'a, I>(&'a [I]);

impl<I: Serialize + PartialEq> Serialize for PadsRef<'_, I> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeTuple;
        // `encode_into` refused longer runs; the cap keeps this total.
        let pads = self.0.get(..MAX_RUN).unwrap_or(self.0);
        let n = pads.len();
        let (mask, mask_len, explicit) = repeat_mask(pads);
        let masked = mask_len + explicit < n;
        let head = (n as u32) << 1 | u32::from(masked);
        let mut t = s.serialize_tuple(MAX_PAD_ELEMENTS)?;
        t.serialize_element(&head)?;
        if masked {
            for b in mask.iter().take(mask_len) {
                t.serialize_element(b)?;
            }
            for (j, pad) in pads.iter().enumerate() {
                if j == 0 || pads.get(j - 1) != Some(pad) {
                    t.serialize_element(pad)?;
                }
            }
        } else {
            for pad in pads {
                t.serialize_element(pad)?;
            }
        }
        t.end()
    }
}

/// A decoded run of inputs; refuses more than [`MAX_RUN`] before reading
/// any.
struct Pads<I>(Vec<I>);

impl<'de, I: Deserialize<'de> + Clone> Deserialize<'de> for Pads<I> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<I>(PhantomData<I>);
        impl<'de, I: Deserialize<'de> + Clone> Visitor<'de> for V<I> {
            type Value = Pads<I>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "a run of at most {MAX_RUN} inputs")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Pads<I>, A::Error> {
                let missing = || de::Error::invalid_length(0, &"more run elements");
                let head: u32 = seq.next_element()?.ok_or_else(missing)?;
                let n = (head >> 1) as usize;
                if n > MAX_RUN {
                    return Err(de::Error::invalid_length(n, &self));
                }
                let mut out: Vec<I> = Vec::with_capacity(n);
                if head & 1 == 0 {
                    for _ in 0..n {
                        out.push(seq.next_element()?.ok_or_else(missing)?);
                    }
                    return Ok(Pads(out));
                }
                let mask_len = n.saturating_sub(1).div_ceil(8);
                let mut mask = [0u8; MAX_MASK_BYTES];
                for b in mask.iter_mut().take(mask_len) {
                    *b = seq.next_element()?.ok_or_else(missing)?;
                }
                for j in 0..n {
                    // Pad j > 0 repeats pad j - 1 when bit j - 1 is set.
                    let repeat = j > 0
                        && mask
                            .get((j - 1) / 8)
                            .is_some_and(|b| b & (1 << ((j - 1) % 8)) != 0);
                    match out.last() {
                        Some(prev) if repeat => {
                            let prev = prev.clone();
                            out.push(prev);
                        }
                        _ => out.push(seq.next_element()?.ok_or_else(missing)?),
                    }
                }
                Ok(Pads(out))
            }
        }
        d.deserialize_tuple(MAX_PAD_ELEMENTS, V(PhantomData))
    }
}

/// A spectator's run of confirmed ticks, checked: the inputs split into 2
/// to [`MAX_PLAYERS`] slots of `ticks` each, and the run ends within `u32`.
fn confirmed_run<I>(first_tick: u32, ticks: u8, pads: Vec<I>) -> Result<Confirmed<I>, DecodeError> {
    let n = pads.len();
    let players = match n.checked_div(usize::from(ticks)) {
        Some(p) if p * usize::from(ticks) == n => p,
        _ => return Err(DecodeError::BadValue("ticks")),
    };
    if !(2..=usize::from(MAX_PLAYERS)).contains(&players) {
        return Err(DecodeError::BadValue("players"));
    }
    if u64::from(first_tick) + u64::from(ticks) > u64::from(u32::MAX) {
        return Err(DecodeError::BadValue("tick overflow"));
    }
    Ok(Confirmed {
        first_tick,
        ticks,
        pads,
    })
}

fn map_postcard(e: &postcard::Error) -> DecodeError {
    use postcard::Error as E;
    match e {
        E::DeserializeUnexpectedEnd => DecodeError::Truncated,
        E::DeserializeBadBool => DecodeError::BadValue("bool"),
        E::DeserializeBadOption => DecodeError::BadValue("option tag"),
        E::DeserializeBadVarint => DecodeError::BadValue("varint"),
        E::DeserializeBadEnum => DecodeError::BadValue("enum tag"),
        E::DeserializeBadUtf8 | E::DeserializeBadChar => DecodeError::BadValue("text"),
        _ => DecodeError::BadValue("field"),
    }
}

impl<I: Serialize + DeserializeOwned + Clone + PartialEq> Message<I> {
    /// Encodes the message as one datagram.
    ///
    /// Fails only when the game's input type cannot be serialized by
    /// postcard; see [`EncodeError`].
    pub fn encode(&self) -> Result<Vec<u8>, EncodeError> {
        let mut buf = Vec::with_capacity(16);
        self.encode_into(&mut buf)?;
        Ok(buf)
    }

    /// Encodes the message, appending to `buf` (which is cleared first).
    pub fn encode_into(&self, buf: &mut Vec<u8>) -> Result<(), EncodeError> {
        buf.clear();
        let wire: Wire<PadsRef<'_, I>> = match self {
            Message::Hello(h) => Wire::Hello(HelloWire {
                protocol: h.protocol,
                build: h.build.to_le_bytes(),
                seed: h.seed.to_le_bytes(),
                side: h.side,
                input_delay: h.input_delay,
                hash_interval: h.hash_interval,
                prediction_window: h.prediction_window,
                players: h.players,
                slot: h.slot,
                match_id: h.match_id.to_le_bytes(),
                rejoin_token: h.rejoin_token.to_le_bytes(),
                host_proof: h.host_proof.to_le_bytes(),
                proofs: h
                    .proofs
                    .iter()
                    .take(usize::from(h.players))
                    .map(|p| p.to_le_bytes())
                    .collect(),
            }),
            Message::Rejoin(r) => Wire::Rejoin(
                r.protocol,
                r.build.to_le_bytes(),
                r.slot,
                r.token.to_le_bytes(),
            ),
            Message::Join(j) => Wire::Join(j.protocol, j.build.to_le_bytes(), j.slot),
            Message::Resume(r) => Wire::Resume(
                r.seed.to_le_bytes(),
                r.input_delay,
                r.hash_interval,
                r.prediction_window,
                r.players,
                r.slot,
                r.match_id.to_le_bytes(),
                r.benched,
                (0..MAX_PLAYERS)
                    .filter(|s| r.benched & 1 << s != 0)
                    .map(|s| r.bench_ticks.get(usize::from(s)).copied().unwrap_or(0))
                    .collect(),
            ),
            Message::CatchUpRun(r) => {
                if r.pads.len() > MAX_RUN {
                    return Err(EncodeError::RunTooLong(r.pads.len()));
                }
                Wire::CatchUpRun(r.slot, r.first_tick, PadsRef(r.pads.as_slice()))
            }
            Message::CatchUp(c) => Wire::CatchUp(
                c.tick,
                c.hash.to_le_bytes(),
                c.roster,
                c.spectators.clone(),
                c.neutral,
            ),
            Message::SavedState(p) => Wire::SavedState(p.tick, p.total, p.offset, p.bytes.clone()),
            Message::Watch(w) => Wire::Watch(w.protocol, w.build.to_le_bytes()),
            Message::Welcome(w) => Wire::Welcome(
                w.seed.to_le_bytes(),
                w.players,
                w.hash_interval,
                w.match_id.to_le_bytes(),
            ),
            Message::Confirmed(c) | Message::Streamed(c) => {
                if c.pads.len() > MAX_RUN {
                    return Err(EncodeError::RunTooLong(c.pads.len()));
                }
                let pads = PadsRef(c.pads.as_slice());
                if matches!(self, Message::Streamed(_)) {
                    Wire::Streamed(c.first_tick, c.ticks, pads)
                } else {
                    Wire::Confirmed(c.first_tick, c.ticks, pads)
                }
            }
            Message::WatchAck(t) => Wire::WatchAck(*t),
            Message::Member(m) => Wire::Member(m.slot, m.match_id.to_le_bytes()),
            Message::Missing(m) => Wire::Missing(m.slot, m.have),
            Message::Held(h) => {
                if h.pads.len() > MAX_RUN {
                    return Err(EncodeError::RunTooLong(h.pads.len()));
                }
                Wire::Held(h.slot, h.first_tick, PadsRef(h.pads.as_slice()))
            }
            Message::Roster(r) => Wire::Roster(
                r.seq,
                r.tick,
                match r.change {
                    RosterChange::Neutral { slot } => ChangeWire::Neutral(slot),
                    RosterChange::Returned { slot, proof } => {
                        ChangeWire::Returned(slot, proof.to_le_bytes())
                    }
                    RosterChange::Spectators { count } => ChangeWire::Spectators(count),
                    RosterChange::Joined { slot, proof } => {
                        ChangeWire::Joined(slot, proof.to_le_bytes())
                    }
                    RosterChange::Benched { slot, held_for } => ChangeWire::Benched(slot, held_for),
                    RosterChange::HostMoved { host } => ChangeWire::HostMoved(host),
                },
            ),
            Message::RosterAck(seq) => Wire::RosterAck(*seq),
            Message::JoinReady(t) => Wire::JoinReady(*t),
            Message::Inputs(m) => {
                if m.pads.len() > MAX_RUN {
                    return Err(EncodeError::RunTooLong(m.pads.len()));
                }
                let delta = i64::from(m.ack) - i64::from(m.first_tick);
                let ack_delta = i32::try_from(delta).map_err(|_| EncodeError::AckOutOfRange)?;
                let iw = InputsWire {
                    first_tick: m.first_tick,
                    ack_delta,
                    pads: PadsRef(m.pads.as_slice()),
                };
                let pong = m.pong.map(|p| (p.id, p.held_ms));
                match m.advantage {
                    Some(adv) => Wire::InputsAdv(iw, m.ping, pong, adv),
                    None if m.ping.is_none() && pong.is_none() => Wire::Inputs(iw),
                    None => Wire::InputsExt(iw, m.ping, pong),
                }
            }
            Message::Hash(h) => Wire::Hash(h.tick, h.hash.to_le_bytes()),
            Message::Parts(p) => Wire::Parts(PartsWire::from_message(p)),
            Message::Ping(id) => Wire::Ping(*id),
            Message::Pong(p) => Wire::Pong(p.id, p.held_ms),
            Message::Bye(r) => Wire::Bye(match *r {
                ByeReason::Quit => ByeWire::Quit,
                ByeReason::Desync { tick, hash } => ByeWire::Desync(tick, hash.to_le_bytes()),
                ByeReason::VersionMismatch => ByeWire::VersionMismatch,
                ByeReason::InvalidData => ByeWire::InvalidData,
                ByeReason::Timeout => ByeWire::Timeout,
                ByeReason::HandshakeTimeout => ByeWire::HandshakeTimeout,
                ByeReason::NoProgress => ByeWire::NoProgress,
                ByeReason::PlayerLeft { slot } => ByeWire::PlayerLeft(slot),
                ByeReason::RejoinRefused(why) => ByeWire::RejoinRefused(match why {
                    RejoinRefusal::WrongToken => 0,
                    RejoinRefusal::SlotLive => 1,
                    RejoinRefusal::SlotNotHeld => 2,
                    RejoinRefusal::HostUnable => 3,
                    RejoinRefusal::NoJoiners => 4,
                    RejoinRefusal::SlotHeld => 5,
                    RejoinRefusal::NoFreeSlot => 6,
                    RejoinRefusal::NotReady => 7,
                }),
                ByeReason::WatchRefused(why) => ByeWire::WatchRefused(match why {
                    WatchRefusal::Full => 0,
                    WatchRefusal::TooSlow => 1,
                }),
            }),
        };
        let taken = core::mem::take(buf);
        match postcard::to_extend(&wire, taken) {
            Ok(v) => {
                *buf = v;
                Ok(())
            }
            Err(e) => Err(EncodeError::Input(e)),
        }
    }

    /// Decodes one datagram strictly (see the module documentation).
    pub fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        let msg = Self::decode_lenient(bytes)?;
        // Canonical form: encoding again must give back the same bytes.
        let mut again = Vec::with_capacity(bytes.len());
        match msg.encode_into(&mut again) {
            Ok(()) if again == bytes => Ok(msg),
            _ => Err(DecodeError::NonCanonical),
        }
    }

    fn decode_lenient(bytes: &[u8]) -> Result<Self, DecodeError> {
        if bytes.is_empty() {
            return Err(DecodeError::Empty);
        }
        let (tag, _) = postcard::take_from_bytes::<u32>(bytes).map_err(|e| map_postcard(&e))?;
        if tag >= TAG_COUNT {
            return Err(DecodeError::UnknownTag(tag));
        }
        if tag == TAG_INPUTS || tag == TAG_INPUTS_EXT || tag == TAG_INPUTS_ADV {
            // Look at the announced run length before reading the run.
            let (head, _) = postcard::take_from_bytes::<(u32, u32, i32, u32)>(bytes)
                .map_err(|e| map_postcard(&e))?;
            let count = head.3 >> 1;
            if count as usize > MAX_RUN {
                return Err(DecodeError::RunTooLong(count));
            }
        }
        if tag == TAG_HELD || tag == TAG_CATCH_UP_RUN {
            // The same for a run of a gone player's inputs.
            let (head, _) = postcard::take_from_bytes::<(u32, u8, u32, u32)>(bytes)
                .map_err(|e| map_postcard(&e))?;
            let count = head.3 >> 1;
            if count as usize > MAX_RUN {
                return Err(DecodeError::RunTooLong(count));
            }
        }
        if tag == TAG_CONFIRMED || tag == TAG_STREAMED {
            // The same for a spectator's run of confirmed ticks.
            let (head, _) = postcard::take_from_bytes::<(u32, u32, u8, u32)>(bytes)
                .map_err(|e| map_postcard(&e))?;
            let count = head.3 >> 1;
            if count as usize > MAX_RUN {
                return Err(DecodeError::RunTooLong(count));
            }
        }
        if tag == TAG_SAVED_STATE {
            // Refuse an oversized piece before reading it.
            let (head, _) = postcard::take_from_bytes::<(u32, u32, u32, u32, u32)>(bytes)
                .map_err(|e| map_postcard(&e))?;
            if head.4 as usize > MAX_STATE_PIECE {
                return Err(DecodeError::BadValue("saved state piece"));
            }
        }
        if tag == TAG_PARTS {
            // Refuse an oversized list before reading it (parts.rs).
            crate::parts::check_part_count(bytes)?;
        }
        let (wire, rest) =
            postcard::take_from_bytes::<Wire<Pads<I>>>(bytes).map_err(|e| map_postcard(&e))?;
        if !rest.is_empty() {
            return Err(DecodeError::TrailingBytes(rest.len()));
        }
        Ok(match wire {
            Wire::Hello(h) => {
                if h.side >= MAX_PLAYERS || (h.players == 0 && h.side != 1) {
                    return Err(DecodeError::BadValue("side"));
                }
                if h.input_delay > MAX_INPUT_DELAY {
                    return Err(DecodeError::BadValue("input delay"));
                }
                if h.hash_interval == 0 {
                    return Err(DecodeError::BadValue("hash interval"));
                }
                if h.prediction_window > MAX_PREDICTION_WINDOW {
                    return Err(DecodeError::BadValue("prediction window"));
                }
                let match_id = u64::from_le_bytes(h.match_id);
                let rejoin_token = u64::from_le_bytes(h.rejoin_token);
                let host_proof = u64::from_le_bytes(h.host_proof);
                if h.players != 0 {
                    // The host names the match: 2 to 8 players, a guest's
                    // slot other than its own, and a check of every slot's
                    // token.
                    if !(2..=MAX_PLAYERS).contains(&h.players) {
                        return Err(DecodeError::BadValue("players"));
                    }
                    if h.side >= h.players {
                        return Err(DecodeError::BadValue("side"));
                    }
                    if h.slot == 0 || h.slot == h.side || h.slot >= h.players {
                        return Err(DecodeError::BadValue("slot"));
                    }
                    if h.proofs.len() != usize::from(h.players) {
                        return Err(DecodeError::BadValue("proofs"));
                    }
                } else if h.slot != 0
                    || match_id != 0
                    || rejoin_token != 0
                    || host_proof != 0
                    || !h.proofs.is_empty()
                {
                    // A guest knows none of these yet.
                    return Err(DecodeError::BadValue("players"));
                }
                let mut proofs = [0; MAX_PLAYERS as usize];
                for (p, b) in proofs.iter_mut().zip(&h.proofs) {
                    *p = u64::from_le_bytes(*b);
                }
                Message::Hello(Hello {
                    protocol: h.protocol,
                    build: u64::from_le_bytes(h.build),
                    seed: u64::from_le_bytes(h.seed),
                    side: h.side,
                    input_delay: h.input_delay,
                    hash_interval: h.hash_interval,
                    prediction_window: h.prediction_window,
                    players: h.players,
                    slot: h.slot,
                    match_id,
                    rejoin_token,
                    host_proof,
                    proofs,
                })
            }
            Wire::Rejoin(protocol, build, slot, token) => {
                // Slot 0: the host's fresh session coming back.
                if slot >= MAX_PLAYERS {
                    return Err(DecodeError::BadValue("slot"));
                }
                Message::Rejoin(Rejoin {
                    protocol,
                    build: u64::from_le_bytes(build),
                    slot,
                    token: u64::from_le_bytes(token),
                })
            }
            Wire::Resume(
                seed,
                input_delay,
                hash_interval,
                prediction_window,
                players,
                slot,
                id,
                benched,
                ticks,
            ) => {
                if input_delay > MAX_INPUT_DELAY {
                    return Err(DecodeError::BadValue("input delay"));
                }
                if hash_interval == 0 {
                    return Err(DecodeError::BadValue("hash interval"));
                }
                if prediction_window > MAX_PREDICTION_WINDOW {
                    return Err(DecodeError::BadValue("prediction window"));
                }
                if !(2..=MAX_PLAYERS).contains(&players) {
                    return Err(DecodeError::BadValue("players"));
                }
                if slot == 0 || slot >= players {
                    return Err(DecodeError::BadValue("slot"));
                }
                // Guest slots of the match but the sender's.
                let others = ((1u16 << players) - 2) & !(1u16 << slot);
                if u16::from(benched) & !others != 0 {
                    return Err(DecodeError::BadValue("benched"));
                }
                if ticks.len() != benched.count_ones() as usize {
                    return Err(DecodeError::BadValue("bench ticks"));
                }
                let mut bench_ticks = [0; MAX_PLAYERS as usize];
                let slots = (0..MAX_PLAYERS).filter(|s| benched & 1 << s != 0);
                for (s, t) in slots.zip(ticks) {
                    if let Some(at) = bench_ticks.get_mut(usize::from(s)) {
                        *at = t;
                    }
                }
                Message::Resume(Resume {
                    seed: u64::from_le_bytes(seed),
                    input_delay,
                    hash_interval,
                    prediction_window,
                    players,
                    slot,
                    match_id: u64::from_le_bytes(id),
                    benched,
                    bench_ticks,
                })
            }
            Wire::Join(protocol, build, slot) => {
                if slot >= MAX_PLAYERS {
                    return Err(DecodeError::BadValue("slot"));
                }
                Message::Join(Join {
                    protocol,
                    build: u64::from_le_bytes(build),
                    slot,
                })
            }
            Wire::CatchUpRun(slot, first_tick, pads) => {
                if slot >= MAX_PLAYERS {
                    return Err(DecodeError::BadValue("slot"));
                }
                if pads.0.is_empty() {
                    return Err(DecodeError::BadValue("empty run"));
                }
                if u64::from(first_tick) + pads.0.len() as u64 > u64::from(u32::MAX) {
                    return Err(DecodeError::BadValue("tick overflow"));
                }
                Message::CatchUpRun(CatchUpRun {
                    slot,
                    first_tick,
                    pads: pads.0,
                })
            }
            Wire::CatchUp(tick, hash, roster, spectators, neutral) => {
                if spectators.len() > MAX_COUNT_CHANGES {
                    return Err(DecodeError::BadValue("spectator changes"));
                }
                if spectators.iter().any(|&(_, c)| c > MAX_SPECTATORS)
                    || spectators.windows(2).any(|w| w[1].0 < w[0].0)
                {
                    return Err(DecodeError::BadValue("spectator count"));
                }
                Message::CatchUp(CatchUp {
                    tick,
                    hash: u64::from_le_bytes(hash),
                    roster,
                    spectators,
                    neutral,
                })
            }
            Wire::SavedState(tick, total, offset, piece) => {
                let end = u64::from(offset) + piece.len() as u64;
                if total == 0 || total > MAX_SAVED_STATE {
                    return Err(DecodeError::BadValue("saved state length"));
                }
                if piece.is_empty() || end > u64::from(total) {
                    return Err(DecodeError::BadValue("saved state piece"));
                }
                Message::SavedState(SavedState {
                    tick,
                    total,
                    offset,
                    bytes: piece,
                })
            }
            Wire::Watch(protocol, build) => Message::Watch(Watch {
                protocol,
                build: u64::from_le_bytes(build),
            }),
            Wire::Welcome(seed, players, hash_interval, match_id) => {
                if !(2..=MAX_PLAYERS).contains(&players) {
                    return Err(DecodeError::BadValue("players"));
                }
                if hash_interval == 0 {
                    return Err(DecodeError::BadValue("hash interval"));
                }
                Message::Welcome(Welcome {
                    seed: u64::from_le_bytes(seed),
                    players,
                    hash_interval,
                    match_id: u64::from_le_bytes(match_id),
                })
            }
            Wire::Confirmed(first_tick, ticks, pads) => {
                Message::Confirmed(confirmed_run(first_tick, ticks, pads.0)?)
            }
            Wire::Streamed(first_tick, ticks, pads) => {
                Message::Streamed(confirmed_run(first_tick, ticks, pads.0)?)
            }
            Wire::WatchAck(t) => Message::WatchAck(t),
            Wire::Member(slot, match_id) => {
                if slot == 0 || slot >= MAX_PLAYERS {
                    return Err(DecodeError::BadValue("slot"));
                }
                Message::Member(Member {
                    slot,
                    match_id: u64::from_le_bytes(match_id),
                })
            }
            Wire::Missing(slot, have) => Message::Missing(Missing {
                slot: player_slot(slot)?,
                have,
            }),
            Wire::Held(slot, first_tick, pads) => {
                if u64::from(first_tick) + pads.0.len() as u64 > u64::from(u32::MAX) {
                    return Err(DecodeError::BadValue("tick overflow"));
                }
                Message::Held(Held {
                    slot: player_slot(slot)?,
                    first_tick,
                    pads: pads.0,
                })
            }
            Wire::Roster(seq, tick, change) => {
                if seq == 0 {
                    return Err(DecodeError::BadValue("roster number"));
                }
                let change = match change {
                    ChangeWire::Neutral(slot) => RosterChange::Neutral {
                        slot: guest_slot(slot)?,
                    },
                    ChangeWire::Returned(slot, proof) => RosterChange::Returned {
                        slot: player_slot(slot)?,
                        proof: u64::from_le_bytes(proof),
                    },
                    ChangeWire::Joined(slot, proof) => RosterChange::Joined {
                        slot: guest_slot(slot)?,
                        proof: u64::from_le_bytes(proof),
                    },
                    ChangeWire::Benched(slot, held_for) => RosterChange::Benched {
                        slot: guest_slot(slot)?,
                        held_for,
                    },
                    ChangeWire::HostMoved(host) => RosterChange::HostMoved {
                        host: guest_slot(host)?,
                    },
                    ChangeWire::Spectators(count) => {
                        if count > MAX_SPECTATORS {
                            return Err(DecodeError::BadValue("spectators"));
                        }
                        RosterChange::Spectators { count }
                    }
                };
                Message::Roster(Roster { seq, tick, change })
            }
            Wire::JoinReady(t) => Message::JoinReady(t),
            Wire::RosterAck(seq) => {
                if seq == 0 {
                    return Err(DecodeError::BadValue("roster number"));
                }
                Message::RosterAck(seq)
            }
            Wire::Inputs(iw) => Message::Inputs(inputs_from_wire(iw, None, None, None)?),
            Wire::InputsExt(iw, ping, pong) => {
                Message::Inputs(inputs_from_wire(iw, ping, pong, None)?)
            }
            Wire::InputsAdv(iw, ping, pong, adv) => {
                Message::Inputs(inputs_from_wire(iw, ping, pong, Some(adv))?)
            }
            Wire::Hash(tick, hash) => {
                if tick == 0 {
                    return Err(DecodeError::BadValue("hash tick"));
                }
                Message::Hash(HashReport {
                    tick,
                    hash: u64::from_le_bytes(hash),
                })
            }
            Wire::Parts(p) => Message::Parts(p.into_message()?),
            Wire::Ping(id) => Message::Ping(id),
            Wire::Pong(id, held_ms) => Message::Pong(Pong { id, held_ms }),
            Wire::Bye(b) => Message::Bye(match b {
                ByeWire::Quit => ByeReason::Quit,
                ByeWire::Desync(tick, hash) => ByeReason::Desync {
                    tick,
                    hash: u64::from_le_bytes(hash),
                },
                ByeWire::VersionMismatch => ByeReason::VersionMismatch,
                ByeWire::InvalidData => ByeReason::InvalidData,
                ByeWire::Timeout => ByeReason::Timeout,
                ByeWire::HandshakeTimeout => ByeReason::HandshakeTimeout,
                ByeWire::NoProgress => ByeReason::NoProgress,
                ByeWire::PlayerLeft(slot) => {
                    if slot >= MAX_PLAYERS {
                        return Err(DecodeError::BadValue("slot"));
                    }
                    ByeReason::PlayerLeft { slot }
                }
                ByeWire::RejoinRefused(why) => ByeReason::RejoinRefused(match why {
                    0 => RejoinRefusal::WrongToken,
                    1 => RejoinRefusal::SlotLive,
                    2 => RejoinRefusal::SlotNotHeld,
                    3 => RejoinRefusal::HostUnable,
                    4 => RejoinRefusal::NoJoiners,
                    5 => RejoinRefusal::SlotHeld,
                    6 => RejoinRefusal::NoFreeSlot,
                    7 => RejoinRefusal::NotReady,
                    _ => return Err(DecodeError::BadValue("refusal")),
                }),
                ByeWire::WatchRefused(why) => ByeReason::WatchRefused(match why {
                    0 => WatchRefusal::Full,
                    1 => WatchRefusal::TooSlow,
                    _ => return Err(DecodeError::BadValue("refusal")),
                }),
            }),
        })
    }
}

/// Any player's slot, the host's included: 0 to [`MAX_PLAYERS`]` - 1`
/// (a guest acting for an absent host asks about slot 0 and orders its
/// return).
fn player_slot(slot: u8) -> Result<u8, DecodeError> {
    if slot >= MAX_PLAYERS {
        return Err(DecodeError::BadValue("slot"));
    }
    Ok(slot)
}

/// A slot only a guest can hold: 1 to [`MAX_PLAYERS`]` - 1`.
fn guest_slot(slot: u8) -> Result<u8, DecodeError> {
    if slot == 0 || slot >= MAX_PLAYERS {
        return Err(DecodeError::BadValue("slot"));
    }
    Ok(slot)
}

fn inputs_from_wire<I>(
    iw: InputsWire<Pads<I>>,
    ping: Option<u16>,
    pong: Option<(u16, u16)>,
    advantage: Option<i8>,
) -> Result<Inputs<I>, DecodeError> {
    let ack = i64::from(iw.first_tick) + i64::from(iw.ack_delta);
    let ack = u32::try_from(ack).map_err(|_| DecodeError::BadValue("ack"))?;
    let len = iw.pads.0.len() as u64; // at most MAX_RUN
    if u64::from(iw.first_tick) + len > u64::from(u32::MAX) {
        return Err(DecodeError::BadValue("tick overflow"));
    }
    Ok(Inputs {
        ack,
        first_tick: iw.first_tick,
        pads: iw.pads.0,
        ping,
        pong: pong.map(|(id, held_ms)| Pong { id, held_ms }),
        advantage,
    })
}

/// If `bytes` starts like a [`Hello`] (tag 0 and a protocol varint), the
/// protocol version it announces, even when the rest does not decode. Lets
/// a session report a version mismatch, rather than invalid data, to a peer
/// whose newer protocol changed the Hello's layout.
#[must_use]
pub fn peek_hello_protocol(bytes: &[u8]) -> Option<u32> {
    match postcard::take_from_bytes::<(u32, u32)>(bytes) {
        Ok(((TAG_HELLO, protocol), _)) => Some(protocol),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::vec;

    type M = Message<u8>;

    fn samples() -> Vec<M> {
        vec![
            M::Hello(Hello {
                protocol: PROTOCOL_VERSION,
                build: 0x0123_4567_89ab_cdef,
                seed: u64::MAX,
                side: 1,
                input_delay: MAX_INPUT_DELAY,
                hash_interval: 60,
                prediction_window: MAX_PREDICTION_WINDOW,
                players: 0,
                slot: 0,
                match_id: 0,
                rejoin_token: 0,
                host_proof: 0,
                proofs: [0; 8],
            }),
            M::Hello(Hello {
                protocol: PROTOCOL_VERSION,
                build: 1,
                seed: 2,
                side: 0,
                input_delay: 3,
                hash_interval: 60,
                prediction_window: 8,
                players: 8,
                slot: 7,
                match_id: 5,
                rejoin_token: u64::MAX,
                host_proof: u64::MAX,
                proofs: [0; 8],
            }),
            M::Rejoin(Rejoin {
                protocol: PROTOCOL_VERSION,
                build: 1,
                slot: 7,
                token: u64::MAX,
            }),
            M::Rejoin(Rejoin {
                protocol: PROTOCOL_VERSION,
                build: 1,
                slot: 0,
                token: 1,
            }),
            M::Resume(Resume {
                seed: u64::MAX,
                input_delay: MAX_INPUT_DELAY,
                hash_interval: u16::MAX,
                prediction_window: MAX_PREDICTION_WINDOW,
                players: MAX_PLAYERS,
                slot: MAX_PLAYERS - 1,
                match_id: u64::MAX,
                benched: 0b0011_1110,
                bench_ticks: [0, u32::MAX, 1, 2, 3, 4, 0, 0],
            }),
            M::Join(Join {
                protocol: PROTOCOL_VERSION,
                build: 1,
                slot: 0,
            }),
            M::Join(Join {
                protocol: PROTOCOL_VERSION,
                build: u64::MAX,
                slot: 7,
            }),
            M::CatchUpRun(CatchUpRun {
                slot: 0,
                first_tick: 0,
                pads: vec![4; 128],
            }),
            M::CatchUpRun(CatchUpRun {
                slot: 7,
                first_tick: u32::MAX - 1,
                pads: vec![1],
            }),
            M::CatchUp(CatchUp {
                tick: 36_000,
                hash: 0x0123_4567_89ab_cdef,
                roster: u16::MAX,
                spectators: vec![],
                neutral: 0,
            }),
            M::CatchUp(CatchUp {
                tick: 600,
                hash: 1,
                roster: 3,
                spectators: vec![(590, 2), (640, 3), (640, MAX_SPECTATORS)],
                neutral: 0,
            }),
            M::SavedState(SavedState {
                tick: 600,
                total: MAX_SAVED_STATE,
                offset: MAX_SAVED_STATE - MAX_STATE_PIECE as u32,
                bytes: vec![0xa5; MAX_STATE_PIECE],
            }),
            M::SavedState(SavedState {
                tick: 0,
                total: 1,
                offset: 0,
                bytes: vec![7],
            }),
            M::Bye(ByeReason::RejoinRefused(RejoinRefusal::WrongToken)),
            M::Bye(ByeReason::RejoinRefused(RejoinRefusal::SlotLive)),
            M::Bye(ByeReason::RejoinRefused(RejoinRefusal::SlotNotHeld)),
            M::Bye(ByeReason::RejoinRefused(RejoinRefusal::HostUnable)),
            M::Bye(ByeReason::RejoinRefused(RejoinRefusal::NoJoiners)),
            M::Bye(ByeReason::RejoinRefused(RejoinRefusal::SlotHeld)),
            M::Bye(ByeReason::RejoinRefused(RejoinRefusal::NoFreeSlot)),
            M::Member(Member {
                slot: 7,
                match_id: u64::MAX,
            }),
            M::Inputs(Inputs {
                ack: 10,
                first_tick: 12,
                pads: vec![1, 2, 3],
                ping: None,
                pong: None,
                advantage: None,
            }),
            M::Inputs(Inputs {
                ack: 5,
                first_tick: 0,
                pads: vec![],
                ping: Some(7),
                pong: Some(Pong {
                    id: 65535,
                    held_ms: 3,
                }),
                advantage: None,
            }),
            M::Inputs(Inputs {
                ack: u32::MAX - 300,
                first_tick: u32::MAX - 128,
                pads: vec![0xff; 128],
                ping: None,
                pong: Some(Pong { id: 1, held_ms: 0 }),
                advantage: None,
            }),
            M::Hash(HashReport {
                tick: 60,
                hash: 0xdead_beef,
            }),
            M::Ping(0),
            M::Pong(Pong { id: 9, held_ms: 16 }),
            M::Bye(ByeReason::Quit),
            M::Bye(ByeReason::Desync {
                tick: 120,
                hash: 42,
            }),
            M::Bye(ByeReason::VersionMismatch),
            M::Bye(ByeReason::InvalidData),
            M::Bye(ByeReason::Timeout),
            M::Bye(ByeReason::HandshakeTimeout),
            M::Bye(ByeReason::NoProgress),
            M::Parts(PartHashes {
                tick: 60,
                hashes: vec![0, u64::MAX, 42],
            }),
            M::Bye(ByeReason::PlayerLeft { slot: 0 }),
            M::Missing(Missing {
                slot: 7,
                have: 3600,
            }),
            M::Held(Held {
                slot: 1,
                first_tick: 3600,
                pads: vec![],
            }),
            M::Held(Held {
                slot: 2,
                first_tick: u32::MAX - 128,
                pads: vec![3; 128],
            }),
            M::Roster(Roster {
                seq: 1,
                tick: 3700,
                change: RosterChange::Neutral { slot: 2 },
            }),
            M::Roster(Roster {
                seq: u16::MAX,
                tick: 1,
                change: RosterChange::Returned {
                    slot: 7,
                    proof: u64::MAX,
                },
            }),
            M::Roster(Roster {
                seq: 3,
                tick: 4000,
                change: RosterChange::Joined {
                    slot: 1,
                    proof: 0x0123_4567_89ab_cdef,
                },
            }),
            M::Roster(Roster {
                seq: 5,
                tick: 4100,
                change: RosterChange::Benched {
                    slot: 7,
                    held_for: u32::MAX,
                },
            }),
            M::Roster(Roster {
                seq: 6,
                tick: 4200,
                change: RosterChange::HostMoved { host: 7 },
            }),
            M::RosterAck(u16::MAX),
            M::Watch(Watch {
                protocol: PROTOCOL_VERSION,
                build: u64::MAX,
            }),
            M::Welcome(Welcome {
                seed: u64::MAX,
                players: 8,
                hash_interval: u16::MAX,
                match_id: 1,
            }),
            M::Confirmed(Confirmed {
                first_tick: 0,
                ticks: 64,
                pads: vec![2; 128],
            }),
            M::Confirmed(Confirmed {
                first_tick: u32::MAX - 16,
                ticks: 16,
                pads: (0..128).collect(),
            }),
            M::WatchAck(u32::MAX),
            M::Streamed(Confirmed {
                first_tick: 7,
                ticks: 1,
                pads: vec![0; 8],
            }),
            M::Streamed(Confirmed {
                first_tick: u32::MAX - 64,
                ticks: 64,
                pads: (0..128).collect(),
            }),
            M::Roster(Roster {
                seq: 4,
                tick: 9,
                change: RosterChange::Spectators {
                    count: MAX_SPECTATORS,
                },
            }),
            M::Bye(ByeReason::WatchRefused(WatchRefusal::Full)),
            M::Bye(ByeReason::WatchRefused(WatchRefusal::TooSlow)),
        ]
    }

    #[test]
    fn spectator_layouts_are_documented() {
        let enc = |m: M| m.encode().expect("valid messages encode");
        // Cannot fail: well-formed messages with u8 inputs always encode.
        assert_eq!(
            enc(M::Watch(Watch {
                protocol: 8,
                build: 1
            })),
            [0x11, 8, 1, 0, 0, 0, 0, 0, 0, 0]
        );
        assert_eq!(
            enc(M::Welcome(Welcome {
                seed: 7,
                players: 2,
                hash_interval: 60,
                match_id: 1,
            })),
            [0x12, 7, 0, 0, 0, 0, 0, 0, 0, 2, 60, 1, 0, 0, 0, 0, 0, 0, 0]
        );
        // Slot 0 holds 5 three times, slot 1 plays 1, 2, 3: a masked run
        // of six (head 6 << 1 | 1), mask 0b011, four inputs written.
        assert_eq!(
            enc(M::Confirmed(Confirmed {
                first_tick: 300,
                ticks: 3,
                pads: vec![5, 5, 5, 1, 2, 3],
            })),
            [0x13, 0xac, 0x02, 3, 0x0d, 0b011, 5, 1, 2, 3]
        );
        assert_eq!(enc(M::WatchAck(300)), [0x14, 0xac, 0x02]);
        // The same run on the unreliable channel: only the tag differs.
        assert_eq!(
            enc(M::Streamed(Confirmed {
                first_tick: 300,
                ticks: 3,
                pads: vec![5, 5, 5, 1, 2, 3],
            })),
            [0x15, 0xac, 0x02, 3, 0x0d, 0b011, 5, 1, 2, 3]
        );
        assert_eq!(
            enc(M::Roster(Roster {
                seq: 3,
                tick: 300,
                change: RosterChange::Spectators { count: 2 },
            })),
            [12, 3, 0xac, 0x02, 2, 2]
        );
        assert_eq!(
            enc(M::Bye(ByeReason::WatchRefused(WatchRefusal::TooSlow))),
            [6, 9, 1]
        );
        for (bad, why) in [
            (&[0x13u8, 0, 0, 0][..], "ticks"),
            (&[0x13, 0, 3, 8, 1, 2, 3, 4], "ticks"),
            (&[0x13, 0, 2, 4, 1, 2], "players"),
            (
                &[0x13, 0xff, 0xff, 0xff, 0xff, 0x0f, 1, 4, 1, 2],
                "tick overflow",
            ),
            (&[12, 1, 4, 2, 17], "spectators"),
            (&[6, 9, 2], "refusal"),
            (
                &[0x12, 0, 0, 0, 0, 0, 0, 0, 0, 9, 60, 0, 0, 0, 0, 0, 0, 0, 0],
                "players",
            ),
            (
                &[0x12, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0],
                "hash interval",
            ),
        ] {
            assert_eq!(M::decode(bad), Err(DecodeError::BadValue(why)), "{bad:?}");
        }
        // Sixteen players' worth of a run is refused before it is read.
        assert_eq!(
            M::decode(&[0x13, 0, 1, 0x82, 0x02]),
            Err(DecodeError::RunTooLong(129))
        );
    }

    #[test]
    fn membership_layouts_are_documented() {
        let enc = |m: M| m.encode().expect("valid messages encode");
        // Cannot fail: well-formed messages with u8/u16 inputs always encode.
        assert_eq!(
            enc(M::Missing(Missing { slot: 2, have: 300 })),
            [10, 2, 0xac, 0x02]
        );
        // Three equal pads: head 3 << 1 | masked, mask 0b11, one pad.
        assert_eq!(
            enc(M::Held(Held {
                slot: 2,
                first_tick: 300,
                pads: vec![5, 5, 5],
            })),
            [11, 2, 0xac, 0x02, 7, 0b11, 5]
        );
        assert_eq!(
            enc(M::Roster(Roster {
                seq: 1,
                tick: 300,
                change: RosterChange::Neutral { slot: 2 },
            })),
            [12, 1, 0xac, 0x02, 0, 2]
        );
        assert_eq!(
            enc(M::Roster(Roster {
                seq: 2,
                tick: 300,
                change: RosterChange::Returned { slot: 2, proof: 1 },
            })),
            [12, 2, 0xac, 0x02, 1, 2, 1, 0, 0, 0, 0, 0, 0, 0]
        );
        assert_eq!(enc(M::RosterAck(1)), [13, 1]);
        assert_eq!(enc(M::Bye(ByeReason::PlayerLeft { slot: 3 })), [6, 7, 3]);
        // Slot 0 is the host's: a question, a run and a return may name
        // it (a guest acting for the absent host), a leave or a join not;
        // slot 8 is nobody's.
        for bad in [
            &[10u8, 8, 0][..],
            &[11, 8, 0, 0],
            &[12, 1, 0, 0, 0],
            &[12, 1, 0, 1, 8, 0, 0, 0, 0, 0, 0, 0, 0],
            &[12, 1, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0],
            &[6, 7, 8],
        ] {
            assert_eq!(M::decode(bad), Err(DecodeError::BadValue("slot")));
        }
        assert_eq!(
            M::decode(&[10, 0, 0xac, 0x02]),
            Ok(M::Missing(Missing { slot: 0, have: 300 }))
        );
        let host_run = M::Held(Held {
            slot: 0,
            first_tick: 300,
            pads: vec![5, 5, 5],
        });
        assert_eq!(enc(host_run.clone()), [11, 0, 0xac, 0x02, 7, 0b11, 5]);
        assert_eq!(M::decode(&[11, 0, 0xac, 0x02, 7, 0b11, 5]), Ok(host_run));
        assert_eq!(
            M::decode(&[12, 3, 0xac, 0x02, 1, 0, 9, 0, 0, 0, 0, 0, 0, 0]),
            Ok(M::Roster(Roster {
                seq: 3,
                tick: 300,
                change: RosterChange::Returned { slot: 0, proof: 9 },
            }))
        );
        // The host moved to slot 1 at tick 300; never to slot 0 or 8.
        let moved = M::Roster(Roster {
            seq: 3,
            tick: 300,
            change: RosterChange::HostMoved { host: 1 },
        });
        assert_eq!(enc(moved.clone()), [12, 3, 0xac, 0x02, 5, 1]);
        assert_eq!(M::decode(&[12, 3, 0xac, 0x02, 5, 1]), Ok(moved));
        for bad in [&[12u8, 3, 0xac, 0x02, 5, 0][..], &[12, 3, 0xac, 0x02, 5, 8]] {
            assert_eq!(M::decode(bad), Err(DecodeError::BadValue("slot")));
        }
        assert!(M::decode(&[12, 3, 0xac, 0x02, 6, 1]).is_err());
        // Changes are numbered from 1.
        assert_eq!(
            M::decode(&[12, 0, 0, 0, 2]),
            Err(DecodeError::BadValue("roster number"))
        );
        assert_eq!(
            M::decode(&[13, 0]),
            Err(DecodeError::BadValue("roster number"))
        );
        // A run of more than MAX_RUN is refused before it is read.
        assert_eq!(
            M::decode(&[11, 1, 0, 0x82, 0x02]),
            Err(DecodeError::RunTooLong(129))
        );
        // A benched slot, and never the host's.
        assert_eq!(
            enc(M::Roster(Roster {
                seq: 4,
                tick: 300,
                change: RosterChange::Benched {
                    slot: 2,
                    held_for: 19_500,
                },
            })),
            [12, 4, 0xac, 0x02, 4, 2, 0xac, 0x98, 0x01]
        );
        assert_eq!(
            M::decode(&[12, 1, 0, 4, 0, 0]),
            Err(DecodeError::BadValue("slot"))
        );
        assert_eq!(
            M::decode(&[12, 1, 0, 4, 8, 0]),
            Err(DecodeError::BadValue("slot"))
        );
        // An unknown change.
        assert_eq!(
            M::decode(&[12, 1, 0, 6, 2]),
            Err(DecodeError::BadValue("field"))
        );
    }

    #[test]
    fn late_join_layouts_are_documented() {
        let enc = |m: M| m.encode().expect("valid messages encode");
        assert_eq!(
            enc(M::Join(Join {
                protocol: 11,
                build: 0x0102_0304_0506_0708,
                slot: 0,
            })),
            [23, 11, 8, 7, 6, 5, 4, 3, 2, 1, 0]
        );
        assert_eq!(
            enc(M::Roster(Roster {
                seq: 3,
                tick: 300,
                change: RosterChange::Joined { slot: 2, proof: 1 },
            })),
            [12, 3, 0xac, 0x02, 3, 2, 1, 0, 0, 0, 0, 0, 0, 0]
        );
        for (why, byte) in [
            (RejoinRefusal::NoJoiners, 4),
            (RejoinRefusal::SlotHeld, 5),
            (RejoinRefusal::NoFreeSlot, 6),
            (RejoinRefusal::NotReady, 7),
        ] {
            assert_eq!(enc(M::Bye(ByeReason::RejoinRefused(why))), [6, 8, byte]);
        }
        // A newcomer's ready: the tag and its first catch-up's tick.
        assert_eq!(enc(M::JoinReady(300)), [25, 0xac, 0x02]);
        assert_eq!(M::JoinReady(300).channel(), Channel::Reliable);
        // A Join names a slot below 8 (0: any); a join never names the
        // host's; refusals end at 7.
        for (bad, why) in [
            (&[23u8, 11, 0, 0, 0, 0, 0, 0, 0, 0, 8][..], "slot"),
            (&[12, 1, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0], "slot"),
            (&[6, 8, 8], "refusal"),
        ] {
            assert_eq!(M::decode(bad), Err(DecodeError::BadValue(why)), "{bad:?}");
        }
    }

    #[test]
    fn rejoin_layouts_are_documented() {
        let enc = |m: M| m.encode().expect("valid messages encode");
        // Cannot fail: well-formed messages with u8/u16 inputs always encode.
        assert_eq!(
            enc(M::Rejoin(Rejoin {
                protocol: 6,
                build: 1,
                slot: 1,
                token: 0x0201,
            })),
            [14, 6, 1, 0, 0, 0, 0, 0, 0, 0, 1, 1, 2, 0, 0, 0, 0, 0, 0]
        );
        assert_eq!(
            enc(M::CatchUpRun(CatchUpRun {
                slot: 0,
                first_tick: 128,
                pads: vec![5, 5, 5],
            })),
            [15, 0, 0x80, 0x01, 7, 0b11, 5]
        );
        assert_eq!(
            enc(M::CatchUp(CatchUp {
                tick: 300,
                hash: 1,
                roster: 2,
                spectators: vec![],
                neutral: 0,
            })),
            [16, 0xac, 0x02, 1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0]
        );
        // Two spectators from tick 290, a third from 350.
        assert_eq!(
            enc(M::CatchUp(CatchUp {
                tick: 300,
                hash: 1,
                roster: 2,
                spectators: vec![(290, 2), (350, 3)],
                neutral: 0,
            })),
            [16, 0xac, 0x02, 1, 0, 0, 0, 0, 0, 0, 0, 2, 2, 0xa2, 0x02, 2, 0xde, 0x02, 3, 0]
        );
        // Slots 2 and 5 play the neutral input; so may slot 0, once the
        // host's place moved to a guest.
        let neutral = |neutral: u8| {
            enc(M::CatchUp(CatchUp {
                tick: 300,
                hash: 1,
                roster: 2,
                spectators: vec![],
                neutral,
            }))
        };
        assert_eq!(
            neutral(0b10_0100),
            [16, 0xac, 0x02, 1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0x24]
        );
        assert!(M::decode(&neutral(1)).is_ok());
        // More than 64 changes, a count above 16, a tick going back.
        let cu = |spectators: Vec<(u32, u8)>| {
            enc(M::CatchUp(CatchUp {
                tick: 300,
                hash: 1,
                roster: 2,
                spectators,
                neutral: 0,
            }))
        };
        for bad in [
            cu(vec![(1, 1); MAX_COUNT_CHANGES + 1]),
            cu(vec![(1, MAX_SPECTATORS + 1)]),
            cu(vec![(5, 1), (4, 2)]),
        ] {
            assert!(matches!(M::decode(&bad), Err(DecodeError::BadValue(_))));
        }
        assert!(M::decode(&cu(vec![(1, 1); MAX_COUNT_CHANGES])).is_ok());
        assert_eq!(
            enc(M::Bye(ByeReason::RejoinRefused(RejoinRefusal::SlotLive))),
            [6, 8, 1]
        );
        // A rejoin names a slot below 8 (0: the host's); a run names a
        // slot below 8 and holds at least one input; refusals are numbered
        // 0 to 6.
        assert!(M::decode(&[14u8, 6, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0]).is_ok());
        for (bad, why) in [
            (
                &[14u8, 6, 1, 0, 0, 0, 0, 0, 0, 0, 8, 1, 0, 0, 0, 0, 0, 0, 0][..],
                "slot",
            ),
            (&[15, 8, 0, 2, 1], "slot"),
            (&[15, 1, 0, 0], "empty run"),
            (&[6, 8, 8], "refusal"),
        ] {
            assert_eq!(M::decode(bad), Err(DecodeError::BadValue(why)), "{bad:?}");
        }
        // A guest's Hello carries no token.
        let mut guest = enc(M::Hello(Hello {
            protocol: 6,
            build: 0,
            seed: 0,
            side: 1,
            input_delay: 0,
            hash_interval: 60,
            prediction_window: 0,
            players: 0,
            slot: 0,
            match_id: 0,
            rejoin_token: 0,
            host_proof: 0,
            proofs: [0; 8],
        }));
        // Nor a check of the host's token, nor of any slot's.
        let n = guest.len();
        for at in [n - 17, n - 9] {
            guest[at] = 1;
            assert_eq!(M::decode(&guest), Err(DecodeError::BadValue("players")));
            guest[at] = 0;
        }
        let mut one = guest.clone();
        one[n - 1] = 1;
        one.extend_from_slice(&[0; 8]);
        assert_eq!(M::decode(&one), Err(DecodeError::BadValue("players")));
        assert!(M::decode(&guest).is_ok());
    }

    #[test]
    fn a_saved_state_piece_is_strict() {
        let enc = |m: M| m.encode().expect("valid messages encode");
        // Tag 22, tick 5, total 3, offset 1, two bytes.
        assert_eq!(
            enc(M::SavedState(SavedState {
                tick: 5,
                total: 3,
                offset: 1,
                bytes: vec![0xaa, 0xbb],
            })),
            [22, 5, 3, 1, 2, 0xaa, 0xbb]
        );
        for (bad, why) in [
            // No whole state, an empty piece, a piece past the end.
            (&[22u8, 5, 0, 0, 1, 1][..], "saved state length"),
            (&[22, 5, 3, 0, 0], "saved state piece"),
            (&[22, 5, 3, 2, 2, 1, 1], "saved state piece"),
            // A whole state over the cap (256 KiB + 1, varint).
            (&[22, 5, 0x81, 0x80, 0x10, 0, 1, 1], "saved state length"),
            // A piece over 1,024 bytes, refused before it is read.
            (&[22, 5, 0x81, 0x10, 0, 0x81, 0x08], "saved state piece"),
        ] {
            assert_eq!(M::decode(bad), Err(DecodeError::BadValue(why)), "{bad:?}");
        }
    }

    #[test]
    fn every_message_round_trips() {
        for m in samples() {
            // Cannot fail: well-formed messages with u8/u16 inputs always encode.
            let bytes = m.encode().expect("valid messages encode");
            assert_eq!(M::decode(&bytes), Ok(m.clone()), "{m:?} as {bytes:?}");
        }
    }

    #[test]
    fn steady_state_inputs_are_small() {
        let m = M::Inputs(Inputs {
            ack: 3598,
            first_tick: 3600,
            pads: vec![5; 7],
            ping: None,
            pong: None,
            advantage: None,
        });
        // tag, 2-byte tick, 1-byte ack delta, head (7 << 1 | masked), one
        // mask byte (6 repeats), one pad: exactly as in docs/protocol.md.
        assert_eq!(
            // Cannot fail: well-formed messages with u8/u16 inputs always encode.
            m.encode().expect("valid messages encode"),
            [0x01, 0x90, 0x1c, 0x03, 0x0f, 0x3f, 0x05]
        );
        // Seven different pads go plain: head 7 << 1, then the pads.
        let m = M::Inputs(Inputs {
            ack: 3598,
            first_tick: 3600,
            pads: vec![1, 2, 3, 4, 5, 6, 7],
            ping: None,
            pong: None,
            advantage: None,
        });
        assert_eq!(
            // Cannot fail: well-formed messages with u8/u16 inputs always encode.
            m.encode().expect("valid messages encode"),
            [0x01, 0x90, 0x1c, 0x03, 0x0e, 1, 2, 3, 4, 5, 6, 7]
        );
    }

    #[test]
    fn hello_layout_is_documented() {
        let m = M::Hello(Hello {
            protocol: 2,
            build: 2,
            seed: 3,
            side: 0,
            input_delay: 6,
            hash_interval: 60,
            prediction_window: 8,
            players: 2,
            slot: 1,
            match_id: 7,
            rejoin_token: 9,
            host_proof: 11,
            proofs: [11, 13, 0, 0, 0, 0, 0, 0],
        });
        // Cannot fail: well-formed messages with u8/u16 inputs always encode.
        let b = m.encode().expect("valid messages encode");
        assert_eq!(
            b,
            [
                0, 2, 2, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 6, 60, 8, 2, 1, 7, 0, 0,
                0, 0, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0, 11, 0, 0, 0, 0, 0, 0, 0, 2, 11, 0, 0, 0, 0,
                0, 0, 0, 13, 0, 0, 0, 0, 0, 0, 0
            ]
        );
        assert_eq!(M::decode(&b), Ok(m));
        // One check per player, no more, no fewer.
        let mut short = b.clone();
        short[48] = 1;
        short.truncate(57);
        assert_eq!(M::decode(&short), Err(DecodeError::BadValue("proofs")));
        assert_eq!(peek_hello_protocol(&b), Some(2));
    }

    #[test]
    fn resume_layout_is_documented() {
        let m = M::Resume(Resume {
            seed: 3,
            input_delay: 6,
            hash_interval: 300,
            prediction_window: 8,
            players: 2,
            slot: 1,
            match_id: 0x0102,
            benched: 0,
            bench_ticks: [0; 8],
        });
        // Cannot fail: well-formed messages with u8/u16 inputs always encode.
        let b = m.encode().expect("valid messages encode");
        assert_eq!(
            b,
            [24, 3, 0, 0, 0, 0, 0, 0, 0, 6, 0xac, 0x02, 8, 2, 1, 2, 1, 0, 0, 0, 0, 0, 0, 0, 0]
        );
        assert_eq!(M::decode(&b), Ok(m));
        // A delay or window over 60, no hash interval, one player or
        // nine, the host's slot or one beyond the players.
        let bad = |at: usize, value: u8| {
            let mut v = b.clone();
            v[at] = value;
            M::decode(&v)
        };
        assert_eq!(bad(9, 61), Err(DecodeError::BadValue("input delay")));
        assert_eq!(bad(12, 61), Err(DecodeError::BadValue("prediction window")));
        assert_eq!(bad(13, 1), Err(DecodeError::BadValue("players")));
        assert_eq!(bad(13, 9), Err(DecodeError::BadValue("players")));
        assert_eq!(bad(14, 0), Err(DecodeError::BadValue("slot")));
        assert_eq!(bad(14, 2), Err(DecodeError::BadValue("slot")));
        // In a match of two no other guest can be benched.
        assert_eq!(bad(23, 2), Err(DecodeError::BadValue("benched")));
        // Four players, sent by slot 1: slots 2 and 3 may be benched,
        // never 0, 1 or 4.
        // The count of ticks, then each tick as a varint.
        let four = |benched: u8, ticks: &[u8]| {
            let mut v = b.clone();
            v[13] = 4;
            v[23] = benched;
            v.truncate(24);
            v.extend_from_slice(ticks);
            M::decode(&v)
        };
        let Ok(M::Resume(r)) = four(0b1100, &[2, 0xac, 0x02, 7]) else {
            panic!("slots 2 and 3 benched at ticks 300 and 7");
        };
        assert_eq!(
            (r.benched, r.bench_ticks),
            (0b1100, [0, 0, 300, 7, 0, 0, 0, 0])
        );
        for no in [0b1, 0b10, 0b1_0000] {
            assert_eq!(four(no, &[1, 1]), Err(DecodeError::BadValue("benched")));
        }
        // One tick per benched slot, no more, no fewer.
        assert_eq!(
            four(0b1100, &[1, 1]),
            Err(DecodeError::BadValue("bench ticks"))
        );
        assert_eq!(
            four(0b100, &[2, 1, 2]),
            Err(DecodeError::BadValue("bench ticks"))
        );
        let mut none = b.clone();
        none.splice(10..12, [0]);
        assert_eq!(
            M::decode(&none),
            Err(DecodeError::BadValue("hash interval"))
        );
        assert_eq!(M::decode(&b[..b.len() - 1]), Err(DecodeError::Truncated));
        // The returning host's Rejoin names slot 0.
        let back = M::Rejoin(Rejoin {
            protocol: 14,
            build: 1,
            slot: 0,
            token: 5,
        });
        let b = back.encode().expect("valid messages encode");
        assert_eq!(
            b,
            [14, 14, 1, 0, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0]
        );
        assert_eq!(M::decode(&b), Ok(back));
    }

    #[test]
    fn member_layout_is_documented() {
        let m = M::Member(Member {
            slot: 3,
            match_id: 0x0102,
        });
        // Cannot fail: well-formed messages with u8/u16 inputs always encode.
        let b = m.encode().expect("valid messages encode");
        assert_eq!(b, [9, 3, 2, 1, 0, 0, 0, 0, 0, 0]);
        assert_eq!(M::decode(&b), Ok(m));
        // Slot 0 is the host's, 8 is beyond the largest match.
        for slot in [0, 8] {
            assert_eq!(
                M::decode(&[9, slot, 2, 1, 0, 0, 0, 0, 0, 0]),
                Err(DecodeError::BadValue("slot"))
            );
        }
    }

    #[test]
    fn a_hello_names_a_match_only_from_the_host() {
        let hello = |side, players, slot, match_id| {
            M::Hello(Hello {
                protocol: 4,
                build: 0,
                seed: 0,
                side,
                input_delay: 1,
                hash_interval: 60,
                prediction_window: 0,
                players,
                slot,
                match_id,
                rejoin_token: 0,
                host_proof: 0,
                proofs: [0; 8],
            })
            .encode()
            // Cannot fail: well-formed messages with u8/u16 inputs always encode.
            .expect("valid messages encode")
        };
        assert!(M::decode(&hello(0, 8, 7, 1)).is_ok());
        assert!(M::decode(&hello(1, 0, 0, 0)).is_ok());
        let players = Err(DecodeError::BadValue("players"));
        let slot = Err(DecodeError::BadValue("slot"));
        assert_eq!(M::decode(&hello(0, 1, 0, 1)), players);
        assert_eq!(M::decode(&hello(0, 9, 1, 1)), players);
        assert_eq!(M::decode(&hello(0, 3, 0, 1)), slot);
        assert_eq!(M::decode(&hello(0, 3, 3, 1)), slot);
        assert_eq!(M::decode(&hello(1, 0, 1, 0)), players);
        assert_eq!(M::decode(&hello(1, 0, 0, 5)), players);
        // A host whose place moved to slot 2 names a match as slot 0's
        // does, and gives the receiver another slot than its own.
        assert!(M::decode(&hello(2, 3, 1, 1)).is_ok());
        assert_eq!(M::decode(&hello(2, 3, 2, 1)), slot);
        assert_eq!(M::decode(&hello(1, 2, 0, 0)), slot);
        let side = Err(DecodeError::BadValue("side"));
        assert_eq!(M::decode(&hello(3, 3, 1, 1)), side);
        assert_eq!(M::decode(&hello(0, 0, 0, 0)), side);
        assert_eq!(M::decode(&hello(2, 0, 0, 0)), side);
    }

    #[test]
    fn advantage_rides_on_extended_inputs() {
        let m = M::Inputs(Inputs {
            ack: 3598,
            first_tick: 3600,
            pads: vec![5],
            ping: None,
            pong: None,
            advantage: Some(-2),
        });
        // Cannot fail: well-formed messages with u8/u16 inputs always encode.
        let b = m.encode().expect("valid messages encode");
        // Tag 7: the inputs, no ping, no pong, then the i8 as one byte
        // (two's complement).
        assert_eq!(b, [0x07, 0x90, 0x1c, 0x03, 0x02, 5, 0, 0, 0xfe]);
        assert_eq!(M::decode(&b), Ok(m));
    }

    #[test]
    fn every_strict_prefix_is_rejected() {
        for m in samples() {
            // Cannot fail: well-formed messages with u8/u16 inputs always encode.
            let bytes = m.encode().expect("valid messages encode");
            for n in 0..bytes.len() {
                assert!(M::decode(&bytes[..n]).is_err(), "{m:?} cut at {n}");
            }
        }
    }

    #[test]
    fn trailing_bytes_are_rejected() {
        for m in samples() {
            // Cannot fail: well-formed messages with u8/u16 inputs always encode.
            let mut bytes = m.encode().expect("valid messages encode");
            bytes.push(0);
            assert_eq!(M::decode(&bytes), Err(DecodeError::TrailingBytes(1)));
        }
    }

    #[test]
    fn unknown_tags_are_rejected() {
        assert_eq!(M::decode(&[26]), Err(DecodeError::UnknownTag(26)));
        assert_eq!(M::decode(&[0x80, 0x01]), Err(DecodeError::UnknownTag(128)));
        assert_eq!(M::decode(&[]), Err(DecodeError::Empty));
        assert_eq!(M::decode(&[6, 10]), Err(DecodeError::BadValue("field")));
    }

    #[test]
    fn oversize_runs_are_rejected_before_reading() {
        // tag 1, first_tick 0, ack delta 0, plain run of 129 (head 258),
        // no pads following.
        assert_eq!(
            M::decode(&[1, 0, 0, 0x82, 0x02]),
            Err(DecodeError::RunTooLong(129))
        );
        // An absurd length claim costs nothing.
        assert_eq!(
            M::decode(&[2, 0, 0, 0xff, 0xff, 0xff, 0xff, 0x0f]),
            Err(DecodeError::RunTooLong(u32::MAX >> 1))
        );
        let mut ok = vec![1, 0, 0, 0x80, 0x02];
        ok.extend(0..128u8);
        assert!(M::decode(&ok).is_ok());
    }

    #[test]
    fn bad_values_are_rejected() {
        let hello_w = |side, delay, interval, window| {
            M::Hello(Hello {
                protocol: 1,
                build: 0,
                seed: 0,
                side,
                input_delay: delay,
                hash_interval: interval,
                prediction_window: window,
                players: if side == 0 { 2 } else { 0 },
                slot: u8::from(side == 0),
                match_id: 0,
                rejoin_token: 0,
                host_proof: 0,
                proofs: [0; 8],
            })
            .encode()
            // Cannot fail: well-formed messages with u8/u16 inputs always encode.
            .expect("valid messages encode")
        };
        let hello = |side, delay, interval| hello_w(side, delay, interval, 0);
        assert_eq!(
            M::decode(&hello_w(0, 0, 1, MAX_PREDICTION_WINDOW + 1)),
            Err(DecodeError::BadValue("prediction window"))
        );
        assert_eq!(
            M::decode(&hello(2, 0, 1)),
            Err(DecodeError::BadValue("side"))
        );
        assert_eq!(
            M::decode(&hello(0, MAX_INPUT_DELAY + 1, 1)),
            Err(DecodeError::BadValue("input delay"))
        );
        assert_eq!(
            M::decode(&hello(0, 0, 0)),
            Err(DecodeError::BadValue("hash interval"))
        );
        // Ack below zero: first tick 0, ack delta -1 (zig-zag 1).
        assert_eq!(M::decode(&[1, 0, 1, 0]), Err(DecodeError::BadValue("ack")));
        // Run that would pass u32::MAX.
        let first = u32::MAX - 1;
        let mut b = vec![1];
        // Cannot fail: plain integer tuples always encode with postcard.
        b.extend(postcard::to_allocvec(&(first, 0i32, 4u8, 0u8, 0u8)).expect("tuples encode"));
        assert_eq!(M::decode(&b), Err(DecodeError::BadValue("tick overflow")));
        // Hash of tick 0.
        assert_eq!(
            M::decode(&[3, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
            Err(DecodeError::BadValue("hash tick"))
        );
        // Option tag 2.
        assert_eq!(
            M::decode(&[2, 0, 0, 0, 2]),
            Err(DecodeError::BadValue("option tag"))
        );
    }

    #[test]
    fn non_canonical_encodings_are_rejected() {
        // Overlong varint for ping id 0.
        assert_eq!(M::decode(&[4, 0x80, 0x00]), Err(DecodeError::NonCanonical));
        // Extended inputs with nothing extra must use the plain tag.
        assert_eq!(
            M::decode(&[2, 0, 0, 0, 0, 0]),
            Err(DecodeError::NonCanonical)
        );
        assert!(M::decode(&[1, 0, 0, 0]).is_ok());
    }

    #[test]
    fn runs_use_the_repeat_mask_only_when_shorter() {
        let enc = |pads: Vec<u8>| {
            M::Inputs(Inputs {
                ack: 0,
                first_tick: 0,
                pads,
                ping: None,
                pong: None,
                advantage: None,
            })
            .encode()
            // Cannot fail: well-formed messages with u8/u16 inputs always encode.
            .expect("valid messages encode")
        };
        // Held for 128 ticks: head, 16 mask bytes, one pad.
        assert_eq!(enc(vec![9; 128]).len(), 3 + 2 + 16 + 1);
        // Alternating: plain.
        let alt: Vec<u8> = (0..20).map(|i| i % 2).collect();
        assert_eq!(enc(alt.clone())[3], 40);
        // Runs of 3: 10 explicit + 2 mask bytes < 30.
        let runs: Vec<u8> = (0..30).map(|i| i / 3).collect();
        let b = enc(runs.clone());
        assert_eq!(b[3], 61);
        assert_eq!(b.len(), 4 + 4 + 10);
        for pads in [vec![], vec![1], vec![1, 1], vec![1, 1, 1], alt, runs] {
            let m = M::Inputs(Inputs {
                ack: 0,
                first_tick: 0,
                pads,
                ping: None,
                pong: None,
                advantage: None,
            });
            // Cannot fail: u8 inputs and in-range fields always encode.
            assert_eq!(M::decode(&m.encode().expect("encodes")), Ok(m));
        }
        // A masked encoding where plain is as short is not canonical:
        // two different pads, masked (head 5), mask 0, pads 1 and 2.
        assert_eq!(
            M::decode(&[1, 0, 0, 5, 0, 1, 2]),
            Err(DecodeError::NonCanonical)
        );
        // Unused mask bits set: 3 equal pads, mask 0b111 (only 2 bits used).
        assert_eq!(
            M::decode(&[1, 0, 0, 7, 0b111, 4]),
            Err(DecodeError::NonCanonical)
        );
        assert!(M::decode(&[1, 0, 0, 7, 0b011, 4]).is_ok());
        // A masked head with nothing after it.
        assert_eq!(M::decode(&[1, 0, 0, 7]), Err(DecodeError::Truncated));
    }

    #[test]
    fn over_long_runs_do_not_encode() {
        let m = M::Inputs(Inputs {
            ack: 0,
            first_tick: 0,
            pads: vec![0; MAX_RUN + 1],
            ping: None,
            pong: None,
            advantage: None,
        });
        assert_eq!(m.encode(), Err(EncodeError::RunTooLong(MAX_RUN + 1)));
    }

    #[test]
    fn channels() {
        for m in samples() {
            let expect = match m {
                M::Hello(_)
                | M::Hash(_)
                | M::Bye(_)
                | M::Parts(_)
                | M::Member(_)
                | M::Missing(_)
                | M::Held(_)
                | M::Roster(_)
                | M::RosterAck(_)
                | M::Rejoin(_)
                | M::CatchUpRun(_)
                | M::CatchUp(_)
                | M::Watch(_)
                | M::Welcome(_)
                | M::Confirmed(_)
                | M::SavedState(_)
                | M::Join(_)
                | M::Resume(_) => Channel::Reliable,
                _ => Channel::Unreliable,
            };
            assert_eq!(m.channel(), expect);
        }
    }

    #[test]
    fn peek_finds_future_hello_versions() {
        // A version-2 Hello with a layout this version cannot read.
        let b = [0u8, 2, 0xff];
        assert!(M::decode(&b).is_err());
        assert_eq!(peek_hello_protocol(&b), Some(2));
        assert_eq!(peek_hello_protocol(&[1, 2]), None);
    }
}
