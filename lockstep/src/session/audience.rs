//! The host's spectators: who watches, what each has been sent and has
//! acknowledged, the host's hashes still to send them, and the count of
//! spectators every member reads at the same tick.
//!
//! A spectator talks to the host alone (a star, not the players' mesh:
//! one link per spectator, on the host only, so a player's uplink carries
//! nothing for spectators and a spectator needs no link to anyone but the
//! host). The host sends it confirmed inputs only, so nothing it receives
//! is ever corrected, and the players never wait for it: its stream is
//! paced by its own acknowledgements, and one that falls too far behind
//! is dropped.

use alloc::collections::VecDeque;
use alloc::vec::Vec;

use super::rejoin;
use super::sender::Outbox;
use super::timeline::Timeline;
use super::{ahead_limit, Event, Phase, Session};
use crate::game::DeterministicGame;
use crate::time::Millis;
use crate::transport::Channel;
use crate::wire::{
    ByeReason, CatchUp, Confirmed, HashReport, Message, Roster, RosterChange, Watch, WatchRefusal,
    Welcome, MAX_RUN, PROTOCOL_VERSION,
};

use super::PeerId;

/// Frames between two sends of confirmed ticks to a spectator (6: ten a
/// second). Each send carries every confirmed tick the spectator has not
/// acknowledged, on the unreliable channel, so a spectator sees ticks at
/// most 100 ms later than every frame would show them, for a sixth of the
/// packets, and a lost send costs it one interval, not a retransmission's
/// round trips; its watch delay absorbs it.
pub(super) const SEND_EVERY_FRAMES: u64 = 6;

/// The most ticks the host sends a spectator beyond what it acknowledged
/// (4 s): a slow link gets the stream at its own pace and holds only its
/// own spectator back. It also bounds each send: every unacknowledged
/// tick goes again each time, so one send is at most this many ticks.
pub(super) const IN_FLIGHT_TICKS: u32 = 240;

/// The most bytes a spectator's link may still hold unsent (its
/// transport's send queue, as [`Session::pump`] reads it) for the host to
/// stream more to it. Each send repeats what is not acknowledged, so on a
/// link slower than the stream the queue would only grow with copies that
/// go stale in it; past this the host skips sends until the queue drains,
/// and the spectator's acknowledgements fall behind as they did on the
/// reliable channel (it is dropped as too slow if they fall 600 ticks
/// behind, and that `Bye` is not stuck behind a long queue).
pub(super) const MAX_STREAM_BACKLOG: usize = 512;

/// How far (ticks) the match may run ahead of what a spectator
/// acknowledged before the host gives up on it (10 s): past it the
/// spectator is dropped with `Bye(WatchRefused(TooSlow))`.
pub(super) const MAX_BEHIND_TICKS: u32 = 600;

/// The most spectator count changes a guest keeps from before its own
/// start (a spectator admitted and dropped again and again while the
/// guests introduce themselves; an honest host orders one per spectator).
pub(super) const MAX_EARLY_CHANGES: usize = 64;

/// The most `(tick, count)` changes of the spectator count kept ahead of
/// the present (older ones are folded into the one in force).
const MAX_COUNT_CHANGES: usize = 64;

/// One spectator's link, as the host knows it.
#[derive(Debug)]
pub(super) struct Spectator {
    /// The caller's name for the link.
    pub(super) id: PeerId,
    /// Datagrams waiting for its link.
    pub(super) out: Outbox,
    /// Its `Watch` came while the match had not started: admitted at the
    /// start.
    pub(super) waiting: bool,
    /// Admitted: it was sent the Welcome and the catch-up.
    pub(super) admitted: bool,
    /// Ticks of confirmed inputs sent to it.
    pub(super) sent: u32,
    /// Ticks it said it holds (at least the catch-up's).
    pub(super) acked: u32,
    /// The last hashed tick whose hash it was sent.
    pub(super) hashed: u32,
    /// When it was last heard (or declared).
    pub(super) last_heard: Millis,
    /// Frames since anything was queued for it.
    pub(super) quiet_frames: u32,
    /// Bytes its link's send queue held when last pumped.
    pub(super) backlog: usize,
}

