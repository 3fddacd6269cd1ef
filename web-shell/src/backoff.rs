//! Reconnecting the presence socket: 1, 2, 4, 8, then every 15 s.

use lockstep::Millis;

/// The delays between reconnect attempts, in order; the last repeats.
pub const RECONNECT_DELAYS: [Millis; 5] = [
    Millis(1_000),
    Millis(2_000),
    Millis(4_000),
    Millis(8_000),
    Millis(15_000),
];

/// Counts failed connection attempts and says how long to wait.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Backoff {
    failures: usize,
}

impl Backoff {
    /// A fresh counter.
    #[must_use]
    pub fn new() -> Backoff {
        Backoff::default()
    }

    /// A connection attempt failed or a working connection dropped: the
    /// delay before the next attempt.
    pub fn next_delay(&mut self) -> Millis {
        let i = self.failures.min(RECONNECT_DELAYS.len() - 1);
        self.failures = self.failures.saturating_add(1);
        RECONNECT_DELAYS[i]
    }

    /// The server welcomed us: start from 1 s again next time.
    pub fn reset(&mut self) {
        self.failures = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays_double_then_stay_at_15_s() {
        let mut b = Backoff::new();
        let got: Vec<u64> = (0..8).map(|_| b.next_delay().0).collect();
        assert_eq!(got, [1000, 2000, 4000, 8000, 15000, 15000, 15000, 15000]);
        b.reset();
        assert_eq!(b.next_delay(), Millis(1000));
    }
}
