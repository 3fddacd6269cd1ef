//! The guest: joins, decodes snapshots against its baselines, delivers
//! events exactly once and in order, sends commands and acknowledgements.

use std::collections::VecDeque;

use lockstep::{Channel, Millis};
use serde_json::Value;

use crate::delta;
use crate::game::{AuthoritativeGame, Seat};
use crate::interp::{Bracket, Interpolation};
use crate::wire::{self, Body, ByeReason, RefuseReason, ToGuest, ToHost, Token, PROTOCOL};

/// Decoded snapshot trees kept as possible baselines (the host builds on
/// one at most [`WHOLE_AFTER`](crate::WHOLE_AFTER) snapshots old).
pub const HISTORY: usize = 128;
/// With no snapshot to acknowledge, an acknowledgement goes out this often
/// anyway (it carries the clock for the round trip, and keeps the host
/// hearing from the guest).
pub const ACK_INTERVAL: Millis = Millis(250);
/// A host silent this long is gone.
pub const HOST_SILENCE: Millis = Millis(10_000);

/// How a guest's visit ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EndReason {
    /// The host refused it.
    Refused(RefuseReason),
    /// The host ended it.
    Bye(ByeReason),
    /// The transport closed or failed.
    LinkClosed,
    /// Nothing from the host for [`HOST_SILENCE`].
    HostSilent,
    /// The guest left ([`Guest::leave`]).
    Left,
}

/// Something the guest's caller should know.
#[derive(Debug, Clone, PartialEq)]
pub enum GuestEvent<E> {
    /// The guest has a seat; keep the token to rejoin after a drop.
    Welcomed {
        /// The seat.
        seat: Seat,
        /// The rejoin token.
        token: Token,
        /// Whether it is the seat of an earlier visit.
        rejoined: bool,
    },
    /// A newer snapshot was decoded ([`Guest::latest`]).
    Snapshot(u64),
    /// An event from the game, exactly once and in order.
    Event(E),
    /// The visit ended; nothing more happens.
    Ended(EndReason),
}

/// Counters of what the guest received.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GuestStats {
    /// Snapshots decoded and newer than the one before.
    pub snapshots: u64,
    /// Whole snapshots among them.
    pub whole: u64,
    /// Snapshots that came late (older than one decoded) or twice.
    pub stale: u64,
    /// Deltas whose baseline the guest did not have.
    pub missing_baseline: u64,
    /// Snapshots that overtook the Welcome (dropped).
    pub early: u64,
    /// Datagrams that did not decode, or did not fit the baseline.
    pub invalid: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Joining,
    Seated { seat: Seat, tick_ms: u16 },
    Ended(EndReason),
}

/// A guest of a host-authoritative match (sans-IO).
///
/// # Calling contract
///
/// Create it when the link to the host opens (it queues its Hello), then:
/// feed each datagram to [`handle_datagram`](Self::handle_datagram) and a
/// closed link to [`handle_link_closed`](Self::handle_link_closed); call
/// [`handle_timeout`](Self::handle_timeout) at
/// [`poll_timeout`](Self::poll_timeout); send commands with
/// [`command`](Self::command). After every call, drain
/// [`poll_transmit`](Self::poll_transmit) and [`poll_event`](Self::poll_event).
/// Draw from [`view`](Self::view) (interpolated) or
/// [`latest`](Self::latest) (newest decoded), and the player's own entity
/// from a [`Predictor`](crate::Predictor).
///
/// The host is trusted for game state (it is the authority), but not for
/// well-formed bytes: a datagram that does not decode or does not fit its
/// baseline is dropped and counted ([`GuestStats::invalid`]), never a panic.
pub struct Guest<G: AuthoritativeGame> {
    phase: Phase,
    token: Option<Token>,
    history: VecDeque<(u64, Value)>,
    latest: Option<(u64, Millis, G::Snapshot)>,
    interp: Option<Interpolation<G::Snapshot>>,
    delivered: u32,
    next_command: u32,
    commands_applied: u32,
    rtt: Option<f64>,
    last_ack: Millis,
    last_heard: Millis,
    host_silence: Millis,
    transmits: VecDeque<(Channel, Vec<u8>)>,
    events: VecDeque<GuestEvent<G::Event>>,
    stats: GuestStats,
}

