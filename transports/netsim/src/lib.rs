//! `netsim`: a seeded, virtual-time network between two endpoints.
//!
//! [`pair`] joins two [`SimEndpoint`]s, both implementing
//! [`lockstep::Transport`], through a simulated link with one-way latency,
//! jitter, loss, duplication and reordering. Nothing here reads a clock or
//! touches a socket: time is a number the test (or example) moves forward
//! with [`SimEndpoint::advance_to`], and every random decision comes from a
//! PRNG seeded by the `seed` given to [`pair`]. The same seed, configuration
//! and sequence of calls give the same deliveries at the same virtual times,
//! on every machine, so a test can run minutes of network time in
//! milliseconds and fail the same way every time.
//!
//! # The model
//!
//! - **Unreliable channel**: each datagram is lost with
//!   [`loss_percent`](LinkConfig::loss_percent); otherwise it arrives after
//!   `latency ± jitter` (uniform, whole milliseconds, never negative). With
//!   [`reorder_percent`](LinkConfig::reorder_percent) it is held back a
//!   further [`reorder_delay`](LinkConfig::reorder_delay), so later datagrams
//!   overtake it; with [`duplicate_percent`](LinkConfig::duplicate_percent) a
//!   second copy travels with its own delay. Jitter alone also reorders.
//! - **Reliable channel**: complete and in order. Every transmission attempt
//!   is lost with the same `loss_percent`; each loss makes the datagram
//!   [`reliable_retransmit_delay`](LinkConfig::reliable_retransmit_delay)
//!   later, and a datagram never overtakes an earlier one (head-of-line
//!   blocking, as in SCTP). After [`MAX_RELIABLE_ATTEMPTS`] lost attempts in
//!   a row the link fails, as a real association would abort.
//! - **Severing** a direction ([`SimEndpoint::sever`]) models a silent cable
//!   cut: the link still reports [`LinkState::Open`], unreliable datagrams
//!   (sent or in flight) vanish, and reliable ones wait; after
//!   [`SimEndpoint::heal`] they are retransmitted, still in order. Use it to
//!   test stalls and timeouts. [`SimEndpoint::fail_link`] instead makes both
//!   ends report [`LinkState::Failed`] (use it to test a lost transport).
//! - **Closing** one endpoint ([`Transport::close`]) makes it
//!   [`LinkState::Closed`] at once; the peer sees `Closed` once everything
//!   reliable sent before the close has arrived (and at least one latency
//!   later).
//!
//! - **Throttling** a direction ([`SimEndpoint::throttle`]) limits it to a
//!   number of bytes per second, as a slow uplink does: datagrams on both
//!   channels leave one after another at that rate, wait in the sender's
//!   queue until then, and [`Transport::send_backlog`] reports the bytes
//!   still queued (with the reliable bytes a severed direction holds), as
//!   WebRTC's `bufferedAmount` does.
//!
//! The two endpoints share one virtual clock: advancing either advances
//! both. Each direction has its own PRNG stream, so traffic one way does not
//! change the conditions the other way.
//!
//! # Usage
//!
//! ```
//! use lockstep::{Channel, Millis, Transport};
//! use netsim::{Direction, LinkConfig};
//!
//! // 50 ms one way, ±10 ms jitter, 5% loss; seed 7 picks which packets suffer.
//! let cfg = LinkConfig {
//!     latency: Millis(50),
//!     jitter: Millis(10),
//!     loss_percent: 5,
//!     ..LinkConfig::default()
//! };
//! let (mut a, mut b) = netsim::pair(cfg, 7);
//!
//! a.send(Channel::Reliable, b"hello").unwrap();
//! assert_eq!(b.recv(), None); // nothing arrives before virtual time moves
//!
//! // Drive the clock to each next delivery, the way a session driver would
//! // combine it with the session's own poll_timeout().
//! while let Some(t) = b.poll_timeout() {
//!     b.advance_to(t);
//!     if let Some((channel, bytes)) = b.recv() {
//!         assert_eq!((channel, bytes.as_slice()), (Channel::Reliable, &b"hello"[..]));
//!         break;
//!     }
//! }
//! assert!(b.now() >= Millis(40)); // at least latency - jitter
//! assert_eq!(a.outgoing_stats().sent.reliable.packets, 1);
//!
//! // A silent cut from b to a: b keeps sending, a hears nothing.
//! b.sever(Direction::Outgoing);
//! b.send(Channel::Unreliable, b"lost").unwrap();
//! a.advance_to(Millis(10_000));
//! assert_eq!(a.recv(), None);
//! ```
#![warn(missing_docs)]

