//! One Durable Object per room, named by its code (`idFromName(code)`),
//! hosting the core's [`Room`] machine.
//!
//! What it keeps where:
//! * the room's facts ([`RoomMeta`]: code, creation, expiry) in Durable
//!   Object storage under `meta`, written once by `POST /rooms`;
//! * each socket's place (role or member id) and message count in the
//!   socket's attachment;
//! * the expiry as the object's alarm.
//!
//! The machine itself lives in memory while the object is awake. After
//! hibernation the runtime builds a fresh object and the first event
//! rebuilds the machine from `meta` and the attachments.
//!
//! Internal requests from the entry Worker:
//! * `POST https://room/rooms/<code>/create[?players=N&spectators=M]`:
//!   make the room, a member room with a capacity (409 if this code is
//!   already live, so the Worker draws another);
//! * the client's own `GET /rooms/<code>/ws?role=...` upgrade, forwarded.

// `#[durable_object]` generates undocumented JavaScript bindings (the
// constructor and event methods); everything written here is documented.
#![allow(missing_docs)]

use std::cell::RefCell;

use signaling_core::{parse_join_role, Event, Level, LogRecord, Room, RoomAttachment, RoomMeta};
use signaling_protocol::{RoomCapacity, RoomCode};
use worker::{
    durable_object, DurableObject, Env, Method, Request, Response, Result, State, WebSocket,
    WebSocketIncomingMessage, WebSocketPair,
};

use crate::config::Config;
use crate::host::{
    self, attachment_text, error_response, json_response, socket_tag, Logger, CLOSED_ATTACHMENT,
};
use crate::route::query_param;

/// Storage key of the room's [`RoomMeta`] (JSON text).
const META_KEY: &str = "meta";
/// Storage key of the id of the creator's room ledger ([`crate::owner`]).
const OWNER_KEY: &str = "owner";
/// Storage key of the id of the service's room ledger ([`crate::owner`]).
const ALL_KEY: &str = "all";

/// The room's Durable Object.
#[durable_object]
pub struct RoomObject {
    state: State,
    env: Env,
    /// The machine, while the object is awake and the room exists.
    room: RefCell<Option<Room>>,
}

