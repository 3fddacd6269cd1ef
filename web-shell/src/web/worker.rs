//! The dedicated worker that runs the online match, on both of its ends
//! (see [`crate::shell::worker`]). One module serves the page and the
//! worker: `www/match-worker.js` loads it in the worker, where the game
//! crate's start function calls [`run_game`](super::run_game), which finds
//! no window and keeps the game's slot here for [`match_worker_main`].

use super::platform::now;
use crate::js::JsRead;
use crate::shell::logs::LineLog;
use crate::shell::worker::{self, MatchWorker, WorkerPort, MAX_MESSAGE};
use crate::shell::GameSlot;
use js_sys::{Array, ArrayBuffer, Uint8Array};
use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent, Worker, WorkerOptions, WorkerType};

thread_local! {
    /// The game's slot, in the worker, until the worker script starts.
    static GAME: RefCell<Option<Box<dyn GameSlot>>> = const { RefCell::new(None) };
    /// The worker's log lines not yet handed to the page.
    static LINES: RefCell<Vec<(u8, String)>> = const { RefCell::new(Vec::new()) };
    /// The page's newest match worker, for [`crash_match_worker`].
    static NEWEST: RefCell<Option<Worker>> = const { RefCell::new(None) };
}

/// Tells the page's match worker to crash, as a worker that hits a bug
/// would: for the test that the page then ends the match cleanly.
/// `false` when the page has no worker.
#[wasm_bindgen(js_name = crashMatchWorker)]
#[must_use]
pub fn crash_match_worker() -> bool {
    let post = worker::crash_post();
    NEWEST.with(|w| match (w.borrow().as_ref(), post) {
        (Some(w), Some(bytes)) => {
            post_to(|b, l| w.post_message_with_transfer(b, l), &bytes).is_ok()
        }
        _ => false,
    })
}

/// Keeps the game's slot for the worker's [`match_worker_main`].
pub fn keep_for_worker(game: Box<dyn GameSlot>) {
    GAME.with(|g| *g.borrow_mut() = Some(game));
}

/// The bytes of a message, if it is an `ArrayBuffer` of a sane size.
fn message_bytes(data: &JsValue) -> Option<Vec<u8>> {
    let buf = data.dyn_ref::<ArrayBuffer>()?;
    if buf.byte_length() as usize > MAX_MESSAGE {
        return None;
    }
    Some(Uint8Array::new(buf).to_vec())
}

/// Posts `bytes` with `post` (a worker's or a worker scope's
/// `postMessage`) as a fresh `ArrayBuffer` that the post transfers.
fn post_to(
    post: impl FnOnce(&JsValue, &JsValue) -> Result<(), JsValue>,
    bytes: &[u8],
) -> Result<(), JsValue> {
    let buf: JsValue = Uint8Array::from(bytes).buffer().into();
    post(&buf, &Array::of1(&buf))
}

/// The worker's log: its lines go to the page, which logs them as its own.
/// A line logged while the list is in use (never, in one thread) is
/// dropped rather than panicking.
static TO_PAGE: LineLog = LineLog {
    max: log::Level::Info,
    write: |level, line| {
        LINES.with(|l| {
            if let Ok(mut l) = l.try_borrow_mut() {
                l.push((worker::log_level(level), line));
            }
        });
    },
};

/// The page's end of the match worker.
struct PagePort {
    worker: Worker,
    inbox: Rc<RefCell<VecDeque<Vec<u8>>>>,
    failed: Rc<RefCell<Option<String>>>,
    _on_message: Closure<dyn FnMut(MessageEvent)>,
    _on_error: Closure<dyn FnMut(JsValue)>,
}

