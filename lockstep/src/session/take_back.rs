//! The host taking a player back after a reload: a fresh session's
//! `Rejoin` on a link the match does not know, the verdict on it (take it
//! now, let it wait, refuse it), the rejoins that wait, and the catch-up
//! sent to the player taken back.

use alloc::vec::Vec;

use super::handshake::host_hello;
use super::hash_book::HashBook;
use super::peer::Peer;
use super::rejoin;
use super::sender::{self, Outbox};
use super::{is_away, Phase, Session};
use super::{ping, time_sync};
use super::{Event, PeerId, Violation};
use crate::game::DeterministicGame;
use crate::time::Millis;
use crate::transport::Channel;
use crate::wire::{ByeReason, Message, Rejoin, RejoinRefusal, PROTOCOL_VERSION};

/// What the host does with a fresh session's `Rejoin`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdict {
    /// Takes the player back now.
    Take,
    /// Keeps the request until what blocks it clears (another player
    /// away, a change under way).
    Wait,
    /// Refuses it on its link alone.
    Refuse(RejoinRefusal),
}

impl<G: DeterministicGame> Session<G> {
    /// A datagram on a link the running match does not know. Only a fresh
    /// session's `Rejoin` is taken; anything else is dropped.
    pub(super) fn on_stranger(
        &mut self,
        now: Millis,
        link: PeerId,
        channel: Channel,
        bytes: &[u8],
    ) {
        match Message::<G::Input>::decode(bytes) {
            Ok(Message::Rejoin(r)) if channel == Channel::Reliable => {
                self.on_rejoin(now, link, None, r);
            }
            Ok(Message::Watch(w)) if channel == Channel::Reliable && self.is_host() => {
                self.on_stranger_watch(now, link, w);
            }
            Ok(Message::Join(j)) if channel == Channel::Reliable && self.side == 0 => {
                self.on_join(now, link, j);
            }
            Ok(Message::JoinReady(tick)) if channel == Channel::Reliable => {
                self.on_join_ready(now, link, None, tick);
            }
            Ok(Message::Bye(_))
                if channel == Channel::Reliable && self.admission_given_up(link) => {}
            Ok(Message::Join(_)) if channel == Channel::Reliable && self.is_host() => {
                // A host whose place moved here holds no entropy to give
                // a newcomer a token (see `migrate.rs`).
                self.refuse_rejoin(link, None, RejoinRefusal::HostUnable);
            }
            Ok(Message::Bye(r)) if channel == Channel::Reliable && self.waits_on(link) => {
                self.rejoin_given_up(link, r);
            }
            Ok(_) => log::debug!("{link} is not in the match and did not rejoin: dropped"),
            Err(e) => log::debug!("undecodable datagram from {link}, not in the match: {e}"),
        }
    }

