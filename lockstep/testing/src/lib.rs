//! One driver for lockstep sessions in virtual time.
//!
//! Every scenario test, example and benchmark of the engine plays sessions
//! against each other over a simulated link ([`netsim`]) or the perfect
//! [`loopback`], frame by frame, with the clock jumping from one arrival
//! to the next. This crate is that loop, written once:
//!
//! * a [`Link`] joins two members: [`SimLink`] (latency, jitter, loss...
//!   on a virtual clock) or [`LoopbackLink`] (no delay);
//! * a [`Member`] is whatever plays one end: usually a [`Player`], a
//!   session of any game with its pad source and what it saw;
//! * a [`Net`] holds the links, each naming the two members it joins, and
//!   [`Net::step_frame`] runs one 60 Hz frame for every member, in the
//!   order its [`Schedule`] says (datagrams read on arrival, or also at
//!   each session's deadlines, or only at frame time).
//!
//! A member names its link to member `i` [`member_id`]`(i)`.
//!
//! ```
//! use lockstep::{DeterministicGame, Fnv1a, Millis, Session, SessionConfig};
//! use lockstep_testing::{LinkConfig, Member, Net, Pads, Player, SimLink};
//!
//! #[derive(Clone)]
//! struct Sum(u64);
//! impl DeterministicGame for Sum {
//!     type Input = u8;
//!     const BUILD_ID: u64 = 9;
//!     fn new(seed: u64, _: u8) -> Self { Sum(seed) }
//!     fn step(&mut self, i: &[u8]) { self.0 = self.0.wrapping_mul(31) + u64::from(i[0]) + 7 * u64::from(i[1]) }
//!     fn state_hash(&self) -> u64 { let mut h = Fnv1a::new(); h.write_u64(self.0); h.finish() }
//! }
//!
//! // Cannot fail: both configurations are valid.
//! let host = Session::<Sum>::new(SessionConfig::host(1, 4)).expect("valid");
//! let guest = Session::<Sum>::new(SessionConfig::guest()).expect("valid");
//! let mut players = [Player::new(host, Pads::new(1)), Player::new(guest, Pads::new(2))];
//! let link = LinkConfig { latency: Millis(30), loss_percent: 5, ..LinkConfig::default() };
//! let mut net = Net::new();
//! net.join(0, 1, SimLink::new(link, 7));
//! let [a, b] = &mut players;
//! for _ in 0..600 {
//!     net.step_frame(&mut [a as &mut dyn Member, b]);
//! }
//! assert!(a.session.confirmed_tick() > 500);
//! assert_eq!(a.seen.hash_at(480), b.seen.hash_at(480));
//! ```

use std::collections::BTreeMap;
use std::ops::{Deref, DerefMut};

use lockstep::{
    Channel, DeterministicGame, Event, Frame, Millis, PeerId, Session, SessionConfig, Transport,
};
pub use netsim::{LinkConfig, SimEndpoint};

/// Virtual time of frame `n` at 60 frames per second.
#[must_use]
pub fn frame_time(n: u64) -> Millis {
    Millis(n * 1000 / 60)
}

// ----- links ------------------------------------------------------------------

/// A link between two members, with its own clock (if it has delay).
pub trait Link {
    /// End 0 and end 1.
    fn ends(&mut self) -> (&mut dyn Transport, &mut dyn Transport);
    /// Moves the link's clock to `now` (a no-op for a link without delay).
    fn advance_to(&mut self, now: Millis);
    /// When the next datagram arrives at either end, if one is on its way
    /// and not deliverable yet.
    fn next_arrival(&self) -> Option<Millis>;
}

/// A link borrowed from the caller, who keeps it (to read its counters
/// after the match, say).
impl<L: Link + ?Sized> Link for &mut L {
    fn ends(&mut self) -> (&mut dyn Transport, &mut dyn Transport) {
        (**self).ends()
    }
    fn advance_to(&mut self, now: Millis) {
        (**self).advance_to(now);
    }
    fn next_arrival(&self) -> Option<Millis> {
        (**self).next_arrival()
    }
}

/// A simulated link: both ends of a [`netsim::pair`].
#[derive(Debug)]
pub struct SimLink(pub SimEndpoint, pub SimEndpoint);

impl SimLink {
    /// A fresh link with these conditions and this network seed.
    #[must_use]
    pub fn new(cfg: LinkConfig, seed: u64) -> Self {
        let (a, b) = netsim::pair(cfg, seed);
        SimLink(a, b)
    }

    /// What happened to the traffic so far: from end 0 to end 1, and back.
    #[must_use]
    pub fn stats(&self) -> [netsim::PathStats; 2] {
        [self.0.outgoing_stats(), self.1.outgoing_stats()]
    }
}

impl Link for SimLink {
    fn ends(&mut self) -> (&mut dyn Transport, &mut dyn Transport) {
        (&mut self.0, &mut self.1)
    }
    fn advance_to(&mut self, now: Millis) {
        // Both ends share one clock.
        self.0.advance_to(now);
    }
    fn next_arrival(&self) -> Option<Millis> {
        [self.0.poll_timeout(), self.1.poll_timeout()]
            .into_iter()
            .flatten()
            .min()
    }
}

