//! The browser glue (wasm32 only): the page's entry point, the host's
//! dedicated worker on both of its ends, and the test probe.
//!
//! One module serves the page and the worker: `web-shell/www/worker.js`
//! loads it in the worker, where the start function finds no window and
//! returns, and the script hands every message to [`WorkerMain`].

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use authority::Millis;
use js_sys::{Array, ArrayBuffer, Uint8Array};
use lockstep::Channel;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent, Worker, WorkerOptions, WorkerType};

use crate::bridge::{self, FromWorker, LinkName, MAX_MESSAGE};
use crate::host_worker::HostWorker;
use crate::slot::{ArenaSlot, HostRunner, Probe};

thread_local! {
    /// What the page shows, shared with the slot (which updates it every
    /// match frame) for [`arena_probe`].
    static PROBE: Rc<RefCell<Probe>> = Rc::new(RefCell::new(Probe::default()));
}

/// The page's entry point. In the host's worker (no window) it does
/// nothing: the worker script calls [`worker_main`].
#[cfg(feature = "page")]
#[wasm_bindgen(start)]
pub fn start() -> Result<(), JsValue> {
    if web_sys::window().is_none() {
        return Ok(());
    }
    web_shell::run_game(Box::new(page_slot()))
}

/// The arena's slot for a page: its host in a worker, what it shows in
/// the `arenaProbe` export.
#[must_use]
pub fn page_slot() -> ArenaSlot {
    let probe = PROBE.with(Rc::clone);
    let make: crate::slot::MakeRunner = Box::new(|| match WorkerHost::spawn() {
        Ok(w) => Some(Box::new(w) as Box<dyn HostRunner>),
        Err(e) => {
            log::error!("arena: no worker for the host: {e:?}");
            None
        }
    });
    ArenaSlot::new(make, probe)
}

/// The arena's slot for a match worker (the arcade's hub runs its matches
/// in one): the host's simulation runs in that worker itself
/// ([`InlineHost`](crate::slot::InlineHost)), not in a worker of its own.
#[must_use]
pub fn match_worker_slot() -> ArenaSlot {
    let probe = PROBE.with(Rc::clone);
    let make: crate::slot::MakeRunner =
        Box::new(|| Some(Box::new(crate::slot::InlineHost::default()) as Box<dyn HostRunner>));
    ArenaSlot::new(make, probe)
}

/// What the page shows now, as JSON (see `arena_web::slot::Probe`): for
/// tests that compare the pages of one match.
#[wasm_bindgen(js_name = arenaProbe)]
#[must_use]
pub fn arena_probe() -> String {
    PROBE.with(|p| serde_json::to_string(&*p.borrow()).unwrap_or_default())
}

/// The frames a guest page drew since the last call, as JSON (see
/// `arena_web::slot::DrawnFrame`): for tests that compare every frame with
/// the host's state at the same moment.
#[wasm_bindgen(js_name = arenaFrames)]
#[must_use]
pub fn arena_frames() -> String {
    PROBE.with(|p| serde_json::to_string(&crate::slot::take_frames(p)).unwrap_or_default())
}

/// The page's seat and the ships it draws, as JSON: the small part of
/// [`arena_probe`], for tests that steer from what the page shows.
#[wasm_bindgen(js_name = arenaView)]
#[must_use]
pub fn arena_view() -> String {
    PROBE.with(|p| {
        let p = p.borrow();
        serde_json::json!({ "seat": p.seat, "ships": p.ships }).to_string()
    })
}

/// How many match frames drew a state so far (cheap to read every frame).
#[wasm_bindgen(js_name = arenaFrame)]
#[must_use]
pub fn arena_frame() -> f64 {
    #[allow(clippy::cast_precision_loss)]
    PROBE.with(|p| p.borrow().frame as f64)
}

/// The bytes of a message, if it is an `ArrayBuffer` of a sane size.
fn message_bytes(data: &JsValue) -> Option<Vec<u8>> {
    let buf = data.dyn_ref::<ArrayBuffer>()?;
    if buf.byte_length() as usize > MAX_MESSAGE {
        return None;
    }
    Some(Uint8Array::new(buf).to_vec())
}

fn post(target: &JsValue, bytes: &[u8], post: impl Fn(&JsValue, &JsValue) -> Result<(), JsValue>) {
    let arr = Uint8Array::from(bytes);
    let buf = arr.buffer();
    if let Err(e) = post(&buf, &Array::of1(&buf)) {
        log::warn!("arena: a message to {target:?} could not be posted: {e:?}");
    }
}

/// A datagram for a guest, with its link and channel.
type Datagram = (LinkName, Channel, Vec<u8>);

