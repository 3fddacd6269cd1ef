//! A host that reloads comes back: the guests hold the match while the
//! host's slot is held, each checks the fresh session's token against
//! what the old host's Hello told it, and one of them serves it the
//! catch-up a host serves a rejoining guest; the fresh session replays it
//! and is the host again.
//!
//! In a match of two the guest serves it at once. With more guests, one
//! acts for the absent host: the lowest guest slot still driven (every
//! guest computes it alone from the membership they share). It gathers
//! slot 0's inputs the others hold, as the host gathers a gone player's
//! (`Missing`, `Held`), hands each the ones it lacks and orders the slot
//! back (`Roster { Returned }`) at the tick where the longest stream
//! ends, so every guest agrees on the old host's last input; then it
//! serves the catch-up. The others take the fresh session on their own
//! link once it shows a token that matches their own check.
//!
//! The guest cannot forge a host: the old host's Hello gave it only the
//! token's fingerprint (a keyed hash, see `rejoin::proof`), never the
//! token. Nor can anyone without the host's entropy: the token is a
//! keyed hash of the match id with it, as every guest's is.

use super::handshake::match_id;
use super::rejoin::{self, Gathered};
use super::roster::Leaving;
use super::{Event, Params, Peer, PeerId, Phase, Role, Session, Violation};
use crate::game::DeterministicGame;
use crate::time::Millis;
use crate::wire::MAX_PLAYERS;
use crate::wire::{ByeReason, Message, Missing, Rejoin, RejoinRefusal, Resume, PROTOCOL_VERSION};

impl<G: DeterministicGame> Session<G> {
    /// Guest: a `Rejoin` for slot 0 on link `link` (`pi` when it is a
    /// player's link): the host's fresh session coming back. It is taken
    /// on the host's own link (the old session there is gone: dropped now
    /// if that was not noticed yet) or on a link this side does not know
    /// (which then takes the old link's place), and refused on that link
    /// alone otherwise, the held slot staying held.
    pub(super) fn on_host_back(&mut self, now: Millis, link: PeerId, pi: Option<usize>, r: Rejoin) {
        if !self.is_running() {
            log::debug!("a returning host to a guest outside a running match: dropped");
            return;
        }
        let host = self.peers.iter().position(|p| p.slot == Some(0));
        let unknown = pi.is_none_or(|i| self.peers.get(i).is_some_and(|p| p.slot.is_none()));
        if !unknown && pi != host {
            log::warn!(
                "a rejoin on {link} claims the host's slot, which is not that link's: refused"
            );
            return;
        }
        let own = if unknown { None } else { pi };
        if r.protocol != PROTOCOL_VERSION || r.build != G::BUILD_ID {
            log::info!("a returning host from another build on {link}: refused");
            let bye = Message::<G::Input>::Bye(ByeReason::VersionMismatch);
            self.outbox_for(link, pi).send(&bye);
            return;
        }
        let verdict = self.host_back_verdict(own, &r);
        if let Some(i) = own {
            // A fresh session speaks on the host's own link: the old one
            // is gone, and what was queued for it would only confuse the
            // new one.
            let live = self.peers.get_mut(i).is_some_and(|p| {
                p.out.clear();
                p.dropped.is_none()
            });
            if verdict.is_err() && live {
                self.drop_peer(now, i, false);
            }
        }
        match verdict {
            Ok(t) if self.players() == 2 => self.serve_returning_host(now, link, t),
            Ok(t) => self.host_back_among_many(now, link, t, r.token),
            Err(why) => self.refuse_rejoin(link, pi, why),
        }
    }

    /// The lowest guest slot still driven by a player (not benched, not
    /// left): the guest that acts for the host while slot 0 is held.
    /// Every guest finds the same one from the membership they share.
    pub(super) fn acting_slot(&self) -> Option<u8> {
        let Phase::Running(run) = &self.phase else {
            return None;
        };
        (1..run.params.players).find(|&s| !run.timeline.is_neutral(usize::from(s)))
    }

