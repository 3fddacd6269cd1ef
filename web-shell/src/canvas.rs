//! The game canvas's size: drawn at the screen's real pixel density.
//!
//! The page lays the canvas out in CSS pixels (the full width of the page's
//! column, 16:9). A front end draws in those CSS pixels, so its fixed line
//! widths and minimum font sizes mean the same on every screen; the canvas's
//! backing store holds `device pixel ratio` times as many pixels and the
//! context is scaled by that ratio, so a high-density screen gets sharp
//! lines and text instead of a stretched, blurry picture.
//!
//! What a front end draws is recorded here as a list of canvas calls
//! ([`DrawList`], a [`Painter`]), so the page only executes them one by one
//! and every choice of how a shape becomes canvas calls (the paths, the
//! font string, the clamped opacity, a fill colour set once for a run of
//! shapes) is tested natively.

use crate::front_end::{Align, Painter};
use std::f64::consts::TAU;

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

/// One call on a `CanvasRenderingContext2d`, in the order made.
#[derive(Clone, Debug, PartialEq)]
pub enum DrawOp {
    /// `fillStyle = colour`.
    FillStyle(String),
    /// `strokeStyle`, `lineWidth` and `lineCap` (`"round"` or `"butt"`).
    StrokeStyle {
        /// A CSS colour.
        colour: String,
        /// In CSS pixels.
        width: f64,
        /// The line cap's name.
        cap: &'static str,
    },
    /// `globalAlpha`, within 0 to 1.
    Alpha(f64),
    /// `font` (a CSS font string) and `textAlign`.
    Font {
        /// For example `"bold 14px system-ui, sans-serif"`.
        font: String,
        /// `"left"`, `"center"` or `"right"`.
        align: &'static str,
    },
    /// `fillRect(x, y, w, h)`.
    FillRect(f64, f64, f64, f64),
    /// `fillText(text, x, y)`.
    FillText(f64, f64, String),
    /// `beginPath()`.
    BeginPath,
    /// `moveTo(x, y)`.
    MoveTo(f64, f64),
    /// `lineTo(x, y)`.
    LineTo(f64, f64),
    /// `ellipse(x, y, rx, ry, 0, start, end)`.
    Ellipse {
        /// Centre.
        x: f64,
        /// Centre.
        y: f64,
        /// Horizontal radius.
        rx: f64,
        /// Vertical radius.
        ry: f64,
        /// Start angle (radians).
        start: f64,
        /// End angle (radians).
        end: f64,
    },
    /// `closePath()`.
    ClosePath,
    /// `fill()`.
    Fill,
    /// `stroke()`.
    Stroke,
}

/// One frame of the canvas: how to size it, then the calls to make.
#[derive(Clone, Debug, PartialEq)]
pub struct Drawing {
    /// The canvas's size and scale for this frame.
    pub size: CanvasSize,
    /// The calls, in order, after the context is scaled by `size.scale`.
    pub ops: Vec<DrawOp>,
}

/// A [`Painter`] that records canvas calls. The fill colour is set only
/// when it changes, since a front end draws runs of shapes in one colour.
#[derive(Debug)]
pub struct DrawList {
    size: (f64, f64),
    ops: Vec<DrawOp>,
    fill: Option<String>,
}

impl DrawList {
    /// An empty list for a canvas of `size` CSS pixels.
    #[must_use]
    pub fn new(size: (f64, f64)) -> DrawList {
        DrawList {
            size,
            ops: Vec::new(),
            fill: None,
        }
    }

    /// The calls recorded.
    #[must_use]
    pub fn into_ops(self) -> Vec<DrawOp> {
        self.ops
    }

    fn fill_style(&mut self, colour: &str) {
        if self.fill.as_deref() != Some(colour) {
            self.fill = Some(colour.to_owned());
            self.ops.push(DrawOp::FillStyle(colour.to_owned()));
        }
    }

    fn filled_ellipse(&mut self, x: f64, y: f64, rx: f64, ry: f64, colour: &str) {
        self.fill_style(colour);
        self.ops.push(DrawOp::BeginPath);
        self.ops.push(DrawOp::Ellipse {
            x,
            y,
            rx,
            ry,
            start: 0.0,
            end: TAU,
        });
        self.ops.push(DrawOp::Fill);
    }

    fn stroke(&mut self, colour: &str, width: f64, cap: &'static str) {
        self.ops.push(DrawOp::StrokeStyle {
            colour: colour.to_owned(),
            width,
            cap,
        });
        self.ops.push(DrawOp::BeginPath);
    }
}