/// The perfect in-process link: no delay, no loss, so no clock.
#[derive(Debug)]
pub struct LoopbackLink(
    pub loopback::LoopbackEndpoint,
    pub loopback::LoopbackEndpoint,
);

impl LoopbackLink {
    /// A fresh loopback pair.
    #[must_use]
    pub fn new() -> Self {
        let (a, b) = loopback::pair();
        LoopbackLink(a, b)
    }
}

impl Default for LoopbackLink {
    fn default() -> Self {
        Self::new()
    }
}

impl Link for LoopbackLink {
    fn ends(&mut self) -> (&mut dyn Transport, &mut dyn Transport) {
        (&mut self.0, &mut self.1)
    }
    fn advance_to(&mut self, _now: Millis) {}
    fn next_arrival(&self) -> Option<Millis> {
        None
    }
}

// ----- members ----------------------------------------------------------------

/// One end of the simulated match: what the driver feeds and advances.
pub trait Member {
    /// Feeds what `end` (its link to member `peer`, named by that
    /// member's index in the net) received, checks deadlines and sends
    /// what is queued for it (a session's `pump`), then takes note of what
    /// happened.
    fn pump(&mut self, now: Millis, peer: PeerId, end: &mut dyn Transport);
    /// One display frame at `now`.
    fn frame(&mut self, now: Millis);
    /// When the member next wants to be pumped without a datagram (a
    /// session's `poll_timeout`). Only [`Schedule::Deadlines`] asks.
    fn poll_timeout(&self) -> Option<Millis> {
        None
    }
}

/// Where a player's pads come from. The game is the session's present
/// state, for a bot that looks at it.
pub trait PadSource<G: DeterministicGame> {
    /// Whether [`next_pad`](Self::next_pad) looks at the game (else it is
    /// passed `None`, and the game is not copied for it).
    const LOOKS: bool = false;
    /// The next pad.
    fn next_pad(&mut self, game: Option<&G>) -> G::Input;
}

/// A seeded pad source: each time it is sampled, the pad changes to a new
/// pseudo-random byte with probability 1/`odds` (1/3 by default) and is
/// held otherwise (players hold buttons).
#[derive(Clone, Debug)]
pub struct Pads {
    state: u64,
    sampled: u64,
    pad: u8,
    odds: u64,
}

impl Pads {
    /// Changes one sample in three.
    #[must_use]
    pub fn new(seed: u64) -> Self {
        Pads::changing_one_in(seed, 3)
    }

    /// Changes one sample in `odds` (a human player changes far less often
    /// than one frame in three).
    #[must_use]
    pub fn changing_one_in(seed: u64, odds: u64) -> Self {
        Pads {
            state: seed ^ 0x5151_5151,
            sampled: 0,
            pad: 0,
            odds: odds.max(1),
        }
    }

    /// How many pads were sampled.
    #[must_use]
    pub fn sampled(&self) -> u64 {
        self.sampled
    }

    /// The next pad.
    pub fn sample(&mut self) -> u8 {
        self.sampled += 1;
        self.state = self
            .state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let r = self.state >> 32;
        if r.is_multiple_of(self.odds) {
            self.pad = (r >> 8) as u8;
        }
        self.pad
    }
}

impl<G: DeterministicGame<Input = u8>> PadSource<G> for Pads {
    fn next_pad(&mut self, _game: Option<&G>) -> u8 {
        self.sample()
    }
}

/// Everything one member saw.
#[derive(Debug, Default)]
pub struct Seen {
    /// The confirmed state's hash, by tick, recorded after every pump (in
    /// lock-step every tick; in rollback the confirmed tick moves in
    /// steps).
    pub hashes: BTreeMap<u32, u64>,
    /// Every event, in order.
    pub events: Vec<Event>,
    /// What every frame did.
    pub frames: Vec<Frame>,
    /// Hash checks that agreed.
    pub hash_matches: u32,
    /// Round trips measured.
    pub round_trips: Vec<Millis>,
    /// Whether the match started.
    pub started: bool,
}

impl Seen {
    /// Drains `s`'s events and records its confirmed state's hash.
    pub fn record<G: DeterministicGame>(&mut self, s: &mut Session<G>) {
        while let Some(e) = s.poll_event() {
            match &e {
                Event::HashMatched(_) => self.hash_matches += 1,
                Event::RoundTrip(rtt) => self.round_trips.push(*rtt),
                Event::Started { .. } | Event::Watching { .. } => self.started = true,
                _ => {}
            }
            self.events.push(e);
        }
        let c = s.confirmed_tick();
        if c > 0 && !self.hashes.contains_key(&c) {
            if let Some(g) = s.confirmed_game() {
                self.hashes.insert(c, g.state_hash());
            }
        }
    }

    /// The confirmed state's hash at `tick`, if it was recorded.
    #[must_use]
    pub fn hash_at(&self, tick: u32) -> Option<u64> {
        self.hashes.get(&tick).copied()
    }
}

