//! The hash books: this side's state hashes of final ticks (one book for
//! the match) and each peer's (one book per peer), kept until both of a
//! tick are in and compared.

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

/// This side's hashes of final ticks (ascending), one book for the whole
/// match: each is kept until every peer's hashes have reached its tick.
#[derive(Debug, Default)]
pub(super) struct LocalHashes {
    kept: VecDeque<(u32, u64)>,
}

impl LocalHashes {
    /// Our hash of `tick`, if still kept.
    pub(super) fn get(&self, tick: u32) -> Option<u64> {
        self.kept
            .binary_search_by_key(&tick, |&(t, _)| t)
            .ok()
            .and_then(|i| self.kept.get(i))
            .map(|&(_, h)| h)
    }

    /// Keeps our hash of final tick `tick` (ticks ascending).
    pub(super) fn record(&mut self, tick: u32, hash: u64) {
        if self.kept.len() >= LOCAL_HASHES_KEPT {
            if let Some((old, _)) = self.kept.pop_front() {
                log::warn!("hash of tick {old} dropped before every peer's arrived");
            }
        }
        self.kept.push_back((tick, hash));
    }

    /// Forgets our hashes up to `tick`: every peer's hash of them came.
    pub(super) fn forget_upto(&mut self, tick: u32) {
        while self.kept.front().is_some_and(|&(t, _)| t <= tick) {
            self.kept.pop_front();
        }
    }
}

/// One peer's hashes of final ticks, until compared with ours.
#[derive(Debug, Default)]
pub(super) struct HashBook {
    /// The peer's hashes of ticks we have not hashed yet (ascending).
    remote: VecDeque<(u32, u64)>,
    /// The last tick the peer sent a hash for (0 before the first).
    last_remote_tick: u32,
}

impl HashBook {
    /// The book of a peer whose next hash is for a tick after `tick` (a
    /// rejoiner: its catch-up covered the ticks before).
    pub(super) fn after(tick: u32) -> Self {
        HashBook {
            remote: VecDeque::new(),
            last_remote_tick: tick,
        }
    }

    /// Forgets the peer's hashes of `tick` and later not compared yet.
    pub(super) fn forget_from(&mut self, tick: u32) {
        self.remote.retain(|&(t, _)| t < tick);
    }

    /// The last tick the peer sent a hash for.
    pub(super) fn last_remote_tick(&self) -> u32 {
        self.last_remote_tick
    }

    /// We hashed final tick `tick` (recorded in the local book too): the
    /// comparison with the peer's hash of it, if that came first.
    pub(super) fn record_local(&mut self, tick: u32, hash: u64) -> Option<Comparison> {
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
        compared
    }

    /// The peer's hash `h`: refused if its tick is not a later multiple of
    /// `interval` or is beyond `ahead_limit`; compared at once with ours
    /// when we have hashed its tick (`last_hashed` or before), else kept.
    pub(super) fn record_remote(
        &mut self,
        h: HashReport,
        interval: u16,
        ahead_limit: u32,
        last_hashed: u32,
        local: &LocalHashes,
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
            match local.get(h.tick) {
                Some(ours) => compared = Some(compare(h.tick, ours, h.hash)),
                None => log::warn!("peer hash for tick {} no longer held", h.tick),
            }
        } else {
            self.remote.push_back((h.tick, h.hash));
        }
        Ok(compared)
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
        let ours = LocalHashes::default();
        assert_eq!(
            book.record_remote(report(60, 7), 60, 100, 0, &ours),
            Ok(None)
        );
        assert_eq!(book.record_local(60, 7), Some(Comparison::Matched(60)));
        assert_eq!(
            book.record_remote(report(120, 8), 60, 200, 60, &ours),
            Ok(None)
        );
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
        let mut ours = LocalHashes::default();
        for (t, h) in [(60, 5), (120, 6)] {
            ours.record(t, h);
            assert_eq!(book.record_local(t, h), None);
        }
        assert_eq!(ours.get(60), Some(5));
        assert_eq!(
            book.record_remote(report(60, 5), 60, 200, 120, &ours),
            Ok(Some(Comparison::Matched(60)))
        );
        // Compared by every peer: no longer kept; the later one is.
        ours.forget_upto(book.last_remote_tick());
        assert_eq!(ours.get(60), None);
        assert_eq!(ours.get(120), Some(6));
    }

    #[test]
    fn bad_peer_hashes_are_refused_and_change_nothing() {
        let mut book = HashBook::default();
        let ours = LocalHashes::default();
        assert_eq!(
            book.record_remote(report(61, 1), 60, 1000, 0, &ours),
            Err(Violation::BadHashTick { tick: 61 })
        );
        assert_eq!(
            book.record_remote(report(600, 1), 60, 100, 0, &ours),
            Err(Violation::TooFarAhead { tick: 600 })
        );
        assert_eq!(
            book.record_remote(report(60, 1), 60, 100, 0, &ours),
            Ok(None)
        );
        // The same tick again, or an earlier one, is not a later multiple.
        assert_eq!(
            book.record_remote(report(60, 1), 60, 100, 0, &ours),
            Err(Violation::BadHashTick { tick: 60 })
        );
        // The refusals left the accepted hash waiting for ours.
        assert_eq!(book.record_local(60, 1), Some(Comparison::Matched(60)));
    }
}
