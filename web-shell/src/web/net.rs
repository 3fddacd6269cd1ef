//! WebSockets and HTTP requests, carried out for the shell.

use super::app::{dispatch, feed_later, Handler};
use crate::shell::{FetchId, Input, SocketId};
use js_sys::Object;
use std::collections::BTreeMap;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::{spawn_local, JsFuture};
use web_sys::{AbortController, AbortSignal, MessageEvent, RequestInit, Response, WebSocket};

struct Socket {
    ws: WebSocket,
    _handlers: Vec<Handler>,
}

impl Drop for Socket {
    fn drop(&mut self) {
        self.ws.set_onopen(None);
        self.ws.set_onmessage(None);
        self.ws.set_onclose(None);
        let _ = self.ws.close();
    }
}

/// The open sockets and the fetches under way, by the shell's ids.
#[derive(Default)]
pub struct Net {
    sockets: BTreeMap<SocketId, Socket>,
    fetches: BTreeMap<FetchId, AbortController>,
}

impl Net {
    /// Opens a socket; `false` when the browser refuses at once.
    pub fn open(&mut self, id: SocketId, url: &str) -> bool {
        let Ok(ws) = WebSocket::new(url) else {
            log::warn!("could not open a WebSocket");
            return false;
        };
        let on = |f: fn(SocketId, JsValue) -> Option<Input>| -> Handler {
            Closure::new(move |ev| f(id, ev).into_iter().for_each(feed_later))
        };
        let handlers = vec![
            on(|id, _| Some(Input::SocketOpened(id))),
            on(|id, ev| {
                let text = ev.dyn_into::<MessageEvent>().ok()?.data().as_string()?;
                Some(Input::SocketText(id, text))
            }),
            on(|id, _| Some(Input::SocketClosed(id))),
        ];
        ws.set_onopen(Some(handlers[0].as_ref().unchecked_ref()));
        ws.set_onmessage(Some(handlers[1].as_ref().unchecked_ref()));
        ws.set_onclose(Some(handlers[2].as_ref().unchecked_ref()));
        let socket = Socket {
            ws,
            _handlers: handlers,
        };
        self.sockets.insert(id, socket);
        true
    }

    /// Sends a text frame if the socket is open.
    pub fn send(&self, id: SocketId, text: &str) {
        let Some(s) = self.sockets.get(&id) else {
            return;
        };
        // A browser drops a send on a closing or closed socket with a
        // console error of its own rather than an exception, so ask first.
        if s.ws.ready_state() != WebSocket::OPEN {
            log::info!("not sent: the WebSocket is not open");
            return;
        }
        if s.ws.send_with_str(text).is_err() {
            log::info!("send on a closed WebSocket");
        }
    }

    /// Closes a socket; its events stop.
    pub fn close(&mut self, id: SocketId) {
        self.sockets.remove(&id);
    }

    /// Fetches `url` and feeds the body (or the failure) back as
    /// [`Input::Fetched`], unless it was aborted; the shell keeps the
    /// deadline.
    pub fn fetch(&mut self, id: FetchId, method: &'static str, url: String) {
        let Ok(abort) = AbortController::new() else {
            log::error!("could not make an AbortController");
            return;
        };
        let signal = abort.signal();
        self.fetches.insert(id, abort);
        spawn_local(async move {
            let body = fetch_text(&url, method, &signal).await.ok();
            if signal.aborted() {
                return; // given up by the shell, which expects no answer
            }
            dispatch(move |app| {
                // Its handle, unless a new fetch of this id replaced it.
                let ours = |a: &AbortController| Object::is(&a.signal(), &signal);
                if app.net.fetches.get(&id).is_some_and(ours) {
                    app.net.fetches.remove(&id);
                }
                app.feed(Input::Fetched(id, body));
            });
        });
    }

    /// Aborts a fetch the shell gave up on.
    pub fn abort(&mut self, id: FetchId) {
        if let Some(a) = self.fetches.remove(&id) {
            a.abort();
        }
    }
}

/// The body of a successful answer.
async fn fetch_text(url: &str, method: &str, stop: &AbortSignal) -> Result<String, JsValue> {
    let window = web_sys::window().ok_or("no window")?;
    let init = RequestInit::new();
    init.set_method(method);
    init.set_signal(Some(stop));
    let resp: Response = JsFuture::from(window.fetch_with_str_and_init(url, &init))
        .await?
        .dyn_into()?;
    if !resp.ok() {
        return Err(JsValue::from_f64(f64::from(resp.status())));
    }
    JsFuture::from(resp.text()?)
        .await?
        .as_string()
        .ok_or_else(|| "not text".into())
}