mod rng;

use core::fmt;
use std::cell::RefCell;
use std::collections::{BTreeMap, VecDeque};
use std::rc::Rc;

use lockstep::{Channel, LinkState, Millis, Transport, TransportError};

use rng::SplitMix64;

/// The largest datagram an endpoint accepts, in bytes (the size WebRTC data
/// channels carry portably between browsers).
pub const MAX_DATAGRAM: usize = 16 * 1024;

/// After this many lost attempts in a row at one reliable datagram the link
/// fails (both ends report [`LinkState::Failed`]). At 50% loss that takes
/// about one datagram in 2^32; at 100% loss it happens on the first send.
pub const MAX_RELIABLE_ATTEMPTS: u32 = 32;

/// Conditions on the simulated link, the same in both directions.
///
/// Every field is an integer, so a configuration is exact and portable.
/// Build one with struct-update syntax from [`LinkConfig::default`] (a
/// perfect, instant link).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LinkConfig {
    /// One-way delay before jitter.
    pub latency: Millis,
    /// Each datagram's delay is `latency` plus a uniform offset in
    /// `-jitter..=jitter` (whole milliseconds, clamped at zero delay).
    pub jitter: Millis,
    /// Chance (0–100) that one transmission is lost. Applies to every
    /// unreliable datagram and to every attempt at a reliable one.
    pub loss_percent: u8,
    /// Chance (0–100) that an unreliable datagram that got through arrives
    /// twice (the copy has its own delay).
    pub duplicate_percent: u8,
    /// Chance (0–100) that an unreliable datagram is held back by
    /// [`reorder_delay`](Self::reorder_delay), letting later ones overtake it.
    pub reorder_percent: u8,
    /// Extra delay of a reordered datagram.
    pub reorder_delay: Millis,
    /// How much later a reliable datagram arrives for each lost attempt
    /// (SCTP's retransmission timeout).
    pub reliable_retransmit_delay: Millis,
}

impl Default for LinkConfig {
    /// A perfect link: no delay, no loss, no duplication, no reordering
    /// (with a 20 ms reorder delay and a 200 ms retransmission delay ready for
    /// when those are turned on).
    fn default() -> Self {
        LinkConfig {
            latency: Millis(0),
            jitter: Millis(0),
            loss_percent: 0,
            duplicate_percent: 0,
            reorder_percent: 0,
            reorder_delay: Millis(20),
            reliable_retransmit_delay: Millis(200),
        }
    }
}

/// A [`LinkConfig`] field outside its range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfigError {
    /// A `*_percent` field above 100.
    PercentOutOfRange {
        /// The field's name.
        field: &'static str,
        /// The refused value.
        value: u8,
    },
    /// Jitter larger than the latency would make delays pile up at zero and
    /// skew the mean; it is refused rather than silently distorted.
    JitterAboveLatency {
        /// The configured jitter.
        jitter: Millis,
        /// The configured latency.
        latency: Millis,
    },
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::PercentOutOfRange { field, value } => {
                write!(f, "{field} is {value}, must be 0 to 100")
            }
            ConfigError::JitterAboveLatency { jitter, latency } => write!(
                f,
                "jitter ({} ms) must not exceed latency ({} ms)",
                jitter.0, latency.0
            ),
        }
    }
}

impl std::error::Error for ConfigError {}

