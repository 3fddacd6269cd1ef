//! Players that go silent or leave: the links' deadlines, dropping a
//! silent player, benching its slot (it plays the neutral input while
//! held for its player's return), and a leave, for which the host gathers
//! the gone player's inputs from the others (`Missing`, `Held`) before its
//! slot turns neutral for good.

use alloc::vec::Vec;

use super::peer::Peer;
use super::rejoin;
use super::roster::{runs, Benched, Dropped, Leaving, RunRefused, MAX_BENCH_CLAIMS};
use super::timeline::Timeline;
use super::{ahead_limit, is_away, Phase, Running, Session};
use super::{Event, Outcome, PeerId, Violation};
use crate::game::DeterministicGame;
use crate::time::Millis;
use crate::wire::{
    ByeReason, Held, Message, Missing, RejoinRefusal, Roster, RosterChange, MAX_PLAYERS,
};

impl<G: DeterministicGame> Session<G> {
    /// The running match's deadlines of each link: when a player heard
    /// will count as dropped, when a dropped player's slot stops being
    /// held, and (guest) when the host's change is given up on.
    pub(super) fn link_deadlines<'a>(
        &'a self,
        run: &'a Running<G>,
    ) -> impl Iterator<Item = Millis> + 'a {
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
    pub(super) fn benches(&self) -> bool {
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
    pub(super) fn check_links(&mut self, now: Millis) {
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
    pub(super) fn drop_peer(&mut self, now: Millis, pi: usize, deaf: bool) {
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
        let plays_on = (slot != self.members.host() || moves)
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
    pub(super) fn forget_answer(&mut self, now: Millis, id: PeerId) {
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
    pub(super) fn begin_leave(&mut self, slot: u8) {
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
    pub(super) fn finish_leave(&mut self, now: Millis) {
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
    pub(super) fn apply_neutral(&mut self, slot: u8, tick: u32) {
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
    pub(super) fn apply_bench(&mut self, now: Millis, slot: u8, tick: u32) {
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
    pub(super) fn bench_ran_out(&mut self, now: Millis) -> bool {
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
    pub(super) fn on_bench_over(&mut self, pi: usize, r: Roster, slot: u8) {
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
    pub(super) fn is_host_link(&self, pi: usize) -> bool {
        !self.is_host()
            && self
                .peers
                .get(pi)
                .is_some_and(|p| p.slot == Some(self.members.host()))
    }

    /// The host asks which inputs of a gone player this side holds.
    pub(super) fn on_missing(&mut self, pi: usize, m: Missing) {
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
    pub(super) fn on_held(&mut self, now: Millis, pi: usize, h: Held<G::Input>) {
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
        if self.side == self.members.host() || run.leaving.is_some() {
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
}
