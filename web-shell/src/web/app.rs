//! The app: the shell and the browser objects that carry out its outputs,
//! in one thread-local; the page's events and timers feed it.
//!
//! Every browser callback goes through [`dispatch`], which defers to a
//! microtask if the app is already borrowed, so no callback ever runs
//! inside another.

use super::dom::Dom;
use super::net::Net;
use super::platform::{self, clock, now};
use super::rtc::{self, Link};
use crate::front_end::FrontEnd;
use crate::replay::Refusal;
use crate::shell::game::Slot;
use crate::shell::links::Links;
use crate::shell::page::{self, DomEvent, Feed, Listener};
use crate::shell::worker;
use crate::shell::{self as core, GameSlot, Input, LinkId, Output, Shell, ShellConfig};
use crate::touch::{Phase, Touch};
use lockstep::Millis;
use std::cell::RefCell;
use std::collections::VecDeque;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::spawn_local;
use web_sys::{Element, Event, KeyboardEvent, Window};

thread_local! {
    static APP: RefCell<Option<App>> = const { RefCell::new(None) };
}

pub type Handler = Closure<dyn FnMut(JsValue)>;

/// Runs `f` on the app now, or in a microtask if the app is busy; then
/// feeds what the peer connections reported and the timers' tick.
pub fn dispatch(f: impl FnOnce(&mut App) + 'static) {
    // One thread: nothing borrows the app between this look and the next.
    if APP.with(|cell| cell.try_borrow_mut().is_err()) {
        spawn_local(async move { dispatch(f) });
        return;
    }
    APP.with(|cell| {
        if let Some(app) = cell.borrow_mut().as_mut() {
            // One time for everything this call feeds: a burst of
            // datagrams drained together arrived together.
            app.now = now();
            f(app);
            for input in app.links.poll() {
                app.feed(input);
            }
            app.feed(Input::Tick);
        }
    });
}

/// Feeds `input` as soon as the app is free (from a browser callback).
pub fn feed_later(input: Input) {
    dispatch(move |app| app.feed(input));
}

/// Wakes the page now, outside its frames: the peer connections' news is
/// fed, and the shell sends what the game has queued for the match link
/// (a datagram from a host's worker).
pub fn wake() {
    dispatch(|_| {});
}

/// Asks the app something without changing it (`None` while it is busy).
fn query<T>(f: impl FnOnce(&App) -> T) -> Option<T> {
    APP.with(|cell| cell.try_borrow().ok()?.as_ref().map(f))
}

pub struct App {
    shell: Shell,
    dom: Dom,
    pub(super) net: Net,
    links: Links<Link>,
    synth: crate::sound::Synth,
    /// Inputs that carrying out an output produced (a socket that could
    /// not be opened).
    inbox: VecDeque<Input>,
    /// The time of the current dispatch.
    now: Millis,
    _handlers: Vec<Handler>,
}

impl App {
    /// Feeds one input, then carries out every output.
    pub fn feed(&mut self, input: Input) {
        self.inbox.push_back(input);
        while let Some(input) = self.inbox.pop_front() {
            self.shell.handle(self.now, input);
            self.drain();
        }
    }

    /// Carries out every output; what the browser refused to do is fed
    /// back as the input the shell names for it.
    fn drain(&mut self) {
        while let Some(out) = self.shell.poll_output() {
            let refused = out.refused();
            if !self.carry_out(out) {
                self.inbox.extend(refused);
            }
        }
    }

    /// Carries out one output; `false` when the browser refused to.
    fn carry_out(&mut self, out: Output) -> bool {
        match out {
            Output::Page(patches) => patches.iter().for_each(|p| self.dom.apply(p)),
            // A hidden page draws nothing (and so asks its match worker
            // for no pictures); the match goes on.
            Output::Paint if self.dom.doc.hidden() => {}
            Output::Paint => self
                .dom
                .paint(|width, ratio| self.shell.drawing(width, ratio)),
            Output::Chat {
                mine,
                rtl,
                name,
                text,
            } => self.dom.apply(&page::chat_line(mine, rtl, &name, &text)),
            Output::OpenSocket { id, url } => return self.net.open(id, &url),
            Output::SendSocket { id, text } => self.net.send(id, &text),
            Output::CloseSocket(id) => self.net.close(id),
            Output::Fetch { id, method, url } => self.net.fetch(id, method, url),
            Output::AbortFetch(id) => self.net.abort(id),
            Output::CreatePeer {
                link,
                tag,
                ice_servers,
            } => return self.add_link(link, tag, rtc::create(&ice_servers)),
            Output::OpenRelay { link, tag, url } => {
                return self.add_link(link, tag, rtc::open_relay(&url))
            }
            Output::Describe { link, tag, step } => rtc::describe(&self.links, link, tag, step),
            Output::AddCandidate {
                link,
                tag,
                candidate,
            } => rtc::add_candidate(&self.links, &link, tag, candidate),
            Output::SendPeer {
                link,
                channel,
                bytes,
            } => self.links.send(&link, channel, &bytes),
            Output::ClosePeer(link) => self.links.remove(&link),
            Output::CloseMesh => self.links.remove_mesh(),
            Output::Store { key, value } => platform::store(key, &value),
            Output::SessionStore { key, value } => platform::session_store(key, value.as_deref()),
            Output::FullScreen => self.dom.full_screen(),
            Output::Copy(text) => platform::copy(&text),
            Output::Sound(cue) => self.synth.play(crate::sound::shell_cue(cue)),
            Output::Offer { link, file } => return self.dom.offer(link, file.as_ref()),
        }
        true
    }