/// The page's end of the host's worker.
struct WorkerHost {
    worker: Worker,
    inbox: Rc<RefCell<VecDeque<FromWorker>>>,
    /// The datagrams for the guests, apart: the page sends them as they
    /// arrive.
    sends: Rc<RefCell<VecDeque<Datagram>>>,
    _on_message: Closure<dyn FnMut(MessageEvent)>,
}

impl WorkerHost {
    fn spawn() -> Result<WorkerHost, JsValue> {
        let opts = WorkerOptions::new();
        opts.set_type(WorkerType::Module);
        let worker = Worker::new_with_options("worker.js", &opts)?;
        let inbox = Rc::new(RefCell::new(VecDeque::new()));
        let sends = Rc::new(RefCell::new(VecDeque::new()));
        let (to, to_sends) = (Rc::clone(&inbox), Rc::clone(&sends));
        // Queues, never calls into the slot: the slot reads the inbox in
        // its next match frame. A datagram for a guest wakes the page
        // instead, whose shell takes it from the slot and sends it at once
        // (the page's frame is up to 16 ms away).
        let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
            match message_bytes(&e.data()).map(|b| bridge::decode::<FromWorker>(&b)) {
                Some(Ok(FromWorker::Send {
                    link,
                    reliable,
                    bytes,
                })) => {
                    let ch = if reliable {
                        Channel::Reliable
                    } else {
                        Channel::Unreliable
                    };
                    to_sends.borrow_mut().push_back((link, ch, bytes));
                    web_shell::wake();
                }
                Some(Ok(m)) => to.borrow_mut().push_back(m),
                _ => log::warn!("arena: a message from the host's worker did not decode"),
            }
        });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        Ok(WorkerHost {
            worker,
            inbox,
            sends,
            _on_message: on_message,
        })
    }
}

impl HostRunner for WorkerHost {
    fn post(&mut self, _now: Millis, msg: &bridge::ToWorker) {
        let w = &self.worker;
        post(w, &bridge::encode(msg), |m, t| {
            w.post_message_with_transfer(m, t)
        });
    }
    fn poll(&mut self, _now: Millis) -> Option<FromWorker> {
        self.inbox.borrow_mut().pop_front()
    }
    fn poll_send(&mut self) -> Option<Datagram> {
        self.sends.borrow_mut().pop_front()
    }
}

impl Drop for WorkerHost {
    fn drop(&mut self) {
        self.worker.terminate();
    }
}

/// The worker's log lines, on its console (the page's logger lives in the
/// page's instance of the module, not in this one).
struct WorkerLog;

impl log::Log for WorkerLog {
    fn enabled(&self, m: &log::Metadata<'_>) -> bool {
        m.level() <= log::Level::Info
    }
    fn log(&self, r: &log::Record<'_>) {
        if !self.enabled(r.metadata()) {
            return;
        }
        let line = JsValue::from_str(&format!("[host worker] {}", r.args()));
        match r.level() {
            log::Level::Error => web_sys::console::error_1(&line),
            log::Level::Warn => web_sys::console::warn_1(&line),
            _ => web_sys::console::info_1(&line),
        }
    }
    fn flush(&self) {}
}

/// The worker's end: the host itself. `worker.js` passes it every message
/// from the page and calls [`tick`](WorkerMain::tick) every few
/// milliseconds.
#[wasm_bindgen]
pub struct WorkerMain {
    host: HostWorker,
    scope: DedicatedWorkerGlobalScope,
}

/// Starts the host's side in this worker.
///
/// # Errors
///
/// When called outside a dedicated worker.
#[wasm_bindgen(js_name = workerMain)]
pub fn worker_main() -> Result<WorkerMain, JsValue> {
    let scope = js_sys::global().dyn_into::<DedicatedWorkerGlobalScope>()?;
    if log::set_logger(&WorkerLog).is_ok() {
        log::set_max_level(log::LevelFilter::Info);
    }
    Ok(WorkerMain {
        host: HostWorker::new(),
        scope,
    })
}

#[wasm_bindgen]
impl WorkerMain {
    fn now(&self) -> Millis {
        let ms = self.scope.performance().map_or(0.0, |p| p.now());
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        Millis(ms.max(0.0) as u64)
    }

    fn flush(&mut self) {
        while let Some(m) = self.host.poll() {
            let s = &self.scope;
            post(s, &bridge::encode(&m), |m, t| {
                s.post_message_with_transfer(m, t)
            });
        }
    }

    /// A message from the page (an `ArrayBuffer`; anything else is
    /// dropped).
    pub fn message(&mut self, data: &JsValue) {
        let now = self.now();
        match message_bytes(data) {
            Some(bytes) => self.host.handle_bytes(now, &bytes),
            None => log::warn!("arena worker: a message from the page was not a sane buffer"),
        }
        self.flush();
    }

    /// Runs the host's ticks that are due.
    pub fn tick(&mut self) {
        let now = self.now();
        self.host.tick(now);
        self.flush();
    }
}
