//! The session: a sans-IO state machine for one match of 2 to 8 players,
//! one link to each remote player.
//!
//! # Calling contract
//!
//! The session never reads a clock and never touches a socket. Every
//! method takes the current time as [`Millis`] (times must not go
//! backwards; a smaller one counts as no time passing), and the caller:
//!
//! 1. creates the session with [`Session::new`], and tells it of each link
//!    that opens with [`Session::handle_link_state`] (the link's
//!    [`PeerId`] is the caller's choice; its Hello is queued then);
//! 2. feeds every received datagram to [`Session::handle_datagram`] and
//!    every change of a link to [`Session::handle_link_state`], naming
//!    the link;
//! 3. calls [`Session::advance_frame`] once per display frame (60 Hz),
//!    never more to catch up after a pause, and
//!    [`Session::handle_timeout`] between frames when
//!    [`Session::poll_timeout`]'s deadline passes;
//! 4. after **every** call above (and after [`Session::quit`]) drains
//!    [`Session::poll_transmit`] into the transport, then
//!    [`Session::poll_event`], until both return `None`
//!    ([`Session::pump`] does the feeding and the sending for any
//!    [`Transport`]);
//! 5. after [`Event::Ended`], drains `poll_transmit` once more (a `Bye`
//!    may be queued) and closes the transport; later calls change nothing.
//!
//! # Parts
//!
//! The session owns the parts below, one job each, and passes each what it
//! needs from the others; the phase (an enum) carries the parts that
//! exist only in it, and each remote player has a `Peer` (`peer.rs`) with the
//! parts that concern its link alone (its Hello, pings, outgoing queue and
//! input stream, its hashes and its frame advantage):
//!
//! * `config.rs`: the settings, their defaults and checks;
//! * `peer.rs`: one remote player and its link;
//! * `handshake.rs`: Hellos, the host's parameters, the round trips the
//!   host measures to pick the input delay (phase `Handshake`);
//! * `timeline.rs`: the game, both players' inputs by tick, the states saved
//!   before guessed ticks, and the rollback that corrects a wrong guess
//!   (phase `Running`; [`crate::SyncTest`] drives the same code);
//! * `hash_book.rs`: both sides' hashes of final ticks until compared
//!   (with [`crate::parts`], the part hashes that name what differs);
//! * `time_sync.rs`: the frame advantage and the skipped frames of rollback;
//! * `sender.rs`: the outgoing queue and the per-frame Inputs packet;
//! * `ping.rs`: round trips, lost pings and the pong owed;
//! * `deadlines.rs`: silence, the handshake's deadline, the progress wait;
//! * `roster.rs`: dropped players, their held slots, and the membership
//!   changes the host orders (a player that left plays the neutral input);
//! * `rejoin.rs`: rejoin tokens, and the catch-up the host sends a player
//!   back from a reload and that player gathers;
//! * `host_back.rs`: a host back from a reload: the guests check its
//!   token and one serves it the catch-up (with three players or more,
//!   the guest acting for it, after gathering its inputs);
//! * `audience.rs`: the host's spectators (admitting them, their paced
//!   stream of confirmed inputs and hashes) and the spectator count every
//!   member reads;
//! * `watcher.rs`: a spectator's side (its catch-up, the confirmed ticks
//!   played at its watch delay, the host's hashes checked);
//! * `outcome.rs`: what the session reports (events, frames, outcomes).

use alloc::collections::VecDeque;
use alloc::vec;
use alloc::vec::Vec;
use core::fmt;

use crate::game::DeterministicGame;
use crate::input_log::InputLog;
use crate::parts::{DesyncParts, PartHashes, PartsExchange, StatePart};
use crate::time::Millis;
use crate::transport::{Channel, LinkState, Transport};
use crate::wire::{
    peek_hello_protocol, ByeReason, CatchUp, CatchUpRun, HashReport, Held, Inputs, Join, Member,
    Message, Missing, Pong, Rejoin, RejoinRefusal, Roster, RosterChange, SavedState,
    Watch as WatchRequest, MAX_PLAYERS, PROTOCOL_VERSION,
};

mod arrivals;
mod audience;
mod config;
mod deadlines;
mod delay;
mod handshake;
mod hash_book;
mod host_back;
mod join;
mod members;
mod migrate;
mod outcome;
mod peer;
mod ping;
mod rejoin;
mod roster;
mod sender;
mod time_sync;
pub(crate) mod timeline;
mod watcher;

pub use config::{
    ConfigError, Role, SessionConfig, DEFAULT_CATCH_UP_SPEED, DEFAULT_HANDSHAKE_TIMEOUT,
    DEFAULT_HASH_INTERVAL, DEFAULT_MAX_FRAMES_BEHIND, DEFAULT_MAX_HOLD_FRAMES,
    DEFAULT_PING_INTERVAL_FRAMES, DEFAULT_PREDICTION_WINDOW, DEFAULT_PROGRESS_TIMEOUT,
    DEFAULT_REJOIN_WINDOW, DEFAULT_TIMEOUT, DEFAULT_WATCH_DELAY, HANDSHAKE_PINGS, MAX_HOLD_FRAMES,
};
pub use delay::MAX_ADAPTIVE_DELAY;
pub use handshake::delay_for_round_trips;
pub use outcome::{Event, Frame, Outcome, SessionStats, Version, Violation};
pub use peer::PeerId;

use arrivals::Arrivals;
use audience::{Audience, SpectatorCount};
use deadlines::{Deadlines, Expired};
use delay::{Change, DelayTuner};
use handshake::{host_hello, Handshake, HelloRefused, Params};
use hash_book::{Comparison, HashBook, LocalHashes, LOCAL_HASHES_KEPT};
use members::Members;
use peer::Peer;
use rejoin::Gathered;
use roster::{runs, Benched, Dropped, Joining, Leaving, Newcomer, RunRefused, MAX_BENCH_CLAIMS};
use sender::{Extras, Outbox};
use time_sync::{travel_ticks, PeerView, MS_PER_3_TICKS};
use timeline::{Timeline, Watch};
use watcher::Watcher;

/// How far (in ticks) beyond the proven bound a peer's inputs or hashes may
/// reach before the session calls it a flood. Two honest peers are never
/// more than `2 * delay + 2` input ticks apart, where in lock-step `delay`
/// is the larger of the match's delay and [`MAX_ADAPTIVE_DELAY`] (either
/// side may have raised its own).
const AHEAD_SLACK: u32 = 8;

/// How far past its delay the host sets a late join's change at most (60
/// ticks, 1 s). Every side accepts a join's change this much further
/// ahead than any other change.
const JOIN_LEAD_TICKS: u32 = 60;
/// The lead's allowance, beyond three round trips, for two reliable
/// pieces (the change, an acknowledgement, the short second catch-up)
/// lost and sent again 200 ms later each.
const JOIN_LEAD_SPARE: Millis = Millis(400);
/// A benched player coming back (its whole catch-up still follows the
/// change): the lead is two and a half round trips and this spare, at
/// most [`BACK_LEAD_TICKS`].
const BACK_LEAD_SPARE: Millis = Millis(200);
/// The most a benched player's return is set past the delay (500 ms).
const BACK_LEAD_TICKS: u32 = 30;

/// The most ticks past the first that a lock-step side behind the others
/// runs in one frame while its own inputs are already known (a newcomer
/// before the tick it takes its slot at).
const CATCH_UP_TICKS: u32 = 8;

/// Where the match stands, with the parts that exist only there.
enum Phase<G: DeterministicGame> {
    /// Hellos being exchanged.
    Handshake(Handshake),
    /// The match runs.
    Running(Running<G>),
    /// The match is over; what it reached stays readable.
    Ended(Ended<G>),
}

/// The parts of a running match shared by every peer.
struct Running<G: DeterministicGame> {
    params: Params,
    timeline: Timeline<G>,
    /// This side's hashes of final ticks, until every peer's came.
    local: LocalHashes,
    /// The part hashes of final ticks, and a desync waiting for a peer's.
    parts: PartsExchange,
    /// The peer (index) whose part hashes a desync waits for.
    parts_with: Option<usize>,
    /// Membership changes: the number of the last one sent (host) or
    /// applied (guest).
    roster_seq: u16,
    /// Host: a gone player's inputs being gathered before its slot turns
    /// neutral.
    leaving: Option<Leaving<G::Input>>,
    /// Guest: the slot the host asked about, until its change comes.
    asked: Option<u8>,
    /// Guest: how many of this side's inputs the host had acknowledged
    /// when it last asked about a slot (see [`Peer::host_had`]), kept
    /// here for a slot this side has no link to.
    asked_host_had: u32,
    /// A late join under way (see [`Entry`]).
    entry: Option<Entry>,
    /// How many spectators watch, tick by tick.
    watchers: SpectatorCount,
    /// An entering side: the tick its own inputs start from (the host's
    /// change, set a little ahead of the host's present). The others may
    /// play on to it while this side still catches up. 0 for a side that
    /// played from the start.
    returns_at: u32,
}

impl<G: DeterministicGame> Running<G> {
    /// What a catch-up of this match sends besides the inputs: the saved
    /// state of the confirmed tick (when `with_state` and the game saves
    /// one), and the end (the confirmed tick and its hash, the last
    /// membership change and spectator count, and the slots that play the
    /// neutral input, which the receiver keeps filling as every player
    /// does). `None` without a confirmed state, which cannot happen.
    fn catch_up_parts(&self, with_state: bool) -> Option<(Option<Vec<SavedState>>, CatchUp)> {
        let tick = self.timeline.confirmed_tick();
        let Some(hash) = self.timeline.confirmed_game().map(G::state_hash) else {
            debug_assert!(false, "no confirmed state");
            return None;
        };
        let state = self
            .timeline
            .confirmed_game()
            .filter(|_| with_state)
            .and_then(G::save)
            .and_then(|bytes| rejoin::pieces(tick, &bytes));
        let neutral = (0..self.timeline.players())
            .filter(|&s| self.timeline.is_neutral(s))
            .fold(0u8, |m, s| m | 1 << s);
        let end = CatchUp {
            tick,
            hash,
            roster: self.roster_seq,
            spectators: self.watchers.changes(),
            neutral,
        };
        Some((state, end))
    }

    /// A match running from `timeline`, whose last membership change is
    /// number `roster_seq` (0 at the start, the host's in a catch-up).
    fn new(params: Params, timeline: Timeline<G>, roster_seq: u16) -> Self {
        Running {
            params,
            timeline,
            local: LocalHashes::default(),
            parts: PartsExchange::default(),
            parts_with: None,
            roster_seq,
            leaving: None,
            asked: None,
            asked_host_had: 0,
            entry: None,
            watchers: SpectatorCount::default(),
            returns_at: 0,
        }
    }

    /// The tick past which honest peers' inputs, hashes and changes reach
    /// at most [`ahead_limit`]: this side's present or, while an entering
    /// side catches up, the tick of its return (the others may have
    /// reached it already).
    fn reach_base(&self) -> u32 {
        self.timeline.tick().max(self.returns_at)
    }

    /// Host: the join waiting for every player's acknowledgement.
    fn joining(&self) -> Option<Joining> {
        match self.entry {
            Some(Entry::Joining(j)) => Some(j),
            _ => None,
        }
    }

    /// Guest: the new player whose session is awaited.
    fn newcomer(&self) -> Option<Newcomer> {
        match self.entry {
            Some(Entry::Newcomer(n)) => Some(n),
            _ => None,
        }
    }

    /// Runs `f` on the timeline under the match's watch (final ticks'
    /// hashes sent, compared and their parts kept); returns the first
    /// peer whose hash was found to differ from ours, and the hashes.
    fn watched(
        &mut self,
        peers: &mut [Peer],
        audience: &mut Audience,
        events: &mut VecDeque<Event>,
        f: impl FnOnce(&mut Timeline<G>, &mut MatchWatch<'_>),
    ) -> Option<Differ> {
        let mut watch = MatchWatch {
            peers,
            audience,
            local: &mut self.local,
            parts: &mut self.parts,
            events,
            desync: None,
        };
        f(&mut self.timeline, &mut watch);
        watch.desync
    }
}

/// A late join under way, as this side sees it.
#[derive(Debug, Clone, Copy)]
enum Entry {
    /// Host: a new player taking a free slot, until every player applied
    /// the change.
    Joining(Joining),
    /// Guest: a new player the host let into a free slot, until its
    /// session shows up on a link.
    Newcomer(Newcomer),
}

/// What the host does with a fresh session's `Rejoin`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdict {
    /// Takes the player back now.
    Take,
    /// Keeps the request until what blocks it clears (another player
    /// away, a change under way).
    Wait,
    /// Refuses it on its link alone.
    Refuse(RejoinRefusal),
}

/// Whether player `p` is away: dropped, leaving, or (guest) being taken
/// back.
fn is_away(p: &Peer) -> bool {
    p.dropped.is_some() || p.frozen || p.returning.is_some()
}

/// A peer (index) whose hash of `tick` differs from ours, and the slots
/// of every peer found to differ at that tick.
#[derive(Debug, Clone)]
struct Differ {
    peer: usize,
    tick: u32,
    local: u64,
    remote: u64,
    slots: Vec<u8>,
}

/// What an ended match keeps: how it ended and the last states reached.
struct Ended<G: DeterministicGame> {
    outcome: Outcome,
    params: Params,
    /// The timeline, if the match had started.
    timeline: Option<Timeline<G>>,
}

impl<G: DeterministicGame> Phase<G> {
    fn name(&self) -> &'static str {
        match self {
            Phase::Handshake(_) => "Handshake",
            Phase::Running(_) => "Running",
            Phase::Ended(_) => "Ended",
        }
    }

    /// The timeline, once the match has started.
    fn timeline(&self) -> Option<&Timeline<G>> {
        match self {
            Phase::Handshake(_) => None,
            Phase::Running(r) => Some(&r.timeline),
            Phase::Ended(e) => e.timeline.as_ref(),
        }
    }

    fn params(&self) -> Params {
        match self {
            Phase::Handshake(h) => h.params,
            Phase::Running(r) => r.params,
            Phase::Ended(e) => e.params,
        }
    }
}

/// The session's [`Watch`] on its timeline: new ticks become events, and
/// final ticks' hashes are sent to every peer and compared with each
/// one's.
struct MatchWatch<'a> {
    peers: &'a mut [Peer],
    /// The host's spectators, sent the same hashes later.
    audience: &'a mut Audience,
    local: &'a mut LocalHashes,
    parts: &'a mut PartsExchange,
    events: &'a mut VecDeque<Event>,
    /// The first peer whose hash differs from ours: the match ends.
    desync: Option<Differ>,
}

impl<G: DeterministicGame> Watch<G> for MatchWatch<'_> {
    fn stepped(&mut self, tick: u32, _state: &G, resim: bool) {
        if !resim {
            self.events.push_back(Event::Ticked(tick));
        }
    }

    fn final_hash(&mut self, tick: u32, hash: u64, parts: Vec<StatePart>) {
        let report = Message::<G::Input>::Hash(HashReport { tick, hash });
        for p in self.peers.iter_mut() {
            p.out.send(&report);
        }
        self.audience.record_hash(tick, hash);
        // The parts of the same state, kept in case this tick differs.
        self.parts.keep(tick, parts, LOCAL_HASHES_KEPT);
        self.local.record(tick, hash);
        for (i, p) in self.peers.iter_mut().enumerate() {
            match p.hashes.record_local(tick, hash) {
                Some(Comparison::Matched(t)) => {
                    log::debug!("state hashes agree with {} at tick {t}", p.id);
                    self.events.push_back(Event::HashMatched(t));
                }
                Some(Comparison::Differ {
                    tick,
                    local,
                    remote,
                }) => {
                    // Every peer that differs at this tick is named; the
                    // first one found gets the part exchange.
                    let slot = p.slot.unwrap_or(0);
                    match &mut self.desync {
                        Some(d) => d.slots.push(slot),
                        None => {
                            self.desync = Some(Differ {
                                peer: i,
                                tick,
                                local,
                                remote,
                                slots: vec![slot],
                            });
                        }
                    }
                }
                None => {}
            }
        }
        // Our hashes of ticks every peer's hashes have caught up with are
        // done.
        let done = compared_by_all(self.peers);
        self.local.forget_upto(done);
        if self.desync.is_some() {
            // The differing tick's parts stay for the exchange.
            return;
        }
        // So are their parts.
        self.parts.forget_upto(done);
    }

    fn stopped(&self) -> bool {
        self.desync.is_some()
    }
}

/// The last tick whose hash every peer has sent.
fn compared_by_all(peers: &[Peer]) -> u32 {
    peers
        .iter()
        .map(|p| p.hashes.last_remote_tick())
        .min()
        .unwrap_or(0)
}

/// One member of a lock-step match of 2 to 8 players, sans-IO.
///
/// The session never reads a clock and never touches a socket. The caller
/// feeds it what happened (datagrams, link changes, the passing of frames,
/// the local player leaving) with the current time in [`Millis`], and takes
/// out what it produced: datagrams to send and the link to send each on,
/// events, and the time it wants to be called by at the latest.
///
/// Each remote player is reached over its own link (a [`Transport`]), and
/// the caller names each link with a [`PeerId`] of its choice.
///
/// # Calling contract
///
/// 1. Create the session with [`Session::new`]. When a link to a remote
///    player is [`Open`](LinkState::Open), say so with
///    [`handle_link_state`](Self::handle_link_state) (its Hello is queued
///    then; [`pump`](Self::pump) does it for you).
/// 2. Feed every datagram received on a link to
///    [`handle_datagram`](Self::handle_datagram) and every change of a
///    link's state to [`handle_link_state`](Self::handle_link_state),
///    with the link's [`PeerId`].
/// 3. Call [`advance_frame`](Self::advance_frame) once per display frame
///    (60 Hz), never more to catch up after a pause: it samples the local
///    pad only when a new input is needed, runs at most one tick and sends
///    this frame's inputs. Between frames, call
///    [`handle_timeout`](Self::handle_timeout) if
///    [`poll_timeout`](Self::poll_timeout)'s deadline passes.
/// 4. After **every** call above (and after [`quit`](Self::quit)), drain
///    [`poll_transmit`](Self::poll_transmit) into the links it names, then
///    [`poll_event`](Self::poll_event), until both return `None`.
///    [`pump`](Self::pump) does steps 2 and 4's sending for one link over
///    any [`Transport`]; call it for each link.
/// 5. When [`Event::Ended`] arrives the match is over: keep draining
///    `poll_transmit` (a `Bye` may be queued) before closing the links.
///    Later calls change nothing.
///
/// Every method takes the current time; times must not go backwards (a
/// smaller time is treated as no time passing).
///
/// # Panics
///
/// Never, whatever the peers send or in whatever order methods are called
/// (a panic would be a bug in this crate). Bad data from a peer ends the
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
/// // Each side names its one link; here, by the other side's number.
/// let (to_guest, to_host) = (PeerId(1), PeerId(0));
/// host.handle_link_state(Millis(0), to_guest, LinkState::Open);
/// guest.handle_link_state(Millis(0), to_host, LinkState::Open);
/// for frame in 0..100u64 {
///     let now = Millis(frame * 16);
///     host.advance_frame(now, || 1);
///     guest.advance_frame(now, || 2);
///     // A perfect, instant link: hand each side's datagrams to the other.
///     while let Some((_, ch, bytes)) = host.poll_transmit() { guest.handle_datagram(now, to_host, ch, &bytes) }
///     while let Some((_, ch, bytes)) = guest.poll_transmit() { host.handle_datagram(now, to_guest, ch, &bytes) }
/// }
/// assert!(host.tick() > 90);
/// assert_eq!(host.tick(), guest.tick());
/// assert_eq!(host.game().map(|g| g.0), guest.game().map(|g| g.0));
/// ```
pub struct Session<G: DeterministicGame> {
    cfg: SessionConfig,
    /// This side's slot: 0 host, 1 guest.
    side: u8,
    phase: Phase<G>,
    /// The handshake's and the progress wait's clocks.
    deadlines: Deadlines,
    /// This side's input delay in force during a match (in lock-step with
    /// `adaptive_input_delay`, it follows the round trips).
    delay: DelayTuner,
    /// The remote players, in the order their links opened.
    peers: Vec<Peer>,
    /// Who holds which slot with which token, the host's slot, the
    /// benched slots, and the links outside the match.
    members: Members,
    /// Players on their way in: rejoins that wait, a join under way, and
    /// what an entering side gathers and keeps until it runs.
    arrivals: Arrivals<G::Input>,
    /// Host: its spectators.
    audience: Audience,
    /// Spectator: what it keeps besides the timeline (`None` for a
    /// player).
    watcher: Option<Watcher>,
    events: VecDeque<Event>,
    /// The session's own counters (frames, stalls, received, round trip,
    /// skips); the parts' counters are added when read.
    stats: SessionStats,
}