    /// Guest: whether link `pi` leads to the guest acting for the absent
    /// host (this side being another guest).
    pub(super) fn is_acting_link(&self, pi: usize) -> bool {
        let acting = self.acting_slot();
        self.side != 0
            && acting != Some(self.side)
            && self
                .peers
                .get(pi)
                .is_some_and(|p| p.slot.is_some() && p.slot == acting)
    }

    /// Guest, in a match of three or more: the host's fresh session on
    /// `link` showed the right token (`t` is the host's `Peer`). The
    /// acting guest gathers slot 0's inputs from the others (once); any
    /// other guest keeps the claim until the acting guest's word, or
    /// takes the session at once if that word came first.
    fn host_back_among_many(&mut self, now: Millis, link: PeerId, t: usize, token: u64) {
        if self.acting_slot() != Some(self.side) {
            let returning = self.peers.get(t).is_some_and(|p| p.returning.is_some());
            if returning {
                let _taken = self.check_claim(now, link, t, token);
            } else if let Some(p) = self.peers.get_mut(t) {
                p.keep_claim(link, token);
                log::debug!("the host's return on {link} waits for the acting guest's word");
            }
            return;
        }
        let Phase::Running(run) = &mut self.phase else {
            return;
        };
        if let Some(l) = &mut run.leaving {
            // A gathering under way: a later return (on another link)
            // takes the place of the earlier one.
            l.rejoin = Some((link, token));
            return;
        }
        let have = run.timeline.inputs_of(0).len() as u32;
        // A guest whose page reloaded while the host was away (its fresh
        // session claimed its slot on its own link) is not asked: its old
        // session is gone for good, and the fresh one will start from the
        // returned host's record.
        for p in &mut self.peers {
            if p.slot == Some(0) {
                p.frozen = true;
            } else if p.slot.is_some() && !reloaded(p) {
                p.out
                    .send(&Message::<G::Input>::Missing(Missing { slot: 0, have }));
            }
        }
        let others = self
            .peers
            .iter()
            .filter(|p| p.slot.is_some_and(|s| s != 0) && !reloaded(p))
            .map(|p| p.id);
        let mut leaving = Leaving::new(0, have, others);
        leaving.rejoin = Some((link, token));
        let complete = leaving.complete();
        run.leaving = Some(leaving);
        log::info!(
            "the host is back on {link}: asking the other guests for its inputs past tick {have}"
        );
        if complete {
            self.finish_leave(now);
        }
    }

    /// Guest: whether the host's fresh session showing `r` (on the host's
    /// own link `own`, or on another) may have the match back: the index
    /// of the host's `Peer`, or why not.
    fn host_back_verdict(&self, own: Option<usize>, r: &Rejoin) -> Result<usize, RejoinRefusal> {
        let Phase::Running(run) = &self.phase else {
            return Err(RejoinRefusal::HostUnable);
        };
        let target = self.peers.iter().position(|p| p.slot == Some(0));
        let Some((t, p)) = target.and_then(|t| self.peers.get(t).map(|p| (t, p))) else {
            return Err(RejoinRefusal::SlotNotHeld);
        };
        if p.dropped.is_some_and(|d| d.ran_out) {
            return Err(RejoinRefusal::SlotNotHeld);
        }
        if self.members.host_check() == 0 || self.cfg.rejoin_window == Millis::ZERO {
            // A host without entropy gave no check: nothing to check a
            // return against.
            return Err(RejoinRefusal::HostUnable);
        }
        if rejoin::proof(r.token, run.params.match_id, 0) != self.members.host_check() {
            return Err(RejoinRefusal::WrongToken);
        }
        // The old session counts as live until this side saw it go, or
        // the acting guest said it is gone (it asked about its inputs, or
        // ordered its return).
        let live = p.dropped.is_none() && !p.frozen && p.returning.is_none();
        if own != Some(t) && live {
            return Err(RejoinRefusal::SlotLive);
        }
        Ok(t)
    }

