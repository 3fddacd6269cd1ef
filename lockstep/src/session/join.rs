//! A late join into a free slot (one that plays the neutral input), and
//! a benched player's return, which takes the same path.
//!
//! The host sends the newcomer its catch-up before it orders any change,
//! the match going on without it; once the newcomer replayed it, it says
//! [`Message::JoinReady`] and only then does the host order the change
//! that gives it the slot (see `Session::begin_join`), at a tick far
//! enough ahead for every player to hear of it and for the newcomer,
//! already caught up, to be there. The players who stayed never wait for
//! a catch-up to cross. Each guest applies the change and takes the
//! newcomer's session on a link once its `Rejoin` shows the token the
//! change names.
//!
//! The slot stays neutral and reserved while the newcomer catches up; a
//! newcomer that does not say it is ready within [`READY_WITHIN`] (silent,
//! gone, or too slow to replay) is refused with `NotReady` and the slot is
//! free again. The players never heard of it.

use alloc::vec::Vec;

use super::arrivals::Admission;
use super::handshake::host_hello;
use super::hash_book::HashBook;
use super::peer::Peer;
use super::rejoin::{self, Gathered};
use super::roster::{Joining, Newcomer};
use super::sender;
use super::time_sync::MS_PER_3_TICKS;
use super::{ahead_limit, Entry, Phase, Session};
use super::{Event, PeerId, Violation};
use crate::game::DeterministicGame;
use crate::time::Millis;
use crate::wire::{
    ByeReason, Join, Member, Message, Rejoin, RejoinRefusal, Roster, RosterChange, PROTOCOL_VERSION,
};

/// How far past its delay the host sets a late join's change at most (60
/// ticks, 1 s). Every side accepts a join's change this much further
/// ahead than any other change.
pub(super) const JOIN_LEAD_TICKS: u32 = 60;
/// The lead's allowance, beyond three round trips, for two reliable
/// pieces (the change, an acknowledgement, the short second catch-up)
/// lost and sent again 200 ms later each.
const JOIN_LEAD_SPARE: Millis = Millis(400);
/// A benched player coming back (its whole catch-up still follows the
/// change): the lead is two and a half round trips and this spare, at
/// most [`BACK_LEAD_TICKS`].
const BACK_LEAD_SPARE: Millis = Millis(200);
/// The most a benched player's return is set past the delay (500 ms).
const BACK_LEAD_TICKS: u32 = 30;

/// How long the host keeps a slot for a newcomer that was sent its
/// catch-up and has not said it is ready (the handshake's own default
/// deadline).
pub(super) const READY_WITHIN: Millis = Millis(10_000);

impl<G: DeterministicGame> Session<G> {
    /// Host: the newcomer on `link` may take free `slot`. It gets the
    /// host's Hello (the slot and the token it will hold) and the catch-up
    /// at once, the slot still neutral; nobody else is told yet.
    fn admit_newcomer(&mut self, now: Millis, link: PeerId, slot: u8) {
        let Phase::Running(run) = &mut self.phase else {
            return;
        };
        // The token is the next seat's; the seat is taken when the change
        // is ordered, or burnt when the newcomer is released (so its token
        // is never another newcomer's).
        let mut seats = *self.members.seats();
        if let Some(s) = seats.get_mut(usize::from(slot)) {
            *s = s.saturating_add(1);
        }
        let hello = host_hello::<G::Input>(&run.params, &self.cfg, G::BUILD_ID, slot, &seats);
        // Its own slot is among the neutral ones: it fills it as everyone
        // does until the change.
        let Some((state, end)) = run.catch_up_parts(true) else {
            return;
        };
        let tick = end.tick;
        self.arrivals.admitting = Some(Admission {
            slot,
            link,
            tick,
            until: now + READY_WITHIN,
            ready: false,
        });
        let players = run.timeline.players();
        let all: Vec<&[G::Input]> = (0..players).map(|s| run.timeline.inputs_of(s)).collect();
        let out = self.members.stranger_out(link);
        out.send(&hello);
        let count = rejoin::send_catch_up(out, &all, state, end);
        log::info!(
            "a new player on {link} may take slot {slot}: catch-up of {count} messages to tick {tick}, the match goes on"
        );
        self.deadlines.progressed();
    }

