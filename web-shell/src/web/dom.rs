//! The page's elements: the shell's [`Patch`]es applied to the DOM, the
//! values of its fields read back, the input log offered for download,
//! and the canvas's draw calls carried out.

use crate::canvas::{DrawOp, Drawing};
use crate::shell::page::{Node, Patch};
use crate::shell::view::LogOffer;
use crate::shell::FileLink;
use js_sys::Array;
use std::collections::BTreeMap;
use wasm_bindgen::JsCast;
use web_sys::{
    CanvasRenderingContext2d, Document, Element, HtmlCanvasElement, HtmlElement, HtmlInputElement,
    HtmlSelectElement,
};

/// The document, and the object URLs of the files offered for download.
pub struct Dom {
    pub doc: Document,
    urls: BTreeMap<FileLink, String>,
}

impl Dom {
    pub fn new(doc: Document) -> Dom {
        Dom {
            doc,
            urls: BTreeMap::new(),
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
        let target = patch.target();
        let Some(e) = target.map_or(self.doc.document_element(), |id| self.el(id)) else {
            return;
        };
        match patch {
            Patch::Title(t) => self.doc.set_title(t),
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

    /// Offers `file` for download at `link` (an object URL of its bytes as
    /// the link's `href`), revoking the link's last URL; with no file, only
    /// revokes. `false` if the browser made no URL.
    pub fn offer(&mut self, link: FileLink, file: Option<&LogOffer>) -> bool {
        if let Some(url) = self.urls.remove(&link) {
            let _ = web_sys::Url::revoke_object_url(&url);
        }
        let Some(file) = file else { return true };
        let parts = Array::of1(&js_sys::Uint8Array::from(file.bytes.as_slice()));
        let opts = web_sys::BlobPropertyBag::new();
        opts.set_type("application/octet-stream");
        let url = web_sys::Blob::new_with_u8_array_sequence_and_options(&parts, &opts)
            .and_then(|b| web_sys::Url::create_object_url_with_blob(&b));
        let Ok(url) = url else { return false };
        self.apply(&Patch::Attr(link.id(), "href", Some(url.clone())));
        self.urls.insert(link, url);
        true
    }

    /// Asks the browser to show the canvas full screen.
    pub fn full_screen(&self) {
        if let Some(Err(_)) = self.el("canvas").map(|c| c.request_fullscreen()) {
            log::info!("full screen was refused");
        }
    }

    /// Draws on the game canvas the calls `drawing` makes for its laid-out
    /// width in CSS pixels and the screen's pixel ratio: sizes the backing
    /// store and scales the context as they say, then makes them.
    pub fn paint(&self, drawing: impl FnOnce(f64, f64) -> Drawing) {
        let Some(el) = self
            .el("canvas")
            .and_then(|e| e.dyn_into::<HtmlCanvasElement>().ok())
        else {
            return;
        };
        let ctx = el.get_context("2d").ok().flatten();
        let Some(c) = ctx.and_then(|c| c.dyn_into::<CanvasRenderingContext2d>().ok()) else {
            return;
        };
        let ratio = web_sys::window().map_or(1.0, |w| w.device_pixel_ratio());
        let d = drawing(f64::from(el.client_width()), ratio);
        let s = d.size.scale;
        if (el.width(), el.height()) != d.size.backing {
            el.set_width(d.size.backing.0);
            el.set_height(d.size.backing.1);
        }
        let _ = c.set_transform(s, 0.0, 0.0, s, 0.0, 0.0);
        for op in &d.ops {
            match op {
                DrawOp::FillStyle(colour) => c.set_fill_style_str(colour),
                DrawOp::StrokeStyle { colour, width, cap } => {
                    c.set_stroke_style_str(colour);
                    c.set_line_width(*width);
                    c.set_line_cap(cap);
                }
                DrawOp::Alpha(a) => c.set_global_alpha(*a),
                DrawOp::Font { font, align } => {
                    c.set_font(font);
                    c.set_text_align(align);
                }
                DrawOp::FillRect(x, y, w, h) => c.fill_rect(*x, *y, *w, *h),
                DrawOp::FillText(x, y, t) => drop(c.fill_text(t, *x, *y)),
                DrawOp::BeginPath => c.begin_path(),
                DrawOp::MoveTo(x, y) => c.move_to(*x, *y),
                DrawOp::LineTo(x, y) => c.line_to(*x, *y),
                &DrawOp::Ellipse {
                    x,
                    y,
                    rx,
                    ry,
                    start,
                    end,
                } => drop(c.ellipse(x, y, rx, ry, 0.0, start, end)),
                DrawOp::ClosePath => c.close_path(),
                DrawOp::Fill => c.fill(),
                DrawOp::Stroke => c.stroke(),
            }
        }
    }
}
