//! The page's elements: the shell's [`Patch`]es applied to the DOM, the
//! values of its fields read back, the input log offered for download,
//! and the canvas painter.

use crate::front_end::{Align, Painter};
use crate::shell::page::{Node, Patch};
use crate::shell::view::LogOffer;
use js_sys::Array;
use wasm_bindgen::JsCast;
use web_sys::{
    CanvasRenderingContext2d, Document, Element, HtmlCanvasElement, HtmlElement, HtmlInputElement,
    HtmlSelectElement,
};

/// The document, and the object URLs of the files offered for download.
pub struct Dom {
    pub doc: Document,
    log_url: Option<String>,
    report_url: Option<String>,
}

impl Dom {
    pub fn new(doc: Document) -> Dom {
        Dom {
            doc,
            log_url: None,
            report_url: None,
        }
    }

    pub fn el(&self, id: &str) -> Option<Element> {
        self.doc.get_element_by_id(id)
    }

    /// The value of the `<input>` or `<select>` with this id.
    pub fn input_value(&self, id: &str) -> String {
        self.el(id)
            .and_then(|e| Dom::value_of(&e))
            .unwrap_or_default()
    }

    /// An input's or select's value, else the element's `value` attribute.
    pub fn value_of(e: &Element) -> Option<String> {
        if let Some(i) = e.dyn_ref::<HtmlInputElement>() {
            return Some(i.value());
        }
        if let Some(s) = e.dyn_ref::<HtmlSelectElement>() {
            return Some(s.value());
        }
        e.get_attribute("value")
    }

    /// Carries out one change the shell asked for.
    pub fn apply(&self, patch: &Patch) {
        if let Patch::Title(t) = patch {
            self.doc.set_title(t);
            return;
        }
        let id = match patch {
            Patch::Title(_) => return,
            Patch::Text(id, _)
            | Patch::Shown(id, _)
            | Patch::Attr(id, ..)
            | Patch::Value(id, _)
            | Patch::Children(id, _)
            | Patch::Append(id, ..) => id,
        };
        let Some(e) = self.el(id) else { return };
        match patch {
            Patch::Title(_) => {}
            Patch::Text(_, t) => e.set_text_content(Some(t)),
            Patch::Shown(_, shown) => {
                if let Some(h) = e.dyn_ref::<HtmlElement>() {
                    h.set_hidden(!shown);
                }
            }
            Patch::Attr(_, name, value) => {
                let _ = match value {
                    Some(v) => e.set_attribute(name, v),
                    None => e.remove_attribute(name),
                };
            }
            Patch::Value(_, v) => {
                if let Some(i) = e.dyn_ref::<HtmlInputElement>() {
                    i.set_value(v);
                } else if let Some(s) = e.dyn_ref::<HtmlSelectElement>() {
                    s.set_value(v);
                }
            }
            Patch::Children(_, nodes) => {
                e.set_text_content(None);
                for n in nodes {
                    self.append(&e, n);
                }
            }
            Patch::Append(_, node, keep) => {
                self.append(&e, node);
                while e.child_element_count() > *keep {
                    if let Some(first) = e.first_element_child() {
                        first.remove();
                    }
                }
                if let Some(h) = e.dyn_ref::<HtmlElement>() {
                    h.set_scroll_top(h.scroll_height());
                }
            }
        }
    }

    /// Builds `node` (text as text nodes, never markup) into `parent`.
    fn append(&self, parent: &Element, node: &Node) {
        let built: Option<web_sys::Node> = match node {
            Node::Text(t) => Some(self.doc.create_text_node(t).into()),
            Node::El {
                tag,
                attrs,
                children,
            } => self.doc.create_element(tag).ok().map(|e| {
                for (name, value) in attrs {
                    let _ = e.set_attribute(name, value);
                }
                for c in children {
                    self.append(&e, c);
                }
                e.into()
            }),
        };
        if let Some(b) = built {
            let _ = parent.append_child(&b);
        }
    }

    /// Offers the last match's input log for download on the result screen.
    pub fn offer_log(&mut self, log: Option<&LogOffer>) {
        let old = self.log_url.take();
        self.log_url = self.offer("log-link", old, log, crate::shell::page::log_link);
    }

    /// Offers the last match's desync report for download on the result
    /// screen (or hides the link after any other ending).
    pub fn offer_report(&mut self, report: Option<&LogOffer>) {
        let old = self.report_url.take();
        self.report_url = self.offer("report-link", old, report, crate::shell::page::report_link);
    }

