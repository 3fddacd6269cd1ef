//! The spectator's side: a session made with
//! [`SessionConfig::spectator`](super::SessionConfig::spectator) asks the
//! host to watch, gathers and replays the catch-up, then plays the
//! confirmed ticks the host streams at the delay it chose, checking the
//! host's hashes against its own.
//!
//! A spectator has one link, to the host. It sends a `Watch`, its
//! acknowledgements (`WatchAck`, which pace the host's stream and tell the
//! host it is there) and, at its end, a `Bye`; never an input.

use alloc::collections::VecDeque;
use alloc::vec;

use super::rejoin::Gathered;
use super::timeline::{Timeline, Watch};
use super::{Event, Frame, Outcome, Phase, Running, Session, Violation};
use crate::game::DeterministicGame;
use crate::parts::{DesyncParts, StatePart};
use crate::time::Millis;
use crate::wire::{
    ByeReason, CatchUp, Confirmed, HashReport, Message, Roster, RosterChange, Welcome,
};

use super::audience::{SpectatorCount, SEND_EVERY_FRAMES};
use super::handshake::Params;

/// The most host hashes a spectator keeps ahead of its own play (the host
/// sends a hash only with the ticks it covers, so an honest host stays far
/// below).
const MAX_HOST_HASHES: usize = 4096;

/// The most of its own hashes a spectator keeps for a host hash still to
/// come.
const MAX_OWN_HASHES: usize = 64;

/// What a spectator keeps besides its timeline.
#[derive(Debug, Default)]
pub(super) struct Watcher {
    /// The host's hashes of final ticks this side has not compared yet.
    host: VecDeque<(u32, u64)>,
    /// This side's hashes of final ticks the host's have not come for.
    own: VecDeque<(u32, u64)>,
    /// A hash that differs: the tick, this side's and the host's.
    differ: Option<(u32, u64, u64)>,
    /// The last acknowledgement sent, and frames since.
    acked: u32,
    quiet_frames: u32,
    /// It has held its watch delay's worth of ticks once and plays: from
    /// then on what it holds beyond the present is a buffer.
    playing: bool,
}

impl Watcher {
    /// Compares what both queues hold for the same ticks; the first
    /// difference is kept.
    fn compare(&mut self) {
        while let (Some(&(ht, hh)), Some(&(ot, oh))) = (self.host.front(), self.own.front()) {
            if ht < ot {
                self.host.pop_front();
            } else if ot < ht {
                self.own.pop_front();
            } else {
                self.host.pop_front();
                self.own.pop_front();
                if hh != oh && self.differ.is_none() {
                    self.differ = Some((ht, oh, hh));
                }
            }
        }
        while self.own.len() > MAX_OWN_HASHES {
            self.own.pop_front();
        }
    }
}

/// The spectator's watch on its timeline: ticks become events, final
/// ticks' hashes are compared with the host's.
struct SpectatorWatch<'a> {
    watcher: &'a mut Watcher,
    events: &'a mut VecDeque<Event>,
}

impl<G: DeterministicGame> Watch<G> for SpectatorWatch<'_> {
    fn stepped(&mut self, tick: u32, _state: &G, _resim: bool) {
        self.events.push_back(Event::Ticked(tick));
    }

    fn final_hash(&mut self, tick: u32, hash: u64, _parts: alloc::vec::Vec<StatePart>) {
        self.watcher.own.push_back((tick, hash));
        self.watcher.compare();
    }

    fn stopped(&self) -> bool {
        self.watcher.differ.is_some()
    }
}

impl<G: DeterministicGame> Session<G> {
    /// Whether this session watches instead of playing.
    pub(super) fn is_spectator(&self) -> bool {
        self.watcher.is_some()
    }

