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
//! open carry on, and plain HTTP routes are not counted.

use serde::{Deserialize, Serialize};

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

    /// When the current day ends, in Unix milliseconds.
    #[must_use]
    pub fn day_ends_at(&self) -> u64 {
        (self.day + 1) * DAY_MS
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
}
