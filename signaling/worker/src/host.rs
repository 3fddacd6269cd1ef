//! Small pieces of glue shared by the entry Worker and the Durable Objects:
//! the clock, random bytes, logging, JSON responses, and the socket
//! attachments.

use std::sync::atomic::{AtomicBool, Ordering};

use signaling_core::{Action, Level, LobbyAttachment, LogRecord, Millis, RoomAttachment, SocketId};
use signaling_protocol::{error_body, heartbeat};
use worker::wasm_bindgen::{self, prelude::wasm_bindgen, JsCast, JsValue};
use worker::worker_sys::{DurableObjectState, WebSocketRequestResponsePair};
use worker::{js_sys, Date, Env, Response, Result, ScheduledTime, State, WebSocket};

use crate::config::Config;

/// Set once this isolate has reported ignored settings.
static CONFIG_CHECKED: AtomicBool = AtomicBool::new(false);

/// Milliseconds since the Unix epoch, as the Workers runtime tells it (the
/// clock only moves between I/O operations, which the machines are fine
/// with: time never goes backwards).
#[must_use]
pub fn now() -> Millis {
    Millis(Date::now().as_millis())
}

#[wasm_bindgen]
extern "C" {
    /// The Web Crypto CSPRNG.
    #[wasm_bindgen(js_namespace = crypto, js_name = getRandomValues, catch)]
    fn get_random_values(buf: &mut [u8]) -> std::result::Result<JsValue, JsValue>;
}

/// Fills `buf` from the runtime's cryptographically secure generator.
pub fn random_bytes(buf: &mut [u8]) -> Result<()> {
    get_random_values(buf)
        .map(|_| ())
        .map_err(worker::Error::from)
}

/// Reads the settings from the Worker's (or Durable Object's) environment.
#[must_use]
pub fn config(env: &Env) -> Config {
    Config::from_lookup(|name| env_text(env, name))
}

/// A variable's value as text. wrangler passes `[vars]` written as TOML
/// numbers or booleans through as such, so those are turned into text too.
fn env_text(env: &Env, name: &str) -> Option<String> {
    let value = worker::js_sys::Reflect::get(env.as_ref(), &JsValue::from_str(name)).ok()?;
    if let Some(text) = value.as_string() {
        Some(text)
    } else if let Some(number) = value.as_f64() {
        Some(format!("{number}"))
    } else {
        value.as_bool().map(|b| b.to_string())
    }
}

/// Writes log records at or above a level, one JSON object per line, to the
/// console method matching the level (Workers Logs keep them per level).
#[derive(Clone, Copy, Debug)]
pub struct Logger {
    min: Level,
}

impl Logger {
    /// A logger for this configuration. The first one made in an isolate
    /// warns about any variable the configuration had to ignore.
    #[must_use]
    pub fn new(config: &Config) -> Logger {
        let logger = Logger {
            min: config.log_level,
        };
        if !CONFIG_CHECKED.swap(true, Ordering::Relaxed) {
            for name in &config.ignored {
                logger
                    .record(&LogRecord::new(Level::Warn, "config.ignored").with("variable", *name));
            }
        }
        logger
    }

    /// Writes one record, if its level is high enough.
    pub fn record(&self, record: &LogRecord) {
        if record.level >= self.min {
            write_line(record.level, &record.to_json_line());
        }
    }

    /// Logs a failure of the runtime (storage, sockets, fetch) under
    /// `event`; see [`failure_record`].
    pub fn failure(&self, event: &'static str, error: &worker::Error) {
        self.record(&failure_record(event, error));
    }
}

/// The record for a runtime failure: the event and the kind of error (the
/// name of the `worker::Error` variant, a fixed word), never the error's
/// text, which could quote whatever the failed operation was given.
#[must_use]
pub fn failure_record(event: &'static str, error: &worker::Error) -> LogRecord {
    let kind: &'static str = error.into();
    LogRecord::new(Level::Error, event).with("error_kind", kind)
}

fn write_line(level: Level, line: &str) {
    match level {
        Level::Debug => worker::console_debug!("{line}"),
        Level::Info => worker::console_log!("{line}"),
        Level::Warn => worker::console_warn!("{line}"),
        Level::Error => worker::console_error!("{line}"),
    }
}

/// A JSON response with this status, and the service's security headers
/// ([`signaling_core::headers::API_HEADERS`]).
pub fn json_response(status: u16, body: String) -> Result<Response> {
    let mut builder = Response::builder()
        .with_status(status)
        .with_header("Content-Type", "application/json")?
        .with_header("Cache-Control", "no-store")?;
    for (name, value) in signaling_core::headers::API_HEADERS {
        builder = builder.with_header(name, value)?;
    }
    Ok(builder.fixed(body.into_bytes()))
}