    /// Spectator: a message from the host (link `pi`, the only one).
    pub(super) fn on_watched(&mut self, now: Millis, pi: usize, msg: Message<G::Input>) {
        match msg {
            Message::Welcome(w) => self.on_welcome(w),
            Message::CatchUpRun(r) if self.arrivals.gathered.is_some() => {
                let folded = self.arrivals.gathered.as_mut().map(|g| g.fold(&r));
                if let Some(Err(e)) = folded {
                    log::warn!("catch-up run refused: {e:?}");
                    self.violation(Violation::BadCatchUp);
                }
            }
            Message::CatchUp(c) if self.arrivals.gathered.is_some() => {
                self.on_watch_catch_up(now, c)
            }
            Message::Confirmed(c) => self.on_confirmed(&c, false),
            Message::Streamed(c) => self.on_confirmed(&c, true),
            Message::Hash(h) => self.on_host_hash(h),
            Message::Roster(r) => self.on_watched_roster(r),
            // The host's keep-alive while the match stalls.
            Message::Ping(_) => {}
            Message::Bye(reason) => self.on_host_bye(now, reason),
            _ => {
                let _ = pi;
                self.violation(Violation::UnexpectedWatch);
            }
        }
    }

    /// Spectator: the host admits this side.
    fn on_welcome(&mut self, w: Welcome) {
        let Phase::Handshake(hs) = &mut self.phase else {
            self.violation(Violation::UnexpectedWatch);
            return;
        };
        if self.arrivals.gathered.is_some() {
            self.violation(Violation::UnexpectedWatch);
            return;
        }
        hs.params = Params {
            seed: w.seed,
            delay: 0,
            window: 0,
            hash_interval: w.hash_interval,
            players: w.players,
            match_id: w.match_id,
        };
        self.arrivals.gathered = Some(Gathered::new(w.players));
        log::info!("the host admits this spectator: {} players", w.players);
    }

    /// Spectator: the end of the catch-up: replayed, checked against the
    /// host's hash, and the match is watched from there.
    fn on_watch_catch_up(&mut self, now: Millis, c: CatchUp) {
        let Phase::Handshake(hs) = &self.phase else {
            self.violation(Violation::BadCatchUp);
            return;
        };
        let params = hs.params;
        let Some(g) = self.arrivals.gathered.take() else {
            return;
        };
        // Confirmed ticks only: every slot holds exactly the catch-up's.
        if g.shortest() != c.tick || g.longest() != c.tick {
            log::warn!(
                "spectator catch-up to tick {} with inputs from {} to {} ticks",
                c.tick,
                g.shortest(),
                g.longest()
            );
            self.violation(Violation::BadCatchUp);
            return;
        }
        let timeline =
            Timeline::<G>::new(params.seed, params.players, 0, 0, 0, params.hash_interval)
                .caught_up(g.inputs, c.tick);
        if !self.caught_up_to(&timeline, &c) {
            return;
        }
        let mut run = Running::new(params, timeline, c.roster);
        self.delay = super::delay::DelayTuner::new(params.delay);
        run.watchers = SpectatorCount::from_changes(&c.spectators, c.tick);
        self.phase = Phase::Running(run);
        if let Some(host) = self.peers.first_mut() {
            host.last_heard = host.last_heard.max(now);
            host.out.send(&Message::<G::Input>::WatchAck(c.tick));
        }
        if let Some(w) = self.watcher.as_mut() {
            w.acked = c.tick;
        }
        self.deadlines.progressed();
        log::info!(
            "watching from tick {}: the catch-up replays to the host's hash",
            c.tick
        );
        self.events.push_back(Event::Watching {
            players: params.players,
            tick: c.tick,
        });
    }

