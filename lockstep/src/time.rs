//! Time as a plain number, passed in by the caller.

use core::ops::{Add, Sub};

/// A point in time (or a duration) in milliseconds on the caller's clock.
///
/// The engine never reads a clock: the caller passes `Millis` into every
/// method that needs the time. Any monotonic origin works (page load,
/// process start, zero in tests) as long as one session sees one clock.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Default,
    serde::Serialize,
    serde::Deserialize,
)]
pub struct Millis(pub u64);

impl Millis {
    /// Zero milliseconds.
    pub const ZERO: Millis = Millis(0);

    /// `self - earlier`, or zero if `earlier` is later than `self`.
    #[must_use]
    pub fn saturating_since(self, earlier: Millis) -> Millis {
        Millis(self.0.saturating_sub(earlier.0))
    }
}

impl Add for Millis {
    type Output = Millis;
    fn add(self, rhs: Millis) -> Millis {
        Millis(self.0.saturating_add(rhs.0))
    }
}

impl Sub for Millis {
    type Output = Millis;
    /// Saturating: a clock that seems to run backwards yields zero, not a panic.
    fn sub(self, rhs: Millis) -> Millis {
        self.saturating_since(rhs)
    }
}
