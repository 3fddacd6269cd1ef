//! The browser's clock, randomness, storage and console, and what the
//! page knows about itself at start-up.

use crate::js::JsRead;
use crate::shell::logs::LineLog;
use crate::shell::PageFacts;
use js_sys::Reflect;
use lockstep::Millis;
use wasm_bindgen::{JsCast, JsValue};

/// The page clock (`performance.now()`, the page's or in the match
/// worker the worker's), in ms.
pub fn clock() -> f64 {
    let performance = prop(&js_sys::global(), "performance");
    performance
        .dyn_into::<web_sys::Performance>()
        .map_or(0.0, |p| p.now())
}

/// The page clock in whole milliseconds, for the shell.
pub fn now() -> Millis {
    crate::play::millis(clock())
}

/// Fills `buf` from `crypto.getRandomValues`; `false` when the browser
/// gives none (no `crypto`, or the call throws).
pub fn random(buf: &mut [u8]) -> bool {
    let Some(c) = web_sys::window().and_then(|w| w.crypto().ok()) else {
        return false;
    };
    if c.get_random_values_with_u8_array(buf).is_err() {
        log::error!("crypto.getRandomValues failed");
        return false;
    }
    true
}

/// Remembers a setting, when the browser allows storage.
pub fn store(key: &str, value: &str) {
    if let Some(s) = web_sys::window().and_then(|w| w.local_storage().ok().flatten()) {
        let _ = s.set_item(key, value);
    }
}

/// Keeps (or with `None` removes) a value in this tab's session storage,
/// when the browser allows it.
pub fn session_store(key: &str, value: Option<&str>) {
    if let Some(s) = web_sys::window().and_then(|w| w.session_storage().ok().flatten()) {
        let _ = match value {
            Some(v) => s.set_item(key, v),
            None => s.remove_item(key),
        };
    }
}

/// Puts `text` on the clipboard (`navigator.clipboard.writeText`). The
/// page shows the text too, so a browser without a clipboard, or one that
/// refuses (no focus, no permission), only costs a copy by hand.
pub fn copy(text: &str) {
    let clipboard = prop(&prop(&js_sys::global(), "navigator"), "clipboard");
    if !clipboard.has("writeText") {
        log::info!("no clipboard here: the link is shown to copy by hand");
        return;
    }
    let Ok(promise) = clipboard
        .call("writeText", Some(text))
        .dyn_into::<js_sys::Promise>()
    else {
        return;
    };
    wasm_bindgen_futures::spawn_local(async move {
        if wasm_bindgen_futures::JsFuture::from(promise).await.is_err() {
            log::info!("the browser refused the clipboard: the link is shown to copy by hand");
        }
    });
}

/// The page's address, configuration, browser features and stored
/// settings (read by the shell: [`PageFacts::read`]).
pub fn page_facts() -> PageFacts {
    PageFacts::read::<JsValue>(&js_sys::global().into(), random(&mut [0u8; 1]))
}

/// The gamepads connected (read by the shell: [`crate::pad::readings`]).
pub fn gamepads() -> Vec<crate::pad::Reading> {
    crate::pad::readings(&prop(&js_sys::global(), "navigator"))
}

/// `o[k]`, read by property (`undefined` when there is none, or `o` is
/// not an object).
fn prop(o: &JsValue, k: &str) -> JsValue {
    Reflect::get(o, &JsValue::from_str(k)).unwrap_or_default()
}

impl JsRead for JsValue {
    fn get(&self, key: &str) -> JsValue {
        prop(self, key)
    }
    fn call(&self, key: &str, arg: Option<&str>) -> JsValue {
        let Ok(f) = prop(self, key).dyn_into::<js_sys::Function>() else {
            return JsValue::UNDEFINED;
        };
        match arg {
            Some(a) => f.call1(self, &JsValue::from_str(a)),
            None => f.call0(self),
        }
        .unwrap_or_default()
    }
    fn has(&self, key: &str) -> bool {
        self.is_object() && Reflect::has(self, &JsValue::from_str(key)).unwrap_or(false)
    }
    fn number(&self) -> Option<f64> {
        self.as_f64()
    }
    fn boolean(&self) -> Option<bool> {
        self.as_bool()
    }
    fn text(&self) -> Option<String> {
        self.as_string()
    }
    fn items(&self) -> Vec<JsValue> {
        if js_sys::Array::is_array(self) {
            js_sys::Array::from(self).iter().collect()
        } else {
            Vec::new()
        }
    }
    fn is_object(&self) -> bool {
        JsValue::is_object(self)
    }
}

/// The page's logger: each line on the browser's console.
pub static CONSOLE: LineLog = LineLog {
    max: log::Level::Trace,
    write: |level, line| {
        let msg = JsValue::from_str(&line);
        match level {
            log::Level::Error => web_sys::console::error_1(&msg),
            log::Level::Warn => web_sys::console::warn_1(&msg),
            log::Level::Info => web_sys::console::info_1(&msg),
            _ => web_sys::console::debug_1(&msg),
        }
    },
};