    /// Host: `JoinReady` on link `link` (`pi` when it is a player's link):
    /// the newcomer replayed its catch-up to `tick`. Taken only from the
    /// newcomer being admitted, once, for the catch-up it was sent;
    /// anything else is logged and dropped, the match untouched.
    pub(super) fn on_join_ready(
        &mut self,
        now: Millis,
        link: PeerId,
        pi: Option<usize>,
        tick: u32,
    ) {
        let Phase::Running(run) = &mut self.phase else {
            log::debug!("a JoinReady on {link} outside a running match: dropped");
            return;
        };
        if self.side != 0 || pi.is_some() {
            log::warn!("a JoinReady on player link {link}: dropped, the match goes on");
            return;
        }
        let joining = run.joining().is_some_and(|j| j.link == link);
        match &mut self.arrivals.admitting {
            Some(a) if a.link == link && a.ready => {
                log::debug!("{link} said again it is ready: dropped");
            }
            Some(a) if a.link == link && a.tick != tick => {
                log::warn!(
                    "{link} says it is ready at tick {tick}, its catch-up ended at {}: dropped",
                    a.tick
                );
            }
            Some(a) if a.link == link => {
                a.ready = true;
                log::info!("the new player on {link} caught up to tick {tick}: ready");
                self.join_when_ready(now);
            }
            _ if joining => {
                log::debug!("{link} said again it is ready: dropped");
            }
            _ => log::warn!("a JoinReady on {link}, which is not joining: dropped"),
        }
    }

    /// Host, each frame and on `JoinReady`: orders the change for a
    /// newcomer that is ready once nothing blocks it, and releases the
    /// slot of one that did not get there in time.
    pub(super) fn join_when_ready(&mut self, now: Millis) {
        let Phase::Running(run) = &self.phase else {
            return;
        };
        let Some(a) = self.arrivals.admitting else {
            return;
        };
        let away = |p: &super::Peer| p.dropped.is_some() || p.frozen || p.returning.is_some();
        let busy = run.leaving.is_some() || run.entry.is_some() || self.peers.iter().any(away);
        if a.ready && !busy {
            self.arrivals.admitting = None;
            self.begin_join(now, a.link, a.slot, false, Some(a.tick));
        } else if now >= a.until {
            let why = if a.ready {
                RejoinRefusal::HostUnable
            } else {
                RejoinRefusal::NotReady
            };
            self.release_admission(why);
        }
    }

    /// Host: the newcomer being admitted is refused with `why` and its
    /// slot is free again; its token is never given again.
    fn release_admission(&mut self, why: RejoinRefusal) {
        let Some(a) = self.arrivals.admitting.take() else {
            return;
        };
        self.members.take_seat(a.slot);
        log::info!(
            "the new player on {} did not take slot {} in time ({why:?}): the slot is free again",
            a.link,
            a.slot
        );
        let bye = Message::<G::Input>::Bye(ByeReason::RejoinRefused(why));
        self.outbox_for(a.link, None).send(&bye);
    }

    /// Host: a `Bye` on `link`; whether it was the newcomer being
    /// admitted giving up (its slot is then free again at once).
    pub(super) fn admission_given_up(&mut self, link: PeerId) -> bool {
        let Some(a) = self.arrivals.admitting.filter(|a| a.link == link) else {
            return false;
        };
        self.arrivals.admitting = None;
        self.members.take_seat(a.slot);
        log::info!(
            "the new player on {link} gave up before taking slot {}: the slot is free again",
            a.slot
        );
        self.members.drop_stranger(link);
        true
    }
}

impl<G: DeterministicGame> Session<G> {
    /// Joining: this side replayed the host's first catch-up (on link
    /// `host`) to `tick` and checked its hash. It keeps what it gathered
    /// up to `tick` for the second catch-up to follow on, and tells the
    /// host it is ready.
    pub(super) fn ready_to_join(&mut self, host: usize, kept: Gathered<G::Input>, tick: u32) {
        self.arrivals.gathered = Some(kept);
        self.arrivals.join_ready = Some(tick);
        if let Some(h) = self.peers.get_mut(host) {
            h.out.send(&Message::<G::Input>::JoinReady(tick));
        }
        self.deadlines.progressed();
        log::info!(
            "replayed the host's catch-up to tick {tick}: ready to take slot {}",
            self.side
        );
    }
}