impl LinkConfig {
    /// Checks every field; [`pair`] does not (it clamps percentages to 100),
    /// so call this on configuration that comes from a user.
    pub fn validate(&self) -> Result<(), ConfigError> {
        for (field, value) in [
            ("loss_percent", self.loss_percent),
            ("duplicate_percent", self.duplicate_percent),
            ("reorder_percent", self.reorder_percent),
        ] {
            if value > 100 {
                return Err(ConfigError::PercentOutOfRange { field, value });
            }
        }
        if self.jitter > self.latency {
            return Err(ConfigError::JitterAboveLatency {
                jitter: self.jitter,
                latency: self.latency,
            });
        }
        Ok(())
    }
}

/// A direction of the link, seen from one endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    /// From this endpoint to its peer.
    Outgoing,
    /// From the peer to this endpoint.
    Incoming,
}

/// A packet and byte count.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Counter {
    /// Number of datagrams.
    pub packets: u64,
    /// Sum of their payload sizes in bytes.
    pub bytes: u64,
}

impl Counter {
    fn add(&mut self, len: usize) {
        self.packets += 1;
        self.bytes += len as u64;
    }
}

/// A [`Counter`] per channel.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct ChannelCounters {
    /// The reliable channel.
    pub reliable: Counter,
    /// The unreliable channel.
    pub unreliable: Counter,
}

impl ChannelCounters {
    /// The counter of `channel`.
    #[must_use]
    pub fn get(&self, channel: Channel) -> Counter {
        match channel {
            Channel::Reliable => self.reliable,
            Channel::Unreliable => self.unreliable,
        }
    }

    fn get_mut(&mut self, channel: Channel) -> &mut Counter {
        match channel {
            Channel::Reliable => &mut self.reliable,
            Channel::Unreliable => &mut self.unreliable,
        }
    }

    /// Both channels added together.
    #[must_use]
    pub fn total(&self) -> Counter {
        Counter {
            packets: self.reliable.packets + self.unreliable.packets,
            bytes: self.reliable.bytes + self.unreliable.bytes,
        }
    }
}

/// What happened to the traffic in one direction so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct PathStats {
    /// Datagrams accepted by `send` (each counted once, whatever befell it).
    pub sent: ChannelCounters,
    /// Datagrams handed out by `recv` (duplicates counted again).
    pub delivered: ChannelCounters,
    /// Unreliable datagrams lost.
    pub lost: u64,
    /// Unreliable datagrams that were duplicated.
    pub duplicated: u64,
    /// Unreliable datagrams held back to be overtaken.
    pub reordered: u64,
    /// Extra transmissions of reliable datagrams (one per lost attempt, and
    /// one per datagram held by a severed direction). They are not in
    /// `sent`, which counts each datagram once.
    pub retransmissions: u64,
    /// Payload bytes of those extra transmissions (each counts its
    /// datagram's length again), so `sent` plus `retransmissions` and
    /// `retransmitted_bytes` is what the sender put on the wire.
    pub retransmitted_bytes: u64,
    /// Unreliable datagrams dropped because the direction was severed.
    pub severed_drops: u64,
}

/// One direction of the link.
#[derive(Debug)]
struct Path {
    rng: SplitMix64,
    /// Datagrams in flight, keyed by (arrival time, send sequence number):
    /// the first entry is the next to arrive, ties in sending order.
    in_flight: BTreeMap<(Millis, u64), (Channel, Vec<u8>)>,
    /// Arrival time of the last reliable datagram scheduled (in-order floor).
    last_reliable: Millis,
    severed: bool,
    /// Reliable datagrams waiting for a severed direction to heal, in order.
    held: Vec<Vec<u8>>,
    /// The sender closed: when the receiver will notice (`None` while the
    /// direction is severed and the notice waits for it to heal).
    close_notice: Option<Millis>,
    close_pending: bool,
    /// Bytes per second the sender's uplink carries (`None`: unlimited).
    rate: Option<u64>,
    /// When the uplink has sent everything queued, in microseconds.
    wire_free_us: u64,
    /// Datagrams waiting in the sender's queue: (departure in
    /// microseconds, length), oldest first.
    queue: VecDeque<(u64, usize)>,
    stats: PathStats,
}