    /// A `Rejoin` on link `link` (`pi` when it is a player's link): the
    /// host checks it against the slot it holds and takes the player
    /// back, keeps it waiting until what blocks it clears (see
    /// [`rejoin_verdict`](Self::rejoin_verdict)), or refuses it on that
    /// link alone. Guests take no rejoins.
    pub(super) fn on_rejoin(&mut self, now: Millis, link: PeerId, pi: Option<usize>, r: Rejoin) {
        if !self.is_host() {
            self.on_rejoin_at_guest(now, link, pi, r);
            return;
        }
        if !self.is_running() {
            if self.cfg.host_back.is_some() && r.slot != 0 && !self.is_ended() {
                // A guest whose page reloaded while this host was away:
                // heard once this host has the match back.
                self.keep_early_claim(link, r);
                return;
            }
            self.refuse_rejoin(link, pi, RejoinRefusal::HostUnable);
            return;
        }
        let mut pi = pi;
        if let Some(i) = pi.filter(|&i| self.peers.get(i).is_some_and(|p| p.slot.is_none())) {
            // A returned host's link that never said whose it is (the
            // page of a player benched or away when the host came back):
            // a stranger's, whose request is heard as such.
            self.peers.remove(i);
            pi = None;
        }
        if pi.is_none() && self.away_when_back(&r) {
            // That player's old session went while this host was away:
            // its slot is held from now, and the request is heard as on
            // the slot's own link.
            let mut p = Peer::new(link, now);
            p.slot = Some(r.slot);
            if let Phase::Running(run) = &self.phase {
                p.roster_acked = run.roster_seq;
            }
            self.peers.push(p);
            let i = self.peers.len() - 1;
            self.drop_peer(now, i, false);
            pi = Some(i);
        }
        if let Some(p) = pi.and_then(|i| self.peers.get(i)) {
            if p.slot != Some(r.slot) {
                if p.dropped.is_some() {
                    self.refuse_rejoin(link, pi, RejoinRefusal::WrongToken);
                } else {
                    self.violation(Violation::UnexpectedRejoin);
                }
                return;
            }
        }
        if r.protocol != PROTOCOL_VERSION || r.build != G::BUILD_ID {
            log::info!("rejoin from another build on {link}: refused");
            let bye = Message::<G::Input>::Bye(ByeReason::VersionMismatch);
            self.outbox_for(link, pi).send(&bye);
            return;
        }
        if pi.is_none() && self.members.is_benched(r.slot) {
            self.rejoin_benched(now, link, r);
            return;
        }
        let verdict = self.rejoin_verdict(pi, &r);
        if let Some(p) = pi.and_then(|i| self.peers.get_mut(i)) {
            // A fresh session speaks on the player's own link: the old one
            // is gone, and what was queued for it would only confuse the
            // new one.
            p.out.clear();
            if verdict != Verdict::Take && p.dropped.is_none() {
                if let Some(i) = pi {
                    self.drop_peer(now, i, false);
                }
            }
        }
        self.act_on_rejoin(now, link, pi, r, verdict);
    }

    /// Returned host: whether `r` asks, with its right token, for a slot
    /// still played by a guest this host never met since it came back
    /// (not benched, not left): that guest's page was away too.
    fn away_when_back(&self, r: &Rejoin) -> bool {
        let (Phase::Running(run), Some(e)) = (&self.phase, self.cfg.rejoin_entropy) else {
            return false;
        };
        let unmet = self.cfg.host_back.is_some()
            && r.slot != 0
            && r.slot < run.params.players
            && !run.timeline.is_neutral(usize::from(r.slot))
            && !self.members.is_benched(r.slot)
            && !self.peers.iter().any(|p| p.slot == Some(r.slot));
        unmet && rejoin::token(e, run.params.match_id, r.slot, self.members.seat(r.slot)) == r.token
    }

