//! The browser's clock, randomness, storage and console, and what the
//! page knows about itself at start-up.

use crate::shell::{PageFacts, STORED_KEYS};
use js_sys::Reflect;
use lockstep::Millis;
use wasm_bindgen::{JsCast, JsValue};

/// The page clock (`performance.now()`), in ms.
pub fn clock() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
}

/// The page clock in whole milliseconds, for the shell.
pub fn now() -> Millis {
    Millis(clock().max(0.0) as u64)
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

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

/// Remembers a setting, when the browser allows storage.
pub fn store(key: &str, value: &str) {
    if let Some(s) = storage() {
        let _ = s.set_item(key, value);
    }
}

fn session_storage() -> Option<web_sys::Storage> {
    web_sys::window()?.session_storage().ok().flatten()
}

/// Keeps (or with `None` removes) a value in this tab's session storage,
/// when the browser allows it.
pub fn session_store(key: &str, value: Option<&str>) {
    if let Some(s) = session_storage() {
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
    let clipboard =
        Some(prop(&prop(&js_sys::global(), "navigator"), "clipboard")).filter(JsValue::is_object);
    let write = clipboard
        .as_ref()
        .and_then(|c| prop(c, "writeText").dyn_into::<js_sys::Function>().ok());
    let (Some(clipboard), Some(write)) = (clipboard, write) else {
        log::info!("no clipboard here: the link is shown to copy by hand");
        return;
    };
    let Ok(promise) = write
        .call1(&clipboard, &JsValue::from_str(text))
        .and_then(JsCast::dyn_into::<js_sys::Promise>)
    else {
        return;
    };
    wasm_bindgen_futures::spawn_local(async move {
        if wasm_bindgen_futures::JsFuture::from(promise).await.is_err() {
            log::info!("the browser refused the clipboard: the link is shown to copy by hand");
        }
    });
}

/// The page's address, configuration and browser features.
pub fn page_facts() -> PageFacts {
    let window = web_sys::window();
    let location = window.as_ref().map(web_sys::Window::location);
    let search = location
        .as_ref()
        .and_then(|l| l.search().ok())
        .unwrap_or_default();
    let has = |name: &str| {
        window
            .as_ref()
            .is_some_and(|w| Reflect::has(w, &JsValue::from_str(name)).unwrap_or(false))
    };
    PageFacts {
        configured: window
            .as_ref()
            .and_then(|w| Reflect::get(w, &JsValue::from_str("SIGNALING_URL")).ok())
            .and_then(|v| v.as_string())
            .filter(|s| !s.is_empty()),
        origin: location
            .as_ref()
            .and_then(|l| l.origin().ok())
            .unwrap_or_default(),
        path: location
            .as_ref()
            .and_then(|l| l.pathname().ok())
            .unwrap_or_default(),
        has_webrtc: has("RTCPeerConnection") && has("WebSocket"),
        has_random: random(&mut [0u8; 1]),
        touch_device: touch_device(),
        stored: STORED_KEYS
            .into_iter()
            .filter_map(|k| Some((k, storage()?.get_item(k).ok()??)))
            .collect(),
        rejoin_record: session_storage()
            .and_then(|s| s.get_item(crate::shell::rejoin::RECORD_KEY).ok()?),
        clock_origin_ms: window
            .as_ref()
            .and_then(web_sys::Window::performance)
            .map_or(0, |p| p.time_origin() as u64),
        search,
    }
}

/// `o[k]`, read by property (`undefined` when there is none, or `o` is
/// not an object).
fn prop(o: &JsValue, k: &str) -> JsValue {
    Reflect::get(o, &JsValue::from_str(k)).unwrap_or_default()
}

/// The `log` crate's records on the browser console.
pub struct ConsoleLog;

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

/// The gamepads connected (`navigator.getGamepads()`): none without the
/// API. Read by property, so whatever object the browser (or a test's
/// stand-in) hands over is taken as it is; the shell bounds the counts.
pub fn gamepads() -> Vec<crate::pad::Reading> {
    let list = |v: JsValue| -> Vec<JsValue> {
        if js_sys::Array::is_array(&v) {
            js_sys::Array::from(&v).iter().collect()
        } else {
            Vec::new()
        }
    };
    let nav = prop(&js_sys::global(), "navigator");
    let Ok(f) = prop(&nav, "getGamepads").dyn_into::<js_sys::Function>() else {
        return Vec::new();
    };
    list(f.call0(&nav).unwrap_or_default())
        .into_iter()
        .filter(|p| p.is_object() && prop(p, "connected").as_bool() != Some(false))
        .map(|p| crate::pad::Reading {
            index: prop(&p, "index").as_f64().unwrap_or(0.0) as u32,
            standard: prop(&p, "mapping").as_string().as_deref() == Some("standard"),
            pressed: list(prop(&p, "buttons"))
                .iter()
                .map(|b| prop(b, "pressed").as_bool().unwrap_or(false))
                .collect(),
            axes: list(prop(&p, "axes"))
                .iter()
                .map(|a| a.as_f64().unwrap_or(0.0))
                .collect(),
        })
        .collect()
}

/// Whether the device has a touch screen: `navigator.maxTouchPoints > 0`,
/// or the primary pointer is coarse (`matchMedia('(pointer: coarse)')`).
fn touch_device() -> bool {
    let global = js_sys::global();
    let points = prop(&prop(&global, "navigator"), "maxTouchPoints")
        .as_f64()
        .unwrap_or(0.0);
    let coarse = prop(&global, "matchMedia")
        .dyn_into::<js_sys::Function>()
        .ok()
        .and_then(|f| {
            f.call1(&global, &JsValue::from_str("(pointer: coarse)"))
                .ok()
        })
        .is_some_and(|m| prop(&m, "matches").as_bool() == Some(true));
    points > 0.0 || coarse
}
