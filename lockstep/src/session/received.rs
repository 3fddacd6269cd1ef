//! The messages players send during the match, once
//! [`Session::handle_datagram`] found their link: which link a datagram
//! belongs to, which messages a link may send, and the handling of inputs,
//! pings and pongs, hashes and `Bye`s. Membership messages go to
//! `start.rs`, `changes.rs`, `drops.rs`, `take_back.rs` and `join.rs`.

use super::hash_book::{Comparison, LocalHashes};
use super::match_watch::{compared_by_all, Differ};
use super::peer::Peer;
use super::sender;
use super::{ahead_limit, Phase, Session};
use super::{Event, Outcome, PeerId, Violation};
use crate::game::DeterministicGame;
use crate::parts::DesyncParts;
use crate::time::Millis;
use crate::wire::{
    ByeReason, HashReport, Inputs, Join, Member, Message, Pong, Rejoin, Watch as WatchRequest,
    MAX_PLAYERS, PROTOCOL_VERSION,
};

impl<G: DeterministicGame> Session<G> {
    /// The index of link `id` among the peers, adding it (its link just
    /// opened, or its first datagram came) while the handshake expects
    /// more links. `None` for a link the match has no room for.
    pub(super) fn peer_index(&mut self, now: Millis, id: PeerId) -> Option<usize> {
        if let Some(i) = self.peers.iter().position(|p| p.id == id) {
            return Some(i);
        }
        if self.members.is_gone(id) {
            log::debug!("{id} belongs to a player that left: dropped");
            return None;
        }
        if self.is_spectator() {
            // A spectator's one link leads to the host.
            if !self.peers.is_empty() || !matches!(self.phase, Phase::Handshake(_)) {
                log::warn!("{id}: a spectator has one link, to the host: ignored");
                return None;
            }
            let mut peer = Peer::new(id, now);
            peer.slot = Some(0);
            peer.out.send(&Message::<G::Input>::Watch(WatchRequest {
                protocol: PROTOCOL_VERSION,
                build: G::BUILD_ID,
            }));
            self.peers.push(peer);
            return Some(0);
        }
        let hs = match &self.phase {
            Phase::Handshake(hs) => hs,
            Phase::Running(run) if self.cfg.host_back.is_some() => {
                // A host back among several guests: a link to a guest
                // may open after the match runs again; it asks that guest
                // too, who takes it on the acting guest's word.
                let room = usize::from(run.params.players.saturating_sub(1));
                if self.peers.len() >= room {
                    log::warn!("{id} opened beyond the match's players: ignored");
                    return None;
                }
                let mut peer = Peer::new(id, now);
                peer.pinger.start(self.cfg.ping_interval_frames);
                peer.sender = sender::Sender::holding(run.returns_at);
                peer.roster_acked = run.roster_seq;
                peer.out.send(&Message::<G::Input>::Rejoin(Rejoin {
                    protocol: PROTOCOL_VERSION,
                    build: G::BUILD_ID,
                    slot: 0,
                    token: self.cfg.host_back.unwrap_or(0),
                }));
                self.peers.push(peer);
                return Some(self.peers.len() - 1);
            }
            _ => {
                log::debug!("{id} opened after the start: ignored unless it rejoins");
                return None;
            }
        };
        let room = match hs.params.players {
            0 => MAX_PLAYERS - 1,
            n => n - 1,
        };
        if self.peers.len() >= usize::from(room) {
            log::warn!("{id} opened beyond the match's players: ignored");
            return None;
        }
        let mut peer = Peer::new(id, now);
        if self.side == 0 && self.cfg.host_back.is_none() {
            // The host gives the link the lowest free slot (a host coming
            // back learns it from the guest's `Resume`).
            peer.slot =
                (1..hs.params.players).find(|&k| self.peers.iter().all(|p| p.slot != Some(k)));
        }
        if let Some((slot, token)) = self.cfg.rejoin_as {
            // A rejoiner asks for its slot back instead of saying Hello.
            peer.out.send(&Message::<G::Input>::Rejoin(Rejoin {
                protocol: PROTOCOL_VERSION,
                build: G::BUILD_ID,
                slot,
                token,
            }));
        } else if let Some(token) = self.cfg.host_back {
            // A host coming back asks the guest for the match back.
            peer.out.send(&Message::<G::Input>::Rejoin(Rejoin {
                protocol: PROTOCOL_VERSION,
                build: G::BUILD_ID,
                slot: 0,
                token,
            }));
        } else if let Some(asked) = self.cfg.join_as {
            match (hs.own_slot, self.members.token()) {
                // The host let this side in already: it introduces itself
                // to a link opened since as the slot's player.
                (Some(slot), Some(token)) => {
                    peer.out.send(&Message::<G::Input>::Rejoin(Rejoin {
                        protocol: PROTOCOL_VERSION,
                        build: G::BUILD_ID,
                        slot,
                        token,
                    }));
                }
                // A joiner asks for a free slot instead of saying Hello.
                _ => peer.out.send(&Message::<G::Input>::Join(Join {
                    protocol: PROTOCOL_VERSION,
                    build: G::BUILD_ID,
                    slot: asked.unwrap_or(0),
                })),
            }
        } else if !hs.probing(&self.cfg, self.side) {
            let to = peer.slot.unwrap_or(0);
            peer.out
                .send(&hs.hello::<G::Input>(&self.cfg, self.side, G::BUILD_ID, to));
        }
        let entering = self.entering();
        if let (Some(slot), true, false) = (hs.own_slot, self.side != 0, entering) {
            // A guest that knows the match introduces itself to a link
            // opened later (necessarily another guest's).
            peer.out.send(&Message::<G::Input>::Member(Member {
                slot,
                match_id: hs.params.match_id,
            }));
        }
        self.peers.push(peer);
        Some(self.peers.len() - 1)
    }

