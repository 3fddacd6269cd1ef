//! The browser glue (wasm32 only): DOM, sockets, peer connections, timers.
//!
//! Thin on purpose: every rule lives in the pure modules. This file turns
//! browser events into calls on [`LobbyClient`] and [`Screens`], carries out
//! the [`Output`]s they return, and draws the result. All state sits in one
//! `App` behind a thread-local; browser callbacks go through [`dispatch`],
//! which defers to a microtask if the app is already borrowed, so no
//! callback ever runs inside another.

use crate::challenge::ChallengeConfig;
use crate::front_end::{Align, FrontEnd, LocalOption, Painter};
use crate::id::{PeerId, RoomCode};
use crate::lobby::{LobbyClient, LobbyConfig, Output};
use crate::mesh::MeshConfig;
use crate::options::{ms_option, query_param, FALLBACK_STUN_URL};
use crate::play;
use crate::protocol::{room_out, RoomServerMsg, Signal, SignalKind};
use crate::screens::{Screen, ScreenEvent, Screens};
use crate::text::{self, ChatError};
use js_sys::{Array, Reflect};
use lockstep::{
    Channel, DeterministicGame, InputLog, LinkState, Millis, Session, SessionConfig, Transport,
};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::{spawn_local, JsFuture};
use web_sys::{
    CanvasRenderingContext2d, Document, Element, HtmlCanvasElement, HtmlElement, HtmlInputElement,
    KeyboardEvent, MessageEvent, RequestInit, Response, WebSocket,
};
use webrtc_transport::{IceCandidate, WebRtcTransport, MATCH_CONNECT_TIMEOUT_MS};

thread_local! {
    static APP: RefCell<Option<App>> = const { RefCell::new(None) };
    /// The fixed 60 Hz timestep (see [`play::FrameClock`]).
    /// Outside the app so the fast timer can skip early calls cheaply.
    static FRAMES: std::cell::Cell<play::FrameClock> = std::cell::Cell::new(play::FrameClock::default());
}

type Handler = Closure<dyn FnMut(JsValue)>;

