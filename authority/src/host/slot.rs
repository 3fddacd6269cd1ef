//! One guest's seat on the host: its link, what it has acknowledged, its
//! events waiting to be acknowledged and its commands waiting to be applied.

use std::collections::VecDeque;

use lockstep::Millis;
use serde_json::Value;

use crate::wire::Token;

/// Counters of what the host sent to one seat.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SeatStats {
    /// Whole snapshots sent (reliably).
    pub whole: u64,
    /// Bytes of those messages.
    pub whole_bytes: u64,
    /// Delta snapshots sent (unreliably).
    pub deltas: u64,
    /// Bytes of those messages.
    pub delta_bytes: u64,
    /// Snapshots skipped because the link's send backlog was over the
    /// limit.
    pub skipped: u64,
    /// Events queued for the seat.
    pub events: u64,
}

/// Where the seat's link stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Presence {
    /// Connected over this link.
    Linked(crate::host::LinkId),
    /// The link dropped at this time; the seat waits for a rejoin.
    Dropped(Millis),
}

/// The snapshot baselines of one seat.
#[derive(Debug, Default)]
pub(crate) struct Baselines {
    /// Trees of the snapshots sent since (and including) the acknowledged
    /// baseline, oldest first.
    pub sent: VecDeque<(u64, Value)>,
    /// The newest tick the guest is known to have (acknowledged on the
    /// unreliable channel, or sent reliably).
    pub acked: Option<u64>,
    /// Snapshots sent since the newest one the guest itself acknowledged
    /// (a whole snapshot sent reliably is a baseline, but does not reset
    /// this: only the guest's acknowledgements show its unreliable channel
    /// works).
    pub since_ack: u32,
}

impl Baselines {
    /// The baseline tree, if the guest has one.
    pub fn baseline(&self) -> Option<(u64, &Value)> {
        let acked = self.acked?;
        self.sent
            .iter()
            .find(|(t, _)| *t == acked)
            .map(|(t, v)| (*t, v))
    }

    /// The guest acknowledged `tick`: it becomes the baseline if it is
    /// newer and still known. Returns whether it was taken.
    pub fn ack(&mut self, tick: u64) -> bool {
        if self.acked.is_some_and(|a| a >= tick) || !self.sent.iter().any(|(t, _)| *t == tick) {
            return false;
        }
        self.acked = Some(tick);
        while self.sent.front().is_some_and(|(t, _)| *t < tick) {
            self.sent.pop_front();
        }
        self.since_ack = u32::try_from(self.sent.len().saturating_sub(1)).unwrap_or(u32::MAX);
        true
    }

    /// A snapshot went out as a delta.
    pub fn sent_delta(&mut self, tick: u64, tree: Value) {
        self.sent.push_back((tick, tree));
        self.since_ack = self.since_ack.saturating_add(1);
    }

    /// A snapshot went out whole and reliably: the guest will have it, so
    /// it is the baseline from now on.
    pub fn sent_whole(&mut self, tick: u64, tree: Value) {
        self.sent.clear();
        self.sent.push_back((tick, tree));
        self.acked = Some(tick);
        self.since_ack = self.since_ack.saturating_add(1);
    }
}

/// Events for one seat, numbered from 1, kept until acknowledged.
#[derive(Debug, Default)]
pub(crate) struct EventQueue {
    /// Encoded events not yet acknowledged, the first numbered
    /// `acked + 1`.
    pub pending: VecDeque<Vec<u8>>,
    /// The number of the last event the guest acknowledged.
    pub acked: u32,
}

impl EventQueue {
    /// Number of the newest event queued.
    pub fn newest(&self) -> u32 {
        self.acked
            .saturating_add(u32::try_from(self.pending.len()).unwrap_or(u32::MAX))
    }

    /// The guest delivered up to `n`: those are dropped. A number beyond
    /// what was queued is ignored (returns `false`).
    pub fn ack(&mut self, n: u32) -> bool {
        if n > self.newest() {
            return false;
        }
        while self.acked < n {
            self.pending.pop_front();
            self.acked += 1;
        }
        true
    }
}

/// A seated guest.
#[derive(Debug)]
pub(crate) struct Slot<C> {
    pub token: Token,
    pub presence: Presence,
    pub last_heard: Millis,
    pub backlog: usize,
    pub baselines: Baselines,
    pub events: EventQueue,
    /// Commands received and not yet applied, with their numbers.
    pub commands: VecDeque<(u32, C)>,
    /// Number of the last command received.
    pub received_cmd: u32,
    /// Number of the last command applied.
    pub applied_cmd: u32,
    /// The guest's newest clock reading and when it arrived.
    pub echo: Option<(u32, Millis)>,
    pub stats: SeatStats,
}

impl<C> Slot<C> {
    pub fn new(token: Token, link: crate::host::LinkId, now: Millis) -> Self {
        Slot {
            token,
            presence: Presence::Linked(link),
            last_heard: now,
            backlog: 0,
            baselines: Baselines::default(),
            events: EventQueue::default(),
            commands: VecDeque::new(),
            received_cmd: 0,
            applied_cmd: 0,
            echo: None,
            stats: SeatStats::default(),
        }
    }

    /// A new visit on `link` (a rejoin): the guest starts from nothing, so
    /// it gets a whole snapshot and numbering starts again.
    pub fn relink(&mut self, link: crate::host::LinkId, now: Millis) {
        self.presence = Presence::Linked(link);
        self.last_heard = now;
        self.backlog = 0;
        self.baselines = Baselines::default();
        self.events = EventQueue::default();
        self.commands.clear();
        self.received_cmd = 0;
        self.applied_cmd = 0;
        self.echo = None;
    }

    pub fn link(&self) -> Option<crate::host::LinkId> {
        match self.presence {
            Presence::Linked(l) => Some(l),
            Presence::Dropped(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn baselines_follow_acks_and_whole_snapshots() {
        let mut b = Baselines::default();
        assert!(b.baseline().is_none());
        b.sent_whole(2, json!(2));
        b.sent_delta(4, json!(4));
        b.sent_delta(6, json!(6));
        assert_eq!(b.baseline().map(|(t, _)| t), Some(2));
        assert_eq!(
            b.since_ack, 3,
            "the whole snapshot counts until acknowledged"
        );
        assert!(!b.ack(5), "never sent");
        assert!(b.ack(4));
        assert!(!b.ack(2), "older than the baseline");
        assert_eq!(b.since_ack, 1);
        assert_eq!(b.sent.len(), 2);
    }

    #[test]
    fn events_are_dropped_when_acknowledged_only() {
        let mut q = EventQueue::default();
        q.pending.extend([vec![1], vec![2], vec![3]]);
        assert_eq!(q.newest(), 3);
        assert!(!q.ack(4));
        assert!(q.ack(2));
        assert_eq!(q.pending.len(), 1);
        assert!(q.ack(1), "an old ack changes nothing");
        assert_eq!(q.acked, 2);
    }
}
