//! A lobby's Durable Object (`idFromName("lobby")` for lobby 0,
//! `"lobby-N"` for lobby `N`; see [`crate::directory`]), hosting the
//! core's [`Lobby`] machine.
//!
//! It stores nothing: the roster, the hello deadlines and the message-rate
//! budgets all live in the sockets' attachments, which the runtime keeps
//! across hibernation. The machine is in memory while the object is awake;
//! after hibernation the first event rebuilds it from the attachments with
//! [`Lobby::restore`]. The hello and idle timeouts run on the object's
//! alarm. Heartbeats are answered by the runtime (see
//! [`host::answer_heartbeats`]); the alarm asks it when it last answered
//! each socket before expiring any.

// `#[durable_object]` generates undocumented JavaScript bindings (the
// constructor and event methods); everything written here is documented.
#![allow(missing_docs)]

use std::cell::RefCell;

use signaling_core::{Action, Event, Level, Lobby, LobbyAttachment, LogRecord};
use worker::wasm_bindgen::JsCast;
use worker::worker_sys::DurableObjectState;
use worker::{
    durable_object, DurableObject, Env, Request, Response, Result, State, WebSocket,
    WebSocketIncomingMessage, WebSocketPair,
};

use crate::config::Config;
use crate::host::{self, attachment_text, error_response, socket_tag, Logger, CLOSED_ATTACHMENT};
use crate::room::is_websocket_upgrade;

/// The name the lobby's Durable Object is addressed by.
pub const LOBBY_NAME: &str = "lobby";

/// The lobby's Durable Object.
#[durable_object]
pub struct LobbyObject {
    state: State,
    /// The same state as the runtime's object, for the calls the `worker`
    /// crate does not wrap (the heartbeat's auto-response time).
    raw: DurableObjectState,
    env: Env,
    /// The machine, while the object is awake.
    lobby: RefCell<Option<Lobby>>,
}

impl DurableObject for LobbyObject {
    fn new(state: State, env: Env) -> Self {
        let raw = state._inner();
        host::answer_heartbeats(&raw, &Logger::new(&host::config(&env)));
        LobbyObject {
            // The binding type has no `Clone` of its own; this is the same
            // object.
            state: State::from(raw.clone().unchecked_into::<DurableObjectState>()),
            raw,
            env,
            lobby: RefCell::new(None),
        }
    }

    async fn fetch(&self, req: Request) -> Result<Response> {
        let config = host::config(&self.env);
        let result = if req.path() == crate::directory::LOAD_PATH {
            self.on_load(&req, &config)
        } else {
            self.on_upgrade(req, &config).await
        };
        host::after_event(self, &config);
        result
    }

    async fn alarm(&self) -> Result<Response> {
        let config = host::config(&self.env);
        let logger = Logger::new(&config);
        self.load(&config, &logger);
        // Heartbeats the runtime answered on its own never reached the
        // machine: tell it when each socket was last heard that way.
        let heard: Vec<_> = self
            .state
            .get_websockets()
            .iter()
            .filter_map(|ws| Some((socket_of(ws)?, host::last_heartbeat(&self.raw, ws)?)))
            .collect();
        let now = host::now();
        let actions = self.with_lobby(|lobby| {
            for (socket, at) in heard {
                lobby.heard_from(socket, at);
            }
            lobby.handle(Event::Alarm, now)
        });
        host::perform(&self.state, actions, &logger).await;
        host::after_event(self, &config);
        Response::empty()
    }

