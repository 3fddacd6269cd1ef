//! The match relay on the Worker: one Durable Object per relayed two-seat
//! room, named by the room's code (`idFromName(code)` in the `RELAYS`
//! namespace), and one per relayed pair of a member room, named by the
//! code and the pair (`idFromName("<code>/<low>-<high>")`,
//! [`RelayName::object_name`]), each hosting the core's [`Relay`] machine.
//!
//! What it keeps where, so that it hibernates like the room:
//! * the relay's facts ([`RelayMeta`]: code, creation, expiry, pair) in Durable
//!   Object storage under `meta`, written when the first side arrives;
//! * each socket's side and rate window in the socket's attachment;
//! * the expiry as the object's alarm.
//!
//! The entry Worker only routes, by the form of the ticket (which names the
//! pair, if any): this object checks the ticket (with the key from
//! `RELAY_KEY`) and answers the upgrade itself, so a refusal says exactly
//! what the embedded server's says. A ticket whose signature fails is
//! refused wherever it was routed; a good one for another relay than this
//! object's (which the entry Worker never sends) is refused too. A frame
//! is handed to the machine as its length; when the machine says to
//! forward it, the same bytes go out on the other side's socket.

// `#[durable_object]` generates undocumented JavaScript bindings.
#![allow(missing_docs)]

use std::cell::RefCell;

use signaling_core::{
    check_ticket, Action, Level, LogRecord, Relay, RelayAction, RelayAttachment, RelayEvent,
    RelayMeta, RelayName, RelayRefusal, RoomCode,
};
use signaling_protocol::RelayTicket;
use worker::{
    durable_object, DurableObject, Env, Method, Request, Response, Result, State, WebSocket,
    WebSocketIncomingMessage, WebSocketPair,
};

use crate::config::Config;
use crate::host::{
    self, attachment_text, error_response, find_socket, socket_tag, store_attachment, Logger,
    CLOSED_ATTACHMENT,
};
use crate::room::is_websocket_upgrade;
use crate::route::{query_param, Route};

/// Storage key of the relay's [`RelayMeta`] (JSON text).
const META_KEY: &str = "meta";

/// `/relay/<segment>/ws` → the relay route, or [`Route::UnknownRelay`]
/// when the segment is not a room code.
#[must_use]
pub fn relay_socket_path(path: &str) -> Option<Route> {
    let code = path.strip_prefix("/relay/")?.strip_suffix("/ws")?;
    if code.contains('/') {
        return None;
    }
    Some(match RoomCode::parse(code) {
        Some(code) => Route::RelaySocket(code),
        None => Route::UnknownRelay,
    })
}

/// The relay an upgrade's ticket asks for, by its form alone (the relay's
/// object checks the signature): a member room's pair when the ticket
/// names one, else the room's own relay (also for a malformed or missing
/// ticket, which that object refuses).
#[must_use]
pub fn wanted_relay(code: &RoomCode, query: &str) -> RelayName {
    let pair = query_param(query, "ticket")
        .and_then(RelayTicket::parse)
        .and_then(|t| t.pair());
    RelayName {
        code: code.clone(),
        pair,
    }
}

/// Passes a client's relay upgrade to the object of the relay its ticket
/// names.
pub async fn forward(req: Request, env: &Env, code: &RoomCode) -> Result<Response> {
    let url = req.url()?;
    let name = wanted_relay(code, url.query().unwrap_or(""));
    let stub = env
        .durable_object(crate::RELAYS_BINDING)?
        .id_from_name(&name.object_name())?
        .get_stub()?;
    stub.fetch_with_request(req).await
}

/// The relay's Durable Object.
#[durable_object]
pub struct RelayObject {
    state: State,
    env: Env,
    /// The machine, while the object is awake and the relay exists.
    relay: RefCell<Option<Relay>>,
}

impl DurableObject for RelayObject {
    fn new(state: State, env: Env) -> Self {
        RelayObject {
            state,
            env,
            relay: RefCell::new(None),
        }
    }

    async fn fetch(&self, req: Request) -> Result<Response> {
        let config = host::config(&self.env);
        let result = self.on_request(req, &config).await;
        host::after_event(self, &config);
        result
    }

