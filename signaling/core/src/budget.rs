//! The service's daily budget of new WebSocket connections.
//!
//! Every socket a host accepts can go on to cost it work for as long as it
//! stays open (on the Workers Free plan, every message and alarm of a
//! Durable Object counts against a daily allowance of requests). The
//! per-socket caps bound what one socket costs; this budget bounds how
//! many sockets a day may open at all, across every client, so that no
//! one (or no crowd) can spend the whole day's allowance. Once a day's
//! upgrades are spent, further upgrades (lobby, room and relay) get HTTP
//! 503 with [`DailyBudget::REASON`] until the next UTC day; sockets already
//! open carry on, and plain HTTP routes are not counted. Beside it, each
//! client address may have a budget of its own ([`AddressBudgets`]), so
//! that one address cannot spend the whole day's: past it, that address's
//! upgrades get 429 with [`ADDRESS_REASON`].
//!
//! Only an upgrade the service takes is counted: one refused for its own
//! reasons (no such room, a place taken, a bad ticket, a full lobby) costs
//! nothing. The hosts ask the machine first (`check_admission`), then
//! count, then admit.

use serde::{Deserialize, Serialize};

/// The `error` text of the 429 once one address's upgrades for the day
/// are spent ([`AddressBudgets`]).
pub const ADDRESS_REASON: &str =
    "your address has used up today's allowance of new connections; try again after midnight UTC";

/// Milliseconds in a day.
const DAY_MS: u64 = 86_400_000;

/// Upgrades used so far on one UTC day.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DailyBudget {
    /// The day counted, as days since the Unix epoch.
    pub day: u64,
    /// Upgrades let through on that day.
    pub used: u64,
}

impl DailyBudget {
    /// The `error` text of the 503 once the day's upgrades are spent.
    pub const REASON: &'static str =
        "the service has used up today's allowance of new connections; try again after midnight UTC";

    /// Counts one upgrade at `unix_ms` (wall-clock milliseconds since the
    /// Unix epoch; the day turns at midnight UTC) against `allowance`
    /// upgrades a day: `true` when it may go ahead. An allowance of 0
    /// turns the budget off (everything goes ahead and nothing is counted).
    pub fn take(&mut self, unix_ms: u64, allowance: u64) -> bool {
        if allowance == 0 {
            return true;
        }
        let day = unix_ms / DAY_MS;
        if day != self.day {
            *self = DailyBudget { day, used: 0 };
        }
        if self.used >= allowance {
            return false;
        }
        self.used += 1;
        true
    }

    /// True when [`DailyBudget::take`] at `unix_ms` would let an upgrade
    /// through, without counting it.
    #[must_use]
    pub fn has_room(&self, unix_ms: u64, allowance: u64) -> bool {
        allowance == 0 || unix_ms / DAY_MS != self.day || self.used < allowance
    }

    /// When the current day ends, in Unix milliseconds.
    #[must_use]
    pub fn day_ends_at(&self) -> u64 {
        (self.day + 1) * DAY_MS
    }
}

/// The daily budget of each client address, as one host keeps it in
/// memory (the embedded server; the Worker keeps one small Durable Object
/// per address instead). Keys are [`crate::address_key`]s, held only for
/// the day they are counted on and never logged. Every entry belongs to
/// the same day: the first upgrade of a new day forgets them all, so memory
/// is bounded by the addresses seen in one day.
#[derive(Clone, Debug)]
pub struct AddressBudgets<K> {
    day: u64,
    used: std::collections::HashMap<K, u64>,
}

impl<K> Default for AddressBudgets<K> {
    fn default() -> Self {
        AddressBudgets {
            day: 0,
            used: std::collections::HashMap::new(),
        }
    }
}

impl<K: std::hash::Hash + Eq> AddressBudgets<K> {
    /// True when [`AddressBudgets::take`] would let `key`'s upgrade through.
    #[must_use]
    pub fn has_room(&self, key: &K, unix_ms: u64, allowance: u64) -> bool {
        allowance == 0
            || unix_ms / DAY_MS != self.day
            || self.used.get(key).copied().unwrap_or(0) < allowance
    }

    /// Counts one upgrade of `key` at `unix_ms` against `allowance` a day:
    /// `true` when it may go ahead. 0 turns the budget off.
    pub fn take(&mut self, key: K, unix_ms: u64, allowance: u64) -> bool {
        if allowance == 0 {
            return true;
        }
        let day = unix_ms / DAY_MS;
        if day != self.day {
            self.day = day;
            self.used.clear();
        }
        let used = self.used.entry(key).or_insert(0);
        if *used >= allowance {
            return false;
        }
        *used += 1;
        true
    }

    /// Addresses counted today.
    #[must_use]
    pub fn len(&self) -> usize {
        self.used.len()
    }

    /// True when no address has been counted today.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.used.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_day_lets_through_its_allowance_and_the_next_starts_over() {
        let mut b = DailyBudget::default();
        let noon = 20_000 * DAY_MS + DAY_MS / 2;
        for _ in 0..3 {
            assert!(b.take(noon, 3));
        }
        assert!(!b.take(noon, 3));
        assert!(!b.take(noon + DAY_MS / 2 - 1, 3), "still the same day");
        assert_eq!(b.day_ends_at(), 20_001 * DAY_MS);
        assert!(b.take(20_001 * DAY_MS, 3), "midnight UTC starts a new day");
        assert_eq!(b.used, 1);
        // Off: nothing counted, nothing refused.
        let mut off = DailyBudget::default();
        for _ in 0..10 {
            assert!(off.take(noon, 0));
        }
        assert_eq!(off, DailyBudget::default());
    }

    #[test]
    fn each_address_has_its_own_allowance_and_a_new_day_forgets_them_all() {
        let noon = 20_000 * DAY_MS + DAY_MS / 2;
        let mut b = AddressBudgets::default();
        assert!(b.take("a", noon, 2) && b.take("a", noon, 2));
        assert!(!b.has_room(&"a", noon, 2));
        assert!(!b.take("a", noon, 2));
        assert!(b.has_room(&"b", noon, 2) && b.take("b", noon, 2));
        assert!(b.has_room(&"a", noon + DAY_MS, 2));
        assert!(b.take("a", noon + DAY_MS, 2));
        assert_eq!(b.len(), 1, "yesterday's addresses are forgotten");
        let mut off = AddressBudgets::default();
        assert!((0..10).all(|_| off.take("a", noon, 0)));
        assert!(off.is_empty());
        let mut one = DailyBudget::default();
        assert!(one.has_room(noon, 1) && one.take(noon, 1));
        assert!(!one.has_room(noon, 1) && one.has_room(noon + DAY_MS, 1));
    }
}
