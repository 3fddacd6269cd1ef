//! The host: runs the game, seats guests, sends each its snapshots and
//! events.

mod slot;

use std::collections::{BTreeMap, VecDeque};

use lockstep::{Channel, Millis};

use crate::delta::{self, Op};
use crate::game::{AuthoritativeGame, Recipients, Seat};
use crate::rng::SplitMix64;
use crate::wire::{
    self, Body, ByeReason, Echo, RefuseReason, Snapshot, ToGuest, ToHost, Token, MAX_DATAGRAM,
    MAX_EVENTS_PER_MESSAGE, MAX_ITEM_BYTES, PROTOCOL, TOKEN_LEN,
};
pub use slot::SeatStats;
use slot::{Presence, Slot};

/// Most guests a host seats (seats 1 to 10; the host's own player is seat 0).
pub const MAX_GUESTS: u8 = 10;
/// Send backlog past which a guest's snapshots are skipped (64 KiB).
pub const BACKLOG_LIMIT: usize = 64 * 1024;
/// Snapshots without an acknowledgement after which the host sends whole
/// snapshots, reliably.
pub const WHOLE_AFTER: u32 = 100;
/// Commands a guest may have waiting; more is a flood and ends its visit.
pub const MAX_QUEUED_COMMANDS: usize = 256;
/// Events a guest may have unacknowledged; more ends its visit (it stopped
/// acknowledging, and keeping them all would be unbounded).
pub const MAX_PENDING_EVENTS: usize = 4096;
/// Most ticks run in one call when the caller fell behind; the rest of the
/// time is skipped, not caught up.
pub const MAX_CATCH_UP: u32 = 5;

/// A link (one guest's transport) as the host knows it; the caller picks
/// no numbers, [`Host::handle_connect`] hands them out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LinkId(pub u32);

/// How a host runs. Build with [`HostConfig::new`] and the setters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[must_use]
pub struct HostConfig {
    /// Milliseconds per tick (1 to 1000).
    pub tick_ms: u16,
    /// A snapshot every this many ticks (1 to 60).
    pub snapshot_every: u8,
    /// Seats for guests (1 to [`MAX_GUESTS`]).
    pub max_guests: u8,
    /// Seeds the rejoin tokens. Pass fresh randomness in production (the
    /// host reads none itself); a fixed number in tests.
    pub seed: u64,
    /// How long a dropped guest's seat waits for it to rejoin.
    pub rejoin_grace: Millis,
    /// A guest silent this long counts as dropped.
    pub silence_timeout: Millis,
    /// A guest's snapshots are skipped while its backlog is over this.
    pub backlog_limit: usize,
}

/// A configuration value out of range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfigError {
    /// `tick_ms` is 0 or over 1000.
    TickMs(u16),
    /// `snapshot_every` is 0 or over 60.
    SnapshotEvery(u8),
    /// `max_guests` is 0 or over [`MAX_GUESTS`].
    MaxGuests(u8),
}

impl core::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            ConfigError::TickMs(v) => write!(f, "tick_ms {v} is not 1 to 1000"),
            ConfigError::SnapshotEvery(v) => write!(f, "snapshot_every {v} is not 1 to 60"),
            ConfigError::MaxGuests(v) => write!(f, "max_guests {v} is not 1 to {MAX_GUESTS}"),
        }
    }
}

impl std::error::Error for ConfigError {}

impl HostConfig {
    /// 30 ticks a second (33 ms), a snapshot every 2 ticks, 10 guests,
    /// 30 s to rejoin, 10 s of silence, a 64 KiB backlog limit.
    pub fn new(seed: u64) -> Self {
        HostConfig {
            tick_ms: 33,
            snapshot_every: 2,
            max_guests: MAX_GUESTS,
            seed,
            rejoin_grace: Millis(30_000),
            silence_timeout: Millis(10_000),
            backlog_limit: BACKLOG_LIMIT,
        }
    }

    /// Sets the tick length.
    pub fn tick_ms(mut self, ms: u16) -> Self {
        self.tick_ms = ms;
        self
    }

    /// Sets the snapshot interval in ticks.
    pub fn snapshot_every(mut self, ticks: u8) -> Self {
        self.snapshot_every = ticks;
        self
    }

    /// Sets the number of seats for guests.
    pub fn max_guests(mut self, n: u8) -> Self {
        self.max_guests = n;
        self
    }

