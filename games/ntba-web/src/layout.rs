//! Where things go on the canvas: a slanted view of the court from above
//! and in front, fitted to the canvas between the scoreboard and the help
//! line.
//!
//! Court x runs left to right on screen, court y runs from the far sideline
//! (top) to the near one (bottom) foreshortened to [`DEPTH`] of its length,
//! and height lifts things straight up by [`RISE`] of theirs.

use ntba::{COURT_LENGTH, COURT_WIDTH, UNITS_PER_METER};

/// Screen pixels per metre across the court, per pixel per metre along it.
pub const DEPTH: f64 = 0.68;
/// Screen pixels per metre of height, per pixel per metre along the court.
pub const RISE: f64 = 0.8;
/// Height of the scoreboard band, as a share of the canvas height.
pub const TOP_BAND: f64 = 0.12;
/// Height of the help band at the bottom, as a share of the canvas height.
pub const BOTTOM_BAND: f64 = 0.085;

/// The mapping from court units to canvas pixels for one canvas size.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Layout {
    /// Canvas width in pixels.
    pub w: f64,
    /// Canvas height in pixels.
    pub h: f64,
    /// Pixels per metre along the court.
    pub scale: f64,
    /// Canvas x of the left baseline.
    pub left: f64,
    /// Canvas y of the far (top) sideline.
    pub top: f64,
}

fn metres(units: i32) -> f64 {
    f64::from(units) / f64::from(UNITS_PER_METER)
}

impl Layout {
    /// Fits the court to a `w` x `h` canvas.
    #[must_use]
    pub fn new(w: f64, h: f64) -> Layout {
        let (w, h) = (w.max(64.0), h.max(48.0));
        let length = metres(COURT_LENGTH);
        let width = metres(COURT_WIDTH);
        let band_top = h * TOP_BAND;
        let room = h * (1.0 - TOP_BAND - BOTTOM_BAND);
        // Head room above the far sideline for players (about 2 m tall)
        // and a little margin below the near one.
        let head = 2.0 * RISE;
        let by_width = w * 0.92 / length;
        let by_height = room / (width * DEPTH + head + 0.4);
        let scale = by_width.min(by_height);
        let court_h = width * DEPTH * scale;
        let left = (w - length * scale) / 2.0;
        let spare = room - court_h - (head + 0.4) * scale;
        let top = band_top + head * scale + spare.max(0.0) / 2.0;
        Layout {
            w,
            h,
            scale,
            left,
            top,
        }
    }

    /// The canvas point of a floor position (court units).
    #[must_use]
    pub fn floor(&self, x: i32, y: i32) -> (f64, f64) {
        self.at(x, y, 0)
    }

    /// The canvas point of a position `z` units above the floor.
    #[must_use]
    pub fn at(&self, x: i32, y: i32, z: i32) -> (f64, f64) {
        self.at_m(metres(x), metres(y), metres(z))
    }

    /// The canvas point of a position in metres.
    #[must_use]
    pub fn at_m(&self, x: f64, y: f64, z: f64) -> (f64, f64) {
        (
            self.left + x * self.scale,
            self.top + (y * DEPTH - z * RISE) * self.scale,
        )
    }

    /// Pixels for a length in metres along the court (x).
    #[must_use]
    pub fn px(&self, m: f64) -> f64 {
        m * self.scale
    }

    /// Pixels for a length in metres across the court (y, foreshortened).
    #[must_use]
    pub fn py(&self, m: f64) -> f64 {
        m * self.scale * DEPTH
    }

    /// Pixels for a height in metres.
    #[must_use]
    pub fn pz(&self, m: f64) -> f64 {
        m * self.scale * RISE
    }

    /// The canvas y of the top of the help band.
    #[must_use]
    pub fn help_top(&self) -> f64 {
        self.h * (1.0 - BOTTOM_BAND)
    }

    /// The canvas y of the bottom of the scoreboard band.
    #[must_use]
    pub fn band_bottom(&self) -> f64 {
        self.h * TOP_BAND
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn court_fits_between_the_bands() {
        for (w, h) in [
            (640.0, 360.0),
            (1280.0, 720.0),
            (800.0, 600.0),
            (320.0, 480.0),
        ] {
            let l = Layout::new(w, h);
            let (x0, y0) = l.floor(0, 0);
            let (x1, y1) = l.floor(COURT_LENGTH, COURT_WIDTH);
            assert!(x0 >= 0.0 && x1 <= w, "{w}x{h}: x {x0}..{x1}");
            // Heads of players on the far sideline stay below the band.
            let (_, head) = l.at_m(0.0, 0.0, 2.0);
            assert!(head >= l.band_bottom() - 0.5, "{w}x{h}: head {head}");
            assert!(y1 <= l.help_top(), "{w}x{h}: near line {y1}");
            assert!(y0 < y1 && x0 < x1);
        }
    }

    #[test]
    fn height_lifts_straight_up() {
        let l = Layout::new(640.0, 360.0);
        let (fx, fy) = l.floor(UNITS_PER_METER * 5, UNITS_PER_METER * 3);
        let (ax, ay) = l.at(UNITS_PER_METER * 5, UNITS_PER_METER * 3, UNITS_PER_METER);
        assert_eq!(fx, ax);
        assert!((fy - ay - l.pz(1.0)).abs() < 1e-9);
    }
}