/// A session of game `G` played by pad source `P`, with what it saw.
/// Derefs to the session.
pub struct Player<G: DeterministicGame, P> {
    /// The session.
    pub session: Session<G>,
    /// Where its pads come from.
    pub pads: P,
    /// What it saw.
    pub seen: Seen,
    /// When false the session gets no frames (its player's tab is frozen);
    /// it is still pumped.
    pub runs: bool,
    /// When true the page's thread is blocked: the session is neither
    /// pumped nor run, so it sends nothing, and what reaches it is taken
    /// off its links (as a browser's network stack does) and waits until
    /// the page is free again.
    pub busy: bool,
    /// What reached a busy page, in arrival order.
    waiting: Vec<(PeerId, Channel, Vec<u8>)>,
}

impl<G: DeterministicGame, P: PadSource<G>> Player<G, P> {
    /// A running player.
    pub fn new(session: Session<G>, pads: P) -> Self {
        Player {
            session,
            pads,
            seen: Seen::default(),
            runs: true,
            busy: false,
            waiting: Vec::new(),
        }
    }
}

impl<G: DeterministicGame, P> Deref for Player<G, P> {
    type Target = Session<G>;
    fn deref(&self) -> &Session<G> {
        &self.session
    }
}

impl<G: DeterministicGame, P> DerefMut for Player<G, P> {
    fn deref_mut(&mut self) -> &mut Session<G> {
        &mut self.session
    }
}

impl<G: DeterministicGame, P: PadSource<G>> Member for Player<G, P> {
    fn pump(&mut self, now: Millis, peer: PeerId, end: &mut dyn Transport) {
        if self.busy {
            while let Some((channel, bytes)) = end.recv() {
                self.waiting.push((peer, channel, bytes));
            }
            return;
        }
        for (from, channel, bytes) in std::mem::take(&mut self.waiting) {
            self.session.handle_datagram(now, from, channel, &bytes);
        }
        self.session.pump(now, peer, end);
        self.seen.record(&mut self.session);
    }

    fn frame(&mut self, now: Millis) {
        if !self.runs || self.busy {
            return;
        }
        let Player { session, pads, .. } = self;
        let view = if P::LOOKS {
            session.game().cloned()
        } else {
            None
        };
        let f = session.advance_frame(now, || pads.next_pad(view.as_ref()));
        self.seen.frames.push(f);
    }

    fn poll_timeout(&self) -> Option<Millis> {
        self.session.poll_timeout().filter(|_| !self.busy)
    }
}

// ----- the net ----------------------------------------------------------------

/// How a member names its link to member `i`: by `i` (members are few).
#[must_use]
pub fn member_id(i: usize) -> PeerId {
    PeerId(u16::try_from(i).unwrap_or(u16::MAX))
}

/// In which order the driver pumps members, delivers datagrams and runs
/// frames. Every schedule runs one frame per member at each 60 Hz frame
/// time; they differ in what happens between frames.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Schedule {
    /// Between frames the clock jumps to each datagram's arrival and every
    /// member is pumped there, so sessions see datagrams (and measure round
    /// trips) when they arrive. At a frame: pump everyone, run everyone's
    /// frame, pump everyone to send what the frames produced.
    #[default]
    Arrivals,
    /// As a real host with timers: the clock also stops at every member's
    /// own deadline ([`Member::poll_timeout`]: a resend, a ping, a
    /// timeout), and every wake ends by pumping every member twice, so
    /// that over a link without delay a reply to what was just sent is
    /// heard at the same moment.
    Deadlines,
    /// Datagrams are read only at frame time, one member after the other:
    /// each is pumped (what arrived is read), runs its frame and is pumped
    /// again (what it produced is sent) before the next member's turn. This
    /// is how GGRS's own examples drive their sessions.
    FrameOnly,
}

/// What one [`Net::step`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wake {
    /// Members were pumped at this time between frames (an arrival or a
    /// deadline).
    Between(Millis),
    /// A frame ran at this time.
    Frame(Millis),
}

/// A link and the two members it joins (indices into the members passed
/// to [`Net::step_frame`]).
struct Joined<L> {
    ends: [usize; 2],
    link: L,
}

/// Links between members, the schedule, the clock and the frame count.
pub struct Net<L: Link = SimLink> {
    links: Vec<Joined<L>>,
    schedule: Schedule,
    now: Millis,
    /// Frames run so far.
    pub frame: u64,
}

impl<L: Link> Default for Net<L> {
    fn default() -> Self {
        Net::new()
    }
}

impl<L: Link> Net<L> {
    /// A net with no links, on the [`Schedule::Arrivals`] schedule.
    #[must_use]
    pub fn new() -> Self {
        Net::with_schedule(Schedule::default())
    }

    /// A net with no links, on `schedule`.
    #[must_use]
    pub fn with_schedule(schedule: Schedule) -> Self {
        Net {
            links: Vec::new(),
            schedule,
            now: Millis::ZERO,
            frame: 0,
        }
    }

    /// Joins member `a` (end 0) and member `b` (end 1) with `link`.
    pub fn join(&mut self, a: usize, b: usize, link: L) -> &mut Self {
        self.links.push(Joined { ends: [a, b], link });
        self
    }

    /// The link joining `a` and `b` (either way round), if any.
    #[must_use]
    pub fn link(&self, a: usize, b: usize) -> Option<&L> {
        self.links
            .iter()
            .find(|j| j.ends == [a, b] || j.ends == [b, a])
            .map(|j| &j.link)
    }

