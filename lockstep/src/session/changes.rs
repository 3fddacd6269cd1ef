//! Membership changes as the players apply them: the host's `Roster`
//! orders (a slot left, benched, back, taken) and their acknowledgements,
//! and, on a guest, the fresh sessions of returning or new players that
//! claim a slot on a link, checked against the change that names them.

use super::audience;
use super::hash_book::HashBook;
use super::rejoin;
use super::roster::{Newcomer, MAX_BENCH_CLAIMS};
use super::sender;
use super::{host_back, ping, time_sync};
use super::{Event, PeerId, Violation};
use super::{Phase, Session};
use crate::game::DeterministicGame;
use crate::time::Millis;
use crate::wire::{Member, Message, Rejoin, Roster, RosterChange, PROTOCOL_VERSION};

impl<G: DeterministicGame> Session<G> {
    /// A membership change from the host.
    pub(super) fn on_roster(&mut self, now: Millis, pi: usize, r: Roster) {
        let from_host = self.is_host_link(pi);
        // While the host is away, the acting guest orders its return.
        let acting = self.is_acting_link(pi);
        let host_check = self.members.host_check();
        if let (Phase::Handshake(_), RosterChange::Spectators { .. }, true) =
            (&self.phase, r.change, from_host)
        {
            // The host started before this side (it had every Hello
            // while the guests still introduce themselves) and a
            // spectator came: the count applies at the start.
            if !self
                .arrivals
                .keep_early_roster(pi, r, audience::MAX_EARLY_CHANGES)
            {
                self.violation(Violation::UnexpectedRoster);
            }
            return;
        }
        let Phase::Running(run) = &mut self.phase else {
            self.violation(Violation::UnexpectedRoster);
            return;
        };
        // A side that entered the match after a slot was benched knows it
        // only as neutral.
        let benched =
            |slot: u8| self.members.is_benched(slot) || run.timeline.is_neutral(usize::from(slot));
        let (slot, proof, bench) = match r.change {
            RosterChange::Neutral { slot } if benched(slot) => {
                self.on_bench_over(pi, r, slot);
                return;
            }
            RosterChange::Neutral { slot } => (slot, None, false),
            RosterChange::Benched { slot, .. } => (slot, None, true),
            RosterChange::Returned { slot, proof } => (slot, Some(proof), false),
            RosterChange::Joined { slot, proof } => {
                self.on_joined(now, pi, r, slot, proof);
                return;
            }
            RosterChange::HostMoved { host } => {
                self.on_host_moved(now, pi, r, host);
                return;
            }
            RosterChange::Spectators { count } => {
                if !from_host || r.seq != run.roster_seq.wrapping_add(1) {
                    self.violation(Violation::UnexpectedRoster);
                    return;
                }
                run.roster_seq = r.seq;
                run.watchers.change(r.tick, count, run.timeline.tick());
                if let Some(host) = self.peers.get_mut(pi) {
                    host.out.send(&Message::<G::Input>::RosterAck(r.seq));
                }
                return;
            }
        };
        let held = run.timeline.inputs_of(usize::from(slot)).len() as u32;
        let by_acting = acting && slot == 0 && proof.is_some();
        if !(from_host || by_acting)
            || r.seq != run.roster_seq.wrapping_add(1)
            || run.asked != Some(slot)
            || held != r.tick
        {
            self.violation(Violation::UnexpectedRoster);
            return;
        }
        run.roster_seq = r.seq;
        run.asked = None;
        if let Some(host) = self.peers.get_mut(pi).filter(|_| from_host) {
            // The host counts acknowledgements; the acting guest does
            // not (the returned host takes the change's number from its
            // catch-up).
            host.out.send(&Message::<G::Input>::RosterAck(r.seq));
        }
        // Another guest may be one whose old session is gone for good,
        // whether this side noticed (dropped, or its fresh session
        // introduced itself) or not (its link still looks live): the host
        // did not ask it about the slot, and it may have held more of the
        // slot's inputs and hashed ticks from `r.tick` on with them. A
        // hash of those ticks that came before the change is that gone
        // session's, or one of a guest that applied the change before
        // this side; the two cannot be told apart, so no guest's is
        // checked (the host drops the gone session's too): the second
        // loses only a comparison. Hashes that come from now on are
        // checked, a fresh session's once taken back.
        let host = self.members.host();
        for p in &mut self.peers {
            if p.slot != Some(slot) && p.slot != Some(host) {
                p.hashes.forget_from(r.tick);
            }
        }
        if let RosterChange::Benched { held_for, .. } = r.change {
            self.heard_of_bench(slot, held_for);
        }
        match proof {
            None if bench => self.apply_bench(now, slot, r.tick),
            None => self.apply_neutral(slot, r.tick),
            // Each guest checks the returning host against its own
            // check from the old host's Hello, not the acting guest's.
            Some(_) if by_acting => self.apply_returned(now, slot, r.tick, host_check),
            Some(proof) => {
                self.keep_proof(slot, proof);
                self.apply_returned(now, slot, r.tick, proof);
            }
        }
    }