    /// Sets how long a dropped seat waits.
    pub fn rejoin_grace(mut self, grace: Millis) -> Self {
        self.rejoin_grace = grace;
        self
    }

    /// Sets the backlog past which a guest's snapshots are skipped.
    pub fn backlog_limit(mut self, bytes: usize) -> Self {
        self.backlog_limit = bytes;
        self
    }

    /// Checks every field.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if !(1..=1000).contains(&self.tick_ms) {
            return Err(ConfigError::TickMs(self.tick_ms));
        }
        if !(1..=60).contains(&self.snapshot_every) {
            return Err(ConfigError::SnapshotEvery(self.snapshot_every));
        }
        if !(1..=MAX_GUESTS).contains(&self.max_guests) {
            return Err(ConfigError::MaxGuests(self.max_guests));
        }
        Ok(())
    }
}

/// Why a guest's visit ended for good.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LeaveReason {
    /// It said goodbye.
    Quit,
    /// It dropped and did not rejoin in time.
    TimedOut,
    /// It broke the protocol.
    InvalidData,
    /// It stopped acknowledging events for too long.
    TooFarBehind,
    /// The host closed the match ([`Host::close`]).
    Closed,
}

/// Something the host's caller should know.
#[derive(Debug, Clone, PartialEq)]
pub enum HostEvent<E> {
    /// A guest took a seat (`rejoined`: its own seat again, with a token).
    Joined {
        /// The seat.
        seat: Seat,
        /// Its link.
        link: LinkId,
        /// Whether it came back with a token.
        rejoined: bool,
    },
    /// A guest's link dropped; its seat waits for a rejoin.
    Dropped(Seat),
    /// A guest left for good; its seat is free.
    Left(Seat, LeaveReason),
    /// A link was refused (it gets a reason, then is closed).
    Refused(LinkId, RefuseReason),
    /// An event for the host's own player.
    Event(E),
}

/// Bytes for one link.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transmit {
    /// The link.
    pub link: LinkId,
    /// The channel.
    pub channel: Channel,
    /// The datagram.
    pub bytes: Vec<u8>,
}

/// A link that has not taken a seat yet, or is on its way out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pending {
    /// Waiting for Hello since this time.
    Hello(Millis),
    /// Refused or replaced; only waiting to be closed.
    Closing,
}

/// The host of a host-authoritative match (sans-IO).
///
/// # Calling contract
///
/// The host reads no clock and touches no socket; the caller:
///
/// 1. calls [`handle_connect`](Self::handle_connect) when a guest's link
///    opens, and uses the [`LinkId`] it returns for everything on that link;
/// 2. feeds each datagram to [`handle_datagram`](Self::handle_datagram),
///    each link's [`send_backlog`](lockstep::Transport::send_backlog) to
///    [`handle_backlog`](Self::handle_backlog) and a closed or failed link to
///    [`handle_link_closed`](Self::handle_link_closed);
/// 3. calls [`handle_timeout`](Self::handle_timeout) at (or after)
///    [`poll_timeout`](Self::poll_timeout): that runs the ticks that are due
///    and builds the snapshots;
/// 4. after every call, drains [`poll_transmit`](Self::poll_transmit) (send
///    each datagram on its link), then [`poll_close`](Self::poll_close)
///    (close those links), then [`poll_event`](Self::poll_event).
///
/// [`HostLinks`](crate::HostLinks) does steps 2 to 4 for a set of
/// [`Transport`](lockstep::Transport)s.
///
/// Nothing a guest sends can make it panic: a datagram that does not decode,
/// or breaks the protocol, ends that guest's visit (`InvalidData`), and a
/// link that sends anything before its Hello is closed.
pub struct Host<G: AuthoritativeGame> {
    game: G,
    cfg: HostConfig,
    rng: SplitMix64,
    tick: u64,
    next_tick_at: Option<Millis>,
    next_link: u32,
    pending: BTreeMap<LinkId, Pending>,
    slots: BTreeMap<Seat, Slot<G::Command>>,
    local_commands: VecDeque<G::Command>,
    event_buf: Vec<(Recipients, G::Event)>,
    transmits: VecDeque<Transmit>,
    closes: VecDeque<LinkId>,
    events: VecDeque<HostEvent<G::Event>>,
}