    /// The same, to change it (close an end, say).
    pub fn link_mut(&mut self, a: usize, b: usize) -> Option<&mut L> {
        self.links
            .iter_mut()
            .find(|j| j.ends == [a, b] || j.ends == [b, a])
            .map(|j| &mut j.link)
    }

    /// The driver's clock: the time of the last wake.
    #[must_use]
    pub fn now(&self) -> Millis {
        self.now
    }

    /// Pumps every member over each of its links at the present time, for
    /// whatever a caller did to a member between steps (a quit, say) to
    /// reach the link at once.
    pub fn pump(&mut self, members: &mut [&mut dyn Member]) {
        let now = self.now;
        self.pump_all(now, members);
    }

    /// Pumps every member over each of its links, at `now`.
    fn pump_all(&mut self, now: Millis, members: &mut [&mut dyn Member]) {
        for j in &mut self.links {
            let (e0, e1) = j.link.ends();
            let [a, b] = j.ends;
            if let Some(m) = members.get_mut(a) {
                m.pump(now, member_id(b), e0);
            }
            if let Some(m) = members.get_mut(b) {
                m.pump(now, member_id(a), e1);
            }
        }
    }

    /// Pumps member `i` over each of its links, at `now`.
    fn pump_one(&mut self, i: usize, now: Millis, member: &mut dyn Member) {
        for j in &mut self.links {
            let (e0, e1) = j.link.ends();
            let [a, b] = j.ends;
            if a == i {
                member.pump(now, member_id(b), e0);
            }
            if b == i {
                member.pump(now, member_id(a), e1);
            }
        }
    }

    /// The earliest arrival on any link.
    fn next_arrival(&self) -> Option<Millis> {
        self.links
            .iter()
            .filter_map(|j| j.link.next_arrival())
            .min()
    }

    /// The next moment something other than a frame happens, if before
    /// (or, for an arrival on [`Schedule::Arrivals`], at) frame time `t`.
    fn next_between(&self, t: Millis, members: &[&mut dyn Member]) -> Option<Millis> {
        match self.schedule {
            Schedule::Arrivals => self.next_arrival().filter(|&at| at <= t),
            Schedule::Deadlines => members
                .iter()
                .filter_map(|m| m.poll_timeout())
                .chain(self.next_arrival())
                .min()
                .filter(|&at| at < t),
            Schedule::FrameOnly => None,
        }
    }

    /// Runs the next wake of the schedule: pumps at the next arrival or
    /// deadline before the next frame time ([`frame_time`] of
    /// [`frame`](Self::frame)), or runs that frame. The clock never goes
    /// back (a deadline already past is served now).
    pub fn step(&mut self, members: &mut [&mut dyn Member]) -> Wake {
        let t = frame_time(self.frame);
        match self.next_between(t, members) {
            Some(at) => Wake::Between(self.wake_between(at, members)),
            None => {
                let t = t.max(self.now);
                self.run_frame(t, members);
                Wake::Frame(t)
            }
        }
    }

    /// Runs one 60 Hz frame (frame [`frame`](Self::frame), at
    /// [`frame_time`]), after every wake of the schedule before it.
    pub fn step_frame(&mut self, members: &mut [&mut dyn Member]) {
        while let Wake::Between(_) = self.step(members) {}
    }

    /// Runs one frame at `t` (a wall clock's time, say: frames that came
    /// late are not caught up), after every wake of the schedule before it.
    pub fn step_frame_at(&mut self, t: Millis, members: &mut [&mut dyn Member]) {
        while let Some(at) = self.next_between(t, members) {
            self.wake_between(at, members);
        }
        self.run_frame(t.max(self.now), members);
    }

    /// A wake between frames at `at` (or now, if `at` is past): every
    /// link's clock moves there and every member is pumped. Returns the
    /// time.
    fn wake_between(&mut self, at: Millis, members: &mut [&mut dyn Member]) -> Millis {
        let at = at.max(self.now);
        self.now = at;
        self.advance_to(at);
        self.pump_all(at, members);
        if self.schedule == Schedule::Deadlines {
            self.pump_all(at, members);
        }
        at
    }

    /// The frame itself, at `t`, in the schedule's order.
    fn run_frame(&mut self, t: Millis, members: &mut [&mut dyn Member]) {
        self.now = t;
        self.advance_to(t);
        match self.schedule {
            Schedule::Arrivals | Schedule::Deadlines => {
                self.pump_all(t, members);
                for m in members.iter_mut() {
                    m.frame(t);
                }
                self.pump_all(t, members);
                if self.schedule == Schedule::Deadlines {
                    self.pump_all(t, members);
                }
            }
            Schedule::FrameOnly => {
                for (i, m) in members.iter_mut().enumerate() {
                    self.pump_one(i, t, *m);
                    m.frame(t);
                    self.pump_one(i, t, *m);
                }
            }
        }
        self.frame += 1;
    }

    /// Moves every link's clock to `now`.
    fn advance_to(&mut self, now: Millis) {
        for j in &mut self.links {
            j.link.advance_to(now);
        }
    }
}

// ----- a mesh of players ------------------------------------------------------