impl<G: DeterministicGame> Session<G> {
    /// Host: a `Join` on link `link`, which the match does not know. The
    /// newcomer is let into a free slot, or refused on that link alone
    /// (logged at warn), the match untouched.
    pub(super) fn on_join(&mut self, now: Millis, link: PeerId, j: Join) {
        if j.protocol != PROTOCOL_VERSION || j.build != G::BUILD_ID {
            log::info!("a join from another build on {link}: refused");
            let bye = Message::<G::Input>::Bye(ByeReason::VersionMismatch);
            self.outbox_for(link, None).send(&bye);
            return;
        }
        if let Phase::Running(run) = &self.phase {
            let admitted = self.arrivals.admitting.is_some_and(|a| a.link == link);
            if admitted || run.joining().is_some_and(|jn| jn.link == link) {
                log::debug!("{link} asked again for the slot it is being given: dropped");
                return;
            }
        }
        match self.free_slot(j.slot) {
            Ok(slot) => self.admit_newcomer(now, link, slot),
            Err(why) => {
                log::warn!("a join on {link} refused: {why:?}");
                let bye = Message::<G::Input>::Bye(ByeReason::RejoinRefused(why));
                self.outbox_for(link, None).send(&bye);
            }
        }
    }

    /// Host: the slot a newcomer asking for `asked` (0: any) may take, or
    /// why none.
    fn free_slot(&self, asked: u8) -> Result<u8, RejoinRefusal> {
        let Phase::Running(run) = &self.phase else {
            return Err(RejoinRefusal::HostUnable);
        };
        let players = run.params.players;
        if !G::takes_joiners(players) {
            return Err(RejoinRefusal::NoJoiners);
        }
        let away = |p: &Peer| p.dropped.is_some() || p.frozen || p.returning.is_some();
        let benched = |s: u8| self.members.is_benched(s);
        let neutral = |s: u8| run.timeline.is_neutral(usize::from(s)) && !benched(s);
        let slot = if asked == 0 {
            match (1..players).find(|&s| neutral(s)) {
                Some(s) => s,
                None if self.peers.iter().any(away) || self.members.any_benched() => {
                    return Err(RejoinRefusal::SlotHeld)
                }
                None => return Err(RejoinRefusal::NoFreeSlot),
            }
        } else if let Some(p) = self.peers.iter().find(|p| p.slot == Some(asked)) {
            return Err(if away(p) {
                RejoinRefusal::SlotHeld
            } else {
                RejoinRefusal::SlotLive
            });
        } else if asked < players && neutral(asked) {
            asked
        } else if benched(asked) {
            return Err(RejoinRefusal::SlotHeld);
        } else {
            return Err(RejoinRefusal::NoFreeSlot);
        };
        // Every player must apply the change before the newcomer's
        // catch-up goes (a player away cannot), one change at a time, and
        // the newcomer must be able to come back (a token needs the
        // entropy).
        let busy = self.cfg.rejoin_entropy.is_none()
            || run.leaving.is_some()
            || run.entry.is_some()
            || self.arrivals.admitting.is_some()
            || self.members.seat(slot) == u8::MAX
            || self.peers.iter().any(away);
        if busy {
            return Err(RejoinRefusal::HostUnable);
        }
        Ok(slot)
    }

