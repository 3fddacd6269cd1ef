//! How good the connection of a match feels, in one word a player
//! understands: good, fair or poor.
//!
//! The word weighs what a player notices: the round trip (how late the
//! other player's moves arrive), the frames the game stood still waiting
//! for them (stalls), and the ticks re-simulated to correct a late input
//! (rollbacks, which show as small jumps). Stalls and rollbacks count over
//! the last [`WINDOW_FRAMES`] frames only, so the word recovers once the
//! link does. The details (netcode, input delay, ping, the counters) stay
//! one click away on the page.

use std::collections::VecDeque;

/// The frames the stalls and rollbacks are counted over: 5 s at 60 Hz.
pub const WINDOW_FRAMES: usize = 300;

/// A round trip above this is fair at best (ms): late moves start to show
/// as input delay or corrections.
pub const FAIR_PING_MS: u64 = 120;
/// A round trip above this is poor (ms).
pub const POOR_PING_MS: u64 = 250;
/// Stalled frames in the window from which the connection is fair (2% of
/// the window: a few short waits).
pub const FAIR_STALLS: u64 = 6;
/// Stalled frames in the window from which it is poor (10%: the game
/// visibly stops).
pub const POOR_STALLS: u64 = 30;
/// Re-simulated ticks in the window from which it is fair (one a frame on
/// average: corrections a player may notice).
pub const FAIR_RESIMULATED: u64 = 300;
/// Re-simulated ticks in the window from which it is poor (four a frame:
/// constant jumps).
pub const POOR_RESIMULATED: u64 = 1_200;

/// The connection's quality.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Quality {
    /// Nothing a player would notice.
    Good,
    /// Noticeable: some waiting, corrections or lag.
    Fair,
    /// The game stops or jumps often.
    Poor,
}

impl Quality {
    /// The word shown, and the value of `data-quality`.
    #[must_use]
    pub fn word(self) -> &'static str {
        match self {
            Quality::Good => "good",
            Quality::Fair => "fair",
            Quality::Poor => "poor",
        }
    }
}

/// `Poor` from `poor` on, `Fair` from `fair` on, else `Good`.
fn grade(v: u64, fair: u64, poor: u64) -> Quality {
    if v >= poor {
        Quality::Poor
    } else if v >= fair {
        Quality::Fair
    } else {
        Quality::Good
    }
}

/// Counts stalls and rollbacks over the last [`WINDOW_FRAMES`] frames.
#[derive(Debug, Default, Clone)]
pub struct QualityMeter {
    /// The session's running totals (stalled frames, re-simulated ticks)
    /// at each of the last frames, oldest first.
    totals: VecDeque<(u64, u64)>,
}

impl QualityMeter {
    /// Notes one frame with the session's running totals so far.
    pub fn frame(&mut self, stalled_frames: u64, resimulated_ticks: u64) {
        if self.totals.len() == WINDOW_FRAMES + 1 {
            self.totals.pop_front();
        }
        self.totals.push_back((stalled_frames, resimulated_ticks));
    }

    /// Stalled frames and re-simulated ticks within the window.
    #[must_use]
    pub fn recent(&self) -> (u64, u64) {
        match (self.totals.front(), self.totals.back()) {
            (Some(a), Some(b)) => (b.0.saturating_sub(a.0), b.1.saturating_sub(a.1)),
            _ => (0, 0),
        }
    }

    /// The quality given the last round trip, or `None` before the first
    /// one was measured. The worst of the three measures counts.
    #[must_use]
    pub fn quality(&self, ping_ms: Option<u64>) -> Option<Quality> {
        let ping = ping_ms?;
        let (stalls, resimulated) = self.recent();
        Some(
            grade(ping, FAIR_PING_MS + 1, POOR_PING_MS + 1)
                .max(grade(stalls, FAIR_STALLS, POOR_STALLS))
                .max(grade(resimulated, FAIR_RESIMULATED, POOR_RESIMULATED)),
        )
    }

