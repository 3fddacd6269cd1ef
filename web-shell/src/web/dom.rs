//! The page's elements: small DOM helpers, the canvas painter, and the
//! shell's views written to the DOM (each in one place).

use crate::front_end::{Align, LocalOption, Painter};
use crate::id::PeerId;
use crate::lobby::{NoticePart, PlayerView};
use crate::screens::Screen;
use crate::shell::view::{
    roster_items, status_text, LobbyView, LocalView, LogOffer, MatchView, NoticeView, ReplayView,
    RosterItem, ScreenView,
};
use js_sys::Array;
use wasm_bindgen::JsCast;
use web_sys::{
    CanvasRenderingContext2d, Document, Element, HtmlCanvasElement, HtmlElement, HtmlInputElement,
};

/// The document, and what was last drawn where redrawing costs.
pub struct Dom {
    pub doc: Document,
    last_roster: Vec<PlayerView>,
    last_notices: Vec<(Vec<NoticePart>, Option<PeerId>)>,
    last_marks: Vec<(u32, String)>,
    log_url: Option<String>,
}

impl Dom {
    pub fn new(doc: Document) -> Dom {
        Dom {
            doc,
            last_roster: Vec::new(),
            last_notices: Vec::new(),
            last_marks: Vec::new(),
            log_url: None,
        }
    }

    pub fn el(&self, id: &str) -> Option<Element> {
        self.doc.get_element_by_id(id)
    }

    pub fn set_text(&self, id: &str, text: &str) {
        if let Some(e) = self.el(id) {
            e.set_text_content(Some(text));
        }
    }

    pub fn show(&self, id: &str, shown: bool) {
        if let Some(e) = self.el(id).and_then(|e| e.dyn_into::<HtmlElement>().ok()) {
            e.set_hidden(!shown);
        }
    }

    /// The value of an `<input>` or `<select>`.
    pub fn input_value(&self, id: &str) -> String {
        let Some(e) = self.el(id) else {
            return String::new();
        };
        if let Some(s) = e.dyn_ref::<web_sys::HtmlSelectElement>() {
            return s.value();
        }
        e.dyn_into::<HtmlInputElement>()
            .map(|i| i.value())
            .unwrap_or_default()
    }

    pub fn set_input_value(&self, id: &str, v: &str) {
        if let Some(i) = self
            .el(id)
            .and_then(|e| e.dyn_into::<HtmlInputElement>().ok())
        {
            i.set_value(v);
        }
    }

    pub fn set_select(&self, id: &str, v: &str) {
        if let Some(s) = self
            .el(id)
            .and_then(|e| e.dyn_into::<web_sys::HtmlSelectElement>().ok())
        {
            s.set_value(v);
        }
    }

    /// Sets an attribute, or removes it for `None`.
    pub fn set_attr(&self, id: &str, name: &str, value: Option<&str>) {
        if let Some(e) = self.el(id) {
            let _ = match value {
                Some(v) => e.set_attribute(name, v),
                None => e.remove_attribute(name),
            };
        }
    }

    /// Creates `<tag>` holding `text` as a text node (never markup).
    fn make(&self, tag: &str, class: &str, text: &str) -> Option<Element> {
        let e = self.doc.create_element(tag).ok()?;
        if !class.is_empty() {
            e.set_class_name(class);
        }
        if !text.is_empty() {
            e.set_text_content(Some(text));
        }
        Some(e)
    }

    /// `name#ABC` as `<tag class><bdi>name</bdi>#ABC</tag>`: the name is
    /// isolated, so a right-to-left name cannot pull the `#ABC` tag to its
    /// other side. All text nodes, never markup.
    fn display_name(&self, tag: &str, class: &str, display: &str) -> Option<Element> {
        let (nick, id_tag) = display.rsplit_once('#').unwrap_or((display, ""));
        let e = self.make(tag, class, "")?;
        let bdi = self.make("bdi", "", nick)?;
        let _ = e.append_child(&bdi);
        let _ = e.append_child(&self.doc.create_text_node(&format!("#{id_tag}")));
        Some(e)
    }

    fn button(&self, label: &str, action: &str, id: &PeerId, enabled: bool) -> Option<Element> {
        let b = self.make("button", action, label)?;
        let _ = b.set_attribute("data-action", action);
        let _ = b.set_attribute("data-id", id.as_str());
        if !enabled {
            let _ = b.set_attribute("disabled", "");
        }
        Some(b)
    }

    // ----- the views ---------------------------------------------------------

