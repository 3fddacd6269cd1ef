//! An entering side (rejoining, joining, or a host coming back) gathering
//! the catch-up it is sent, replaying it, and running the match from
//! there.

use alloc::vec::Vec;

use super::audience::SpectatorCount;
use super::delay::DelayTuner;
use super::join::JOIN_LEAD_TICKS;
use super::roster::Benched;
use super::sender;
use super::timeline::Timeline;
use super::{ahead_limit, Phase, Running, Session};
use super::{Event, Violation};
use crate::game::DeterministicGame;
use crate::time::Millis;
use crate::wire::{CatchUp, CatchUpRun, Rejoin, SavedState, MAX_PLAYERS, PROTOCOL_VERSION};

impl<G: DeterministicGame> Session<G> {
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
    pub(super) fn on_catch_up_run(&mut self, pi: usize, r: &CatchUpRun<G::Input>) {
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
    pub(super) fn on_saved_state(&mut self, pi: usize, piece: &SavedState) {
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
    pub(super) fn caught_up_to(&mut self, timeline: &Timeline<G>, c: &CatchUp) -> bool {
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
    pub(super) fn on_catch_up(&mut self, now: Millis, pi: usize, c: CatchUp) {
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