/// A match of `n` players in one line: member 0 hosts with `host`, the
/// others join with `guest`, every pair of members is joined by its own
/// [`SimLink`] with the same conditions (a full mesh; each link's network
/// seed differs), and each player's pads are seeded apart. The host gives
/// the links slots in the order they open, which is member order, so
/// member `i` plays slot `i`.
pub struct Mesh<G: DeterministicGame> {
    /// The links.
    pub net: Net<SimLink>,
    /// The players, host first.
    pub players: Vec<Player<G, Pads>>,
    /// Spectators, each joined to the host alone: spectator `k` is
    /// member `players.len() + k` (see [`add_spectator`](Self::add_spectator)).
    pub spectators: Vec<Player<G, Pads>>,
    /// The guests' configuration, the links' conditions and the seed, for
    /// a player's reload.
    guest: SessionConfig,
    link: LinkConfig,
    seed: u64,
    /// Links made anew by reloads so far (each gets its own seed).
    relinked: u64,
}

impl<G: DeterministicGame<Input = u8>> Mesh<G> {
    /// `n` players (see the type's documentation).
    ///
    /// # Panics
    ///
    /// If a configuration is refused (a mistake in the test).
    #[must_use]
    pub fn new(
        n: u8,
        host: SessionConfig,
        guest: SessionConfig,
        link: LinkConfig,
        seed: u64,
    ) -> Self {
        Mesh::with_schedule(Schedule::default(), n, host, guest, link, seed)
    }

    /// The same, on `schedule` ([`Schedule::FrameOnly`] wakes the players
    /// only at frame times: far fewer wakes in a large mesh).
    ///
    /// # Panics
    ///
    /// If a configuration is refused (a mistake in the test).
    #[must_use]
    pub fn with_schedule(
        schedule: Schedule,
        n: u8,
        host: SessionConfig,
        guest: SessionConfig,
        link: LinkConfig,
        seed: u64,
    ) -> Self {
        let mut net = Net::with_schedule(schedule);
        let mut pair = 0u64;
        for a in 0..usize::from(n) {
            for b in a + 1..usize::from(n) {
                pair += 1;
                net.join(
                    a,
                    b,
                    SimLink::new(link, seed.wrapping_mul(97).wrapping_add(pair)),
                );
            }
        }
        let players = (0..u64::from(n))
            .map(|i| {
                let cfg = if i == 0 { host.players(n) } else { guest };
                // Cannot fail unless the test passed a bad configuration.
                let session = Session::new(cfg).expect("a valid configuration");
                Player::new(session, Pads::new(seed.wrapping_mul(31).wrapping_add(i)))
            })
            .collect();
        Mesh {
            net,
            players,
            spectators: Vec::new(),
            guest,
            link,
            seed,
            relinked: 0,
        }
    }

    /// Player `i`'s page reloads: its session is destroyed with its links,
    /// and a fresh one (the guests' configuration, rejoining its slot with
    /// the token its old session kept) plays on fresh links to everyone,
    /// with the same pad source. The others keep their sessions and name
    /// the new links as the old ones. Fails (changing nothing) for a
    /// session that cannot rejoin: the host's (slot 0).
    ///
    /// # Errors
    ///
    /// The configuration error of the fresh session.
    pub fn reload(&mut self, i: usize) -> Result<(), lockstep::ConfigError> {
        let token = self
            .players
            .get(i)
            .and_then(|p| p.rejoin_token())
            .unwrap_or(0);
        self.reload_with_token(i, token)
    }

    /// [`reload`](Self::reload) with the token given (a wrong one, say).
    ///
    /// # Errors
    ///
    /// The configuration error of the fresh session.
    pub fn reload_with_token(&mut self, i: usize, token: u64) -> Result<(), lockstep::ConfigError> {
        let slot = self.players.get(i).and_then(|p| p.side()).unwrap_or(0);
        self.reload_as(i, self.guest.rejoin(slot, token))
    }

    /// Player `i`'s page reloads as [`reload`](Self::reload) says, and
    /// its fresh session is made with `cfg` (the host's coming back with
    /// [`SessionConfig::back_as_host`], say).
    ///
    /// # Errors
    ///
    /// The configuration error of the fresh session.
    pub fn reload_as(&mut self, i: usize, cfg: SessionConfig) -> Result<(), lockstep::ConfigError> {
        let session = Session::new(cfg)?;
        let now = self.net.now();
        for j in 0..self.players.len() {
            if j == i {
                continue;
            }
            self.relinked += 1;
            let seed = self
                .seed
                .wrapping_mul(101)
                .wrapping_add(1000 + self.relinked);
            let fresh = SimLink::new(self.link, seed);
            if let Some(l) = self.net.link_mut(i, j) {
                *l = fresh;
                l.0.advance_to(now);
            }
        }
        if let Some(p) = self.players.get_mut(i) {
            let pads = p.pads.clone();
            *p = Player::new(session, pads);
        }
        Ok(())
    }