    /// Whether `msg` on link `pi` is taken at all. A player the host asked
    /// about (leaving, or rejoining and not yet back) is heard only for a
    /// `Rejoin` or a `Bye`: what its link carries may come from a fresh
    /// session this side has not taken yet. A rejoiner takes nothing but a
    /// `Hello`, a `Member` or a `Bye` on a link whose player it does not
    /// know yet (a guest that has not taken it back may still send what
    /// it meant for the old session).
    pub(super) fn takes_from(&self, pi: usize, msg: &Message<G::Input>) -> bool {
        let Some(p) = self.peers.get(pi) else {
            return false;
        };
        let taken = if p.frozen || p.returning.is_some() {
            matches!(msg, Message::Rejoin(_) | Message::Bye(_))
        } else if p.slot.is_none() && self.entering() {
            // Another player's fresh session may introduce itself too
            // (see `keep_early_claim`).
            matches!(
                msg,
                Message::Hello(_)
                    | Message::Member(_)
                    | Message::Bye(_)
                    | Message::Rejoin(_)
                    | Message::Resume(_)
            )
        } else {
            true
        };
        if !taken {
            log::debug!(
                "a message on {} while its player is not taken (leaving, rejoining or not introduced yet): dropped",
                p.id
            );
        }
        taken
    }

    pub(super) fn on_inputs(&mut self, now: Millis, pi: usize, m: Inputs<G::Input>) {
        let Phase::Running(run) = &mut self.phase else {
            log::debug!("inputs before the match started: dropped");
            return;
        };
        let Some(peer) = self.peers.get_mut(pi) else {
            return;
        };
        let Some(slot) = peer.slot.map(usize::from) else {
            // Unreachable: a match starts only with every peer's Hello.
            debug_assert!(false, "a running peer without a slot");
            return;
        };
        if peer.frozen {
            log::debug!("inputs from a player leaving the match: dropped");
            return;
        }
        // Validate everything before changing anything.
        let sent = run.timeline.local().len() as u32;
        if m.ack > sent {
            self.violation(Violation::AckBeyondSent { ack: m.ack, sent });
            return;
        }
        let have = run.timeline.inputs_of(slot).len() as u32;
        if m.first_tick > have {
            self.violation(Violation::InputGap {
                expected: have,
                first: m.first_tick,
            });
            return;
        }
        // Cannot overflow: the decoder checked first_tick + len <= u32::MAX.
        let end = m.first_tick + m.pads.len() as u32;
        // A player that just entered starts its inputs at the change's
        // tick, which may lie ahead of this side's present.
        let from = run.reach_base().max(peer.enters_at);
        if end > ahead_limit(from, run.params) {
            self.violation(Violation::TooFarAhead { tick: end });
            return;
        }
        let overlap = (have - m.first_tick) as usize;
        let start = m.first_tick as usize;
        let remote = run.timeline.inputs_of(slot);
        // Ticks before a saved state this side started from hold
        // placeholders, not inputs: nothing there to conflict with.
        let base = run.timeline.base() as usize;
        let conflict = m
            .pads
            .iter()
            .take(overlap)
            .enumerate()
            .find(|&(i, pad)| start + i >= base && remote.get(start + i) != Some(pad));
        if let Some((i, _)) = conflict {
            self.violation(Violation::ConflictingInput {
                tick: m.first_tick + i as u32,
            });
            return;
        }
        if let Some(new) = m.pads.get(overlap..).filter(|p| !p.is_empty()) {
            run.timeline.extend_inputs(slot, new);
            peer.catching_up = false;
            peer.time_sync.heard_inputs();
            self.deadlines.progressed();
            if peer.dropped.is_some_and(|d| d.deaf) {
                // Its inputs flow again: the way back in for a player
                // that was heard all along.
                peer.dropped = None;
                log::info!(
                    "{} (slot {slot}) sends inputs again: the match resumes",
                    peer.id
                );
                self.events.push_back(Event::Resumed { slot: slot as u8 });
            }
        }
        peer.sender.on_ack(m.ack);
        if let Some(a) = m.advantage {
            peer.time_sync.remote_advantage(a);
        }
        if let Some(id) = m.ping {
            self.on_ping(now, pi, id);
        }
        if let Some(p) = m.pong {
            self.on_pong(now, pi, p);
        }
    }