    /// Host, running: what to do with `Rejoin` `r` for a slot a `Peer`
    /// holds (on that peer's link when `pi` names it). Refused at once
    /// when it cannot succeed; kept waiting (and checked again each
    /// frame) while another player is away or a change is under way.
    fn rejoin_verdict(&self, pi: Option<usize>, r: &Rejoin) -> Verdict {
        let Phase::Running(run) = &self.phase else {
            return Verdict::Refuse(RejoinRefusal::HostUnable);
        };
        let target = self.peers.iter().position(|p| p.slot == Some(r.slot));
        let Some((t, p)) = target.and_then(|t| self.peers.get(t).map(|p| (t, p))) else {
            return Verdict::Refuse(RejoinRefusal::SlotNotHeld);
        };
        // A slot being benched right now is still its player's: the
        // request waits for the bench and is then taken up as a benched
        // slot's.
        let benching = p.frozen
            && run
                .leaving
                .as_ref()
                .is_some_and(|l| l.slot == r.slot && l.bench);
        let held = (!p.frozen || benching)
            && !p.dropped.is_some_and(|d| d.ran_out)
            && !run.timeline.is_neutral(usize::from(r.slot));
        if !held {
            return Verdict::Refuse(RejoinRefusal::SlotNotHeld);
        }
        if self.cfg.rejoin_window == Millis::ZERO {
            return Verdict::Refuse(RejoinRefusal::HostUnable);
        }
        if let Err(why) = self.check_token(run.params.match_id, r) {
            return Verdict::Refuse(why);
        }
        if pi != Some(t) && p.dropped.is_none() {
            return Verdict::Refuse(RejoinRefusal::SlotLive);
        }
        if benching {
            return Verdict::Wait;
        }
        // With three players or more the others must all be there to
        // hand over what they hold of the slot, and no other change may
        // be under way. (Slots playing the neutral input are fine: the
        // catch-up says which they are.) A player away only because its
        // old session is gone and its own fresh session waits is no
        // obstacle: nothing is asked of a gone session, and the fresh one
        // starts from the host's record. Such rejoins are taken one at a
        // time, in the order they came; the next once the one before is
        // back and can answer for the next slot like any player.
        let others_away = self
            .peers
            .iter()
            .enumerate()
            .any(|(i, p)| i != t && is_away(p) && !self.arrivals.only_rejoining(p));
        // A returned host has not met every guest yet: one that has not
        // taken it back would miss the change.
        let unmet = self.cfg.host_back.is_some()
            && (1..run.params.players).any(|s| {
                s != r.slot
                    && !run.timeline.is_neutral(usize::from(s))
                    && !self.members.is_benched(s)
                    && !self.peers.iter().any(|p| p.slot == Some(s))
            });
        if others_away || unmet || run.leaving.is_some() || run.entry.is_some() {
            return Verdict::Wait;
        }
        let earlier = self
            .arrivals
            .waiting_before(r.slot)
            .any(|s| self.peers.iter().any(|p| p.slot == Some(s)));
        if earlier {
            return Verdict::Wait;
        }
        Verdict::Take
    }

    /// Host: carries out `verdict` on `Rejoin` `r` on `link` (`pi` when
    /// it is a player's link) for a slot a `Peer` holds.
    fn act_on_rejoin(
        &mut self,
        now: Millis,
        link: PeerId,
        pi: Option<usize>,
        r: Rejoin,
        verdict: Verdict,
    ) {
        let target = self.peers.iter().position(|p| p.slot == Some(r.slot));
        match (verdict, target) {
            (Verdict::Wait, Some(t)) => self.wait_for_rejoin(now, link, r, Some(t)),
            (Verdict::Take, Some(t)) => {
                self.arrivals.take_waiting(r.slot);
                if self.peers.len() > 1 {
                    self.gather_for_rejoin(now, link, r);
                } else {
                    self.accept_rejoin(now, link, t);
                }
            }
            (Verdict::Refuse(why), _) => self.refuse_rejoin(link, pi, why),
            (_, None) => self.refuse_rejoin(link, pi, RejoinRefusal::SlotNotHeld),
        }
    }

    /// Host: `Rejoin` `r` on `link` waits (see [`WaitingRejoin`](super::roster::WaitingRejoin)); it
    /// takes the place of an earlier one for the same slot. For a slot a
    /// `Peer` holds (`t`), the old session is gone for good from now on:
    /// the peer moves to `link` (the old link is forgotten), and a
    /// gathering under way no longer waits for the old session's answer.
    fn wait_for_rejoin(&mut self, now: Millis, link: PeerId, r: Rejoin, t: Option<usize>) {
        let Phase::Running(run) = &mut self.phase else {
            return;
        };
        if let Some(old) = self.arrivals.wait(link, r) {
            if old.link != link {
                log::info!(
                    "a newer rejoin for slot {} on {link} takes the place of the one on {}",
                    r.slot,
                    old.link
                );
            }
        }
        log::info!(
            "rejoin of slot {} on {link} waits: another player is away or a change is under way",
            r.slot
        );
        let Some(p) = t.and_then(|t| self.peers.get_mut(t)) else {
            return;
        };
        let old = p.id;
        if old != link {
            self.members.relinked(old, link);
            p.id = link;
            p.out.clear();
        }
        // The hashes the old session sent and nobody compared yet are
        // not checked: it may have confirmed ticks with inputs that a
        // change made meanwhile plays otherwise.
        p.hashes = HashBook::after(p.hashes.last_remote_tick());
        let complete = run.leaving.as_mut().is_some_and(|l| {
            l.forget(old);
            l.complete()
        });
        if complete {
            self.finish_leave(now);
        }
    }