    pub fn render_screen(&self, v: &ScreenView) {
        for (id, shown) in v.shown() {
            self.show(id, shown);
        }
        if let Screen::Result { message, .. } = &v.screen {
            self.set_text("result-text", message);
        }
        self.set_text("online-note", v.online_note.unwrap_or(""));
        self.set_text("name-error", &v.name_error);
        self.set_text("chat-error", v.chat_error);
        self.set_text("replay-error", v.replay_error.as_deref().unwrap_or(""));
        self.show("replay-error", v.replay_error.is_some());
    }

    pub fn render_replay(&mut self, v: Option<&ReplayView>) {
        let Some(v) = v else { return };
        for (name, value) in v.attributes() {
            self.set_attr("replay", name, Some(&value));
        }
        self.set_text("replay-play", v.play_label());
        self.set_text("replay-time", &v.time_text());
        self.set_attr("replay-seek", "max", Some(&v.ticks.to_string()));
        self.set_input_value("replay-seek", &v.tick.to_string());
        self.set_select("replay-speed", &v.speed.to_string());
        if v.marks == self.last_marks {
            return;
        }
        let Some(list) = self.el("replay-marks") else {
            return;
        };
        list.set_text_content(None);
        for (tick, label) in &v.marks {
            if let Some(b) = self.make("button", "mark", label) {
                let _ = b.set_attribute("data-control", "replay-mark");
                let _ = b.set_attribute("value", &tick.to_string());
                let _ = list.append_child(&b);
            }
        }
        self.last_marks.clone_from(&v.marks);
    }

    pub fn render_local(&self, v: &LocalView) {
        let result = v.result.as_deref();
        self.set_text("local-status", result.unwrap_or(""));
        self.set_attr("local", "data-result", Some(result.unwrap_or("")));
        if let Some(s) = &v.summary {
            self.set_attr("local", "data-summary", Some(s));
        }
    }

    pub fn render_match(&self, v: &MatchView) {
        for (name, value) in v.attributes() {
            self.set_attr("match", name, value.as_deref());
        }
        self.show("match-waiting", v.waiting);
        self.set_text("match-status", &v.status);
    }

    pub fn render_lobby(&mut self, v: Option<&LobbyView>) {
        let Some(v) = v else { return };
        let conn = v.connection;
        self.show("banner", conn.banner().is_some());
        self.set_text("banner-text", conn.banner().unwrap_or(""));
        self.show("retry", conn.retry_shown());
        self.set_attr("lobby", "data-connection", Some(v.connection_attr()));
        if let (Some(me), Some(name)) = (self.el("me"), self.display_name("span", "", &v.me)) {
            me.set_text_content(Some("You are "));
            let _ = me.append_child(&name);
        }
        self.render_notices(&v.notices);
        self.render_roster(&v.roster);
    }

    fn render_notices(&mut self, notices: &[NoticeView]) {
        let shown: Vec<(Vec<NoticePart>, Option<PeerId>)> = notices
            .iter()
            .map(|n| (n.notice.parts(), n.try_again.clone()))
            .collect();
        if shown == self.last_notices {
            return;
        }
        let Some(box_) = self.el("notices") else {
            return;
        };
        box_.set_text_content(None);
        for (parts, try_again) in &shown {
            let Some(p) = self.make("p", "notice", "") else {
                continue;
            };
            let _ = p.set_attribute("dir", "auto");
            // Our words as text nodes; a player's name as the roster shows
            // it and the service's words in a `<bdi>`, so text from others
            // cannot reorder the sentence around it.
            for part in parts {
                let node: Option<web_sys::Node> = match part {
                    NoticePart::Text(t) => Some(self.doc.create_text_node(t).into()),
                    NoticePart::Name(n) => self.display_name("span", "name", n).map(Into::into),
                    NoticePart::Isolated(t) => self.make("bdi", "", t).map(Into::into),
                };
                if let Some(node) = node {
                    let _ = p.append_child(&node);
                }
            }
            if let Some(b) = try_again
                .as_ref()
                .and_then(|id| self.button("Try again", "challenge", id, true))
            {
                let _ = b.set_attribute("class", "try-again");
                let _ = p.append_child(&self.doc.create_text_node(" "));
                let _ = p.append_child(&b);
            }
            let _ = box_.append_child(&p);
        }
        self.last_notices = shown;
    }

