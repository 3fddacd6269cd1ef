//! The guest's interpolation buffer: snapshots are shown a little in the
//! past, blended between the two that straddle the render time, at a delay
//! adapted to how often and how regularly they arrive.

use std::collections::VecDeque;

use lockstep::Millis;

/// Shortest interpolation delay.
pub const MIN_DELAY: Millis = Millis(40);
/// Longest interpolation delay.
pub const MAX_DELAY: Millis = Millis(250);
/// Snapshots kept for interpolation.
const KEEP: usize = 32;
/// Weight of a new sample in the running averages (1/16 for lateness,
/// 1/8 for the interval).
const LATE_GAIN: f64 = 1.0 / 16.0;
const INTERVAL_GAIN: f64 = 1.0 / 8.0;

/// Which two snapshots to show, and how far between them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bracket {
    /// Host tick of the older snapshot.
    pub from_tick: u64,
    /// Tick of the newer one (the same as `from_tick` when there is only
    /// one, or the render time is past the newest).
    pub to_tick: u64,
    /// 0 shows `from`, 1 shows `to`.
    pub t: f32,
    /// The render time was past the newest snapshot: the buffer ran dry.
    pub starved: bool,
}

/// Snapshots by host tick, with the arrival statistics that set the delay.
#[derive(Debug)]
pub struct Interpolation<S> {
    tick_ms: f64,
    buf: VecDeque<(u64, S)>,
    /// Smallest `arrival - tick * tick_ms` seen: the fastest path, which
    /// maps host ticks to the guest's clock.
    min_offset: Option<f64>,
    late_mean: f64,
    late_dev: f64,
    interval: f64,
    interval_dev: f64,
    last_tick: Option<u64>,
}

impl<S> Interpolation<S> {
    /// An empty buffer for a host ticking every `tick_ms` milliseconds.
    #[must_use]
    pub fn new(tick_ms: u16) -> Self {
        Interpolation {
            tick_ms: f64::from(tick_ms.max(1)),
            buf: VecDeque::new(),
            min_offset: None,
            late_mean: 0.0,
            late_dev: 0.0,
            interval: f64::from(tick_ms.max(1)) * 2.0,
            interval_dev: 0.0,
            last_tick: None,
        }
    }

    /// A snapshot of host tick `tick` arrived at `now`. Older snapshots than
    /// the newest are kept in order; a tick already held is ignored.
    pub fn push(&mut self, now: Millis, tick: u64, snapshot: S) {
        #[allow(clippy::cast_precision_loss)]
        let offset = now.0 as f64 - tick as f64 * self.tick_ms;
        let min = self.min_offset.map_or(offset, |m| m.min(offset));
        self.min_offset = Some(min);
        let late = offset - min;
        self.late_mean += (late - self.late_mean) * LATE_GAIN;
        self.late_dev += ((late - self.late_mean).abs() - self.late_dev) * LATE_GAIN;
        if let Some(last) = self.last_tick {
            if tick > last {
                #[allow(clippy::cast_precision_loss)]
                let gap = (tick - last) as f64 * self.tick_ms;
                self.interval += (gap - self.interval) * INTERVAL_GAIN;
                self.interval_dev +=
                    ((gap - self.interval).abs() - self.interval_dev) * INTERVAL_GAIN;
            }
        }
        self.last_tick = Some(self.last_tick.map_or(tick, |l| l.max(tick)));
        let at = self.buf.partition_point(|(t, _)| *t < tick);
        if self.buf.get(at).is_some_and(|(t, _)| *t == tick) {
            return;
        }
        self.buf.insert(at, (tick, snapshot));
        while self.buf.len() > KEEP {
            self.buf.pop_front();
        }
    }

    /// The delay: a long snapshot interval (mean plus two deviations: lost
    /// snapshots make gaps of two or three) plus the lateness of a late
    /// snapshot (mean plus two deviations), between 40 and 250 ms.
    #[must_use]
    pub fn delay(&self) -> Millis {
        let d = self.interval + 2.0 * self.interval_dev + self.late_mean + 2.0 * self.late_dev;
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let ms = d.round().clamp(MIN_DELAY.0 as f64, MAX_DELAY.0 as f64) as u64;
        Millis(ms)
    }

    /// The measured snapshot interval in milliseconds.
    #[must_use]
    pub fn interval_ms(&self) -> f64 {
        self.interval
    }

    /// The host time (in milliseconds of host ticks) shown at `now`.
    #[must_use]
    pub fn render_time(&self, now: Millis) -> Option<f64> {
        #[allow(clippy::cast_precision_loss)]
        self.min_offset
            .map(|m| now.0 as f64 - m - self.delay().0 as f64)
    }

    /// The snapshots to blend at `now`.
    #[must_use]
    pub fn bracket(&self, now: Millis) -> Option<Bracket> {
        let r = self.render_time(now)?;
        let (first, _) = self.buf.front()?;
        let (last, _) = self.buf.back()?;
        #[allow(clippy::cast_precision_loss)]
        let time = |t: u64| t as f64 * self.tick_ms;
        if r >= time(*last) {
            return Some(Bracket {
                from_tick: *last,
                to_tick: *last,
                t: 1.0,
                starved: r > time(*last),
            });
        }
        if r <= time(*first) {
            return Some(Bracket {
                from_tick: *first,
                to_tick: *first,
                t: 0.0,
                starved: false,
            });
        }
        let i = self.buf.partition_point(|(t, _)| time(*t) <= r);
        let (a, _) = self.buf[i - 1];
        let (b, _) = self.buf[i];
        #[allow(clippy::cast_possible_truncation)]
        let t = ((r - time(a)) / (time(b) - time(a))) as f32;
        Some(Bracket {
            from_tick: a,
            to_tick: b,
            t,
            starved: false,
        })
    }

    /// The snapshot of `tick`, if held.
    #[must_use]
    pub fn get(&self, tick: u64) -> Option<&S> {
        let i = self.buf.binary_search_by_key(&tick, |(t, _)| *t).ok()?;
        self.buf.get(i).map(|(_, s)| s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steady_snapshots_give_a_short_delay_and_jitter_a_longer_one() {
        let mut steady = Interpolation::new(33);
        let mut jittery = Interpolation::new(33);
        for i in 0..200u64 {
            let tick = i * 2;
            steady.push(Millis(1000 + tick * 33), tick, ());
            // Up to 60 ms late, pseudo-randomly.
            let late = i * 37 % 61;
            jittery.push(Millis(1000 + tick * 33 + late), tick, ());
        }
        assert_eq!(steady.delay(), Millis(66));
        assert!(jittery.delay() > Millis(110), "{:?}", jittery.delay());
        assert!(jittery.delay() <= MAX_DELAY);
    }

    #[test]
    fn the_render_time_falls_between_two_snapshots() {
        let mut b = Interpolation::new(50);
        for tick in [2u64, 4, 6] {
            b.push(Millis(tick * 50), tick, tick);
        }
        // Delay 100 ms (interval) at 300 ms: render time 200 = tick 4.
        let br = b.bracket(Millis(325)).unwrap();
        assert_eq!((br.from_tick, br.to_tick), (4, 6));
        assert!((br.t - 0.25).abs() < 1e-6);
        assert!(b.bracket(Millis(1000)).unwrap().starved);
        assert_eq!(b.get(4), Some(&4));
    }
}