impl<G: AuthoritativeGame> Guest<G> {
    /// A guest asking for a seat at `now`, with the token of an earlier
    /// visit to rejoin its seat.
    #[must_use]
    pub fn new(now: Millis, token: Option<Token>) -> Self {
        let mut g = Guest {
            phase: Phase::Joining,
            token,
            history: VecDeque::new(),
            latest: None,
            interp: None,
            delivered: 0,
            next_command: 1,
            commands_applied: 0,
            rtt: None,
            last_ack: now,
            last_heard: now,
            host_silence: HOST_SILENCE,
            transmits: VecDeque::new(),
            events: VecDeque::new(),
            stats: GuestStats::default(),
        };
        g.send(
            Channel::Reliable,
            &ToHost::Hello {
                protocol: PROTOCOL,
                game: G::GAME_ID,
                token,
            },
        );
        g
    }

    /// Sets how long the host may be silent before the visit ends
    /// ([`HOST_SILENCE`] by default).
    #[must_use]
    pub fn with_host_silence(mut self, silence: Millis) -> Self {
        self.host_silence = silence;
        self
    }

    fn send(&mut self, channel: Channel, msg: &ToHost) {
        match msg.encode() {
            Ok(b) => self.transmits.push_back((channel, b)),
            Err(e) => log::error!("authority guest: a message did not encode ({e})"),
        }
    }

    /// The seat, once welcomed.
    #[must_use]
    pub fn seat(&self) -> Option<Seat> {
        match self.phase {
            Phase::Seated { seat, .. } => Some(seat),
            _ => None,
        }
    }

    /// The host's tick length, once welcomed.
    #[must_use]
    pub fn tick_ms(&self) -> Option<u16> {
        match self.phase {
            Phase::Seated { tick_ms, .. } => Some(tick_ms),
            _ => None,
        }
    }

    /// Why the visit ended, if it did.
    #[must_use]
    pub fn ended(&self) -> Option<EndReason> {
        match self.phase {
            Phase::Ended(r) => Some(r),
            _ => None,
        }
    }

    /// The rejoin token (the one given, then the host's).
    #[must_use]
    pub fn token(&self) -> Option<Token> {
        self.token
    }

    /// The newest snapshot decoded: its tick, when it arrived, and itself.
    #[must_use]
    pub fn latest(&self) -> Option<(u64, Millis, &G::Snapshot)> {
        self.latest.as_ref().map(|(t, at, s)| (*t, *at, s))
    }

    /// A recently decoded snapshot by its tick (the interpolation buffer's
    /// last 32).
    #[must_use]
    pub fn snapshot(&self, tick: u64) -> Option<&G::Snapshot> {
        self.interp.as_ref()?.get(tick)
    }

    /// The number of the newest command the host has applied.
    #[must_use]
    pub fn commands_applied(&self) -> u32 {
        self.commands_applied
    }

    /// The measured round trip, once known.
    #[must_use]
    pub fn rtt(&self) -> Option<Millis> {
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        self.rtt.map(|r| Millis(r.round() as u64))
    }

    /// The number of the last event delivered.
    #[must_use]
    pub fn events_delivered(&self) -> u32 {
        self.delivered
    }

    /// Counters.
    #[must_use]
    pub fn stats(&self) -> GuestStats {
        self.stats
    }

    /// The interpolation delay in use.
    #[must_use]
    pub fn render_delay(&self) -> Option<Millis> {
        self.interp.as_ref().map(Interpolation::delay)
    }

    /// Which snapshots [`view`](Self::view) blends at `now`.
    #[must_use]
    pub fn bracket(&self, now: Millis) -> Option<Bracket> {
        self.interp.as_ref()?.bracket(now)
    }

    /// The world as shown at `now`: the two snapshots around the render
    /// time, blended with [`AuthoritativeGame::interpolate`].
    #[must_use]
    pub fn view(&self, now: Millis) -> Option<G::Snapshot> {
        let interp = self.interp.as_ref()?;
        let b = interp.bracket(now)?;
        let from = interp.get(b.from_tick)?;
        let to = interp.get(b.to_tick)?;
        Some(G::interpolate(from, to, b.t))
    }