    /// Puts a link the browser made in place of `link`'s last one (which
    /// closes); `false` when it made none.
    fn add_link(&mut self, link: LinkId, tag: u32, made: Option<Link>) -> bool {
        self.links.remove(&link);
        made.map(|c| self.links.insert(link, tag, c)).is_some()
    }

    /// One 60 Hz frame if one is due, and its running time.
    fn frame(&mut self) {
        let start = clock();
        self.feed(Input::Pads(platform::gamepads()));
        self.feed(Input::Frame { clock: start });
        self.feed(Input::FrameSpent(clock() - start));
    }
}

/// Hooks the page's events the shell listens to (the keys, the touch
/// overlay and the file pickers included) to what each feeds it.
fn wire(dom: &Dom, listeners: &[Listener]) -> Vec<Handler> {
    let mut handlers = Vec::new();
    for (i, l) in listeners.iter().enumerate() {
        let el = if l.el == page::BODY {
            dom.doc.body().map(Element::from)
        } else {
            dom.el(l.el)
        };
        let Some(el) = el else { continue };
        let (prevent, feed, reads) = (l.prevent_default, l.feed, l.reads.clone());
        let h = Handler::new(move |ev: JsValue| {
            let Some(e) = ev.dyn_ref::<Event>() else {
                return;
            };
            if prevent {
                e.prevent_default();
            }
            match feed {
                Feed::Dom => dom_event(i, e, &reads),
                Feed::File { up_to } => pick_file(e, up_to),
                Feed::Key { down } => key(e, down),
                Feed::Touch(phase) => touch(e, phase),
            }
        });
        let _ = el.add_event_listener_with_callback(l.event, h.as_ref().unchecked_ref());
        handlers.push(h);
    }
    handlers
}

/// The element an event happened on.
fn target(e: &Event) -> Option<Element> {
    e.target()?.dyn_into::<Element>().ok()
}

/// Feeds listener `i`'s event: the values of its `reads` and what the
/// element it happened on says of itself.
fn dom_event(i: usize, e: &Event, reads: &[String]) {
    let target = target(e);
    let attr = |name| target.as_ref().and_then(|t| t.get_attribute(name));
    let mut event = DomEvent {
        listener: i,
        values: Vec::new(),
        tag: target.as_ref().map(Element::tag_name).unwrap_or_default(),
        data_action: attr("data-action"),
        data_id: attr("data-id"),
        data_control: attr("data-control"),
        value: target.as_ref().and_then(Dom::value_of),
    };
    let reads = reads.to_vec();
    dispatch(move |a| {
        event.values = reads.iter().map(|r| a.dom.input_value(r)).collect();
        a.feed(Input::Dom(event));
    });
}

/// Feeds a key going down or up; the browser's own use of it is stopped
/// when the shell takes the key.
fn key(e: &Event, down: bool) {
    let Some(k) = e.dyn_ref::<KeyboardEvent>() else {
        return;
    };
    let typing = target(e).is_some_and(|e| page::typing_in(&e.tag_name()));
    let code = k.code();
    let modifier = k.ctrl_key() || k.meta_key() || k.alt_key();
    if query(|a| a.shell.captures_key(&code, down, typing, modifier)) == Some(true) {
        k.prevent_default();
    }
    dispatch(move |a| a.feed(Input::Key { code, down, typing }));
}

/// Feeds the fingers that changed on the touch overlay (the element the
/// listener is on): each one's id, position on the screen and the part
/// (the nearest `data-touch`: `stick` or a button's place) it is on.
fn touch(e: &Event, phase: Phase) {
    let overlay = e
        .current_target()
        .and_then(|t| t.dyn_into::<Element>().ok());
    let (Some(e), Some(overlay)) = (e.dyn_ref::<web_sys::TouchEvent>(), overlay) else {
        return;
    };
    let rect = overlay.get_bounding_client_rect();
    let list = e.changed_touches();
    let touches = (0..list.length())
        .filter_map(|i| list.get(i))
        .map(|t| {
            let part = t
                .target()
                .and_then(|t| t.dyn_into::<Element>().ok())
                .and_then(|el| el.closest("[data-touch]").ok().flatten())
                .and_then(|el| el.get_attribute("data-touch"));
            let client = (f64::from(t.client_x()), f64::from(t.client_y()));
            Touch::read(
                t.identifier(),
                phase,
                part.as_deref(),
                client,
                (rect.left(), rect.top()),
            )
        })
        .collect();
    dispatch(move |a| a.feed(Input::Touch(touches)));
}