    pub(super) fn on_ping(&mut self, now: Millis, pi: usize, id: u16) {
        let Some(peer) = self.peers.get_mut(pi) else {
            return;
        };
        match self.phase {
            Phase::Running(_) => peer.pinger.owe_pong(id, now),
            // The host measures the round trip before the match: answer at
            // once (one pong per ping, nothing kept).
            Phase::Handshake(_) => peer
                .out
                .send(&Message::<G::Input>::Pong(Pong { id, held_ms: 0 })),
            Phase::Ended(_) => {}
        }
    }

    pub(super) fn on_pong(&mut self, now: Millis, pi: usize, p: Pong) {
        let Some(peer) = self.peers.get_mut(pi) else {
            return;
        };
        let Some(rtt) = peer.pinger.on_pong(now, p) else {
            log::debug!("pong for an unknown ping: dropped");
            return;
        };
        peer.last_rtt = Some(rtt);
        self.stats.last_rtt = Some(rtt);
        match &mut self.phase {
            Phase::Handshake(hs) => hs.on_round_trip(rtt, &self.cfg, self.side, peer),
            Phase::Running(_) => self.delay.round_trip(rtt),
            _ => {}
        }
        self.events.push_back(Event::RoundTrip(rtt));
    }

    pub(super) fn on_hash(&mut self, now: Millis, pi: usize, h: HashReport) {
        // A peer can hash a tick only once it has every Hello. A host
        // that picks its delay from the round trip starts half a round
        // trip after sending its Hello, so a guest (whose Hello came
        // first on this ordered channel) may already be hashing: keep its
        // hashes for comparison, as during the match.
        let none_yet = LocalHashes::default();
        let entering = self.entering();
        let (mut running, params, base, last_hashed) = match &mut self.phase {
            Phase::Running(run) => (
                Some((&mut run.parts, &mut run.local)),
                run.params,
                // `reach_base`, borrowing only these fields.
                run.timeline.tick().max(run.returns_at),
                run.timeline.last_hashed(),
            ),
            // A peer that started before this side hashes early.
            Phase::Handshake(hs)
                if !hs.probing(&self.cfg, self.side)
                    && self.peers.get(pi).is_some_and(|p| p.hello.is_some()) =>
            {
                (None, hs.params, 0, 0)
            }
            // Entering a running match: a guest that took this side back
            // (or in) may hash before the host's Hello reached this side.
            // Its hashes are for ticks this side checks against the host's
            // catch-up anyway.
            _ if entering => {
                log::debug!("a state hash before the host's Hello while entering: dropped");
                return;
            }
            _ => {
                self.violation(Violation::HashBeforeHello);
                return;
            }
        };
        let Some(peer) = self.peers.get_mut(pi) else {
            return;
        };
        let limit = ahead_limit(base, params);
        let ours = running.as_ref().map_or(&none_yet, |(_, local)| &**local);
        let compared = peer
            .hashes
            .record_remote(h, params.hash_interval, limit, last_hashed, ours);
        let last_remote = compared_by_all(&self.peers);
        if let Some((parts, local)) = running.as_mut() {
            if parts.waiting() {
                // A desync already waits for a peer's part hashes.
                return;
            }
            if !matches!(compared, Ok(Some(Comparison::Differ { .. }))) {
                // Our hashes, and their parts, of ticks compared by every
                // peer are done.
                local.forget_upto(last_remote);
                parts.forget_upto(last_remote);
            }
        }
        match compared {
            Err(v) => self.violation(v),
            Ok(None) => {}
            Ok(Some(Comparison::Matched(t))) => {
                log::debug!("state hashes agree at tick {t}");
                self.events.push_back(Event::HashMatched(t));
            }
            Ok(Some(Comparison::Differ {
                tick,
                local,
                remote,
            })) => {
                let slots = self
                    .peers
                    .get(pi)
                    .and_then(|p| p.slot)
                    .into_iter()
                    .collect();
                self.end_in_desync(
                    now,
                    Differ {
                        peer: pi,
                        tick,
                        local,
                        remote,
                        slots,
                    },
                );
            }
        }
    }

