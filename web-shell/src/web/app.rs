//! The app: the shell and the browser objects that carry out its outputs,
//! in one thread-local; the page's events and timers feed it.
//!
//! Every browser callback goes through [`dispatch`], which defers to a
//! microtask if the app is already borrowed, so no callback ever runs
//! inside another.

use super::dom::Dom;
use super::net::Net;
use super::platform::{self, clock, now, ConsoleLog};
use super::rtc::{self, Link};
use crate::front_end::FrontEnd;
use crate::replay::Refusal;
use crate::shell::game::Slot;
use crate::shell::links::Links;
use crate::shell::page::{self, DomEvent, Listener};
use crate::shell::worker::WorkerSlot;
use crate::shell::{self as core, GameSlot, Input, LinkId, Output, Shell, ShellConfig};
use lockstep::Millis;
use std::cell::RefCell;
use std::collections::VecDeque;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::spawn_local;
use web_sys::{Element, KeyboardEvent, Window};

thread_local! {
    static APP: RefCell<Option<App>> = const { RefCell::new(None) };
}

pub type Handler = Closure<dyn FnMut(JsValue)>;

/// Runs `f` on the app now, or in a microtask if the app is busy; then
/// feeds what the peer connections reported and the timers' tick.
pub fn dispatch(f: impl FnOnce(&mut App) + 'static) {
    let mut f = Some(f);
    let done = APP.with(|cell| match cell.try_borrow_mut() {
        Ok(mut guard) => {
            if let (Some(app), Some(f)) = (guard.as_mut(), f.take()) {
                // One time for everything this call feeds: a burst of
                // datagrams drained together arrived together.
                app.now = now();
                f(app);
                for input in app.links.poll() {
                    app.feed(input);
                }
                app.feed(Input::Tick);
            }
            true
        }
        Err(_) => false,
    });
    if !done {
        if let Some(f) = f {
            spawn_local(async move { dispatch(f) });
        }
    }
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

fn on(el: &Element, event: &str, handlers: &mut Vec<Handler>, f: impl FnMut(JsValue) + 'static) {
    let h = Closure::<dyn FnMut(JsValue)>::new(f);
    let _ = el.add_event_listener_with_callback(event, h.as_ref().unchecked_ref());
    handlers.push(h);
}

/// Hooks the page's events the shell listens to (its file pickers
/// included) and the keys to the shell's inputs.
fn wire(dom: &Dom, listeners: &[Listener]) -> Vec<Handler> {
    let mut handlers = Vec::new();
    for (i, l) in listeners.iter().enumerate() {
        let Some(el) = dom.el(l.el) else { continue };
        if let Some(max) = l.file_up_to {
            on(&el, l.event, &mut handlers, move |ev| pick_file(&ev, max));
            continue;
        }
        let (prevent, reads) = (l.prevent_default, l.reads.clone());
        on(&el, l.event, &mut handlers, move |ev: JsValue| {
            let Some(e) = ev.dyn_ref::<web_sys::Event>() else {
                return;
            };
            if prevent {
                e.prevent_default();
            }
            let target = e.target().and_then(|t| t.dyn_into::<Element>().ok());
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
            let reads = reads.clone();
            dispatch(move |a| {
                event.values = reads.iter().map(|r| a.dom.input_value(r)).collect();
                a.feed(Input::Dom(event));
            });
        });
    }
    if let Some(body) = dom.doc.body() {
        for (event, down) in [("keydown", true), ("keyup", false)] {
            on(&body, event, &mut handlers, move |ev: JsValue| {
                let Some(k) = ev.dyn_ref::<KeyboardEvent>() else {
                    return;
                };
                let target = k.target().and_then(|t| t.dyn_into::<Element>().ok());
                let typing = target.is_some_and(|e| page::typing_in(&e.tag_name()));
                let code = k.code();
                let modifier = k.ctrl_key() || k.meta_key() || k.alt_key();
                if query(|a| a.shell.captures_key(&code, down, typing, modifier)) == Some(true) {
                    k.prevent_default();
                }
                dispatch(move |a| a.feed(Input::Key { code, down, typing }));
            });
        }
    }
    if let Some(overlay) = dom.el("touch") {
        wire_touch(&overlay, &mut handlers);
    }
    handlers
}

/// Feeds the fingers on the touch overlay to the shell: each changed
/// touch's id, position relative to the overlay, and, as it comes down,
/// the part it came down on (the nearest `data-touch`: `stick` or a
/// button's place). The browser's own use of the touch (scrolling,
/// zooming, a click made up from it) is stopped.
fn wire_touch(overlay: &Element, handlers: &mut Vec<Handler>) {
    use crate::touch::{Phase, Touch, Zone};
    for (event, phase) in [
        ("touchstart", Phase::Start),
        ("touchmove", Phase::Move),
        ("touchend", Phase::End),
        ("touchcancel", Phase::Cancel),
    ] {
        let overlay = overlay.clone();
        on(&overlay.clone(), event, handlers, move |ev: JsValue| {
            let Some(e) = ev.dyn_ref::<web_sys::TouchEvent>() else {
                return;
            };
            e.prevent_default();
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
                    Touch {
                        id: t.identifier(),
                        phase,
                        zone: Zone::from_attr(part.as_deref()),
                        x: f64::from(t.client_x()) - rect.left(),
                        y: f64::from(t.client_y()) - rect.top(),
                    }
                })
                .collect();
            dispatch(move |a| a.feed(Input::Touch(touches)));
        });
    }
}

/// Reads the first file of a picker (refused unread when over `max`
/// bytes) and feeds it to the shell; clears the picker.
fn pick_file(ev: &JsValue, max: usize) {
    let Some(picker) = ev
        .dyn_ref::<web_sys::Event>()
        .and_then(web_sys::Event::target)
        .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
    else {
        return;
    };
    let file = picker.files().and_then(|f| f.get(0));
    picker.set_value("");
    let Some(file) = file else { return };
    spawn_local(async move {
        let read = if file.size() > max as f64 {
            Err(Refusal::TooLarge)
        } else {
            let buf = wasm_bindgen_futures::JsFuture::from(file.array_buffer()).await;
            buf.map(|b| js_sys::Uint8Array::new(&b).to_vec())
                .map_err(|_| Refusal::Unreadable)
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
    let _ = log::set_logger(&ConsoleLog);
    log::set_max_level(core::LOG_LEVEL);
    let dom = Dom::new(window.document().ok_or("no document")?);
    let facts = platform::page_facts();
    let game: Box<dyn GameSlot> =
        if game.match_in_worker() && crate::shell::worker::wanted(&facts.search) {
            Box::new(WorkerSlot::new(game, Box::new(super::worker::spawn)))
        } else {
            game
        };
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