    /// Sends a command (reliably, in order); returns its number, or `None`
    /// before the guest is seated or after the visit ended (the command is
    /// not sent).
    pub fn command(&mut self, command: &G::Command) -> Option<u32> {
        self.seat()?;
        let body = match wire::encode(command) {
            Ok(b) if b.len() <= wire::MAX_ITEM_BYTES => b,
            _ => {
                log::error!(
                    "authority guest: a command does not encode within {} bytes",
                    wire::MAX_ITEM_BYTES
                );
                return None;
            }
        };
        let seq = self.next_command;
        self.next_command = self.next_command.wrapping_add(1);
        self.send(Channel::Reliable, &ToHost::Command { seq, body });
        Some(seq)
    }

    /// Leaves for good: says goodbye (reliably); the caller then closes the
    /// link once that is sent.
    pub fn leave(&mut self) {
        if matches!(self.phase, Phase::Ended(_)) {
            return;
        }
        self.send(Channel::Reliable, &ToHost::Bye);
        self.end(EndReason::Left);
    }

    fn end(&mut self, reason: EndReason) {
        if !matches!(self.phase, Phase::Ended(_)) {
            self.phase = Phase::Ended(reason);
            self.events.push_back(GuestEvent::Ended(reason));
        }
    }

    /// The link closed or failed.
    pub fn handle_link_closed(&mut self) {
        self.end(EndReason::LinkClosed);
    }

    /// When [`handle_timeout`](Self::handle_timeout) next has work.
    #[must_use]
    pub fn poll_timeout(&self) -> Option<Millis> {
        match self.phase {
            Phase::Seated { .. } => {
                Some((self.last_ack + ACK_INTERVAL).min(self.last_heard + self.host_silence))
            }
            Phase::Joining => Some(self.last_heard + self.host_silence),
            Phase::Ended(_) => None,
        }
    }

    /// Sends a periodic acknowledgement; ends the visit if the host fell
    /// silent.
    pub fn handle_timeout(&mut self, now: Millis) {
        if matches!(self.phase, Phase::Ended(_)) {
            return;
        }
        if now - self.last_heard >= self.host_silence {
            log::info!("authority guest: the host fell silent");
            self.end(EndReason::HostSilent);
            return;
        }
        if self.seat().is_some() && now - self.last_ack >= ACK_INTERVAL {
            self.ack(now);
        }
    }

    fn ack(&mut self, now: Millis) {
        self.last_ack = now;
        let msg = ToHost::Ack {
            tick: self.history.back().map(|(t, _)| *t),
            events: self.delivered,
            #[allow(clippy::cast_possible_truncation)]
            time: now.0 as u32,
        };
        self.send(Channel::Unreliable, &msg);
    }

    /// A datagram from the host arrived at `now`.
    pub fn handle_datagram(&mut self, now: Millis, channel: Channel, bytes: &[u8]) {
        if matches!(self.phase, Phase::Ended(_)) {
            return;
        }
        let msg = match ToGuest::decode(bytes) {
            Ok(m) => m,
            Err(e) => {
                log::warn!("authority guest: undecodable datagram from the host ({e})");
                self.stats.invalid += 1;
                return;
            }
        };
        self.last_heard = now;
        match (self.phase, msg) {
            (
                Phase::Joining,
                ToGuest::Welcome {
                    seat,
                    token,
                    tick_ms,
                    rejoined,
                },
            ) if channel == Channel::Reliable => {
                self.phase = Phase::Seated { seat, tick_ms };
                self.token = Some(token);
                self.interp = Some(Interpolation::new(tick_ms));
                self.events.push_back(GuestEvent::Welcomed {
                    seat,
                    token,
                    rejoined,
                });
            }
            (_, ToGuest::Refused(r)) if channel == Channel::Reliable => {
                self.end(EndReason::Refused(r))
            }
            (_, ToGuest::Bye(r)) if channel == Channel::Reliable => self.end(EndReason::Bye(r)),
            (Phase::Seated { .. }, ToGuest::Snapshot(s)) => self.on_snapshot(now, s),
            // A delta can overtake the reliable Welcome; the host repeats
            // what it carries.
            (Phase::Joining, ToGuest::Snapshot(_)) => self.stats.early += 1,
            _ => {
                log::warn!("authority guest: a message out of place");
                self.stats.invalid += 1;
            }
        }
    }