    /// Spectator: a run of confirmed ticks. It may repeat ticks already
    /// held (the host sends everything not acknowledged yet); those must
    /// be the same inputs. A streamed run (`lossy`) that starts past what
    /// is held follows a lost one and is dropped: the next send carries
    /// the missing ticks again. A reliable run comes in order, so a gap
    /// there is the host's fault.
    fn on_confirmed(&mut self, c: &Confirmed<G::Input>, lossy: bool) {
        let Phase::Running(run) = &mut self.phase else {
            // A streamed run may outrun the catch-up's end on the other
            // channel; the host sends it again.
            if !(lossy && matches!(self.phase, Phase::Handshake(_))) {
                self.violation(Violation::UnexpectedWatch);
            }
            return;
        };
        let players = run.timeline.players();
        let n = usize::from(c.ticks);
        let held = run.timeline.inputs_of(0).len() as u32;
        if c.pads.len() != players * n {
            self.violation(Violation::UnexpectedWatch);
            return;
        }
        if c.first_tick > held {
            if !lossy {
                self.violation(Violation::InputGap {
                    expected: held,
                    first: c.first_tick,
                });
            }
            return;
        }
        // Cannot truncate: `held - first_tick` is checked below `n` first.
        let known = (held - c.first_tick) as usize;
        let from = c.first_tick as usize;
        for (slot, pads) in c.pads.chunks(n.max(1)).enumerate() {
            let have = run.timeline.inputs_of(slot).get(from..).unwrap_or(&[]);
            let overlap = known.min(n);
            if pads.get(..overlap) != have.get(..overlap) {
                log::warn!("the host sent other inputs for a confirmed tick");
                self.violation(Violation::UnexpectedWatch);
                return;
            }
        }
        if known >= n {
            return;
        }
        for (slot, pads) in c.pads.chunks(n.max(1)).enumerate() {
            if let Some(new) = pads.get(known..) {
                run.timeline.extend_inputs(slot, new);
            }
        }
    }

    /// Spectator: the host's change of the spectator count (the only
    /// change it is sent; it acknowledges none).
    fn on_watched_roster(&mut self, r: Roster) {
        let (Phase::Running(run), RosterChange::Spectators { count }) = (&mut self.phase, r.change)
        else {
            self.violation(Violation::UnexpectedWatch);
            return;
        };
        run.roster_seq = r.seq;
        run.watchers.change(r.tick, count, run.timeline.tick());
    }

    /// Spectator: the host's hash of a final tick.
    fn on_host_hash(&mut self, h: HashReport) {
        let Phase::Running(run) = &self.phase else {
            self.violation(Violation::UnexpectedWatch);
            return;
        };
        let interval = u32::from(run.params.hash_interval.max(1));
        let Some(w) = self.watcher.as_mut() else {
            return;
        };
        let last = w.host.back().map_or(0, |&(t, _)| t);
        // In order, on the interval. A hash may come before the ticks it
        // covers (they ride the unreliable channel); the queue's bound
        // keeps a host that sends too many in check.
        if !h.tick.is_multiple_of(interval) || h.tick <= last {
            self.violation(Violation::BadHashTick { tick: h.tick });
            return;
        }
        if w.host.len() >= MAX_HOST_HASHES {
            self.violation(Violation::TooFarAhead { tick: h.tick });
            return;
        }
        w.host.push_back((h.tick, h.hash));
        w.compare();
        self.end_if_differs();
    }

    /// Spectator: a hash that differs from the host's ends this side (the
    /// players are not concerned: the host is told with a `Bye` and drops
    /// this side).
    fn end_if_differs(&mut self) {
        let Some((tick, local, remote)) = self.watcher.as_ref().and_then(|w| w.differ) else {
            return;
        };
        log::error!("spectator desync at tick {tick}: local {local:#018x}, host {remote:#018x}");
        self.end(
            Outcome::Desync {
                tick,
                local,
                remote,
                parts: DesyncParts::default(),
                slots: vec![0],
            },
            Some(ByeReason::Desync { tick, hash: local }),
        );
    }