    /// Guest: the host's fresh session on `link` showed the host's token;
    /// `t` is the host's `Peer`. It gets the match's parameters
    /// (`Resume`), every slot's inputs this side holds (or its saved
    /// state and the inputs since) and `CatchUp` with this side's
    /// confirmed tick and hash, as a host serves a rejoining guest; what
    /// this side keeps for the link starts again from there. This side
    /// replays nothing.
    pub(super) fn serve_returning_host(&mut self, now: Millis, link: PeerId, t: usize) {
        let Phase::Running(run) = &self.phase else {
            return;
        };
        let params = run.params;
        // The benched slots stay their players' under the returned host.
        let mut benched = 0u8;
        let mut bench_ticks = [0; MAX_PLAYERS as usize];
        for b in self.members.benches().filter(|b| b.slot != self.side) {
            if let Some(at) = bench_ticks.get_mut(usize::from(b.slot)) {
                benched |= 1 << b.slot;
                *at = b.tick;
            }
        }
        let resume = Message::<G::Input>::Resume(Resume {
            seed: params.seed,
            input_delay: params.delay,
            hash_interval: params.hash_interval,
            prediction_window: params.window,
            players: params.players,
            slot: self.side,
            match_id: params.match_id,
            benched,
            bench_ticks,
        });
        let Some((tick, count)) = self.catch_up_on(now, link, t, resume, false) else {
            return;
        };
        log::info!("the host is back on {link}: catch-up of {count} messages to tick {tick}");
        self.events.push_back(Event::Resumed { slot: 0 });
    }

    /// A host coming back: the guest's `Resume` on link `pi`, before its
    /// catch-up. It must name this host's match (the seed and player
    /// count it was built with, a match id that digests the parameters
    /// and whose token is the one this session came back with); the
    /// match's input delay, prediction window and hash interval are taken
    /// from it. Anything else (a `Resume` to any other session, a second
    /// one, one for another match) ends the session with
    /// [`Violation::BadCatchUp`].
    pub(super) fn on_resume(&mut self, pi: usize, r: Resume) {
        let (Role::Host { seed, .. }, Some(token), Some(entropy)) =
            (self.cfg.role, self.cfg.host_back, self.cfg.rejoin_entropy)
        else {
            log::warn!("a Resume to a session that is no returning host");
            self.violation(Violation::BadCatchUp);
            return;
        };
        let params = Params {
            seed: r.seed,
            delay: r.input_delay,
            hash_interval: r.hash_interval,
            window: r.prediction_window,
            players: r.players,
            match_id: r.match_id,
        };
        let fits = r.seed == seed
            && r.players == self.cfg.players
            && match_id(&params, G::BUILD_ID) == r.match_id
            && rejoin::host_token(entropy, r.match_id) == token;
        let waiting = self.arrivals.gathered.is_none() && matches!(self.phase, Phase::Handshake(_));
        if !fits || !waiting {
            log::warn!("a Resume that does not fit this host's match, or out of turn");
            self.violation(Violation::BadCatchUp);
            return;
        }
        let Phase::Handshake(hs) = &mut self.phase else {
            return;
        };
        let Some(p) = self.peers.get_mut(pi) else {
            return;
        };
        p.slot = Some(r.slot);
        p.hello = Some(Self::local_version());
        hs.params = params;
        self.arrivals.bench_back = (r.benched, r.bench_ticks);
        log::info!(
            "{} holds the match as slot {}: catch-up follows",
            p.id,
            r.slot
        );
        self.arrivals.gathered = Some(Gathered::new(r.players));
    }
}

/// Guest: whether guest `p`'s page reloaded: a fresh session claimed its
/// slot on its own link, so its old session is gone for good.
pub(super) fn reloaded(p: &Peer) -> bool {
    p.slot.is_some_and(|s| s != 0) && p.claims.iter().any(|(l, _)| *l == p.id)
}