impl Spectator {
    fn new(id: PeerId, now: Millis) -> Self {
        Spectator {
            id,
            out: Outbox::default(),
            waiting: false,
            admitted: false,
            sent: 0,
            acked: 0,
            hashed: 0,
            last_heard: now,
            quiet_frames: 0,
            backlog: 0,
        }
    }
}

/// The host's spectators and the host's recent hashes for them.
#[derive(Debug, Default)]
pub(super) struct Audience {
    /// Every spectator link, admitted or not, in the order they came.
    pub(super) members: Vec<Spectator>,
    /// The host's hashes of final ticks that some admitted spectator has
    /// not been sent yet (oldest first).
    hashes: VecDeque<(u32, u64)>,
    /// Links dropped as spectators: what else they send is ignored.
    pub(super) gone: Vec<PeerId>,
}

impl Audience {
    /// The index of spectator link `id`.
    pub(super) fn index(&self, id: PeerId) -> Option<usize> {
        self.members.iter().position(|s| s.id == id)
    }

    /// Admitted spectators.
    pub(super) fn admitted(&self) -> usize {
        self.members.iter().filter(|s| s.admitted).count()
    }

    /// The host hashed final tick `tick`: kept while a spectator may need
    /// it.
    pub(super) fn record_hash(&mut self, tick: u32, hash: u64) {
        if self.members.iter().any(|s| s.admitted) {
            self.hashes.push_back((tick, hash));
        }
    }

    /// Forgets the hashes every admitted spectator was sent.
    fn forget_sent_hashes(&mut self) {
        let done = self
            .members
            .iter()
            .filter(|s| s.admitted)
            .map(|s| s.hashed)
            .min();
        match done {
            Some(done) => self.hashes.retain(|&(t, _)| t > done),
            None => self.hashes.clear(),
        }
    }
}

/// How many spectators watch, tick by tick: the changes the host ordered,
/// each from its tick on. Every member keeps the same list, so every
/// member reads the same count at the same tick.
#[derive(Debug, Default, Clone)]
pub(super) struct SpectatorCount {
    /// `(tick, count)`, oldest first; the first one with a tick at or
    /// below the present is the one in force.
    changes: VecDeque<(u32, u8)>,
}

impl SpectatorCount {
    /// The changes as a catch-up carries them.
    pub(super) fn changes(&self) -> Vec<(u32, u8)> {
        self.changes.iter().copied().collect()
    }

    /// The changes a catch-up carried, for a side at tick `present`.
    pub(super) fn from_changes(changes: &[(u32, u8)], present: u32) -> Self {
        let mut count = SpectatorCount::default();
        for &(tick, c) in changes {
            count.change(tick, c, present);
        }
        count
    }

    /// The count at tick `tick`.
    pub(super) fn at(&self, tick: u32) -> u8 {
        self.changes
            .iter()
            .rev()
            .find(|&&(t, _)| t <= tick)
            .map_or(0, |&(_, c)| c)
    }

    /// From tick `from` on, `count` watch. `present` is this side's tick:
    /// changes it has passed fold into the one in force. Changes come in
    /// order of their ticks (a later one at an earlier tick takes its
    /// place from the later one's tick).
    pub(super) fn change(&mut self, from: u32, count: u8, present: u32) {
        let last = self.changes.back().map_or(0, |&(t, _)| t);
        self.changes.push_back((from.max(last), count));
        while self.changes.len() > 1
            && (self.changes.get(1).is_some_and(|&(t, _)| t <= present)
                || self.changes.len() > MAX_COUNT_CHANGES)
        {
            self.changes.pop_front();
        }
    }
}