impl DurableObject for RoomObject {
    fn new(state: State, env: Env) -> Self {
        let raw = state._inner();
        host::answer_heartbeats(&raw, &Logger::new(&host::config(&env)));
        RoomObject {
            state: State::from(raw),
            env,
            room: RefCell::new(None),
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
        let result = self.on_alarm(&config).await;
        host::after_event(self, &config);
        result
    }

    async fn websocket_message(
        &self,
        ws: WebSocket,
        message: WebSocketIncomingMessage,
    ) -> Result<()> {
        let config = host::config(&self.env);
        let result = self.on_message(&ws, &message, &config).await;
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

impl RoomObject {
    /// An internal request from the entry Worker.
    async fn on_request(&self, req: Request, config: &Config) -> Result<Response> {
        let logger = Logger::new(config);
        let url = req.url()?;
        let mut segments = url.path().trim_start_matches('/').split('/');
        let code = match (
            segments.next(),
            segments.next(),
            segments.next(),
            segments.next(),
        ) {
            (Some("rooms"), Some(code), Some(action), None) => {
                RoomCode::parse(code).map(|c| (c, action))
            }
            _ => None,
        };
        match (req.method(), code) {
            (Method::Post, Some((code, "create"))) => {
                let query = url.query().unwrap_or("");
                let ledgers = [OWNER_KEY, ALL_KEY]
                    .map(|key| query_param(query, key).map(|id| (key, id.to_owned())));
                // The entry Worker checked the capacity already; a bad one
                // here is a bug, answered like any bad request.
                let Ok(capacity) = RoomCapacity::from_query(query) else {
                    return error_response(400, "bad capacity");
                };
                self.create(code, capacity, ledgers, config, &logger).await
            }
            (Method::Get, Some((code, "ws"))) => {
                let role = query_param(url.query().unwrap_or(""), "role");
                self.join(&req, code, role, config, &logger).await
            }
            _ => error_response(404, "not found"),
        }
    }

    /// The expiry alarm.
    async fn on_alarm(&self, config: &Config) -> Result<Response> {
        let logger = Logger::new(config);
        let now = host::now();
        logger.record(&LogRecord::new(Level::Debug, "room.alarm").with("now", now.0));
        if self.load(config, &logger).await? {
            let actions = self.with_room(|room| room.handle(Event::Alarm, now));
            self.carry_out(actions, &logger).await;
        }
        Response::empty()
    }

    /// A frame from one of the room's sockets.
    async fn on_message(
        &self,
        ws: &WebSocket,
        message: &WebSocketIncomingMessage,
        config: &Config,
    ) -> Result<()> {
        let logger = Logger::new(config);
        let Some(socket) = attachment_text(ws)
            .and_then(|t| RoomAttachment::from_json(&t))
            .map(|a| a.socket)
        else {
            // Closed by the machine already, or never admitted: drop it.
            return Ok(());
        };
        if !self.load(config, &logger).await? {
            let _ = ws.close(Some(1000), Some("room over"));
            return Ok(());
        }
        let now = host::now();
        let before = self.with_room_ref(|room| room.meta().clone());
        let actions = self.with_room(|room| match message {
            WebSocketIncomingMessage::String(text) => {
                room.handle(Event::Text { socket, text }, now)
            }
            WebSocketIncomingMessage::Binary(bytes) => room.handle(
                Event::Binary {
                    socket,
                    len: bytes.len(),
                },
                now,
            ),
        });
        self.store_meta_if_changed(before, &logger).await;
        self.carry_out(actions, &logger).await;
        Ok(())
    }

    /// `POST /rooms` reached this object: create the room unless the code
    /// is live.
    async fn create(
        &self,
        code: RoomCode,
        capacity: Option<RoomCapacity>,
        ledgers: [Option<(&'static str, String)>; 2],
        config: &Config,
        logger: &Logger,
    ) -> Result<Response> {
        if self.load(config, logger).await? {
            return error_response(409, "room code in use");
        }
        let (room, actions) = Room::create(code, capacity, config.room, host::now());
        let meta = serde_json::to_string(&room.meta())
            .map_err(|e| worker::Error::RustError(e.to_string()))?;
        self.state.storage().put(META_KEY, meta).await?;
        for (key, id) in ledgers.into_iter().flatten() {
            // The ids of the ledgers holding a place for the room (a hash,
            // not an address), to give the places back when it ends.
            self.state.storage().put(key, id).await?;
        }
        *self.room.borrow_mut() = Some(room);
        self.carry_out(actions, logger).await;
        json_response(201, "{}".to_owned())
    }

    /// A client's WebSocket upgrade for `role`.
    async fn join(
        &self,
        req: &Request,
        code: RoomCode,
        role: Option<&str>,
        config: &Config,
        logger: &Logger,
    ) -> Result<Response> {
        let role = match parse_join_role(role) {
            Ok(role) => role,
            Err(refusal) => return error_response(refusal.status(), refusal.reason()),
        };
        let exists = self.load(config, logger).await?;
        let same_code = self
            .with_room_ref(|room| room.meta().code == code)
            .unwrap_or(false);
        if !exists || !same_code {
            return error_response(404, "room not found");
        }
        if !is_websocket_upgrade(req) {
            return error_response(426, "expected a WebSocket upgrade");
        }
        // The room's own refusals first; then the day's budgets, which
        // charge only an upgrade the room would take; then the admission.
        let asked = self.with_room_ref(|room| room.check_admission(role, host::now()));
        match asked {
            None => return error_response(404, "room not found"),
            Some(Err(refusal)) => return error_response(refusal.status(), refusal.reason()),
            Some(Ok(())) => {}
        }
        let client = host::client_address(req);
        if let Some(refusal) =
            crate::budget::charge_then(&self.state, &self.env, config, *logger, client, "room-ws")
                .await?
        {
            return Ok(refusal);
        }
        // Another event may have run (and, in tests, dropped the machine)
        // while the budgets answered.
        if !self.load(config, logger).await? {
            return error_response(404, "room not found");
        }
        let now = host::now();
        let admitted = self
            .room
            .borrow_mut()
            .as_mut()
            .map(|room| room.admit(role, now));
        let (socket, actions) = match admitted {
            None => return error_response(404, "room not found"),
            Some(Err(refusal)) => return error_response(refusal.status(), refusal.reason()),
            Some(Ok(admitted)) => admitted,
        };
        let pair = match WebSocketPair::new() {
            Ok(pair) => pair,
            Err(e) => {
                // Give the slot back before failing.
                logger.failure("room.upgrade_failed", &e);
                let undo = self.with_room(|room| room.handle(Event::Closed { socket }, now));
                self.carry_out(undo, logger).await;
                return error_response(500, "could not open a WebSocket");
            }
        };
        self.state
            .accept_websocket_with_tags(&pair.server, &[&socket_tag(socket)]);
        self.carry_out(actions, logger).await;
        Response::from_websocket(pair.client)
    }

    /// Makes sure the machine is in memory: rebuilds it from storage and
    /// the sockets' attachments after hibernation. False when there is no
    /// room (never created, finished, or expired and cleaned up).
    async fn load(&self, config: &Config, logger: &Logger) -> Result<bool> {
        if self.room.borrow().is_some() {
            return Ok(true);
        }
        let meta: Option<String> = self.state.storage().get(META_KEY).await?;
        let Some(meta) = meta.and_then(|m| serde_json::from_str::<RoomMeta>(&m).ok()) else {
            return Ok(false);
        };
        // Another event may have loaded it while we awaited storage.
        if self.room.borrow().is_some() {
            return Ok(true);
        }
        let sockets = self.state.get_websockets();
        let attachments: Vec<(WebSocket, Option<RoomAttachment>)> = sockets
            .into_iter()
            .map(|ws| {
                let a = attachment_text(&ws).and_then(|t| RoomAttachment::from_json(&t));
                (ws, a)
            })
            .collect();
        let room = Room::restore(
            meta,
            config.room,
            attachments.iter().filter_map(|(_, a)| *a),
        );
        // Sockets the machine did not take back (closing, or clashing) go.
        for (ws, a) in &attachments {
            let kept = a.is_some_and(|a| room.holds(&a));
            if !kept && attachment_text(ws).as_deref() != Some(CLOSED_ATTACHMENT) {
                let _ = ws.close(Some(1011), Some("lost track of this socket"));
                logger.record(&LogRecord::new(Level::Warn, "room.dropped_socket"));
            }
        }
        *self.room.borrow_mut() = Some(room);
        Ok(true)
    }

    /// A socket closed or failed: tell the machine.
    async fn socket_gone(&self, ws: &WebSocket, config: &Config) {
        let logger = Logger::new(config);
        let Some(socket) = attachment_text(ws)
            .and_then(|t| RoomAttachment::from_json(&t))
            .map(|a| a.socket)
        else {
            return;
        };
        let loaded = self.load(config, &logger).await;
        // Mark it (after the load, which must still see it) so a restore
        // before the runtime forgets it skips it.
        let _ = host::store_attachment(ws, CLOSED_ATTACHMENT.to_owned());
        match loaded {
            Ok(true) => {
                let before = self.with_room_ref(|room| room.meta().clone());
                let actions =
                    self.with_room(|room| room.handle(Event::Closed { socket }, host::now()));
                self.store_meta_if_changed(before, &logger).await;
                self.carry_out(actions, &logger).await;
            }
            Ok(false) => {}
            Err(e) => logger.failure("room.load_failed", &e),
        }
    }

    /// Runs `f` on the machine (if loaded) and returns its actions. The
    /// borrow ends before anything is awaited.
    fn with_room(
        &self,
        f: impl FnOnce(&mut Room) -> Vec<signaling_core::Action<RoomAttachment>>,
    ) -> Vec<signaling_core::Action<RoomAttachment>> {
        self.room.borrow_mut().as_mut().map(f).unwrap_or_default()
    }

    /// Stores the room's meta again when an event changed it (a side that
    /// left hands its message count to the meta, so that a reconnect
    /// carries on from it even after hibernation).
    async fn store_meta_if_changed(&self, before: Option<RoomMeta>, logger: &Logger) {
        let after = self.with_room_ref(|room| room.meta().clone());
        let (Some(before), Some(after)) = (before, after) else {
            return;
        };
        if before == after {
            return;
        }
        match serde_json::to_string(&after) {
            Ok(meta) => {
                if let Err(e) = self.state.storage().put(META_KEY, meta).await {
                    logger.failure("storage.put_failed", &e);
                }
            }
            Err(_) => logger.record(&LogRecord::new(Level::Error, "room.meta_unwritable")),
        }
    }

    fn with_room_ref<T>(&self, f: impl FnOnce(&Room) -> T) -> Option<T> {
        self.room.borrow().as_ref().map(f)
    }

    /// Carries out the actions; when the room finished, forgets it and
    /// deletes its storage and alarm.
    async fn carry_out(
        &self,
        actions: Vec<signaling_core::Action<RoomAttachment>>,
        logger: &Logger,
    ) {
        if host::perform(&self.state, actions, logger).await {
            let code = self.with_room_ref(|r| r.meta().code.clone());
            *self.room.borrow_mut() = None;
            let storage = self.state.storage();
            // Which ledgers hold a place for the room, read before the
            // storage that names them is deleted.
            let mut ledgers = Vec::new();
            for key in [OWNER_KEY, ALL_KEY] {
                if let Ok(Some(id)) = storage.get::<String>(key).await {
                    ledgers.push(id);
                }
            }
            // Storage first: while the object awaits its own storage no
            // other event is delivered, but while it awaits the ledgers (a
            // request to another object) an upgrade may be, and it must
            // find no room to rebuild.
            if let Err(e) = storage.delete_alarm().await {
                logger.failure("storage.delete_alarm_failed", &e);
            }
            if let Err(e) = storage.delete_all().await {
                logger.failure("storage.delete_failed", &e);
            }
            self.release_places(code, ledgers, logger).await;
        }
    }
}

impl RoomObject {
    /// Gives the room's places back to its `ledgers` (the ids of its
    /// creator's and the service's, those it holds a place in).
    async fn release_places(&self, code: Option<RoomCode>, ledgers: Vec<String>, logger: &Logger) {
        let Some(code) = code else {
            return;
        };
        for id in ledgers {
            let released = async {
                let stub = self
                    .env
                    .durable_object(crate::OWNERS_BINDING)?
                    .id_from_string(&id)?
                    .get_stub()?;
                let mut init = worker::RequestInit::new();
                init.with_method(Method::Post);
                let url = format!("https://owner/release?code={code}");
                stub.fetch_with_request(Request::new_with_init(&url, &init)?)
                    .await
            };
            if let Err(e) = released.await {
                logger.failure("room.release_failed", &e);
            }
        }
    }
}

/// True when the request asks for a WebSocket.
pub fn is_websocket_upgrade(req: &Request) -> bool {
    req.headers()
        .get("Upgrade")
        .ok()
        .flatten()
        .is_some_and(|v| v.eq_ignore_ascii_case("websocket"))
}

impl host::SocketObject for RoomObject {
    fn env(&self) -> &Env {
        &self.env
    }

    fn forget_machine(&self) {
        *self.room.borrow_mut() = None;
    }

    async fn tell_machine_gone(&self, ws: &WebSocket, config: &Config) {
        self.socket_gone(ws, config).await;
    }
}