impl<G: AuthoritativeGame> Host<G> {
    /// A host running `game`, its own player in seat 0 (added here).
    pub fn new(mut game: G, cfg: HostConfig) -> Result<Self, ConfigError> {
        cfg.validate()?;
        game.add_player(0);
        Ok(Host {
            game,
            cfg,
            rng: SplitMix64::new(cfg.seed),
            tick: 0,
            next_tick_at: None,
            next_link: 0,
            pending: BTreeMap::new(),
            slots: BTreeMap::new(),
            local_commands: VecDeque::new(),
            event_buf: Vec::new(),
            transmits: VecDeque::new(),
            closes: VecDeque::new(),
            events: VecDeque::new(),
        })
    }

    /// The game (for the host's own display).
    pub fn game(&self) -> &G {
        &self.game
    }

    /// The last tick run.
    #[must_use]
    pub fn tick(&self) -> u64 {
        self.tick
    }

    /// The configuration.
    pub fn config(&self) -> &HostConfig {
        &self.cfg
    }

    /// Seats taken by guests (linked or waiting for a rejoin).
    pub fn seats(&self) -> impl Iterator<Item = Seat> + '_ {
        self.slots.keys().copied()
    }

    /// The link of a guest's seat, while it is connected.
    #[must_use]
    pub fn link_of(&self, seat: Seat) -> Option<LinkId> {
        self.slots.get(&seat).and_then(Slot::link)
    }

    /// What the host sent to a seat so far.
    #[must_use]
    pub fn seat_stats(&self, seat: Seat) -> Option<SeatStats> {
        self.slots.get(&seat).map(|s| s.stats)
    }

    /// Events queued for a seat and not yet acknowledged.
    #[must_use]
    pub fn pending_events(&self, seat: Seat) -> usize {
        self.slots.get(&seat).map_or(0, |s| s.events.pending.len())
    }

    /// A command from the host's own player (seat 0), applied next tick.
    pub fn local_command(&mut self, command: G::Command) {
        self.local_commands.push_back(command);
    }

    /// Ends the match for every guest: each seated one gets
    /// `Bye(Closed)` and its link is closed (drain
    /// [`poll_transmit`](Self::poll_transmit) before
    /// [`poll_close`](Self::poll_close)); links still waiting for their
    /// Hello are closed. Seats held for a rejoin are freed.
    pub fn close(&mut self) {
        let seats: Vec<Seat> = self.slots.keys().copied().collect();
        for seat in seats {
            self.remove_seat(seat, LeaveReason::Closed, Some(ByeReason::Closed));
        }
        let pending = std::mem::take(&mut self.pending);
        self.closes.extend(pending.into_keys());
    }

    /// A guest's link opened; returns its id.
    pub fn handle_connect(&mut self, now: Millis) -> LinkId {
        let id = LinkId(self.next_link);
        self.next_link = self.next_link.wrapping_add(1);
        self.pending.insert(id, Pending::Hello(now));
        id
    }

    /// The link's send backlog in bytes ([`lockstep::Transport::send_backlog`]).
    pub fn handle_backlog(&mut self, link: LinkId, bytes: usize) {
        if let Some(slot) = self.slots.values_mut().find(|s| s.link() == Some(link)) {
            slot.backlog = bytes;
        }
    }

    /// A link closed or failed.
    pub fn handle_link_closed(&mut self, now: Millis, link: LinkId) {
        if self.pending.remove(&link).is_some() {
            return;
        }
        if let Some(seat) = self.seat_of(link) {
            self.drop_seat(now, seat);
        }
    }

    fn seat_of(&self, link: LinkId) -> Option<Seat> {
        self.slots
            .iter()
            .find(|(_, s)| s.link() == Some(link))
            .map(|(&seat, _)| seat)
    }

    fn drop_seat(&mut self, now: Millis, seat: Seat) {
        if let Some(slot) = self.slots.get_mut(&seat) {
            if let Some(link) = slot.link() {
                log::info!("authority host: seat {seat} dropped; held for a rejoin");
                slot.presence = Presence::Dropped(now);
                self.closes.push_back(link);
                self.events.push_back(HostEvent::Dropped(seat));
            }
        }
    }

    fn remove_seat(&mut self, seat: Seat, reason: LeaveReason, bye: Option<ByeReason>) {
        if let Some(slot) = self.slots.remove(&seat) {
            if let Some(link) = slot.link() {
                if let Some(b) = bye {
                    self.send(link, Channel::Reliable, &ToGuest::Bye(b));
                }
                self.closes.push_back(link);
            }
            self.game.remove_player(seat);
            self.events.push_back(HostEvent::Left(seat, reason));
        }
    }

    /// A datagram arrived on `link`.
    pub fn handle_datagram(&mut self, now: Millis, link: LinkId, channel: Channel, bytes: &[u8]) {
        let msg = match ToHost::decode(bytes) {
            Ok(m) => m,
            Err(e) => {
                log::warn!(
                    "authority host: undecodable datagram on link {} ({e})",
                    link.0
                );
                self.violation(link);
                return;
            }
        };
        if let Some(p) = self.pending.get(&link).copied() {
            match (p, msg) {
                (
                    Pending::Hello(_),
                    ToHost::Hello {
                        protocol,
                        game,
                        token,
                    },
                ) if channel == Channel::Reliable => {
                    self.pending.remove(&link);
                    self.hello(now, link, protocol, game, token);
                }
                (Pending::Closing, _) => {}
                _ => {
                    log::warn!("authority host: link {} spoke before its Hello", link.0);
                    self.pending.insert(link, Pending::Closing);
                    self.closes.push_back(link);
                }
            }
            return;
        }
        let Some(seat) = self.seat_of(link) else {
            log::debug!("authority host: datagram on unknown link {}", link.0);
            return;
        };
        let Some(slot) = self.slots.get_mut(&seat) else {
            return;
        };
        slot.last_heard = now;
        match msg {
            ToHost::Hello { .. } => self.violation(link),
            ToHost::Command { seq, body } => {
                let next = slot.received_cmd.wrapping_add(1);
                let decoded = wire::decode_exact::<G::Command>(&body);
                match decoded {
                    Ok(cmd) if seq == next && slot.commands.len() < MAX_QUEUED_COMMANDS => {
                        slot.received_cmd = seq;
                        slot.commands.push_back((seq, cmd));
                    }
                    _ => {
                        log::warn!("authority host: seat {seat} sent a bad or flooding command");
                        self.violation(link);
                    }
                }
            }
            ToHost::Ack { tick, events, time } => {
                if let Some(t) = tick {
                    slot.baselines.ack(t);
                }
                if !slot.events.ack(events) {
                    log::debug!("authority host: seat {seat} acknowledged events never sent");
                }
                slot.echo = Some((time, now));
            }
            ToHost::Bye => {
                log::info!("authority host: seat {seat} left");
                self.remove_seat(seat, LeaveReason::Quit, None);
            }
        }
    }

    fn violation(&mut self, link: LinkId) {
        if let Some(seat) = self.seat_of(link) {
            log::warn!("authority host: seat {seat} broke the protocol; its visit ends");
            self.remove_seat(seat, LeaveReason::InvalidData, Some(ByeReason::InvalidData));
        } else if let Some(p) = self.pending.get_mut(&link) {
            *p = Pending::Closing;
            self.closes.push_back(link);
        }
    }

    fn refuse(&mut self, link: LinkId, reason: RefuseReason) {
        log::info!("authority host: refused link {} ({reason:?})", link.0);
        self.send(link, Channel::Reliable, &ToGuest::Refused(reason));
        self.pending.insert(link, Pending::Closing);
        self.closes.push_back(link);
        self.events.push_back(HostEvent::Refused(link, reason));
    }

    fn hello(&mut self, now: Millis, link: LinkId, protocol: u16, game: u64, token: Option<Token>) {
        if protocol != PROTOCOL {
            return self.refuse(link, RefuseReason::Protocol);
        }
        if game != G::GAME_ID {
            return self.refuse(link, RefuseReason::Game);
        }
        let (seat, token, rejoined) = if let Some(token) = token {
            let Some((&seat, _)) = self.slots.iter().find(|(_, s)| s.token == token) else {
                return self.refuse(link, RefuseReason::UnknownToken);
            };
            let Some(slot) = self.slots.get_mut(&seat) else {
                return;
            };
            if let Some(old) = slot.link() {
                // The same guest on a new link (a reload before the old
                // link timed out): the old link goes.
                self.transmits.push_back(Transmit {
                    link: old,
                    channel: Channel::Reliable,
                    bytes: ToGuest::Bye(ByeReason::Replaced)
                        .encode()
                        .unwrap_or_default(),
                });
                self.closes.push_back(old);
            }
            slot.relink(link, now);
            (seat, token, true)
        } else {
            let Some(seat) = (1..=self.cfg.max_guests).find(|s| !self.slots.contains_key(s)) else {
                return self.refuse(link, RefuseReason::Full);
            };
            let mut token = [0u8; TOKEN_LEN];
            token[..8].copy_from_slice(&self.rng.next_u64().to_le_bytes());
            token[8..].copy_from_slice(&self.rng.next_u64().to_le_bytes());
            self.slots.insert(seat, Slot::new(token, link, now));
            self.game.add_player(seat);
            (seat, token, false)
        };
        log::info!("authority host: seat {seat} taken (rejoin: {rejoined})");
        self.send(
            link,
            Channel::Reliable,
            &ToGuest::Welcome {
                seat,
                token,
                tick_ms: self.cfg.tick_ms,
                rejoined,
            },
        );
        self.events.push_back(HostEvent::Joined {
            seat,
            link,
            rejoined,
        });
    }

    fn send(&mut self, link: LinkId, channel: Channel, msg: &ToGuest) {
        match msg.encode() {
            Ok(bytes) => self.transmits.push_back(Transmit {
                link,
                channel,
                bytes,
            }),
            Err(e) => log::error!("authority host: a message did not encode ({e})"),
        }
    }

    /// When [`handle_timeout`](Self::handle_timeout) next has work: the next
    /// tick (now, before the first call).
    #[must_use]
    pub fn poll_timeout(&self) -> Option<Millis> {
        Some(self.next_tick_at.unwrap_or(Millis::ZERO))
    }

    /// Runs the ticks due at `now` (at most [`MAX_CATCH_UP`]), sends
    /// snapshots on snapshot ticks, and times out silent links and seats.
    pub fn handle_timeout(&mut self, now: Millis) {
        self.expire(now);
        let tick_ms = Millis(u64::from(self.cfg.tick_ms));
        let mut at = *self.next_tick_at.get_or_insert(now);
        let mut ran = 0;
        while at <= now {
            if ran == MAX_CATCH_UP {
                log::debug!("authority host: fell behind; skipping time");
                at = now + tick_ms;
                break;
            }
            self.run_tick(now);
            ran += 1;
            at = at + tick_ms;
        }
        self.next_tick_at = Some(at);
    }

    fn expire(&mut self, now: Millis) {
        let mut dropped = Vec::new();
        let mut gone = Vec::new();
        for (&seat, slot) in &self.slots {
            match slot.presence {
                Presence::Linked(_) if now - slot.last_heard > self.cfg.silence_timeout => {
                    dropped.push(seat)
                }
                Presence::Dropped(at) if now - at > self.cfg.rejoin_grace => gone.push(seat),
                _ => {}
            }
        }
        for seat in dropped {
            self.drop_seat(now, seat);
        }
        for seat in gone {
            log::info!("authority host: seat {seat} did not rejoin in time");
            self.remove_seat(seat, LeaveReason::TimedOut, None);
        }
        let silent: Vec<LinkId> = self
            .pending
            .iter()
            .filter(
                |(_, p)| matches!(p, Pending::Hello(at) if now - *at > self.cfg.silence_timeout),
            )
            .map(|(&l, _)| l)
            .collect();
        for link in silent {
            self.pending.insert(link, Pending::Closing);
            self.closes.push_back(link);
        }
    }

    fn run_tick(&mut self, now: Millis) {
        while let Some(c) = self.local_commands.pop_front() {
            self.game.command(0, c);
        }
        for (&seat, slot) in &mut self.slots {
            while let Some((seq, c)) = slot.commands.pop_front() {
                self.game.command(seat, c);
                slot.applied_cmd = seq;
            }
        }
        self.game.advance(u32::from(self.cfg.tick_ms));
        self.tick += 1;
        self.game.drain_events(&mut self.event_buf);
        let mut behind = Vec::new();
        for (to, event) in self.event_buf.drain(..) {
            if to.includes(0) {
                self.events.push_back(HostEvent::Event(event.clone()));
            }
            let mut bytes: Option<Vec<u8>> = None;
            for (&seat, slot) in &mut self.slots {
                if !to.includes(seat) || slot.link().is_none() {
                    continue;
                }
                let b = bytes.get_or_insert_with(|| match wire::encode(&event) {
                    Ok(b) if b.len() <= MAX_ITEM_BYTES => b,
                    _ => {
                        log::error!("authority host: an event does not encode within {MAX_ITEM_BYTES} bytes; dropped");
                        Vec::new()
                    }
                });
                if b.is_empty() {
                    continue;
                }
                slot.events.pending.push_back(b.clone());
                slot.stats.events += 1;
                if slot.events.pending.len() > MAX_PENDING_EVENTS {
                    behind.push(seat);
                }
            }
        }
        for seat in behind {
            log::warn!("authority host: seat {seat} stopped acknowledging events");
            self.remove_seat(
                seat,
                LeaveReason::TooFarBehind,
                Some(ByeReason::TooFarBehind),
            );
        }
        if self.tick.is_multiple_of(u64::from(self.cfg.snapshot_every)) {
            self.send_snapshots(now);
        }
    }

    fn send_snapshots(&mut self, now: Millis) {
        let seats: Vec<Seat> = self.slots.keys().copied().collect();
        for seat in seats {
            self.send_snapshot(now, seat);
        }
    }

    fn send_snapshot(&mut self, now: Millis, seat: Seat) {
        let tick = self.tick;
        let Some(slot) = self.slots.get_mut(&seat) else {
            return;
        };
        let Some(link) = slot.link() else {
            return;
        };
        if slot.backlog > self.cfg.backlog_limit {
            // Queued behind the backlog it would only go stale: skip it.
            // Its events wait for a snapshot that goes out.
            slot.stats.skipped += 1;
            return;
        }
        let snapshot = self.game.snapshot(seat);
        let tree = match serde_json::to_value(&snapshot) {
            Ok(t) if delta::check_limits(&t).is_ok() => t,
            _ => {
                log::error!("authority host: the snapshot for seat {seat} cannot be sent (not a finite tree within the limits)");
                return;
            }
        };
        let baseline = slot
            .baselines
            .baseline()
            .filter(|_| slot.baselines.since_ack < WHOLE_AFTER)
            .map(|(t, v)| (t, delta::diff(v, &tree)));
        let whole = baseline.is_none();
        let body = match baseline {
            Some((baseline, ops)) => Body::Delta {
                back: u32::try_from(tick - baseline).unwrap_or(u32::MAX),
                ops,
            },
            None => match wire::encode(&snapshot) {
                Ok(b) => Body::Whole(b),
                Err(e) => {
                    log::error!(
                        "authority host: the snapshot for seat {seat} does not encode ({e})"
                    );
                    return;
                }
            },
        };
        let echo = slot.echo.map(|(time, at)| Echo {
            time,
            held: u16::try_from((now - at).0).unwrap_or(u16::MAX),
        });
        let mut msg = Snapshot {
            tick,
            body,
            events_from: slot.events.acked.wrapping_add(1),
            events: slot
                .events
                .pending
                .iter()
                .take(MAX_EVENTS_PER_MESSAGE)
                .cloned()
                .collect(),
            commands: slot.applied_cmd,
            echo,
        };
        let bytes = loop {
            match ToGuest::Snapshot(msg.clone()).encode() {
                Ok(b) => break b,
                Err(_) if !msg.events.is_empty() => {
                    // Too large with its events: fewer ride along.
                    let keep = msg.events.len() / 2;
                    msg.events.truncate(keep);
                }
                Err(e) => {
                    log::error!("authority host: the snapshot for seat {seat} is over {MAX_DATAGRAM} bytes ({e})");
                    return;
                }
            }
        };
        let len = bytes.len() as u64;
        if whole {
            slot.baselines.sent_whole(tick, tree);
            slot.stats.whole += 1;
            slot.stats.whole_bytes += len;
        } else {
            slot.baselines.sent_delta(tick, tree);
            slot.stats.deltas += 1;
            slot.stats.delta_bytes += len;
        }
        let channel = if whole {
            Channel::Reliable
        } else {
            Channel::Unreliable
        };
        self.transmits.push_back(Transmit {
            link,
            channel,
            bytes,
        });
    }

    /// The next datagram to send.
    pub fn poll_transmit(&mut self) -> Option<Transmit> {
        self.transmits.pop_front()
    }

    /// The next link to close (after sending what was queued for it).
    pub fn poll_close(&mut self) -> Option<LinkId> {
        let link = self.closes.pop_front()?;
        self.pending.remove(&link);
        Some(link)
    }

    /// The next event for the caller.
    pub fn poll_event(&mut self) -> Option<HostEvent<G::Event>> {
        self.events.pop_front()
    }
}

/// The size of a delta's operations, for tests and benchmarks.
#[must_use]
pub fn ops_len(ops: &[Op]) -> usize {
    postcard::to_allocvec(ops).map_or(0, |b| b.len())
}
