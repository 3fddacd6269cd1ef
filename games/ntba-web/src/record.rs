//! A [`Painter`] that records what is drawn, for tests (and for anyone who
//! wants to check a frame without a browser).

use web_shell::front_end::{Align, Painter};

/// One recorded drawing operation, with the opacity in force.
#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    /// `clear(colour)`.
    Clear(String),
    /// `rect(x, y, w, h, colour)`.
    Rect {
        /// Left.
        x: f64,
        /// Top.
        y: f64,
        /// Width.
        w: f64,
        /// Height.
        h: f64,
        /// Fill.
        colour: String,
        /// Opacity.
        alpha: f64,
    },
    /// `circle` or `ellipse` (a circle has `rx == ry`).
    Ellipse {
        /// Centre x.
        x: f64,
        /// Centre y.
        y: f64,
        /// Horizontal radius.
        rx: f64,
        /// Vertical radius.
        ry: f64,
        /// Fill.
        colour: String,
        /// Opacity.
        alpha: f64,
    },
    /// `line`.
    Line {
        /// Start point.
        from: (f64, f64),
        /// End point.
        to: (f64, f64),
        /// Stroke width.
        width: f64,
        /// Stroke colour.
        colour: String,
        /// Opacity.
        alpha: f64,
    },
    /// `arc` (a stroked part of an ellipse).
    Arc {
        /// Centre x.
        x: f64,
        /// Centre y.
        y: f64,
        /// Horizontal radius.
        rx: f64,
        /// Vertical radius.
        ry: f64,
        /// Start angle (radians, clockwise from +x).
        start: f64,
        /// End angle.
        end: f64,
        /// Stroke width.
        width: f64,
        /// Stroke colour.
        colour: String,
        /// Opacity.
        alpha: f64,
    },
    /// `polygon`.
    Polygon {
        /// The corners.
        points: Vec<(f64, f64)>,
        /// Fill.
        colour: String,
        /// Opacity.
        alpha: f64,
    },
    /// `text`, with the font in force.
    Text {
        /// Anchor x.
        x: f64,
        /// Baseline y.
        y: f64,
        /// The text.
        text: String,
        /// Fill.
        colour: String,
        /// Opacity.
        alpha: f64,
        /// Size in pixels.
        size: f64,
        /// Anchoring.
        align: Align,
    },
}

/// Records every call; `size` is what it reports as the canvas size.
#[derive(Debug, Clone)]
pub struct Recorder {
    /// The canvas size it reports.
    pub size: (f64, f64),
    /// Everything drawn, in order.
    pub ops: Vec<Op>,
    alpha: f64,
    font: (f64, Align),
}

impl Recorder {
    /// A recorder reporting a `w` x `h` canvas.
    #[must_use]
    pub fn new(w: f64, h: f64) -> Recorder {
        Recorder {
            size: (w, h),
            ops: Vec::new(),
            alpha: 1.0,
            font: (10.0, Align::Left),
        }
    }

    /// Every text drawn, in order.
    pub fn texts(&self) -> impl Iterator<Item = &str> {
        self.ops.iter().filter_map(|o| match o {
            Op::Text { text, .. } => Some(text.as_str()),
            _ => None,
        })
    }

    /// The text operations whose text is exactly `s`.
    pub fn text_ops<'a>(&'a self, s: &'a str) -> impl Iterator<Item = &'a Op> + 'a {
        self.ops
            .iter()
            .filter(move |o| matches!(o, Op::Text { text, .. } if text == s))
    }

    /// Whether some text equal to `s` was drawn with an opacity above zero.
    #[must_use]
    pub fn shows(&self, s: &str) -> bool {
        self.text_ops(s)
            .any(|o| matches!(o, Op::Text { alpha, .. } if *alpha > 0.0))
    }
}

