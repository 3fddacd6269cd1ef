//! The game canvas's size: drawn at the screen's real pixel density.
//!
//! The page lays the canvas out in CSS pixels (the full width of the page's
//! column, 16:9). A front end draws in those CSS pixels, so its fixed line
//! widths and minimum font sizes mean the same on every screen; the canvas's
//! backing store holds `device pixel ratio` times as many pixels and the
//! context is scaled by that ratio, so a high-density screen gets sharp
//! lines and text instead of a stretched, blurry picture.

/// Width over height of the game canvas: 16:9.
pub const ASPECT: (f64, f64) = (16.0, 9.0);
/// CSS width used before the canvas has been laid out (its `width`
/// attribute in `index.html`).
pub const DEFAULT_CSS_WIDTH: f64 = 640.0;
/// The largest pixel ratio honoured (beyond it the backing store only
/// costs memory and fill time).
pub const MAX_PIXEL_RATIO: f64 = 3.0;

/// How to size and scale the canvas for one frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CanvasSize {
    /// The size the front end draws at, in CSS pixels.
    pub css: (f64, f64),
    /// The backing store's size in device pixels (`canvas.width`,
    /// `canvas.height`).
    pub backing: (u32, u32),
    /// The context's scale: device pixels per CSS pixel.
    pub scale: f64,
}

/// The canvas size for a laid-out CSS width and the window's
/// `devicePixelRatio`. A width of 0 (not laid out yet), a ratio that is not
/// a positive finite number, or absurd values fall back to sane ones.
#[must_use]
pub fn canvas_size(css_width: f64, pixel_ratio: f64) -> CanvasSize {
    let w = if css_width.is_finite() && css_width >= 1.0 {
        css_width.min(8192.0)
    } else {
        DEFAULT_CSS_WIDTH
    };
    let scale = if pixel_ratio.is_finite() && pixel_ratio > 0.0 {
        pixel_ratio.clamp(1.0, MAX_PIXEL_RATIO)
    } else {
        1.0
    };
    let h = (w * ASPECT.1 / ASPECT.0).round();
    // At most 8192 * 3 = 24,576: fits u32 with room to spare.
    let backing = ((w * scale).round() as u32, (h * scale).round() as u32);
    CanvasSize {
        css: (w, h),
        backing,
        scale,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plain_screen_draws_one_to_one() {
        let s = canvas_size(640.0, 1.0);
        assert_eq!(s.css, (640.0, 360.0));
        assert_eq!(s.backing, (640, 360));
        assert_eq!(s.scale, 1.0);
    }

    #[test]
    fn a_dense_screen_gets_more_pixels_in_the_same_layout() {
        let s = canvas_size(728.0, 2.0);
        assert_eq!(s.css, (728.0, 410.0));
        assert_eq!(s.backing, (1456, 820));
        assert_eq!(s.scale, 2.0);
        let s = canvas_size(390.0, 2.625);
        assert_eq!(s.css, (390.0, 219.0));
        assert_eq!(s.backing, (1024, 575));
    }

    #[test]
    fn odd_values_fall_back() {
        assert_eq!(canvas_size(0.0, 2.0).css, (DEFAULT_CSS_WIDTH, 360.0));
        assert_eq!(canvas_size(f64::NAN, f64::NAN), canvas_size(640.0, 1.0));
        assert_eq!(canvas_size(640.0, 0.5).scale, 1.0, "never below one");
        assert_eq!(canvas_size(640.0, 10.0).scale, MAX_PIXEL_RATIO);
        assert_eq!(canvas_size(1e12, 1.0).backing.0, 8192);
    }
}