/// An HTTP error with the JSON body `{"error": reason}`.
pub fn error_response(status: u16, reason: &str) -> Result<Response> {
    json_response(status, error_body(reason))
}

/// Registers the heartbeat ([`heartbeat::PING`] → [`heartbeat::PONG`]) as
/// the object's WebSocket auto-response: the runtime then answers a ping on
/// any of the object's sockets itself, without waking the object or
/// counting a Durable Object request, and remembers when it last did
/// ([`last_heartbeat`]). Called from each object's constructor.
pub fn answer_heartbeats(raw: &DurableObjectState, logger: &Logger) {
    let set = WebSocketRequestResponsePair::new(heartbeat::PING, heartbeat::PONG)
        .and_then(|pair| raw.set_websocket_auto_response(&pair));
    if let Err(e) = set {
        logger.failure("socket.auto_response_failed", &worker::Error::from(e));
    }
}

/// When the runtime last answered a heartbeat on `ws` by itself (see
/// [`answer_heartbeats`]), if it ever did. The `worker` crate has no
/// binding for `getWebSocketAutoResponseTimestamp`, so it is called by
/// name.
#[must_use]
pub fn last_heartbeat(raw: &DurableObjectState, ws: &WebSocket) -> Option<Millis> {
    let state: &JsValue = raw.as_ref();
    let get = js_sys::Reflect::get(
        state,
        &JsValue::from_str("getWebSocketAutoResponseTimestamp"),
    )
    .ok()?
    .dyn_into::<js_sys::Function>()
    .ok()?;
    let socket: &JsValue = ws.as_ref().as_ref();
    let at = get
        .call1(state, socket)
        .ok()?
        .dyn_into::<js_sys::Date>()
        .ok()?;
    let ms = at.get_time();
    (ms.is_finite() && ms >= 0.0).then_some(Millis(ms as u64))
}

/// The client's address, as Cloudflare's edge gives it in
/// `CF-Connecting-IP` (`wrangler dev` sets it from the connection, unless
/// the client sent one). Used only as the key of per-address caps: never
/// logged. `None` when missing or unreadable.
#[must_use]
pub fn client_address(req: &worker::Request) -> Option<std::net::IpAddr> {
    req.headers()
        .get("CF-Connecting-IP")
        .ok()
        .flatten()
        .and_then(|text| text.trim().parse().ok())
}

/// The tag a socket is accepted with, so it can be found again by id after
/// hibernation with `get_websockets_with_tag`.
#[must_use]
pub fn socket_tag(socket: SocketId) -> String {
    format!("s{}", socket.0)
}

/// What a socket's attachment holds once the machine has closed it: not a
/// valid machine attachment, so a restore skips the socket even if the
/// runtime still lists it while its close completes.
pub const CLOSED_ATTACHMENT: &str = "closed";

/// Stores a machine attachment (as JSON text) on a socket.
pub fn store_attachment(ws: &WebSocket, json: String) -> Result<()> {
    ws.serialize_attachment(json)
}

/// The socket's attachment text, if it has one.
#[must_use]
pub fn attachment_text(ws: &WebSocket) -> Option<String> {
    ws.deserialize_attachment::<String>().ok().flatten()
}

/// A machine's per-socket state, stored as JSON text in the attachment.
pub trait MachineAttachment {
    /// The attachment as JSON text.
    fn json(&self) -> String;
}

impl MachineAttachment for RoomAttachment {
    fn json(&self) -> String {
        self.to_json()
    }
}

impl MachineAttachment for LobbyAttachment {
    fn json(&self) -> String {
        self.to_json()
    }
}

impl MachineAttachment for signaling_core::RelayAttachment {
    fn json(&self) -> String {
        self.to_json()
    }
}

/// The accepted socket the machine calls `socket`, if it is still open.
///
/// After hibernation a restored machine may hand out the id of a socket it
/// closed earlier, while the runtime still lists that socket (its close not
/// yet complete) under the same tag; such a socket's attachment is marked
/// closed, so the live one is preferred.
#[must_use]
pub fn find_socket(state: &State, socket: SocketId) -> Option<WebSocket> {
    let mut fallback = None;
    for ws in state.get_websockets_with_tag(&socket_tag(socket)) {
        if attachment_text(&ws).as_deref() == Some(CLOSED_ATTACHMENT) {
            fallback.get_or_insert(ws);
        } else {
            return Some(ws);
        }
    }
    fallback
}