    /// A spectator's quality: it measures no round trip (its moves go
    /// nowhere) and re-simulates nothing, so only the frames it waited
    /// for the stream count; `None` until it has watched a whole window.
    #[must_use]
    pub fn stream_quality(&self) -> Option<Quality> {
        if self.totals.len() <= WINDOW_FRAMES {
            return None;
        }
        Some(grade(self.recent().0, FAIR_STALLS, POOR_STALLS))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A meter after `frames` frames, each adding these stalls and
    /// re-simulated ticks to the totals.
    fn meter(frames: u64, stalls_each: u64, resim_each: u64) -> QualityMeter {
        let mut m = QualityMeter::default();
        for f in 0..=frames {
            m.frame(f * stalls_each, f * resim_each);
        }
        m
    }

    #[test]
    fn nothing_is_said_before_the_first_round_trip() {
        assert_eq!(QualityMeter::default().quality(None), None);
        assert_eq!(meter(600, 0, 0).quality(None), None);
    }

    #[test]
    fn the_round_trip_alone_grades_a_clean_link() {
        let m = meter(600, 0, 0);
        assert_eq!(m.quality(Some(0)), Some(Quality::Good));
        assert_eq!(m.quality(Some(FAIR_PING_MS)), Some(Quality::Good));
        assert_eq!(m.quality(Some(FAIR_PING_MS + 1)), Some(Quality::Fair));
        assert_eq!(m.quality(Some(POOR_PING_MS)), Some(Quality::Fair));
        assert_eq!(m.quality(Some(POOR_PING_MS + 1)), Some(Quality::Poor));
    }

    #[test]
    fn stalls_and_rollbacks_lower_a_fast_link() {
        // One stalled frame in every ten: 30 in the window.
        let mut m = QualityMeter::default();
        for f in 0..=600u64 {
            m.frame(f / 10, 0);
        }
        assert_eq!(m.recent().0, 30);
        assert_eq!(m.quality(Some(20)), Some(Quality::Poor));
        // One in fifty: 6 in the window.
        let mut m = QualityMeter::default();
        for f in 0..=600u64 {
            m.frame(f / 50, 0);
        }
        assert_eq!(m.quality(Some(20)), Some(Quality::Fair));
        // Two ticks re-simulated a frame: fair; five: poor.
        assert_eq!(meter(600, 0, 2).quality(Some(20)), Some(Quality::Fair));
        assert_eq!(meter(600, 0, 5).quality(Some(20)), Some(Quality::Poor));
        // The worst measure counts.
        assert_eq!(meter(600, 0, 2).quality(Some(300)), Some(Quality::Poor));
    }

    #[test]
    fn only_the_last_five_seconds_count() {
        let mut m = QualityMeter::default();
        // A bad start: 100 stalled frames in the first 2 s.
        for f in 0..=120u64 {
            m.frame(f.min(100), 0);
        }
        assert_eq!(m.quality(Some(20)), Some(Quality::Poor));
        // Then a clean link: once the stalls leave the window, good again.
        for _ in 0..WINDOW_FRAMES {
            m.frame(100, 0);
        }
        assert_eq!(m.recent(), (0, 0));
        assert_eq!(m.quality(Some(20)), Some(Quality::Good));
    }

    #[test]
    fn a_spectator_is_graded_by_its_waits_once_it_watched_a_window() {
        // Nothing before a whole window, whatever it saw.
        assert_eq!(meter(WINDOW_FRAMES as u64 - 1, 0, 0).stream_quality(), None);
        assert_eq!(meter(600, 0, 0).stream_quality(), Some(Quality::Good));
        // One wait in every ten frames: poor; one in fifty: fair.
        let mut m = QualityMeter::default();
        for f in 0..=600u64 {
            m.frame(f / 10, 0);
        }
        assert_eq!(m.stream_quality(), Some(Quality::Poor));
        let mut m = QualityMeter::default();
        for f in 0..=600u64 {
            m.frame(f / 50, 0);
        }
        assert_eq!(m.stream_quality(), Some(Quality::Fair));
    }

    #[test]
    fn words() {
        assert_eq!(
            [Quality::Good, Quality::Fair, Quality::Poor].map(Quality::word),
            ["good", "fair", "poor"]
        );
    }
}