impl Path {
    fn new(seed: u64) -> Self {
        Path {
            rng: SplitMix64::new(seed),
            in_flight: BTreeMap::new(),
            last_reliable: Millis::ZERO,
            severed: false,
            held: Vec::new(),
            close_notice: None,
            close_pending: false,
            rate: None,
            wire_free_us: 0,
            queue: VecDeque::new(),
            stats: PathStats::default(),
        }
    }

    /// When a datagram of `len` bytes sent at `now` leaves the sender: at
    /// once without a throttle, else behind everything queued at the rate.
    fn departure(&mut self, now: Millis, len: usize) -> Millis {
        let Some(rate) = self.rate else {
            return now;
        };
        let now_us = now.0.saturating_mul(1000);
        while self.queue.front().is_some_and(|&(at, _)| at <= now_us) {
            self.queue.pop_front();
        }
        let serialise_us = (len as u64).saturating_mul(1_000_000) / rate.max(1);
        let depart_us = self.wire_free_us.max(now_us).saturating_add(serialise_us);
        self.wire_free_us = depart_us;
        self.queue.push_back((depart_us, len));
        Millis(depart_us.div_ceil(1000))
    }

    /// Bytes still waiting to leave at `now`, held reliable ones included.
    fn backlog(&self, now: Millis) -> usize {
        let now_us = now.0.saturating_mul(1000);
        let queued: usize = self
            .queue
            .iter()
            .filter(|&&(at, _)| at > now_us)
            .map(|&(_, len)| len)
            .sum();
        queued + self.held.iter().map(Vec::len).sum::<usize>()
    }

    /// `latency ± jitter`, never below zero.
    fn delay(&mut self, cfg: &LinkConfig) -> Millis {
        let j = cfg.jitter.0;
        if j == 0 {
            return cfg.latency;
        }
        // Saturating throughout: absurd configurations (pair() does not
        // validate) give absurd delays, never an overflow.
        let offset = self.rng.below(j.saturating_mul(2).saturating_add(1));
        Millis(cfg.latency.0.saturating_add(offset).saturating_sub(j))
    }
}

/// The state both endpoints share.
#[derive(Debug)]
struct Net {
    cfg: LinkConfig,
    now: Millis,
    seq: u64,
    /// `paths[i]` carries datagrams from endpoint `i` to endpoint `1 - i`.
    paths: [Path; 2],
    states: [LinkState; 2],
    /// Endpoint `i` closed itself (it then receives nothing more).
    closed_locally: [bool; 2],
}