    /// A new page enters the match now with configuration `cfg` (a
    /// [`SessionConfig::join`], say): a player member after the others,
    /// joined to each player in `to` (those still in the match: a page
    /// links to the members the room lists) by a fresh link with the
    /// mesh's conditions, its pads seeded apart. The others name the link by its index, as
    /// any link. Call it before adding spectators (they come after the
    /// players in member order). Returns its index in
    /// [`players`](Self::players).
    ///
    /// # Errors
    ///
    /// The configuration error of its session.
    ///
    /// # Panics
    ///
    /// If the mesh has spectators already (a mistake in the test).
    pub fn add_player(
        &mut self,
        cfg: SessionConfig,
        to: &[usize],
    ) -> Result<usize, lockstep::ConfigError> {
        assert!(self.spectators.is_empty(), "add players before spectators");
        let session = Session::new(cfg)?;
        let i = self.players.len();
        let now = self.net.now();
        for &j in to.iter().filter(|&&j| j < i) {
            self.relinked += 1;
            let seed = self
                .seed
                .wrapping_mul(103)
                .wrapping_add(5000 + self.relinked);
            let fresh = SimLink::new(self.link, seed);
            fresh.0.advance_to(now);
            self.net.join(j, i, fresh);
        }
        let pads = Pads::new(self.seed.wrapping_mul(31).wrapping_add(i as u64));
        self.players.push(Player::new(session, pads));
        Ok(i)
    }

    /// Cuts the link between players `a` and `b` both ways: unreliable
    /// datagrams on it are lost, reliable ones wait for
    /// [`restore`](Self::restore) (a cable pulled, a Wi-Fi blip).
    pub fn sever(&mut self, a: usize, b: usize) {
        if let Some(l) = self.net.link(a, b) {
            l.0.sever_both();
        }
    }

    /// Reconnects the link between players `a` and `b`.
    pub fn restore(&mut self, a: usize, b: usize) {
        if let Some(l) = self.net.link(a, b) {
            l.0.heal_both();
        }
    }

    /// Cuts every link of player `i` (see [`sever`](Self::sever)).
    pub fn sever_player(&mut self, i: usize) {
        for j in 0..self.players.len() {
            self.sever(i, j);
        }
    }

    /// Reconnects every link of player `i`.
    pub fn restore_player(&mut self, i: usize) {
        for j in 0..self.players.len() {
            self.restore(i, j);
        }
    }

    /// Runs `frames` frames for every player.
    pub fn run_frames(&mut self, frames: u64) {
        for _ in 0..frames {
            self.step_frame();
        }
    }

    /// Runs one frame for every player and spectator.
    pub fn step_frame(&mut self) {
        let mut members: Vec<&mut dyn Member> = self
            .players
            .iter_mut()
            .chain(self.spectators.iter_mut())
            .map(|p| p as &mut dyn Member)
            .collect();
        self.net.step_frame(&mut members);
    }

    /// A spectator joins now, with configuration `cfg` (a
    /// [`SessionConfig::spectator`]), over a fresh link to the host with
    /// conditions `link` and network seed `net_seed`; the host is told
    /// the link leads to a spectator. Returns its index in
    /// [`spectators`](Self::spectators).
    ///
    /// # Errors
    ///
    /// The configuration error of its session.
    pub fn add_spectator(
        &mut self,
        cfg: SessionConfig,
        link: LinkConfig,
        net_seed: u64,
    ) -> Result<usize, lockstep::ConfigError> {
        let session = Session::new(cfg)?;
        let k = self.spectators.len();
        let member = self.players.len() + k;
        let now = self.net.now();
        let fresh = SimLink::new(link, net_seed);
        fresh.0.advance_to(now);
        self.net.join(0, member, fresh);
        if let Some(host) = self.players.first_mut() {
            host.add_spectator(now, member_id(member));
        }
        self.spectators.push(Player::new(session, Pads::new(0)));
        Ok(k)
    }

    /// Spectator `k`'s link to the host, to cut or read it.
    #[must_use]
    pub fn spectator_link(&self, k: usize) -> Option<&SimLink> {
        self.net.link(0, self.players.len() + k)
    }

    /// Runs at most `frames` more frames, until every player in `who` has
    /// ended. Returns whether they all did.
    pub fn run_until_all_end_of(&mut self, who: &[usize], frames: u64) -> bool {
        let stop = self.net.frame + frames;
        loop {
            let ended = who
                .iter()
                .all(|&i| self.players.get(i).is_none_or(|p| p.outcome().is_some()));
            if ended {
                return true;
            }
            if self.net.frame >= stop {
                return false;
            }
            self.step_frame();
        }
    }

    /// Runs frames until the first `n` players' confirmed ticks reach
    /// `ticks`, at most `max_frames` in all; the players past them (gone,
    /// cut off) may end meanwhile. Returns whether they got there.
    ///
    /// # Panics
    ///
    /// When one of the first `n` ends before, with the progress of all.
    pub fn run_first_to_confirmed(&mut self, n: usize, ticks: u32, max_frames: u64) -> bool {
        while self.net.frame < max_frames {
            let first = self.players.get(..n).unwrap_or(&self.players);
            if first.iter().all(|p| p.confirmed_tick() >= ticks) {
                return true;
            }
            assert!(
                first.iter().all(|p| p.outcome().is_none()),
                "a player ended early: {}",
                self.progress()
            );
            self.step_frame();
        }
        false
    }

