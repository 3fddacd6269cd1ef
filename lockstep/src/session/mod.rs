//! The session: a sans-IO state machine for one two-player match.
//!
//! # Calling contract
//!
//! The session never reads a clock and never touches a socket. Every
//! method takes the current time as [`Millis`] (times must not go
//! backwards; a smaller one counts as no time passing), and the caller:
//!
//! 1. creates the session with [`Session::new`] once the transport is open
//!    (its Hello is queued at once);
//! 2. feeds every received datagram to [`Session::handle_datagram`] and
//!    every change of the link to [`Session::handle_link_state`];
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
//! exist only in it:
//!
//! * `config.rs`: the settings, their defaults and checks;
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
//! * `outcome.rs`: what the session reports (events, frames, outcomes).

use alloc::collections::VecDeque;
use alloc::vec::Vec;
use core::fmt;

use crate::game::DeterministicGame;
use crate::input_log::InputLog;
use crate::parts::{DesyncParts, PartHashes, PartsExchange, StatePart};
use crate::time::Millis;
use crate::transport::{Channel, LinkState, Transport};
use crate::wire::{
    peek_hello_protocol, ByeReason, HashReport, Inputs, Message, Pong, PROTOCOL_VERSION,
};

mod config;
mod deadlines;
mod handshake;
mod hash_book;
mod outcome;
mod ping;
mod sender;
mod time_sync;
pub(crate) mod timeline;

pub use config::{
    ConfigError, Role, SessionConfig, DEFAULT_HANDSHAKE_TIMEOUT, DEFAULT_HASH_INTERVAL,
    DEFAULT_MAX_HOLD_FRAMES, DEFAULT_PING_INTERVAL_FRAMES, DEFAULT_PREDICTION_WINDOW,
    DEFAULT_PROGRESS_TIMEOUT, DEFAULT_TIMEOUT, HANDSHAKE_PINGS, MAX_HOLD_FRAMES,
};
pub use handshake::delay_for_round_trips;
pub use outcome::{Event, Frame, Outcome, SessionStats, Version, Violation};

use deadlines::{Deadlines, Expired};
use handshake::{Handshake, HelloRefused, Params};
use hash_book::{Comparison, HashBook, LOCAL_HASHES_KEPT};
use ping::Pinger;
use sender::{Extras, Outbox, Sender};
use time_sync::{travel_ticks, PeerView, TimeSync};
use timeline::{Timeline, Watch};

/// How far (in ticks) beyond the proven bound a peer's inputs or hashes may
/// reach before the session calls it a flood. Two honest peers are never
/// more than `2 * delay + 2` input ticks apart.
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

/// The parts of a running match.
struct Running<G: DeterministicGame> {
    params: Params,
    timeline: Timeline<G>,
    hashes: HashBook,
    /// The part hashes of final ticks, and a desync waiting for the peer's.
    parts: PartsExchange,
    time_sync: TimeSync,
    sender: Sender,
}

impl<G: DeterministicGame> Running<G> {
    /// Runs `f` on the timeline under the match's watch (final ticks'
    /// hashes sent, compared and their parts kept); returns the first pair
    /// of hashes found to differ, if any.
    fn watched(
        &mut self,
        out: &mut Outbox,
        events: &mut VecDeque<Event>,
        f: impl FnOnce(&mut Timeline<G>, &mut MatchWatch<'_>),
    ) -> Option<(u32, u64, u64)> {
        let mut watch = MatchWatch {
            hashes: &mut self.hashes,
            parts: &mut self.parts,
            out,
            events,
            desync: None,
        };
        f(&mut self.timeline, &mut watch);
        watch.desync
    }
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
/// final ticks' hashes are sent to the peer and compared with its own.
struct MatchWatch<'a> {
    hashes: &'a mut HashBook,
    parts: &'a mut PartsExchange,
    out: &'a mut Outbox,
    events: &'a mut VecDeque<Event>,
    /// The first pair of hashes found to differ: the match ends.
    desync: Option<(u32, u64, u64)>,
}

impl<G: DeterministicGame> Watch<G> for MatchWatch<'_> {
    fn stepped(&mut self, tick: u32, _state: &G, resim: bool) {
        if !resim {
            self.events.push_back(Event::Ticked(tick));
        }
    }