    /// The host took the player in `slot` back from `tick` on: its fresh
    /// session is taken on this side's link to it once it shows the token
    /// whose fingerprint is `proof` (at once if its `Rejoin` came first).
    fn apply_returned(&mut self, now: Millis, slot: u8, tick: u32, proof: u64) {
        let Some(t) = self.peers.iter().position(|p| p.slot == Some(slot)) else {
            self.returned_unmet(now, slot, tick, proof);
            return;
        };
        log::info!("slot {slot} comes back from tick {tick}: waiting for its session");
        let claims = self
            .peers
            .get_mut(t)
            .map(|p| {
                p.returning = Some(proof);
                core::mem::take(&mut p.claims)
            })
            .unwrap_or_default();
        // The newest first: an older one may be a copy its session sent
        // again once back, on a link given up since.
        for (link, token) in claims.into_iter().rev() {
            if self.check_claim(now, link, t, token) {
                break;
            }
        }
    }

    /// Entering: the host took back the player of `slot`, which this side
    /// never met (it was away when this side came back), from `tick` on.
    /// Its fresh session is taken as a newcomer's would be, on the link
    /// whose `Rejoin` shows the token whose fingerprint is `proof`.
    fn returned_unmet(&mut self, now: Millis, slot: u8, tick: u32, proof: u64) {
        let Phase::Running(run) = &mut self.phase else {
            return;
        };
        // What the host had acknowledged when it asked about the slot: it
        // sends the catch-up along with the change, so an acknowledgement
        // that came since may be of inputs the catch-up lacks.
        let host_had = run.asked_host_had;
        self.arrivals.came_back(Newcomer {
            slot,
            proof,
            host_had,
            tick,
            returned: true,
        });
        log::info!("slot {slot} comes back from tick {tick}: waiting for its session");
        let claims = self.arrivals.claims_for(slot);
        self.take_claims(now, slot, claims);
    }

    /// Guest: the fresh sessions that claimed `slot` (each a link and the
    /// token it showed) are taken up as newcomers, now that the slot is
    /// coming back.
    pub(super) fn take_claims(
        &mut self,
        now: Millis,
        slot: u8,
        claims: impl IntoIterator<Item = (PeerId, u64)>,
    ) {
        for (link, token) in claims {
            self.take_newcomer(
                now,
                link,
                Rejoin {
                    protocol: PROTOCOL_VERSION,
                    build: G::BUILD_ID,
                    slot,
                    token,
                },
            );
        }
    }

    /// Guest: a `Rejoin` on link `link` (`pi` when it is a player's link).
    /// It is taken only on the link to the slot it names (or a new one)
    /// and only once the host said that slot came back, with the token the
    /// host vouched for; anything else is refused and logged, and the
    /// match goes on.
    pub(super) fn on_rejoin_at_guest(
        &mut self,
        now: Millis,
        link: PeerId,
        pi: Option<usize>,
        r: Rejoin,
    ) {
        if r.slot == 0 {
            self.on_host_back(now, link, pi, r);
            return;
        }
        let unmet = |s: &Self| {
            s.entering()
                && r.slot != s.side
                && r.slot != 0
                && !s.peers.iter().any(|p| p.slot == Some(r.slot))
                && pi.is_none_or(|i| s.peers.get(i).is_some_and(|p| p.slot.is_none()))
        };
        let Phase::Running(run) = &self.phase else {
            if unmet(self) {
                self.keep_early_claim(link, r);
            } else {
                log::debug!("a rejoin to a guest outside a running match: dropped");
            }
            return;
        };
        let stranger = pi.is_none_or(|i| self.peers.get(i).is_some_and(|p| p.slot.is_none()));
        let awaited = run.newcomer().is_some_and(|n| n.slot == r.slot)
            || self.arrivals.back_in(r.slot).is_some();
        if stranger && awaited {
            self.take_newcomer(now, link, r);
            return;
        }
        let benched = self.members.is_benched(r.slot);
        if stranger
            && !benched
            && r.slot != self.side
            && run.timeline.is_neutral(usize::from(r.slot))
        {
            // A newcomer catching up introduces itself before the host
            // orders its change: kept until the change names its token.
            self.keep_early_claim(link, r);
            return;
        }
        if unmet(self) && !run.timeline.is_neutral(usize::from(r.slot)) {
            self.keep_early_claim(link, r);
            return;
        }
        let bench = self.members.bench_of(r.slot);
        if let Some(b) = bench.filter(|_| pi.is_none()) {
            // A benched player's fresh session: kept until the host's
            // word that it is back (the change names its token).
            b.claims.retain(|c| c.0 != link);
            if b.claims.len() >= MAX_BENCH_CLAIMS {
                b.claims.remove(0);
            }
            b.claims.push((link, r.token));
            log::debug!(
                "a rejoin for benched slot {} on {link} waits for the host's word",
                r.slot
            );
            return;
        }
        let target = self.peers.iter().position(|p| p.slot == Some(r.slot));
        let Some(t) = target.filter(|&t| pi.is_none_or(|i| i == t)) else {
            log::warn!(
                "a rejoin on {link} claims slot {}, which is not that link's: refused",
                r.slot
            );
            return;
        };
        if r.protocol != PROTOCOL_VERSION || r.build != G::BUILD_ID {
            log::info!("a rejoin from another build on {link}: refused");
            return;
        }
        let copy = self.peers.get(t).is_some_and(|p| {
            p.dropped.is_none()
                && !p.frozen
                && p.returning.is_none()
                && pi == Some(t)
                && p.taken_token == Some(r.token)
        });
        if copy {
            // The session this side took back says its Rejoin again (see
            // `introduce_joiner`): kept, it would only stand for a fresh
            // session that is not there.
            log::debug!("slot {} on {link} said its rejoin again: dropped", r.slot);
            return;
        }
        let waiting = self.peers.get_mut(t).is_some_and(|p| {
            if p.returning.is_none() {
                p.keep_claim(link, r.token);
                true
            } else {
                false
            }
        });
        if waiting {
            log::debug!(
                "a rejoin for slot {} on {link} waits for the host's word",
                r.slot
            );
            // Gathering the absent host's inputs: a guest whose page
            // reloaded meanwhile will not answer (see `host_back`).
            if let Some(id) = self
                .peers
                .get(t)
                .filter(|p| host_back::reloaded(p))
                .map(|p| p.id)
            {
                self.forget_answer(now, id);
            }
            return;
        }
        let _taken = self.check_claim(now, link, t, r.token);
    }

