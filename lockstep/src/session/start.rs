//! The start of the match: the host's Hello as a guest takes it, the
//! guests introducing themselves to each other (`Member`), and the start
//! once every player is known.

use super::delay::DelayTuner;
use super::handshake::{HelloRefused, Params};
use super::rejoin::Gathered;
use super::sender;
use super::timeline::Timeline;
use super::{Event, PeerId, Violation};
use super::{Phase, Running, Session};
use crate::game::DeterministicGame;
use crate::time::Millis;
use crate::wire::{Member, Message};

impl<G: DeterministicGame> Session<G> {
    /// Whether this side knows its slot and every other player's link is
    /// open, with its Hello in and its slot known.
    pub(super) fn all_hellos(&self) -> bool {
        let Phase::Handshake(hs) = &self.phase else {
            return false;
        };
        // A rejoiner (or joiner) starts from the host's catch-up instead.
        !self.entering()
            && hs.own_slot.is_some()
            && self.peers.len() + 1 == usize::from(hs.params.players)
            && self
                .peers
                .iter()
                .all(|p| p.hello.is_some() && p.slot.is_some())
    }

    pub(super) fn on_hello(&mut self, pi: usize, h: crate::wire::Hello) {
        let Phase::Handshake(hs) = &mut self.phase else {
            self.violation(Violation::UnexpectedHello);
            return;
        };
        let Some(peer) = self.peers.get_mut(pi) else {
            return;
        };
        let had_host = hs.own_slot.is_some();
        match hs.on_hello(h, Self::local_version(), &self.cfg, self.side, peer) {
            Ok(startable) => {
                if h.players != 0 && self.side != 0 {
                    // Kept to check the host's fresh session if it comes
                    // back after a reload, and (should the host's place
                    // move here) every returning player's token.
                    self.members.heard_hello(h.side, h.host_proof, h.proofs);
                }
                if !had_host && self.side != 0 {
                    if let Err(v) = self.joined() {
                        self.violation(v);
                        return;
                    }
                    if self.entering() {
                        self.arrivals.gathered = Some(Gathered::new(h.players));
                    }
                    if self.cfg.rejoin_as.is_none() && h.rejoin_token != 0 {
                        self.members.keep_token(h.rejoin_token);
                    }
                    if self.entering() {
                        // A rejoiner's first Rejoin may have reached a
                        // player that was away then (or still in the old
                        // session's place): it says it again.
                        self.introduce_joiner(pi);
                    }
                }
                if startable && self.all_hellos() {
                    self.start();
                }
            }
            Err(HelloRefused::BadSlot(slot)) => self.violation(Violation::SlotClaimed { slot }),
            Err(HelloRefused::Unexpected) => self.violation(Violation::UnexpectedHello),
            Err(HelloRefused::Mismatch(remote)) => self.version_mismatch(remote),
            Err(HelloRefused::SideConflict(remote_side)) => {
                self.violation(Violation::SideConflict { remote_side });
            }
        }
    }

    /// A guest just learned its slot and the match from the host's Hello:
    /// it introduces itself to every other link and checks the
    /// introductions that came before.
    fn joined(&mut self) -> Result<(), Violation> {
        let Phase::Handshake(hs) = &self.phase else {
            return Ok(());
        };
        let Some(slot) = hs.own_slot else {
            return Ok(());
        };
        let params = hs.params;
        self.side = slot;
        let member = Message::<G::Input>::Member(Member {
            slot,
            match_id: params.match_id,
        });
        // A rejoiner's (or joiner's) introduction to the other guests is
        // its Rejoin.
        if !self.entering() {
            for p in &mut self.peers {
                if p.slot != Some(0) {
                    p.out.send(&member);
                }
            }
        }
        for i in 0..self.peers.len() {
            let pending = self.peers.get_mut(i).and_then(|p| p.member.take());
            if let Some(m) = pending {
                self.admit(i, m, params)?;
            }
        }
        Ok(())
    }