    /// Host, once per check: the rejoins that wait are checked again, in
    /// the order they came; each one whose obstacle cleared is taken up
    /// (or refused, if it can no longer succeed).
    pub(super) fn take_up_waiting_rejoins(&mut self, now: Millis) {
        let mut k = 0;
        loop {
            let Some(w) = self.arrivals.waiting_at(k) else {
                return;
            };
            let pi = self.peers.iter().position(|p| p.id == w.link);
            let benched = pi.is_none() && self.members.is_benched(w.rejoin.slot);
            let verdict = if benched {
                self.benched_verdict(&w.rejoin)
            } else {
                self.rejoin_verdict(pi, &w.rejoin)
            };
            if verdict == Verdict::Wait {
                k += 1;
                continue;
            }
            self.arrivals.remove_waiting(k);
            log::info!(
                "the rejoin of slot {} on {} waited: {verdict:?}",
                w.rejoin.slot,
                w.link
            );
            match verdict {
                Verdict::Take if benched => {
                    self.begin_join(now, w.link, w.rejoin.slot, true, None);
                }
                Verdict::Refuse(why) if benched => self.refuse_rejoin(w.link, None, why),
                _ => self.act_on_rejoin(now, w.link, pi, w.rejoin, verdict),
            }
        }
    }

    /// Host: the fresh session whose rejoin waits on `link` said `Bye`
    /// (it gave up): its request goes, the match goes on and the slot
    /// stays held as before.
    pub(super) fn rejoin_given_up(&mut self, link: PeerId, r: ByeReason) {
        log::info!("the rejoin waiting on {link} was given up: {r:?}");
        self.arrivals.forget_waiting_on(link);
    }

    /// Host: whether a rejoin waits on `link`.
    pub(super) fn waits_on(&self, link: PeerId) -> bool {
        self.arrivals.waits_on(link)
    }

    /// Host: the rejoin that waits for `slot`, if any, is refused with
    /// `why` (its slot's window ran out, say).
    pub(super) fn refuse_waiting(&mut self, slot: u8, why: RejoinRefusal) {
        let Some(w) = self.arrivals.take_waiting(slot) else {
            return;
        };
        let pi = self.peers.iter().position(|p| p.id == w.link);
        self.refuse_rejoin(w.link, pi, why);
    }

    /// Host, each running frame: the link of each rejoin that waits gets
    /// a `Ping` every ping interval, a keep-alive the fresh session does
    /// not answer (it says nothing but its `Rejoin` until taken back) but
    /// that keeps it from taking the wait for silence.
    pub(super) fn keep_waiting_rejoiners(&mut self) {
        let every = u32::from(self.cfg.ping_interval_frames);
        let mut due = self.arrivals.keep_alive_due(every);
        // A rejoin taken up whose inputs are being gathered waits too,
        // for as long as the slowest player takes to answer (one silent
        // but not dropped yet may take until it is heard again).
        let gathering = match &self.phase {
            Phase::Running(run) => run.leaving.as_ref().and_then(|l| l.rejoin),
            _ => None,
        };
        if let Some((link, _)) = gathering {
            if self.stats.frames.is_multiple_of(u64::from(every)) {
                due.push(link);
            }
        }
        for link in due {
            let pi = self.peers.iter().position(|p| p.id == link);
            self.outbox_for(link, pi)
                .send(&Message::<G::Input>::Ping(0));
        }
    }