    async fn alarm(&self) -> Result<Response> {
        let config = host::config(&self.env);
        let logger = Logger::new(&config);
        if self.load(&config, &logger).await? {
            let actions = self.with_relay(|r| r.handle(RelayEvent::Alarm, host::now()));
            self.carry_out(actions, None, &logger).await;
        }
        host::after_event(self, &config);
        Response::empty()
    }

    async fn websocket_message(
        &self,
        ws: WebSocket,
        message: WebSocketIncomingMessage,
    ) -> Result<()> {
        let config = host::config(&self.env);
        let result = self.on_message(&ws, message, &config).await;
        host::after_event(self, &config);
        result
    }

    async fn websocket_close(
        &self,
        ws: WebSocket,
        _code: usize,
        _reason: String,
        _was_clean: bool,
    ) -> Result<()> {
        host::socket_closed(self, ws).await
    }

    async fn websocket_error(&self, ws: WebSocket, _error: worker::Error) -> Result<()> {
        host::socket_failed(self, ws).await
    }
}

impl RelayObject {
    /// A client's upgrade, forwarded by the entry Worker.
    async fn on_request(&self, req: Request, config: &Config) -> Result<Response> {
        let logger = Logger::new(config);
        let url = req.url()?;
        let code = match relay_socket_path(url.path()) {
            Some(Route::RelaySocket(code)) if req.method() == Method::Get => code,
            _ => return error_response(404, "no relay at this address"),
        };
        let Some(key) = config.room.relay_key else {
            return error_response(404, "this service has no relay");
        };
        let now = host::now();
        let ticket = query_param(url.query().unwrap_or(""), "ticket");
        let (name, role) = match check_ticket(&key, &code, ticket, now) {
            Ok(place) => (place.relay, place.role),
            Err(refusal) => {
                logger.record(
                    &LogRecord::new(Level::Warn, "relay.refused").with("reason", refusal.reason()),
                );
                return error_response(refusal.status(), refusal.reason());
            }
        };
        if !is_websocket_upgrade(&req) {
            return error_response(426, "expected a WebSocket upgrade");
        }
        let live = self.load(config, &logger).await?
            && self
                .with_relay_ref(|r| !r.is_finished() && now < r.meta().expires_at)
                .unwrap_or(false);
        // This object serves the relay its name was made from; the entry
        // Worker routes by the ticket, so another relay's ticket here is a
        // routing fault, refused like a ticket not for this relay.
        if live && self.with_relay_ref(|r| r.meta().name()) != Some(name.clone()) {
            let refusal = RelayRefusal::BadTicket;
            logger.record(
                &LogRecord::new(Level::Warn, "relay.refused").with("reason", refusal.reason()),
            );
            return error_response(refusal.status(), refusal.reason());
        }
        // The relay's own refusal first (that side is connected); then the
        // day's budgets, which charge only an upgrade the relay would take.
        if live {
            if let Some(Err(refusal)) = self.with_relay_ref(|r| r.check_admission(role, now)) {
                logger.record(
                    &LogRecord::new(Level::Warn, "relay.refused").with("reason", refusal.reason()),
                );
                return error_response(refusal.status(), refusal.reason());
            }
        }
        let client = host::client_address(&req);
        if let Some(refusal) =
            crate::budget::charge_then(&self.state, &self.env, config, logger, client, "relay-ws")
                .await?
        {
            return Ok(refusal);
        }
        // Another event may have ended the relay (or, in tests, dropped
        // the machine) while the budgets answered.
        let live = self.load(config, &logger).await?
            && self
                .with_relay_ref(|r| !r.is_finished() && now < r.meta().expires_at)
                .unwrap_or(false);
        if !live {
            self.create(name, config, &logger).await?;
        }
        let admitted = self.relay.borrow_mut().as_mut().map(|r| r.admit(role, now));
        let (socket, actions) = match admitted {
            None => return error_response(404, "relay over"),
            Some(Err(refusal)) => {
                logger.record(
                    &LogRecord::new(Level::Warn, "relay.refused").with("reason", refusal.reason()),
                );
                return error_response(refusal.status(), refusal.reason());
            }
            Some(Ok(admitted)) => admitted,
        };
        let pair = match WebSocketPair::new() {
            Ok(pair) => pair,
            Err(e) => {
                logger.failure("relay.upgrade_failed", &e);
                let undo = self.with_relay(|r| r.handle(RelayEvent::Closed { socket }, now));
                self.carry_out(undo, None, &logger).await;
                return error_response(500, "could not open a WebSocket");
            }
        };
        self.state
            .accept_websocket_with_tags(&pair.server, &[&socket_tag(socket)]);
        self.carry_out(actions, None, &logger).await;
        Response::from_websocket(pair.client)
    }

