//! The match relay route, `GET /relay/<code>/ws?ticket=...`: the core's
//! [`Relay`] machines hosted on tokio, one per relayed two-seat room or
//! member room pair (by [`RelayName`], which the ticket gives).
//!
//! The request passes the same guard as every route (origin, per-IP rate,
//! connection caps). Then, in this order: a path segment that is not a
//! room code is 404, a missing, forged or expired ticket 403 (checked with
//! the key the rooms sign with, on the server's one clock), a request
//! that is not an upgrade 426, a side already connected 409. A relay is
//! made when the first side of a room (or of a pair) arrives and dropped
//! when the machine says it is over.
//!
//! Frames are read up to the relay's frame cap and no further (a longer
//! one is refused unread, with 1009), handed to the machine as a length,
//! and the same bytes are queued on the other side's socket when the
//! machine says to forward them. A socket whose queue is full is dropped,
//! which ends the relay for both: a match cannot run on a link that drops
//! frames silently.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{ConnectInfo, Extension, State};
use axum::http::{header, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use signaling_core::{
    check_ticket, Level, LogRecord, Millis, Relay, RelayAction, RelayEvent, RelayKey, RelayLimits,
    RelayName, RoomCode, SocketId,
};
use signaling_protocol::{error_body, query_param};
use tokio::sync::mpsc;

use crate::hosting::{Shared, OUTBOX_LEN};
use crate::socket::Inbound;

/// What a relay socket's writer is told to do.
#[derive(Debug)]
enum RelayOut {
    /// A frame from the other side, unchanged.
    Binary(Bytes),
    /// The relay's own `paired`.
    Text(String),
    Close(u16, &'static str),
}

struct HostedRelay {
    machine: Relay,
    outs: HashMap<SocketId, mpsc::Sender<RelayOut>>,
}

/// Every relay of the server, by name: a two-seat room's by its code, a
/// member room's pairs by code and pair.
pub(crate) struct Hub {
    key: Option<RelayKey>,
    limits: RelayLimits,
    relays: Mutex<HashMap<RelayName, HostedRelay>>,
}

/// The hub, as the route's extension.
pub(crate) type HubRef = Arc<Hub>;

impl Hub {
    /// A hub checking tickets with the rooms' key (none: no relay).
    pub(crate) fn new(key: Option<RelayKey>, limits: RelayLimits) -> HubRef {
        Arc::new(Hub {
            key,
            limits,
            relays: Mutex::new(HashMap::new()),
        })
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<RelayName, HostedRelay>> {
        // A poisoned lock means a bug here; keep serving what is left.
        self.relays.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Passes one event to the relay `code` names and carries out its
    /// actions.
    fn deliver(
        self: &Arc<Self>,
        shared: &Arc<Shared>,
        code: &RelayName,
        event: RelayEvent,
        frame: Option<&Bytes>,
    ) {
        let mut relays = self.lock();
        let Some(hosted) = relays.get_mut(code) else {
            return;
        };
        let actions = hosted.machine.handle(event, shared.now());
        self.apply(shared, &mut relays, code, actions, frame);
    }

    /// Carries out a relay's actions with the map locked. `frame` is the
    /// frame the actions answer, for [`RelayAction::Forward`].
    fn apply(
        self: &Arc<Self>,
        shared: &Arc<Shared>,
        relays: &mut HashMap<RelayName, HostedRelay>,
        code: &RelayName,
        actions: Vec<RelayAction>,
        frame: Option<&Bytes>,
    ) {
        let Some(hosted) = relays.get_mut(code) else {
            return;
        };
        let mut slow = Vec::new();
        let mut finished = false;
        for action in actions {
            match action {
                RelayAction::Forward { to } => {
                    if let (Some(out), Some(bytes)) = (hosted.outs.get(&to), frame) {
                        // A clone of `Bytes` shares the buffer: the frame is
                        // not copied, let alone read.
                        if out.try_send(RelayOut::Binary(bytes.clone())).is_err() {
                            slow.push(to);
                        }
                    }
                }
                RelayAction::Send { socket, text } => {
                    if let Some(out) = hosted.outs.get(&socket) {
                        if out.try_send(RelayOut::Text(text)).is_err() {
                            slow.push(socket);
                        }
                    }
                }
                RelayAction::Close {
                    socket,
                    code,
                    reason,
                } => {
                    if let Some(out) = hosted.outs.remove(&socket) {
                        let _ = out.try_send(RelayOut::Close(code, reason));
                    }
                }
                RelayAction::Persist { .. } => {}
                RelayAction::SetAlarm(at) => self.arm(shared, code.clone(), at),
                RelayAction::Log(record) => shared.log(record),
                RelayAction::Finished => finished = true,
            }
        }
        if finished {
            relays.remove(code);
            return;
        }
        if !slow.is_empty() {
            shared.log(LogRecord::new(Level::Warn, "relay.slow_socket"));
        }
        for socket in slow {
            let Some(hosted) = relays.get_mut(code) else {
                return;
            };
            // Dropping the sender makes the writer close the socket.
            hosted.outs.remove(&socket);
            let actions = hosted
                .machine
                .handle(RelayEvent::Closed { socket }, shared.now());
            self.apply(shared, relays, code, actions, None);
        }
    }

    fn arm(self: &Arc<Self>, shared: &Arc<Shared>, code: RelayName, at: Millis) {
        let hub = Arc::clone(self);
        let shared = Arc::clone(shared);
        let wait = Duration::from_millis(at.0.saturating_sub(shared.now().0));
        tokio::spawn(async move {
            tokio::time::sleep(wait).await;
            hub.deliver(&shared, &code, RelayEvent::Alarm, None);
        });
    }

    fn socket_gone(self: &Arc<Self>, shared: &Arc<Shared>, code: &RelayName, socket: SocketId) {
        self.deliver(shared, code, RelayEvent::Closed { socket }, None);
        if let Some(h) = self.lock().get_mut(code) {
            h.outs.remove(&socket);
        }
    }
}

fn refuse(status: u16, reason: &str) -> Response {
    (
        StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_REQUEST),
        [(header::CONTENT_TYPE, "application/json")],
        error_body(reason),
    )
        .into_response()
}

type Upgrade = Result<WebSocketUpgrade, axum::extract::ws::rejection::WebSocketUpgradeRejection>;

/// `GET /relay/<code>/ws?ticket=...` (see the module docs).
pub(crate) async fn relay_ws(
    State(shared): State<Arc<Shared>>,
    Extension(hub): Extension<HubRef>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    uri: Uri,
    upgrade: Upgrade,
) -> Response {
    let code = uri
        .path()
        .strip_prefix("/relay/")
        .and_then(|p| p.strip_suffix("/ws"))
        .and_then(RoomCode::parse);
    let Some(code) = code else {
        return refuse(404, "no relay at this address");
    };
    let Some(key) = hub.key else {
        return refuse(404, "this service has no relay");
    };
    let now = shared.now();
    let ticket = query_param(uri.query().unwrap_or(""), "ticket");
    // The ticket names the relay: the room's own, or one pair's.
    let (code, role) = match check_ticket(&key, &code, ticket, now) {
        Ok(place) => (place.relay, place.role),
        Err(refusal) => {
            shared
                .log(LogRecord::new(Level::Warn, "relay.refused").with("reason", refusal.reason()));
            return refuse(refusal.status(), refusal.reason());
        }
    };
    let Ok(upgrade) = upgrade else {
        return refuse(426, "expected a WebSocket upgrade");
    };
    let mut relays = hub.lock();
    // The relay's own refusal (that side is connected, or the relay is
    // over) first, then the day's budgets: only a socket the relay takes is
    // charged. (The hub's lock is held throughout, so nothing can take the
    // place in between; the state's lock is only ever taken inside it.)
    let live = relays.get(&code).filter(|h| !h.machine.is_finished());
    if let Some(Err(refusal)) = live.map(|h| h.machine.check_admission(role, now)) {
        drop(relays);
        shared.log(LogRecord::new(Level::Warn, "relay.refused").with("reason", refusal.reason()));
        return refuse(refusal.status(), refusal.reason());
    }
    let charged = {
        let mut st = shared.lock();
        shared.charge_upgrade_in(&mut st, peer.ip())
    };
    if let Err(spent) = charged {
        drop(relays);
        return crate::routes::budget_spent(&shared, spent, "relay_ws");
    }
    if relays.get(&code).is_none_or(|h| h.machine.is_finished()) {
        let (machine, actions) = Relay::new(code.clone(), hub.limits, now);
        relays.insert(
            code.clone(),
            HostedRelay {
                machine,
                outs: HashMap::new(),
            },
        );
        hub.apply(&shared, &mut relays, &code, actions, None);
    }
    let Some(hosted) = relays.get_mut(&code) else {
        return refuse(404, "relay over");
    };
    let (socket, actions) = match hosted.machine.admit(role, now) {
        Ok(ok) => ok,
        Err(refusal) => {
            drop(relays);
            shared
                .log(LogRecord::new(Level::Warn, "relay.refused").with("reason", refusal.reason()));
            return refuse(refusal.status(), refusal.reason());
        }
    };
    let (tx, rx) = mpsc::channel(OUTBOX_LEN);
    hosted.outs.insert(socket, tx);
    hub.apply(&shared, &mut relays, &code, actions, None);
    drop(relays);

    let cap = hub.limits.max_frame_bytes;
    let (fail_hub, fail_shared, fail_code) = (hub.clone(), shared.clone(), code.clone());
    // As for lobby and room sockets: read up to the frame cap, in chunks
    // of it.
    crate::socket::capped(upgrade, cap)
        .on_failed_upgrade(move |_| fail_hub.socket_gone(&fail_shared, &fail_code, socket))
        .on_upgrade(move |ws| run(shared, hub, code, socket, ws, rx))
}

impl crate::socket::Outbound for RelayOut {
    fn into_frame(self) -> Result<Message, (u16, &'static str)> {
        match self {
            RelayOut::Binary(bytes) => Ok(Message::Binary(bytes)),
            RelayOut::Text(text) => Ok(Message::Text(text.into())),
            RelayOut::Close(code, reason) => Err((code, reason)),
        }
    }
}

/// Runs one relay socket: each frame is passed to the machine as its
/// length, and its bytes forwarded when the machine says so.
async fn run(
    shared: Arc<Shared>,
    hub: HubRef,
    code: RelayName,
    socket: SocketId,
    ws: WebSocket,
    rx: mpsc::Receiver<RelayOut>,
) {
    let cap = hub.limits.max_frame_bytes;
    crate::socket::serve(
        ws,
        rx,
        shared.config.close_grace,
        |frame| {
            let (len, text, bytes) = match frame {
                Inbound::Binary(bytes) => (bytes.len(), false, Some(bytes)),
                Inbound::Text(text) => (text.len(), true, None),
            };
            let event = RelayEvent::Frame { socket, len, text };
            hub.deliver(&shared, &code, event, bytes);
        },
        // Refused unread by the WebSocket layer: to the machine it is a
        // frame over the cap, which it closes with 1009.
        || {
            let event = RelayEvent::Frame {
                socket,
                len: cap + 1,
                text: false,
            };
            hub.deliver(&shared, &code, event, None);
        },
    )
    .await;
    hub.socket_gone(&shared, &code, socket);
}
