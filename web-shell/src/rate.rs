//! Chat rate limits, on integer milliseconds.

use lockstep::Millis;

/// At most `max` sends in any window of `window` milliseconds (the sending
/// side: 2 per second).
#[derive(Debug, Clone)]
pub struct SendLimiter {
    max: usize,
    window: Millis,
    recent: Vec<Millis>,
}

impl SendLimiter {
    /// `max` sends per `window`.
    #[must_use]
    pub fn new(max: usize, window: Millis) -> SendLimiter {
        SendLimiter {
            max,
            window,
            recent: Vec::new(),
        }
    }

    /// The chat rule: 2 messages per second.
    #[must_use]
    pub fn chat() -> SendLimiter {
        SendLimiter::new(2, Millis(1000))
    }

    /// Records a send at `now` and returns `true` if it is within the limit;
    /// returns `false` (and records nothing) if it is not.
    pub fn try_send(&mut self, now: Millis) -> bool {
        let window = self.window;
        self.recent.retain(|&t| now.saturating_since(t) < window);
        if self.recent.len() >= self.max {
            return false;
        }
        self.recent.push(now);
        true
    }

    /// When the oldest recorded send leaves the window, if the limit was
    /// reached (the next send may be refused until then).
    #[must_use]
    pub fn next_free(&self) -> Option<Millis> {
        if self.recent.len() < self.max {
            return None;
        }
        self.recent.iter().min().map(|&t| t + self.window)
    }
}

/// A token bucket for what a peer sends: a burst of `burst` messages, then
/// `per_second` messages per second. Messages over it are dropped; the peer
/// stays connected.
#[derive(Debug, Clone)]
pub struct ReceiveLimiter {
    /// Tokens in thousandths, so refill needs no fractions.
    milli_tokens: u64,
    burst: u64,
    per_second: u64,
    last: Millis,
}

impl ReceiveLimiter {
    /// A full bucket of `burst` that refills at `per_second`.
    #[must_use]
    pub fn new(burst: u64, per_second: u64, now: Millis) -> ReceiveLimiter {
        ReceiveLimiter {
            milli_tokens: burst * 1000,
            burst,
            per_second,
            last: now,
        }
    }

    /// The chat rule: a burst of 10, then 5 per second.
    #[must_use]
    pub fn chat(now: Millis) -> ReceiveLimiter {
        ReceiveLimiter::new(10, 5, now)
    }

    /// `true` if a message arriving at `now` is within the limit.
    pub fn allow(&mut self, now: Millis) -> bool {
        let elapsed = now.saturating_since(self.last).0;
        self.last = self.last.max(now);
        // per_second tokens per 1000 ms = per_second milli-tokens per ms.
        let refill = elapsed.saturating_mul(self.per_second);
        self.milli_tokens = self
            .milli_tokens
            .saturating_add(refill)
            .min(self.burst * 1000);
        if self.milli_tokens >= 1000 {
            self.milli_tokens -= 1000;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_sends_per_second() {
        let mut l = SendLimiter::chat();
        assert!(l.try_send(Millis(0)));
        assert!(l.try_send(Millis(10)));
        assert!(!l.try_send(Millis(500)));
        assert!(!l.try_send(Millis(999)));
        assert!(l.try_send(Millis(1000)));
        assert!(!l.try_send(Millis(1009)));
        assert!(l.try_send(Millis(1010)));
    }

    #[test]
    fn refused_sends_do_not_use_up_the_window() {
        let mut l = SendLimiter::chat();
        assert!(l.try_send(Millis(0)));
        assert!(l.try_send(Millis(0)));
        for t in 1..1000 {
            assert!(!l.try_send(Millis(t)));
        }
        assert!(l.try_send(Millis(1000)));
    }

    #[test]
    fn burst_of_ten_then_five_per_second() {
        let mut l = ReceiveLimiter::chat(Millis(0));
        let burst = (0..20).filter(|_| l.allow(Millis(0))).count();
        assert_eq!(burst, 10);
        // 100 messages spread over the next 2 seconds: 10 get through.
        let passed = (1..=100).filter(|i| l.allow(Millis(i * 20))).count();
        assert_eq!(passed, 10);
    }

    #[test]
    fn a_steady_five_per_second_always_passes() {
        let mut l = ReceiveLimiter::chat(Millis(0));
        for i in 0..1000u64 {
            assert!(l.allow(Millis(i * 200)), "message {i}");
        }
    }

    #[test]
    fn the_bucket_refills_to_the_burst_only() {
        let mut l = ReceiveLimiter::chat(Millis(0));
        let later = Millis(3_600_000);
        let n = (0..30).filter(|_| l.allow(later)).count();
        assert_eq!(n, 10);
        // A clock going backwards neither panics nor refills.
        assert!(!l.allow(Millis(5)));
    }
}