/// Starts a match worker for the page.
pub fn spawn() -> Option<Box<dyn WorkerPort>> {
    let opts = WorkerOptions::new();
    opts.set_type(WorkerType::Module);
    let worker = match Worker::new_with_options("match-worker.js", &opts) {
        Ok(w) => w,
        Err(e) => {
            log::error!("no match worker: {e:?}");
            return None;
        }
    };
    let inbox = Rc::new(RefCell::new(VecDeque::new()));
    let failed = Rc::new(RefCell::new(None));
    let to = Rc::clone(&inbox);
    // Queues and wakes the page, whose shell then sends the worker's
    // datagrams at once (they are the match's, and a hidden page's frames
    // are far apart).
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
        match message_bytes(&e.data()) {
            Some(b) => {
                to.borrow_mut().push_back(b);
                super::wake();
            }
            None => log::warn!("a post from the match worker was not a sane buffer"),
        }
    });
    let why = Rc::clone(&failed);
    let on_error = Closure::<dyn FnMut(JsValue)>::new(move |e: JsValue| {
        let text = worker::error_text(e.get("message").text());
        why.borrow_mut().get_or_insert(text);
        super::wake();
    });
    NEWEST.with(|w| *w.borrow_mut() = Some(worker.clone()));
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    let _ =
        worker.add_event_listener_with_callback("messageerror", on_error.as_ref().unchecked_ref());
    Some(Box::new(PagePort {
        worker,
        inbox,
        failed,
        _on_message: on_message,
        _on_error: on_error,
    }))
}

impl WorkerPort for PagePort {
    fn post(&mut self, bytes: Vec<u8>) {
        if let Err(e) = post_to(|b, l| self.worker.post_message_with_transfer(b, l), &bytes) {
            log::warn!("a message for the match worker could not be posted: {e:?}");
        }
    }
    fn poll(&mut self) -> Option<Vec<u8>> {
        self.inbox.borrow_mut().pop_front()
    }
    fn failed(&self) -> Option<String> {
        self.failed.borrow().clone()
    }
}

impl Drop for PagePort {
    fn drop(&mut self) {
        self.worker.set_onmessage(None);
        self.worker.set_onerror(None);
        self.worker.terminate();
    }
}

/// The worker's end: `match-worker.js` passes it every message from the
/// page and calls [`tick`](MatchWorkerMain::tick) every few milliseconds.
#[wasm_bindgen]
pub struct MatchWorkerMain {
    core: MatchWorker,
    scope: DedicatedWorkerGlobalScope,
}

/// Starts the match's side in this worker, with the game the module's
/// start function kept.
///
/// # Errors
///
/// When called outside a dedicated worker.
#[wasm_bindgen(js_name = matchWorkerMain)]
pub fn match_worker_main() -> Result<MatchWorkerMain, JsValue> {
    let scope = js_sys::global().dyn_into::<DedicatedWorkerGlobalScope>()?;
    TO_PAGE.install();
    let game = GAME.with(|g| g.borrow_mut().take());
    let mut main = MatchWorkerMain {
        core: MatchWorker::new(game),
        scope,
    };
    main.flush();
    Ok(main)
}

#[wasm_bindgen]
impl MatchWorkerMain {
    fn flush(&mut self) {
        for (level, line) in LINES.with(|l| std::mem::take(&mut *l.borrow_mut())) {
            self.core.log(level, &line);
        }
        while let Some(bytes) = self.core.poll() {
            if let Err(e) = post_to(|b, l| self.scope.post_message_with_transfer(b, l), &bytes) {
                log::warn!("a message for the page could not be posted: {e:?}");
            }
        }
    }

    /// A message from the page (an `ArrayBuffer`; anything else is
    /// dropped).
    pub fn message(&mut self, data: &JsValue) {
        let now = now();
        let crash = match message_bytes(data) {
            Some(bytes) => self.core.handle_bytes(now, &bytes),
            None => {
                log::warn!("match worker: a post from the page was not a sane buffer");
                false
            }
        };
        self.flush();
        if crash {
            wasm_bindgen::throw_str("the match worker was told to crash");
        }
    }

    /// Runs the match's frame when one is due; `true` while a match runs
    /// (the script then calls again within a few milliseconds, and less
    /// often while the worker waits for a match).
    pub fn tick(&mut self) -> bool {
        let now = now();
        self.core.tick(now);
        self.flush();
        self.core.running()
    }
}