    /// Host: a fresh session on `link` asks for benched slot `r.slot`
    /// back. With the slot's token it is taken back as a late join is
    /// (the change at a tick ahead, the catch-up once every player
    /// applied it), the slot's token unchanged; it waits while that
    /// cannot start yet; else it is refused on that link alone.
    fn rejoin_benched(&mut self, now: Millis, link: PeerId, r: Rejoin) {
        let Phase::Running(run) = &self.phase else {
            return;
        };
        if run.joining().is_some_and(|j| j.link == link) {
            log::debug!("{link} asked again for the slot it is being given back: dropped");
            return;
        }
        match self.benched_verdict(&r) {
            Verdict::Refuse(why) => self.refuse_rejoin(link, None, why),
            Verdict::Wait => self.wait_for_rejoin(now, link, r, None),
            Verdict::Take => {
                self.arrivals.take_waiting(r.slot);
                self.begin_join(now, link, r.slot, true, None);
            }
        }
    }

    /// Host: what to do with `Rejoin` `r` for a benched slot.
    fn benched_verdict(&self, r: &Rejoin) -> Verdict {
        let Phase::Running(run) = &self.phase else {
            return Verdict::Refuse(RejoinRefusal::HostUnable);
        };
        if let Err(why) = self.check_token(run.params.match_id, r) {
            return Verdict::Refuse(why);
        }
        // Every player must apply the change before the catch-up goes (a
        // player away cannot, nor one whose fresh session waits), one
        // change at a time.
        if run.leaving.is_some() || run.entry.is_some() || self.peers.iter().any(is_away) {
            return Verdict::Wait;
        }
        Verdict::Take
    }

    /// Host, three players or more: before the player of slot `r.slot` rejoins on
    /// `link`, the others are asked for its inputs past the host's (as for
    /// a leave), so its fresh session starts where the longest stream
    /// anyone holds ends and no one holds an input it would not send.
    fn gather_for_rejoin(&mut self, now: Millis, link: PeerId, r: Rejoin) {
        self.begin_leave(r.slot);
        let complete = match &mut self.phase {
            Phase::Running(run) => run.leaving.as_mut().is_some_and(|l| {
                l.rejoin = Some((link, r.token));
                l.complete()
            }),
            _ => false,
        };
        log::info!(
            "slot {} rejoins on {link}: gathering its inputs first",
            r.slot
        );
        if complete {
            // Nobody else to ask (the others' fresh sessions wait too).
            self.finish_leave(now);
        }
    }

    /// The queue of link `link`: a player's (`pi`), or a stranger's.
    pub(super) fn outbox_for(&mut self, link: PeerId, pi: Option<usize>) -> &mut Outbox {
        if let Some(i) = pi.filter(|&i| i < self.peers.len()) {
            return &mut self.peers[i].out;
        }
        self.members.stranger_out(link)
    }

    /// Host: tells the session on `link` why it cannot rejoin; nothing
    /// else changes.
    pub(super) fn refuse_rejoin(&mut self, link: PeerId, pi: Option<usize>, why: RejoinRefusal) {
        log::info!("rejoin on {link} refused: {why:?}");
        let bye = Message::<G::Input>::Bye(ByeReason::RejoinRefused(why));
        self.outbox_for(link, pi).send(&bye);
    }

    /// Host: the player of held slot `t` is back on `link` with a fresh
    /// session. It gets its Hello, every slot's inputs so far and the hash
    /// of the confirmed state; its stream starts again from there.
    pub(super) fn accept_rejoin(&mut self, now: Millis, link: PeerId, t: usize) {
        self.send_catch_up(now, link, t, false);
    }

