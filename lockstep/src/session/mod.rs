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
//! * `delay.rs`: the input delay that follows the round trips;
//! * `sender.rs`: the outgoing queue and the per-frame Inputs packet;
//! * `ping.rs`: round trips, lost pings and the pong owed;
//! * `deadlines.rs`: silence, the handshake's deadline, the progress wait;
//! * `members.rs`: who holds which slot with which token, the host's
//!   slot, the benched slots, the links of players that left and the
//!   links outside the match owed an answer;
//! * `arrivals.rs`: players on their way in: rejoins that wait on the
//!   host, the newcomer it admits, and what an entering side gathers and
//!   keeps (the catch-up, early claims and changes) until it runs;
//! * `roster.rs`: the records of dropped players, held slots and the
//!   membership changes the host orders;
//! * `rejoin.rs`: rejoin tokens, and the catch-up the host sends a player
//!   back from a reload and that player gathers;
//! * `audience.rs`: the host's spectators (admitting them, their paced
//!   stream of confirmed inputs and hashes) and the spectator count every
//!   member reads;
//! * `watcher.rs`: a spectator's side (its catch-up, the confirmed ticks
//!   played at its watch delay, the host's hashes checked);
//! * `outcome.rs`: what the session reports (events, frames, outcomes).
//!
//! The session's own work is spread over files by job, each an `impl` of
//! [`Session`]; this file keeps the calling contract (the public methods),
//! the phases and the timeouts:
//!
//! * `start.rs`: the host's Hello taken, guests meeting, the start;
//! * `frame.rs`: the running frame;
//! * `match_watch.rs`: the watch on the timeline that sends and compares
//!   final ticks' hashes;
//! * `received.rs`: which link a datagram belongs to, and the inputs,
//!   pings, hashes and `Bye`s of the match;
//! * `drops.rs`: silent players dropped, slots benched, leaves;
//! * `changes.rs`: membership changes applied, and the claims of returning
//!   or new players' sessions a guest checks against them;
//! * `take_back.rs`: the host taking a player back after a reload;
//! * `catching_up.rs`: an entering side replaying its catch-up;
//! * `join.rs`: a late join into a free slot, and a benched player's
//!   return;
//! * `host_back.rs`: a host back from a reload: the guests check its
//!   token and one serves it the catch-up (with three players or more,
//!   the guest acting for it, after gathering its inputs);
//! * `migrate.rs`: the host's place moving to a guest when it left for
//!   good;
//! * `ending.rs`: how a match ends (outcome, desync, bad data).

use alloc::collections::VecDeque;
use alloc::vec::Vec;
use core::fmt;

use crate::game::DeterministicGame;
use crate::input_log::InputLog;
use crate::parts::PartsExchange;
use crate::time::Millis;
use crate::transport::{Channel, LinkState, Transport};
use crate::wire::{
    peek_hello_protocol, ByeReason, CatchUp, Message, RejoinRefusal, SavedState, MAX_PLAYERS,
    PROTOCOL_VERSION,
};

mod arrivals;
mod audience;
mod catching_up;
mod changes;
mod config;
mod deadlines;
mod delay;
mod drops;
mod ending;
mod frame;
mod handshake;
mod hash_book;
mod host_back;
mod join;
mod match_watch;
mod members;
mod migrate;
mod outcome;
mod peer;
mod ping;
mod received;
mod rejoin;
mod roster;
mod sender;
mod start;
mod take_back;
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
use delay::DelayTuner;
use handshake::{Handshake, Params};
use hash_book::LocalHashes;
use match_watch::{Differ, MatchWatch};
use members::Members;
use peer::Peer;
use roster::{Joining, Leaving, Newcomer};
use timeline::Timeline;
use watcher::Watcher;

/// How far (in ticks) beyond the proven bound a peer's inputs or hashes may
/// reach before the session calls it a flood. Two honest peers are never
/// more than `2 * delay + 2` input ticks apart, where in lock-step `delay`
/// is the larger of the match's delay and [`MAX_ADAPTIVE_DELAY`] (either
/// side may have raised its own).
const AHEAD_SLACK: u32 = 8;

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

/// Whether player `p` is away: dropped, leaving, or (guest) being taken
/// back.
fn is_away(p: &Peer) -> bool {
    p.dropped.is_some() || p.frozen || p.returning.is_some()
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
        self.members.poll_any_stranger()
    }

    /// The next datagram to send on link `peer`, and its channel. A link
    /// can be owed several queues at once (a spectator dropped with its
    /// goodbye still queued that asks to watch again on the same link):
    /// they drain in turn, the player's or spectator's first.
    pub fn poll_transmit_to(&mut self, peer: PeerId) -> Option<(Channel, Vec<u8>)> {
        let player = self.peers.iter_mut().find(|p| p.id == peer);
        if let Some(next) = player.and_then(|p| p.out.pop()) {
            return Some(next);
        }
        let watcher = self.audience.members.iter_mut().find(|s| s.id == peer);
        if let Some(next) = watcher.and_then(|s| s.out.pop()) {
            return Some(next);
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
            return self.members.token();
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