impl<G: DeterministicGame> fmt::Debug for Session<G> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Session")
            .field("phase", &self.phase.name())
            .field("side", &self.side)
            .field("peers", &self.peers.len())
            .field("tick", &self.tick())
            .field("outcome", &self.outcome())
            .finish_non_exhaustive()
    }
}

impl<G: DeterministicGame> Session<G> {
    /// Checks the configuration (and that the game's input encodes). No
    /// link yet: see [`handle_link_state`](Self::handle_link_state).
    pub fn new(cfg: SessionConfig) -> Result<Self, ConfigError> {
        cfg.validate()?;
        postcard::to_allocvec(&G::Input::default()).map_err(ConfigError::InputNotEncodable)?;
        let side = match cfg.role {
            // No slot: a spectator's "side" names none.
            Role::Guest if cfg.watching => MAX_PLAYERS,
            Role::Host { .. } => 0,
            // A rejoiner knows its slot before the host answers, and keeps
            // it if refused: the page asks again for that slot.
            Role::Guest => cfg
                .rejoin_as
                .map_or(cfg.join_as.flatten().unwrap_or(1), |(slot, _)| slot),
        };
        let handshake = Handshake::new(&cfg, G::BUILD_ID);
        Ok(Session {
            cfg,
            side,
            phase: Phase::Handshake(handshake),
            deadlines: Deadlines::default(),
            delay: DelayTuner::new(0),
            peers: Vec::new(),
            members: Members::new(cfg.rejoin_as.map(|(_, token)| token)),
            arrivals: Arrivals::default(),
            audience: Audience::default(),
            watcher: cfg.watching.then(Watcher::default),
            events: VecDeque::new(),
            stats: SessionStats::default(),
        })
    }

    /// Whether this session enters a running match through the host's
    /// catch-up (a rejoiner or a joiner) instead of a handshake.
    fn entering(&self) -> bool {
        self.cfg.rejoin_as.is_some() || self.cfg.join_as.is_some() || self.cfg.host_back.is_some()
    }

    /// Players in the match (0 while a guest waits for the host's Hello).
    fn players(&self) -> u8 {
        self.phase.params().players
    }

    /// The index of link `id` among the peers, adding it (its link just
    /// opened, or its first datagram came) while the handshake expects
    /// more links. `None` for a link the match has no room for.
    fn peer_index(&mut self, now: Millis, id: PeerId) -> Option<usize> {
        if let Some(i) = self.peers.iter().position(|p| p.id == id) {
            return Some(i);
        }
        if self.members.is_gone(id) {
            log::debug!("{id} belongs to a player that left: dropped");
            return None;
        }
        if self.is_spectator() {
            // A spectator's one link leads to the host.
            if !self.peers.is_empty() || !matches!(self.phase, Phase::Handshake(_)) {
                log::warn!("{id}: a spectator has one link, to the host: ignored");
                return None;
            }
            let mut peer = Peer::new(id, now);
            peer.slot = Some(0);
            peer.out.send(&Message::<G::Input>::Watch(WatchRequest {
                protocol: PROTOCOL_VERSION,
                build: G::BUILD_ID,
            }));
            self.peers.push(peer);
            return Some(0);
        }
        let hs = match &self.phase {
            Phase::Handshake(hs) => hs,
            Phase::Running(run) if self.cfg.host_back.is_some() => {
                // A host back among several guests: a link to a guest
                // may open after the match runs again; it asks that guest
                // too, who takes it on the acting guest's word.
                let room = usize::from(run.params.players.saturating_sub(1));
                if self.peers.len() >= room {
                    log::warn!("{id} opened beyond the match's players: ignored");
                    return None;
                }
                let mut peer = Peer::new(id, now);
                peer.pinger.start(self.cfg.ping_interval_frames);
                peer.sender = sender::Sender::holding(run.returns_at);
                peer.roster_acked = run.roster_seq;
                peer.out.send(&Message::<G::Input>::Rejoin(Rejoin {
                    protocol: PROTOCOL_VERSION,
                    build: G::BUILD_ID,
                    slot: 0,
                    token: self.cfg.host_back.unwrap_or(0),
                }));
                self.peers.push(peer);
                return Some(self.peers.len() - 1);
            }
            _ => {
                log::debug!("{id} opened after the start: ignored unless it rejoins");
                return None;
            }
        };
        let room = match hs.params.players {
            0 => MAX_PLAYERS - 1,
            n => n - 1,
        };
        if self.peers.len() >= usize::from(room) {
            log::warn!("{id} opened beyond the match's players: ignored");
            return None;
        }
        let mut peer = Peer::new(id, now);
        if self.side == 0 && self.cfg.host_back.is_none() {
            // The host gives the link the lowest free slot (a host coming
            // back learns it from the guest's `Resume`).
            peer.slot =
                (1..hs.params.players).find(|&k| self.peers.iter().all(|p| p.slot != Some(k)));
        }
        if let Some((slot, token)) = self.cfg.rejoin_as {
            // A rejoiner asks for its slot back instead of saying Hello.
            peer.out.send(&Message::<G::Input>::Rejoin(Rejoin {
                protocol: PROTOCOL_VERSION,
                build: G::BUILD_ID,
                slot,
                token,
            }));
        } else if let Some(token) = self.cfg.host_back {
            // A host coming back asks the guest for the match back.
            peer.out.send(&Message::<G::Input>::Rejoin(Rejoin {
                protocol: PROTOCOL_VERSION,
                build: G::BUILD_ID,
                slot: 0,
                token,
            }));
        } else if let Some(asked) = self.cfg.join_as {
            match (hs.own_slot, self.members.token) {
                // The host let this side in already: it introduces itself
                // to a link opened since as the slot's player.
                (Some(slot), Some(token)) => {
                    peer.out.send(&Message::<G::Input>::Rejoin(Rejoin {
                        protocol: PROTOCOL_VERSION,
                        build: G::BUILD_ID,
                        slot,
                        token,
                    }));
                }
                // A joiner asks for a free slot instead of saying Hello.
                _ => peer.out.send(&Message::<G::Input>::Join(Join {
                    protocol: PROTOCOL_VERSION,
                    build: G::BUILD_ID,
                    slot: asked.unwrap_or(0),
                })),
            }
        } else if !hs.probing(&self.cfg, self.side) {
            let to = peer.slot.unwrap_or(0);
            peer.out
                .send(&hs.hello::<G::Input>(&self.cfg, self.side, G::BUILD_ID, to));
        }
        let entering = self.entering();
        if let (Some(slot), true, false) = (hs.own_slot, self.side != 0, entering) {
            // A guest that knows the match introduces itself to a link
            // opened later (necessarily another guest's).
            peer.out.send(&Message::<G::Input>::Member(Member {
                slot,
                match_id: hs.params.match_id,
            }));
        }
        self.peers.push(peer);
        Some(self.peers.len() - 1)
    }

    // ----- inputs ---------------------------------------------------------