impl Net {
    fn next_seq(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    /// Schedules a reliable datagram that leaves at `start` (after any lost
    /// attempts), in order behind everything reliable before it. Returns
    /// `false` when every attempt was lost and the link failed.
    fn schedule_reliable(&mut self, from: usize, start: Millis, bytes: Vec<u8>) -> bool {
        let cfg = self.cfg;
        let seq = self.next_seq();
        let path = &mut self.paths[from];
        let mut leave = start;
        let mut attempts = 1;
        let mut gave_up = false;
        while path.rng.chance(cfg.loss_percent) {
            if attempts >= MAX_RELIABLE_ATTEMPTS {
                gave_up = true;
                break;
            }
            attempts += 1;
            path.stats.retransmissions += 1;
            path.stats.retransmitted_bytes += bytes.len() as u64;
            leave = leave + cfg.reliable_retransmit_delay;
        }
        if gave_up {
            self.fail();
            return false;
        }
        let arrive = (leave + path.delay(&cfg)).max(path.last_reliable);
        path.last_reliable = arrive;
        path.in_flight
            .insert((arrive, seq), (Channel::Reliable, bytes));
        true
    }

    fn schedule_unreliable(&mut self, from: usize, start: Millis, bytes: Vec<u8>) {
        let cfg = self.cfg;
        let now = start;
        let seq = self.next_seq();
        let dup_seq = self.next_seq();
        let path = &mut self.paths[from];
        if path.rng.chance(cfg.loss_percent) {
            path.stats.lost += 1;
            return;
        }
        let mut arrive = now + path.delay(&cfg);
        if path.rng.chance(cfg.reorder_percent) {
            path.stats.reordered += 1;
            arrive = arrive + cfg.reorder_delay;
        }
        if path.rng.chance(cfg.duplicate_percent) {
            path.stats.duplicated += 1;
            let copy_arrive = now + path.delay(&cfg);
            path.in_flight
                .insert((copy_arrive, dup_seq), (Channel::Unreliable, bytes.clone()));
        }
        path.in_flight
            .insert((arrive, seq), (Channel::Unreliable, bytes));
    }

    fn schedule_close_notice(&mut self, from: usize) {
        let now = self.now;
        let latency = self.cfg.latency;
        let path = &mut self.paths[from];
        path.close_pending = true;
        if !path.severed {
            path.close_notice = Some((now + latency).max(path.last_reliable));
        }
    }

    fn fail(&mut self) {
        for i in 0..2 {
            if !self.closed_locally[i] {
                self.states[i] = LinkState::Failed;
            }
            self.paths[i].in_flight.clear();
            self.paths[i].held.clear();
            self.paths[i].close_notice = None;
            self.paths[i].close_pending = false;
        }
    }

    /// Applies close notices that are due at the current time.
    fn settle(&mut self) {
        for from in 0..2 {
            let to = 1 - from;
            if let Some(at) = self.paths[from].close_notice {
                if at <= self.now && self.states[to] == LinkState::Open {
                    self.states[to] = LinkState::Closed;
                    self.paths[from].close_notice = None;
                }
            }
        }
    }

    fn sever(&mut self, from: usize) {
        let path = &mut self.paths[from];
        if path.severed {
            return;
        }
        path.severed = true;
        // Everything in flight is cut off: unreliable datagrams are gone,
        // reliable ones wait to be retransmitted after the heal.
        for ((_, _), (channel, bytes)) in std::mem::take(&mut path.in_flight) {
            match channel {
                Channel::Reliable => {
                    path.stats.retransmissions += 1;
                    path.stats.retransmitted_bytes += bytes.len() as u64;
                    path.held.push(bytes);
                }
                Channel::Unreliable => path.stats.severed_drops += 1,
            }
        }
        path.last_reliable = Millis::ZERO;
        path.close_notice = None;
    }

    fn heal(&mut self, from: usize) {
        if !self.paths[from].severed {
            return;
        }
        self.paths[from].severed = false;
        let start = self.now + self.cfg.reliable_retransmit_delay;
        for bytes in std::mem::take(&mut self.paths[from].held) {
            if !self.schedule_reliable(from, start, bytes) {
                return;
            }
        }
        if self.paths[from].close_pending {
            self.schedule_close_notice(from);
        }
    }
}

/// One end of a simulated link. Implements [`Transport`].
///
/// Cloning is not offered: each endpoint is one side's transport. The pair
/// shares a virtual clock and the state of the link.
#[derive(Debug)]
pub struct SimEndpoint {
    net: Rc<RefCell<Net>>,
    /// 0 for the first endpoint returned by [`pair`], 1 for the second.
    index: usize,
}

/// Two endpoints joined by a simulated link with conditions `cfg`, starting
/// [`LinkState::Open`] at virtual time zero. `seed` picks every random
/// decision; percentages above 100 count as 100 (use
/// [`LinkConfig::validate`] to refuse them instead).
#[must_use]
pub fn pair(cfg: LinkConfig, seed: u64) -> (SimEndpoint, SimEndpoint) {
    let mut cfg = cfg;
    cfg.loss_percent = cfg.loss_percent.min(100);
    cfg.duplicate_percent = cfg.duplicate_percent.min(100);
    cfg.reorder_percent = cfg.reorder_percent.min(100);
    // Derive an independent stream per direction from the one seed.
    let mut seeder = SplitMix64::new(seed);
    let paths = [Path::new(seeder.next_u64()), Path::new(seeder.next_u64())];
    let net = Rc::new(RefCell::new(Net {
        cfg,
        now: Millis::ZERO,
        seq: 0,
        paths,
        states: [LinkState::Open; 2],
        closed_locally: [false; 2],
    }));
    (
        SimEndpoint {
            net: Rc::clone(&net),
            index: 0,
        },
        SimEndpoint { net, index: 1 },
    )
}

impl SimEndpoint {
    fn path_index(&self, direction: Direction) -> usize {
        match direction {
            Direction::Outgoing => self.index,
            Direction::Incoming => 1 - self.index,
        }
    }