impl<G: DeterministicGame> Session<G> {
    /// Host: the caller's link `link` leads to a spectator, not a player:
    /// it gets no slot and no Hello, and its `Watch` is answered (at the
    /// start of the match if it comes before). A spectator that connects
    /// once the match runs need not be declared: its `Watch` on a link
    /// the match does not know is enough. Declare one that may connect
    /// during the handshake, or the host takes its link for a player's.
    /// Ignored on a guest or a spectator, after the end, for a link that
    /// is already a player's, and past [`MAX_SPECTATORS`] links
    /// (logged).
    ///
    /// [`MAX_SPECTATORS`]: crate::wire::MAX_SPECTATORS
    pub fn add_spectator(&mut self, now: Millis, link: PeerId) {
        if !self.is_host() || self.is_ended() || self.is_spectator() {
            log::debug!("{link} declared a spectator on a session that hosts none: ignored");
            return;
        }
        if self.peers.iter().any(|p| p.id == link) || self.audience.index(link).is_some() {
            log::debug!("{link} is already known: not declared again");
            return;
        }
        if self.audience.members.len() >= usize::from(crate::wire::MAX_SPECTATORS) * 2 {
            log::warn!("{link} declared a spectator beyond the limit: ignored");
            return;
        }
        self.audience.gone.retain(|id| *id != link);
        self.audience.members.push(Spectator::new(link, now));
    }

    /// Host: link `link`'s transport still holds `bytes` unsent (for
    /// WebRTC, the data channels' `bufferedAmount`). [`pump`](Self::pump)
    /// reads it from the transport itself; a caller that drains
    /// [`poll_transmit`](Self::poll_transmit) instead may tell it here.
    /// For a spectator's link, the host streams nothing more while it
    /// holds more than a few hundred bytes (the stream repeats what is not
    /// acknowledged, and copies would only go stale in the queue); other
    /// links ignore it.
    pub fn note_send_backlog(&mut self, link: PeerId, bytes: usize) {
        if let Some(i) = self.audience.index(link) {
            if let Some(s) = self.audience.members.get_mut(i) {
                s.backlog = bytes;
            }
        }
    }

    /// How many spectators watch the match at this side's present tick
    /// (0 before the start). Every member, spectators included, reads the
    /// same count at the same tick: the host orders each change at a tick
    /// ahead of every player, and a catch-up carries the count's changes.
    #[must_use]
    pub fn spectators(&self) -> u8 {
        match &self.phase {
            Phase::Running(run) => run.watchers.at(run.timeline.tick()),
            _ => 0,
        }
    }

    /// Host: a datagram on spectator link `si`. Only its `Watch`, its
    /// acknowledgements and its `Bye` are taken; anything else (an input,
    /// a Hello claiming a slot, a `Rejoin`) is refused, logged at warn,
    /// and the spectator dropped, the match untouched.
    pub(super) fn on_spectator_datagram(
        &mut self,
        now: Millis,
        si: usize,
        channel: Channel,
        bytes: &[u8],
    ) {
        let Some(s) = self.audience.members.get_mut(si) else {
            return;
        };
        s.last_heard = s.last_heard.max(now);
        let id = s.id;
        let msg = match Message::<G::Input>::decode(bytes) {
            Ok(m) if m.channel() == channel => m,
            Ok(_) => {
                log::warn!("spectator on {id} sent a message on the wrong channel: dropped");
                self.drop_spectator(si, Some(ByeReason::InvalidData));
                return;
            }
            Err(e) => {
                log::warn!("spectator on {id} sent an undecodable datagram ({e}): dropped");
                self.drop_spectator(si, Some(ByeReason::InvalidData));
                return;
            }
        };
        let admitted = s.admitted;
        match msg {
            Message::Watch(w) if !admitted && !s.waiting => self.on_watch(now, si, w),
            Message::WatchAck(t) if admitted => {
                if t > s.sent {
                    log::warn!(
                        "spectator on {id} acknowledged tick {t}, {} were sent: dropped",
                        s.sent
                    );
                    self.drop_spectator(si, Some(ByeReason::InvalidData));
                } else {
                    // Unreliable: an older acknowledgement may come late.
                    s.acked = s.acked.max(t);
                }
            }
            // An acknowledgement before the catch-up went: harmless.
            Message::WatchAck(_) => {}
            Message::Bye(reason) => {
                if let ByeReason::Desync { tick, .. } = reason {
                    log::warn!("spectator on {id} found another state at tick {tick}: it leaves");
                } else {
                    log::info!("spectator on {id} left");
                }
                self.drop_spectator(si, None);
            }
            other => {
                log::warn!(
                    "spectator on {id} sent {}: refused, it is dropped",
                    message_name(&other)
                );
                self.drop_spectator(si, Some(ByeReason::InvalidData));
            }
        }
    }