    fn render_roster(&mut self, roster: &[PlayerView]) {
        let Some(list) = self.el("roster") else {
            return;
        };
        // Rebuild only on a real change, so buttons are not replaced under the pointer.
        if roster == self.last_roster && list.child_element_count() as usize == roster.len() {
            return;
        }
        list.set_text_content(None);
        for p in roster {
            let Some(li) = self.make("li", "player", "") else {
                continue;
            };
            let _ = li.set_attribute("data-id", p.id.as_str());
            let _ = li.set_attribute("data-status", status_text(p.status));
            let _ = li.set_attribute("data-link", p.link);
            let name = self.display_name("span", "name", &p.display);
            let items = roster_items(p).into_iter().map(|item| match item {
                RosterItem::Text(class, text) => self.make("span", class, text),
                RosterItem::Button(label, action, on) => self.button(label, action, &p.id, on),
            });
            for part in std::iter::once(name).chain(items).flatten() {
                let _ = li.append_child(&part);
            }
            let _ = list.append_child(&li);
        }
        self.last_roster = roster.to_vec();
    }

    /// Adds a chat line: the sender and the text in their own `dir="auto"`
    /// blocks, as text only.
    pub fn add_chat(&self, mine: bool, rtl: bool, name: &str, text: &str) {
        let Some(log) = self.el("chat-log") else {
            return;
        };
        let class = match (mine, rtl) {
            (true, true) => "chat-msg mine rtl",
            (true, false) => "chat-msg mine",
            (false, true) => "chat-msg rtl",
            (false, false) => "chat-msg",
        };
        let Some(line) = self.make("div", class, "") else {
            return;
        };
        if let (Some(who), Some(body)) = (
            self.display_name("div", "who", name),
            self.make("div", "text", text),
        ) {
            let _ = body.set_attribute("dir", "auto");
            let _ = line.append_child(&who);
            let _ = line.append_child(&body);
        }
        let _ = log.append_child(&line);
        // No history: keep the last 200 lines on screen.
        while log.child_element_count() > 200 {
            if let Some(first) = log.first_element_child() {
                first.remove();
            }
        }
        if let Some(h) = log.dyn_ref::<HtmlElement>() {
            h.set_scroll_top(h.scroll_height());
        }
    }

    /// Offers the last match's input log for download on the result screen.
    pub fn offer_log(&mut self, log: Option<&LogOffer>) {
        if let Some(url) = self.log_url.take() {
            let _ = web_sys::Url::revoke_object_url(&url);
        }
        let Some(log) = log else {
            self.show("log-link", false);
            return;
        };
        let parts = Array::of1(&js_sys::Uint8Array::from(log.bytes.as_slice()));
        let opts = web_sys::BlobPropertyBag::new();
        opts.set_type("application/octet-stream");
        let url = web_sys::Blob::new_with_u8_array_sequence_and_options(&parts, &opts)
            .and_then(|b| web_sys::Url::create_object_url_with_blob(&b));
        let Ok(url) = url else {
            log::warn!("could not offer the input log for download");
            return;
        };
        self.set_attr("log-link", "href", Some(&url));
        self.set_attr("log-link", "download", Some(&log.file_name));
        self.set_attr("result", "data-log-ticks", Some(&log.ticks.to_string()));
        self.set_attr(
            "result",
            "data-log-hash",
            Some(&format!("{:016x}", log.hash)),
        );
        self.show("log-link", true);
        self.log_url = Some(url);
    }

    /// Fills the local-play chooser on the title screen (one `<select>`
    /// per option).
    pub fn build_local_options(&self, options: &[LocalOption]) {
        let Some(box_) = self.el("local-options") else {
            return;
        };
        for (i, opt) in options.iter().enumerate() {
            let id = format!("local-opt-{i}");
            let (Some(label), Some(select)) = (
                self.make("label", "", opt.label),
                self.make("select", "", ""),
            ) else {
                continue;
            };
            let _ = label.set_attribute("for", &id);
            let _ = select.set_attribute("id", &id);
            for (v, choice) in opt.choices.iter().enumerate() {
                if let Some(o) = self.make("option", "", choice) {
                    let _ = o.set_attribute("value", &v.to_string());
                    let _ = select.append_child(&o);
                }
            }
            let _ = box_.append_child(&label);
            let _ = box_.append_child(&select);
        }
    }

    /// The index picked in each of `n` local-play choosers (0 when missing).
    pub fn local_choices(&self, n: usize) -> Vec<usize> {
        (0..n)
            .map(|i| {
                self.input_value(&format!("local-opt-{i}"))
                    .parse()
                    .unwrap_or(0)
            })
            .collect()
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