    /// Moves the shared virtual clock to `now` (for both endpoints). A time
    /// earlier than the current one is ignored: the clock never runs back.
    pub fn advance_to(&self, now: Millis) {
        let mut net = self.net.borrow_mut();
        if now > net.now {
            net.now = now;
        }
        net.settle();
    }

    /// The shared virtual clock.
    #[must_use]
    pub fn now(&self) -> Millis {
        self.net.borrow().now
    }

    /// The link's conditions (percentages clamped to 100).
    #[must_use]
    pub fn config(&self) -> LinkConfig {
        self.net.borrow().cfg
    }

    /// Changes the link's conditions (for both endpoints) from now on, as
    /// when a path grows longer or lossier mid-match: datagrams already in
    /// flight keep their arrival times. Percentages above 100 count as 100.
    pub fn set_config(&self, cfg: LinkConfig) {
        let mut c = cfg;
        c.loss_percent = c.loss_percent.min(100);
        c.duplicate_percent = c.duplicate_percent.min(100);
        c.reorder_percent = c.reorder_percent.min(100);
        self.net.borrow_mut().cfg = c;
    }

    /// When something next happens to this endpoint: the arrival time of
    /// the next datagram in flight towards it, or of the peer's close
    /// notice. `None` when nothing is on its way (or this end is closed or
    /// failed). A driver advances the clock to the earliest of this, the
    /// peer's and the sessions' own timeouts.
    #[must_use]
    pub fn poll_timeout(&self) -> Option<Millis> {
        let net = self.net.borrow();
        if net.closed_locally[self.index] || net.states[self.index] == LinkState::Failed {
            return None;
        }
        let incoming = &net.paths[1 - self.index];
        let next_datagram = incoming.in_flight.keys().next().map(|&(at, _)| at);
        let notice = if net.states[self.index] == LinkState::Open {
            incoming.close_notice
        } else {
            None
        };
        match (next_datagram, notice) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Silently cuts one direction: the link still reports
    /// [`LinkState::Open`], unreliable datagrams sent or in flight that way
    /// are lost, reliable ones wait for [`heal`](Self::heal).
    pub fn sever(&self, direction: Direction) {
        let i = self.path_index(direction);
        self.net.borrow_mut().sever(i);
    }

    /// Severs both directions.
    pub fn sever_both(&self) {
        self.sever(Direction::Outgoing);
        self.sever(Direction::Incoming);
    }

    /// Reconnects a severed direction. Reliable datagrams held meanwhile
    /// are retransmitted (in order, one retransmission delay from now, with
    /// the usual latency, jitter and loss). Unreliable ones stay lost.
    pub fn heal(&self, direction: Direction) {
        let i = self.path_index(direction);
        self.net.borrow_mut().heal(i);
    }

    /// Heals both directions.
    pub fn heal_both(&self) {
        self.heal(Direction::Outgoing);
        self.heal(Direction::Incoming);
    }

    /// Breaks the link for good: both endpoints report
    /// [`LinkState::Failed`] at once (as a browser does after an ICE
    /// failure) and everything in flight is lost.
    pub fn fail_link(&self) {
        self.net.borrow_mut().fail();
    }

    /// Whether `direction` is currently severed.
    #[must_use]
    pub fn is_severed(&self, direction: Direction) -> bool {
        self.net.borrow().paths[self.path_index(direction)].severed
    }

    /// Counters of the traffic from this endpoint to its peer.
    #[must_use]
    pub fn outgoing_stats(&self) -> PathStats {
        self.net.borrow().paths[self.index].stats
    }

    /// Counters of the traffic from the peer to this endpoint.
    #[must_use]
    pub fn incoming_stats(&self) -> PathStats {
        self.net.borrow().paths[1 - self.index].stats
    }

    /// Limits the traffic from this endpoint to `bytes_per_second` (`None`
    /// lifts the limit). Datagrams then leave one after another at that
    /// rate, so they wait in this endpoint's send queue
    /// ([`Transport::send_backlog`]) before the link's latency starts.
    pub fn throttle(&self, bytes_per_second: Option<u32>) {
        let mut net = self.net.borrow_mut();
        let path = &mut net.paths[self.index];
        path.rate = bytes_per_second.map(u64::from);
    }

    /// Number of datagrams on their way to this endpoint.
    #[must_use]
    pub fn in_flight(&self) -> usize {
        self.net.borrow().paths[1 - self.index].in_flight.len()
    }
}

impl Transport for SimEndpoint {
    fn send(&mut self, channel: Channel, datagram: &[u8]) -> Result<(), TransportError> {
        let mut net = self.net.borrow_mut();
        let from = self.index;
        let state = net.states[from];
        if state != LinkState::Open {
            return Err(TransportError::NotOpen(state));
        }
        if datagram.len() > MAX_DATAGRAM {
            return Err(TransportError::TooLarge {
                len: datagram.len(),
                max: MAX_DATAGRAM,
            });
        }
        net.paths[from]
            .stats
            .sent
            .get_mut(channel)
            .add(datagram.len());
        if net.closed_locally[1 - from] {
            // The peer has closed but this end has not heard yet: the
            // datagram goes nowhere.
            return Ok(());
        }
        let bytes = datagram.to_vec();
        if net.paths[from].severed {
            let path = &mut net.paths[from];
            match channel {
                Channel::Reliable => {
                    path.stats.retransmissions += 1;
                    path.stats.retransmitted_bytes += bytes.len() as u64;
                    path.held.push(bytes);
                }
                Channel::Unreliable => path.stats.severed_drops += 1,
            }
            return Ok(());
        }
        let now = net.now;
        let start = net.paths[from].departure(now, bytes.len());
        match channel {
            Channel::Reliable => {
                // A failure here is reported through state(), as a real
                // transport reports an aborted association; the datagram
                // itself was accepted.
                let _ = net.schedule_reliable(from, start, bytes);
            }
            Channel::Unreliable => net.schedule_unreliable(from, start, bytes),
        }
        Ok(())
    }