    async fn websocket_message(
        &self,
        ws: WebSocket,
        message: WebSocketIncomingMessage,
    ) -> Result<()> {
        let config = host::config(&self.env);
        let logger = Logger::new(&config);
        self.load(&config, &logger);
        if let Some(socket) = socket_of(&ws) {
            let now = host::now();
            let actions = self.with_lobby(|lobby| match &message {
                WebSocketIncomingMessage::String(text) => {
                    lobby.handle(Event::Text { socket, text }, now)
                }
                WebSocketIncomingMessage::Binary(bytes) => lobby.handle(
                    Event::Binary {
                        socket,
                        len: bytes.len(),
                    },
                    now,
                ),
            });
            host::perform(&self.state, actions, &logger).await;
        }
        host::after_event(self, &config);
        Ok(())
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

/// The machine's name for a socket, from its attachment.
fn socket_of(ws: &WebSocket) -> Option<signaling_core::SocketId> {
    attachment_text(ws)
        .and_then(|t| LobbyAttachment::from_json(&t))
        .map(|a| a.socket)
}

impl LobbyObject {
    /// The directory asks for this lobby's fill, with the sockets of every
    /// address (an internal request of the entry Worker, which clients
    /// cannot address).
    fn on_load(&self, req: &Request, config: &Config) -> Result<Response> {
        let logger = Logger::new(config);
        self.load(config, &logger);
        let load = self
            .lobby
            .borrow()
            .as_ref()
            .map(|lobby| signaling_core::LobbyLoad {
                by_address: lobby.sockets_by_address(),
                ..lobby.load(host::client_address(req))
            })
            .unwrap_or_default();
        crate::directory::load_response(load)
    }

    /// A client's `GET /lobby/ws` upgrade, forwarded by the entry Worker.
    async fn on_upgrade(&self, req: Request, config: &Config) -> Result<Response> {
        let logger = Logger::new(config);
        if !is_websocket_upgrade(&req) {
            return error_response(426, "expected a WebSocket upgrade");
        }
        self.load(config, &logger);
        // An upgrade the directory placed here is sent back when the lobby
        // has no room left (another newcomer took the last place since the
        // directory read the fills), so that it is placed elsewhere.
        let placed = req.path() == crate::directory::PLACED_PATH;
        // The directory says which lobby this is on every upgrade it
        // forwards; the machine keeps it in its sockets' attachments.
        let number = req.url().ok().and_then(|url| {
            crate::route::query_param(url.query().unwrap_or(""), "lobby")
                .and_then(|n| n.parse::<u32>().ok())
        });
        if let (Some(n), Some(lobby)) = (number, self.lobby.borrow_mut().as_mut()) {
            lobby.set_number(n);
        }
        let full = self
            .lobby
            .borrow()
            .as_ref()
            .is_some_and(|lobby| !lobby.has_room());
        if placed && full {
            return error_response(crate::directory::FULL_STATUS, "this lobby is full");
        }
        let client = host::client_address(&req);
        let refused = |refusal: signaling_core::LobbyRefusal| {
            // The client's address is only the cap's key: not logged.
            logger.record(
                &LogRecord::new(Level::Warn, "lobby.refused_socket")
                    .with("status", refusal.status()),
            );
            error_response(refusal.status(), refusal.reason())
        };
        // The lobby's own refusals first; then the day's budgets, which
        // charge only an upgrade the lobby would take; then the admission.
        let asked = self
            .lobby
            .borrow()
            .as_ref()
            .map(|lobby| lobby.check_admission(client));
        match asked {
            None => return error_response(500, "lobby unavailable"),
            Some(Err(refusal)) => return refused(refusal),
            Some(Ok(())) => {}
        }
        if let Some(refusal) =
            crate::budget::charge_then(&self.state, &self.env, config, logger, client, "lobby-ws")
                .await?
        {
            return Ok(refusal);
        }
        // Another event may have run (and, in tests, dropped the machine)
        // while the budgets answered.
        self.load(config, &logger);
        let now = host::now();
        let admitted = self
            .lobby
            .borrow_mut()
            .as_mut()
            .map(|lobby| lobby.admit_from(now, client));
        let (socket, actions) = match admitted {
            Some(Ok(admitted)) => admitted,
            Some(Err(refusal)) => return refused(refusal),
            None => return error_response(500, "lobby unavailable"),
        };
        let pair = match WebSocketPair::new() {
            Ok(pair) => pair,
            Err(e) => {
                logger.failure("lobby.upgrade_failed", &e);
                let undo = self.with_lobby(|lobby| lobby.handle(Event::Closed { socket }, now));
                host::perform(&self.state, undo, &logger).await;
                return error_response(500, "could not open a WebSocket");
            }
        };
        self.state
            .accept_websocket_with_tags(&pair.server, &[&socket_tag(socket)]);
        host::perform(&self.state, actions, &logger).await;
        Response::from_websocket(pair.client)
    }

    /// Makes sure the machine is in memory, rebuilding it from the sockets'
    /// attachments after hibernation. Sockets it does not take back (their
    /// attachment is missing, marked closed, or clashes with another) are
    /// closed.
    fn load(&self, config: &Config, logger: &Logger) {
        if self.lobby.borrow().is_some() {
            return;
        }
        let sockets: Vec<(WebSocket, Option<LobbyAttachment>)> = self
            .state
            .get_websockets()
            .into_iter()
            .map(|ws| {
                let a = attachment_text(&ws).and_then(|t| LobbyAttachment::from_json(&t));
                (ws, a)
            })
            .collect();
        // The secret players' `#ABC` tags are drawn from; a fresh one each
        // time the object wakes is fine (the roster's tags are in the
        // attachments). Without randomness tags stay unique per name.
        let mut tag_key = [0u8; 32];
        if let Err(e) = host::random_bytes(&mut tag_key) {
            logger.failure("lobby.no_randomness", &e);
        }
        let lobby = Lobby::restore(config.lobby, sockets.iter().filter_map(|(_, a)| a.clone()))
            .with_tag_key(tag_key);
        for (ws, a) in &sockets {
            let kept = a
                .as_ref()
                .is_some_and(|a| lobby.attachment(a.socket) == Some(a));
            if !kept && attachment_text(ws).as_deref() != Some(CLOSED_ATTACHMENT) {
                let _ = ws.close(Some(1011), Some("lost track of this socket"));
                logger.record(&LogRecord::new(Level::Warn, "lobby.dropped_socket"));
            }
        }
        logger.record(
            &LogRecord::new(Level::Debug, "lobby.restored").with("sockets", lobby.socket_count()),
        );
        *self.lobby.borrow_mut() = Some(lobby);
    }

    /// A socket closed or failed: tell the machine.
    async fn socket_gone(&self, ws: &WebSocket, config: &Config) {
        let logger = Logger::new(config);
        self.load(config, &logger);
        let Some(socket) = socket_of(ws) else {
            return;
        };
        // Mark it so a restore before the runtime forgets it skips it.
        let _ = host::store_attachment(ws, CLOSED_ATTACHMENT.to_owned());
        let actions = self.with_lobby(|lobby| lobby.handle(Event::Closed { socket }, host::now()));
        host::perform(&self.state, actions, &logger).await;
    }

    /// Runs `f` on the machine and returns its actions; the borrow ends
    /// before anything is awaited.
    fn with_lobby(
        &self,
        f: impl FnOnce(&mut Lobby) -> Vec<Action<LobbyAttachment>>,
    ) -> Vec<Action<LobbyAttachment>> {
        self.lobby.borrow_mut().as_mut().map(f).unwrap_or_default()
    }
}

impl host::SocketObject for LobbyObject {
    fn env(&self) -> &Env {
        &self.env
    }

    fn forget_machine(&self) {
        *self.lobby.borrow_mut() = None;
    }

    async fn tell_machine_gone(&self, ws: &WebSocket, config: &Config) {
        self.socket_gone(ws, config).await;
    }
}