/// Reads the first file of a picker (refused unread when over `up_to`
/// bytes) and feeds it to the shell; clears the picker.
fn pick_file(e: &Event, up_to: usize) {
    let Some(picker) = e
        .target()
        .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
    else {
        return;
    };
    let file = picker.files().and_then(|f| f.get(0));
    picker.set_value("");
    let Some(file) = file else { return };
    spawn_local(async move {
        let read = match crate::replay::refused_unread(file.size(), up_to) {
            Some(refusal) => Err(refusal),
            None => {
                let buf = wasm_bindgen_futures::JsFuture::from(file.array_buffer()).await;
                buf.map(|b| js_sys::Uint8Array::new(&b).to_vec())
                    .map_err(|_| Refusal::Unreadable)
            }
        };
        feed_later(Input::ReplayFile(read));
    });
}

/// The state hash after `tick` ticks of the last finished online match,
/// replayed from its input log (hex), or `undefined` when there is no such
/// match or it is shorter. For tests and tools: two pages of one match must
/// agree on every tick both confirmed.
#[wasm_bindgen(js_name = matchHashAt)]
pub fn match_hash_at(tick: u32) -> Option<String> {
    query(|a| a.shell.match_hash_at(tick)).flatten()
}

/// Starts the shell with `front` as the game: wires the page (the elements
/// of `web-shell/www/index.html`), then runs the lobby timers every 100 ms
/// and game frames at 60 Hz. Call it once, from the game crate's
/// `#[wasm_bindgen(start)]` function.
///
/// # Errors
///
/// When the page has no window or document, or a timer cannot be set.
pub fn run<F: FrontEnd + 'static>(front: F) -> Result<(), JsValue> {
    run_game(Box::new(Slot::new(front)))
}

/// Runs the shell with a game that brings its own [`GameSlot`] (see
/// [`Shell::with_game`]); otherwise as [`run`].
///
/// # Errors
///
/// As [`run`].
pub fn run_game(game: Box<dyn GameSlot>) -> Result<(), JsValue> {
    let Some(window) = web_sys::window() else {
        // The module runs in the match worker: the slot is the worker's.
        super::worker::keep_for_worker(game);
        return Ok(());
    };
    platform::CONSOLE.install();
    let dom = Dom::new(window.document().ok_or("no document")?);
    let facts = platform::page_facts();
    let game = worker::place(game, &facts.search, Box::new(super::worker::spawn));
    let shell = Shell::with_game(
        game,
        ShellConfig::from_page(&facts),
        Box::new(platform::random),
    );
    let mut handlers = wire(&dom, shell.listeners());
    // A network change (back online; `navigator.connection`'s change
    // where the browser has it): the lobby socket reconnects at once.
    let connection = js_sys::Reflect::get(&window.navigator(), &"connection".into()).ok();
    let targets = [Some(
        window.clone().unchecked_into::<web_sys::EventTarget>(),
    )]
    .into_iter()
    .chain([connection.and_then(|c| c.dyn_into::<web_sys::EventTarget>().ok())]);
    for (target, event) in targets.flatten().zip(["online", "change"]) {
        let h = Closure::<dyn FnMut(JsValue)>::new(|_| dispatch(|a| a.feed(Input::NetworkChanged)));
        let _ = target.add_event_listener_with_callback(event, h.as_ref().unchecked_ref());
        handlers.push(h);
    }
    let mut app = App {
        shell,
        dom,
        net: Net::default(),
        links: Links::default(),
        synth: crate::sound::Synth::default(),
        inbox: VecDeque::new(),
        now: now(),
        _handlers: handlers,
    };
    app.drain();
    APP.with(|cell| *cell.borrow_mut() = Some(app));
    // The lobby's and the connections' timers.
    every(&window, core::TICK_EVERY_MS, wake)?;
    // The frame timer; the shell keeps the 60 Hz schedule itself.
    every(&window, core::FRAME_TIMER_MS, || {
        if query(|a| a.shell.frame_due(clock())).unwrap_or(true) {
            dispatch(App::frame);
        }
    })
}

/// Calls `f` every `ms` milliseconds for as long as the page lives.
fn every(window: &Window, ms: u16, f: impl FnMut() + 'static) -> Result<(), JsValue> {
    let f = Closure::<dyn FnMut()>::new(f);
    let ms = i32::from(ms);
    window
        .set_interval_with_callback_and_timeout_and_arguments_0(f.as_ref().unchecked_ref(), ms)?;
    f.forget();
    Ok(())
}