    fn recv(&mut self) -> Option<(Channel, Vec<u8>)> {
        let mut net = self.net.borrow_mut();
        let to = self.index;
        if net.closed_locally[to] || net.states[to] == LinkState::Failed {
            return None;
        }
        let now = net.now;
        let path = &mut net.paths[1 - to];
        let (&key, _) = path.in_flight.first_key_value()?;
        if key.0 > now {
            return None;
        }
        let (channel, bytes) = path.in_flight.remove(&key)?;
        path.stats.delivered.get_mut(channel).add(bytes.len());
        Some((channel, bytes))
    }

    fn state(&self) -> LinkState {
        self.net.borrow().states[self.index]
    }

    /// Bytes sent from this end that a throttle still holds in the queue,
    /// plus reliable bytes waiting for a severed direction to heal.
    fn send_backlog(&self) -> usize {
        let net = self.net.borrow();
        net.paths[self.index].backlog(net.now)
    }

    fn close(&mut self) {
        let mut net = self.net.borrow_mut();
        let i = self.index;
        if net.states[i] == LinkState::Failed || net.closed_locally[i] {
            return;
        }
        net.states[i] = LinkState::Closed;
        net.closed_locally[i] = true;
        // Nothing more reaches a closed endpoint.
        net.paths[1 - i].in_flight.clear();
        net.paths[1 - i].held.clear();
        net.schedule_close_notice(i);
    }
}