impl Recorder {
    /// The recorded frame as an SVG document (fonts approximate the
    /// canvas's), for looking at a frame without a browser.
    #[must_use]
    pub fn to_svg(&self) -> String {
        let (w, h) = self.size;
        let mut out = format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" \
             viewBox=\"0 0 {w} {h}\" font-family=\"sans-serif\">\n"
        );
        for op in &self.ops {
            let line = match op {
                Op::Clear(c) => {
                    format!("<rect width=\"{w}\" height=\"{h}\" fill=\"{c}\"/>")
                }
                Op::Rect {
                    x,
                    y,
                    w,
                    h,
                    colour,
                    alpha,
                } => format!(
                    "<rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{w:.1}\" height=\"{h:.1}\" \
                     fill=\"{colour}\" opacity=\"{alpha:.2}\"/>"
                ),
                Op::Ellipse {
                    x,
                    y,
                    rx,
                    ry,
                    colour,
                    alpha,
                } => format!(
                    "<ellipse cx=\"{x:.1}\" cy=\"{y:.1}\" rx=\"{rx:.1}\" ry=\"{ry:.1}\" \
                     fill=\"{colour}\" opacity=\"{alpha:.2}\"/>"
                ),
                Op::Line {
                    from,
                    to,
                    width,
                    colour,
                    alpha,
                } => format!(
                    "<line x1=\"{:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" \
                     stroke=\"{colour}\" stroke-width=\"{width:.1}\" \
                     stroke-linecap=\"round\" opacity=\"{alpha:.2}\"/>",
                    from.0, from.1, to.0, to.1
                ),
                Op::Arc {
                    x,
                    y,
                    rx,
                    ry,
                    start,
                    end,
                    width,
                    colour,
                    alpha,
                } => {
                    // A polyline is simpler than SVG's arc flags.
                    let n = 48;
                    let pts: Vec<String> = (0..=n)
                        .map(|i| {
                            let a = start + (end - start) * f64::from(i) / f64::from(n);
                            format!("{:.1},{:.1}", x + rx * a.cos(), y + ry * a.sin())
                        })
                        .collect();
                    format!(
                        "<polyline points=\"{}\" fill=\"none\" stroke=\"{colour}\" \
                         stroke-width=\"{width:.1}\" opacity=\"{alpha:.2}\"/>",
                        pts.join(" ")
                    )
                }
                Op::Polygon {
                    points,
                    colour,
                    alpha,
                } => {
                    let pts: Vec<String> = points
                        .iter()
                        .map(|(x, y)| format!("{x:.1},{y:.1}"))
                        .collect();
                    format!(
                        "<polygon points=\"{}\" fill=\"{colour}\" opacity=\"{alpha:.2}\"/>",
                        pts.join(" ")
                    )
                }
                Op::Text {
                    x,
                    y,
                    text,
                    colour,
                    alpha,
                    size,
                    align,
                } => {
                    let anchor = match align {
                        Align::Left => "start",
                        Align::Center => "middle",
                        Align::Right => "end",
                    };
                    let text = text
                        .replace('&', "&amp;")
                        .replace('<', "&lt;")
                        .replace('>', "&gt;");
                    format!(
                        "<text x=\"{x:.1}\" y=\"{y:.1}\" font-size=\"{size:.1}\" \
                         font-weight=\"bold\" text-anchor=\"{anchor}\" fill=\"{colour}\" \
                         opacity=\"{alpha:.2}\">{text}</text>"
                    )
                }
            };
            out.push_str(&line);
            out.push('\n');
        }
        out.push_str("</svg>\n");
        out
    }
}

impl Painter for Recorder {
    fn size(&self) -> (f64, f64) {
        self.size
    }
    fn clear(&mut self, colour: &str) {
        self.ops.push(Op::Clear(colour.to_owned()));
    }
    fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, colour: &str) {
        self.ops.push(Op::Rect {
            x,
            y,
            w,
            h,
            colour: colour.to_owned(),
            alpha: self.alpha,
        });
    }
    fn circle(&mut self, x: f64, y: f64, r: f64, colour: &str) {
        self.ellipse(x, y, r, r, colour);
    }
    fn text(&mut self, x: f64, y: f64, text: &str, colour: &str) {
        self.ops.push(Op::Text {
            x,
            y,
            text: text.to_owned(),
            colour: colour.to_owned(),
            alpha: self.alpha,
            size: self.font.0,
            align: self.font.1,
        });
    }
    fn line(&mut self, x0: f64, y0: f64, x1: f64, y1: f64, width: f64, colour: &str) {
        self.ops.push(Op::Line {
            from: (x0, y0),
            to: (x1, y1),
            width,
            colour: colour.to_owned(),
            alpha: self.alpha,
        });
    }
    fn ellipse(&mut self, x: f64, y: f64, rx: f64, ry: f64, colour: &str) {
        self.ops.push(Op::Ellipse {
            x,
            y,
            rx,
            ry,
            colour: colour.to_owned(),
            alpha: self.alpha,
        });
    }
    fn arc(
        &mut self,
        x: f64,
        y: f64,
        rx: f64,
        ry: f64,
        start: f64,
        end: f64,
        width: f64,
        colour: &str,
    ) {
        self.ops.push(Op::Arc {
            x,
            y,
            rx,
            ry,
            start,
            end,
            width,
            colour: colour.to_owned(),
            alpha: self.alpha,
        });
    }
    fn polygon(&mut self, points: &[(f64, f64)], colour: &str) {
        self.ops.push(Op::Polygon {
            points: points.to_vec(),
            colour: colour.to_owned(),
            alpha: self.alpha,
        });
    }
    fn set_alpha(&mut self, alpha: f64) {
        self.alpha = alpha;
    }
    fn set_font(&mut self, size: f64, _bold: bool, align: Align) {
        self.font = (size, align);
    }
}