    /// Revokes the `old` object URL of the link `link`, then offers `file`
    /// there through `patches` (or hides the link); the new object URL.
    fn offer(
        &self,
        link: &'static str,
        old: Option<String>,
        file: Option<&LogOffer>,
        patches: fn(&str, &LogOffer) -> Vec<Patch>,
    ) -> Option<String> {
        if let Some(url) = old {
            let _ = web_sys::Url::revoke_object_url(&url);
        }
        let Some(file) = file else {
            self.apply(&Patch::Shown(link, false));
            return None;
        };
        let parts = Array::of1(&js_sys::Uint8Array::from(file.bytes.as_slice()));
        let opts = web_sys::BlobPropertyBag::new();
        opts.set_type("application/octet-stream");
        let url = web_sys::Blob::new_with_u8_array_sequence_and_options(&parts, &opts)
            .and_then(|b| web_sys::Url::create_object_url_with_blob(&b));
        let Ok(url) = url else {
            log::warn!("could not offer a file for download on {link}");
            self.apply(&Patch::Shown(link, false));
            return None;
        };
        for p in patches(&url, file) {
            self.apply(&p);
        }
        Some(url)
    }

    /// The canvas sized for this frame (sharp on high-density screens: a
    /// backing store of device pixels, the context scaled so the front end
    /// draws in CSS pixels), as a painter.
    pub fn painter(&self) -> Option<CanvasPainter> {
        let canvas = self.el("canvas")?.dyn_into::<HtmlCanvasElement>().ok()?;
        let ctx = canvas
            .get_context("2d")
            .ok()
            .flatten()?
            .dyn_into::<CanvasRenderingContext2d>()
            .ok()?;
        let ratio = web_sys::window().map_or(1.0, |w| w.device_pixel_ratio());
        let size = crate::canvas::canvas_size(f64::from(canvas.client_width()), ratio);
        if (canvas.width(), canvas.height()) != size.backing {
            canvas.set_width(size.backing.0);
            canvas.set_height(size.backing.1);
        }
        let _ = ctx.set_transform(size.scale, 0.0, 0.0, size.scale, 0.0, 0.0);
        Some(CanvasPainter {
            ctx,
            w: size.css.0,
            h: size.css.1,
        })
    }
}

/// [`Painter`] over a 2D canvas context.
pub struct CanvasPainter {
    ctx: CanvasRenderingContext2d,
    w: f64,
    h: f64,
}

impl Painter for CanvasPainter {
    fn size(&self) -> (f64, f64) {
        (self.w, self.h)
    }
    fn clear(&mut self, colour: &str) {
        self.rect(0.0, 0.0, self.w, self.h, colour);
    }
    fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, colour: &str) {
        self.ctx.set_fill_style_str(colour);
        self.ctx.fill_rect(x, y, w, h);
    }
    fn circle(&mut self, x: f64, y: f64, r: f64, colour: &str) {
        self.ctx.set_fill_style_str(colour);
        self.ctx.begin_path();
        let _ = self.ctx.arc(x, y, r, 0.0, std::f64::consts::TAU);
        self.ctx.fill();
    }
    fn text(&mut self, x: f64, y: f64, text: &str, colour: &str) {
        self.ctx.set_fill_style_str(colour);
        let _ = self.ctx.fill_text(text, x, y);
    }
    fn line(&mut self, x0: f64, y0: f64, x1: f64, y1: f64, width: f64, colour: &str) {
        self.stroke_style(colour, width, "round");
        self.ctx.move_to(x0, y0);
        self.ctx.line_to(x1, y1);
        self.ctx.stroke();
    }
    fn ellipse(&mut self, x: f64, y: f64, rx: f64, ry: f64, colour: &str) {
        self.ctx.set_fill_style_str(colour);
        self.ctx.begin_path();
        let _ = self
            .ctx
            .ellipse(x, y, rx, ry, 0.0, 0.0, std::f64::consts::TAU);
        self.ctx.fill();
    }
    fn arc(&mut self, x: f64, y: f64, rx: f64, ry: f64, a: f64, b: f64, width: f64, colour: &str) {
        self.stroke_style(colour, width, "butt");
        let _ = self.ctx.ellipse(x, y, rx, ry, 0.0, a, b);
        self.ctx.stroke();
    }
    fn polygon(&mut self, points: &[(f64, f64)], colour: &str) {
        let Some(&(x0, y0)) = points.first() else {
            return;
        };
        self.ctx.set_fill_style_str(colour);
        self.ctx.begin_path();
        self.ctx.move_to(x0, y0);
        for &(x, y) in &points[1..] {
            self.ctx.line_to(x, y);
        }
        self.ctx.close_path();
        self.ctx.fill();
    }
    fn set_alpha(&mut self, alpha: f64) {
        self.ctx.set_global_alpha(alpha.clamp(0.0, 1.0));
    }
    fn set_font(&mut self, size: f64, bold: bool, align: Align) {
        let weight = if bold { "bold " } else { "" };
        self.ctx.set_font(&format!(
            "{weight}{:.0}px system-ui, sans-serif",
            size.max(1.0)
        ));
        self.ctx.set_text_align(match align {
            Align::Left => "left",
            Align::Center => "center",
            Align::Right => "right",
        });
    }
}

impl CanvasPainter {
    fn stroke_style(&self, colour: &str, width: f64, cap: &str) {
        self.ctx.set_stroke_style_str(colour);
        self.ctx.set_line_width(width);
        self.ctx.set_line_cap(cap);
        self.ctx.begin_path();
    }
}