    /// Spectator: the host ended the stream. A refusal ends this side at
    /// once; the end of the match first plays every tick received (they
    /// are all confirmed), so the watcher sees the match to its end.
    fn on_host_bye(&mut self, now: Millis, reason: ByeReason) {
        let outcome = match reason {
            ByeReason::WatchRefused(why) => Outcome::WatchRefused { why },
            ByeReason::Quit => Outcome::RemoteQuit,
            ByeReason::Timeout => Outcome::Timeout,
            ByeReason::HandshakeTimeout => Outcome::HandshakeTimeout,
            ByeReason::NoProgress => Outcome::NoProgress,
            ByeReason::PlayerLeft { slot } => Outcome::PlayerLeft { slot },
            ByeReason::VersionMismatch => Outcome::VersionMismatch {
                local: Self::local_version(),
                remote: None,
            },
            ByeReason::InvalidData => Outcome::InvalidData {
                violation: Violation::RejectedByPeer,
            },
            // A host never sends these to a spectator.
            ByeReason::Desync { .. } | ByeReason::RejoinRefused(_) => {
                self.violation(Violation::UnexpectedWatch);
                return;
            }
        };
        if !matches!(reason, ByeReason::WatchRefused(_)) {
            self.play_out(now);
            if self.is_ended() {
                return;
            }
        }
        self.end(outcome, None);
    }

    /// Spectator: runs every tick held (the match ended).
    fn play_out(&mut self, now: Millis) {
        let _ = now;
        while self.watch_step() {}
        self.end_if_differs();
    }

    /// Spectator: runs one tick if its inputs are held; whether it ran.
    fn watch_step(&mut self) -> bool {
        let (Phase::Running(run), Some(w)) = (&mut self.phase, self.watcher.as_mut()) else {
            return false;
        };
        if w.differ.is_some() || !run.timeline.can_run() {
            return false;
        }
        let mut watch = SpectatorWatch {
            watcher: w,
            events: &mut self.events,
        };
        run.timeline.step(&mut watch)
    }

    /// Spectator: one display frame. It starts once it holds the watch
    /// delay's worth of ticks past its present, then runs one tick a
    /// frame while it holds any, so the ticks in hand ride out a late or
    /// lost packet (the next one brings everything the host sent
    /// meanwhile); `1 + speed` a frame while it is more than
    /// `max_frames_behind` ticks behind its delay. Run dry, it waits to
    /// hold its delay again. It acknowledges what it holds every few
    /// frames.
    pub(super) fn watch_frame(&mut self, now: Millis) -> Frame {
        let Phase::Running(run) = &self.phase else {
            return Frame::Waiting;
        };
        self.stats.frames += 1;
        let held = run.timeline.inputs_of(0).len() as u32;
        let tick = run.timeline.tick();
        let in_hand = held.saturating_sub(tick);
        let delay = u32::from(self.cfg.watch_delay);
        let playing = self.watcher.as_ref().is_some_and(|w| w.playing);
        let behind = in_hand.saturating_sub(delay);
        let steps = if behind > u32::from(self.cfg.max_frames_behind) {
            (1 + u32::from(self.cfg.catch_up_speed)).min(behind)
        } else {
            u32::from(behind > 0 || (playing && in_hand > 0))
        };
        let mut ran = 0;
        while ran < steps && self.watch_step() {
            ran += 1;
        }
        if let Some(w) = self.watcher.as_mut() {
            // Run dry (the match itself stalled, or the link went quiet):
            // it fills its delay again before it plays on.
            w.playing = ran > 0 && in_hand > ran;
        }
        self.end_if_differs();
        if self.is_ended() {
            return Frame::Ended;
        }
        // Acknowledge what is held every few frames when it grew, and at
        // least once per ping interval (the host's sign of life).
        if let Some(w) = self.watcher.as_mut() {
            w.quiet_frames += 1;
            let grew = held > w.acked && self.stats.frames.is_multiple_of(SEND_EVERY_FRAMES);
            if grew || w.quiet_frames >= u32::from(self.cfg.ping_interval_frames) {
                w.acked = held;
                w.quiet_frames = 0;
                if let Some(host) = self.peers.first_mut() {
                    host.out.send(&Message::<G::Input>::WatchAck(held));
                }
            }
        }
        let tick = self.tick();
        if ran > 0 {
            self.deadlines.progressed();
            Frame::Ticked(tick)
        } else {
            self.stats.stalled_frames += 1;
            self.events.push_back(Event::Stalled(tick));
            let _ = now;
            Frame::Stalled(tick)
        }
    }
}