    fn on_snapshot(&mut self, now: Millis, s: wire::Snapshot) {
        if let Some(echo) = s.echo {
            #[allow(clippy::cast_possible_truncation)]
            let sample = (now.0 as u32)
                .wrapping_sub(echo.time)
                .saturating_sub(u32::from(echo.held));
            // A sample over a minute is a wrapped or forged clock.
            if sample < 60_000 {
                let sample = f64::from(sample);
                let r = self.rtt.map_or(sample, |r| r + (sample - r) / 8.0);
                self.rtt = Some(r);
            }
        }
        self.commands_applied = self.commands_applied.max(s.commands);
        self.deliver_events(s.events_from, &s.events);
        let newest = self.latest.as_ref().map(|(t, _, _)| *t);
        if newest.is_some_and(|t| s.tick <= t) {
            self.stats.stale += 1;
        } else {
            match self.decode_body(s.tick, &s.body) {
                Ok((tree, snap)) => {
                    self.history.push_back((s.tick, tree));
                    while self.history.len() > HISTORY {
                        self.history.pop_front();
                    }
                    if matches!(s.body, Body::Whole(_)) {
                        self.stats.whole += 1;
                    }
                    self.stats.snapshots += 1;
                    if let Some(i) = self.interp.as_mut() {
                        i.push(now, s.tick, snap.clone());
                    }
                    self.latest = Some((s.tick, now, snap));
                    self.events.push_back(GuestEvent::Snapshot(s.tick));
                }
                Err(Missing::Baseline) => self.stats.missing_baseline += 1,
                Err(Missing::Invalid) => {
                    log::warn!("authority guest: a snapshot did not decode");
                    self.stats.invalid += 1;
                }
            }
        }
        self.ack(now);
    }

    fn decode_body(&self, tick: u64, body: &Body) -> Result<(Value, G::Snapshot), Missing> {
        let tree = match body {
            Body::Whole(bytes) => {
                let snap: G::Snapshot = wire::decode_exact(bytes).map_err(|_| Missing::Invalid)?;
                let tree = serde_json::to_value(&snap).map_err(|_| Missing::Invalid)?;
                delta::check_limits(&tree).map_err(|_| Missing::Invalid)?;
                return Ok((tree, snap));
            }
            Body::Delta { back, ops } => {
                let baseline = &tick.checked_sub(u64::from(*back)).ok_or(Missing::Invalid)?;
                let (_, base) = self
                    .history
                    .iter()
                    .find(|(t, _)| t == baseline)
                    .ok_or(Missing::Baseline)?;
                delta::apply_patch(base, ops).map_err(|_| Missing::Invalid)?
            }
        };
        let snap = G::Snapshot::deserialize(&tree).map_err(|_| Missing::Invalid)?;
        Ok((tree, snap))
    }

    fn deliver_events(&mut self, from: u32, events: &[Vec<u8>]) {
        for (n, bytes) in (from..).zip(events) {
            if n != self.delivered.wrapping_add(1) {
                continue;
            }
            self.delivered = n;
            match wire::decode_exact::<G::Event>(bytes) {
                Ok(e) => self.events.push_back(GuestEvent::Event(e)),
                Err(e) => {
                    log::warn!("authority guest: event {n} did not decode ({e}); skipped");
                    self.stats.invalid += 1;
                }
            }
        }
    }

    /// The next datagram to send to the host.
    pub fn poll_transmit(&mut self) -> Option<(Channel, Vec<u8>)> {
        self.transmits.pop_front()
    }

    /// The next event.
    pub fn poll_event(&mut self) -> Option<GuestEvent<G::Event>> {
        self.events.pop_front()
    }
}

enum Missing {
    Baseline,
    Invalid,
}

use serde::Deserialize as _;