    /// Entering: keeps a `Rejoin` on `link` for a slot this side has not
    /// met (its player was away when this side came back, and its own
    /// fresh session asks for it too) until the host's word; the oldest
    /// goes when there are too many.
    pub(super) fn keep_early_claim(&mut self, link: PeerId, r: Rejoin) {
        if r.protocol != PROTOCOL_VERSION || r.build != G::BUILD_ID {
            log::info!("a rejoin from another build on {link}: refused");
            return;
        }
        self.arrivals.keep_claim(link, r.slot, r.token);
        log::debug!(
            "a rejoin for slot {} on {link} waits for the host's word",
            r.slot
        );
    }

    /// Guest: the host said peer `t`'s player came back; a session on
    /// `link` shows `token`. Whether it was taken as that player.
    pub(super) fn check_claim(&mut self, now: Millis, link: PeerId, t: usize, token: u64) -> bool {
        let Phase::Running(run) = &self.phase else {
            return false;
        };
        let match_id = run.params.match_id;
        let Some(p) = self.peers.get_mut(t) else {
            return false;
        };
        let (Some(slot), Some(proof)) = (p.slot, p.returning) else {
            return false;
        };
        if rejoin::proof(token, match_id, slot) != proof {
            log::warn!("a rejoin for slot {slot} on {link} shows another token: refused");
            return false;
        }
        if p.id != link {
            self.members.relinked(p.id, link);
            p.id = link;
        }
        // The fresh session got this side's inputs the host held in its
        // catch-up: at least what the host had acknowledged when it asked
        // about the slot, so the stream goes on from there (and from the
        // fresh session's acknowledgement once it comes).
        p.out.clear();
        p.frozen = false;
        p.dropped = None;
        p.returning = None;
        p.claims.clear();
        p.taken_token = Some(token);
        p.last_heard = now;
        p.pinger = ping::Pinger::default();
        p.pinger.start(self.cfg.ping_interval_frames);
        p.time_sync = time_sync::TimeSync::default();
        p.hashes = HashBook::after(0);
        p.sender = sender::Sender::holding(p.host_had);
        p.out.send(&Message::<G::Input>::Member(Member {
            slot: self.side,
            match_id,
        }));
        log::info!("slot {slot} is back on {link}");
        self.deadlines.progressed();
        self.events.push_back(Event::Resumed { slot });
        true
    }

    /// A player applied the host's change `seq`.
    pub(super) fn on_roster_ack(&mut self, now: Millis, pi: usize, seq: u16) {
        let sent = match &self.phase {
            Phase::Running(run) if self.is_host() => run.roster_seq,
            _ => 0,
        };
        match self.peers.get_mut(pi) {
            Some(p) if seq <= sent && seq == p.roster_acked.wrapping_add(1) => {
                p.roster_acked = seq;
                log::debug!("{} applied membership change {seq}", p.id);
            }
            _ => {
                self.violation(Violation::UnexpectedRoster);
                return;
            }
        }
        self.finish_join_when_applied(now);
    }
}
