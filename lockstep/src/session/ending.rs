//! How a match ends: the outcome and the `Bye` the others are told, a
//! desync and the exchange of part hashes that names what differs, bad
//! data from a peer, and another build or protocol.

use super::match_watch::Differ;
use super::{Ended, Phase, Session};
use super::{Event, Outcome, Version, Violation};
use crate::game::DeterministicGame;
use crate::parts::{DesyncParts, PartHashes};
use crate::time::Millis;
use crate::wire::{ByeReason, Message, RejoinRefusal, PROTOCOL_VERSION};

impl<G: DeterministicGame> Session<G> {
    /// Ends the match with `outcome`, telling every peer with `bye` first
    /// (a desync's `Bye` goes only to the players whose hash differs:
    /// those that agree with this side find the difference themselves, in
    /// the hash the differing player sent them, and name the right slot).
    /// The phase's last states stay readable.
    pub(super) fn end(&mut self, outcome: Outcome, bye: Option<ByeReason>) {
        if self.is_ended() {
            return;
        }
        if self.is_host() && !self.audience.members.is_empty() {
            // The spectators see the match to its last confirmed tick.
            self.end_for_spectators(bye);
        }
        // The match is ending: a rejoin that waits never will be taken.
        for w in self.arrivals.take_all_waiting() {
            let pi = self.peers.iter().position(|p| p.id == w.link);
            self.refuse_rejoin(w.link, pi, RejoinRefusal::HostUnable);
        }
        // A side entering the match that the host has not answered yet
        // says nothing: it does not know which link is the host's, and a
        // player that has not taken it back would take its Bye for the
        // old session's and end its own match.
        let bye = bye.filter(|_| !self.awaits_host_answer());
        if let Some(reason) = bye {
            let only = match (&outcome, reason) {
                (Outcome::Desync { slots, .. }, ByeReason::Desync { .. }) => Some(slots.as_slice()),
                _ => None,
            };
            let msg = Message::<G::Input>::Bye(reason);
            for p in &mut self.peers {
                let told = only.is_none_or(|s| p.slot.is_some_and(|k| s.contains(&k)));
                if told {
                    p.out.send(&msg);
                }
            }
        }
        log::info!("match ended at tick {}: {outcome:?}", self.tick());
        let params = self.phase.params();
        let before = core::mem::replace(
            &mut self.phase,
            Phase::Ended(Ended {
                outcome: outcome.clone(),
                params,
                timeline: None,
            }),
        );
        if let (Phase::Running(run), Phase::Ended(e)) = (before, &mut self.phase) {
            e.timeline = Some(run.timeline);
        }
        self.events.push_back(Event::Ended(outcome));
    }

    /// A peer's hash of a tick differs from ours. With the parts of that
    /// tick, this side sends that peer its part hashes and waits for the
    /// peer's before it ends (see [`crate::parts`]); without, it ends at
    /// once.
    pub(super) fn end_in_desync(&mut self, now: Millis, d: Differ) {
        let Differ {
            peer,
            tick,
            local,
            remote,
            slots,
        } = d;
        log::error!("desync at tick {tick}: local {local:#018x}, remote {remote:#018x}");
        if let Phase::Running(run) = &mut self.phase {
            if let Some(msg) = run.parts.begin(tick, local, remote, now, &slots) {
                if let Some(p) = self.peers.get_mut(peer) {
                    p.out.send(&Message::<G::Input>::Parts(msg));
                }
                run.parts_with = Some(peer);
                return;
            }
        }
        self.end(
            Outcome::Desync {
                tick,
                local,
                remote,
                parts: DesyncParts::default(),
                slots,
            },
            Some(ByeReason::Desync { tick, hash: local }),
        );
    }

    /// A peer's part hashes of the desync tick: the match ends, naming
    /// the parts that differ.
    pub(super) fn on_parts(&mut self, pi: usize, p: PartHashes) {
        let tick = p.tick;
        let received = match &mut self.phase {
            Phase::Running(run) if run.parts_with == Some(pi) => run.parts.receive(p),
            _ => Err(tick),
        };
        match received {
            Ok((outcome, bye)) => self.end(outcome, Some(bye)),
            Err(tick) => self.violation(Violation::UnexpectedParts { tick }),
        }
    }

    pub(super) fn violation(&mut self, violation: Violation) {
        log::warn!("invalid data from a peer: {violation}");
        // A desync found here already ends the match: it stays the outcome
        // (without the peer's parts), whatever a peer sends while this
        // side waits for them.
        if self.give_up_parts(true) {
            return;
        }
        self.end(
            Outcome::InvalidData { violation },
            Some(ByeReason::InvalidData),
        );
    }

    /// Ends a desync that waits for a peer's part hashes without them
    /// (telling the peers with a `Bye` when `tell`). `false` when no desync
    /// waits.
    pub(super) fn give_up_parts(&mut self, tell: bool) -> bool {
        let Phase::Running(run) = &mut self.phase else {
            return false;
        };
        match run.parts.give_up() {
            Some((outcome, bye)) => {
                self.end(outcome, tell.then_some(bye));
                true
            }
            None => false,
        }
    }

    pub(super) fn local_version() -> Version {
        Version {
            protocol: PROTOCOL_VERSION,
            build: Some(G::BUILD_ID),
        }
    }

    pub(super) fn version_mismatch(&mut self, remote: Version) {
        log::warn!(
            "version mismatch: local protocol {} build {:#018x}, remote {remote:?}",
            PROTOCOL_VERSION,
            G::BUILD_ID
        );
        self.end(
            Outcome::VersionMismatch {
                local: Self::local_version(),
                remote: Some(remote),
            },
            Some(ByeReason::VersionMismatch),
        );
    }
}