    /// Host: a `Watch` on a link the running match does not know: it
    /// becomes a spectator link.
    pub(super) fn on_stranger_watch(&mut self, now: Millis, link: PeerId, w: Watch) {
        self.audience.gone.retain(|id| *id != link);
        self.audience.members.push(Spectator::new(link, now));
        let si = self.audience.members.len() - 1;
        self.on_watch(now, si, w);
    }

    /// Host: spectator `si` asks to watch.
    fn on_watch(&mut self, now: Millis, si: usize, w: Watch) {
        if w.protocol != PROTOCOL_VERSION || w.build != G::BUILD_ID {
            log::info!("a spectator of another build: refused");
            self.drop_spectator(si, Some(ByeReason::VersionMismatch));
            return;
        }
        if self.audience.admitted() >= usize::from(self.cfg.max_spectators) {
            log::info!(
                "a spectator beyond the {} admitted: refused",
                self.cfg.max_spectators
            );
            self.drop_spectator(si, Some(ByeReason::WatchRefused(WatchRefusal::Full)));
            return;
        }
        match &self.phase {
            Phase::Running(_) => self.admit_spectator(now, si),
            _ => {
                if let Some(s) = self.audience.members.get_mut(si) {
                    s.waiting = true;
                }
            }
        }
    }

    /// Host, at the start: every spectator whose `Watch` came during the
    /// handshake is admitted.
    pub(super) fn admit_waiting_spectators(&mut self, now: Millis) {
        for si in 0..self.audience.members.len() {
            if self.audience.members.get(si).is_some_and(|s| s.waiting) {
                self.admit_spectator(now, si);
            }
        }
    }

    /// Host, each frame of the handshake: a spectator whose `Watch` came
    /// gets a keep-alive every ping interval, so that it does not take
    /// the wait for the players for silence.
    pub(super) fn keep_waiting_spectators(&mut self) {
        let every = u32::from(self.cfg.ping_interval_frames);
        for s in &mut self.audience.members {
            if !s.waiting {
                continue;
            }
            s.quiet_frames += 1;
            if s.quiet_frames >= every {
                s.out.send(&Message::<G::Input>::Ping(0));
                s.quiet_frames = 0;
            }
        }
    }

    /// Host: spectator `si` is admitted: it gets the Welcome, every
    /// slot's confirmed inputs from tick 0 and the confirmed state's
    /// hash, then the live stream; the players are told the new count.
    fn admit_spectator(&mut self, now: Millis, si: usize) {
        let Phase::Running(run) = &mut self.phase else {
            return;
        };
        let tick = run.timeline.confirmed_tick();
        let Some(hash) = run.timeline.confirmed_game().map(G::state_hash) else {
            // Unreachable: the confirmed state is the present or saved.
            debug_assert!(false, "no confirmed state");
            return;
        };
        let Some(s) = self.audience.members.get_mut(si) else {
            return;
        };
        s.waiting = false;
        s.admitted = true;
        s.sent = tick;
        s.acked = tick;
        s.hashed = tick;
        s.last_heard = s.last_heard.max(now);
        s.out.send(&Message::<G::Input>::Welcome(Welcome {
            seed: run.params.seed,
            players: run.params.players,
            hash_interval: run.params.hash_interval,
            match_id: run.params.match_id,
        }));
        let players = run.timeline.players();
        let all: Vec<&[G::Input]> = (0..players)
            .map(|p| {
                let i = run.timeline.inputs_of(p);
                i.get(..tick as usize).unwrap_or(i)
            })
            .collect();
        let end = CatchUp {
            tick,
            hash,
            roster: run.roster_seq,
            spectators: run.watchers.changes(),
            neutral: 0,
        };
        // A spectator's catch-up replays from the start.
        let count = rejoin::send_catch_up(&mut s.out, &all, None, end);
        log::info!(
            "spectator on {} admitted at tick {tick} (catch-up of {count} runs)",
            s.id
        );
        let id = s.id;
        self.events.push_back(Event::Spectator {
            link: id,
            joined: true,
        });
        self.order_spectator_count();
    }