    /// Makes a fresh relay `name` (its first side is arriving), in memory
    /// and in storage.
    async fn create(&self, name: RelayName, config: &Config, logger: &Logger) -> Result<()> {
        let (relay, actions) = Relay::new(name, config.relay, host::now());
        let meta = serde_json::to_string(relay.meta())
            .map_err(|e| worker::Error::RustError(e.to_string()))?;
        self.state.storage().put(META_KEY, meta).await?;
        *self.relay.borrow_mut() = Some(relay);
        self.carry_out(actions, None, logger).await;
        Ok(())
    }

    async fn on_message(
        &self,
        ws: &WebSocket,
        message: WebSocketIncomingMessage,
        config: &Config,
    ) -> Result<()> {
        let logger = Logger::new(config);
        let Some(socket) = attachment_text(ws)
            .and_then(|t| RelayAttachment::from_json(&t))
            .map(|a| a.socket)
        else {
            return Ok(());
        };
        if !self.load(config, &logger).await? {
            let _ = ws.close(Some(1000), Some("relay over"));
            return Ok(());
        }
        let now = host::now();
        let (event, frame) = match message {
            WebSocketIncomingMessage::Binary(bytes) => (
                RelayEvent::Frame {
                    socket,
                    len: bytes.len(),
                    text: false,
                },
                Some(bytes),
            ),
            WebSocketIncomingMessage::String(text) => (
                RelayEvent::Frame {
                    socket,
                    len: text.len(),
                    text: true,
                },
                None,
            ),
        };
        let actions = self.with_relay(|r| r.handle(event, now));
        self.carry_out(actions, frame.as_deref(), &logger).await;
        Ok(())
    }

    /// Makes sure the machine is in memory, rebuilding it from storage and
    /// the attachments after hibernation. False when there is no relay.
    async fn load(&self, config: &Config, logger: &Logger) -> Result<bool> {
        if self.relay.borrow().is_some() {
            return Ok(true);
        }
        let meta: Option<String> = self.state.storage().get(META_KEY).await?;
        let Some(meta) = meta.and_then(|m| serde_json::from_str::<RelayMeta>(&m).ok()) else {
            return Ok(false);
        };
        if self.relay.borrow().is_some() {
            return Ok(true);
        }
        let sockets: Vec<(WebSocket, Option<RelayAttachment>)> = self
            .state
            .get_websockets()
            .into_iter()
            .map(|ws| {
                let a = attachment_text(&ws).and_then(|t| RelayAttachment::from_json(&t));
                (ws, a)
            })
            .collect();
        let relay = Relay::restore(meta, config.relay, sockets.iter().filter_map(|(_, a)| *a));
        for (ws, a) in &sockets {
            let kept = a.is_some_and(|a| relay.socket(a.role) == Some(a.socket));
            if !kept && attachment_text(ws).as_deref() != Some(CLOSED_ATTACHMENT) {
                let _ = ws.close(Some(1011), Some("lost track of this socket"));
                logger.record(&LogRecord::new(Level::Warn, "relay.dropped_socket"));
            }
        }
        *self.relay.borrow_mut() = Some(relay);
        Ok(true)
    }

    async fn socket_gone(&self, ws: &WebSocket, config: &Config) {
        let logger = Logger::new(config);
        let Some(socket) = attachment_text(ws)
            .and_then(|t| RelayAttachment::from_json(&t))
            .map(|a| a.socket)
        else {
            return;
        };
        let loaded = self.load(config, &logger).await;
        let _ = store_attachment(ws, CLOSED_ATTACHMENT.to_owned());
        match loaded {
            Ok(true) => {
                let actions =
                    self.with_relay(|r| r.handle(RelayEvent::Closed { socket }, host::now()));
                self.carry_out(actions, None, &logger).await;
            }
            Ok(false) => {}
            Err(e) => logger.failure("relay.load_failed", &e),
        }
    }

