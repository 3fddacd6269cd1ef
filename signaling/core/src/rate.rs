//! Rate limiting: a token bucket and a map of buckets by key.

use std::collections::HashMap;
use std::hash::Hash;

use serde::{Deserialize, Serialize};

use crate::Millis;

/// Credit units per token: one token refills `per_minute` units each
/// millisecond, so a whole token takes `60_000 / per_minute` ms.
const UNITS_PER_TOKEN: u64 = 60_000;

/// A token bucket holding up to `per_minute` tokens, refilled evenly over a
/// minute: a client may burst a minute's allowance, then keeps to the rate.
/// Plain data, so it can live in a WebSocket attachment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenBucket {
    /// Credit in 1/60 000 of a token.
    credit: u64,
    /// When `credit` was last brought up to date.
    last: Millis,
}

impl TokenBucket {
    /// A full bucket.
    #[must_use]
    pub fn full(per_minute: u32, now: Millis) -> TokenBucket {
        TokenBucket {
            credit: u64::from(per_minute).saturating_mul(UNITS_PER_TOKEN),
            last: now,
        }
    }

    /// Takes one token if there is one. `per_minute == 0` means no limit.
    pub fn try_take(&mut self, per_minute: u32, now: Millis) -> bool {
        if per_minute == 0 {
            return true;
        }
        let cap = u64::from(per_minute).saturating_mul(UNITS_PER_TOKEN);
        let refill = now.since(self.last).saturating_mul(u64::from(per_minute));
        self.credit = self.credit.saturating_add(refill).min(cap);
        self.last = self.last.max(now);
        if self.credit >= UNITS_PER_TOKEN {
            self.credit -= UNITS_PER_TOKEN;
            true
        } else {
            false
        }
    }

    /// True when the bucket would be full at `now` (nothing to remember).
    #[must_use]
    pub fn is_full(&self, per_minute: u32, now: Millis) -> bool {
        let cap = u64::from(per_minute).saturating_mul(UNITS_PER_TOKEN);
        let refill = now.since(self.last).saturating_mul(u64::from(per_minute));
        self.credit.saturating_add(refill) >= cap
    }
}

/// Token buckets by key (the embedded server keys by client IP, which is
/// held in memory only and never logged).
#[derive(Debug)]
pub struct RateLimiter<K> {
    per_minute: u32,
    buckets: HashMap<K, TokenBucket>,
    last_prune: Millis,
}

impl<K: Hash + Eq> RateLimiter<K> {
    /// A limiter allowing `per_minute` requests per key per minute (bursts
    /// up to that many); 0 turns it off.
    #[must_use]
    pub fn new(per_minute: u32) -> RateLimiter<K> {
        RateLimiter {
            per_minute,
            buckets: HashMap::new(),
            last_prune: Millis(0),
        }
    }

    /// The configured rate (0 = off).
    #[must_use]
    pub fn per_minute(&self) -> u32 {
        self.per_minute
    }

    /// Counts one request for `key`; false when it is over the limit.
    pub fn check(&mut self, key: K, now: Millis) -> bool {
        if self.per_minute == 0 {
            return true;
        }
        // Forget keys whose buckets have refilled, at most once a minute, so
        // memory stays bounded by the keys seen in the last minute.
        if now.since(self.last_prune) >= UNITS_PER_TOKEN {
            let pm = self.per_minute;
            self.buckets.retain(|_, b| !b.is_full(pm, now));
            self.last_prune = now;
        }
        let pm = self.per_minute;
        self.buckets
            .entry(key)
            .or_insert_with(|| TokenBucket::full(pm, now))
            .try_take(pm, now)
    }

    /// Keys currently remembered.
    #[must_use]
    pub fn len(&self) -> usize {
        self.buckets.len()
    }

    /// True when no key is remembered.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.buckets.is_empty()
    }
}
