//! The hash book: this side's state hashes of final ticks and the peer's,
//! kept until both of a tick are in and compared.

use alloc::collections::VecDeque;

use super::outcome::Violation;
use crate::wire::HashReport;

/// Local hashes kept to answer a peer's hash or `Bye(Desync)`.
///
/// A hash is kept until the peer's hash for its tick (or a later one) has
/// arrived: the reliable channel delivers the peer's hashes in order, so
/// by then it has been compared. With a hash every tick on a very lossy
/// link, retransmissions hold the peer's hashes back by many ticks; the
/// bound (34 s of play at a hash every tick, far more at longer intervals)
/// is only reached by a reliable channel stuck that long, and the hashes
/// it drops then are not compared (logged at WARN).
pub(super) const LOCAL_HASHES_KEPT: usize = 2048;

/// Two hashes of one tick, compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Comparison {
    /// They are equal.
    Matched(u32),
    /// They differ.
    Differ {
        /// The tick.
        tick: u32,
        /// This side's hash.
        local: u64,
        /// The peer's hash.
        remote: u64,
    },
}

/// Both sides' hashes of final ticks, until compared.
#[derive(Debug, Default)]
pub(super) struct HashBook {
    /// This side's hashes (ascending ticks), kept until the peer's hashes
    /// reach their tick.
    local: VecDeque<(u32, u64)>,
    /// The peer's hashes of ticks this side has not hashed yet.
    remote: VecDeque<(u32, u64)>,
    /// The peer's last hashed tick (0 before the first).
    last_remote_tick: u32,
}

impl HashBook {
    /// The peer's last hashed tick (0 before the first).
    pub(super) fn last_remote_tick(&self) -> u32 {
        self.last_remote_tick
    }

    /// This side's hash of `tick`, if it is still kept.
    pub(super) fn local_hash(&self, tick: u32) -> Option<u64> {
        self.local
            .binary_search_by_key(&tick, |&(t, _)| t)
            .ok()
            .and_then(|i| self.local.get(i))
            .map(|&(_, h)| h)
    }

    /// Keeps this side's hash of final tick `tick` (which the caller sends
    /// to the peer) and compares it with the peer's if that came first.
    pub(super) fn record_local(&mut self, tick: u32, hash: u64) -> Option<Comparison> {
        if self.local.len() >= LOCAL_HASHES_KEPT {
            if let Some((old, _)) = self.local.pop_front() {
                log::warn!("hash of tick {old} dropped before the peer's arrived");
            }
        }
        self.local.push_back((tick, hash));
        let mut compared = None;
        while let Some(&(rt, rh)) = self.remote.front() {
            if rt > tick {
                break;
            }
            self.remote.pop_front();
            if rt == tick {
                compared = Some(compare(rt, hash, rh));
            }
        }
        self.drop_compared();
        compared
    }

    /// The peer's hash of `h.tick`. It must be a later multiple of
    /// `interval` than the peer's last and no further than `ahead_limit`;
    /// `last_hashed` is this side's last hashed tick. Compared at once if
    /// this side has hashed that tick, kept until it does otherwise.
    pub(super) fn record_remote(
        &mut self,
        h: HashReport,
        interval: u16,
        ahead_limit: u32,
        last_hashed: u32,
    ) -> Result<Option<Comparison>, Violation> {
        if !h.tick.is_multiple_of(u32::from(interval)) || h.tick <= self.last_remote_tick {
            return Err(Violation::BadHashTick { tick: h.tick });
        }
        if h.tick > ahead_limit {
            return Err(Violation::TooFarAhead { tick: h.tick });
        }
        self.last_remote_tick = h.tick;
        let mut compared = None;
        if h.tick <= last_hashed {
            match self.local_hash(h.tick) {
                Some(local) => compared = Some(compare(h.tick, local, h.hash)),
                None => log::warn!("peer hash for tick {} no longer held", h.tick),
            }
        } else {
            self.remote.push_back((h.tick, h.hash));
        }
        self.drop_compared();
        Ok(compared)
    }

    /// Drops the local hashes the peer's hashes have caught up with: each
    /// was compared when the later of the two arrived.
    fn drop_compared(&mut self) {
        while self
            .local
            .front()
            .is_some_and(|&(t, _)| t <= self.last_remote_tick)
        {
            self.local.pop_front();
        }
    }
}

fn compare(tick: u32, local: u64, remote: u64) -> Comparison {
    if local == remote {
        Comparison::Matched(tick)
    } else {
        Comparison::Differ {
            tick,
            local,
            remote,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(tick: u32, hash: u64) -> HashReport {
        HashReport { tick, hash }
    }

    #[test]
    fn a_peer_hash_that_comes_first_is_compared_when_ours_is_recorded() {
        let mut book = HashBook::default();
        assert_eq!(book.record_remote(report(60, 7), 60, 100, 0), Ok(None));
        assert_eq!(book.record_local(60, 7), Some(Comparison::Matched(60)));
        assert_eq!(book.record_remote(report(120, 8), 60, 200, 60), Ok(None));
        assert_eq!(
            book.record_local(120, 9),
            Some(Comparison::Differ {
                tick: 120,
                local: 9,
                remote: 8
            })
        );
    }

    #[test]
    fn our_hash_that_comes_first_is_compared_when_the_peers_arrives_and_then_dropped() {
        let mut book = HashBook::default();
        assert_eq!(book.record_local(60, 5), None);
        assert_eq!(book.record_local(120, 6), None);
        assert_eq!(book.local_hash(60), Some(5));
        assert_eq!(
            book.record_remote(report(60, 5), 60, 200, 120),
            Ok(Some(Comparison::Matched(60)))
        );
        // Compared: no longer kept; the later one is.
        assert_eq!(book.local_hash(60), None);
        assert_eq!(book.local_hash(120), Some(6));
    }

    #[test]
    fn bad_peer_hashes_are_refused_and_change_nothing() {
        let mut book = HashBook::default();
        assert_eq!(
            book.record_remote(report(61, 1), 60, 1000, 0),
            Err(Violation::BadHashTick { tick: 61 })
        );
        assert_eq!(
            book.record_remote(report(600, 1), 60, 100, 0),
            Err(Violation::TooFarAhead { tick: 600 })
        );
        assert_eq!(book.record_remote(report(60, 1), 60, 100, 0), Ok(None));
        // The same tick again, or an earlier one, is not a later multiple.
        assert_eq!(
            book.record_remote(report(60, 1), 60, 100, 0),
            Err(Violation::BadHashTick { tick: 60 })
        );
        // The refusals left the accepted hash waiting for ours.
        assert_eq!(book.record_local(60, 1), Some(Comparison::Matched(60)));
    }
}