    /// Runs `f` on the machine (if loaded); the borrow ends before any
    /// await.
    fn with_relay(&self, f: impl FnOnce(&mut Relay) -> Vec<RelayAction>) -> Vec<RelayAction> {
        self.relay.borrow_mut().as_mut().map(f).unwrap_or_default()
    }

    fn with_relay_ref<T>(&self, f: impl FnOnce(&Relay) -> T) -> Option<T> {
        self.relay.borrow().as_ref().map(f)
    }

    /// Carries out the machine's actions in order; `frame` is the binary
    /// frame they answer. When the relay is over, forgets it and deletes
    /// its storage and alarm.
    async fn carry_out(&self, actions: Vec<RelayAction>, frame: Option<&[u8]>, logger: &Logger) {
        let mut finished = false;
        for action in actions {
            // Forwarding a frame is the relay's own; every other action is
            // a machine's like the lobby's and the room's.
            let action: Action<RelayAttachment> = match action {
                RelayAction::Forward { to } => {
                    let sent = match (find_socket(&self.state, to), frame) {
                        (Some(ws), Some(bytes)) => ws.send_with_bytes(bytes).is_ok(),
                        _ => false,
                    };
                    if !sent {
                        logger.record(&LogRecord::new(Level::Debug, "socket.send_skipped"));
                    }
                    continue;
                }
                RelayAction::Send { socket, text } => Action::Send { socket, text },
                RelayAction::Close {
                    socket,
                    code,
                    reason,
                } => Action::Close {
                    socket,
                    code,
                    reason,
                },
                RelayAction::Persist { socket, attachment } => {
                    Action::Persist { socket, attachment }
                }
                RelayAction::SetAlarm(at) => Action::SetAlarm(at),
                RelayAction::Log(record) => Action::Log(record),
                RelayAction::Finished => Action::Finished,
            };
            finished |= host::perform_one(&self.state, action, logger).await;
        }
        if finished {
            *self.relay.borrow_mut() = None;
            let storage = self.state.storage();
            if let Err(e) = storage.delete_alarm().await {
                logger.failure("storage.delete_alarm_failed", &e);
            }
            if let Err(e) = storage.delete_all().await {
                logger.failure("storage.delete_failed", &e);
            }
        }
    }
}

impl host::SocketObject for RelayObject {
    fn env(&self) -> &Env {
        &self.env
    }

    fn forget_machine(&self) {
        *self.relay.borrow_mut() = None;
    }

    async fn tell_machine_gone(&self, ws: &WebSocket, config: &Config) {
        self.socket_gone(ws, config).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relay_paths() {
        let code = RoomCode::parse("K7M2QX").unwrap();
        assert_eq!(
            relay_socket_path("/relay/K7M2QX/ws"),
            Some(Route::RelaySocket(code))
        );
        assert_eq!(
            relay_socket_path("/relay/K0M2QX/ws"),
            Some(Route::UnknownRelay)
        );
        assert_eq!(relay_socket_path("/relay/A/B/ws"), None);
        assert_eq!(relay_socket_path("/relay/K7M2QX"), None);
        assert_eq!(
            crate::route::route("GET", "/relay/K7M2QX/ws"),
            Route::RelaySocket(RoomCode::parse("K7M2QX").unwrap())
        );
        assert_eq!(
            crate::route::route("POST", "/relay/K7M2QX/ws"),
            Route::WrongMethod("GET")
        );
    }

    #[test]
    fn each_pair_of_a_member_room_has_its_own_object() {
        let code = RoomCode::parse("K7M2QX").unwrap();
        let mac = "0123456789abcdef0123456789abcdef";
        let name = |q: &str| wanted_relay(&code, q).object_name();
        assert_eq!(name(&format!("ticket=host.5.{mac}")), "K7M2QX");
        assert_eq!(name(&format!("ticket=guest.5.{mac}")), "K7M2QX");
        assert_eq!(name(&format!("ticket=3-0.5.{mac}")), "K7M2QX/0-3");
        assert_eq!(name(&format!("ticket=0-3.5.{mac}")), "K7M2QX/0-3");
        assert_eq!(name(&format!("ticket=2-5.5.{mac}")), "K7M2QX/2-5");
        // No ticket, or one of no known form: the room's own object,
        // which refuses it.
        assert_eq!(name(""), "K7M2QX");
        assert_eq!(name(&format!("ticket=8-9.5.{mac}")), "K7M2QX");
    }
}