/// What the lobby, room and relay objects share around their sockets, so
/// that closing, failing and the rebuilding test setting are written once
/// ([`socket_closed`], [`socket_failed`], [`after_event`]).
// A Worker runs on one thread: these futures need no `Send` bound.
#[allow(async_fn_in_trait)]
pub trait SocketObject {
    /// The object's environment, for its settings.
    fn env(&self) -> &Env;
    /// Forgets the machine in memory, so that the next event rebuilds it
    /// from storage and the attachments, as after hibernation.
    fn forget_machine(&self);
    /// A socket closed or failed: tell the machine (if it knew the socket).
    async fn tell_machine_gone(&self, ws: &WebSocket, config: &Config);
}

/// After each event: with `REBUILD_EACH_EVENT=1` (tests), forget the
/// machine so the next event rebuilds it as after hibernation.
pub fn after_event(object: &impl SocketObject, config: &Config) {
    if config.rebuild_each_event {
        object.forget_machine();
    }
}

/// A socket's `websocket_close`: the machine is told, and the closing
/// handshake completed from our side (harmless if done).
pub async fn socket_closed(object: &impl SocketObject, ws: WebSocket) -> Result<()> {
    let config = config(object.env());
    object.tell_machine_gone(&ws, &config).await;
    let _ = ws.close(Some(1000), Some(""));
    after_event(object, &config);
    Ok(())
}

/// A socket's `websocket_error`: the machine is told.
pub async fn socket_failed(object: &impl SocketObject, ws: WebSocket) -> Result<()> {
    let config = config(object.env());
    object.tell_machine_gone(&ws, &config).await;
    after_event(object, &config);
    Ok(())
}

/// Carries out a machine's actions, in order. Returns true when one of them
/// was [`Action::Finished`] (the caller ends the room).
///
/// Takes no borrow of the machine: callers collect the actions first, drop
/// their borrow, then await this.
pub async fn perform<A: MachineAttachment>(
    state: &State,
    actions: Vec<Action<A>>,
    logger: &Logger,
) -> bool {
    let mut finished = false;
    for action in actions {
        finished |= perform_one(state, action, logger).await;
    }
    finished
}

/// Carries out one action (see [`perform`]); true for [`Action::Finished`].
pub async fn perform_one<A: MachineAttachment>(
    state: &State,
    action: Action<A>,
    logger: &Logger,
) -> bool {
    match action {
        Action::Send { socket, text } => {
            // A socket closing at the same moment is normal; its close
            // event follows and tells the machine.
            let sent = find_socket(state, socket).is_some_and(|ws| ws.send_with_str(&text).is_ok());
            if !sent {
                logger.record(&LogRecord::new(Level::Debug, "socket.send_skipped"));
            }
        }
        Action::Close {
            socket,
            code,
            reason,
        } => {
            if let Some(ws) = find_socket(state, socket) {
                let _ = store_attachment(&ws, CLOSED_ATTACHMENT.to_owned());
                if ws.close(Some(code), Some(reason)).is_err() {
                    logger.record(&LogRecord::new(Level::Debug, "socket.close_skipped"));
                }
            }
        }
        Action::Persist { socket, attachment } => {
            if let Some(ws) = find_socket(state, socket) {
                if let Err(e) = store_attachment(&ws, attachment.json()) {
                    logger.failure("socket.attachment_failed", &e);
                }
            }
        }
        Action::SetAlarm(at) => {
            logger.record(
                &LogRecord::new(Level::Debug, "alarm.set")
                    .with("at", at.0)
                    .with("now", now().0),
            );
            let when = js_sys::Date::new(&JsValue::from_f64(at.0 as f64));
            if let Err(e) = state.storage().set_alarm(ScheduledTime::new(when)).await {
                logger.failure("storage.alarm_failed", &e);
            }
        }
        Action::Log(record) => logger.record(&record),
        Action::Finished => return true,
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_log_the_kind_of_error_never_its_text() {
        let error = worker::Error::RustError("nick Ann sent {\"sdp\":\"v=0\"}".into());
        let line = failure_record("storage.alarm_failed", &error).to_json_line();
        let v: serde_json::Value = serde_json::from_str(&line).unwrap_or_default();
        assert_eq!(
            v,
            serde_json::json!({
                "level": "error",
                "event": "storage.alarm_failed",
                "error_kind": "RustError",
            })
        );
        let line = failure_record("x", &worker::Error::JsError("Ann".into())).to_json_line();
        assert!(line.contains("\"error_kind\":\"JsError\"") && !line.contains("Ann"));
    }
}