    /// Checks another guest's introduction on link `pi` and gives the
    /// link its slot.
    pub(super) fn admit(&mut self, pi: usize, m: Member, params: Params) -> Result<(), Violation> {
        if m.match_id != params.match_id {
            return Err(Violation::OtherMatch);
        }
        let taken = m.slot == self.side
            || m.slot >= params.players
            || self
                .peers
                .iter()
                .enumerate()
                .any(|(i, p)| i != pi && p.slot == Some(m.slot));
        if taken {
            return Err(Violation::SlotClaimed { slot: m.slot });
        }
        if let Some(p) = self.peers.get_mut(pi) {
            p.slot = Some(m.slot);
        }
        Ok(())
    }

    /// Another guest's introduction (see [`Member`]).
    pub(super) fn on_member(&mut self, pi: usize, m: Member) {
        if self.entering() {
            self.on_member_rejoining(pi, m);
            return;
        }
        let Phase::Handshake(hs) = &self.phase else {
            self.violation(Violation::UnexpectedMember);
            return;
        };
        let (known, params) = (hs.own_slot.is_some(), hs.params);
        let Some(peer) = self.peers.get_mut(pi) else {
            return;
        };
        // Only between guests, once per link, after the link's Hello.
        if self.side == 0 || peer.hello.is_none() || peer.slot.is_some() || peer.member.is_some() {
            self.violation(Violation::UnexpectedMember);
            return;
        }
        if !known {
            // The host's Hello has not come yet: checked when it does.
            peer.member = Some(m);
            return;
        }
        match self.admit(pi, m, params) {
            Ok(()) => {
                if self.all_hellos() {
                    self.start();
                }
            }
            Err(v) => self.violation(v),
        }
    }

    /// Rejoining: a guest that took this side back on its link says who it
    /// is (before or after the catch-up). Checked like any introduction,
    /// once the host's Hello told the match.
    fn on_member_rejoining(&mut self, pi: usize, m: Member) {
        let host_back = self.cfg.host_back.is_some();
        let params = match &self.phase {
            // A host coming back checks the guests' introductions once
            // its catch-up replayed: until then only the guest serving it
            // has a slot, and only it may send catch-up messages.
            Phase::Handshake(_) if host_back => None,
            Phase::Handshake(hs) => hs.own_slot.map(|_| hs.params),
            Phase::Running(run) => Some(run.params),
            Phase::Ended(_) => return,
        };
        let Some(peer) = self.peers.get_mut(pi) else {
            return;
        };
        if (self.side == 0 && !host_back) || peer.slot.is_some() || peer.member.is_some() {
            self.violation(Violation::UnexpectedMember);
            return;
        }
        let Some(params) = params else {
            // The host's Hello has not come yet: checked when it does.
            peer.member = Some(m);
            return;
        };
        match self.admit(pi, m, params) {
            Ok(()) => log::info!(
                "{} took this side back: it plays slot {}",
                self.peers.get(pi).map_or(PeerId(0), |p| p.id),
                m.slot
            ),
            Err(v) => self.violation(v),
        }
    }

    /// Every Hello is in (and the host's round trips measured): the match
    /// starts with the handshake's parameters.
    pub(super) fn start(&mut self) {
        let Phase::Handshake(hs) = &mut self.phase else {
            // Unreachable: only the handshake starts a match.
            debug_assert!(false, "start outside the handshake");
            return;
        };
        let params = hs.params;
        let timeline = Timeline::new(
            params.seed,
            params.players,
            self.side,
            params.delay,
            params.window,
            params.hash_interval,
        );
        self.phase = Phase::Running(Running::new(params, timeline, 0));
        self.delay = DelayTuner::new(params.delay);
        for p in &mut self.peers {
            p.sender = sender::Sender::new(params.delay);
            p.pinger.start(self.cfg.ping_interval_frames);
        }
        for (pi, r) in self.arrivals.take_early_roster() {
            self.on_roster(Millis::ZERO, pi, r);
        }
        log::info!(
            "match started: side {}, input delay {}, prediction window {}, hash every {} ticks",
            self.side,
            params.delay,
            params.window,
            params.hash_interval
        );
        self.events.push_back(Event::Started {
            side: self.side,
            seed: params.seed,
            input_delay: params.delay,
        });
    }
}