    /// Host: the player of slot `t` (back, or `joined` anew) gets the
    /// host's Hello and the catch-up on `link`; see
    /// [`accept_rejoin`](Self::accept_rejoin).
    pub(super) fn send_catch_up(&mut self, now: Millis, link: PeerId, t: usize, joined: bool) {
        let Phase::Running(run) = &self.phase else {
            return;
        };
        let slot = self.peers.get(t).and_then(|p| p.slot).unwrap_or(0);
        let hello = if self.side == 0 {
            host_hello::<G::Input>(
                &run.params,
                &self.cfg,
                G::BUILD_ID,
                slot,
                self.members.seats(),
            )
        } else {
            self.moved_host_hello(slot)
        };
        let Some((tick, count)) = self.catch_up_on(now, link, t, hello, true) else {
            return;
        };
        if joined {
            log::info!("slot {slot} joined on {link}: catch-up of {count} messages to tick {tick}");
        } else {
            log::info!("slot {slot} rejoined on {link}: catch-up of {count} runs to tick {tick}");
            self.events.push_back(Event::Resumed { slot });
        }
    }

    /// The fresh session of the player at peer `t` is taken on `link`:
    /// what this side keeps for it starts again from this side's
    /// confirmed tick (its queue, pings, time sync, hash book, and an
    /// outgoing stream holding every input of ours), and it gets `first`
    /// (the host's Hello, or a guest's `Resume` for a returning host),
    /// then every slot's inputs this side holds (for a game that saves
    /// its state, the state and the inputs since) and `CatchUp` with the
    /// confirmed tick and hash. `entering`: a player entering as a guest
    /// (it is not benched while its catch-up crosses, and follows the
    /// roster from the catch-up's number). Returns the tick and how many
    /// messages the catch-up took.
    pub(super) fn catch_up_on(
        &mut self,
        now: Millis,
        link: PeerId,
        t: usize,
        first: Message<G::Input>,
        entering: bool,
    ) -> Option<(u32, usize)> {
        self.catch_up_from(now, link, t, Some(first), entering, 0)
    }

    /// As [`catch_up_on`](Self::catch_up_on), with `first` sent only when
    /// given, and with `from` past 0 for a receiver that holds the match
    /// up to tick `from` already (a newcomer's second catch-up): only the
    /// inputs from there go, no saved state.
    pub(super) fn catch_up_from(
        &mut self,
        now: Millis,
        link: PeerId,
        t: usize,
        first: Option<Message<G::Input>>,
        entering: bool,
        from: u32,
    ) -> Option<(u32, usize)> {
        let Phase::Running(run) = &mut self.phase else {
            return None;
        };
        // A game that saves its state sends it instead of the inputs
        // before it (a receiver that holds the match up to `from` needs
        // neither).
        let (state, end) = run.catch_up_parts(from == 0)?;
        let tick = end.tick;
        let p = self.peers.get_mut(t)?;
        if p.id != link {
            self.members.relinked(p.id, link);
            p.id = link;
        }
        let interval = u32::from(run.params.hash_interval.max(1));
        p.out.clear();
        p.dropped = None;
        p.frozen = false;
        p.last_heard = now;
        p.hello = Some(Self::local_version());
        p.pinger = ping::Pinger::default();
        p.pinger.start(self.cfg.ping_interval_frames);
        p.time_sync = time_sync::TimeSync::default();
        p.hashes = HashBook::after(tick - tick % interval);
        p.sender = sender::Sender::holding(run.timeline.local().len() as u32);
        if entering {
            p.catching_up = true;
            // The fresh session follows the changes from the catch-up's
            // number.
            p.roster_acked = run.roster_seq;
        }
        if let Some(first) = first {
            p.out.send(&first);
        }
        let players = run.timeline.players();
        let all: Vec<&[G::Input]> = (0..players).map(|s| run.timeline.inputs_of(s)).collect();
        let count = rejoin::send_catch_up_from(&mut p.out, &all, state, end, from);
        self.deadlines.progressed();
        Some((tick, count))
    }
}
