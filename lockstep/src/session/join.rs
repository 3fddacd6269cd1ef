//! The first step of a late join: the host sends the newcomer its catch-up
//! before it orders any change, the match going on without it; once the
//! newcomer replayed it, it says [`Message::JoinReady`] and only then
//! does the host order the change that gives it the slot (see
//! `Session::begin_join`), at a tick far enough ahead for every player to
//! hear of it and for the newcomer, already caught up, to be there. The
//! players who stayed never wait for a catch-up to cross.
//!
//! The slot stays neutral and reserved while the newcomer catches up; a
//! newcomer that does not say it is ready within [`READY_WITHIN`] (silent,
//! gone, or too slow to replay) is refused with `NotReady` and the slot is
//! free again. The players never heard of it.

use alloc::vec::Vec;

use super::handshake::host_hello;
use super::peer::PeerId;
use super::rejoin::Gathered;
use super::{rejoin, Phase, Session};
use crate::game::DeterministicGame;
use crate::time::Millis;
use crate::wire::{ByeReason, Message, RejoinRefusal};

/// How long the host keeps a slot for a newcomer that was sent its
/// catch-up and has not said it is ready (the handshake's own default
/// deadline).
pub(super) const READY_WITHIN: Millis = Millis(10_000);

/// Host: a newcomer catching up, before the change that gives it its slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Admission {
    /// The slot it will take (neutral until the change).
    pub(super) slot: u8,
    /// The link its session spoke on.
    pub(super) link: PeerId,
    /// The tick its first catch-up ended at; its `JoinReady` names it.
    pub(super) tick: u32,
    /// When the slot is released if it has not said it is ready.
    pub(super) until: Millis,
    /// It said it is ready; the change waits only for what blocks it
    /// (another change under way, a player away).
    pub(super) ready: bool,
}

impl<G: DeterministicGame> Session<G> {
    /// Host: the newcomer on `link` may take free `slot`. It gets the
    /// host's Hello (the slot and the token it will hold) and the catch-up
    /// at once, the slot still neutral; nobody else is told yet.
    pub(super) fn admit_newcomer(&mut self, now: Millis, link: PeerId, slot: u8) {
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
    pub(super) fn release_admission(&mut self, why: RejoinRefusal) {
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