    /// Host: the newcomer on `link` takes free `slot`. Every player is
    /// told (`Roster { Joined }`) that the slot plays the newcomer's
    /// inputs from a tick past every input this side sent; the newcomer's
    /// catch-up goes once they all applied it.
    ///
    /// `back`: the slot's benched player returns (its token unchanged).
    /// `from`: a newcomer that replayed a first catch-up to this tick (see
    /// `join.rs`): its second catch-up starts there.
    pub(super) fn begin_join(
        &mut self,
        now: Millis,
        link: PeerId,
        slot: u8,
        back: bool,
        from: Option<u32>,
    ) {
        let Phase::Running(run) = &mut self.phase else {
            return;
        };
        let entropy = self.cfg.rejoin_entropy.filter(|_| self.side == 0);
        if entropy.is_none() && !(back && self.side == self.members.host()) {
            // Only slot 0's host can give a newcomer a token; a host whose
            // place moved here takes back a benched player with its own.
            return;
        }
        let s = usize::from(slot);
        // No player holds an input of this side's for this tick or later
        // (none is sampled until every player applied the change), so none
        // made a tick from it final with the neutral input. Past the delay
        // and two ticks, the change is set far enough ahead for what must
        // happen before the players reach it: the change to the guests,
        // their acknowledgements back, the second (short) catch-up to the
        // newcomer, the others' inputs to it and its first inputs to
        // everyone: three of the worst round trips this side knows, and
        // two lost pieces sent again. Nearer, every player would stall at
        // it until the newcomer's inputs came; the newcomer, meanwhile,
        // runs faster than one tick a frame to its present.
        let rtt = self
            .peers
            .iter()
            .filter_map(|p| p.last_rtt)
            .max()
            .unwrap_or(Millis(100));
        // A benched player coming back gets its whole catch-up after the
        // change, as before the two-step join: its lead is kept as it was.
        let (lead_ms, most) = if from.is_some() {
            let ms = rtt.0.saturating_mul(3).saturating_add(JOIN_LEAD_SPARE.0);
            (ms, JOIN_LEAD_TICKS)
        } else {
            let ms = (rtt.0.saturating_mul(5) / 2).saturating_add(BACK_LEAD_SPARE.0);
            (ms, BACK_LEAD_TICKS)
        };
        let lead = lead_ms
            .saturating_mul(3)
            .div_ceil(MS_PER_3_TICKS)
            .min(u64::from(most));
        let tick = (run.timeline.local().len() as u32)
            .saturating_add(u32::from(self.delay.current()))
            .saturating_add(2)
            .saturating_add(u32::try_from(lead).unwrap_or(JOIN_LEAD_TICKS));
        // A newcomer's token is the next seat's (it was given it with its
        // first catch-up); a benched player keeps its own.
        let seat = self.members.seat(slot).saturating_add(u8::from(!back));
        self.members.set_seat(slot, seat);
        let proof = match entropy {
            Some(e) => {
                let token = rejoin::token(e, run.params.match_id, slot, seat);
                rejoin::proof(token, run.params.match_id, slot)
            }
            // The check the old host's Hello gave: the token is unchanged.
            None => self.members.proof(slot),
        };
        run.roster_seq = run.roster_seq.wrapping_add(1).max(1);
        let seq = run.roster_seq;
        let change = Message::<G::Input>::Roster(Roster {
            seq,
            tick,
            change: RosterChange::Joined { slot, proof },
        });
        for p in self.peers.iter_mut().filter(|p| p.slot.is_some()) {
            p.out.send(&change);
        }
        run.timeline.take_neutral_slot(s, tick);
        run.entry = Some(Entry::Joining(Joining {
            slot,
            link,
            tick,
            seq,
            back,
            from: from.unwrap_or(0),
        }));
        self.members.drop_stranger(link);
        if back {
            self.members.unbench(slot);
            log::info!(
                "benched slot {slot} is back on {link} from tick {tick}: telling the others"
            );
            self.events.push_back(Event::Unbenched { slot, tick });
        } else {
            log::info!(
                "a new player on {link} takes slot {slot} from tick {tick}: telling the others"
            );
            self.events.push_back(Event::Joined { slot, tick });
        }
        self.finish_join_when_applied(now);
    }

    /// Host: once every player applied the join change, the newcomer gets
    /// the host's Hello (its slot and token) and the catch-up.
    pub(super) fn finish_join_when_applied(&mut self, now: Millis) {
        let Phase::Running(run) = &mut self.phase else {
            return;
        };
        let Some(j) = run.joining() else {
            return;
        };
        // Acknowledgements come in order, so one at or past the change's
        // number covers it (later spectator changes may follow it).
        let applied = self
            .peers
            .iter()
            .filter(|p| p.slot.is_some())
            .all(|p| p.roster_acked.wrapping_sub(j.seq) < 0x8000);
        if !applied {
            return;
        }
        run.entry = None;
        self.members.forget_gone(j.link);
        // A returned host may have opened the link before it knew whose
        // it was.
        self.peers.retain(|p| p.id != j.link || p.slot.is_some());
        let mut peer = Peer::new(j.link, now);
        peer.slot = Some(j.slot);
        peer.enters_at = j.tick;
        self.peers.push(peer);
        let t = self.peers.len() - 1;
        match (!j.back).then_some(j.from) {
            // It holds the match up to `from`: the rest only.
            Some(from) => {
                if let Some((tick, count)) = self.catch_up_from(now, j.link, t, None, true, from) {
                    log::info!(
                        "slot {} joined on {}: second catch-up of {count} messages from tick {from} to {tick}",
                        j.slot,
                        j.link
                    );
                }
            }
            None => self.send_catch_up(now, j.link, t, !j.back),
        }
    }

