//! WebSockets and HTTP requests, carried out for the shell.

use super::app::{dispatch, Handler};
use crate::shell::{FetchId, Input, SocketId};
use std::collections::BTreeMap;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::{spawn_local, JsFuture};
use web_sys::{MessageEvent, RequestInit, Response, WebSocket};

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

/// The open sockets, by the shell's id.
#[derive(Default)]
pub struct Net {
    sockets: BTreeMap<SocketId, Socket>,
}

impl Net {
    /// Opens a socket; `false` when the browser refuses at once.
    pub fn open(&mut self, id: SocketId, url: &str) -> bool {
        let Ok(ws) = WebSocket::new(url) else {
            log::warn!("could not open a WebSocket");
            return false;
        };
        let on_open = Closure::<dyn FnMut(JsValue)>::new(move |_| {
            dispatch(move |app| app.feed(Input::SocketOpened(id)));
        });
        let on_msg = Closure::<dyn FnMut(JsValue)>::new(move |ev: JsValue| {
            let text = ev
                .dyn_into::<MessageEvent>()
                .ok()
                .and_then(|m| m.data().as_string());
            if let Some(text) = text {
                dispatch(move |app| app.feed(Input::SocketText(id, text)));
            }
        });
        let on_close = Closure::<dyn FnMut(JsValue)>::new(move |_| {
            dispatch(move |app| app.feed(Input::SocketClosed(id)));
        });
        ws.set_onopen(Some(on_open.as_ref().unchecked_ref()));
        ws.set_onmessage(Some(on_msg.as_ref().unchecked_ref()));
        ws.set_onclose(Some(on_close.as_ref().unchecked_ref()));
        self.sockets.insert(
            id,
            Socket {
                ws,
                _handlers: vec![on_open, on_msg, on_close],
            },
        );
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
}

/// Fetches `url` and feeds the body (or the failure) back as
/// [`Input::Fetched`]; the shell keeps the deadline.
pub fn fetch(id: FetchId, method: &'static str, url: String) {
    spawn_local(async move {
        let body = fetch_text(&url, method).await.ok();
        dispatch(move |app| app.feed(Input::Fetched(id, body)));
    });
}

/// The body of a successful answer.
async fn fetch_text(url: &str, method: &str) -> Result<String, JsValue> {
    let window = web_sys::window().ok_or("no window")?;
    let init = RequestInit::new();
    init.set_method(method);
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