    /// Whether a `Bye` on link `pi` ends this side's match. Entering (a
    /// rejoiner or a joiner), a link that never said whose it is may lead
    /// to a page no longer in the match, or to a player that has not
    /// taken this side back and speaks to the old session: its `Bye` is
    /// nobody's in this match. Only a refusal counts from such a link,
    /// while this side awaits the host's answer: the host's link is not
    /// known before its Hello, and only the host refuses.
    pub(super) fn bye_counts(&self, pi: usize, reason: ByeReason) -> bool {
        let unmet = self.entering() && self.peers.get(pi).is_some_and(|p| p.slot.is_none());
        let refusal = matches!(
            reason,
            ByeReason::RejoinRefused(_) | ByeReason::VersionMismatch
        );
        !unmet || (refusal && self.awaits_host_answer())
    }

    /// Entering: link `pi`, which never said whose it is, said `Bye`
    /// (see [`bye_counts`](Self::bye_counts)): it is forgotten, the match
    /// goes on. Anything more on it is taken as on a link that just
    /// opened.
    pub(super) fn close_unmet_link(&mut self, pi: usize, reason: ByeReason) {
        if pi >= self.peers.len() {
            return;
        }
        let p = self.peers.remove(pi);
        log::info!(
            "{} said Bye ({reason:?}) without ever saying whose it is: only that link closes",
            p.id
        );
        if let Phase::Running(run) = &mut self.phase {
            run.parts_with = run.parts_with.map(|i| if i > pi { i - 1 } else { i });
        }
        self.arrivals.peer_removed(pi);
    }

    pub(super) fn on_bye(&mut self, pi: usize, reason: ByeReason) {
        // A peer ended the match while this side waits for part hashes:
        // the desync found here is the outcome, without them.
        if self.give_up_parts(false) {
            return;
        }
        match reason {
            ByeReason::Quit => self.end(Outcome::RemoteQuit, None),
            ByeReason::Timeout => self.end(Outcome::Timeout, None),
            ByeReason::HandshakeTimeout => self.end(Outcome::HandshakeTimeout, None),
            ByeReason::NoProgress => self.end(Outcome::NoProgress, None),
            ByeReason::PlayerLeft { slot } => self.end(Outcome::PlayerLeft { slot }, None),
            ByeReason::RejoinRefused(why) => {
                log::info!("the host refused the rejoin: {why:?}");
                self.end(Outcome::RejoinRefused { why }, None);
            }
            // Only a spectator is refused a watch.
            ByeReason::WatchRefused(_) => self.violation(Violation::UnexpectedWatch),
            ByeReason::InvalidData => self.end(
                Outcome::InvalidData {
                    violation: Violation::RejectedByPeer,
                },
                None,
            ),
            ByeReason::VersionMismatch => {
                // A running match has the peer's version: our own.
                let remote = match &self.phase {
                    Phase::Handshake(_) => self.peers.get(pi).and_then(|p| p.hello),
                    _ => Some(Self::local_version()),
                };
                self.end(
                    Outcome::VersionMismatch {
                        local: Self::local_version(),
                        remote,
                    },
                    None,
                );
            }
            ByeReason::Desync { tick, hash } => {
                let local = match &self.phase {
                    Phase::Running(run) => run.local.get(tick),
                    _ => None,
                };
                match local {
                    Some(local) => {
                        log::error!(
                            "desync reported by a peer at tick {tick}: local {local:#018x}, remote {hash:#018x}"
                        );
                        self.end(
                            Outcome::Desync {
                                tick,
                                local,
                                remote: hash,
                                parts: DesyncParts::default(),
                                slots: self
                                    .peers
                                    .get(pi)
                                    .and_then(|p| p.slot)
                                    .into_iter()
                                    .collect(),
                            },
                            None,
                        );
                    }
                    None => self.violation(Violation::UnknownDesyncTick { tick }),
                }
            }
        }
    }
}