    /// Guest: the host let a new player into free `slot` from tick
    /// `r.tick` on; its session is taken once it shows up with the token
    /// whose fingerprint is `proof`.
    pub(super) fn on_joined(&mut self, now: Millis, pi: usize, r: Roster, slot: u8, proof: u64) {
        let from_host = self.is_host_link(pi);
        let host_had = self.peers.get(pi).map_or(0, |h| h.sender.acked());
        let taken = self.peers.iter().any(|p| p.slot == Some(slot));
        let Phase::Running(run) = &mut self.phase else {
            self.violation(Violation::UnexpectedRoster);
            return;
        };
        // A join's change is set a lead further ahead than others.
        let reach = ahead_limit(ahead_limit(run.reach_base(), run.params), run.params)
            .saturating_add(JOIN_LEAD_TICKS);
        if !from_host
            || r.seq != run.roster_seq.wrapping_add(1)
            || run.asked.is_some()
            || run.entry.is_some()
            || taken
            || !run.timeline.is_neutral(usize::from(slot))
            || r.tick < run.timeline.confirmed_tick()
            || r.tick > reach
        {
            self.violation(Violation::UnexpectedRoster);
            return;
        }
        run.roster_seq = r.seq;
        run.timeline.take_neutral_slot(usize::from(slot), r.tick);
        self.members.keep_proof(slot, proof);
        run.entry = Some(Entry::Newcomer(Newcomer {
            slot,
            proof,
            host_had,
            tick: r.tick,
            returned: false,
        }));
        if let Some(host) = self.peers.get_mut(pi) {
            host.out.send(&Message::<G::Input>::RosterAck(r.seq));
        }
        let Some(bench) = self.members.unbench(slot) else {
            log::info!(
                "a new player takes slot {slot} from tick {}: waiting for its session",
                r.tick
            );
            self.events.push_back(Event::Joined { slot, tick: r.tick });
            // Its session introduced itself while it caught up, most
            // likely; the newest claim first.
            let claims = self.arrivals.claims_for(slot);
            self.take_claims(now, slot, claims);
            return;
        };
        let claims = bench.claims;
        log::info!(
            "benched slot {slot} is back from tick {}: waiting for its session",
            r.tick
        );
        self.events
            .push_back(Event::Unbenched { slot, tick: r.tick });
        // Its fresh session may have introduced itself already.
        self.take_claims(now, slot, claims);
    }

    /// Guest: the new player's session introduces itself on `link` with
    /// `r`; taken when its token matches the host's fingerprint.
    pub(super) fn take_newcomer(&mut self, now: Millis, link: PeerId, r: Rejoin) {
        let Phase::Running(run) = &mut self.phase else {
            return;
        };
        let pending = run.newcomer().filter(|n| n.slot == r.slot);
        let Some(n) = pending.or_else(|| self.arrivals.back_in(r.slot)) else {
            return;
        };
        let match_id = run.params.match_id;
        let same_build = r.protocol == PROTOCOL_VERSION && r.build == G::BUILD_ID;
        if !same_build || rejoin::proof(r.token, match_id, n.slot) != n.proof {
            log::warn!(
                "a session on {link} claims new slot {} with another token or build: refused",
                n.slot
            );
            return;
        }
        if n.returned {
            self.arrivals.seen_back(n.slot);
        } else {
            run.entry = None;
        }
        self.members.welcome(link);
        self.arrivals.forget_claims(n.slot);
        // A link open before that never said whose it was becomes the
        // player's.
        self.peers.retain(|p| p.id != link || p.slot.is_some());
        let mut p = Peer::new(link, now);
        p.slot = Some(n.slot);
        p.enters_at = n.tick;
        p.taken_token = Some(r.token);
        p.hello = Some(Self::local_version());
        p.pinger.start(self.cfg.ping_interval_frames);
        p.hashes = HashBook::after(0);
        // The host's catch-up held at least these of this side's inputs.
        p.sender = sender::Sender::holding(n.host_had);
        p.out.send(&Message::<G::Input>::Member(Member {
            slot: self.side,
            match_id,
        }));
        self.peers.push(p);
        if n.returned {
            log::info!("slot {} is back on {link}", n.slot);
            self.events.push_back(Event::Resumed { slot: n.slot });
        } else {
            log::info!("the new player of slot {} is on {link}", n.slot);
        }
        self.deadlines.progressed();
    }

    /// Joiner or rejoiner: the host (on link `host`) let this side in; it
    /// introduces itself to every other player with its slot and token
    /// (they check it against the host's fingerprint).
    pub(super) fn introduce_joiner(&mut self, host: usize) {
        let Some(token) = self.members.token() else {
            return;
        };
        let rejoin = Message::<G::Input>::Rejoin(Rejoin {
            protocol: PROTOCOL_VERSION,
            build: G::BUILD_ID,
            slot: self.side,
            token,
        });
        for (i, p) in self.peers.iter_mut().enumerate() {
            if i != host {
                p.out.send(&rejoin);
            }
        }
    }
}