    /// Host: the spectator count changed: every player is told, with a
    /// numbered change at a tick no player has reached yet.
    pub(super) fn order_spectator_count(&mut self) {
        let count = u8::try_from(self.audience.admitted()).unwrap_or(u8::MAX);
        let Phase::Running(run) = &mut self.phase else {
            return;
        };
        let tick = ahead_limit(run.timeline.tick(), run.params);
        run.roster_seq = run.roster_seq.wrapping_add(1).max(1);
        let change = Message::<G::Input>::Roster(Roster {
            seq: run.roster_seq,
            tick,
            change: RosterChange::Spectators { count },
        });
        for p in self.peers.iter_mut().filter(|p| p.slot.is_some()) {
            p.out.send(&change);
        }
        // The spectators read the count too (they acknowledge nothing: a
        // spectator's own stream is paced by its WatchAcks).
        for s in self.audience.members.iter_mut().filter(|s| s.admitted) {
            s.out.send(&change);
        }
        // Kept down to the confirmed tick: a catch-up starts there.
        run.watchers
            .change(tick, count, run.timeline.confirmed_tick());
    }

    /// Host: spectator `si` is dropped (told why with `bye`, if any); the
    /// match goes on, and the players learn the new count if it was
    /// admitted.
    pub(super) fn drop_spectator(&mut self, si: usize, bye: Option<ByeReason>) {
        if si >= self.audience.members.len() {
            return;
        }
        let mut s = self.audience.members.remove(si);
        if let Some(reason) = bye {
            s.out.send(&Message::<G::Input>::Bye(reason));
            // What is queued still goes: keep the outbox as a stranger's.
            self.members.add_stranger(s.id, core::mem::take(&mut s.out));
        }
        self.audience.gone.push(s.id);
        if self.audience.gone.len() > 64 {
            self.audience.gone.remove(0);
        }
        if s.admitted {
            self.events.push_back(Event::Spectator {
                link: s.id,
                joined: false,
            });
            self.order_spectator_count();
        }
        self.audience.forget_sent_hashes();
    }

    /// Host, each running frame: each admitted spectator silent for the
    /// timeout, or too far behind, is dropped; the others are sent the
    /// ticks confirmed since the last send (paced by their
    /// acknowledgements) and the hashes up to there; a quiet link gets a
    /// keep-alive.
    pub(super) fn serve_spectators(&mut self, now: Millis, every_tick: bool) {
        self.admit_waiting_spectators(now);
        let Phase::Running(run) = &self.phase else {
            return;
        };
        let confirmed = run.timeline.confirmed_tick();
        let due = every_tick || self.stats.frames.is_multiple_of(SEND_EVERY_FRAMES);
        let mut si = 0;
        while si < self.audience.members.len() {
            let Some(s) = self.audience.members.get(si) else {
                break;
            };
            let silent = now.saturating_since(s.last_heard) >= self.cfg.timeout;
            if silent {
                log::info!("spectator on {} silent for the timeout: dropped", s.id);
                self.drop_spectator(si, None);
                continue;
            }
            if s.admitted && confirmed.saturating_sub(s.acked) > MAX_BEHIND_TICKS {
                log::info!(
                    "spectator on {} is {} ticks behind: dropped",
                    s.id,
                    confirmed - s.acked
                );
                self.drop_spectator(si, Some(ByeReason::WatchRefused(WatchRefusal::TooSlow)));
                continue;
            }
            if s.admitted && due && s.backlog <= MAX_STREAM_BACKLOG {
                let limit = if every_tick {
                    confirmed
                } else {
                    confirmed.min(s.acked.saturating_add(IN_FLIGHT_TICKS))
                };
                self.send_confirmed(si, limit, false);
            }
            if let Some(s) = self.audience.members.get_mut(si) {
                s.quiet_frames += 1;
                if s.admitted && s.quiet_frames >= u32::from(self.cfg.ping_interval_frames) {
                    // Nothing confirmed for a while (a stalled match):
                    // the spectator hears the host is there.
                    s.out.send(&Message::<G::Input>::Ping(0));
                    s.quiet_frames = 0;
                }
            }
            si += 1;
        }
        self.audience.forget_sent_hashes();
    }