impl Painter for DrawList {
    fn size(&self) -> (f64, f64) {
        self.size
    }
    fn clear(&mut self, colour: &str) {
        self.rect(0.0, 0.0, self.size.0, self.size.1, colour);
    }
    fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, colour: &str) {
        self.fill_style(colour);
        self.ops.push(DrawOp::FillRect(x, y, w, h));
    }
    fn circle(&mut self, x: f64, y: f64, r: f64, colour: &str) {
        self.filled_ellipse(x, y, r, r, colour);
    }
    fn text(&mut self, x: f64, y: f64, text: &str, colour: &str) {
        self.fill_style(colour);
        self.ops.push(DrawOp::FillText(x, y, text.to_owned()));
    }
    fn line(&mut self, x0: f64, y0: f64, x1: f64, y1: f64, width: f64, colour: &str) {
        self.stroke(colour, width, "round");
        self.ops.push(DrawOp::MoveTo(x0, y0));
        self.ops.push(DrawOp::LineTo(x1, y1));
        self.ops.push(DrawOp::Stroke);
    }
    fn ellipse(&mut self, x: f64, y: f64, rx: f64, ry: f64, colour: &str) {
        self.filled_ellipse(x, y, rx, ry, colour);
    }
    fn arc(&mut self, x: f64, y: f64, rx: f64, ry: f64, a: f64, b: f64, width: f64, colour: &str) {
        self.stroke(colour, width, "butt");
        self.ops.push(DrawOp::Ellipse {
            x,
            y,
            rx,
            ry,
            start: a,
            end: b,
        });
        self.ops.push(DrawOp::Stroke);
    }
    fn polygon(&mut self, points: &[(f64, f64)], colour: &str) {
        let Some((&(x0, y0), rest)) = points.split_first() else {
            return;
        };
        self.fill_style(colour);
        self.ops.push(DrawOp::BeginPath);
        self.ops.push(DrawOp::MoveTo(x0, y0));
        self.ops
            .extend(rest.iter().map(|&(x, y)| DrawOp::LineTo(x, y)));
        self.ops.push(DrawOp::ClosePath);
        self.ops.push(DrawOp::Fill);
    }
    fn set_alpha(&mut self, alpha: f64) {
        // A canvas ignores a NaN opacity; so does the list.
        if !alpha.is_nan() {
            self.ops.push(DrawOp::Alpha(alpha.clamp(0.0, 1.0)));
        }
    }
    fn set_font(&mut self, size: f64, bold: bool, align: Align) {
        let weight = if bold { "bold " } else { "" };
        let px = if size.is_finite() { size.max(1.0) } else { 1.0 };
        self.ops.push(DrawOp::Font {
            font: format!("{weight}{px:.0}px system-ui, sans-serif"),
            align: match align {
                Align::Left => "left",
                Align::Center => "center",
                Align::Right => "right",
            },
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_become_canvas_calls_with_the_fill_set_once_per_run() {
        let mut d = DrawList::new((320.0, 180.0));
        assert_eq!(d.size(), (320.0, 180.0));
        d.clear("#000");
        d.rect(1.0, 2.0, 3.0, 4.0, "#000");
        d.circle(10.0, 20.0, 5.0, "red");
        d.text(5.0, 6.0, "<b>hi</b>", "red");
        assert_eq!(
            d.into_ops(),
            vec![
                DrawOp::FillStyle("#000".into()),
                DrawOp::FillRect(0.0, 0.0, 320.0, 180.0),
                DrawOp::FillRect(1.0, 2.0, 3.0, 4.0),
                DrawOp::FillStyle("red".into()),
                DrawOp::BeginPath,
                DrawOp::Ellipse {
                    x: 10.0,
                    y: 20.0,
                    rx: 5.0,
                    ry: 5.0,
                    start: 0.0,
                    end: TAU
                },
                DrawOp::Fill,
                DrawOp::FillText(5.0, 6.0, "<b>hi</b>".into()),
            ]
        );
    }

    #[test]
    fn lines_arcs_and_polygons_are_paths() {
        let mut d = DrawList::new((100.0, 100.0));
        d.line(0.0, 0.0, 10.0, 10.0, 2.0, "#fff");
        d.arc(5.0, 5.0, 4.0, 3.0, 0.5, 1.5, 1.0, "#fff");
        d.polygon(&[], "blue");
        d.polygon(&[(0.0, 0.0), (1.0, 0.0), (0.0, 1.0)], "blue");
        let ops = d.into_ops();
        assert_eq!(
            ops[..4],
            [
                DrawOp::StrokeStyle {
                    colour: "#fff".into(),
                    width: 2.0,
                    cap: "round"
                },
                DrawOp::BeginPath,
                DrawOp::MoveTo(0.0, 0.0),
                DrawOp::LineTo(10.0, 10.0),
            ]
        );
        assert_eq!(ops[4], DrawOp::Stroke);
        assert!(matches!(ops[5], DrawOp::StrokeStyle { cap: "butt", .. }));
        assert!(matches!(ops[7], DrawOp::Ellipse { start, end, .. } if start == 0.5 && end == 1.5));
        assert_eq!(ops[8], DrawOp::Stroke);
        // The empty polygon drew nothing; the triangle is one closed path.
        assert_eq!(
            ops[9..],
            [
                DrawOp::FillStyle("blue".into()),
                DrawOp::BeginPath,
                DrawOp::MoveTo(0.0, 0.0),
                DrawOp::LineTo(1.0, 0.0),
                DrawOp::LineTo(0.0, 1.0),
                DrawOp::ClosePath,
                DrawOp::Fill,
            ]
        );
    }

    #[test]
    fn alpha_and_font_are_kept_within_what_a_canvas_takes() {
        let mut d = DrawList::new((100.0, 100.0));
        d.set_alpha(1.7);
        d.set_alpha(-0.2);
        d.set_alpha(f64::NAN);
        d.set_font(13.6, true, Align::Center);
        d.set_font(0.2, false, Align::Right);
        d.set_font(f64::INFINITY, false, Align::Left);
        assert_eq!(
            d.into_ops(),
            vec![
                DrawOp::Alpha(1.0),
                DrawOp::Alpha(0.0),
                DrawOp::Font {
                    font: "bold 14px system-ui, sans-serif".into(),
                    align: "center"
                },
                DrawOp::Font {
                    font: "1px system-ui, sans-serif".into(),
                    align: "right"
                },
                DrawOp::Font {
                    font: "1px system-ui, sans-serif".into(),
                    align: "left"
                },
            ]
        );
    }

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
