//! Rate limiting: a one-minute message window and a map of windows by key.

use std::collections::HashMap;
use std::hash::Hash;

use serde::{Deserialize, Serialize};

use crate::Millis;

/// Length of a rate window: one minute.
pub const WINDOW_MS: u64 = 60_000;

/// A fixed one-minute window that opens with the first message counted and
/// admits at most `per_minute` messages until it ends; the first message
/// after that opens the next window.
///
/// So a minute counted from any window's opening never holds more than
/// `per_minute` messages, and a client can never get ahead of the average:
/// after a full window it waits for the window to end. (A client that
/// sends its whole allowance at the very end of one window and again at the
/// start of the next gets two allowances close together; a sliding window
/// would prevent that but needs a time per message, too much for a
/// WebSocket attachment.)
///
/// Plain data (two numbers), so it lives in a WebSocket attachment and
/// survives hibernation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MinuteWindow {
    /// When the current window opened.
    #[serde(with = "crate::millis_serde")]
    start: Millis,
    /// Messages admitted in it (0: no window is open).
    count: u32,
}

impl MinuteWindow {
    /// No window open yet: the next message opens one.
    #[must_use]
    pub fn new() -> MinuteWindow {
        MinuteWindow::default()
    }

    /// Counts one message at `now` if the window has room for it; false
    /// when `per_minute` were already admitted in the current window (the
    /// refused message is not counted). `per_minute == 0` means no limit.
    pub fn try_take(&mut self, per_minute: u32, now: Millis) -> bool {
        if per_minute == 0 {
            return true;
        }
        if self.is_over(now) {
            self.start = now;
            self.count = 0;
        }
        if self.count < per_minute {
            self.count += 1;
            true
        } else {
            false
        }
    }

    /// True when no window is open at `now` (nothing to remember).
    #[must_use]
    pub fn is_over(&self, now: Millis) -> bool {
        self.count == 0 || now.saturating_since(self.start).0 >= WINDOW_MS
    }

    /// Messages admitted in the window open at `now` (0 if none is).
    #[must_use]
    pub fn count(&self, now: Millis) -> u32 {
        if self.is_over(now) {
            0
        } else {
            self.count
        }
    }
}

/// One [`MinuteWindow`] per key (the embedded server keys by client IP,
/// which is held in memory only and never logged).
#[derive(Debug)]
pub struct RateLimiter<K> {
    per_minute: u32,
    windows: HashMap<K, MinuteWindow>,
    last_prune: Millis,
}

impl<K: Hash + Eq> RateLimiter<K> {
    /// A limiter allowing `per_minute` requests per key in each key's
    /// one-minute window; 0 turns it off.
    #[must_use]
    pub fn new(per_minute: u32) -> RateLimiter<K> {
        RateLimiter {
            per_minute,
            windows: HashMap::new(),
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
        // Forget keys whose windows have ended, at most once a minute, so
        // memory stays bounded by the keys seen in the last two minutes.
        if now.saturating_since(self.last_prune).0 >= WINDOW_MS {
            self.windows.retain(|_, w| !w.is_over(now));
            self.last_prune = now;
        }
        self.windows
            .entry(key)
            .or_default()
            .try_take(self.per_minute, now)
    }

    /// Keys currently remembered.
    #[must_use]
    pub fn len(&self) -> usize {
        self.windows.len()
    }

    /// True when no key is remembered.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.windows.is_empty()
    }
}