    /// Runs frames until every player's confirmed tick reaches `ticks`
    /// (or one has ended), at most `max_frames` in all. Returns whether
    /// all got there.
    pub fn run_to_confirmed(&mut self, ticks: u32, max_frames: u64) -> bool {
        while self.net.frame < max_frames {
            if self.players.iter().all(|p| p.confirmed_tick() >= ticks) {
                return true;
            }
            if self.players.iter().any(|p| p.outcome().is_some()) {
                return false;
            }
            self.step_frame();
        }
        false
    }

    /// Runs frames until every player has ended, at most `max_frames` in
    /// all; returns the outcomes in member order.
    pub fn run_until_all_end(&mut self, max_frames: u64) -> Vec<Option<lockstep::Outcome>> {
        while self.net.frame < max_frames && self.players.iter().any(|p| p.outcome().is_none()) {
            self.step_frame();
        }
        self.players.iter().map(|p| p.outcome().cloned()).collect()
    }

    /// Where every player stands, for a failed assertion's message.
    #[must_use]
    pub fn progress(&self) -> String {
        let each: Vec<String> = self
            .players
            .iter()
            .map(|p| {
                format!(
                    "{} (confirmed {}) {:?}",
                    p.tick(),
                    p.confirmed_tick(),
                    p.outcome()
                )
            })
            .collect();
        format!("after {} frames: {}", self.net.frame, each.join(" / "))
    }
}

/// The two ways a session plays: every scenario runs in both.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Prediction window 0: a tick runs only when both inputs are known.
    LockStep,
    /// Prediction window 8: missing remote inputs are predicted.
    Rollback,
}

/// Both modes, lock-step first.
pub const MODES: [Mode; 2] = [Mode::LockStep, Mode::Rollback];

impl Mode {
    /// `cfg` in this mode.
    pub fn cfg(self, cfg: SessionConfig) -> SessionConfig {
        match self {
            Mode::LockStep => cfg,
            Mode::Rollback => cfg.rollback(),
        }
    }
}