/// Runs `f` on the app now, or in a microtask if the app is busy.
fn dispatch(f: impl FnOnce(&mut App) + 'static) {
    let mut f = Some(f);
    let done = APP.with(|cell| match cell.try_borrow_mut() {
        Ok(mut guard) => {
            if let (Some(app), Some(f)) = (guard.as_mut(), f.take()) {
                f(app);
                app.pump();
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

fn now() -> Millis {
    let t = web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now());
    Millis(t.max(0.0) as u64)
}

/// `n` bytes from `crypto.getRandomValues`, or `None` when the browser
/// gives none (no `crypto`, or the call throws).
fn random_bytes(n: usize) -> Option<Vec<u8>> {
    let mut buf = vec![0u8; n];
    let c = web_sys::window().and_then(|w| w.crypto().ok())?;
    match c.get_random_values_with_u8_array(&mut buf) {
        Ok(_) => Some(buf),
        Err(_) => {
            log::error!("crypto.getRandomValues failed");
            None
        }
    }
}

/// A seed for a game (local play, or the host's match seed). Without
/// random numbers the local game still plays, from seed 0; online play is
/// not offered then (see [`App::new`]).
fn random_seed() -> u64 {
    random_bytes(8)
        .and_then(|b| b.try_into().ok())
        .map_or(0, u64::from_le_bytes)
}

/// A fresh peer id, or `None` without random numbers (an id of all `A`s
/// would clash with every other such page).
fn fresh_id() -> Option<PeerId> {
    // Bytes of 248 and up are skipped, so 64 bytes give 12 characters
    // unless the browser is very unlucky; then more are drawn.
    let mut bytes = random_bytes(64)?;
    let mut ok = true;
    let id = PeerId::generate(|| {
        if bytes.is_empty() {
            match random_bytes(64) {
                Some(more) => bytes = more,
                None => {
                    ok = false;
                    return 0;
                }
            }
        }
        bytes.pop().unwrap_or(0)
    });
    ok.then_some(id)
}

/// The `iceServers` used when `/ice` cannot be fetched: the service's
/// default STUN server.
fn fallback_ice() -> JsValue {
    let entry = js_sys::Object::new();
    let _ = Reflect::set(&entry, &"urls".into(), &FALLBACK_STUN_URL.into());
    Array::of1(&entry).into()
}

/// How long a `GET /ice` may take before the page falls back.
const ICE_FETCH_TIMEOUT_MS: i32 = 5_000;

/// How long `POST /rooms` may take before the challenge fails (its phase
/// has no timer of its own until the room exists).
const ROOM_FETCH_TIMEOUT_MS: i32 = 10_000;

struct ConsoleLog;

impl log::Log for ConsoleLog {
    fn enabled(&self, _: &log::Metadata<'_>) -> bool {
        true
    }
    fn log(&self, record: &log::Record<'_>) {
        let msg = JsValue::from_str(&format!("{}", record.args()));
        match record.level() {
            log::Level::Error => web_sys::console::error_1(&msg),
            log::Level::Warn => web_sys::console::warn_1(&msg),
            log::Level::Info => web_sys::console::info_1(&msg),
            _ => web_sys::console::debug_1(&msg),
        }
    }
    fn flush(&self) {}
}

// ----- DOM helpers ------------------------------------------------------------

struct Dom {
    doc: Document,
}

impl Dom {
    fn el(&self, id: &str) -> Option<Element> {
        self.doc.get_element_by_id(id)
    }
    fn set_text(&self, id: &str, text: &str) {
        if let Some(e) = self.el(id) {
            e.set_text_content(Some(text));
        }
    }
    fn show(&self, id: &str, shown: bool) {
        if let Some(e) = self.el(id).and_then(|e| e.dyn_into::<HtmlElement>().ok()) {
            e.set_hidden(!shown);
        }
    }
    fn input_value(&self, id: &str) -> String {
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
    fn set_input_value(&self, id: &str, v: &str) {
        if let Some(i) = self
            .el(id)
            .and_then(|e| e.dyn_into::<HtmlInputElement>().ok())
        {
            i.set_value(v);
        }
    }
    fn set_attr(&self, id: &str, name: &str, value: &str) {
        if let Some(e) = self.el(id) {
            let _ = e.set_attribute(name, value);
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
}

fn on(el: &Element, event: &str, handlers: &mut Vec<Handler>, f: impl FnMut(JsValue) + 'static) {
    let h = Closure::<dyn FnMut(JsValue)>::new(f);
    let _ = el.add_event_listener_with_callback(event, h.as_ref().unchecked_ref());
    handlers.push(h);
}

// ----- sockets ------------------------------------------------------------------

/// Which socket an event came from; events of replaced sockets are ignored.
#[derive(Clone, Copy, PartialEq, Eq)]
enum SocketKind {
    Presence(u32),
    Room(u32),
}

struct Socket {
    ws: WebSocket,
    _handlers: Vec<Handler>,
}

impl Socket {
    fn open(url: &str, kind: SocketKind) -> Option<Socket> {
        let ws = match WebSocket::new(url) {
            Ok(ws) => ws,
            Err(_) => {
                log::warn!("could not open a WebSocket");
                return None;
            }
        };
        let on_open =
            Closure::<dyn FnMut(JsValue)>::new(move |_| dispatch(move |app| app.socket_open(kind)));
        let on_msg = Closure::<dyn FnMut(JsValue)>::new(move |ev: JsValue| {
            let text = ev
                .dyn_into::<MessageEvent>()
                .ok()
                .and_then(|m| m.data().as_string());
            if let Some(text) = text {
                dispatch(move |app| app.socket_text(kind, &text));
            }
        });
        let on_close = Closure::<dyn FnMut(JsValue)>::new(move |_| {
            dispatch(move |app| app.socket_closed(kind))
        });
        ws.set_onopen(Some(on_open.as_ref().unchecked_ref()));
        ws.set_onmessage(Some(on_msg.as_ref().unchecked_ref()));
        ws.set_onclose(Some(on_close.as_ref().unchecked_ref()));
        Some(Socket {
            ws,
            _handlers: vec![on_open, on_msg, on_close],
        })
    }

    fn send(&self, text: &str) {
        // A browser drops a send on a closing or closed socket with a
        // console error of its own rather than an exception, so ask first.
        if self.ws.ready_state() != WebSocket::OPEN {
            log::info!("not sent: the WebSocket is not open");
            return;
        }
        if self.ws.send_with_str(text).is_err() {
            log::info!("send on a closed WebSocket");
        }
    }
}

impl Drop for Socket {
    fn drop(&mut self) {
        self.ws.set_onopen(None);
        self.ws.set_onmessage(None);
        self.ws.set_onclose(None);
        let _ = self.ws.close();
    }
}

fn notify() -> webrtc_transport::Notify {
    Rc::new(|| dispatch(|_| {}))
}

// ----- the app ------------------------------------------------------------------

struct MeshPeer {
    attempt: u8,
    link: WebRtcTransport,
    reported_open: bool,
    reported_closed: bool,
}

struct RoomConn {
    gen: u32,
    host: bool,
    code: Option<RoomCode>,
    socket: Option<Socket>,
    link: Option<WebRtcTransport>,
}

struct MatchRun<G: DeterministicGame> {
    session: Session<G>,
    link: WebRtcTransport,
    ping: Option<u64>,
    /// Frames in a row that could not run a tick.
    stalled: u32,
    /// When the game itself was seen over (confirmed), and its result.
    over: Option<(Millis, String)>,
    /// When the session was made (for the time to the first tick).
    created: Millis,
    first_tick: bool,
}

/// What a match frame reported to the page.
#[derive(Default)]
struct MatchFrame {
    /// The match ended with this message.
    ended: Option<String>,
    /// A tick ran (so the frame drew something new).
    ticked: bool,
}

/// The last finished match: its input log, for the download and for
/// `matchHashAt`.
struct LastLog {
    bytes: Vec<u8>,
    ticks: u32,
    hash: u64,
    seed: u64,
}

/// The plugged-in game with its type erased, so the rest of the page is not
/// generic: local play, the online session, drawing.
trait GameSlot {
    fn name(&self) -> &'static str;
    fn build_id(&self) -> u64;
    fn local_options(&self) -> &'static [LocalOption];
    fn is_game_key(&self, code: &str) -> bool;
    fn start_local(&mut self, seed: u64, choices: &[usize]);
    fn stop_local(&mut self);
    /// Runs `steps` ticks of local play (1 normally; more with the
    /// test-only `?local_speed=`) and draws; returns the result once over.
    fn local_frame(&mut self, held: &[&str], dom: &Dom, steps: u32) -> Option<String>;
    fn start_match(&mut self, link: WebRtcTransport, cfg: SessionConfig, t: Millis) -> bool;
    fn match_frame(&mut self, t: Millis, held: &[&str], dom: &Dom) -> MatchFrame;
    fn quit_match(&mut self, t: Millis);
    fn drop_match(&mut self);
    fn last_log(&self) -> Option<&LastLog>;
    /// The state hash after `tick` ticks of the last finished match,
    /// replayed from its input log.
    fn log_hash_at(&self, tick: u32) -> Option<u64>;
}

struct Slot<F: FrontEnd> {
    front: F,
    local: Option<F::Game>,
    online: Option<MatchRun<F::Game>>,
    last_log: Option<LastLog>,
}

impl<F: FrontEnd> GameSlot for Slot<F> {
    fn name(&self) -> &'static str {
        self.front.name()
    }
    fn build_id(&self) -> u64 {
        self.front.build_id()
    }
    fn local_options(&self) -> &'static [LocalOption] {
        self.front.local_options()
    }
    fn is_game_key(&self, code: &str) -> bool {
        self.front.is_game_key(code)
    }
    fn start_local(&mut self, seed: u64, choices: &[usize]) {
        if self.local.is_none() {
            self.front.start_local(choices);
            self.local = Some(F::Game::new(seed, self.front.local_players()));
        }
    }
    fn stop_local(&mut self) {
        self.local = None;
    }
    fn local_frame(&mut self, held: &[&str], dom: &Dom, steps: u32) -> Option<String> {
        let game = self.local.as_mut()?;
        let mut result = self.front.result(game);
        for _ in 0..steps {
            if result.is_some() {
                break;
            }
            let inputs = self.front.local_inputs(game, held);
            game.step(&inputs);
            result = self.front.result(game);
        }
        draw(dom, &mut self.front, game);
        if let Some(s) = self.front.summary(game) {
            dom.set_attr("local", "data-summary", &s);
        }
        result
    }
    fn start_match(&mut self, link: WebRtcTransport, cfg: SessionConfig, t: Millis) -> bool {
        match Session::<F::Game>::new(cfg) {
            Ok(session) => {
                self.online = Some(MatchRun {
                    session,
                    link,
                    ping: None,
                    stalled: 0,
                    over: None,
                    created: t,
                    first_tick: false,
                });
                true
            }
            Err(e) => {
                log::error!("session config refused: {e:?}");
                false
            }
        }
    }
    fn match_frame(&mut self, t: Millis, held: &[&str], dom: &Dom) -> MatchFrame {
        let mut out = MatchFrame::default();
        let Some(m) = self.online.as_mut() else {
            return out;
        };
        m.link.tick(t);
        m.session.pump(t, &mut m.link);
        let front = &mut self.front;
        let frame = m.session.advance_frame(t, || front.online_input(held));
        m.session.pump(t, &mut m.link);
        match frame {
            lockstep::Frame::Stalled(_) => m.stalled = m.stalled.saturating_add(1),
            lockstep::Frame::Ticked(_) => {
                m.stalled = 0;
                out.ticked = true;
                if !m.first_tick {
                    m.first_tick = true;
                    let ms = t.0.saturating_sub(m.created.0);
                    dom.set_attr("match", "data-first-tick-ms", &ms.to_string());
                }
            }
            _ => m.stalled = 0,
        }
        let mut ended = None;
        while let Some(ev) = m.session.poll_event() {
            match ev {
                lockstep::Event::RoundTrip(ms) => m.ping = Some(ms.0),
                lockstep::Event::Ended(o) => ended = Some(o),
                lockstep::Event::Started { side, .. } => {
                    dom.set_attr("match", "data-side", &side.to_string());
                    front.start_online(side);
                }
                _ => {}
            }
        }
        if let Some(g) = m.session.game() {
            draw(dom, front, g);
            dom.set_attr("match", "data-state", "running");
            dom.set_attr("match", "data-present-tick", &m.session.tick().to_string());
            if let Some(s) = front.summary(g) {
                dom.set_attr("match", "data-summary", &s);
            }
        }
        if let Some(g) = m.session.confirmed_game() {
            dom.set_attr(
                "match",
                "data-tick",
                &m.session.confirmed_tick().to_string(),
            );
            dom.set_attr("match", "data-hash", &format!("{:016x}", g.state_hash()));
            if let Some(s) = front.summary(g) {
                dom.set_attr("match", "data-confirmed-summary", &s);
            }
            if m.over.is_none() {
                if let Some(result) = front.result(g) {
                    m.over = Some((t, result));
                }
            }
        }
        let st = m.session.stats();
        dom.set_attr(
            "match",
            "data-stats",
            &format!(
                "frames {} stalled {} skipped {} rollbacks {} resimulated {} max_rollback {}",
                st.frames,
                st.stalled_frames,
                st.skipped_frames,
                st.rollbacks,
                st.resimulated_ticks,
                st.max_rollback
            ),
        );
        let waiting = play::waiting(m.stalled) && ended.is_none();
        dom.show("match-waiting", waiting);
        dom.set_attr("match", "data-waiting", if waiting { "1" } else { "0" });
        if let Some((seed_delay, window)) =
            m.session.parameters().zip(m.session.prediction_window())
        {
            let delay = seed_delay.1;
            let side = match m.session.side() {
                Some(0) => format!("{} (host)", front.side_name(0)),
                _ => format!("{} (guest)", front.side_name(1)),
            };
            let mode = if window == 0 {
                "lock-step".to_owned()
            } else {
                format!("rollback (up to {window} {})", ticks(window))
            };
            let ping = m.ping.map_or("measuring".to_owned(), |p| format!("{p} ms"));
            dom.set_attr(
                "match",
                "data-mode",
                if window == 0 { "lockstep" } else { "rollback" },
            );
            dom.set_attr("match", "data-delay", &delay.to_string());
            if let Some(p) = m.ping {
                dom.set_attr("match", "data-ping", &p.to_string());
            }
            dom.set_text(
                "match-status",
                &format!(
                    "You play {side} · {mode} · input delay {delay} {} ({} ms) · ping {ping}",
                    ticks(delay),
                    u32::from(delay) * 50 / 3
                ),
            );
        }
        // A finished game stays on screen a moment, then the page leaves.
        if let Some((at, _)) = &m.over {
            if ended.is_none() && t.0 >= at.0 + play::RESULT_HOLD_MS {
                m.session.quit(t);
                m.session.pump(t, &mut m.link);
                while let Some(ev) = m.session.poll_event() {
                    if let lockstep::Event::Ended(o) = ev {
                        ended = Some(o);
                    }
                }
            }
        }
        if let Some(o) = ended {
            let msg = play::end_message(m.over.as_ref().map(|(_, r)| r.as_str()), &o);
            log::info!(
                "match ended after {} confirmed ticks: {msg}",
                m.session.confirmed_tick()
            );
            let log = m.session.input_log();
            match log.to_bytes() {
                Ok(bytes) => {
                    self.last_log = Some(LastLog {
                        bytes,
                        ticks: log.ticks(),
                        hash: log.final_hash,
                        seed: log.seed,
                    });
                }
                Err(e) => log::warn!("could not encode the input log: {e}"),
            }
            out.ended = Some(msg);
            self.online = None;
        }
        out
    }
    fn quit_match(&mut self, t: Millis) {
        if let Some(m) = self.online.as_mut() {
            m.session.quit(t);
            m.session.pump(t, &mut m.link);
        }
    }
    fn drop_match(&mut self) {
        self.online = None;
    }
    fn last_log(&self) -> Option<&LastLog> {
        self.last_log.as_ref()
    }
    fn log_hash_at(&self, tick: u32) -> Option<u64> {
        let last = self.last_log.as_ref()?;
        let log =
            InputLog::<<F::Game as DeterministicGame>::Input>::from_bytes(&last.bytes).ok()?;
        if tick > log.ticks() {
            return None;
        }
        let mut g = F::Game::new(log.seed, log.players);
        for t in 0..tick {
            g.step(log.tick_inputs(t)?);
        }
        Some(g.state_hash())
    }
}

struct App {
    dom: Dom,
    base: String,
    ws_base: String,
    cfg: LobbyConfig,
    screens: Screens,
    game: Box<dyn GameSlot>,
    client: Option<LobbyClient>,
    ice: JsValue,
    /// `iceServers` came from `/ice` at least once.
    ice_fetched: bool,
    /// A `GET /ice` is under way.
    ice_fetching: bool,
    presence: Option<Socket>,
    presence_gen: u32,
    peers: BTreeMap<PeerId, MeshPeer>,
    room: Option<RoomConn>,
    room_gen: u32,
    held: Vec<String>,
    /// Test-only `?local_speed=N`: ticks of local play per frame.
    local_speed: u32,
    /// The local game's result, once it is over.
    local_result: Option<String>,
    /// Who we last challenged or accepted (for Try again).
    last_opponent: Option<PeerId>,
    /// When this page pressed Accept, until the match's first tick.
    accepted_at: Option<Millis>,
    /// Time per match frame (simulation and drawing), in ms.
    frame_ms: Vec<f64>,
    /// The blob URL of the last match's input log.
    log_url: Option<String>,
    notices: Vec<String>,
    last_roster: Vec<crate::lobby::PlayerView>,
    /// The match connection timer (25 s; `?match_connect_ms=` in tests).
    match_connect: Millis,
    _handlers: Vec<Handler>,
}

/// Sends a locally made offer or answer (`kind` says which) to mesh peer
/// `id` through the lobby; a failed one is left to the mesh retry timer.
fn relay_mesh_sdp(
    id: PeerId,
    attempt: u8,
    sdp: Result<String, JsValue>,
    kind: fn(String) -> SignalKind,
) {
    dispatch(move |app| {
        if let (Ok(sdp), Some(c)) = (sdp, app.client.as_mut()) {
            c.send_signal(
                &id,
                &Signal {
                    attempt,
                    kind: kind(sdp),
                },
            );
        }
    });
}

impl App {
    fn new(doc: Document, game: Box<dyn GameSlot>) -> App {
        let window = web_sys::window();
        let location = window.as_ref().map(|w| w.location());
        let search = location
            .as_ref()
            .and_then(|l| l.search().ok())
            .unwrap_or_default();
        let origin = location
            .as_ref()
            .and_then(|l| l.origin().ok())
            .unwrap_or_default();
        // The signalling service: `?signal=` or `window.SIGNALING_URL`, else this page's origin.
        let configured = window
            .as_ref()
            .and_then(|w| Reflect::get(w, &JsValue::from_str("SIGNALING_URL")).ok())
            .and_then(|v| v.as_string())
            .filter(|s| !s.is_empty());
        let base = query_param(&search, "signal")
            .map(|s| {
                js_sys::decode_uri_component(&s)
                    .ok()
                    .and_then(|v| v.as_string())
                    .unwrap_or(s)
            })
            .or(configured)
            .unwrap_or(origin)
            .trim_end_matches('/')
            .to_owned();
        let ws_base = base
            .replacen("https://", "wss://", 1)
            .replacen("http://", "ws://", 1);
        // Test-only timer options, each capped at 10 minutes.
        let ms = |key: &str, default: u64| ms_option(&search, key, default);
        let cfg = LobbyConfig {
            mesh: MeshConfig {
                connect_timeout: ms("mesh_ms", 20_000),
            },
            challenge: ChallengeConfig {
                answer_timeout: ms("answer_ms", 30_000),
                connect_timeout: ms("connect_ms", 30_000),
            },
            connect_timeout: ms("lobby_connect_ms", 10_000),
        };
        let has_webrtc = window.as_ref().is_some_and(|w| {
            Reflect::has(w, &JsValue::from_str("RTCPeerConnection")).unwrap_or(false)
        });
        let has_ws = window
            .as_ref()
            .is_some_and(|w| Reflect::has(w, &JsValue::from_str("WebSocket")).unwrap_or(false));
        // Peer ids must be random: without crypto.getRandomValues every
        // page would draw the same id.
        let has_random = random_bytes(1).is_some();
        let doc_ = doc.clone();
        let note = |text: &str| {
            if let Some(e) = doc_.get_element_by_id("online-note") {
                e.set_text_content(Some(text));
                let _ = e.remove_attribute("hidden");
            }
        };
        if !(has_webrtc && has_ws) {
            note("Online play needs WebRTC, which this browser does not offer.");
        } else if !has_random {
            note("Online play is unavailable: this browser gives no secure random numbers.");
        }
        App {
            dom: Dom { doc },
            base,
            ws_base,
            cfg,
            screens: Screens::new(has_webrtc && has_ws && has_random),
            game,
            client: None,
            ice: fallback_ice(),
            ice_fetched: false,
            ice_fetching: false,
            presence: None,
            presence_gen: 0,
            peers: BTreeMap::new(),
            room: None,
            room_gen: 0,
            held: Vec::new(),
            local_speed: query_param(&search, "local_speed")
                .and_then(|v| v.parse::<u32>().ok())
                .map_or(1, |n| n.clamp(1, 1000)),
            local_result: None,
            last_opponent: None,
            accepted_at: None,
            frame_ms: Vec::new(),
            log_url: None,
            notices: Vec::new(),
            last_roster: Vec::new(),
            match_connect: ms("match_connect_ms", MATCH_CONNECT_TIMEOUT_MS),
            _handlers: Vec::new(),
        }
    }

    // ----- screens -----------------------------------------------------------

    fn screen_event(&mut self, e: ScreenEvent) {
        if self.screens.handle(e) {
            self.render_screen();
        }
    }

    fn render_screen(&mut self) {
        let s = self.screens.screen().clone();
        let d = &self.dom;
        d.show("title", matches!(s, Screen::Title { .. }));
        d.show("btn-online", matches!(s, Screen::Title { online: true }));
        d.show("local", s == Screen::LocalPlay);
        d.show("lobby", s == Screen::Lobby);
        d.show("match", s == Screen::Match);
        d.show("result", matches!(s, Screen::Result { .. }));
        d.show("canvas", matches!(s, Screen::LocalPlay | Screen::Match));
        if let Screen::Result { message, .. } = &s {
            d.set_text("result-text", message);
        }
        if s != Screen::LocalPlay {
            self.local_result = None;
            d.set_text("local-status", "");
            d.set_attr("local", "data-result", "");
        }
        if s == Screen::LocalPlay {
            let choices = self.local_choices();
            self.game.start_local(random_seed(), &choices);
        } else {
            self.game.stop_local();
        }
        if s != Screen::Lobby && s != Screen::Match && matches!(s, Screen::Title { .. }) {
            self.leave_lobby();
        }
        self.render_lobby();
    }

    // ----- lobby -------------------------------------------------------------

    fn join_lobby(&mut self) {
        let raw = self.dom.input_value("name");
        match text::clean_name(&raw) {
            Err(e) => self.dom.set_text("name-error", &e.to_string()),
            Ok(nick) => {
                self.dom.set_text("name-error", "");
                if let Some(storage) =
                    web_sys::window().and_then(|w| w.local_storage().ok().flatten())
                {
                    let _ = storage.set_item("netplay.name", &nick);
                }
                self.client = Some(LobbyClient::new(nick, self.cfg));
                self.dom.show("name-row", false);
                self.dom.show("lobby-main", true);
                // The first connection waits for the ICE servers, so the
                // first mesh links already use them.
                self.refresh_ice(|app| app.connect_presence());
            }
        }
    }

    /// Starts a lobby connection attempt with a fresh id.
    fn connect_presence(&mut self) {
        let Some(c) = self.client.as_mut() else {
            return;
        };
        match fresh_id() {
            Some(id) => c.start(now(), id),
            // Not expected (random numbers were there at start-up): count
            // it as a failed attempt, so the backoff paces the next one.
            None => c.socket_closed(now()),
        }
    }

    /// Fetches `iceServers` from `/ice` (TURN credentials there are
    /// short-lived, so this runs on every lobby connection and before every
    /// match connection), then runs `then`. When the fetch fails or takes
    /// over 5 s, the last good list stays, or the default STUN server if
    /// there never was one, with a warning. While a fetch is under way,
    /// `then` runs at once with the current list.
    fn refresh_ice(&mut self, then: impl FnOnce(&mut App) + 'static) {
        if self.ice_fetching {
            then(self);
            return;
        }
        self.ice_fetching = true;
        let url = format!("{}/ice", self.base);
        spawn_local(async move {
            let ice = fetch_json(&url, "GET", Some(ICE_FETCH_TIMEOUT_MS))
                .await
                .ok()
                .and_then(|v| Reflect::get(&v, &"iceServers".into()).ok())
                .filter(Array::is_array);
            dispatch(move |app| {
                app.ice_fetching = false;
                match ice {
                    Some(ice) => {
                        app.ice = ice;
                        app.ice_fetched = true;
                    }
                    None if app.ice_fetched => {
                        log::warn!("could not fetch /ice; keeping the ICE servers from before");
                    }
                    None => {
                        log::warn!("could not fetch /ice; using the default STUN server");
                    }
                }
                then(app);
            });
        });
    }

    fn leave_lobby(&mut self) {
        self.client = None;
        self.presence = None;
        self.peers.clear();
        self.room = None;
        self.game.drop_match();
        self.dom.show("name-row", true);
        self.dom.show("lobby-main", false);
    }

    fn socket_open(&mut self, kind: SocketKind) {
        match kind {
            SocketKind::Presence(g) if g == self.presence_gen => {
                if let Some(c) = self.client.as_mut() {
                    c.socket_open();
                }
            }
            SocketKind::Room(g) => {
                let Some(room) = self.room.as_mut().filter(|r| r.gen == g) else {
                    return;
                };
                if room.host {
                    if let (Some(code), Some(c)) = (room.code.clone(), self.client.as_mut()) {
                        c.room_created(now(), code);
                    }
                } else {
                    // The guest's 25 s timer starts when it connects.
                    self.make_room_link();
                }
            }
            SocketKind::Presence(_) => {}
        }
    }

    fn socket_closed(&mut self, kind: SocketKind) {
        match kind {
            SocketKind::Presence(g) if g == self.presence_gen => {
                self.presence = None;
                // The mesh links stay until the client's ClosePeer outputs,
                // so a cancel of our open challenge still reaches its target.
                if let Some(c) = self.client.as_mut() {
                    c.socket_closed(now());
                }
            }
            SocketKind::Room(g) => {
                let Some(room) = self.room.as_mut().filter(|r| r.gen == g) else {
                    return;
                };
                room.socket = None;
                // The room ends after `done`; before the link opened, that is a failure.
                let open = room
                    .link
                    .as_ref()
                    .is_some_and(|l| l.state() == LinkState::Open);
                if !open {
                    log::info!("room socket closed before the match connection opened");
                    self.room = None;
                    if let Some(c) = self.client.as_mut() {
                        c.match_failed(now());
                    }
                }
            }
            SocketKind::Presence(_) => {}
        }
    }

    fn socket_text(&mut self, kind: SocketKind, text: &str) {
        match kind {
            SocketKind::Presence(g) if g == self.presence_gen => {
                if let Some(c) = self.client.as_mut() {
                    c.server_text(now(), text);
                }
            }
            SocketKind::Room(g) if self.room.as_ref().is_some_and(|r| r.gen == g) => {
                self.room_text(text)
            }
            _ => {}
        }
    }

    fn make_room_link(&mut self) {
        let notify = notify();
        let Some(room) = self.room.as_mut() else {
            return;
        };
        if room.link.is_none() {
            let deadline = now() + self.match_connect;
            match WebRtcTransport::new(&self.ice, Some(deadline), notify) {
                Ok(link) => room.link = Some(link),
                Err(_) => log::error!("could not create a peer connection"),
            }
        }
    }

    fn room_text(&mut self, text: &str) {
        let msg = match Signal::parse_room(text) {
            Ok(m) => m,
            Err(e) => {
                log::warn!("room: dropped a message ({e:?})");
                return;
            }
        };
        let host = self.room.as_ref().is_some_and(|r| r.host);
        match msg {
            RoomServerMsg::PeerJoined if host => {
                self.make_room_link();
                let Some(room) = self.room.as_ref() else {
                    return;
                };
                let Some(hs) = room.link.as_ref().map(WebRtcTransport::handshake) else {
                    return;
                };
                let gen = room.gen;
                spawn_local(async move {
                    let offer = hs.create_offer().await;
                    dispatch(move |app| app.room_send_sdp(gen, offer.ok().map(SignalKind::Offer)));
                });
            }
            RoomServerMsg::Signal(Signal {
                kind: SignalKind::Offer(sdp),
                ..
            }) if !host => {
                self.make_room_link();
                let Some(room) = self.room.as_ref() else {
                    return;
                };
                let Some(hs) = room.link.as_ref().map(WebRtcTransport::handshake) else {
                    return;
                };
                let gen = room.gen;
                spawn_local(async move {
                    let answer = hs.accept_offer(&sdp).await;
                    dispatch(move |app| {
                        app.room_send_sdp(gen, answer.ok().map(SignalKind::Answer))
                    });
                });
            }
            RoomServerMsg::Signal(Signal {
                kind: SignalKind::Answer(sdp),
                ..
            }) if host => {
                let Some(hs) = self
                    .room
                    .as_ref()
                    .and_then(|r| r.link.as_ref())
                    .map(WebRtcTransport::handshake)
                else {
                    return;
                };
                spawn_local(async move {
                    if hs.accept_answer(&sdp).await.is_err() {
                        log::warn!("room: the answer was refused");
                    }
                });
            }
            RoomServerMsg::Signal(Signal {
                kind:
                    SignalKind::Ice {
                        candidate,
                        sdp_mid,
                        sdp_m_line_index,
                    },
                ..
            }) => {
                if let Some(link) = self.room.as_ref().and_then(|r| r.link.as_ref()) {
                    link.handshake().add_remote_ice(IceCandidate {
                        candidate,
                        sdp_mid,
                        sdp_m_line_index,
                    });
                }
            }
            RoomServerMsg::Error(_) => log::warn!("room: the server refused a message"),
            _ => log::info!("room: ignored an out-of-place message"),
        }
    }

    fn room_send_sdp(&mut self, gen: u32, kind: Option<SignalKind>) {
        let Some(room) = self.room.as_ref().filter(|r| r.gen == gen) else {
            return;
        };
        match kind {
            Some(kind) => {
                if let Some(s) = &room.socket {
                    s.send(&room_out::signal(&Signal { attempt: 1, kind }));
                }
            }
            None => {
                log::warn!("room: the browser could not create a session description");
                self.room = None;
                if let Some(c) = self.client.as_mut() {
                    c.match_failed(now());
                }
            }
        }
    }

    fn create_room(&mut self) {
        self.room_gen += 1;
        let gen = self.room_gen;
        self.room = Some(RoomConn {
            gen,
            host: true,
            code: None,
            socket: None,
            link: None,
        });
        // Fresh ICE servers for the match link, made once the guest joins
        // (several round trips from now).
        self.refresh_ice(|_| {});
        let url = format!("{}/rooms", self.base);
        spawn_local(async move {
            let code = fetch_json(&url, "POST", Some(ROOM_FETCH_TIMEOUT_MS))
                .await
                .ok()
                .and_then(|v| Reflect::get(&v, &"code".into()).ok())
                .and_then(|v| v.as_string())
                .and_then(|s| RoomCode::parse(&s));
            dispatch(move |app| {
                if app.room.as_ref().is_none_or(|r| r.gen != gen) {
                    return;
                }
                let socket = code.as_ref().and_then(|code| {
                    Socket::open(
                        &format!("{}/rooms/{code}/ws?role=host", app.ws_base),
                        SocketKind::Room(gen),
                    )
                });
                match (code, socket) {
                    (Some(code), Some(socket)) => {
                        if let Some(room) = app.room.as_mut() {
                            room.code = Some(code);
                            room.socket = Some(socket);
                        }
                    }
                    _ => {
                        app.room = None;
                        if let Some(c) = app.client.as_mut() {
                            c.room_failed(now());
                        }
                    }
                }
            });
        });
    }

    fn join_room(&mut self, code: RoomCode) {
        self.room_gen += 1;
        let gen = self.room_gen;
        self.room = Some(RoomConn {
            gen,
            host: false,
            code: Some(code.clone()),
            socket: None,
            link: None,
        });
        // The guest makes its match link as soon as the room socket opens,
        // so fresh ICE servers come first.
        self.refresh_ice(move |app| {
            if app.room.as_ref().is_none_or(|r| r.gen != gen) {
                return; // left (or replaced) meanwhile
            }
            let socket = Socket::open(
                &format!("{}/rooms/{code}/ws?role=guest", app.ws_base),
                SocketKind::Room(gen),
            );
            if socket.is_none() {
                app.room = None;
                if let Some(c) = app.client.as_mut() {
                    c.match_failed(now());
                }
                return;
            }
            if let Some(room) = app.room.as_mut() {
                room.socket = socket;
            }
        });
    }

    fn start_match(&mut self, link: WebRtcTransport, host: bool) {
        // The host decides (the guest adopts its Hello): rollback unless
        // this page's settings pick lock-step; the input delay from the
        // round trip measured in the handshake (6 ticks if unmeasured).
        let lockstep_mode = self.dom.input_value("netcode") == "lockstep";
        let cfg = if host {
            let c = SessionConfig::host(random_seed(), 6).input_delay_from_rtt();
            if lockstep_mode {
                c
            } else {
                c.rollback()
            }
        } else {
            SessionConfig::guest()
        };
        self.frame_ms.clear();
        for attr in [
            "data-first-tick-ms",
            "data-accept-to-tick-ms",
            "data-ping",
            "data-summary",
            "data-confirmed-summary",
        ] {
            if let Some(e) = self.dom.el("match") {
                let _ = e.remove_attribute(attr);
            }
        }
        if self.game.start_match(link, cfg, now()) {
            self.dom.set_attr("match", "data-state", "connected");
            self.dom.set_text("match-status", "Connected. Starting…");
            self.screen_event(ScreenEvent::MatchStarted);
        }
    }

    // ----- carrying out outputs ----------------------------------------------

    fn pump(&mut self) {
        let t = now();
        // Timers.
        if self.client.as_ref().is_some_and(|c| c.wants_connect(t)) {
            self.connect_presence();
            self.refresh_ice(|_| {});
        }
        // Mesh links.
        let mut events: Vec<(PeerId, u8, LinkEvent)> = Vec::new();
        for (id, p) in &mut self.peers {
            while let Some(c) = p.link.poll_local_ice() {
                events.push((id.clone(), p.attempt, LinkEvent::Ice(c)));
            }
            while let Some((_, bytes)) = p.link.recv() {
                events.push((id.clone(), p.attempt, LinkEvent::Data(bytes)));
            }
            let st = p.link.state();
            if st == LinkState::Open && !p.reported_open {
                p.reported_open = true;
                events.push((id.clone(), p.attempt, LinkEvent::Open));
            }
            if st.is_terminal() && !p.reported_closed {
                p.reported_closed = true;
                events.push((id.clone(), p.attempt, LinkEvent::Closed));
            }
        }
        if let Some(c) = self.client.as_mut() {
            for (id, attempt, ev) in events {
                match ev {
                    LinkEvent::Ice(ice) => c.send_signal(
                        &id,
                        &Signal {
                            attempt,
                            kind: SignalKind::Ice {
                                candidate: ice.candidate,
                                sdp_mid: ice.sdp_mid,
                                sdp_m_line_index: ice.sdp_m_line_index,
                            },
                        },
                    ),
                    LinkEvent::Data(bytes) => match String::from_utf8(bytes) {
                        Ok(s) => c.peer_text(t, &id, &s),
                        Err(_) => log::warn!("lobby: dropped a non-UTF-8 peer message"),
                    },
                    LinkEvent::Open => c.peer_open(&id, attempt),
                    LinkEvent::Closed => c.peer_closed(t, &id, attempt),
                }
            }
            c.tick(t);
        }
        // The room link.
        let mut room_opened = None;
        let mut room_failed = false;
        if let Some(room) = self.room.as_mut() {
            if let Some(link) = room.link.as_mut() {
                link.tick(t);
                while let Some(ice) = link.poll_local_ice() {
                    if let Some(s) = &room.socket {
                        s.send(&room_out::signal(&Signal {
                            attempt: 1,
                            kind: SignalKind::Ice {
                                candidate: ice.candidate,
                                sdp_mid: ice.sdp_mid,
                                sdp_m_line_index: ice.sdp_m_line_index,
                            },
                        }));
                    }
                }
                match link.state() {
                    LinkState::Open => room_opened = Some(room.host),
                    LinkState::Closed | LinkState::Failed => room_failed = true,
                    LinkState::Connecting => {}
                }
            }
        }
        if let Some(host) = room_opened {
            if let Some(mut room) = self.room.take() {
                if let Some(s) = &room.socket {
                    s.send(&room_out::done());
                }
                if let (Some(link), Some(c)) = (room.link.take(), self.client.as_mut()) {
                    c.match_connected(t);
                    self.start_match(link, host);
                }
            }
        } else if room_failed {
            self.room = None;
            if let Some(c) = self.client.as_mut() {
                c.match_failed(t);
            }
        }
        // Outputs.
        let mut changed = false;
        while let Some(out) = self.client.as_mut().and_then(LobbyClient::poll_output) {
            match out {
                Output::Changed => changed = true,
                other => self.carry_out(other),
            }
        }
        if changed {
            self.render_lobby();
        }
    }

    /// Opens a fresh mesh link to `id` for `attempt` (replacing any
    /// earlier one) and returns its handshake, or `None` when the browser
    /// refuses to create a peer connection.
    fn open_mesh_link(&mut self, id: &PeerId, attempt: u8) -> Option<webrtc_transport::Handshake> {
        let Ok(link) = WebRtcTransport::new(&self.ice, None, notify()) else {
            log::error!("could not create a peer connection");
            return None;
        };
        let hs = link.handshake();
        self.peers.insert(
            id.clone(),
            MeshPeer {
                attempt,
                link,
                reported_open: false,
                reported_closed: false,
            },
        );
        Some(hs)
    }

    fn carry_out(&mut self, out: Output) {
        match out {
            Output::Connect(_) => {
                self.presence_gen += 1;
                self.presence = None;
                self.peers.clear();
                self.presence = Socket::open(
                    &format!("{}/lobby/ws", self.ws_base),
                    SocketKind::Presence(self.presence_gen),
                );
                if self.presence.is_none() {
                    if let Some(c) = self.client.as_mut() {
                        c.socket_closed(now());
                    }
                }
            }
            Output::Disconnect => {
                self.presence_gen += 1;
                self.presence = None;
                self.peers.clear();
            }
            Output::ToServer(text) => {
                if let Some(s) = &self.presence {
                    s.send(&text);
                }
            }
            Output::Offer { id, attempt } => {
                let Some(hs) = self.open_mesh_link(&id, attempt) else {
                    return;
                };
                spawn_local(async move {
                    let offer = hs.create_offer().await;
                    relay_mesh_sdp(id, attempt, offer, SignalKind::Offer);
                });
            }
            Output::Remote { id, signal } => match signal.kind {
                SignalKind::Offer(sdp) => {
                    let attempt = signal.attempt;
                    let Some(hs) = self.open_mesh_link(&id, attempt) else {
                        return;
                    };
                    spawn_local(async move {
                        let answer = hs.accept_offer(&sdp).await;
                        relay_mesh_sdp(id, attempt, answer, SignalKind::Answer);
                    });
                }
                SignalKind::Answer(sdp) => {
                    if let Some(p) = self.peers.get(&id).filter(|p| p.attempt == signal.attempt) {
                        let hs = p.link.handshake();
                        spawn_local(async move {
                            if hs.accept_answer(&sdp).await.is_err() {
                                log::warn!("lobby: an answer was refused");
                            }
                        });
                    }
                }
                SignalKind::Ice {
                    candidate,
                    sdp_mid,
                    sdp_m_line_index,
                } => {
                    if let Some(p) = self.peers.get(&id).filter(|p| p.attempt == signal.attempt) {
                        p.link.handshake().add_remote_ice(IceCandidate {
                            candidate,
                            sdp_mid,
                            sdp_m_line_index,
                        });
                    }
                }
            },
            Output::ClosePeer(id) => {
                self.peers.remove(&id);
            }
            Output::ToPeer(id, text) => {
                if let Some(p) = self.peers.get_mut(&id) {
                    if let Err(e) = p.link.send(Channel::Reliable, text.as_bytes()) {
                        log::info!("lobby: could not send to a peer: {e}");
                    }
                }
            }
            Output::CreateRoom => self.create_room(),
            Output::CloseRoom | Output::LeaveRoom => {
                // `done` ends the room on the server at once rather than at
                // its TTL; then the socket closes as the room is dropped.
                if let Some(socket) = self.room.take().and_then(|r| r.socket) {
                    socket.send(&room_out::done());
                }
            }
            Output::JoinRoom(code) => self.join_room(code),
            Output::Chat { from, name, text } => self.add_chat(from.is_none(), &name, &text),
            Output::Notice(n) => self.add_notice(n.text()),
            Output::Changed => self.render_lobby(),
        }
    }

    fn add_chat(&self, mine: bool, name: &str, text: &str) {
        let d = &self.dom;
        let Some(log) = d.el("chat-log") else { return };
        let class = match (mine, text::looks_rtl(text)) {
            (true, true) => "chat-msg mine rtl",
            (true, false) => "chat-msg mine",
            (false, true) => "chat-msg rtl",
            (false, false) => "chat-msg",
        };
        let Some(line) = d.make("div", class, "") else {
            return;
        };
        if let (Some(who), Some(body)) = (
            d.display_name("div", "who", name),
            d.make("div", "text", text),
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

    fn add_notice(&mut self, text: String) {
        self.notices.push(text);
        if self.notices.len() > 5 {
            self.notices.remove(0);
        }
        let d = &self.dom;
        if let Some(box_) = d.el("notices") {
            box_.set_text_content(None);
            for n in &self.notices {
                if let Some(p) = d.make("p", "notice", n) {
                    let _ = p.set_attribute("dir", "auto");
                    // No direct path at setup: offer to challenge again.
                    if n.starts_with("Couldn't connect directly") {
                        if let Some(b) = self
                            .last_opponent
                            .as_ref()
                            .and_then(|id| d.button("Try again", "challenge", id, true))
                        {
                            let _ = b.set_attribute("class", "try-again");
                            let _ = p.append_child(&d.doc.create_text_node(" "));
                            let _ = p.append_child(&b);
                        }
                    }
                    let _ = box_.append_child(&p);
                }
            }
        }
    }

    fn render_lobby(&mut self) {
        let Some(c) = &self.client else { return };
        let d = &self.dom;
        let conn = c.connection();
        d.show("banner", conn.banner().is_some());
        d.set_text("banner-text", conn.banner().unwrap_or(""));
        d.show("retry", conn.retry_shown());
        d.set_attr(
            "lobby",
            "data-connection",
            match conn {
                crate::lobby::Connection::Online => "online",
                crate::lobby::Connection::Full => "full",
                crate::lobby::Connection::Retrying { .. } => "retrying",
                _ => "connecting",
            },
        );
        if let (Some(me), Some(name)) = (d.el("me"), d.display_name("span", "", &c.my_display())) {
            me.set_text_content(Some("You are "));
            let _ = me.append_child(&name);
        }
        let Some(list) = d.el("roster") else { return };
        let roster = c.roster();
        // Rebuild only on a real change, so buttons are not replaced under the pointer.
        if roster == self.last_roster && list.child_element_count() as usize == roster.len() {
            return;
        }
        list.set_text_content(None);
        for p in &roster {
            let Some(li) = d.make("li", "player", "") else {
                continue;
            };
            let _ = li.set_attribute("data-id", p.id.as_str());
            let status = match p.status {
                crate::protocol::PlayerStatus::Lobby => "in the lobby",
                crate::protocol::PlayerStatus::InMatch => "in a match",
            };
            let _ = li.set_attribute("data-status", status);
            let _ = li.set_attribute("data-link", p.link);
            let spans = [
                d.display_name("span", "name", &p.display),
                d.make("span", "status", status),
                d.make("span", "link", p.link),
            ];
            for span in spans.into_iter().flatten() {
                let _ = li.append_child(&span);
            }
            let mut buttons =
                vec![d.button(if p.muted { "Unmute" } else { "Mute" }, "mute", &p.id, true)];
            if p.can_challenge {
                buttons.push(d.button("Challenge", "challenge", &p.id, true));
            }
            if p.challenged_us {
                buttons.push(d.make("span", "incoming", "challenges you!"));
                buttons.push(d.button("Accept", "accept", &p.id, p.accept_enabled));
                buttons.push(d.button("Decline", "decline", &p.id, true));
            }
            if let Some(state) = p.our_challenge {
                buttons.push(d.make("span", "outgoing", state));
                buttons.push(d.button("Cancel", "cancel", &p.id, true));
            }
            for b in buttons.into_iter().flatten() {
                let _ = li.append_child(&b);
            }
            let _ = list.append_child(&li);
        }
        self.last_roster = roster;
    }

    fn roster_click(&mut self, action: &str, id: &str) {
        let Some(id) = PeerId::parse(id) else { return };
        let t = now();
        let Some(c) = self.client.as_mut() else {
            return;
        };
        if action == "challenge" || action == "accept" {
            self.last_opponent = Some(id.clone());
        }
        if action == "accept" {
            self.accepted_at = Some(t);
        }
        match action {
            "mute" => c.toggle_mute(t, &id),
            "challenge" => c.challenge(t, &id),
            "accept" => c.accept(t, &id),
            "decline" => c.decline(t, &id),
            "cancel" => c.cancel(t),
            _ => {}
        }
    }

    fn send_chat(&mut self) {
        let raw = self.dom.input_value("chat-input");
        let Some(c) = self.client.as_mut() else {
            return;
        };
        match c.send_chat(now(), &raw) {
            Ok(()) => {
                self.dom.set_input_value("chat-input", "");
                self.dom.set_text("chat-error", "");
            }
            Err(ChatError::RateLimited) => self
                .dom
                .set_text("chat-error", "Slow down: at most 2 messages a second."),
            Err(_) => {}
        }
    }

    // ----- frames --------------------------------------------------------------

    /// Called by a fast timer; runs one 60 Hz frame when one is due. A
    /// timer that fires a little late (up to two frames) keeps the
    /// schedule, so jitter costs no frames; after a longer stall of the
    /// page (a busy tab, a debugger) the missed frames are dropped rather
    /// than run in a burst to catch up.
    fn frame(&mut self) {
        let clock = web_sys::window()
            .and_then(|w| w.performance())
            .map_or(0.0, |p| p.now());
        let mut frames = FRAMES.get();
        if !frames.due(clock) {
            return;
        }
        FRAMES.set(frames);
        let t = now();
        let held: Vec<&str> = self.held.iter().map(String::as_str).collect();
        if self.screens.screen() == &Screen::LocalPlay {
            let result = self.game.local_frame(&held, &self.dom, self.local_speed);
            if result != self.local_result {
                let d = &self.dom;
                d.set_text("local-status", result.as_deref().unwrap_or(""));
                d.set_attr("local", "data-result", result.as_deref().unwrap_or(""));
                self.local_result = result;
            }
        }
        if self.screens.screen() != &Screen::Match {
            return;
        }
        let frame = self.game.match_frame(t, &held, &self.dom);
        let spent = web_sys::window()
            .and_then(|w| w.performance())
            .map_or(0.0, |p| p.now())
            - clock;
        if frame.ticked {
            if let Some(at) = self.accepted_at.take() {
                let ms = t.0.saturating_sub(at.0);
                self.dom
                    .set_attr("match", "data-accept-to-tick-ms", &ms.to_string());
            }
        }
        if self.frame_ms.len() < 100_000 {
            self.frame_ms.push(spent);
            self.dom
                .set_attr("match", "data-frames", &self.frame_ms.len().to_string());
        }
        if self.frame_ms.len() % 60 == 0 {
            let n = self.frame_ms.len() as f64;
            let mean = self.frame_ms.iter().sum::<f64>() / n;
            let mut sorted = self.frame_ms.clone();
            sorted.sort_by(f64::total_cmp);
            let p95 = sorted[(sorted.len() * 95 / 100).min(sorted.len() - 1)];
            self.dom.set_attr(
                "match",
                "data-frame-ms",
                &format!(
                    "{} {mean:.3} {:.3} {p95:.3}",
                    self.frame_ms.len(),
                    sorted[sorted.len() / 2]
                ),
            );
        }
        if let Some(msg) = frame.ended {
            self.dom.set_attr("match", "data-state", "ended");
            if let Some(c) = self.client.as_mut() {
                c.match_ended(t);
            }
            self.accepted_at = None;
            self.offer_log();
            self.screen_event(ScreenEvent::Ended(msg));
        }
    }

    /// Shows the download link of the last match's input log on the result
    /// screen.
    fn offer_log(&mut self) {
        if let Some(url) = self.log_url.take() {
            let _ = web_sys::Url::revoke_object_url(&url);
        }
        let Some(log) = self.game.last_log() else {
            self.dom.show("log-link", false);
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
        let d = &self.dom;
        d.set_attr("log-link", "href", &url);
        d.set_attr(
            "log-link",
            "download",
            &format!("{}-{:016x}.log", self.game.name().to_lowercase(), log.seed),
        );
        d.set_attr("result", "data-log-ticks", &log.ticks.to_string());
        d.set_attr("result", "data-log-hash", &format!("{:016x}", log.hash));
        d.show("log-link", true);
        self.log_url = Some(url);
    }

    /// The index picked in each local-play chooser (0 when missing).
    fn local_choices(&self) -> Vec<usize> {
        (0..self.game.local_options().len())
            .map(|i| {
                self.dom
                    .input_value(&format!("local-opt-{i}"))
                    .parse()
                    .unwrap_or(0)
            })
            .collect()
    }

    /// Fills the local-play chooser on the title screen from the front
    /// end's options (one `<select>` each).
    fn build_local_options(&self) {
        let d = &self.dom;
        let Some(box_) = d.el("local-options") else {
            return;
        };
        for (i, opt) in self.game.local_options().iter().enumerate() {
            let id = format!("local-opt-{i}");
            let (Some(label), Some(select)) =
                (d.make("label", "", opt.label), d.make("select", "", ""))
            else {
                continue;
            };
            let _ = label.set_attribute("for", &id);
            let _ = select.set_attribute("id", &id);
            for (v, choice) in opt.choices.iter().enumerate() {
                if let Some(o) = d.make("option", "", choice) {
                    let _ = o.set_attribute("value", &v.to_string());
                    let _ = select.append_child(&o);
                }
            }
            let _ = box_.append_child(&label);
            let _ = box_.append_child(&select);
        }
    }

    fn leave(&mut self) {
        match self.screens.screen() {
            // The Ended event is handled by the next frame.
            Screen::Match => self.game.quit_match(now()),
            _ => self.screen_event(ScreenEvent::Back),
        }
    }
}

enum LinkEvent {
    Ice(IceCandidate),
    Data(Vec<u8>),
    Open,
    Closed,
}

struct CanvasPainter {
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
        self.ctx.set_stroke_style_str(colour);
        self.ctx.set_line_width(width);
        self.ctx.set_line_cap("round");
        self.ctx.begin_path();
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
        self.ctx.set_stroke_style_str(colour);
        self.ctx.set_line_width(width);
        self.ctx.set_line_cap("butt");
        self.ctx.begin_path();
        let _ = self.ctx.ellipse(x, y, rx, ry, 0.0, start, end);
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

fn draw<F: FrontEnd>(dom: &Dom, front: &mut F, game: &F::Game) {
    let Some(canvas) = dom
        .el("canvas")
        .and_then(|e| e.dyn_into::<HtmlCanvasElement>().ok())
    else {
        return;
    };
    let Some(ctx) = canvas
        .get_context("2d")
        .ok()
        .flatten()
        .and_then(|c| c.dyn_into::<CanvasRenderingContext2d>().ok())
    else {
        return;
    };
    // Sharp on high-density screens: a backing store of device pixels, the
    // context scaled so the front end draws in CSS pixels.
    let ratio = web_sys::window().map_or(1.0, |w| w.device_pixel_ratio());
    let size = crate::canvas::canvas_size(f64::from(canvas.client_width()), ratio);
    if (canvas.width(), canvas.height()) != size.backing {
        canvas.set_width(size.backing.0);
        canvas.set_height(size.backing.1);
    }
    let _ = ctx.set_transform(size.scale, 0.0, 0.0, size.scale, 0.0, 0.0);
    let mut p = CanvasPainter {
        ctx,
        w: size.css.0,
        h: size.css.1,
    };
    front.draw(game, &mut p);
}

/// "tick" or "ticks" for `n` ticks.
fn ticks(n: u8) -> &'static str {
    if n == 1 {
        "tick"
    } else {
        "ticks"
    }
}

/// A promise that rejects after `ms` milliseconds.
fn timeout_promise(window: &web_sys::Window, ms: i32) -> js_sys::Promise {
    js_sys::Promise::new(&mut |_resolve, reject| {
        let _ = window.set_timeout_with_callback_and_timeout_and_arguments_0(&reject, ms);
    })
}

/// Fetches `url` and parses the JSON answer; with `timeout_ms`, a request
/// (or its body) that takes longer is an error. (A race with a timer rather
/// than `AbortSignal.timeout`, which older browsers lack.)
async fn fetch_json(url: &str, method: &str, timeout_ms: Option<i32>) -> Result<JsValue, JsValue> {
    let window = web_sys::window().ok_or("no window")?;
    let init = RequestInit::new();
    init.set_method(method);
    let timer = timeout_ms.map(|ms| timeout_promise(&window, ms));
    let bounded = |p: js_sys::Promise| match &timer {
        Some(t) => js_sys::Promise::race(&Array::of2(&p, t)),
        None => p,
    };
    let resp: Response = JsFuture::from(bounded(window.fetch_with_str_and_init(url, &init)))
        .await?
        .dyn_into()?;
    if !resp.ok() {
        return Err(JsValue::from_f64(f64::from(resp.status())));
    }
    JsFuture::from(bounded(resp.json()?)).await
}

fn wire(app: &mut App) {
    let d = &app.dom;
    let mut handlers = Vec::new();
    let click = |id: &str, handlers: &mut Vec<Handler>, f: fn(&mut App)| {
        if let Some(el) = d.el(id) {
            on(&el, "click", handlers, move |ev: JsValue| {
                if let Some(e) = ev.dyn_ref::<web_sys::Event>() {
                    e.prevent_default();
                }
                dispatch(f);
            });
        }
    };
    click("btn-local", &mut handlers, |a| {
        a.screen_event(ScreenEvent::ChooseLocal)
    });
    click("btn-online", &mut handlers, |a| {
        a.screen_event(ScreenEvent::ChooseOnline)
    });
    click("local-back", &mut handlers, |a| {
        a.screen_event(ScreenEvent::Back)
    });
    click("lobby-back", &mut handlers, |a| {
        a.screen_event(ScreenEvent::Back)
    });
    click("join", &mut handlers, App::join_lobby);
    click("retry", &mut handlers, |a| {
        if let Some(c) = a.client.as_mut() {
            c.retry_now(now());
        }
    });
    click("chat-send", &mut handlers, App::send_chat);
    click("leave", &mut handlers, App::leave);
    click("continue", &mut handlers, |a| {
        a.screen_event(ScreenEvent::Continue)
    });
    if let Some(sel) = d.el("netcode") {
        on(&sel, "change", &mut handlers, |_| {
            dispatch(|a| {
                let v = a.dom.input_value("netcode");
                if let Some(s) = web_sys::window().and_then(|w| w.local_storage().ok().flatten()) {
                    let _ = s.set_item("netplay.netcode", &v);
                }
            });
        });
    }
    // Buttons in the roster and in the notices (Try again) carry a
    // data-action and the player's data-id; one delegated handler each.
    for list in ["notices", "roster"].into_iter().filter_map(|id| d.el(id)) {
        on(&list, "click", &mut handlers, |ev: JsValue| {
            let target = ev
                .dyn_ref::<web_sys::Event>()
                .and_then(web_sys::Event::target)
                .and_then(|t| t.dyn_into::<Element>().ok());
            if let Some(b) = target {
                if let (Some(action), Some(id)) =
                    (b.get_attribute("data-action"), b.get_attribute("data-id"))
                {
                    dispatch(move |a| a.roster_click(&action, &id));
                }
            }
        });
    }
    if let Some(form) = d.el("chat-form") {
        on(&form, "submit", &mut handlers, |ev: JsValue| {
            if let Some(e) = ev.dyn_ref::<web_sys::Event>() {
                e.prevent_default();
            }
            dispatch(App::send_chat);
        });
    }
    if let Some(body) = d.doc.body() {
        on(&body, "keydown", &mut handlers, |ev: JsValue| {
            if let Some(k) = ev.dyn_ref::<KeyboardEvent>() {
                // Typing in a text field (chat, name) is not playing.
                if typing(k) {
                    return;
                }
                let code = k.code();
                // While a game runs, its keys must not scroll the page or
                // open quick find.
                let game_key = APP.with(|cell| {
                    cell.try_borrow().is_ok_and(|app| {
                        app.as_ref().is_some_and(|a| {
                            matches!(a.screens.screen(), Screen::LocalPlay | Screen::Match)
                                && a.game.is_game_key(&code)
                        })
                    })
                });
                if game_key && !k.ctrl_key() && !k.meta_key() && !k.alt_key() {
                    k.prevent_default();
                }
                dispatch(move |a| {
                    if !a.held.contains(&code) {
                        a.held.push(code);
                    }
                });
            }
        });
        on(&body, "keyup", &mut handlers, |ev: JsValue| {
            if let Some(k) = ev.dyn_ref::<KeyboardEvent>() {
                let code = k.code();
                let game_key = APP.with(|cell| {
                    cell.try_borrow()
                        .is_ok_and(|app| app.as_ref().is_some_and(|a| a.game.is_game_key(&code)))
                });
                if game_key && !typing(k) {
                    k.prevent_default();
                }
                dispatch(move |a| a.held.retain(|c| *c != code));
            }
        });
    }
    app._handlers = handlers;
}

/// Whether a key event comes from typing in a text field.
fn typing(k: &KeyboardEvent) -> bool {
    k.target()
        .and_then(|t| t.dyn_into::<Element>().ok())
        .is_some_and(|e| matches!(e.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT"))
}

/// The state hash after `tick` ticks of the last finished online match,
/// replayed from its input log (hex), or `undefined` when there is no such
/// match or it is shorter. For tests and tools: two pages of one match must
/// agree on every tick both confirmed.
#[wasm_bindgen(js_name = matchHashAt)]
pub fn match_hash_at(tick: u32) -> Option<String> {
    APP.with(|cell| {
        let app = cell.try_borrow().ok()?;
        let h = app.as_ref()?.game.log_hash_at(tick)?;
        Some(format!("{h:016x}"))
    })
}

/// Starts the shell with `front` as the game: wires the page (the elements
/// of `web-shell/www/index.html`), then runs the lobby timers every 100 ms
/// and game frames at 60 Hz. Call it once, from the game crate's
/// `#[wasm_bindgen(start)]` function.
pub fn run<F: FrontEnd + 'static>(front: F) -> Result<(), JsValue> {
    let _ = log::set_logger(&ConsoleLog);
    log::set_max_level(log::LevelFilter::Info);
    let window = web_sys::window().ok_or("no window")?;
    let doc = window.document().ok_or("no document")?;
    let slot = Slot {
        front,
        local: None,
        online: None,
        last_log: None,
    };
    let mut app = App::new(doc, Box::new(slot));
    wire(&mut app);
    let d = &app.dom;
    d.set_text("game-name", app.game.name());
    d.doc.set_title(app.game.name());
    d.set_text("build", &format!("build {:016x}", app.game.build_id()));
    if let Some(name) = window
        .local_storage()
        .ok()
        .flatten()
        .and_then(|s| s.get_item("netplay.name").ok().flatten())
    {
        d.set_input_value("name", &name);
    }
    app.build_local_options();
    if let Some(mode) = window
        .local_storage()
        .ok()
        .flatten()
        .and_then(|s| s.get_item("netplay.netcode").ok().flatten())
    {
        if let Some(sel) = d
            .el("netcode")
            .and_then(|e| e.dyn_into::<web_sys::HtmlSelectElement>().ok())
        {
            if mode == "lockstep" || mode == "rollback" {
                sel.set_value(&mode);
            }
        }
    }
    app.render_screen();
    APP.with(|cell| *cell.borrow_mut() = Some(app));
    // Timers: lobby and connection timers every 100 ms, frames at 60 Hz.
    let tick = Closure::<dyn FnMut()>::new(|| dispatch(|_| {}));
    window.set_interval_with_callback_and_timeout_and_arguments_0(
        tick.as_ref().unchecked_ref(),
        100,
    )?;
    tick.forget(); // lives as long as the page
                   // A 4 ms timer; App::frame keeps the 60 Hz timestep itself.
    let frame = Closure::<dyn FnMut()>::new(|| {
        let clock = web_sys::window()
            .and_then(|w| w.performance())
            .map_or(0.0, |p| p.now());
        if FRAMES.get().is_due(clock) {
            dispatch(App::frame);
        }
    });
    window.set_interval_with_callback_and_timeout_and_arguments_0(
        frame.as_ref().unchecked_ref(),
        4,
    )?;
    frame.forget(); // lives as long as the page
    Ok(())
}

/// The shell with the built-in demo game (feature `demo`, on by default). A
/// game crate turns the feature off and calls [`run`] with its own front end.
#[cfg(feature = "demo")]
#[wasm_bindgen(start)]
pub fn start() -> Result<(), JsValue> {
    run(crate::front_end::demo::DotsFrontEnd::default())
}