    /// Host: spectator `si` gets every confirmed tick from its last
    /// acknowledgement up to `upto`, in runs of every player's inputs, and
    /// the host's hashes up to there. The live stream (`reliable` false)
    /// rides the unreliable channel and repeats what is not acknowledged
    /// yet, as the players' inputs do; the end of the match sends what is
    /// left on the reliable channel, so that it comes before the `Bye`.
    fn send_confirmed(&mut self, si: usize, upto: u32, reliable: bool) {
        let Phase::Running(run) = &self.phase else {
            return;
        };
        let Some(s) = self.audience.members.get_mut(si) else {
            return;
        };
        let players = run.timeline.players().max(1);
        // Cannot truncate: MAX_RUN / 2 fits a u8.
        let per_run = u32::try_from(MAX_RUN / players).unwrap_or(1).clamp(1, 255);
        let mut next = s.acked;
        while next < upto {
            let ticks = (upto - next).min(per_run);
            let (from, to) = (next as usize, (next + ticks) as usize);
            let mut pads = Vec::with_capacity(players * ticks as usize);
            for p in 0..players {
                match run.timeline.inputs_of(p).get(from..to) {
                    Some(i) => pads.extend_from_slice(i),
                    None => {
                        // Unreachable: confirmed ticks have every input.
                        debug_assert!(false, "a confirmed tick without inputs");
                        return;
                    }
                }
            }
            let c = Confirmed {
                first_tick: next,
                ticks: u8::try_from(ticks).unwrap_or(1),
                pads,
            };
            s.out.send(&if reliable {
                Message::Confirmed(c)
            } else {
                Message::Streamed(c)
            });
            next += ticks;
            s.quiet_frames = 0;
        }
        s.sent = s.sent.max(upto);
        for &(tick, hash) in &self.audience.hashes {
            if tick > s.hashed && tick <= s.sent {
                s.out
                    .send(&Message::<G::Input>::Hash(HashReport { tick, hash }));
                s.hashed = tick;
            }
        }
    }

    /// Host, at the end of the match: every admitted spectator gets every
    /// confirmed tick and hash left, then `bye` (a desync among the
    /// players ends its stream with a plain `Quit`: its own hashes are
    /// checked against the host's, not the players' quarrel).
    pub(super) fn end_for_spectators(&mut self, bye: Option<ByeReason>) {
        let confirmed = self.phase.timeline().map_or(0, Timeline::confirmed_tick);
        for si in 0..self.audience.members.len() {
            if self.audience.members.get(si).is_some_and(|s| s.admitted) {
                self.send_confirmed(si, confirmed, true);
            }
        }
        let reason = match bye {
            Some(ByeReason::Desync { .. }) | None => ByeReason::Quit,
            Some(r) => r,
        };
        for s in &mut self.audience.members {
            s.out.send(&Message::<G::Input>::Bye(reason));
        }
    }
}

/// A message's name for the logs (never its contents).
fn message_name<I>(m: &Message<I>) -> &'static str {
    match m {
        Message::Hello(_) => "a Hello",
        Message::Inputs(_) => "inputs",
        Message::Hash(_) => "a hash",
        Message::Ping(_) => "a ping",
        Message::Pong(_) => "a pong",
        Message::Bye(_) => "a Bye",
        Message::Parts(_) => "part hashes",
        Message::Member(_) => "a Member claiming a slot",
        Message::Missing(_) => "a Missing",
        Message::Held(_) => "held inputs",
        Message::Roster(_) => "a membership change",
        Message::RosterAck(_) => "a membership acknowledgement",
        Message::Rejoin(_) => "a Rejoin",
        Message::Join(_) => "a Join",
        Message::Resume(_) => "a Resume",
        Message::JoinReady(_) => "a JoinReady",
        Message::CatchUpRun(_) => "a catch-up run",
        Message::CatchUp(_) => "a catch-up",
        Message::SavedState(_) => "a saved state",
        Message::Watch(_) => "a second Watch",
        Message::Welcome(_) => "a Welcome",
        Message::Confirmed(_) => "confirmed inputs",
        Message::WatchAck(_) => "an acknowledgement",
        Message::Streamed(_) => "streamed inputs",
    }
}