/// Runs `f` in both modes, saying which one runs (shown on failure).
pub fn in_both_modes(mut f: impl FnMut(Mode)) {
    for mode in MODES {
        eprintln!("--- mode {mode:?}");
        f(mode);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lockstep::Channel;

    /// Sends one datagram after each of its frames; records when it was
    /// pumped, when it read a datagram and when its frames ran.
    #[derive(Default)]
    struct Recorder {
        deadline: Option<Millis>,
        to_send: u32,
        pumped: Vec<Millis>,
        received: Vec<Millis>,
        frames: Vec<Millis>,
    }

    impl Member for Recorder {
        fn pump(&mut self, now: Millis, _peer: PeerId, end: &mut dyn Transport) {
            self.pumped.push(now);
            if self.deadline.is_some_and(|d| d <= now) {
                self.deadline = None;
            }
            while end.recv().is_some() {
                self.received.push(now);
            }
            for _ in 0..std::mem::take(&mut self.to_send) {
                end.send(Channel::Unreliable, b"x").expect("link open");
            }
        }
        fn frame(&mut self, now: Millis) {
            self.frames.push(now);
            self.to_send += 1;
        }
        fn poll_timeout(&self) -> Option<Millis> {
            self.deadline
        }
    }

    fn run(schedule: Schedule, frames: u64) -> [Recorder; 2] {
        let link = LinkConfig {
            latency: Millis(7),
            ..LinkConfig::default()
        };
        let mut net = Net::with_schedule(schedule);
        net.join(0, 1, SimLink::new(link, 1));
        let mut a = Recorder {
            deadline: Some(Millis(5)),
            ..Recorder::default()
        };
        let mut b = Recorder::default();
        for _ in 0..frames {
            net.step_frame(&mut [&mut a, &mut b]);
        }
        assert_eq!(net.frame, frames);
        [a, b]
    }

    fn is_frame_time(t: Millis) -> bool {
        (0..100).any(|n| frame_time(n) == t)
    }

    #[test]
    fn arrivals_are_read_when_they_arrive() {
        let [a, b] = run(Schedule::Arrivals, 10);
        assert_eq!(a.frames.len(), 10);
        // Frame n sends at frame_time(n); it lands 7 ms later, between frames.
        assert_eq!(b.received.first(), Some(&Millis(7)));
        assert!(b.received.iter().all(|&t| !is_frame_time(t)));
        // No wake for a deadline on this schedule.
        assert!(!a.pumped.contains(&Millis(5)));
    }

    #[test]
    fn deadlines_wake_the_member_and_every_wake_pumps_twice() {
        let [a, b] = run(Schedule::Deadlines, 10);
        assert_eq!(a.pumped.iter().filter(|&&t| t == Millis(5)).count(), 2);
        assert_eq!(b.received.first(), Some(&Millis(7)));
        assert_eq!(a.received.len(), 9);
    }

    #[test]
    fn frame_only_reads_datagrams_at_frame_time_member_by_member() {
        let [a, b] = run(Schedule::FrameOnly, 10);
        assert!(a.pumped.iter().chain(&b.pumped).all(|&t| is_frame_time(t)));
        // Sent at frame 0 (0 ms), arrived at 7 ms, read at frame 1 (16 ms).
        assert_eq!(b.received.first(), Some(&frame_time(1)));
        assert_eq!(b.received.len(), 9);
        assert_eq!(a.frames, b.frames);
    }

    #[test]
    fn a_frame_at_a_given_time_is_not_caught_up() {
        let mut net = Net::with_schedule(Schedule::FrameOnly);
        net.join(0, 1, LoopbackLink::new());
        let (mut a, mut b) = (Recorder::default(), Recorder::default());
        net.step_frame_at(Millis(100), &mut [&mut a, &mut b]);
        net.step_frame_at(Millis(40), &mut [&mut a, &mut b]);
        // The clock never goes back, and over the loopback the guest reads
        // the host's datagram in the host's own frame.
        assert_eq!(a.frames, vec![Millis(100), Millis(100)]);
        assert_eq!(b.received, vec![Millis(100), Millis(100)]);
        assert_eq!(net.now(), Millis(100));
    }
}

// ----- a game for scenarios -------------------------------------------------

/// Dots in a game whose matches play on when a player left and take a new
/// player into the slot it left; with `SAVES`, a newcomer catches up from
/// Dots' saved state, else by replaying every input; with `BENCHES`, a
/// dropped player's slot plays on neutral while it is held. Same build id
/// and input as Dots.
#[derive(Clone, Debug)]
pub struct OpenDots<const SAVES: bool, const BENCHES: bool = false>(pub dots::Dots);

impl<const SAVES: bool, const BENCHES: bool> DeterministicGame for OpenDots<SAVES, BENCHES> {
    type Input = u8;
    const BUILD_ID: u64 = dots::Dots::BUILD_ID;

    fn new(seed: u64, players: u8) -> Self {
        OpenDots(dots::Dots::new(seed, players))
    }

    fn step(&mut self, inputs: &[u8]) {
        self.0.step(inputs);
    }

    fn state_hash(&self) -> u64 {
        self.0.state_hash()
    }

    fn plays_on_after_leave(remaining: u8) -> bool {
        remaining >= 2
    }

    fn plays_on_while_held(_players: u8) -> bool {
        BENCHES
    }

    fn takes_joiners(_players: u8) -> bool {
        true
    }

    fn save(&self) -> Option<Vec<u8>> {
        if SAVES {
            self.0.save()
        } else {
            None
        }
    }

    fn load(bytes: &[u8]) -> Option<Self> {
        dots::Dots::load(bytes).map(OpenDots)
    }
}

/// [`OpenDots`] (no saved state) in a game that also plays a dropped
/// player's slot on with the neutral input while it is held, so nobody
/// waits for it (see `DeterministicGame::plays_on_while_held`).
pub type BenchDots = OpenDots<false, true>;

/// The input [`StandInDots`] plays for a slot nobody drives: a byte no
/// [`Pads`] source would hold for long, read by its `step` as "the game's
/// stand-in steers this dot".
pub const STAND_IN: u8 = 0x80;

/// Dots with a stand-in of its own: a slot nobody drives (benched while
/// its player is away, or left for good) plays [`STAND_IN`]
/// (`DeterministicGame::absent_input`), and on that input the dot walks
/// towards the coin instead of standing still. Its matches play on after
/// a leave and take joiners, as [`OpenDots`]; with `BENCHES` (the
/// default) a dropped player's slot also plays on while it is held, as
/// [`BenchDots`]. Its own build id (it plays differently from Dots).
#[derive(Clone, Debug)]
pub struct StandInDots<const BENCHES: bool = true>(pub dots::Dots);

impl<const BENCHES: bool> StandInDots<BENCHES> {
    /// The pad the stand-in presses for a dot at `(x, y)`: one step
    /// towards the coin on each axis (no wrapping shortcut).
    #[must_use]
    pub fn chase(&self, x: u8, y: u8) -> u8 {
        let (cx, cy) = self.0.coin();
        let axis = |from: u8, to: u8, minus: u8, plus: u8| match from.cmp(&to) {
            core::cmp::Ordering::Less => plus,
            core::cmp::Ordering::Greater => minus,
            core::cmp::Ordering::Equal => 0,
        };
        axis(x, cx, dots::LEFT, dots::RIGHT) | axis(y, cy, dots::UP, dots::DOWN)
    }
}

impl<const BENCHES: bool> DeterministicGame for StandInDots<BENCHES> {
    type Input = u8;
    const BUILD_ID: u64 = dots::Dots::BUILD_ID ^ 0x57a4_d140;

    fn new(seed: u64, players: u8) -> Self {
        Self(dots::Dots::new(seed, players))
    }

    fn step(&mut self, inputs: &[u8]) {
        let mut pads = [0u8; 8];
        for ((pad, &input), p) in pads.iter_mut().zip(inputs).zip(self.0.players()) {
            *pad = if input == STAND_IN {
                self.chase(p.x, p.y)
            } else {
                input
            };
        }
        let n = inputs.len().min(pads.len());
        self.0.step(&pads[..n]);
    }

    fn state_hash(&self) -> u64 {
        self.0.state_hash()
    }

    fn absent_input(_players: u8, _slot: u8) -> u8 {
        STAND_IN
    }

    fn plays_on_after_leave(remaining: u8) -> bool {
        remaining >= 2
    }

    fn plays_on_while_held(_players: u8) -> bool {
        BENCHES
    }

    fn takes_joiners(_players: u8) -> bool {
        true
    }
}