    /// Feeds one datagram received on `channel` of link `peer`.
    ///
    /// Any datagram counts as a sign of life. Inputs that arrive before
    /// the match starts are dropped (they are sent again); a Ping before
    /// the start is answered at once with a Pong (the host measures the
    /// round trip that way); pongs for unknown pings and anything after
    /// the end are dropped (logged at debug), and so is a datagram on a
    /// link the match has no room for (logged at warn). Anything that
    /// fails strict decoding or breaks the protocol ends the match with
    /// [`Outcome::InvalidData`] (see `docs/engine.md`).
    pub fn handle_datagram(&mut self, now: Millis, peer: PeerId, channel: Channel, bytes: &[u8]) {
        if self.is_ended() {
            log::debug!(
                "{} byte datagram after the end of the match: dropped",
                bytes.len()
            );
            return;
        }
        self.deadlines.called(now);
        if let Some(si) = self.audience.index(peer) {
            self.stats.received_packets += 1;
            self.stats.received_bytes += bytes.len() as u64;
            self.on_spectator_datagram(now, si, channel, bytes);
            return;
        }
        if self.audience.gone.contains(&peer) {
            log::debug!("{peer} was a spectator that left: dropped");
            return;
        }
        let known = self.peers.iter().any(|p| p.id == peer);
        if !known && self.is_running() {
            // A link the match does not know (or one of a player that
            // left): only a rejoin is heard.
            self.on_stranger(now, peer, channel, bytes);
            return;
        }
        let Some(pi) = self.peer_index(now, peer) else {
            return;
        };
        if let Some(p) = self.peers.get_mut(pi) {
            p.heard(now);
        }
        self.stats.received_packets += 1;
        self.stats.received_bytes += bytes.len() as u64;
        let msg = match Message::<G::Input>::decode(bytes) {
            Ok(m) => m,
            Err(error) if self.arrivals.gathered.is_some() => {
                log::warn!("undecodable datagram during the catch-up: {error}");
                self.violation(Violation::BadCatchUp);
                return;
            }
            Err(error) => {
                if let Some(protocol) = peek_hello_protocol(bytes) {
                    if protocol != PROTOCOL_VERSION && matches!(self.phase, Phase::Handshake(_)) {
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
        if self.is_spectator() {
            self.on_watched(now, pi, msg);
            return;
        }
        if matches!(msg, Message::Ping(_))
            && self.awaits_host_answer()
            && self.cfg.host_back.is_none()
        {
            // The host's keep-alive: the request waits (another player
            // is away, or a change is under way), and the handshake's
            // deadline counts from its last word.
            self.deadlines.restart_handshake(now);
        }
        if !self.takes_from(pi, &msg) {
            return;
        }
        if !matches!(msg, Message::Rejoin(_)) {
            // Anything but a fresh session's Rejoin: the player's own
            // session is heard again.
            if let Some(p) = self.peers.get_mut(pi) {
                let back = p.dropped.is_some_and(|d| !d.deaf);
                if !p.frozen && back && p.dropped.take().is_some() {
                    let slot = p.slot.unwrap_or(0);
                    log::info!("{} (slot {slot}) heard again: the match resumes", p.id);
                    self.events.push_back(Event::Resumed { slot });
                }
            }
        }
        match msg {
            Message::Rejoin(r) => self.on_rejoin(now, peer, Some(pi), r),
            Message::CatchUpRun(r) => self.on_catch_up_run(pi, &r),
            Message::SavedState(piece) => self.on_saved_state(pi, &piece),
            Message::CatchUp(c) => self.on_catch_up(now, pi, c),
            Message::Hello(h) => self.on_hello(pi, h),
            Message::Inputs(m) => self.on_inputs(now, pi, m),
            Message::Hash(h) => self.on_hash(now, pi, h),
            Message::Ping(id) => self.on_ping(now, pi, id),
            Message::Pong(p) => self.on_pong(now, pi, p),
            Message::Bye(r) if !self.bye_counts(pi, r) => self.close_unmet_link(pi, r),
            Message::Bye(r) if self.waits_on(peer) => self.rejoin_given_up(peer, r),
            Message::Bye(r) => self.on_bye(pi, r),
            Message::Parts(p) => self.on_parts(pi, p),
            Message::Member(m) => self.on_member(pi, m),
            Message::Missing(m) => self.on_missing(pi, m),
            Message::Held(h) => self.on_held(now, pi, h),
            Message::Roster(r) => self.on_roster(now, pi, r),
            Message::RosterAck(seq) => self.on_roster_ack(now, pi, seq),
            Message::Join(_) if self.side == 0 && matches!(self.phase, Phase::Handshake(_)) => {
                // Only a running match has free slots.
                log::warn!("a Join on {peer} before the match runs: refused");
                let bye =
                    Message::<G::Input>::Bye(ByeReason::RejoinRefused(RejoinRefusal::HostUnable));
                self.outbox_for(peer, Some(pi)).send(&bye);
            }
            Message::Resume(r) => self.on_resume(pi, r),
            Message::Join(_) => {
                // A player stays in its slot: a Join on a player's link
                // (or one that introduced itself) is not a newcomer's.
                log::warn!("a Join on player link {peer}: refused, the match goes on");
            }
            Message::JoinReady(tick) => self.on_join_ready(now, peer, Some(pi), tick),
            Message::Watch(_) => {
                // A player stays a player: a Watch on its link (from a
                // peer that would turn it into a spectator, or sent to a
                // guest) is refused and the match goes on.
                log::warn!("a Watch on player link {peer}: refused, the player stays a player");
            }
            Message::Welcome(_)
            | Message::Confirmed(_)
            | Message::WatchAck(_)
            | Message::Streamed(_) => {
                self.violation(Violation::UnexpectedWatch);
            }
        }
    }

    /// Feeds a change of link `peer`'s state. [`Open`](LinkState::Open)
    /// adds the link (queuing its Hello) while the handshake expects
    /// more; `Closed` or `Failed` ends the match with
    /// [`Outcome::TransportLost`] (after any `Bye` already fed, which takes
    /// precedence).
    pub fn handle_link_state(&mut self, now: Millis, peer: PeerId, state: LinkState) {
        if self.is_ended() {
            return;
        }
        self.deadlines.called(now);
        if let Some(si) = self.audience.index(peer) {
            if state.is_terminal() {
                log::info!("spectator on {peer}: link {state:?}, dropped");
                self.drop_spectator(si, None);
            }
            return;
        }
        let known = self.peers.iter().any(|p| p.id == peer);
        if state.is_terminal() {
            self.members.drop_stranger(peer);
            // A fresh session that waited is gone with its link.
            self.arrivals.forget_waiting_on(peer);
        }
        if self.is_spectator() && state.is_terminal() && known {
            log::info!("{peer} {state:?}: the host is lost");
            self.end(Outcome::TransportLost, None);
            return;
        }
        let holding =
            matches!(self.phase, Phase::Running(_)) && self.cfg.rejoin_window > Millis::ZERO;
        if state == LinkState::Open && !known {
            let _ = self.peer_index(now, peer);
        } else if state.is_terminal() && known && holding {
            // The slot is held for the player to come back.
            if let Some(pi) = self.peers.iter().position(|p| p.id == peer) {
                self.drop_peer(now, pi, false);
            }
        } else if state.is_terminal() && (known || matches!(self.phase, Phase::Handshake(_))) {
            // A link lost before the start (even one never seen open)
            // leaves the match without one of its players.
            log::info!("{peer} {state:?}: transport lost");
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
    /// afterwards so the peers learn of it.
    pub fn quit(&mut self, now: Millis) {
        let _ = now;
        self.end(Outcome::LocalQuit, Some(ByeReason::Quit));
    }

    /// Advances one display frame: samples the local pad through `sample`
    /// only when a new input is needed (at most once), runs at most one tick
    /// when every input for it is known (or may be predicted), and queues
    /// this frame's datagrams.
    ///
    /// Call it once per frame and never more to catch up: after a stall the
    /// match resumes at normal pace.
    pub fn advance_frame(&mut self, now: Millis, sample: impl FnMut() -> G::Input) -> Frame {
        self.check_timeout(now);
        if self.is_spectator() {
            return match self.phase {
                Phase::Ended(_) => Frame::Ended,
                Phase::Handshake(_) => Frame::Waiting,
                Phase::Running(_) => self.watch_frame(now),
            };
        }
        let ready = self.all_hellos();
        if let Phase::Handshake(hs) = &mut self.phase {
            let start = hs.frame::<G::Input>(
                now,
                &self.cfg,
                self.side,
                G::BUILD_ID,
                &mut self.peers,
                ready,
            );
            if start {
                self.start();
            }
        }
        if self.side == 0 && matches!(self.phase, Phase::Handshake(_)) {
            self.keep_waiting_spectators();
        }
        match self.phase {
            Phase::Ended(_) => Frame::Ended,
            Phase::Handshake(_) => Frame::Waiting,
            Phase::Running(_) => self.running_frame(now, sample),
        }
    }

    /// Whether `msg` on link `pi` is taken at all. A player the host asked
    /// about (leaving, or rejoining and not yet back) is heard only for a
    /// `Rejoin` or a `Bye`: what its link carries may come from a fresh
    /// session this side has not taken yet. A rejoiner takes nothing but a
    /// `Hello`, a `Member` or a `Bye` on a link whose player it does not
    /// know yet (a guest that has not taken it back may still send what
    /// it meant for the old session).
    fn takes_from(&self, pi: usize, msg: &Message<G::Input>) -> bool {
        let Some(p) = self.peers.get(pi) else {
            return false;
        };
        let taken = if p.frozen || p.returning.is_some() {
            matches!(msg, Message::Rejoin(_) | Message::Bye(_))
        } else if p.slot.is_none() && self.entering() {
            // Another player's fresh session may introduce itself too
            // (see `keep_early_claim`).
            matches!(
                msg,
                Message::Hello(_)
                    | Message::Member(_)
                    | Message::Bye(_)
                    | Message::Rejoin(_)
                    | Message::Resume(_)
            )
        } else {
            true
        };
        if !taken {
            log::debug!(
                "a message on {} while its player is not taken (leaving, rejoining or not introduced yet): dropped",
                p.id
            );
        }
        taken
    }

    /// Whether this side knows its slot and every other player's link is
    /// open, with its Hello in and its slot known.
    fn all_hellos(&self) -> bool {
        let Phase::Handshake(hs) = &self.phase else {
            return false;
        };
        // A rejoiner (or joiner) starts from the host's catch-up instead.
        !self.entering()
            && hs.own_slot.is_some()
            && self.peers.len() + 1 == usize::from(hs.params.players)
            && self
                .peers
                .iter()
                .all(|p| p.hello.is_some() && p.slot.is_some())
    }

    /// One frame of the running match (see [`advance_frame`](Self::advance_frame)).
    fn running_frame(&mut self, now: Millis, mut sample: impl FnMut() -> G::Input) -> Frame {
        let Phase::Running(run) = &mut self.phase else {
            // Unreachable: the caller matched the phase.
            debug_assert!(false, "running frame outside the match");
            return Frame::Waiting;
        };
        // A desync waits for a peer's part hashes: nothing runs.
        if run.parts.waiting() {
            return Frame::Waiting;
        }
        self.stats.frames += 1;
        let window = run.params.window;
        if window > 0 {
            // Correct any misprediction the inputs received since the last
            // frame revealed, before anything new runs.
            let found = run.watched(
                &mut self.peers,
                &mut self.audience,
                &mut self.events,
                |t, w| {
                    t.reconcile(w);
                },
            );
            if let Some(desync) = found {
                self.end_in_desync(now, desync);
                return Frame::Ended;
            }
        }
        // Sample only when the input `delay` ticks ahead is still missing,
        // and (host) not from the tick a new player takes its slot at
        // until every player has applied that change.
        let joining = run.joining();
        let held_back =
            |run: &Running<G>| joining.is_some_and(|j| run.timeline.local().len() as u32 >= j.tick);
        let mut raised = false;
        if window == 0 && self.cfg.adaptive_delay {
            match self.delay.frame() {
                Change::Kept => {}
                Change::Raised(d) => {
                    log::info!("input delay raised to {d} ticks");
                    raised = true;
                }
                Change::Lowered(d) => log::info!("input delay lowered to {d} ticks"),
            }
        }
        let delay = self.delay.current();
        if !held_back(run) && run.timeline.needs_local(delay) {
            let pad = sample();
            if run.timeline.local().last() != Some(&pad) {
                for p in &mut self.peers {
                    p.sender.pad_changed();
                }
            }
            run.timeline.push_local(pad);
            // A raised delay: the same pad for the ticks it adds, so the
            // others hold this side's inputs that much sooner at once.
            while raised && !held_back(run) && run.timeline.needs_local(delay) {
                run.timeline.push_local(pad);
            }
        }
        let can_run = run.timeline.can_run();
        if can_run {
            self.deadlines.progressed();
        }
        let tick = run.timeline.tick();
        // Time sync: this side lets a frame pass when it runs ahead of any
        // peer (so every player stays near the slowest).
        let skip = can_run
            && window > 0
            && self
                .peers
                .iter()
                .any(|p| p.time_sync.wants_skip(tick, peer_view(run, p)));
        let frame = if skip {
            log::debug!("time sync: frame skipped at tick {tick}");
            for p in &mut self.peers {
                p.time_sync.skipped();
            }
            self.stats.skipped_frames += 1;
            Frame::Skipped(tick)
        } else if can_run {
            // A side whose own inputs are held further ahead than its
            // delay calls for (a newcomer's slot is the neutral input up
            // to the tick it takes over) is behind the others: it runs
            // the ticks whose inputs are all known (in rollback too: it
            // guesses nothing), up to CATCH_UP_TICKS more a frame, until
            // its pad is needed. Otherwise, in rollback, the others would
            // wait for it at the end of their prediction window.
            let mut extra = 0;
            loop {
                let found = run.watched(
                    &mut self.peers,
                    &mut self.audience,
                    &mut self.events,
                    |t, w| {
                        t.step(w);
                    },
                );
                if let Some(desync) = found {
                    self.end_in_desync(now, desync);
                    return Frame::Ended;
                }
                let ahead =
                    run.timeline.local().len() as u32 > run.timeline.tick() + u32::from(delay) + 1;
                let guesses = window > 0 && !run.timeline.knows_present();
                if guesses || extra >= CATCH_UP_TICKS || !ahead || !run.timeline.can_run() {
                    break;
                }
                extra += 1;
            }
            Frame::Ticked(run.timeline.tick())
        } else {
            self.deadlines.stalled(now);
            self.stats.stalled_frames += 1;
            self.events.push_back(Event::Stalled(tick));
            for p in &mut self.peers {
                if let Some(d) = &mut p.dropped {
                    let held_for = d.until.saturating_since(now);
                    let secs = held_for.0 / 1000;
                    if secs != d.announced {
                        d.announced = secs;
                        self.events.push_back(Event::Waiting {
                            slot: p.slot.unwrap_or(0),
                            held_for,
                        });
                    }
                }
            }
            Frame::Stalled(tick)
        };
        if window > 0 {
            let tick = run.timeline.tick();
            for i in 0..self.peers.len() {
                let Some(p) = self.peers.get(i) else { continue };
                let view = peer_view(run, p);
                if let Some(p) = self.peers.get_mut(i) {
                    p.time_sync.update(tick, view);
                }
            }
        }
        for p in &mut self.peers {
            p.pinger.frame();
        }
        self.flush_unreliable(now, matches!(frame, Frame::Stalled(_)));
        if self.is_host() {
            self.keep_waiting_rejoiners();
            self.join_when_ready(now);
            self.serve_spectators(now, false);
        }
        frame
    }

    // ----- outputs --------------------------------------------------------

    /// The next datagram to send, the link to send it on and its channel
    /// (links in the order they opened; each link's datagrams in order).
    pub fn poll_transmit(&mut self) -> Option<(PeerId, Channel, Vec<u8>)> {
        let next = self.peers.iter_mut().find_map(|p| {
            let id = p.id;
            p.out.pop().map(|(ch, bytes)| (id, ch, bytes))
        });
        if next.is_some() {
            return next;
        }
        let next = self.audience.members.iter_mut().find_map(|s| {
            let id = s.id;
            s.out.pop().map(|(ch, bytes)| (id, ch, bytes))
        });
        if next.is_some() {
            return next;
        }
        self.members
            .poll_stranger()
            .map(|(id, (ch, bytes))| (id, ch, bytes))
    }

    /// The next datagram to send on link `peer`, and its channel.
    pub fn poll_transmit_to(&mut self, peer: PeerId) -> Option<(Channel, Vec<u8>)> {
        if let Some(p) = self.peers.iter_mut().find(|p| p.id == peer) {
            return p.out.pop();
        }
        if let Some(s) = self.audience.members.iter_mut().find(|s| s.id == peer) {
            return s.out.pop();
        }
        self.members.poll_stranger_to(peer)
    }

    /// The next event.
    pub fn poll_event(&mut self) -> Option<Event> {
        self.events.pop_front()
    }

    /// The time by which [`handle_timeout`](Self::handle_timeout) (or any
    /// other call) must happen at the latest: the earliest of the silence
    /// deadline (of the peer heard least recently), the handshake's
    /// deadline (before the start) and the progress deadline (while
    /// stalled on a peer's input). `None` once the match has ended, or
    /// before the first call that passed a time.
    #[must_use]
    pub fn poll_timeout(&self) -> Option<Millis> {
        let quietest = self.silence_from().map(|(_, t)| t);
        match &self.phase {
            Phase::Ended(_) => None,
            Phase::Handshake(_) => self.deadlines.next(&self.cfg, true, quietest),
            Phase::Running(run)
                if self.cfg.rejoin_window > Millis::ZERO && !self.is_spectator() =>
            {
                self.link_deadlines(run)
                    .chain(self.deadlines.progress_next(&self.cfg))
                    .chain(self.deadlines.stuck_next(&self.cfg))
                    .chain(run.parts.deadline(self.cfg.timeout))
                    .min()
            }
            Phase::Running(run) => [
                self.deadlines.next(&self.cfg, false, quietest),
                // The end of a desync's wait for the peer's part hashes.
                run.parts.deadline(self.cfg.timeout),
            ]
            .into_iter()
            .flatten()
            .min(),
        }
    }

    /// Serves link `peer` over `transport`: receives everything it holds,
    /// feeds its link state, checks the timeout and, while the link is
    /// open, sends every datagram queued for it. Call it for each link;
    /// events are left for [`poll_event`](Self::poll_event).
    pub fn pump<T: Transport + ?Sized>(&mut self, now: Millis, peer: PeerId, transport: &mut T) {
        while let Some((channel, bytes)) = transport.recv() {
            self.handle_datagram(now, peer, channel, &bytes);
        }
        let state = transport.state();
        self.handle_link_state(now, peer, state);
        self.check_timeout(now);
        self.note_send_backlog(peer, transport.send_backlog());
        if state == LinkState::Open {
            while let Some((channel, bytes)) = self.poll_transmit_to(peer) {
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
        self.phase.timeline().map(Timeline::game)
    }

    /// Ticks simulated so far. In rollback mode the last ones may have run
    /// on predicted remote inputs (see [`confirmed_tick`](Self::confirmed_tick)).
    #[must_use]
    pub fn tick(&self) -> u32 {
        self.phase.timeline().map_or(0, Timeline::tick)
    }

    /// Ticks whose state is final: every input for them is known and any
    /// misprediction among them has been corrected (as of the last
    /// [`advance_frame`](Self::advance_frame)). Equal to
    /// [`tick`](Self::tick) in lock-step.
    #[must_use]
    pub fn confirmed_tick(&self) -> u32 {
        self.phase.timeline().map_or(0, Timeline::confirmed_tick)
    }

    /// The game as it is after [`confirmed_tick`](Self::confirmed_tick)
    /// ticks (the same as [`game`](Self::game) in lock-step, or when no
    /// prediction is pending).
    #[must_use]
    pub fn confirmed_game(&self) -> Option<&G> {
        self.phase.timeline().and_then(Timeline::confirmed_game)
    }

    /// The prediction window in force (0 = lock-step), once the match has
    /// started (guests adopt the host's).
    #[must_use]
    pub fn prediction_window(&self) -> Option<u8> {
        self.phase.timeline().map(Timeline::window)
    }

    /// How the match ended, once it has.
    #[must_use]
    pub fn outcome(&self) -> Option<&Outcome> {
        match &self.phase {
            Phase::Ended(e) => Some(&e.outcome),
            _ => None,
        }
    }

    /// This side's player slot: 0 for the host, 1 for the guest.
    #[must_use]
    pub fn side(&self) -> Option<u8> {
        (!self.is_spectator()).then_some(self.side)
    }

    /// The token that lets a fresh session of this player take its slot
    /// back: a guest's ([`SessionConfig::rejoin`]) once the host's Hello
    /// gave it; the host's own ([`SessionConfig::back_as_host`]) once the
    /// match runs (its input delay and match id are settled then). `None`
    /// before, for a spectator, and for a host that issues none (no
    /// [`SessionConfig::rejoin_entropy`]). Keep it where the next session
    /// can read it (a page's session storage); never log it.
    #[must_use]
    pub fn rejoin_token(&self) -> Option<u64> {
        if self.side != 0 {
            return self.members.token;
        }
        if let Some(token) = self.cfg.host_back {
            return Some(token);
        }
        let entropy = self.cfg.rejoin_entropy?;
        match &self.phase {
            Phase::Handshake(_) => None,
            phase => Some(rejoin::host_token(entropy, phase.params().match_id)),
        }
    }

    /// The player slot of the remote on link `peer`, once its Hello
    /// arrived.
    #[must_use]
    pub fn peer_slot(&self, peer: PeerId) -> Option<u8> {
        self.peers
            .iter()
            .find(|p| p.id == peer)
            .and_then(|p| p.slot)
    }

    /// `true` once every Hello was accepted (and until the end).
    #[must_use]
    pub fn is_running(&self) -> bool {
        matches!(self.phase, Phase::Running(_))
    }

    /// The seed and input delay in force, once the match has started.
    #[must_use]
    pub fn parameters(&self) -> Option<(u64, u8)> {
        let p = self.phase.params();
        self.phase.timeline().map(|_| (p.seed, p.delay))
    }

    /// This side's input delay in force (ticks), once the match has
    /// started: the match's delay, or with
    /// [`SessionConfig::adaptive_input_delay`] what the round trips called
    /// for lately.
    #[must_use]
    pub fn input_delay(&self) -> Option<u8> {
        match &self.phase {
            Phase::Running(_) => Some(self.delay.current()),
            _ => self.parameters().map(|(_, d)| d),
        }
    }

    /// Counters, summed over every link.
    #[must_use]
    pub fn stats(&self) -> SessionStats {
        let mut stats = self.stats;
        for p in &self.peers {
            p.out.count_into(&mut stats);
        }
        for s in &self.audience.members {
            s.out.count_into(&mut stats);
        }
        if let Some(t) = self.phase.timeline().map(Timeline::stats) {
            stats.predicted_ticks = t.predicted_ticks;
            stats.rollbacks = t.rollbacks;
            stats.resimulated_ticks = t.resimulated_ticks;
            stats.max_rollback = t.max_rollback;
        }
        stats
    }

    /// The datagram and byte counts queued for link `peer` alone (the
    /// other fields stay 0), if the session has that link.
    #[must_use]
    pub fn link_stats(&self, peer: PeerId) -> Option<SessionStats> {
        let mut stats = SessionStats::default();
        if let Some(s) = self.audience.members.iter().find(|s| s.id == peer) {
            s.out.count_into(&mut stats);
            return Some(stats);
        }
        let p = self.peers.iter().find(|p| p.id == peer)?;
        p.out.count_into(&mut stats);
        stats.last_rtt = p.last_rtt;
        Some(stats)
    }

    /// The inputs every player's game stepped with at confirmed tick
    /// `tick` (the tick count before it; below
    /// [`confirmed_tick`](Self::confirmed_tick)), written into `out` in
    /// player order, replacing what it held: what a driver following the
    /// confirmed state steps its own copy with, without copying the whole
    /// [`input_log`](Self::input_log). Returns `false` (and leaves `out`
    /// empty) for a tick that is not confirmed yet.
    pub fn confirmed_inputs(&self, tick: u32, out: &mut Vec<G::Input>) -> bool {
        match self.phase.timeline() {
            Some(t) => t.confirmed_inputs(tick, out),
            None => {
                out.clear();
                false
            }
        }
    }

    /// Every confirmed tick so far (see
    /// [`confirmed_tick`](Self::confirmed_tick); every simulated tick in
    /// lock-step), as an exportable [`InputLog`].
    #[must_use]
    pub fn input_log(&self) -> InputLog<G::Input> {
        let p = self.phase.params();
        match self.phase.timeline() {
            Some(t) => t.input_log(p.seed, p.delay),
            None => InputLog {
                build: G::BUILD_ID,
                seed: p.seed,
                // A guest that has not heard the host yet counts two.
                players: self.players().max(2),
                input_delay: p.delay,
                final_hash: G::new(p.seed, self.players().max(2)).state_hash(),
                start_tick: 0,
                start_state: Vec::new(),
                inputs: Vec::new(),
            },
        }
    }

    // ----- internals ------------------------------------------------------

    fn is_ended(&self) -> bool {
        matches!(self.phase, Phase::Ended(_))
    }

    /// The link whose silence ends the handshake or a match that holds
    /// no slots, and when it was last heard: the one heard least
    /// recently; but for a side entering a running match (rejoining or
    /// joining) until it runs, the one heard most recently. Only the host
    /// answers such a side before it is let in (with a keep-alive every
    /// ping interval while its request waits); the other players say
    /// nothing to it until then.
    fn silence_from(&self) -> Option<(PeerId, Millis)> {
        let each = self.peers.iter().map(|p| (p.id, p.last_heard));
        if self.entering() && matches!(self.phase, Phase::Handshake(_)) {
            return each.max_by_key(|&(_, t)| t);
        }
        each.min_by_key(|&(_, t)| t)
    }

    /// Whether this side entering a running match still waits for the
    /// host's answer (its Hello, or a refusal).
    fn awaits_host_answer(&self) -> bool {
        let Phase::Handshake(hs) = &self.phase else {
            return false;
        };
        if self.cfg.host_back.is_some() {
            // A host coming back awaits the guest's `Resume` (or refusal).
            return self.arrivals.gathered.is_none();
        }
        self.entering() && hs.own_slot.is_none()
    }

    /// Ends the match with `outcome`, telling every peer with `bye` first
    /// (a desync's `Bye` goes only to the players whose hash differs:
    /// those that agree with this side find the difference themselves, in
    /// the hash the differing player sent them, and name the right slot).
    /// The phase's last states stay readable.
    fn end(&mut self, outcome: Outcome, bye: Option<ByeReason>) {
        if self.is_ended() {
            return;
        }
        if self.is_host() && !self.audience.members.is_empty() {
            // The spectators see the match to its last confirmed tick.
            self.end_for_spectators(bye);
        }
        // The match is ending: a rejoin that waits never will be taken.
        for w in self.arrivals.take_all_waiting() {
            let pi = self.peers.iter().position(|p| p.id == w.link);
            self.refuse_rejoin(w.link, pi, RejoinRefusal::HostUnable);
        }
        // A side entering the match that the host has not answered yet
        // says nothing: it does not know which link is the host's, and a
        // player that has not taken it back would take its Bye for the
        // old session's and end its own match.
        let bye = bye.filter(|_| !self.awaits_host_answer());
        if let Some(reason) = bye {
            let only = match (&outcome, reason) {
                (Outcome::Desync { slots, .. }, ByeReason::Desync { .. }) => Some(slots.as_slice()),
                _ => None,
            };
            let msg = Message::<G::Input>::Bye(reason);
            for p in &mut self.peers {
                let told = only.is_none_or(|s| p.slot.is_some_and(|k| s.contains(&k)));
                if told {
                    p.out.send(&msg);
                }
            }
        }
        log::info!("match ended at tick {}: {outcome:?}", self.tick());
        let params = self.phase.params();
        let before = core::mem::replace(
            &mut self.phase,
            Phase::Ended(Ended {
                outcome: outcome.clone(),
                params,
                timeline: None,
            }),
        );
        if let (Phase::Running(run), Phase::Ended(e)) = (before, &mut self.phase) {
            e.timeline = Some(run.timeline);
        }
        self.events.push_back(Event::Ended(outcome));
    }

    /// A peer's hash of a tick differs from ours. With the parts of that
    /// tick, this side sends that peer its part hashes and waits for the
    /// peer's before it ends (see [`crate::parts`]); without, it ends at
    /// once.
    fn end_in_desync(&mut self, now: Millis, d: Differ) {
        let Differ {
            peer,
            tick,
            local,
            remote,
            slots,
        } = d;
        log::error!("desync at tick {tick}: local {local:#018x}, remote {remote:#018x}");
        if let Phase::Running(run) = &mut self.phase {
            if let Some(msg) = run.parts.begin(tick, local, remote, now, &slots) {
                if let Some(p) = self.peers.get_mut(peer) {
                    p.out.send(&Message::<G::Input>::Parts(msg));
                }
                run.parts_with = Some(peer);
                return;
            }
        }
        self.end(
            Outcome::Desync {
                tick,
                local,
                remote,
                parts: DesyncParts::default(),
                slots,
            },
            Some(ByeReason::Desync { tick, hash: local }),
        );
    }

    /// A peer's part hashes of the desync tick: the match ends, naming
    /// the parts that differ.
    fn on_parts(&mut self, pi: usize, p: PartHashes) {
        let tick = p.tick;
        let received = match &mut self.phase {
            Phase::Running(run) if run.parts_with == Some(pi) => run.parts.receive(p),
            _ => Err(tick),
        };
        match received {
            Ok((outcome, bye)) => self.end(outcome, Some(bye)),
            Err(tick) => self.violation(Violation::UnexpectedParts { tick }),
        }
    }

    fn violation(&mut self, violation: Violation) {
        log::warn!("invalid data from a peer: {violation}");
        // A desync found here already ends the match: it stays the outcome
        // (without the peer's parts), whatever a peer sends while this
        // side waits for them.
        if self.give_up_parts(true) {
            return;
        }
        self.end(
            Outcome::InvalidData { violation },
            Some(ByeReason::InvalidData),
        );
    }

    /// Ends a desync that waits for a peer's part hashes without them
    /// (telling the peers with a `Bye` when `tell`). `false` when no desync
    /// waits.
    fn give_up_parts(&mut self, tell: bool) -> bool {
        let Phase::Running(run) = &mut self.phase else {
            return false;
        };
        match run.parts.give_up() {
            Some((outcome, bye)) => {
                self.end(outcome, tell.then_some(bye));
                true
            }
            None => false,
        }
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
        self.end(
            Outcome::VersionMismatch {
                local: Self::local_version(),
                remote: Some(remote),
            },
            Some(ByeReason::VersionMismatch),
        );
    }

    fn check_timeout(&mut self, now: Millis) {
        let handshake = match &mut self.phase {
            Phase::Ended(_) => return,
            Phase::Handshake(_) => true,
            Phase::Running(run) => {
                // A desync whose part hashes did not come in time ends
                // without them (the wait is shorter than the silence
                // timeout).
                if run
                    .parts
                    .deadline(self.cfg.timeout)
                    .is_some_and(|d| now >= d)
                {
                    if let Some((outcome, bye)) = run.parts.give_up() {
                        self.end(outcome, Some(bye));
                        return;
                    }
                }
                false
            }
        };
        if !handshake && self.cfg.rejoin_window > Millis::ZERO && !self.is_spectator() {
            self.check_links(now);
            return;
        }
        let quietest = self.silence_from();
        match self
            .deadlines
            .expired(now, &self.cfg, handshake, quietest.map(|(_, t)| t))
        {
            None => {}
            Some(Expired::Silence(quiet)) => {
                match quietest {
                    Some((id, _)) => log::info!("no datagram on {id} for {} ms", quiet.0),
                    None => log::info!("no link for {} ms", quiet.0),
                }
                self.end(Outcome::Timeout, Some(ByeReason::Timeout));
            }
            Some(Expired::Handshake(since)) => {
                log::info!(
                    "no start {} ms into the handshake (links {}, Hellos received {}, round trips measured {})",
                    since.0,
                    self.peers.len(),
                    self.peers.iter().filter(|p| p.hello.is_some()).count(),
                    self.peers.iter().map(|p| p.rtt_samples.len()).sum::<usize>()
                );
                self.end(Outcome::HandshakeTimeout, Some(ByeReason::HandshakeTimeout));
            }
            Some(Expired::Progress(waited)) => {
                log::info!(
                    "no new input from a peer for {} ms at tick {}",
                    waited.0,
                    self.tick()
                );
                self.end(Outcome::NoProgress, Some(ByeReason::NoProgress));
            }
        }
    }

    // ----- drops and leaves -------------------------------------------------

    /// The running match's deadlines of each link: when a player heard
    /// will count as dropped, when a dropped player's slot stops being
    /// held, and (guest) when the host's change is given up on.
    fn link_deadlines<'a>(&'a self, run: &'a Running<G>) -> impl Iterator<Item = Millis> + 'a {
        let (timeout, host) = (self.cfg.timeout, self.is_host());
        let benches = self.members.bench_deadlines().filter(move |_| host);
        self.peers
            .iter()
            .filter(|p| !p.frozen && p.slot.is_some())
            .filter_map(move |p| {
                let slot = p.slot;
                match p.dropped {
                    None => Some(p.last_heard + self.silence_before_drop(run, p)),
                    Some(d) if !d.ran_out => Some(d.until),
                    Some(d) if !host && run.asked != slot => Some(d.until + timeout),
                    Some(_) => None,
                }
            })
            .chain(benches)
    }

    /// Whether this side benches dropped players: the host, in a game
    /// that plays on while a slot is held.
    fn benches(&self) -> bool {
        self.is_host() && G::plays_on_while_held(self.players())
    }

    /// How long player `p` may stay silent before it is dropped: the
    /// timeout, or (a host that benches, once `p` is playing and holding
    /// the match up) the shorter `bench_after`. Playing: this side holds
    /// inputs of its past the delay's (before its first input a guest may
    /// still be meeting the others, and sends nothing). Holding the match
    /// up: its input is what this side lacks to run its next tick (past
    /// the prediction window in rollback). A player whose inputs are all
    /// in sends little while the match waits for someone else, and is not
    /// the one to bench.
    fn silence_before_drop(&self, run: &Running<G>, p: &Peer) -> Millis {
        let (tick, window) = (run.timeline.tick(), u32::from(run.params.window));
        let holds_up = !p.catching_up
            && p.slot.is_some_and(|s| {
                let have = run.timeline.inputs_of(usize::from(s)).len() as u32;
                have > u32::from(run.params.delay) && have + window <= tick
            });
        match self.cfg.bench_after {
            Some(b) if holds_up && self.benches() => b.min(self.cfg.timeout),
            _ => self.cfg.timeout,
        }
    }

    /// A running match that holds the slots of dropped players: players
    /// silent for the timeout drop, windows that ran out are acted on, and
    /// the progress wait counts only while nobody is held.
    fn check_links(&mut self, now: Millis) {
        for i in 0..self.peers.len() {
            // A link that never said whose it is (a rejoiner's or
            // joiner's link to a page no longer in the match) is no
            // player: its silence holds no slot.
            let silent = self.peers.get(i).is_some_and(|p| {
                let silence = match &self.phase {
                    Phase::Running(run) => self.silence_before_drop(run, p),
                    _ => self.cfg.timeout,
                };
                p.dropped.is_none()
                    && !p.frozen
                    && p.slot.is_some()
                    && now.saturating_since(p.last_heard) >= silence
            });
            if silent {
                self.drop_peer(now, i, false);
            }
        }
        self.drop_stuck(now);
        if self.is_host() {
            // Before a bench could take a slot whose fresh session waits.
            self.take_up_waiting_rejoins(now);
        }
        if self.benches() {
            self.bench_dropped(now);
            if self.bench_ran_out(now) {
                return;
            }
        }
        let Phase::Running(run) = &self.phase else {
            return;
        };
        let holding = run.leaving.is_some()
            || run.asked.is_some()
            || self.peers.iter().any(|p| p.dropped.is_some())
            || self.unmet_slot(run);
        if holding {
            // Waiting on a held slot is not a stuck peer.
            self.deadlines.progressed();
        } else if let Some(waited) = self.deadlines.progress_expired(now, &self.cfg) {
            log::info!(
                "no new input from a peer for {} ms at tick {}",
                waited.0,
                self.tick()
            );
            self.end(Outcome::NoProgress, Some(ByeReason::NoProgress));
            return;
        }
        let due = self.peers.iter().find_map(|p| {
            let d = p.dropped?;
            let grace_over = now >= d.until + self.cfg.timeout;
            (now >= d.until && (!d.ran_out || grace_over)).then_some((p.id, p.slot.unwrap_or(0)))
        });
        if let Some((id, slot)) = due {
            self.window_ran_out(now, id, slot);
        }
    }

    /// Entering: whether a slot of the match is still held for a player
    /// this side has not met (away when this side came back, or not
    /// introduced yet): waiting on it is not a stuck peer.
    fn unmet_slot(&self, run: &Running<G>) -> bool {
        self.entering()
            && (1..run.params.players).any(|s| {
                s != self.side
                    && !run.timeline.is_neutral(usize::from(s))
                    && !self.peers.iter().any(|p| p.slot == Some(s))
            })
    }

    /// A running match stalled for the timeout on the inputs of players
    /// still heard (their link cut one way only: they hear nothing from
    /// this side, or their game froze): their slots are held too, as if
    /// they were silent, rather than the match ending with `NoProgress`
    /// before the window is over.
    fn drop_stuck(&mut self, now: Millis) {
        if self.deadlines.stalled_for(now).is_none() {
            return;
        }
        let Phase::Running(run) = &self.phase else {
            return;
        };
        let (tick, window) = (run.timeline.tick(), u32::from(run.params.window));
        let short = |p: &Peer| {
            p.slot.is_some_and(|s| {
                run.timeline.inputs_of(usize::from(s)).len() as u32 + window <= tick
            })
        };
        // A held slot the match waits on explains the stall, here and on
        // every other side: a player still heard may be stalled on it too
        // (it may lack inputs of the held slot that this side has), and
        // then sends no new input of its own. The count towards taking it
        // for stuck starts once the held slot no longer explains the stall.
        if self.peers.iter().any(|p| p.dropped.is_some() && short(p)) {
            self.deadlines.excuse(now);
            return;
        }
        let stuck: Vec<usize> = (0..self.peers.len())
            .filter(|&i| {
                self.peers
                    .get(i)
                    .is_some_and(|p| p.dropped.is_none() && !p.frozen && short(p))
            })
            .collect();
        let Some(waited) = self.deadlines.stalled_for(now) else {
            return;
        };
        if waited < self.cfg.timeout {
            return;
        }
        for i in stuck {
            if let Some(p) = self.peers.get(i) {
                log::info!("{} heard, but no input from it for {} ms", p.id, waited.0);
            }
            self.drop_peer(now, i, true);
        }
    }

    /// Player `pi`'s link failed or went silent: its slot is held for the
    /// rejoin window.
    fn drop_peer(&mut self, now: Millis, pi: usize, deaf: bool) {
        let window = self.cfg.rejoin_window;
        let Some(p) = self.peers.get_mut(pi) else {
            return;
        };
        if p.dropped.is_some() || p.frozen {
            return;
        }
        let slot = p.slot.unwrap_or(0);
        log::info!(
            "{} (slot {slot}) dropped at tick {}: its slot is held for {} ms",
            p.id,
            self.phase.timeline().map_or(0, Timeline::tick),
            window.0
        );
        p.dropped = Some(Dropped {
            until: now + window,
            announced: window.0 / 1000,
            ran_out: false,
            deaf,
        });
        self.events.push_back(Event::Dropped {
            slot,
            held_for: window,
        });
    }

    /// Dropped player `slot` (on link `id`) did not come back in time: the
    /// match ends, or (three players or more, a game that allows it) the
    /// host orders its slot played with the neutral input.
    fn window_ran_out(&mut self, now: Millis, id: PeerId, slot: u8) {
        // A fresh session of its player that waited is refused as a late
        // one would be.
        self.refuse_waiting(slot, RejoinRefusal::SlotNotHeld);
        // The others and this side, the one that left excepted.
        let remaining = u8::try_from(self.peers.len()).unwrap_or(MAX_PLAYERS);
        let moves = self.host_may_move(slot);
        let plays_on = (slot != self.members.host || moves)
            && remaining >= 2
            && G::plays_on_after_leave(remaining);
        let Phase::Running(run) = &self.phase else {
            return;
        };
        let asked = run.asked;
        // A rejoin of another slot being gathered: this player's old
        // session will never answer for it now.
        let for_rejoin = run
            .leaving
            .as_ref()
            .is_some_and(|l| l.slot != slot && l.rejoin.is_some());
        // A player gone while a join waits for its acknowledgement: the
        // host cannot order a second change before the first is applied.
        let joining = run.entry.is_some();
        let first = self
            .peers
            .iter_mut()
            .find(|p| p.id == id)
            .and_then(|p| p.dropped.as_mut())
            .is_some_and(|d| !core::mem::replace(&mut d.ran_out, true));
        let gave_up = if !plays_on || joining {
            true
        } else if moves && first && self.begin_host_move(now) {
            // The guest acting for the absent host leaves slot 0 and
            // takes the host's place once the others answered.
            false
        } else if self.is_host() {
            if for_rejoin {
                // The rejoin goes ahead without its answer; this slot
                // leaves once it is done.
                self.forget_answer(now, id);
            }
            let leaving = match &self.phase {
                Phase::Running(run) => run.leaving.as_ref().map(|l| l.slot),
                _ => return,
            };
            match leaving {
                None => {
                    self.begin_leave(slot);
                    let complete = match &self.phase {
                        Phase::Running(run) => run.leaving.as_ref().is_some_and(Leaving::complete),
                        _ => false,
                    };
                    if complete {
                        // Nobody to ask: the others' fresh sessions wait.
                        self.finish_leave(now);
                    }
                    false
                }
                // Another player has still to answer for the rejoin:
                // this slot is left at the end of the grace, once that
                // rejoin is done (the match ends if it is not).
                Some(l) => l != slot && !(for_rejoin && first),
            }
        } else {
            // The host orders the change: wait a timeout more for its
            // question, unless it came.
            !first && asked != Some(slot)
        };
        if gave_up {
            log::info!("slot {slot} was not rejoined in time: the match ends");
            self.end(
                Outcome::PlayerLeft { slot },
                Some(ByeReason::PlayerLeft { slot }),
            );
        }
    }

    /// Host: the player on link `id` will not answer for the slot being
    /// gathered (its old session is gone for good); the gathering is
    /// finished if every other answer is in.
    fn forget_answer(&mut self, now: Millis, id: PeerId) {
        let complete = match &mut self.phase {
            Phase::Running(run) => run.leaving.as_mut().is_some_and(|l| {
                l.forget(id);
                l.complete()
            }),
            _ => false,
        };
        if complete {
            self.finish_leave(now);
        }
    }

    /// Host: the player in `slot` is gone for good; every remaining player
    /// is asked which of its inputs it holds.
    fn begin_leave(&mut self, slot: u8) {
        let Phase::Running(run) = &mut self.phase else {
            return;
        };
        let have = run.timeline.inputs_of(usize::from(slot)).len() as u32;
        // A player whose fresh session waits to rejoin is not asked: its
        // old session is gone for good, and the fresh one starts from
        // what the host holds.
        let waits = |p: &Peer| self.arrivals.rejoin_waits(p);
        for p in &mut self.peers {
            if p.slot == Some(slot) {
                p.frozen = true;
            } else if !waits(p) && p.slot.is_some() {
                p.out
                    .send(&Message::<G::Input>::Missing(Missing { slot, have }));
            }
        }
        log::info!("slot {slot} left: asking the others for its inputs past tick {have}");
        let others = self
            .peers
            .iter()
            .filter(|p| p.slot.is_some() && p.slot != Some(slot) && !waits(p))
            .map(|p| p.id);
        run.leaving = Some(Leaving::new(slot, have, others));
    }

    /// Host: every answer is in. The others get the gone player's inputs
    /// they lack, then the change; this side applies it too.
    fn finish_leave(&mut self, now: Millis) {
        let Phase::Running(run) = &mut self.phase else {
            return;
        };
        let Some(leaving) = run.leaving.take() else {
            return;
        };
        let slot = leaving.slot;
        let s = usize::from(slot);
        run.timeline.extend_inputs(s, &leaving.tail);
        let tick = leaving.end();
        run.roster_seq = run.roster_seq.wrapping_add(1).max(1);
        let change = match leaving.rejoin {
            None if leaving.bench => RosterChange::Benched {
                slot,
                // What is left of the slot's window, for the guests'
                // countdowns.
                held_for: self
                    .peers
                    .iter()
                    .find(|p| p.slot == Some(slot))
                    .and_then(|p| p.dropped)
                    .map_or(self.cfg.rejoin_window, |d| d.until.saturating_since(now))
                    .0
                    .try_into()
                    .unwrap_or(u32::MAX),
            },
            // Only the guest acting for an absent host gathers slot 0.
            None if slot == 0 => RosterChange::HostMoved { host: self.side },
            None => RosterChange::Neutral { slot },
            Some((_, token)) => RosterChange::Returned {
                slot,
                proof: rejoin::proof(token, run.params.match_id, slot),
            },
        };
        let change = Message::<G::Input>::Roster(Roster {
            seq: run.roster_seq,
            tick,
            change,
        });
        let all = run.timeline.inputs_of(s);
        for p in &mut self.peers {
            if p.slot == Some(slot) || p.slot.is_none() {
                continue;
            }
            let from = leaving.count_of(p.id).unwrap_or(tick).min(tick);
            let lacking = all.get(from as usize..).unwrap_or(&[]);
            for h in runs(slot, from, lacking, false) {
                p.out.send(&Message::Held(h));
            }
            p.out.send(&change);
        }
        match leaving.rejoin {
            None if leaving.bench => self.apply_bench(now, slot, tick),
            None if slot == 0 => self.apply_host_moved(now, tick, self.side),
            None => self.apply_neutral(slot, tick),
            Some((link, _)) => {
                log::info!("slot {slot} comes back from tick {tick}: the others were told");
                if let Some(t) = self.peers.iter().position(|p| p.slot == Some(slot)) {
                    if self.is_host() {
                        self.accept_rejoin(now, link, t);
                    } else {
                        // The guest acting for the absent host serves its
                        // fresh session the catch-up.
                        self.serve_returning_host(now, link, t);
                    }
                }
            }
        }
    }

    /// From `tick` on nobody drives `slot` here: it plays the game's
    /// absent input ([`DeterministicGame::absent_input`]); its player's
    /// link is forgotten.
    fn apply_neutral(&mut self, slot: u8, tick: u32) {
        let Phase::Running(run) = &mut self.phase else {
            return;
        };
        run.timeline.play_neutral(usize::from(slot));
        if let Some(i) = self.peers.iter().position(|p| p.slot == Some(slot)) {
            let p = self.peers.remove(i);
            self.members.left(p.id);
        }
        log::info!("slot {slot} plays the absent input from tick {tick}: nobody drives it");
        self.events.push_back(Event::Left { slot, tick });
    }

    /// Host, in a game that plays on while a slot is held: a dropped
    /// player's slot is benched. The others are asked for its inputs (as
    /// for a leave), then told to play it neutral from where the longest
    /// stream ends. One slot at a time, and only while every other player
    /// is there to answer.
    fn bench_dropped(&mut self, now: Millis) {
        let Phase::Running(run) = &self.phase else {
            return;
        };
        if run.leaving.is_some() || run.entry.is_some() {
            return;
        }
        // A player whose fresh session waits to rejoin is gone for good
        // as far as the others' slots go: it need not answer for them.
        let away = |p: &Peer| is_away(p) && !self.arrivals.rejoin_waits(p);
        let mut dropped = self.peers.iter().filter(|p| away(p));
        let (Some(p), None) = (dropped.next(), dropped.next()) else {
            return;
        };
        let Some(slot) = p
            .slot
            .filter(|&s| s != 0 && !p.frozen && p.returning.is_none())
        else {
            return;
        };
        if p.dropped.is_some_and(|d| d.ran_out) {
            return;
        }
        // Every other player must answer for the slot's inputs before the
        // bench applies, and a player that goes silent before it answers
        // would hold it up for good. So a player going quiet (silent for
        // half of what drops it) puts the bench off: it is heard again
        // and the bench goes ahead, or it drops too, and with two away
        // the others wait, as in a game that does not bench, until one of
        // them is back.
        let going_quiet = self.peers.iter().any(|q| {
            q.slot.is_some()
                && !is_away(q)
                && now.saturating_since(q.last_heard).0 * 2 >= self.silence_before_drop(run, q).0
        });
        if going_quiet {
            return;
        }
        self.begin_leave(slot);
        let complete = match &mut self.phase {
            Phase::Running(run) => run.leaving.as_mut().is_some_and(|l| {
                l.bench = true;
                l.complete()
            }),
            _ => false,
        };
        log::info!("slot {slot} is benched while held: gathering its inputs first");
        if complete {
            // No other guest to ask (a match of two).
            self.finish_leave(now);
        }
    }

    /// From `tick` on `slot` plays the game's absent input here
    /// ([`DeterministicGame::absent_input`]), and the slot stays its
    /// player's: its link is forgotten (a fresh
    /// session comes back as a newcomer would, with the slot's token),
    /// and `Rejoin`s its fresh session already sent wait for the host's
    /// word.
    fn apply_bench(&mut self, now: Millis, slot: u8, tick: u32) {
        let Phase::Running(run) = &mut self.phase else {
            return;
        };
        run.timeline.play_neutral(usize::from(slot));
        let mut until = now + self.cfg.rejoin_window;
        let mut claims = Vec::new();
        if let Some(i) = self.peers.iter().position(|p| p.slot == Some(slot)) {
            let p = self.peers.remove(i);
            if let Some(d) = p.dropped {
                until = d.until;
            }
            claims = p.claims;
            claims.truncate(MAX_BENCH_CLAIMS);
            self.members.left(p.id);
        }
        self.members.bench(Benched {
            slot,
            tick,
            until,
            claims,
        });
        log::info!("slot {slot} is benched from tick {tick}: it plays the absent input while held");
        self.events.push_back(Event::Benched { slot, tick });
    }

    /// Host: a benched slot whose window ran out is left as a leave would
    /// leave it: the match ends, or (a game that plays on after a leave)
    /// every player is told the slot left for good (it stays neutral, now
    /// free for a joiner). Whether the match ended.
    fn bench_ran_out(&mut self, now: Millis) -> bool {
        let remaining = u8::try_from(self.peers.len() + 1).unwrap_or(MAX_PLAYERS);
        if !self.is_running() {
            return false;
        }
        let Some(b) = self.members.bench_ran_out(now) else {
            return false;
        };
        let slot = b.slot;
        // A fresh session that waited for the slot is refused as a late
        // one would be.
        self.refuse_waiting(slot, RejoinRefusal::SlotNotHeld);
        let Phase::Running(run) = &mut self.phase else {
            return false;
        };
        if remaining < 2 || !G::plays_on_after_leave(remaining) {
            log::info!("benched slot {slot} was not rejoined in time: the match ends");
            self.end(
                Outcome::PlayerLeft { slot },
                Some(ByeReason::PlayerLeft { slot }),
            );
            return true;
        }
        run.roster_seq = run.roster_seq.wrapping_add(1).max(1);
        let change = Message::<G::Input>::Roster(Roster {
            seq: run.roster_seq,
            tick: b.tick,
            change: RosterChange::Neutral { slot },
        });
        // Players only: a returned host's link that never said whose it
        // is has nobody to apply a change.
        for p in self.peers.iter_mut().filter(|p| p.slot.is_some()) {
            p.out.send(&change);
        }
        log::info!("benched slot {slot} was not rejoined in time: it left, the match plays on");
        self.events.push_back(Event::Left { slot, tick: b.tick });
        false
    }

    /// Guest: the host says benched `slot` was not rejoined in time: it
    /// left for good.
    fn on_bench_over(&mut self, pi: usize, r: Roster, slot: u8) {
        let from_host = self.is_host_link(pi);
        let Phase::Running(run) = &mut self.phase else {
            return;
        };
        // The bench's own tick, when this side saw the bench.
        let tick = self.members.bench_tick(slot);
        if !from_host
            || r.seq != run.roster_seq.wrapping_add(1)
            || tick.is_some_and(|t| t != r.tick)
        {
            self.violation(Violation::UnexpectedRoster);
            return;
        }
        run.roster_seq = r.seq;
        self.members.unbench(slot);
        if let Some(host) = self.peers.get_mut(pi) {
            host.out.send(&Message::<G::Input>::RosterAck(r.seq));
        }
        log::info!("benched slot {slot} left for good");
        self.events.push_back(Event::Left { slot, tick: r.tick });
    }

    /// Whether link `pi` leads to the host.
    fn is_host_link(&self, pi: usize) -> bool {
        !self.is_host()
            && self
                .peers
                .get(pi)
                .is_some_and(|p| p.slot == Some(self.members.host))
    }

    /// The host asks which inputs of a gone player this side holds.
    fn on_missing(&mut self, pi: usize, m: Missing) {
        // While the host is away, the acting guest asks about slot 0.
        let from_host = self.is_host_link(pi) || (m.slot == 0 && self.is_acting_link(pi));
        let entering = self.entering();
        let Phase::Running(run) = &mut self.phase else {
            self.violation(Violation::UnexpectedRoster);
            return;
        };
        let s = usize::from(m.slot);
        // Entering, a slot this side has not met is one whose player was
        // away when this side came back: it answers from what the
        // catch-up gave it.
        let known = self.peers.iter().any(|p| p.slot == Some(m.slot))
            || (entering && m.slot != 0 && m.slot < run.params.players);
        if !from_host
            || run.asked.is_some()
            || m.slot == self.side
            || !known
            || run.timeline.is_neutral(s)
        {
            self.violation(Violation::UnexpectedRoster);
            return;
        }
        run.asked = Some(m.slot);
        // Acknowledged before this side answers, so before the host's
        // catch-up for the slot, if one follows: the rejoiner holds these.
        let host_had = self.peers.get(pi).map_or(0, |h| h.sender.acked());
        run.asked_host_had = host_had;
        for p in &mut self.peers {
            if p.slot == Some(m.slot) {
                p.frozen = true;
                p.host_had = host_had;
            }
        }
        let own = run.timeline.inputs_of(s);
        let from = m.have.min(own.len() as u32);
        let answer = runs(m.slot, from, own.get(from as usize..).unwrap_or(&[]), true);
        if let Some(host) = self.peers.get_mut(pi) {
            for h in answer {
                host.out.send(&Message::Held(h));
            }
        }
    }

    /// A run of a gone player's inputs: an answer (host) or the inputs
    /// this side lacks before the change (guest).
    fn on_held(&mut self, now: Millis, pi: usize, h: Held<G::Input>) {
        let from_host = self.is_host_link(pi) || (h.slot == 0 && self.is_acting_link(pi));
        let Phase::Running(run) = &mut self.phase else {
            self.violation(Violation::UnexpectedRoster);
            return;
        };
        let Some(id) = self.peers.get(pi).map(|p| p.id) else {
            return;
        };
        let limit = ahead_limit(run.reach_base(), run.params);
        let s = usize::from(h.slot);
        // The host gathers; so does a guest acting for the absent host
        // (the only gathering a guest makes).
        if self.side == self.members.host || run.leaving.is_some() {
            let Some(leaving) = run.leaving.as_mut() else {
                self.violation(Violation::UnexpectedRoster);
                return;
            };
            match leaving.fold(id, run.timeline.inputs_of(s), &h, limit) {
                Ok(()) if leaving.complete() => self.finish_leave(now),
                Ok(()) => {}
                Err(RunRefused::OutOfTurn) => self.violation(Violation::UnexpectedRoster),
                Err(RunRefused::Conflict(tick)) => {
                    self.violation(Violation::ConflictingInput { tick });
                }
                Err(RunRefused::TooFarAhead(tick)) => {
                    self.violation(Violation::TooFarAhead { tick });
                }
            }
            return;
        }
        let have = run.timeline.inputs_of(s).len() as u32;
        if !from_host || run.asked != Some(h.slot) || h.first_tick != have {
            self.violation(Violation::UnexpectedRoster);
            return;
        }
        // Cannot overflow: the decoder checked first_tick + len <= u32::MAX.
        let stop = h.first_tick + h.pads.len() as u32;
        if stop > limit {
            self.violation(Violation::TooFarAhead { tick: stop });
            return;
        }
        run.timeline.extend_inputs(s, &h.pads);
    }

    /// A membership change from the host.
    fn on_roster(&mut self, now: Millis, pi: usize, r: Roster) {
        let from_host = self.is_host_link(pi);
        // While the host is away, the acting guest orders its return.
        let acting = self.is_acting_link(pi);
        let host_check = self.members.host_check;
        if let (Phase::Handshake(_), RosterChange::Spectators { .. }, true) =
            (&self.phase, r.change, from_host)
        {
            // The host started before this side (it had every Hello
            // while the guests still introduce themselves) and a
            // spectator came: the count applies at the start.
            if !self
                .arrivals
                .keep_early_roster(pi, r, audience::MAX_EARLY_CHANGES)
            {
                self.violation(Violation::UnexpectedRoster);
            }
            return;
        }
        let Phase::Running(run) = &mut self.phase else {
            self.violation(Violation::UnexpectedRoster);
            return;
        };
        // A side that entered the match after a slot was benched knows it
        // only as neutral.
        let benched =
            |slot: u8| self.members.is_benched(slot) || run.timeline.is_neutral(usize::from(slot));
        let (slot, proof, bench) = match r.change {
            RosterChange::Neutral { slot } if benched(slot) => {
                self.on_bench_over(pi, r, slot);
                return;
            }
            RosterChange::Neutral { slot } => (slot, None, false),
            RosterChange::Benched { slot, .. } => (slot, None, true),
            RosterChange::Returned { slot, proof } => (slot, Some(proof), false),
            RosterChange::Joined { slot, proof } => {
                self.on_joined(now, pi, r, slot, proof);
                return;
            }
            RosterChange::HostMoved { host } => {
                self.on_host_moved(now, pi, r, host);
                return;
            }
            RosterChange::Spectators { count } => {
                if !from_host || r.seq != run.roster_seq.wrapping_add(1) {
                    self.violation(Violation::UnexpectedRoster);
                    return;
                }
                run.roster_seq = r.seq;
                run.watchers.change(r.tick, count, run.timeline.tick());
                if let Some(host) = self.peers.get_mut(pi) {
                    host.out.send(&Message::<G::Input>::RosterAck(r.seq));
                }
                return;
            }
        };
        let held = run.timeline.inputs_of(usize::from(slot)).len() as u32;
        let by_acting = acting && slot == 0 && proof.is_some();
        if !(from_host || by_acting)
            || r.seq != run.roster_seq.wrapping_add(1)
            || run.asked != Some(slot)
            || held != r.tick
        {
            self.violation(Violation::UnexpectedRoster);
            return;
        }
        run.roster_seq = r.seq;
        run.asked = None;
        if let Some(host) = self.peers.get_mut(pi).filter(|_| from_host) {
            // The host counts acknowledgements; the acting guest does
            // not (the returned host takes the change's number from its
            // catch-up).
            host.out.send(&Message::<G::Input>::RosterAck(r.seq));
        }
        // Another guest may be one whose old session is gone for good,
        // whether this side noticed (dropped, or its fresh session
        // introduced itself) or not (its link still looks live): the host
        // did not ask it about the slot, and it may have held more of the
        // slot's inputs and hashed ticks from `r.tick` on with them. A
        // hash of those ticks that came before the change is that gone
        // session's, or one of a guest that applied the change before
        // this side; the two cannot be told apart, so no guest's is
        // checked (the host drops the gone session's too): the second
        // loses only a comparison. Hashes that come from now on are
        // checked, a fresh session's once taken back.
        let host = self.members.host;
        for p in &mut self.peers {
            if p.slot != Some(slot) && p.slot != Some(host) {
                p.hashes.forget_from(r.tick);
            }
        }
        if let RosterChange::Benched { held_for, .. } = r.change {
            self.heard_of_bench(slot, held_for);
        }
        match proof {
            None if bench => self.apply_bench(now, slot, r.tick),
            None => self.apply_neutral(slot, r.tick),
            // Each guest checks the returning host against its own
            // check from the old host's Hello, not the acting guest's.
            Some(_) if by_acting => self.apply_returned(now, slot, r.tick, host_check),
            Some(proof) => {
                self.keep_proof(slot, proof);
                self.apply_returned(now, slot, r.tick, proof);
            }
        }
    }

    /// The host took the player in `slot` back from `tick` on: its fresh
    /// session is taken on this side's link to it once it shows the token
    /// whose fingerprint is `proof` (at once if its `Rejoin` came first).
    fn apply_returned(&mut self, now: Millis, slot: u8, tick: u32, proof: u64) {
        let Some(t) = self.peers.iter().position(|p| p.slot == Some(slot)) else {
            self.returned_unmet(now, slot, tick, proof);
            return;
        };
        log::info!("slot {slot} comes back from tick {tick}: waiting for its session");
        let claims = self
            .peers
            .get_mut(t)
            .map(|p| {
                p.returning = Some(proof);
                core::mem::take(&mut p.claims)
            })
            .unwrap_or_default();
        // The newest first: an older one may be a copy its session sent
        // again once back, on a link given up since.
        for (link, token) in claims.into_iter().rev() {
            if self.check_claim(now, link, t, token) {
                break;
            }
        }
    }

    /// Entering: the host took back the player of `slot`, which this side
    /// never met (it was away when this side came back), from `tick` on.
    /// Its fresh session is taken as a newcomer's would be, on the link
    /// whose `Rejoin` shows the token whose fingerprint is `proof`.
    fn returned_unmet(&mut self, now: Millis, slot: u8, tick: u32, proof: u64) {
        let Phase::Running(run) = &mut self.phase else {
            return;
        };
        // What the host had acknowledged when it asked about the slot: it
        // sends the catch-up along with the change, so an acknowledgement
        // that came since may be of inputs the catch-up lacks.
        let host_had = run.asked_host_had;
        self.arrivals.came_back(Newcomer {
            slot,
            proof,
            host_had,
            tick,
            returned: true,
        });
        log::info!("slot {slot} comes back from tick {tick}: waiting for its session");
        let claims = self.arrivals.claims_for(slot);
        self.take_claims(now, slot, claims);
    }

    /// Guest: the fresh sessions that claimed `slot` (each a link and the
    /// token it showed) are taken up as newcomers, now that the slot is
    /// coming back.
    fn take_claims(
        &mut self,
        now: Millis,
        slot: u8,
        claims: impl IntoIterator<Item = (PeerId, u64)>,
    ) {
        for (link, token) in claims {
            self.take_newcomer(
                now,
                link,
                Rejoin {
                    protocol: PROTOCOL_VERSION,
                    build: G::BUILD_ID,
                    slot,
                    token,
                },
            );
        }
    }

    /// Guest: a `Rejoin` on link `link` (`pi` when it is a player's link).
    /// It is taken only on the link to the slot it names (or a new one)
    /// and only once the host said that slot came back, with the token the
    /// host vouched for; anything else is refused and logged, and the
    /// match goes on.
    fn on_rejoin_at_guest(&mut self, now: Millis, link: PeerId, pi: Option<usize>, r: Rejoin) {
        if r.slot == 0 {
            self.on_host_back(now, link, pi, r);
            return;
        }
        let unmet = |s: &Self| {
            s.entering()
                && r.slot != s.side
                && r.slot != 0
                && !s.peers.iter().any(|p| p.slot == Some(r.slot))
                && pi.is_none_or(|i| s.peers.get(i).is_some_and(|p| p.slot.is_none()))
        };
        let Phase::Running(run) = &self.phase else {
            if unmet(self) {
                self.keep_early_claim(link, r);
            } else {
                log::debug!("a rejoin to a guest outside a running match: dropped");
            }
            return;
        };
        let stranger = pi.is_none_or(|i| self.peers.get(i).is_some_and(|p| p.slot.is_none()));
        let awaited = run.newcomer().is_some_and(|n| n.slot == r.slot)
            || self.arrivals.back_in(r.slot).is_some();
        if stranger && awaited {
            self.take_newcomer(now, link, r);
            return;
        }
        let benched = self.members.is_benched(r.slot);
        if stranger
            && !benched
            && r.slot != self.side
            && run.timeline.is_neutral(usize::from(r.slot))
        {
            // A newcomer catching up introduces itself before the host
            // orders its change: kept until the change names its token.
            self.keep_early_claim(link, r);
            return;
        }
        if unmet(self) && !run.timeline.is_neutral(usize::from(r.slot)) {
            self.keep_early_claim(link, r);
            return;
        }
        let bench = self.members.bench_of(r.slot);
        if let Some(b) = bench.filter(|_| pi.is_none()) {
            // A benched player's fresh session: kept until the host's
            // word that it is back (the change names its token).
            b.claims.retain(|c| c.0 != link);
            if b.claims.len() >= MAX_BENCH_CLAIMS {
                b.claims.remove(0);
            }
            b.claims.push((link, r.token));
            log::debug!(
                "a rejoin for benched slot {} on {link} waits for the host's word",
                r.slot
            );
            return;
        }
        let target = self.peers.iter().position(|p| p.slot == Some(r.slot));
        let Some(t) = target.filter(|&t| pi.is_none_or(|i| i == t)) else {
            log::warn!(
                "a rejoin on {link} claims slot {}, which is not that link's: refused",
                r.slot
            );
            return;
        };
        if r.protocol != PROTOCOL_VERSION || r.build != G::BUILD_ID {
            log::info!("a rejoin from another build on {link}: refused");
            return;
        }
        let copy = self.peers.get(t).is_some_and(|p| {
            p.dropped.is_none()
                && !p.frozen
                && p.returning.is_none()
                && pi == Some(t)
                && p.taken_token == Some(r.token)
        });
        if copy {
            // The session this side took back says its Rejoin again (see
            // `introduce_joiner`): kept, it would only stand for a fresh
            // session that is not there.
            log::debug!("slot {} on {link} said its rejoin again: dropped", r.slot);
            return;
        }
        let waiting = self.peers.get_mut(t).is_some_and(|p| {
            if p.returning.is_none() {
                p.keep_claim(link, r.token);
                true
            } else {
                false
            }
        });
        if waiting {
            log::debug!(
                "a rejoin for slot {} on {link} waits for the host's word",
                r.slot
            );
            // Gathering the absent host's inputs: a guest whose page
            // reloaded meanwhile will not answer (see `host_back`).
            if let Some(id) = self
                .peers
                .get(t)
                .filter(|p| host_back::reloaded(p))
                .map(|p| p.id)
            {
                self.forget_answer(now, id);
            }
            return;
        }
        let _taken = self.check_claim(now, link, t, r.token);
    }

    /// Entering: keeps a `Rejoin` on `link` for a slot this side has not
    /// met (its player was away when this side came back, and its own
    /// fresh session asks for it too) until the host's word; the oldest
    /// goes when there are too many.
    fn keep_early_claim(&mut self, link: PeerId, r: Rejoin) {
        if r.protocol != PROTOCOL_VERSION || r.build != G::BUILD_ID {
            log::info!("a rejoin from another build on {link}: refused");
            return;
        }
        self.arrivals.keep_claim(link, r.slot, r.token);
        log::debug!(
            "a rejoin for slot {} on {link} waits for the host's word",
            r.slot
        );
    }

    /// Guest: the host said peer `t`'s player came back; a session on
    /// `link` shows `token`. Whether it was taken as that player.
    fn check_claim(&mut self, now: Millis, link: PeerId, t: usize, token: u64) -> bool {
        let Phase::Running(run) = &self.phase else {
            return false;
        };
        let match_id = run.params.match_id;
        let Some(p) = self.peers.get_mut(t) else {
            return false;
        };
        let (Some(slot), Some(proof)) = (p.slot, p.returning) else {
            return false;
        };
        if rejoin::proof(token, match_id, slot) != proof {
            log::warn!("a rejoin for slot {slot} on {link} shows another token: refused");
            return false;
        }
        if p.id != link {
            self.members.relinked(p.id, link);
            p.id = link;
        }
        // The fresh session got this side's inputs the host held in its
        // catch-up: at least what the host had acknowledged when it asked
        // about the slot, so the stream goes on from there (and from the
        // fresh session's acknowledgement once it comes).
        p.out.clear();
        p.frozen = false;
        p.dropped = None;
        p.returning = None;
        p.claims.clear();
        p.taken_token = Some(token);
        p.last_heard = now;
        p.pinger = ping::Pinger::default();
        p.pinger.start(self.cfg.ping_interval_frames);
        p.time_sync = time_sync::TimeSync::default();
        p.hashes = HashBook::after(0);
        p.sender = sender::Sender::holding(p.host_had);
        p.out.send(&Message::<G::Input>::Member(Member {
            slot: self.side,
            match_id,
        }));
        log::info!("slot {slot} is back on {link}");
        self.deadlines.progressed();
        self.events.push_back(Event::Resumed { slot });
        true
    }

    /// A player applied the host's change `seq`.
    fn on_roster_ack(&mut self, now: Millis, pi: usize, seq: u16) {
        let sent = match &self.phase {
            Phase::Running(run) if self.is_host() => run.roster_seq,
            _ => 0,
        };
        match self.peers.get_mut(pi) {
            Some(p) if seq <= sent && seq == p.roster_acked.wrapping_add(1) => {
                p.roster_acked = seq;
                log::debug!("{} applied membership change {seq}", p.id);
            }
            _ => {
                self.violation(Violation::UnexpectedRoster);
                return;
            }
        }
        self.finish_join_when_applied(now);
    }

    fn on_hello(&mut self, pi: usize, h: crate::wire::Hello) {
        let Phase::Handshake(hs) = &mut self.phase else {
            self.violation(Violation::UnexpectedHello);
            return;
        };
        let Some(peer) = self.peers.get_mut(pi) else {
            return;
        };
        let had_host = hs.own_slot.is_some();
        match hs.on_hello(h, Self::local_version(), &self.cfg, self.side, peer) {
            Ok(startable) => {
                if h.players != 0 && self.side != 0 {
                    // Kept to check the host's fresh session if it comes
                    // back after a reload, and (should the host's place
                    // move here) every returning player's token.
                    self.members.heard_hello(h.side, h.host_proof, h.proofs);
                }
                if !had_host && self.side != 0 {
                    if let Err(v) = self.joined() {
                        self.violation(v);
                        return;
                    }
                    if self.entering() {
                        self.arrivals.gathered = Some(Gathered::new(h.players));
                    }
                    if self.cfg.rejoin_as.is_none() && h.rejoin_token != 0 {
                        self.members.token = Some(h.rejoin_token);
                    }
                    if self.entering() {
                        // A rejoiner's first Rejoin may have reached a
                        // player that was away then (or still in the old
                        // session's place): it says it again.
                        self.introduce_joiner(pi);
                    }
                }
                if startable && self.all_hellos() {
                    self.start();
                }
            }
            Err(HelloRefused::BadSlot(slot)) => self.violation(Violation::SlotClaimed { slot }),
            Err(HelloRefused::Unexpected) => self.violation(Violation::UnexpectedHello),
            Err(HelloRefused::Mismatch(remote)) => self.version_mismatch(remote),
            Err(HelloRefused::SideConflict(remote_side)) => {
                self.violation(Violation::SideConflict { remote_side });
            }
        }
    }

    /// A guest just learned its slot and the match from the host's Hello:
    /// it introduces itself to every other link and checks the
    /// introductions that came before.
    fn joined(&mut self) -> Result<(), Violation> {
        let Phase::Handshake(hs) = &self.phase else {
            return Ok(());
        };
        let Some(slot) = hs.own_slot else {
            return Ok(());
        };
        let params = hs.params;
        self.side = slot;
        let member = Message::<G::Input>::Member(Member {
            slot,
            match_id: params.match_id,
        });
        // A rejoiner's (or joiner's) introduction to the other guests is
        // its Rejoin.
        if !self.entering() {
            for p in &mut self.peers {
                if p.slot != Some(0) {
                    p.out.send(&member);
                }
            }
        }
        for i in 0..self.peers.len() {
            let pending = self.peers.get_mut(i).and_then(|p| p.member.take());
            if let Some(m) = pending {
                self.admit(i, m, params)?;
            }
        }
        Ok(())
    }

    /// Checks another guest's introduction on link `pi` and gives the
    /// link its slot.
    fn admit(&mut self, pi: usize, m: Member, params: Params) -> Result<(), Violation> {
        if m.match_id != params.match_id {
            return Err(Violation::OtherMatch);
        }
        let taken = m.slot == self.side
            || m.slot >= params.players
            || self
                .peers
                .iter()
                .enumerate()
                .any(|(i, p)| i != pi && p.slot == Some(m.slot));
        if taken {
            return Err(Violation::SlotClaimed { slot: m.slot });
        }
        if let Some(p) = self.peers.get_mut(pi) {
            p.slot = Some(m.slot);
        }
        Ok(())
    }

    /// Another guest's introduction (see [`Member`]).
    fn on_member(&mut self, pi: usize, m: Member) {
        if self.entering() {
            self.on_member_rejoining(pi, m);
            return;
        }
        let Phase::Handshake(hs) = &self.phase else {
            self.violation(Violation::UnexpectedMember);
            return;
        };
        let (known, params) = (hs.own_slot.is_some(), hs.params);
        let Some(peer) = self.peers.get_mut(pi) else {
            return;
        };
        // Only between guests, once per link, after the link's Hello.
        if self.side == 0 || peer.hello.is_none() || peer.slot.is_some() || peer.member.is_some() {
            self.violation(Violation::UnexpectedMember);
            return;
        }
        if !known {
            // The host's Hello has not come yet: checked when it does.
            peer.member = Some(m);
            return;
        }
        match self.admit(pi, m, params) {
            Ok(()) => {
                if self.all_hellos() {
                    self.start();
                }
            }
            Err(v) => self.violation(v),
        }
    }

    /// Rejoining: a guest that took this side back on its link says who it
    /// is (before or after the catch-up). Checked like any introduction,
    /// once the host's Hello told the match.
    fn on_member_rejoining(&mut self, pi: usize, m: Member) {
        let host_back = self.cfg.host_back.is_some();
        let params = match &self.phase {
            // A host coming back checks the guests' introductions once
            // its catch-up replayed: until then only the guest serving it
            // has a slot, and only it may send catch-up messages.
            Phase::Handshake(_) if host_back => None,
            Phase::Handshake(hs) => hs.own_slot.map(|_| hs.params),
            Phase::Running(run) => Some(run.params),
            Phase::Ended(_) => return,
        };
        let Some(peer) = self.peers.get_mut(pi) else {
            return;
        };
        if (self.side == 0 && !host_back) || peer.slot.is_some() || peer.member.is_some() {
            self.violation(Violation::UnexpectedMember);
            return;
        }
        let Some(params) = params else {
            // The host's Hello has not come yet: checked when it does.
            peer.member = Some(m);
            return;
        };
        match self.admit(pi, m, params) {
            Ok(()) => log::info!(
                "{} took this side back: it plays slot {}",
                self.peers.get(pi).map_or(PeerId(0), |p| p.id),
                m.slot
            ),
            Err(v) => self.violation(v),
        }
    }

    /// Every Hello is in (and the host's round trips measured): the match
    /// starts with the handshake's parameters.
    fn start(&mut self) {
        let Phase::Handshake(hs) = &mut self.phase else {
            // Unreachable: only the handshake starts a match.
            debug_assert!(false, "start outside the handshake");
            return;
        };
        let params = hs.params;
        let timeline = Timeline::new(
            params.seed,
            params.players,
            self.side,
            params.delay,
            params.window,
            params.hash_interval,
        );
        self.phase = Phase::Running(Running::new(params, timeline, 0));
        self.delay = DelayTuner::new(params.delay);
        for p in &mut self.peers {
            p.sender = sender::Sender::new(params.delay);
            p.pinger.start(self.cfg.ping_interval_frames);
        }
        for (pi, r) in self.arrivals.take_early_roster() {
            self.on_roster(Millis::ZERO, pi, r);
        }
        log::info!(
            "match started: side {}, input delay {}, prediction window {}, hash every {} ticks",
            self.side,
            params.delay,
            params.window,
            params.hash_interval
        );
        self.events.push_back(Event::Started {
            side: self.side,
            seed: params.seed,
            input_delay: params.delay,
        });
    }

    fn on_inputs(&mut self, now: Millis, pi: usize, m: Inputs<G::Input>) {
        let Phase::Running(run) = &mut self.phase else {
            log::debug!("inputs before the match started: dropped");
            return;
        };
        let Some(peer) = self.peers.get_mut(pi) else {
            return;
        };
        let Some(slot) = peer.slot.map(usize::from) else {
            // Unreachable: a match starts only with every peer's Hello.
            debug_assert!(false, "a running peer without a slot");
            return;
        };
        if peer.frozen {
            log::debug!("inputs from a player leaving the match: dropped");
            return;
        }
        // Validate everything before changing anything.
        let sent = run.timeline.local().len() as u32;
        if m.ack > sent {
            self.violation(Violation::AckBeyondSent { ack: m.ack, sent });
            return;
        }
        let have = run.timeline.inputs_of(slot).len() as u32;
        if m.first_tick > have {
            self.violation(Violation::InputGap {
                expected: have,
                first: m.first_tick,
            });
            return;
        }
        // Cannot overflow: the decoder checked first_tick + len <= u32::MAX.
        let end = m.first_tick + m.pads.len() as u32;
        // A player that just entered starts its inputs at the change's
        // tick, which may lie ahead of this side's present.
        let from = run.reach_base().max(peer.enters_at);
        if end > ahead_limit(from, run.params) {
            self.violation(Violation::TooFarAhead { tick: end });
            return;
        }
        let overlap = (have - m.first_tick) as usize;
        let start = m.first_tick as usize;
        let remote = run.timeline.inputs_of(slot);
        // Ticks before a saved state this side started from hold
        // placeholders, not inputs: nothing there to conflict with.
        let base = run.timeline.base() as usize;
        let conflict = m
            .pads
            .iter()
            .take(overlap)
            .enumerate()
            .find(|&(i, pad)| start + i >= base && remote.get(start + i) != Some(pad));
        if let Some((i, _)) = conflict {
            self.violation(Violation::ConflictingInput {
                tick: m.first_tick + i as u32,
            });
            return;
        }
        if let Some(new) = m.pads.get(overlap..).filter(|p| !p.is_empty()) {
            run.timeline.extend_inputs(slot, new);
            peer.catching_up = false;
            peer.time_sync.heard_inputs();
            self.deadlines.progressed();
            if peer.dropped.is_some_and(|d| d.deaf) {
                // Its inputs flow again: the way back in for a player
                // that was heard all along.
                peer.dropped = None;
                log::info!(
                    "{} (slot {slot}) sends inputs again: the match resumes",
                    peer.id
                );
                self.events.push_back(Event::Resumed { slot: slot as u8 });
            }
        }
        peer.sender.on_ack(m.ack);
        if let Some(a) = m.advantage {
            peer.time_sync.remote_advantage(a);
        }
        if let Some(id) = m.ping {
            self.on_ping(now, pi, id);
        }
        if let Some(p) = m.pong {
            self.on_pong(now, pi, p);
        }
    }

    fn on_ping(&mut self, now: Millis, pi: usize, id: u16) {
        let Some(peer) = self.peers.get_mut(pi) else {
            return;
        };
        match self.phase {
            Phase::Running(_) => peer.pinger.owe_pong(id, now),
            // The host measures the round trip before the match: answer at
            // once (one pong per ping, nothing kept).
            Phase::Handshake(_) => peer
                .out
                .send(&Message::<G::Input>::Pong(Pong { id, held_ms: 0 })),
            Phase::Ended(_) => {}
        }
    }

    fn on_pong(&mut self, now: Millis, pi: usize, p: Pong) {
        let Some(peer) = self.peers.get_mut(pi) else {
            return;
        };
        let Some(rtt) = peer.pinger.on_pong(now, p) else {
            log::debug!("pong for an unknown ping: dropped");
            return;
        };
        peer.last_rtt = Some(rtt);
        self.stats.last_rtt = Some(rtt);
        match &mut self.phase {
            Phase::Handshake(hs) => hs.on_round_trip(rtt, &self.cfg, self.side, peer),
            Phase::Running(_) => self.delay.round_trip(rtt),
            _ => {}
        }
        self.events.push_back(Event::RoundTrip(rtt));
    }

    fn on_hash(&mut self, now: Millis, pi: usize, h: HashReport) {
        // A peer can hash a tick only once it has every Hello. A host
        // that picks its delay from the round trip starts half a round
        // trip after sending its Hello, so a guest (whose Hello came
        // first on this ordered channel) may already be hashing: keep its
        // hashes for comparison, as during the match.
        let none_yet = LocalHashes::default();
        let entering = self.entering();
        let (mut running, params, base, last_hashed) = match &mut self.phase {
            Phase::Running(run) => (
                Some((&mut run.parts, &mut run.local)),
                run.params,
                // `reach_base`, borrowing only these fields.
                run.timeline.tick().max(run.returns_at),
                run.timeline.last_hashed(),
            ),
            // A peer that started before this side hashes early.
            Phase::Handshake(hs)
                if !hs.probing(&self.cfg, self.side)
                    && self.peers.get(pi).is_some_and(|p| p.hello.is_some()) =>
            {
                (None, hs.params, 0, 0)
            }
            // Entering a running match: a guest that took this side back
            // (or in) may hash before the host's Hello reached this side.
            // Its hashes are for ticks this side checks against the host's
            // catch-up anyway.
            _ if entering => {
                log::debug!("a state hash before the host's Hello while entering: dropped");
                return;
            }
            _ => {
                self.violation(Violation::HashBeforeHello);
                return;
            }
        };
        let Some(peer) = self.peers.get_mut(pi) else {
            return;
        };
        let limit = ahead_limit(base, params);
        let ours = running.as_ref().map_or(&none_yet, |(_, local)| &**local);
        let compared = peer
            .hashes
            .record_remote(h, params.hash_interval, limit, last_hashed, ours);
        let last_remote = compared_by_all(&self.peers);
        if let Some((parts, local)) = running.as_mut() {
            if parts.waiting() {
                // A desync already waits for a peer's part hashes.
                return;
            }
            if !matches!(compared, Ok(Some(Comparison::Differ { .. }))) {
                // Our hashes, and their parts, of ticks compared by every
                // peer are done.
                local.forget_upto(last_remote);
                parts.forget_upto(last_remote);
            }
        }
        match compared {
            Err(v) => self.violation(v),
            Ok(None) => {}
            Ok(Some(Comparison::Matched(t))) => {
                log::debug!("state hashes agree at tick {t}");
                self.events.push_back(Event::HashMatched(t));
            }
            Ok(Some(Comparison::Differ {
                tick,
                local,
                remote,
            })) => {
                let slots = self
                    .peers
                    .get(pi)
                    .and_then(|p| p.slot)
                    .into_iter()
                    .collect();
                self.end_in_desync(
                    now,
                    Differ {
                        peer: pi,
                        tick,
                        local,
                        remote,
                        slots,
                    },
                );
            }
        }
    }

    /// Whether a `Bye` on link `pi` ends this side's match. Entering (a
    /// rejoiner or a joiner), a link that never said whose it is may lead
    /// to a page no longer in the match, or to a player that has not
    /// taken this side back and speaks to the old session: its `Bye` is
    /// nobody's in this match. Only a refusal counts from such a link,
    /// while this side awaits the host's answer: the host's link is not
    /// known before its Hello, and only the host refuses.
    fn bye_counts(&self, pi: usize, reason: ByeReason) -> bool {
        let unmet = self.entering() && self.peers.get(pi).is_some_and(|p| p.slot.is_none());
        let refusal = matches!(
            reason,
            ByeReason::RejoinRefused(_) | ByeReason::VersionMismatch
        );
        !unmet || (refusal && self.awaits_host_answer())
    }

    /// Entering: link `pi`, which never said whose it is, said `Bye`
    /// (see [`bye_counts`](Self::bye_counts)): it is forgotten, the match
    /// goes on. Anything more on it is taken as on a link that just
    /// opened.
    fn close_unmet_link(&mut self, pi: usize, reason: ByeReason) {
        if pi >= self.peers.len() {
            return;
        }
        let p = self.peers.remove(pi);
        log::info!(
            "{} said Bye ({reason:?}) without ever saying whose it is: only that link closes",
            p.id
        );
        if let Phase::Running(run) = &mut self.phase {
            run.parts_with = run.parts_with.map(|i| if i > pi { i - 1 } else { i });
        }
        self.arrivals.peer_removed(pi);
    }

    fn on_bye(&mut self, pi: usize, reason: ByeReason) {
        // A peer ended the match while this side waits for part hashes:
        // the desync found here is the outcome, without them.
        if self.give_up_parts(false) {
            return;
        }
        match reason {
            ByeReason::Quit => self.end(Outcome::RemoteQuit, None),
            ByeReason::Timeout => self.end(Outcome::Timeout, None),
            ByeReason::HandshakeTimeout => self.end(Outcome::HandshakeTimeout, None),
            ByeReason::NoProgress => self.end(Outcome::NoProgress, None),
            ByeReason::PlayerLeft { slot } => self.end(Outcome::PlayerLeft { slot }, None),
            ByeReason::RejoinRefused(why) => {
                log::info!("the host refused the rejoin: {why:?}");
                self.end(Outcome::RejoinRefused { why }, None);
            }
            // Only a spectator is refused a watch.
            ByeReason::WatchRefused(_) => self.violation(Violation::UnexpectedWatch),
            ByeReason::InvalidData => self.end(
                Outcome::InvalidData {
                    violation: Violation::RejectedByPeer,
                },
                None,
            ),
            ByeReason::VersionMismatch => {
                // A running match has the peer's version: our own.
                let remote = match &self.phase {
                    Phase::Handshake(_) => self.peers.get(pi).and_then(|p| p.hello),
                    _ => Some(Self::local_version()),
                };
                self.end(
                    Outcome::VersionMismatch {
                        local: Self::local_version(),
                        remote,
                    },
                    None,
                );
            }
            ByeReason::Desync { tick, hash } => {
                let local = match &self.phase {
                    Phase::Running(run) => run.local.get(tick),
                    _ => None,
                };
                match local {
                    Some(local) => {
                        log::error!(
                            "desync reported by a peer at tick {tick}: local {local:#018x}, remote {hash:#018x}"
                        );
                        self.end(
                            Outcome::Desync {
                                tick,
                                local,
                                remote: hash,
                                parts: DesyncParts::default(),
                                slots: self
                                    .peers
                                    .get(pi)
                                    .and_then(|p| p.slot)
                                    .into_iter()
                                    .collect(),
                            },
                            None,
                        );
                    }
                    None => self.violation(Violation::UnknownDesyncTick { tick }),
                }
            }
        }
    }

    /// Once per running frame, after the tick: this frame's Inputs packet
    /// to each peer, unless it waits for the send interval or is held back.
    fn flush_unreliable(&mut self, now: Millis, stalled: bool) {
        let Phase::Running(run) = &mut self.phase else {
            return;
        };
        let window = run.params.window;
        let quiet_turn = self
            .stats
            .frames
            .is_multiple_of(u64::from(self.cfg.ping_interval_frames));
        for peer in &mut self.peers {
            if peer.frozen || peer.slot.is_none() || (peer.dropped.is_some() && !quiet_turn) {
                // A dropped player's link gets one packet per ping
                // interval: enough for it to hear us when it comes back.
                continue;
            }
            let view = peer_view(run, peer);
            let lost = peer.pinger.losses();
            let travel = travel_ticks(peer.last_rtt);
            let peer_tick = peer.time_sync.peer_tick_estimate(view);
            let due = peer.sender.due(&self.cfg, window, |s| {
                s.inputs_urgent(&self.cfg, lost, peer_tick, travel, window)
            });
            let keep_alive = stalled && peer.dropped.is_none() && peer.sender.quiet_while_stalled();
            if !due {
                if keep_alive {
                    let msg = peer
                        .sender
                        .keep_alive(run.timeline.local(), view.remote_inputs);
                    if let Some(msg) = msg {
                        peer.out.send(&msg);
                    }
                }
                continue;
            }
            let ping = peer
                .pinger
                .match_ping(now, self.cfg.ping_interval_frames, peer.last_rtt);
            let pong = peer.pinger.take_pong(now);
            let advantage = if window > 0 {
                peer.time_sync.report()
            } else {
                None
            };
            let extras = Extras {
                ack: view.remote_inputs,
                ping,
                pong,
                advantage,
            };
            let msg = match peer.sender.packet(run.timeline.local(), extras) {
                None if keep_alive => peer
                    .sender
                    .keep_alive(run.timeline.local(), view.remote_inputs),
                msg => msg,
            };
            if let Some(msg) = msg {
                peer.out.send(&msg);
            }
        }
    }
}

// ----- rejoin after a reload -----------------------------------------------
impl<G: DeterministicGame> Session<G> {
    /// A datagram on a link the running match does not know. Only a fresh
    /// session's `Rejoin` is taken; anything else is dropped.
    fn on_stranger(&mut self, now: Millis, link: PeerId, channel: Channel, bytes: &[u8]) {
        match Message::<G::Input>::decode(bytes) {
            Ok(Message::Rejoin(r)) if channel == Channel::Reliable => {
                self.on_rejoin(now, link, None, r);
            }
            Ok(Message::Watch(w)) if channel == Channel::Reliable && self.is_host() => {
                self.on_stranger_watch(now, link, w);
            }
            Ok(Message::Join(j)) if channel == Channel::Reliable && self.side == 0 => {
                self.on_join(now, link, j);
            }
            Ok(Message::JoinReady(tick)) if channel == Channel::Reliable => {
                self.on_join_ready(now, link, None, tick);
            }
            Ok(Message::Bye(_))
                if channel == Channel::Reliable && self.admission_given_up(link) => {}
            Ok(Message::Join(_)) if channel == Channel::Reliable && self.is_host() => {
                // A host whose place moved here holds no entropy to give
                // a newcomer a token (see `migrate.rs`).
                self.refuse_rejoin(link, None, RejoinRefusal::HostUnable);
            }
            Ok(Message::Bye(r)) if channel == Channel::Reliable && self.waits_on(link) => {
                self.rejoin_given_up(link, r);
            }
            Ok(_) => log::debug!("{link} is not in the match and did not rejoin: dropped"),
            Err(e) => log::debug!("undecodable datagram from {link}, not in the match: {e}"),
        }
    }

    /// A `Rejoin` on link `link` (`pi` when it is a player's link): the
    /// host checks it against the slot it holds and takes the player
    /// back, keeps it waiting until what blocks it clears (see
    /// [`rejoin_verdict`](Self::rejoin_verdict)), or refuses it on that
    /// link alone. Guests take no rejoins.
    fn on_rejoin(&mut self, now: Millis, link: PeerId, pi: Option<usize>, r: Rejoin) {
        if !self.is_host() {
            self.on_rejoin_at_guest(now, link, pi, r);
            return;
        }
        if !self.is_running() {
            if self.cfg.host_back.is_some() && r.slot != 0 && !self.is_ended() {
                // A guest whose page reloaded while this host was away:
                // heard once this host has the match back.
                self.keep_early_claim(link, r);
                return;
            }
            self.refuse_rejoin(link, pi, RejoinRefusal::HostUnable);
            return;
        }
        let mut pi = pi;
        if let Some(i) = pi.filter(|&i| self.peers.get(i).is_some_and(|p| p.slot.is_none())) {
            // A returned host's link that never said whose it is (the
            // page of a player benched or away when the host came back):
            // a stranger's, whose request is heard as such.
            self.peers.remove(i);
            pi = None;
        }
        if pi.is_none() && self.away_when_back(&r) {
            // That player's old session went while this host was away:
            // its slot is held from now, and the request is heard as on
            // the slot's own link.
            let mut p = Peer::new(link, now);
            p.slot = Some(r.slot);
            if let Phase::Running(run) = &self.phase {
                p.roster_acked = run.roster_seq;
            }
            self.peers.push(p);
            let i = self.peers.len() - 1;
            self.drop_peer(now, i, false);
            pi = Some(i);
        }
        if let Some(p) = pi.and_then(|i| self.peers.get(i)) {
            if p.slot != Some(r.slot) {
                if p.dropped.is_some() {
                    self.refuse_rejoin(link, pi, RejoinRefusal::WrongToken);
                } else {
                    self.violation(Violation::UnexpectedRejoin);
                }
                return;
            }
        }
        if r.protocol != PROTOCOL_VERSION || r.build != G::BUILD_ID {
            log::info!("rejoin from another build on {link}: refused");
            let bye = Message::<G::Input>::Bye(ByeReason::VersionMismatch);
            self.outbox_for(link, pi).send(&bye);
            return;
        }
        if pi.is_none() && self.members.is_benched(r.slot) {
            self.rejoin_benched(now, link, r);
            return;
        }
        let verdict = self.rejoin_verdict(pi, &r);
        if let Some(p) = pi.and_then(|i| self.peers.get_mut(i)) {
            // A fresh session speaks on the player's own link: the old one
            // is gone, and what was queued for it would only confuse the
            // new one.
            p.out.clear();
            if verdict != Verdict::Take && p.dropped.is_none() {
                if let Some(i) = pi {
                    self.drop_peer(now, i, false);
                }
            }
        }
        self.act_on_rejoin(now, link, pi, r, verdict);
    }

    /// Returned host: whether `r` asks, with its right token, for a slot
    /// still played by a guest this host never met since it came back
    /// (not benched, not left): that guest's page was away too.
    fn away_when_back(&self, r: &Rejoin) -> bool {
        let (Phase::Running(run), Some(e)) = (&self.phase, self.cfg.rejoin_entropy) else {
            return false;
        };
        let unmet = self.cfg.host_back.is_some()
            && r.slot != 0
            && r.slot < run.params.players
            && !run.timeline.is_neutral(usize::from(r.slot))
            && !self.members.is_benched(r.slot)
            && !self.peers.iter().any(|p| p.slot == Some(r.slot));
        unmet && rejoin::token(e, run.params.match_id, r.slot, self.members.seat(r.slot)) == r.token
    }

    /// Host, running: what to do with `Rejoin` `r` for a slot a `Peer`
    /// holds (on that peer's link when `pi` names it). Refused at once
    /// when it cannot succeed; kept waiting (and checked again each
    /// frame) while another player is away or a change is under way.
    fn rejoin_verdict(&self, pi: Option<usize>, r: &Rejoin) -> Verdict {
        let Phase::Running(run) = &self.phase else {
            return Verdict::Refuse(RejoinRefusal::HostUnable);
        };
        let target = self.peers.iter().position(|p| p.slot == Some(r.slot));
        let Some((t, p)) = target.and_then(|t| self.peers.get(t).map(|p| (t, p))) else {
            return Verdict::Refuse(RejoinRefusal::SlotNotHeld);
        };
        // A slot being benched right now is still its player's: the
        // request waits for the bench and is then taken up as a benched
        // slot's.
        let benching = p.frozen
            && run
                .leaving
                .as_ref()
                .is_some_and(|l| l.slot == r.slot && l.bench);
        let held = (!p.frozen || benching)
            && !p.dropped.is_some_and(|d| d.ran_out)
            && !run.timeline.is_neutral(usize::from(r.slot));
        if !held {
            return Verdict::Refuse(RejoinRefusal::SlotNotHeld);
        }
        if self.cfg.rejoin_window == Millis::ZERO {
            return Verdict::Refuse(RejoinRefusal::HostUnable);
        }
        if let Err(why) = self.check_token(run.params.match_id, r) {
            return Verdict::Refuse(why);
        }
        if pi != Some(t) && p.dropped.is_none() {
            return Verdict::Refuse(RejoinRefusal::SlotLive);
        }
        if benching {
            return Verdict::Wait;
        }
        // With three players or more the others must all be there to
        // hand over what they hold of the slot, and no other change may
        // be under way. (Slots playing the neutral input are fine: the
        // catch-up says which they are.) A player away only because its
        // old session is gone and its own fresh session waits is no
        // obstacle: nothing is asked of a gone session, and the fresh one
        // starts from the host's record. Such rejoins are taken one at a
        // time, in the order they came; the next once the one before is
        // back and can answer for the next slot like any player.
        let others_away = self
            .peers
            .iter()
            .enumerate()
            .any(|(i, p)| i != t && is_away(p) && !self.arrivals.only_rejoining(p));
        // A returned host has not met every guest yet: one that has not
        // taken it back would miss the change.
        let unmet = self.cfg.host_back.is_some()
            && (1..run.params.players).any(|s| {
                s != r.slot
                    && !run.timeline.is_neutral(usize::from(s))
                    && !self.members.is_benched(s)
                    && !self.peers.iter().any(|p| p.slot == Some(s))
            });
        if others_away || unmet || run.leaving.is_some() || run.entry.is_some() {
            return Verdict::Wait;
        }
        let earlier = self
            .arrivals
            .waiting_before(r.slot)
            .any(|s| self.peers.iter().any(|p| p.slot == Some(s)));
        if earlier {
            return Verdict::Wait;
        }
        Verdict::Take
    }

    /// Host: carries out `verdict` on `Rejoin` `r` on `link` (`pi` when
    /// it is a player's link) for a slot a `Peer` holds.
    fn act_on_rejoin(
        &mut self,
        now: Millis,
        link: PeerId,
        pi: Option<usize>,
        r: Rejoin,
        verdict: Verdict,
    ) {
        let target = self.peers.iter().position(|p| p.slot == Some(r.slot));
        match (verdict, target) {
            (Verdict::Wait, Some(t)) => self.wait_for_rejoin(now, link, r, Some(t)),
            (Verdict::Take, Some(t)) => {
                self.arrivals.take_waiting(r.slot);
                if self.peers.len() > 1 {
                    self.gather_for_rejoin(now, link, r);
                } else {
                    self.accept_rejoin(now, link, t);
                }
            }
            (Verdict::Refuse(why), _) => self.refuse_rejoin(link, pi, why),
            (_, None) => self.refuse_rejoin(link, pi, RejoinRefusal::SlotNotHeld),
        }
    }

    /// Host: `Rejoin` `r` on `link` waits (see [`WaitingRejoin`]); it
    /// takes the place of an earlier one for the same slot. For a slot a
    /// `Peer` holds (`t`), the old session is gone for good from now on:
    /// the peer moves to `link` (the old link is forgotten), and a
    /// gathering under way no longer waits for the old session's answer.
    fn wait_for_rejoin(&mut self, now: Millis, link: PeerId, r: Rejoin, t: Option<usize>) {
        let Phase::Running(run) = &mut self.phase else {
            return;
        };
        if let Some(old) = self.arrivals.wait(link, r) {
            if old.link != link {
                log::info!(
                    "a newer rejoin for slot {} on {link} takes the place of the one on {}",
                    r.slot,
                    old.link
                );
            }
        }
        log::info!(
            "rejoin of slot {} on {link} waits: another player is away or a change is under way",
            r.slot
        );
        let Some(p) = t.and_then(|t| self.peers.get_mut(t)) else {
            return;
        };
        let old = p.id;
        if old != link {
            self.members.relinked(old, link);
            p.id = link;
            p.out.clear();
        }
        // The hashes the old session sent and nobody compared yet are
        // not checked: it may have confirmed ticks with inputs that a
        // change made meanwhile plays otherwise.
        p.hashes = HashBook::after(p.hashes.last_remote_tick());
        let complete = run.leaving.as_mut().is_some_and(|l| {
            l.forget(old);
            l.complete()
        });
        if complete {
            self.finish_leave(now);
        }
    }

    /// Host, once per check: the rejoins that wait are checked again, in
    /// the order they came; each one whose obstacle cleared is taken up
    /// (or refused, if it can no longer succeed).
    fn take_up_waiting_rejoins(&mut self, now: Millis) {
        let mut k = 0;
        loop {
            let Some(w) = self.arrivals.waiting_at(k) else {
                return;
            };
            let pi = self.peers.iter().position(|p| p.id == w.link);
            let benched = pi.is_none() && self.members.is_benched(w.rejoin.slot);
            let verdict = if benched {
                self.benched_verdict(&w.rejoin)
            } else {
                self.rejoin_verdict(pi, &w.rejoin)
            };
            if verdict == Verdict::Wait {
                k += 1;
                continue;
            }
            self.arrivals.remove_waiting(k);
            log::info!(
                "the rejoin of slot {} on {} waited: {verdict:?}",
                w.rejoin.slot,
                w.link
            );
            match verdict {
                Verdict::Take if benched => {
                    self.begin_join(now, w.link, w.rejoin.slot, true, None);
                }
                Verdict::Refuse(why) if benched => self.refuse_rejoin(w.link, None, why),
                _ => self.act_on_rejoin(now, w.link, pi, w.rejoin, verdict),
            }
        }
    }

    /// Host: the fresh session whose rejoin waits on `link` said `Bye`
    /// (it gave up): its request goes, the match goes on and the slot
    /// stays held as before.
    fn rejoin_given_up(&mut self, link: PeerId, r: ByeReason) {
        log::info!("the rejoin waiting on {link} was given up: {r:?}");
        self.arrivals.forget_waiting_on(link);
    }

    /// Host: whether a rejoin waits on `link`.
    fn waits_on(&self, link: PeerId) -> bool {
        self.arrivals.waits_on(link)
    }

    /// Host: the rejoin that waits for `slot`, if any, is refused with
    /// `why` (its slot's window ran out, say).
    fn refuse_waiting(&mut self, slot: u8, why: RejoinRefusal) {
        let Some(w) = self.arrivals.take_waiting(slot) else {
            return;
        };
        let pi = self.peers.iter().position(|p| p.id == w.link);
        self.refuse_rejoin(w.link, pi, why);
    }

    /// Host, each running frame: the link of each rejoin that waits gets
    /// a `Ping` every ping interval, a keep-alive the fresh session does
    /// not answer (it says nothing but its `Rejoin` until taken back) but
    /// that keeps it from taking the wait for silence.
    fn keep_waiting_rejoiners(&mut self) {
        let every = u32::from(self.cfg.ping_interval_frames);
        let mut due = self.arrivals.keep_alive_due(every);
        // A rejoin taken up whose inputs are being gathered waits too,
        // for as long as the slowest player takes to answer (one silent
        // but not dropped yet may take until it is heard again).
        let gathering = match &self.phase {
            Phase::Running(run) => run.leaving.as_ref().and_then(|l| l.rejoin),
            _ => None,
        };
        if let Some((link, _)) = gathering {
            if self.stats.frames.is_multiple_of(u64::from(every)) {
                due.push(link);
            }
        }
        for link in due {
            let pi = self.peers.iter().position(|p| p.id == link);
            self.outbox_for(link, pi)
                .send(&Message::<G::Input>::Ping(0));
        }
    }

    /// Host: a fresh session on `link` asks for benched slot `r.slot`
    /// back. With the slot's token it is taken back as a late join is
    /// (the change at a tick ahead, the catch-up once every player
    /// applied it), the slot's token unchanged; it waits while that
    /// cannot start yet; else it is refused on that link alone.
    fn rejoin_benched(&mut self, now: Millis, link: PeerId, r: Rejoin) {
        let Phase::Running(run) = &self.phase else {
            return;
        };
        if run.joining().is_some_and(|j| j.link == link) {
            log::debug!("{link} asked again for the slot it is being given back: dropped");
            return;
        }
        match self.benched_verdict(&r) {
            Verdict::Refuse(why) => self.refuse_rejoin(link, None, why),
            Verdict::Wait => self.wait_for_rejoin(now, link, r, None),
            Verdict::Take => {
                self.arrivals.take_waiting(r.slot);
                self.begin_join(now, link, r.slot, true, None);
            }
        }
    }

    /// Host: what to do with `Rejoin` `r` for a benched slot.
    fn benched_verdict(&self, r: &Rejoin) -> Verdict {
        let Phase::Running(run) = &self.phase else {
            return Verdict::Refuse(RejoinRefusal::HostUnable);
        };
        if let Err(why) = self.check_token(run.params.match_id, r) {
            return Verdict::Refuse(why);
        }
        // Every player must apply the change before the catch-up goes (a
        // player away cannot, nor one whose fresh session waits), one
        // change at a time.
        if run.leaving.is_some() || run.entry.is_some() || self.peers.iter().any(is_away) {
            return Verdict::Wait;
        }
        Verdict::Take
    }

    /// Host, three players or more: before the player of slot `r.slot` rejoins on
    /// `link`, the others are asked for its inputs past the host's (as for
    /// a leave), so its fresh session starts where the longest stream
    /// anyone holds ends and no one holds an input it would not send.
    fn gather_for_rejoin(&mut self, now: Millis, link: PeerId, r: Rejoin) {
        self.begin_leave(r.slot);
        let complete = match &mut self.phase {
            Phase::Running(run) => run.leaving.as_mut().is_some_and(|l| {
                l.rejoin = Some((link, r.token));
                l.complete()
            }),
            _ => false,
        };
        log::info!(
            "slot {} rejoins on {link}: gathering its inputs first",
            r.slot
        );
        if complete {
            // Nobody else to ask (the others' fresh sessions wait too).
            self.finish_leave(now);
        }
    }

    /// The queue of link `link`: a player's (`pi`), or a stranger's.
    fn outbox_for(&mut self, link: PeerId, pi: Option<usize>) -> &mut Outbox {
        if let Some(i) = pi.filter(|&i| i < self.peers.len()) {
            return &mut self.peers[i].out;
        }
        self.members.stranger_out(link)
    }

    /// Host: tells the session on `link` why it cannot rejoin; nothing
    /// else changes.
    fn refuse_rejoin(&mut self, link: PeerId, pi: Option<usize>, why: RejoinRefusal) {
        log::info!("rejoin on {link} refused: {why:?}");
        let bye = Message::<G::Input>::Bye(ByeReason::RejoinRefused(why));
        self.outbox_for(link, pi).send(&bye);
    }

    /// Host: the player of held slot `t` is back on `link` with a fresh
    /// session. It gets its Hello, every slot's inputs so far and the hash
    /// of the confirmed state; its stream starts again from there.
    fn accept_rejoin(&mut self, now: Millis, link: PeerId, t: usize) {
        self.send_catch_up(now, link, t, false);
    }

    /// Host: the player of slot `t` (back, or `joined` anew) gets the
    /// host's Hello and the catch-up on `link`; see
    /// [`accept_rejoin`](Self::accept_rejoin).
    fn send_catch_up(&mut self, now: Millis, link: PeerId, t: usize, joined: bool) {
        let Phase::Running(run) = &self.phase else {
            return;
        };
        let slot = self.peers.get(t).and_then(|p| p.slot).unwrap_or(0);
        let hello = if self.side == 0 {
            host_hello::<G::Input>(
                &run.params,
                &self.cfg,
                G::BUILD_ID,
                slot,
                self.members.seats(),
            )
        } else {
            self.moved_host_hello(slot)
        };
        let Some((tick, count)) = self.catch_up_on(now, link, t, hello, true) else {
            return;
        };
        if joined {
            log::info!("slot {slot} joined on {link}: catch-up of {count} messages to tick {tick}");
        } else {
            log::info!("slot {slot} rejoined on {link}: catch-up of {count} runs to tick {tick}");
            self.events.push_back(Event::Resumed { slot });
        }
    }

    /// The fresh session of the player at peer `t` is taken on `link`:
    /// what this side keeps for it starts again from this side's
    /// confirmed tick (its queue, pings, time sync, hash book, and an
    /// outgoing stream holding every input of ours), and it gets `first`
    /// (the host's Hello, or a guest's `Resume` for a returning host),
    /// then every slot's inputs this side holds (for a game that saves
    /// its state, the state and the inputs since) and `CatchUp` with the
    /// confirmed tick and hash. `entering`: a player entering as a guest
    /// (it is not benched while its catch-up crosses, and follows the
    /// roster from the catch-up's number). Returns the tick and how many
    /// messages the catch-up took.
    fn catch_up_on(
        &mut self,
        now: Millis,
        link: PeerId,
        t: usize,
        first: Message<G::Input>,
        entering: bool,
    ) -> Option<(u32, usize)> {
        self.catch_up_from(now, link, t, Some(first), entering, 0)
    }

    /// As [`catch_up_on`](Self::catch_up_on), with `first` sent only when
    /// given, and with `from` past 0 for a receiver that holds the match
    /// up to tick `from` already (a newcomer's second catch-up): only the
    /// inputs from there go, no saved state.
    fn catch_up_from(
        &mut self,
        now: Millis,
        link: PeerId,
        t: usize,
        first: Option<Message<G::Input>>,
        entering: bool,
        from: u32,
    ) -> Option<(u32, usize)> {
        let Phase::Running(run) = &mut self.phase else {
            return None;
        };
        // A game that saves its state sends it instead of the inputs
        // before it (a receiver that holds the match up to `from` needs
        // neither).
        let (state, end) = run.catch_up_parts(from == 0)?;
        let tick = end.tick;
        let p = self.peers.get_mut(t)?;
        if p.id != link {
            self.members.relinked(p.id, link);
            p.id = link;
        }
        let interval = u32::from(run.params.hash_interval.max(1));
        p.out.clear();
        p.dropped = None;
        p.frozen = false;
        p.last_heard = now;
        p.hello = Some(Self::local_version());
        p.pinger = ping::Pinger::default();
        p.pinger.start(self.cfg.ping_interval_frames);
        p.time_sync = time_sync::TimeSync::default();
        p.hashes = HashBook::after(tick - tick % interval);
        p.sender = sender::Sender::holding(run.timeline.local().len() as u32);
        if entering {
            p.catching_up = true;
            // The fresh session follows the changes from the catch-up's
            // number.
            p.roster_acked = run.roster_seq;
        }
        if let Some(first) = first {
            p.out.send(&first);
        }
        let players = run.timeline.players();
        let all: Vec<&[G::Input]> = (0..players).map(|s| run.timeline.inputs_of(s)).collect();
        let count = rejoin::send_catch_up_from(&mut p.out, &all, state, end, from);
        self.deadlines.progressed();
        Some((tick, count))
    }

    /// Whether a catch-up message on link `pi` is one this side awaits:
    /// rejoining, from the host, after its Hello.
    fn awaits_catch_up(&self, pi: usize) -> bool {
        let from = if self.cfg.host_back.is_some() {
            // A host coming back: from the guest whose `Resume` came.
            self.peers.get(pi).is_some_and(|p| p.slot.is_some())
        } else {
            self.is_host_link(pi)
        };
        self.arrivals.gathered.is_some() && from
    }

    /// Rejoining: one run of the host's catch-up.
    fn on_catch_up_run(&mut self, pi: usize, r: &CatchUpRun<G::Input>) {
        if !self.awaits_catch_up(pi) {
            self.violation(Violation::BadCatchUp);
            return;
        }
        let folded = self.arrivals.gathered.as_mut().map(|g| g.fold(r));
        if let Some(Err(e)) = folded {
            log::warn!("catch-up run refused: {e:?}");
            self.violation(Violation::BadCatchUp);
        }
    }

    /// Rejoining: one piece of the host's saved state.
    fn on_saved_state(&mut self, pi: usize, piece: &SavedState) {
        if !self.awaits_catch_up(pi) {
            self.violation(Violation::BadCatchUp);
            return;
        }
        let folded = self.arrivals.gathered.as_mut().map(|g| g.fold_state(piece));
        if let Some(Err(e)) = folded {
            log::warn!("saved state piece refused: {e:?}");
            self.violation(Violation::BadCatchUp);
        }
    }

    /// Whether `timeline`, replayed from a catch-up, stands at the host's
    /// tick with the host's hash; if not, the session ends with
    /// [`Violation::CatchUpHashMismatch`].
    fn caught_up_to(&mut self, timeline: &Timeline<G>, c: &CatchUp) -> bool {
        let local = timeline.game().state_hash();
        if timeline.tick() == c.tick && local == c.hash {
            return true;
        }
        log::error!(
            "catch-up to tick {} replays to {local:#018x}, the host had {:#018x}",
            c.tick,
            c.hash
        );
        self.violation(Violation::CatchUpHashMismatch {
            tick: c.tick,
            local,
            remote: c.hash,
        });
        false
    }

    /// Rejoining: the end of the host's catch-up. This side replays it,
    /// checks the host's hash and plays on live.
    fn on_catch_up(&mut self, now: Millis, pi: usize, c: CatchUp) {
        if !self.awaits_catch_up(pi) {
            self.violation(Violation::BadCatchUp);
            return;
        }
        let Phase::Handshake(hs) = &self.phase else {
            self.violation(Violation::BadCatchUp);
            return;
        };
        let params = hs.params;
        let Some(g) = self.arrivals.gathered.take() else {
            return;
        };
        // Every slot reaches the tick, and none further than an honest
        // host can hold; a saved state is whole and not past the tick.
        let base = g.base();
        let state_whole = g.state.as_ref().is_none_or(|s| s.complete());
        // A joiner's first catch-up comes before the change: its own slot
        // is neutral then, and only then.
        let first = self.cfg.join_as.is_some() && self.arrivals.join_ready.is_none();
        // Neutral slots are other players' slots of this match.
        let slots = (1u16 << params.players.min(MAX_PLAYERS)) - 1;
        let own_neutral = u16::from(c.neutral) & 1 << self.side != 0;
        let neutral_fits = u16::from(c.neutral) & !slots == 0 && own_neutral == first;
        // A joiner's own slot reaches the tick the host ordered the
        // change at, a lead past its present (see `begin_join`).
        // So does a benched player coming back, taken back as a joiner is.
        let reach =
            ahead_limit(ahead_limit(c.tick, params), params).saturating_add(JOIN_LEAD_TICKS);
        if c.tick > g.shortest()
            || g.longest() > reach
            || base > c.tick
            || !state_whole
            || !neutral_fits
        {
            log::warn!(
                "catch-up to tick {} with inputs from {} to {} ticks (from tick {base})",
                c.tick,
                g.shortest(),
                g.longest()
            );
            self.violation(Violation::BadCatchUp);
            return;
        }
        // What a second catch-up's runs from this tick will follow.
        let kept = first.then(|| g.up_to(c.tick));
        let fresh = Timeline::<G>::new(
            params.seed,
            params.players,
            self.side,
            params.delay,
            params.window,
            params.hash_interval,
        );
        let timeline = match g.state {
            None => fresh.caught_up(g.inputs, c.tick),
            Some(state) => {
                let Some(game) = G::load(&state.bytes) else {
                    log::warn!(
                        "the host's saved state ({} bytes) does not load",
                        state.bytes.len()
                    );
                    self.violation(Violation::BadCatchUp);
                    return;
                };
                fresh.caught_up_from(game, state.bytes, state.tick, g.inputs, c.tick)
            }
        };
        if !self.caught_up_to(&timeline, &c) {
            return;
        }
        if let Some(kept) = kept {
            self.ready_to_join(pi, kept, c.tick);
            return;
        }
        let held = timeline.local().len() as u32;
        let mut timeline = timeline;
        // Slot 0 too, once the host's place moved to a guest.
        for s in (0..params.players).filter(|&s| c.neutral & 1 << s != 0) {
            timeline.play_neutral(usize::from(s));
        }
        let mut run = Running::new(params, timeline, c.roster);
        run.returns_at = held;
        self.delay = DelayTuner::new(params.delay);
        run.watchers = SpectatorCount::from_changes(&c.spectators, c.tick);
        self.phase = Phase::Running(run);
        for p in &mut self.peers {
            p.sender = sender::Sender::holding(held);
            p.pinger.start(self.cfg.ping_interval_frames);
            p.last_heard = p.last_heard.max(now);
            // A host coming back orders the changes from the guest's
            // last one on.
            p.roster_acked = c.roster;
        }
        if self.cfg.host_back.is_some() {
            // The slots benched when the old host left stay their
            // players' for a window counted from now (the old host's
            // deadlines are gone with it).
            let (mask, ticks) = core::mem::take(&mut self.arrivals.bench_back);
            for slot in (1..params.players).filter(|s| mask & 1 << s != 0) {
                self.members.bench(Benched {
                    slot,
                    tick: ticks.get(usize::from(slot)).copied().unwrap_or(0),
                    until: now + self.cfg.rejoin_window,
                    claims: Vec::new(),
                });
            }
            // The other guests that took this side back already.
            for i in 0..self.peers.len() {
                let pending = self.peers.get_mut(i).and_then(|p| p.member.take());
                if let Some(m) = pending {
                    if let Err(v) = self.admit(i, m, params) {
                        self.violation(v);
                        return;
                    }
                }
            }
        }
        if self.arrivals.join_ready.is_some() {
            // Said again, now that every player applied the change (the
            // first may have reached a player before its host's word and
            // been dropped).
            self.introduce_joiner(pi);
        }
        if self.side == 0 && c.spectators.last().is_some_and(|&(_, n)| n > 0) {
            // The old host's spectators watched it alone and are gone
            // with it: every member reads the count fall to 0.
            self.order_spectator_count();
        }
        self.deadlines.progressed();
        log::info!(
            "entered slot {} at tick {}: the catch-up replays to the host's hash",
            self.side,
            c.tick
        );
        self.events.push_back(Event::Started {
            side: self.side,
            seed: params.seed,
            input_delay: params.delay,
        });
        self.events.push_back(match self.cfg.join_as {
            // Its own inputs count from the tick the host ordered.
            Some(_) => Event::Joined {
                slot: self.side,
                tick: held,
            },
            None => Event::Rejoined { tick: c.tick },
        });
        if self.side == 0 {
            // A returned host: the guests who reloaded while it was away
            // and asked before it ran are heard now.
            for (link, slot, token) in self.arrivals.take_claims() {
                let r = Rejoin {
                    protocol: PROTOCOL_VERSION,
                    build: G::BUILD_ID,
                    slot,
                    token,
                };
                let pi = self.peers.iter().position(|p| p.id == link);
                self.on_rejoin(now, link, pi, r);
            }
        }
    }
}

/// What this side knows of `peer`'s progress in a running match.
fn peer_view<G: DeterministicGame>(run: &Running<G>, peer: &Peer) -> PeerView {
    let slot = peer.slot.map_or(usize::MAX, usize::from);
    PeerView {
        remote_inputs: run.timeline.inputs_of(slot).len() as u32,
        delay: run.params.delay,
        travel: travel_ticks(peer.last_rtt),
        surely_held: peer.sender.surely_held(),
        window: run.params.window,
    }
}

/// The furthest tick an honest peer's inputs or hashes can reach when this
/// side is at `tick`.
fn ahead_limit(tick: u32, params: Params) -> u32 {
    let delay = if params.window == 0 {
        params.delay.max(MAX_ADAPTIVE_DELAY)
    } else {
        params.delay
    };
    tick.saturating_add(2 * u32::from(delay))
        .saturating_add(u32::from(params.window))
        .saturating_add(AHEAD_SLACK)
}

// ----- late join into a free slot ------------------------------------------
impl<G: DeterministicGame> Session<G> {
    /// Host: a `Join` on link `link`, which the match does not know. The
    /// newcomer is let into a free slot, or refused on that link alone
    /// (logged at warn), the match untouched.
    fn on_join(&mut self, now: Millis, link: PeerId, j: Join) {
        if j.protocol != PROTOCOL_VERSION || j.build != G::BUILD_ID {
            log::info!("a join from another build on {link}: refused");
            let bye = Message::<G::Input>::Bye(ByeReason::VersionMismatch);
            self.outbox_for(link, None).send(&bye);
            return;
        }
        if let Phase::Running(run) = &self.phase {
            let admitted = self.arrivals.admitting.is_some_and(|a| a.link == link);
            if admitted || run.joining().is_some_and(|jn| jn.link == link) {
                log::debug!("{link} asked again for the slot it is being given: dropped");
                return;
            }
        }
        match self.free_slot(j.slot) {
            Ok(slot) => self.admit_newcomer(now, link, slot),
            Err(why) => {
                log::warn!("a join on {link} refused: {why:?}");
                let bye = Message::<G::Input>::Bye(ByeReason::RejoinRefused(why));
                self.outbox_for(link, None).send(&bye);
            }
        }
    }

    /// Host: the slot a newcomer asking for `asked` (0: any) may take, or
    /// why none.
    fn free_slot(&self, asked: u8) -> Result<u8, RejoinRefusal> {
        let Phase::Running(run) = &self.phase else {
            return Err(RejoinRefusal::HostUnable);
        };
        let players = run.params.players;
        if !G::takes_joiners(players) {
            return Err(RejoinRefusal::NoJoiners);
        }
        let away = |p: &Peer| p.dropped.is_some() || p.frozen || p.returning.is_some();
        let benched = |s: u8| self.members.is_benched(s);
        let neutral = |s: u8| run.timeline.is_neutral(usize::from(s)) && !benched(s);
        let slot = if asked == 0 {
            match (1..players).find(|&s| neutral(s)) {
                Some(s) => s,
                None if self.peers.iter().any(away) || self.members.any_benched() => {
                    return Err(RejoinRefusal::SlotHeld)
                }
                None => return Err(RejoinRefusal::NoFreeSlot),
            }
        } else if let Some(p) = self.peers.iter().find(|p| p.slot == Some(asked)) {
            return Err(if away(p) {
                RejoinRefusal::SlotHeld
            } else {
                RejoinRefusal::SlotLive
            });
        } else if asked < players && neutral(asked) {
            asked
        } else if benched(asked) {
            return Err(RejoinRefusal::SlotHeld);
        } else {
            return Err(RejoinRefusal::NoFreeSlot);
        };
        // Every player must apply the change before the newcomer's
        // catch-up goes (a player away cannot), one change at a time, and
        // the newcomer must be able to come back (a token needs the
        // entropy).
        let busy = self.cfg.rejoin_entropy.is_none()
            || run.leaving.is_some()
            || run.entry.is_some()
            || self.arrivals.admitting.is_some()
            || self.members.seat(slot) == u8::MAX
            || self.peers.iter().any(away);
        if busy {
            return Err(RejoinRefusal::HostUnable);
        }
        Ok(slot)
    }

    /// Host: the newcomer on `link` takes free `slot`. Every player is
    /// told (`Roster { Joined }`) that the slot plays the newcomer's
    /// inputs from a tick past every input this side sent; the newcomer's
    /// catch-up goes once they all applied it.
    ///
    /// `back`: the slot's benched player returns (its token unchanged).
    /// `from`: a newcomer that replayed a first catch-up to this tick (see
    /// `join.rs`): its second catch-up starts there.
    fn begin_join(&mut self, now: Millis, link: PeerId, slot: u8, back: bool, from: Option<u32>) {
        let Phase::Running(run) = &mut self.phase else {
            return;
        };
        let entropy = self.cfg.rejoin_entropy.filter(|_| self.side == 0);
        if entropy.is_none() && !(back && self.side == self.members.host) {
            // Only slot 0's host can give a newcomer a token; a host whose
            // place moved here takes back a benched player with its own.
            return;
        }
        let s = usize::from(slot);
        // No player holds an input of this side's for this tick or later
        // (none is sampled until every player applied the change), so none
        // made a tick from it final with the neutral input. Past the delay
        // and two ticks, the change is set far enough ahead for what must
        // happen before the players reach it: the change to the guests,
        // their acknowledgements back, the second (short) catch-up to the
        // newcomer, the others' inputs to it and its first inputs to
        // everyone: three of the worst round trips this side knows, and
        // two lost pieces sent again. Nearer, every player would stall at
        // it until the newcomer's inputs came; the newcomer, meanwhile,
        // runs faster than one tick a frame to its present.
        let rtt = self
            .peers
            .iter()
            .filter_map(|p| p.last_rtt)
            .max()
            .unwrap_or(Millis(100));
        // A benched player coming back gets its whole catch-up after the
        // change, as before the two-step join: its lead is kept as it was.
        let (lead_ms, most) = if from.is_some() {
            let ms = rtt.0.saturating_mul(3).saturating_add(JOIN_LEAD_SPARE.0);
            (ms, JOIN_LEAD_TICKS)
        } else {
            let ms = (rtt.0.saturating_mul(5) / 2).saturating_add(BACK_LEAD_SPARE.0);
            (ms, BACK_LEAD_TICKS)
        };
        let lead = lead_ms
            .saturating_mul(3)
            .div_ceil(MS_PER_3_TICKS)
            .min(u64::from(most));
        let tick = (run.timeline.local().len() as u32)
            .saturating_add(u32::from(self.delay.current()))
            .saturating_add(2)
            .saturating_add(u32::try_from(lead).unwrap_or(JOIN_LEAD_TICKS));
        // A newcomer's token is the next seat's (it was given it with its
        // first catch-up); a benched player keeps its own.
        let seat = self.members.seat(slot).saturating_add(u8::from(!back));
        self.members.set_seat(slot, seat);
        let proof = match entropy {
            Some(e) => {
                let token = rejoin::token(e, run.params.match_id, slot, seat);
                rejoin::proof(token, run.params.match_id, slot)
            }
            // The check the old host's Hello gave: the token is unchanged.
            None => self.members.proof(slot),
        };
        run.roster_seq = run.roster_seq.wrapping_add(1).max(1);
        let seq = run.roster_seq;
        let change = Message::<G::Input>::Roster(Roster {
            seq,
            tick,
            change: RosterChange::Joined { slot, proof },
        });
        for p in self.peers.iter_mut().filter(|p| p.slot.is_some()) {
            p.out.send(&change);
        }
        run.timeline.take_neutral_slot(s, tick);
        run.entry = Some(Entry::Joining(Joining {
            slot,
            link,
            tick,
            seq,
            back,
            from: from.unwrap_or(0),
        }));
        self.members.drop_stranger(link);
        if back {
            self.members.unbench(slot);
            log::info!(
                "benched slot {slot} is back on {link} from tick {tick}: telling the others"
            );
            self.events.push_back(Event::Unbenched { slot, tick });
        } else {
            log::info!(
                "a new player on {link} takes slot {slot} from tick {tick}: telling the others"
            );
            self.events.push_back(Event::Joined { slot, tick });
        }
        self.finish_join_when_applied(now);
    }

    /// Host: once every player applied the join change, the newcomer gets
    /// the host's Hello (its slot and token) and the catch-up.
    fn finish_join_when_applied(&mut self, now: Millis) {
        let Phase::Running(run) = &mut self.phase else {
            return;
        };
        let Some(j) = run.joining() else {
            return;
        };
        // Acknowledgements come in order, so one at or past the change's
        // number covers it (later spectator changes may follow it).
        let applied = self
            .peers
            .iter()
            .filter(|p| p.slot.is_some())
            .all(|p| p.roster_acked.wrapping_sub(j.seq) < 0x8000);
        if !applied {
            return;
        }
        run.entry = None;
        self.members.forget_gone(j.link);
        // A returned host may have opened the link before it knew whose
        // it was.
        self.peers.retain(|p| p.id != j.link || p.slot.is_some());
        let mut peer = Peer::new(j.link, now);
        peer.slot = Some(j.slot);
        peer.enters_at = j.tick;
        self.peers.push(peer);
        let t = self.peers.len() - 1;
        match (!j.back).then_some(j.from) {
            // It holds the match up to `from`: the rest only.
            Some(from) => {
                if let Some((tick, count)) = self.catch_up_from(now, j.link, t, None, true, from) {
                    log::info!(
                        "slot {} joined on {}: second catch-up of {count} messages from tick {from} to {tick}",
                        j.slot,
                        j.link
                    );
                }
            }
            None => self.send_catch_up(now, j.link, t, !j.back),
        }
    }

    /// Guest: the host let a new player into free `slot` from tick
    /// `r.tick` on; its session is taken once it shows up with the token
    /// whose fingerprint is `proof`.
    fn on_joined(&mut self, now: Millis, pi: usize, r: Roster, slot: u8, proof: u64) {
        let from_host = self.is_host_link(pi);
        let host_had = self.peers.get(pi).map_or(0, |h| h.sender.acked());
        let taken = self.peers.iter().any(|p| p.slot == Some(slot));
        let Phase::Running(run) = &mut self.phase else {
            self.violation(Violation::UnexpectedRoster);
            return;
        };
        // A join's change is set a lead further ahead than others.
        let reach = ahead_limit(ahead_limit(run.reach_base(), run.params), run.params)
            .saturating_add(JOIN_LEAD_TICKS);
        if !from_host
            || r.seq != run.roster_seq.wrapping_add(1)
            || run.asked.is_some()
            || run.entry.is_some()
            || taken
            || !run.timeline.is_neutral(usize::from(slot))
            || r.tick < run.timeline.confirmed_tick()
            || r.tick > reach
        {
            self.violation(Violation::UnexpectedRoster);
            return;
        }
        run.roster_seq = r.seq;
        run.timeline.take_neutral_slot(usize::from(slot), r.tick);
        self.members.keep_proof(slot, proof);
        run.entry = Some(Entry::Newcomer(Newcomer {
            slot,
            proof,
            host_had,
            tick: r.tick,
            returned: false,
        }));
        if let Some(host) = self.peers.get_mut(pi) {
            host.out.send(&Message::<G::Input>::RosterAck(r.seq));
        }
        let Some(bench) = self.members.unbench(slot) else {
            log::info!(
                "a new player takes slot {slot} from tick {}: waiting for its session",
                r.tick
            );
            self.events.push_back(Event::Joined { slot, tick: r.tick });
            // Its session introduced itself while it caught up, most
            // likely; the newest claim first.
            let claims = self.arrivals.claims_for(slot);
            self.take_claims(now, slot, claims);
            return;
        };
        let claims = bench.claims;
        log::info!(
            "benched slot {slot} is back from tick {}: waiting for its session",
            r.tick
        );
        self.events
            .push_back(Event::Unbenched { slot, tick: r.tick });
        // Its fresh session may have introduced itself already.
        self.take_claims(now, slot, claims);
    }

    /// Guest: the new player's session introduces itself on `link` with
    /// `r`; taken when its token matches the host's fingerprint.
    fn take_newcomer(&mut self, now: Millis, link: PeerId, r: Rejoin) {
        let Phase::Running(run) = &mut self.phase else {
            return;
        };
        let pending = run.newcomer().filter(|n| n.slot == r.slot);
        let Some(n) = pending.or_else(|| self.arrivals.back_in(r.slot)) else {
            return;
        };
        let match_id = run.params.match_id;
        let same_build = r.protocol == PROTOCOL_VERSION && r.build == G::BUILD_ID;
        if !same_build || rejoin::proof(r.token, match_id, n.slot) != n.proof {
            log::warn!(
                "a session on {link} claims new slot {} with another token or build: refused",
                n.slot
            );
            return;
        }
        if n.returned {
            self.arrivals.seen_back(n.slot);
        } else {
            run.entry = None;
        }
        self.members.welcome(link);
        self.arrivals.forget_claims(n.slot);
        // A link open before that never said whose it was becomes the
        // player's.
        self.peers.retain(|p| p.id != link || p.slot.is_some());
        let mut p = Peer::new(link, now);
        p.slot = Some(n.slot);
        p.enters_at = n.tick;
        p.taken_token = Some(r.token);
        p.hello = Some(Self::local_version());
        p.pinger.start(self.cfg.ping_interval_frames);
        p.hashes = HashBook::after(0);
        // The host's catch-up held at least these of this side's inputs.
        p.sender = sender::Sender::holding(n.host_had);
        p.out.send(&Message::<G::Input>::Member(Member {
            slot: self.side,
            match_id,
        }));
        self.peers.push(p);
        if n.returned {
            log::info!("slot {} is back on {link}", n.slot);
            self.events.push_back(Event::Resumed { slot: n.slot });
        } else {
            log::info!("the new player of slot {} is on {link}", n.slot);
        }
        self.deadlines.progressed();
    }

    /// Joiner or rejoiner: the host (on link `host`) let this side in; it
    /// introduces itself to every other player with its slot and token
    /// (they check it against the host's fingerprint).
    fn introduce_joiner(&mut self, host: usize) {
        let Some(token) = self.members.token else {
            return;
        };
        let rejoin = Message::<G::Input>::Rejoin(Rejoin {
            protocol: PROTOCOL_VERSION,
            build: G::BUILD_ID,
            slot: self.side,
            token,
        });
        for (i, p) in self.peers.iter_mut().enumerate() {
            if i != host {
                p.out.send(&rejoin);
            }
        }
    }
}