    fn final_hash(&mut self, tick: u32, hash: u64, parts: Vec<StatePart>) {
        self.out
            .send(&Message::<G::Input>::Hash(HashReport { tick, hash }));
        // The parts of the same state, kept in case this tick differs.
        self.parts.keep(tick, parts, LOCAL_HASHES_KEPT);
        match self.hashes.record_local(tick, hash) {
            Some(Comparison::Matched(t)) => {
                log::debug!("state hashes agree at tick {t}");
                self.events.push_back(Event::HashMatched(t));
            }
            Some(Comparison::Differ {
                tick,
                local,
                remote,
            }) => {
                // The differing tick's parts stay for the exchange.
                self.desync = Some((tick, local, remote));
                return;
            }
            None => {}
        }
        // Parts of ticks the peer's hashes have caught up with are done.
        self.parts.forget_upto(self.hashes.last_remote_tick());
    }

    fn stopped(&self) -> bool {
        self.desync.is_some()
    }
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
    /// This side: 0 host, 1 guest.
    side: u8,
    phase: Phase<G>,
    pinger: Pinger,
    deadlines: Deadlines,
    out: Outbox,
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
            .field("tick", &self.tick())
            .field("outcome", &self.outcome())
            .finish_non_exhaustive()
    }
}

impl<G: DeterministicGame> Session<G> {
    /// Checks the configuration (and that the game's input encodes), and
    /// queues this side's Hello.
    pub fn new(cfg: SessionConfig) -> Result<Self, ConfigError> {
        cfg.validate()?;
        postcard::to_allocvec(&G::Input::default()).map_err(ConfigError::InputNotEncodable)?;
        let side = match cfg.role {
            Role::Host { .. } => 0,
            Role::Guest => 1,
        };
        let handshake = Handshake::new(&cfg);
        let mut out = Outbox::default();
        if !handshake.probing(&cfg, side) {
            out.send(&handshake.hello::<G::Input>(&cfg, side, G::BUILD_ID));
        }
        Ok(Session {
            cfg,
            side,
            phase: Phase::Handshake(handshake),
            pinger: Pinger::default(),
            deadlines: Deadlines::default(),
            out,
            events: VecDeque::new(),
            stats: SessionStats::default(),
        })
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
        if self.is_ended() {
            log::debug!(
                "{} byte datagram after the end of the match: dropped",
                bytes.len()
            );
            return;
        }
        self.deadlines.heard(now);
        self.stats.received_packets += 1;
        self.stats.received_bytes += bytes.len() as u64;
        let msg = match Message::<G::Input>::decode(bytes) {
            Ok(m) => m,
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
        match msg {
            Message::Hello(h) => self.on_hello(h),
            Message::Inputs(m) => self.on_inputs(now, m),
            Message::Hash(h) => self.on_hash(now, h),
            Message::Ping(id) => self.on_ping(now, id),
            Message::Pong(p) => self.on_pong(now, p),
            Message::Bye(r) => self.on_bye(r),
            Message::Parts(p) => self.on_parts(p),
        }
    }

    /// Feeds a change of the transport's link state. `Closed` or `Failed`
    /// ends the match with [`Outcome::TransportLost`] (after any `Bye`
    /// already fed, which takes precedence).
    pub fn handle_link_state(&mut self, now: Millis, state: LinkState) {
        let _ = now;
        if state.is_terminal() && !self.is_ended() {
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
    pub fn advance_frame(&mut self, now: Millis, sample: impl FnMut() -> G::Input) -> Frame {
        self.check_timeout(now);
        if let Phase::Handshake(hs) = &mut self.phase {
            let start = hs.frame::<G::Input>(
                now,
                &self.cfg,
                self.side,
                G::BUILD_ID,
                &mut self.pinger,
                &mut self.out,
            );
            if start {
                self.start();
            }
        }
        match self.phase {
            Phase::Ended(_) => Frame::Ended,
            Phase::Handshake(_) => Frame::Waiting,
            Phase::Running(_) => self.running_frame(now, sample),
        }
    }

    /// One frame of the running match (see [`advance_frame`](Self::advance_frame)).
    fn running_frame(&mut self, now: Millis, mut sample: impl FnMut() -> G::Input) -> Frame {
        let Phase::Running(run) = &mut self.phase else {
            // Unreachable: the caller matched the phase.
            debug_assert!(false, "running frame outside the match");
            return Frame::Waiting;
        };
        // A desync waits for the peer's part hashes: nothing runs.
        if run.parts.waiting() {
            return Frame::Waiting;
        }
        self.stats.frames += 1;
        let window = run.params.window;
        if window > 0 {
            // Correct any misprediction the inputs received since the last
            // frame revealed, before anything new runs.
            let found = run.watched(&mut self.out, &mut self.events, |t, w| t.reconcile(w));
            if let Some(desync) = found {
                self.end_in_desync(now, desync);
                return Frame::Ended;
            }
        }
        // Sample only when the input `delay` ticks ahead is still missing.
        if run.timeline.needs_local(run.params.delay) {
            let pad = sample();
            if run.timeline.local().last() != Some(&pad) {
                run.sender.pad_changed();
            }
            run.timeline.push_local(pad);
        }
        let can_run = run.timeline.can_run();
        if can_run {
            self.deadlines.progressed();
        }
        let peer = peer_view(run, self.stats.last_rtt);
        let frame = if can_run && window > 0 && run.time_sync.skip(run.timeline.tick(), peer) {
            self.stats.skipped_frames += 1;
            Frame::Skipped(run.timeline.tick())
        } else if can_run {
            let found = run.watched(&mut self.out, &mut self.events, |t, w| {
                t.step(w);
            });
            if let Some(desync) = found {
                self.end_in_desync(now, desync);
                return Frame::Ended;
            }
            Frame::Ticked(run.timeline.tick())
        } else {
            let tick = run.timeline.tick();
            self.deadlines.stalled(now);
            self.stats.stalled_frames += 1;
            self.events.push_back(Event::Stalled(tick));
            Frame::Stalled(tick)
        };
        if window > 0 {
            let peer = peer_view(run, self.stats.last_rtt);
            run.time_sync.update(run.timeline.tick(), peer);
        }
        self.pinger.frame();
        self.flush_unreliable(now);
        frame
    }

    // ----- outputs --------------------------------------------------------

    /// The next datagram to send, and its channel.
    pub fn poll_transmit(&mut self) -> Option<(Channel, Vec<u8>)> {
        self.out.pop()
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
        match &self.phase {
            Phase::Ended(_) => None,
            Phase::Handshake(_) => self.deadlines.next(&self.cfg, true),
            Phase::Running(run) => [
                self.deadlines.next(&self.cfg, false),
                // The end of a desync's wait for the peer's part hashes.
                run.parts.deadline(self.cfg.timeout),
            ]
            .into_iter()
            .flatten()
            .min(),
        }
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
    /// started (the guest adopts the host's).
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

    /// This side: 0 for the host, 1 for the guest.
    #[must_use]
    pub fn side(&self) -> Option<u8> {
        Some(self.side)
    }

    /// `true` once both Hellos were accepted (and until the end).
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

    /// Counters.
    #[must_use]
    pub fn stats(&self) -> SessionStats {
        let mut stats = self.stats;
        self.out.count_into(&mut stats);
        if let Some(t) = self.phase.timeline().map(Timeline::stats) {
            stats.predicted_ticks = t.predicted_ticks;
            stats.rollbacks = t.rollbacks;
            stats.resimulated_ticks = t.resimulated_ticks;
            stats.max_rollback = t.max_rollback;
        }
        stats
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
                players: 2,
                input_delay: p.delay,
                final_hash: G::new(p.seed, 2).state_hash(),
                inputs: Vec::new(),
            },
        }
    }

    // ----- internals ------------------------------------------------------

    fn is_ended(&self) -> bool {
        matches!(self.phase, Phase::Ended(_))
    }

    /// Ends the match with `outcome`, telling the peer with `bye` first.
    /// The phase's last states stay readable.
    fn end(&mut self, outcome: Outcome, bye: Option<ByeReason>) {
        if self.is_ended() {
            return;
        }
        if let Some(reason) = bye {
            self.out.send(&Message::<G::Input>::Bye(reason));
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

    /// The hashes of `tick` differ. With the parts of that tick, this
    /// side sends its part hashes and waits for the peer's before it ends
    /// (see [`crate::parts`]); without, it ends at once.
    fn end_in_desync(&mut self, now: Millis, (tick, local, remote): (u32, u64, u64)) {
        log::error!("desync at tick {tick}: local {local:#018x}, remote {remote:#018x}");
        if let Phase::Running(run) = &mut self.phase {
            if let Some(msg) = run.parts.begin(tick, local, remote, now) {
                self.out.send(&Message::<G::Input>::Parts(msg));
                return;
            }
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

    /// The peer's part hashes of the desync tick: the match ends, naming
    /// the parts that differ.
    fn on_parts(&mut self, p: PartHashes) {
        let tick = p.tick;
        let received = match &mut self.phase {
            Phase::Running(run) => run.parts.receive(p),
            _ => Err(tick),
        };
        match received {
            Ok((outcome, bye)) => self.end(outcome, Some(bye)),
            Err(tick) => self.violation(Violation::UnexpectedParts { tick }),
        }
    }

    fn violation(&mut self, violation: Violation) {
        log::warn!("invalid data from the peer: {violation}");
        // A desync found here already ends the match: it stays the outcome
        // (without the peer's parts), whatever the peer sends while this
        // side waits for them.
        if self.give_up_parts(true) {
            return;
        }
        self.end(
            Outcome::InvalidData { violation },
            Some(ByeReason::InvalidData),
        );
    }

    /// Ends a desync that waits for the peer's part hashes without them
    /// (telling the peer with its `Bye` when `tell`). `false` when no desync
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
        match self.deadlines.expired(now, &self.cfg, handshake) {
            None => {}
            Some(Expired::Silence(quiet)) => {
                log::info!("no datagram from the peer for {} ms", quiet.0);
                self.end(Outcome::Timeout, Some(ByeReason::Timeout));
            }
            Some(Expired::Handshake(since)) => {
                if let Phase::Handshake(hs) = &self.phase {
                    log::info!(
                        "no start {} ms into the handshake (peer's Hello {}, round trips measured {})",
                        since.0,
                        if hs.remote_version.is_some() {
                            "received"
                        } else {
                            "missing"
                        },
                        hs.samples()
                    );
                }
                self.end(Outcome::HandshakeTimeout, Some(ByeReason::HandshakeTimeout));
            }
            Some(Expired::Progress(waited)) => {
                log::info!(
                    "no new input from the peer for {} ms at tick {}",
                    waited.0,
                    self.tick()
                );
                self.end(Outcome::NoProgress, Some(ByeReason::NoProgress));
            }
        }
    }

    fn on_hello(&mut self, h: crate::wire::Hello) {
        let Phase::Handshake(hs) = &mut self.phase else {
            self.violation(Violation::UnexpectedHello);
            return;
        };
        match hs.on_hello(h, Self::local_version(), &self.cfg, self.side) {
            Ok(true) => self.start(),
            Ok(false) => {}
            Err(HelloRefused::Unexpected) => self.violation(Violation::UnexpectedHello),
            Err(HelloRefused::Mismatch(remote)) => self.version_mismatch(remote),
            Err(HelloRefused::SideConflict(remote_side)) => {
                self.violation(Violation::SideConflict { remote_side });
            }
        }
    }

    /// Both Hellos are in (and the host's round trips measured): the match
    /// starts with the handshake's parameters.
    fn start(&mut self) {
        let Phase::Handshake(hs) = &mut self.phase else {
            // Unreachable: only the handshake starts a match.
            debug_assert!(false, "start outside the handshake");
            return;
        };
        let params = hs.params;
        let hashes = core::mem::take(&mut hs.hashes);
        self.phase = Phase::Running(Running {
            params,
            timeline: Timeline::new(
                params.seed,
                2,
                self.side,
                params.delay,
                params.window,
                params.hash_interval,
            ),
            hashes,
            parts: PartsExchange::default(),
            time_sync: TimeSync::default(),
            sender: Sender::new(params.delay),
        });
        self.pinger.start(self.cfg.ping_interval_frames);
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

    fn on_inputs(&mut self, now: Millis, m: Inputs<G::Input>) {
        let Phase::Running(run) = &mut self.phase else {
            log::debug!("inputs before the match started: dropped");
            return;
        };
        // Validate everything before changing anything.
        let sent = run.timeline.local().len() as u32;
        if m.ack > sent {
            self.violation(Violation::AckBeyondSent { ack: m.ack, sent });
            return;
        }
        let have = run
            .timeline
            .inputs_of(peer_slot(usize::from(self.side)))
            .len() as u32;
        if m.first_tick > have {
            self.violation(Violation::InputGap {
                expected: have,
                first: m.first_tick,
            });
            return;
        }
        // Cannot overflow: the decoder checked first_tick + len <= u32::MAX.
        let end = m.first_tick + m.pads.len() as u32;
        if end > ahead_limit(run.timeline.tick(), run.params) {
            self.violation(Violation::TooFarAhead { tick: end });
            return;
        }
        let overlap = (have - m.first_tick) as usize;
        let start = m.first_tick as usize;
        let remote = run.timeline.inputs_of(peer_slot(usize::from(self.side)));
        let conflict = m
            .pads
            .iter()
            .take(overlap)
            .enumerate()
            .find(|&(i, pad)| remote.get(start + i) != Some(pad));
        if let Some((i, _)) = conflict {
            self.violation(Violation::ConflictingInput {
                tick: m.first_tick + i as u32,
            });
            return;
        }
        if let Some(new) = m.pads.get(overlap..).filter(|p| !p.is_empty()) {
            run.timeline
                .extend_inputs(peer_slot(usize::from(self.side)), new);
            run.time_sync.heard_inputs();
            self.deadlines.progressed();
        }
        run.sender.on_ack(m.ack);
        if let Some(a) = m.advantage {
            run.time_sync.remote_advantage(a);
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
            Phase::Running(_) => self.pinger.owe_pong(id, now),
            // The host measures the round trip before the match: answer at
            // once (one pong per ping, nothing kept).
            Phase::Handshake(_) => self
                .out
                .send(&Message::<G::Input>::Pong(Pong { id, held_ms: 0 })),
            Phase::Ended(_) => {}
        }
    }

    fn on_pong(&mut self, now: Millis, p: Pong) {
        let Some(rtt) = self.pinger.on_pong(now, p) else {
            log::debug!("pong for an unknown ping: dropped");
            return;
        };
        self.stats.last_rtt = Some(rtt);
        if let Phase::Handshake(hs) = &mut self.phase {
            hs.on_round_trip(rtt, &self.cfg, self.side);
        }
        self.events.push_back(Event::RoundTrip(rtt));
    }

    fn on_hash(&mut self, now: Millis, h: HashReport) {
        // The peer can hash a tick only once it has both Hellos. A host
        // that picks its delay from the round trip starts half a round
        // trip after sending its Hello, so the guest (whose Hello came
        // first on this ordered channel) may already be hashing: keep its
        // hashes for comparison, as during the match.
        let (book, mut parts, params, tick, last_hashed) = match &mut self.phase {
            Phase::Running(run) => (
                &mut run.hashes,
                Some(&mut run.parts),
                run.params,
                run.timeline.tick(),
                run.timeline.last_hashed(),
            ),
            Phase::Handshake(hs) if hs.hellos_exchanged() => {
                (&mut hs.hashes, None, hs.params, 0, 0)
            }
            _ => {
                self.violation(Violation::HashBeforeHello);
                return;
            }
        };
        let limit = ahead_limit(tick, params);
        let compared = book.record_remote(h, params.hash_interval, limit, last_hashed);
        let last_remote = book.last_remote_tick();
        if let Some(parts) = parts.as_mut() {
            if parts.waiting() {
                // A desync already waits for the peer's part hashes.
                return;
            }
            if !matches!(compared, Ok(Some(Comparison::Differ { .. }))) {
                // Parts of ticks compared equal are done.
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
            })) => self.end_in_desync(now, (tick, local, remote)),
        }
    }

    fn on_bye(&mut self, reason: ByeReason) {
        // The peer ended the match while this side waits for its part
        // hashes: the desync found here is the outcome, without them.
        if self.give_up_parts(false) {
            return;
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
            ByeReason::VersionMismatch => {
                // A running match has the peer's version: our own.
                let remote = match &self.phase {
                    Phase::Handshake(hs) => hs.remote_version,
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
                    Phase::Handshake(hs) => hs.hashes.local_hash(tick),
                    Phase::Running(run) => run.hashes.local_hash(tick),
                    Phase::Ended(_) => None,
                };
                match local {
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
                }
            }
        }
    }

    /// Once per running frame, after the tick: this frame's Inputs packet,
    /// unless it waits for the send interval or is held back.
    fn flush_unreliable(&mut self, now: Millis) {
        let Phase::Running(run) = &mut self.phase else {
            return;
        };
        let window = run.params.window;
        let lost = self.pinger.losses();
        let travel = travel_ticks(self.stats.last_rtt);
        let peer_tick = run
            .time_sync
            .peer_tick_estimate(peer_view(run, self.stats.last_rtt));
        let due = run.sender.due(&self.cfg, window, |s| {
            s.inputs_urgent(&self.cfg, lost, peer_tick, travel, window)
        });
        if !due {
            return;
        }
        let ping = self
            .pinger
            .match_ping(now, self.cfg.ping_interval_frames, self.stats.last_rtt);
        let pong = self.pinger.take_pong(now);
        let advantage = if window > 0 {
            run.time_sync.report()
        } else {
            None
        };
        let extras = Extras {
            ack: run
                .timeline
                .inputs_of(peer_slot(usize::from(self.side)))
                .len() as u32,
            ping,
            pong,
            advantage,
        };
        if let Some(msg) = run.sender.packet(run.timeline.local(), extras) {
            self.out.send(&msg);
        }
    }
}

/// The peer's player number in a two-player match where this side plays
/// `slot`.
fn peer_slot(slot: usize) -> usize {
    usize::from(slot == 0)
}

/// What this side knows of the peer's progress in a running match.
fn peer_view<G: DeterministicGame>(run: &Running<G>, last_rtt: Option<Millis>) -> PeerView {
    PeerView {
        remote_inputs: run.timeline.inputs_of(peer_slot(run.timeline.slot())).len() as u32,
        delay: run.params.delay,
        travel: travel_ticks(last_rtt),
        surely_held: run.sender.surely_held(),
        window: run.params.window,
    }
}

/// The furthest tick an honest peer's inputs or hashes can reach when this
/// side is at `tick`.
fn ahead_limit(tick: u32, params: Params) -> u32 {
    tick.saturating_add(2 * u32::from(params.delay))
        .saturating_add(u32::from(params.window))
        .saturating_add(AHEAD_SLACK)
}
