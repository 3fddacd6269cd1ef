//! HTTP routes and WebSocket sessions.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::ws::{WebSocket, WebSocketUpgrade};
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{header, HeaderValue, Method, StatusCode, Uri};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use signaling_core::{
    ice_servers_json, join_role_from_query, lobby_number, place_newcomer, Event, Level, Lobby,
    LobbyRefusal, LogRecord, Room, SocketId,
};
use signaling_core::{DailyBudget, ADDRESS_BUDGET_REASON};
use signaling_protocol::{
    error_body, LobbyDirectory, LobbyFill, MemberRoomCreated, RoomCapacity, RoomCode, RoomCreated,
};
use tokio::sync::mpsc;
use tower_http::services::ServeDir;

use crate::hosting::{BudgetSpent, Hosted, Out, Shared, Target, OUTBOX_LEN};
use crate::socket::Inbound;

type Ctx = Arc<Shared>;

/// Largest WebSocket message read at all: the machines' own message limit
/// (8 KiB by default). A longer message is refused with 1009 as soon as its
/// frame header announces the length, without being read or buffered (see
/// [`crate::socket`]), so a socket never holds more than one limit's worth.
fn max_ws_message(shared: &Shared) -> usize {
    let lobby = shared.config.lobby.max_message_bytes;
    let room = shared.config.room.max_message_bytes;
    lobby.max(room)
}

pub(crate) fn router(shared: Ctx) -> Router {
    let api = Router::new()
        .route("/rooms", post(create_room).options(preflight))
        .route("/rooms/{code}/ws", get(room_ws))
        .route("/lobby/ws", get(lobby_ws))
        .route("/lobbies", get(lobbies).options(preflight))
        .route("/ice", get(ice).options(preflight))
        .route("/health", get(health).options(preflight))
        .route("/relay/{code}/ws", get(crate::relay::relay_ws))
        .layer(axum::Extension(crate::relay::Hub::new(
            shared.config.room.relay_key,
            shared.config.relay,
        )))
        .method_not_allowed_fallback(method_not_allowed);
    let app = match &shared.config.static_dir {
        Some(dir) => {
            api.fallback_service(ServeDir::new(dir).append_index_html_on_directories(true))
        }
        None => api.fallback(not_found),
    };
    // Both layers cover every request, the static files and the fallbacks
    // included: the guard (origin, rate) outside, and inside it the
    // rewriting of bodiless or plain-text errors into JSON.
    app.layer(middleware::map_response(json_errors))
        .layer(middleware::from_fn_with_state(shared.clone(), guard))
        .with_state(shared)
}

/// Gives every error answer the JSON body `{"error": ...}`: those made here
/// already have one; the static file service's 404 and 405 have none, and
/// axum's own refusals are plain text. The status and the other headers
/// (such as `Allow`) are kept.
async fn json_errors(resp: Response) -> Response {
    let status = resp.status();
    let is_json = resp
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    if !(status.is_client_error() || status.is_server_error()) || is_json {
        return resp;
    }
    let reason = match status {
        StatusCode::NOT_FOUND => "not found",
        StatusCode::METHOD_NOT_ALLOWED => "method not allowed on this route",
        StatusCode::BAD_REQUEST => "bad request",
        s => s.canonical_reason().unwrap_or("error"),
    };
    let (mut parts, _) = resp.into_parts();
    parts.headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    parts.headers.remove(header::CONTENT_LENGTH);
    parts.headers.remove(header::CONTENT_ENCODING);
    Response::from_parts(parts, Body::from(error_body(reason)))
}

/// A JSON error response.
fn error(status: StatusCode, reason: &str) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        error_body(reason),
    )
        .into_response()
}

fn json(status: StatusCode, body: String) -> Response {
    (status, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}

async fn method_not_allowed() -> Response {
    error(
        StatusCode::METHOD_NOT_ALLOWED,
        "method not allowed on this route",
    )
}

async fn not_found() -> Response {
    error(StatusCode::NOT_FOUND, "no such route")
}

/// A fixed name for the route of a path (logs never carry the path itself).
fn route_name(path: &str) -> &'static str {
    match path {
        "/rooms" => "rooms",
        "/lobby/ws" => "lobby_ws",
        "/lobbies" => "lobbies",
        "/ice" => "ice",
        "/health" => "health",
        p if p.starts_with("/rooms/") => "room_ws",
        p if p.starts_with("/relay/") => "relay_ws",
        _ => "other",
    }
}

/// Origin allow-list (403) and per-IP rate limit (429) for every request
/// (API routes, static files and fallbacks alike), plus CORS headers for
/// allowed cross-origin callers, the 429 included.
async fn guard(
    State(shared): State<Ctx>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    req: Request,
    next: Next,
) -> Response {
    let route = route_name(req.uri().path());
    let mut resp = check_and_run(&shared, peer, route, req, next).await;
    // The security headers, on every answer: the page's policy on the
    // static files, the API's (which allows nothing) on the rest.
    let policy = match (&shared.page_policy, route) {
        (Some(page), "other") => page.as_str(),
        _ => signaling_core::headers::API_POLICY,
    };
    let h = resp.headers_mut();
    for (name, value) in signaling_core::headers::API_HEADERS {
        let value = if name == "Content-Security-Policy" {
            policy
        } else {
            value
        };
        if let Ok(v) = HeaderValue::from_str(value) {
            h.insert(name, v);
        }
    }
    resp
}

/// The origin and rate checks, then the route itself (see [`guard`]).
async fn check_and_run(
    shared: &Ctx,
    peer: SocketAddr,
    route: &'static str,
    req: Request,
    next: Next,
) -> Response {
    let origin = req
        .headers()
        .get(header::ORIGIN)
        .map(|v| v.to_str().unwrap_or("\u{0}invalid").to_owned());
    // The server's own origin, as the request addressed it (plain HTTP).
    let own = req
        .headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .map(|host| format!("http://{host}"));
    if !shared
        .config
        .allowed_origins
        .allows_at(origin.as_deref(), own.as_deref())
    {
        shared.log(LogRecord::new(Level::Warn, "http.forbidden_origin").with("route", route));
        return error(StatusCode::FORBIDDEN, "origin not allowed");
    }
    let allowed = {
        let now = shared.now();
        shared.lock().rate.check(peer.ip(), now)
    };
    if !allowed {
        shared.log(LogRecord::new(Level::Warn, "http.rate_limited").with("route", route));
        let mut resp = error(
            StatusCode::TOO_MANY_REQUESTS,
            "too many requests; slow down",
        );
        // A page may read why it was refused, as the Worker lets it.
        add_cors(&mut resp, origin.as_deref(), false);
        return resp;
    }
    // WebSocket upgrades are charged to the day's budgets in their own
    // handlers, once the machine has said it would admit them: an upgrade
    // refused for any reason of its own costs nothing.
    let is_preflight = req.method() == Method::OPTIONS;
    let mut resp = next.run(req).await;
    shared.log(
        LogRecord::new(Level::Debug, "http.request")
            .with("route", route)
            .with("status", resp.status().as_u16()),
    );
    add_cors(&mut resp, origin.as_deref(), is_preflight);
    resp
}

/// Echoes an allowed `Origin` so the page can read the answer (and, for a
/// preflight, says what it may send).
fn add_cors(resp: &mut Response, origin: Option<&str>, is_preflight: bool) {
    if let Some(o) = origin.and_then(|o| HeaderValue::from_str(o).ok()) {
        let h = resp.headers_mut();
        h.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, o);
        h.insert(header::VARY, HeaderValue::from_static("Origin"));
        if is_preflight {
            h.insert(
                header::ACCESS_CONTROL_ALLOW_METHODS,
                HeaderValue::from_static("GET, POST, OPTIONS"),
            );
            h.insert(
                header::ACCESS_CONTROL_ALLOW_HEADERS,
                HeaderValue::from_static("content-type"),
            );
            h.insert(
                header::ACCESS_CONTROL_MAX_AGE,
                HeaderValue::from_static("600"),
            );
        }
    }
}

async fn preflight() -> Response {
    StatusCode::NO_CONTENT.into_response()
}

async fn health() -> Response {
    json(StatusCode::OK, r#"{"ok":true}"#.to_owned())
}

async fn ice(State(shared): State<Ctx>) -> Response {
    let turn = shared.config.turn.as_ref().map(|t| t.credentials_now());
    json(
        StatusCode::OK,
        ice_servers_json(&shared.config.stun_urls, turn.as_ref()),
    )
}

/// `POST /rooms[?players=N[&spectators=M]]`: a two-seat room, or with
/// `players` a member room (400 for a bad capacity, before any cap).
async fn create_room(
    State(shared): State<Ctx>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    uri: Uri,
) -> Response {
    let capacity = match RoomCapacity::from_query(uri.query().unwrap_or("")) {
        Ok(c) => c,
        Err(e) => return error(StatusCode::BAD_REQUEST, e.reason()),
    };
    let now = shared.now();
    let owner = crate::conn::ip_key(peer.ip());
    let mut st = shared.lock();
    let per_ip = shared.config.max_rooms_per_ip;
    if per_ip != 0
        && st
            .rooms
            .values()
            .filter(|h| h.owner == Some(owner) && !h.machine.is_expired(now))
            .count()
            >= per_ip
    {
        drop(st);
        shared.log(LogRecord::new(Level::Warn, "room.too_many_from_client"));
        return error(
            StatusCode::TOO_MANY_REQUESTS,
            "too many open rooms from your address; try again when one ends",
        );
    }
    let max_rooms = shared.config.max_rooms;
    if max_rooms != 0 && st.rooms.len() >= max_rooms {
        drop(st);
        shared.log(LogRecord::new(Level::Warn, "room.too_many"));
        return error(
            StatusCode::SERVICE_UNAVAILABLE,
            "too many rooms; try again soon",
        );
    }
    let code = loop {
        let mut bytes = [0u8; 32];
        if getrandom::fill(&mut bytes).is_err() {
            drop(st);
            shared.log(LogRecord::new(Level::Error, "room.no_randomness"));
            return error(StatusCode::INTERNAL_SERVER_ERROR, "no randomness available");
        }
        match RoomCode::from_random_bytes(&bytes) {
            Some(code) if !st.rooms.contains_key(&code) => break code,
            _ => continue,
        }
    };
    let (room, actions) = Room::create(code.clone(), capacity, shared.config.room, now);
    st.rooms.insert(
        code.clone(),
        Hosted {
            machine: room,
            outs: Default::default(),
            owner: Some(owner),
        },
    );
    shared.apply(&mut st, Target::Room(code.clone()), actions);
    drop(st);
    let ttl = shared.config.room.ttl_ms / 1000;
    let body = match capacity {
        None => RoomCreated { code, ttl }.to_json(),
        Some(c) => MemberRoomCreated {
            code,
            ttl,
            players: c.players,
            spectators: c.spectators,
        }
        .to_json(),
    };
    json(StatusCode::OK, body)
}

type Upgrade = Result<WebSocketUpgrade, axum::extract::ws::rejection::WebSocketUpgradeRejection>;

fn not_an_upgrade() -> Response {
    error(StatusCode::UPGRADE_REQUIRED, "expected a WebSocket upgrade")
}

/// `GET /rooms/<code>/ws?role=...`. The code and the role are read from
/// the URL as written (no percent-decoding, the first `role` wins), as the
/// Worker reads them: a role other than host, guest, player or spectator
/// is 400, then a segment that is not a live room's code is 404, then the
/// room's own refusals (a role the kind of room does not take 400, a taken
/// place 409).
async fn room_ws(
    State(shared): State<Ctx>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    uri: Uri,
    upgrade: Upgrade,
) -> Response {
    let role = match join_role_from_query(uri.query().unwrap_or("")) {
        Ok(r) => r,
        Err(refusal) => return refuse(refusal.status(), refusal.reason()),
    };
    let code = uri
        .path()
        .strip_prefix("/rooms/")
        .and_then(|p| p.strip_suffix("/ws"))
        .unwrap_or("");
    let Some(code) = RoomCode::parse(code) else {
        return error(StatusCode::NOT_FOUND, "room not found");
    };
    let now = shared.now();
    let mut st = shared.lock();
    let Some(hosted) = st.rooms.get(&code) else {
        return error(StatusCode::NOT_FOUND, "room not found");
    };
    if hosted.machine.is_expired(now) {
        return error(StatusCode::NOT_FOUND, "room not found");
    }
    let Ok(upgrade) = upgrade else {
        return not_an_upgrade();
    };
    // The room's own refusals first, then the day's budgets, then the
    // admission itself, all under one lock: only a socket the room takes
    // is charged.
    if let Err(refusal) = hosted.machine.check_admission(role, now) {
        return refuse(refusal.status(), refusal.reason());
    }
    if let Err(spent) = shared.charge_upgrade_in(&mut st, peer.ip()) {
        drop(st);
        return budget_spent(&shared, spent, "room_ws");
    }
    let Some(hosted) = st.rooms.get_mut(&code) else {
        return error(StatusCode::NOT_FOUND, "room not found");
    };
    let (socket, actions) = match hosted.machine.admit(role, now) {
        Ok(ok) => ok,
        Err(refusal) => return refuse(refusal.status(), refusal.reason()),
    };
    let (tx, rx) = mpsc::channel(OUTBOX_LEN);
    hosted.outs.insert(socket, tx);
    let target = Target::Room(code);
    shared.apply(&mut st, target.clone(), actions);
    drop(st);
    accept(shared, target, socket, upgrade, rx)
}

/// `GET /lobbies`: every lobby with its players and capacity.
async fn lobbies(State(shared): State<Ctx>) -> Response {
    let st = shared.lock();
    let capacity = u32::try_from(shared.config.lobby.max_players).unwrap_or(u32::MAX);
    let directory = LobbyDirectory {
        lobbies: st
            .lobbies
            .iter()
            .enumerate()
            .map(|(n, h)| LobbyFill {
                lobby: u32::try_from(n).unwrap_or(u32::MAX),
                players: u32::try_from(h.machine.roster().len()).unwrap_or(u32::MAX),
                capacity,
            })
            .collect(),
    };
    drop(st);
    json(StatusCode::OK, directory.to_json())
}

/// Where a newcomer without `?lobby=` goes ([`place_newcomer`], the rule
/// the Worker follows too).
fn place(lobbies: &[Hosted<Lobby>]) -> usize {
    let loads: Vec<_> = lobbies.iter().map(|h| h.machine.load(None)).collect();
    place_newcomer(&loads)
}

/// `GET /lobby/ws[?lobby=N]`: into lobby `N` (404 when there is no such
/// lobby), or, without it, the one [`place`] picks. The per-address cap
/// counts the address's sockets in every lobby.
async fn lobby_ws(
    State(shared): State<Ctx>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    uri: Uri,
    upgrade: Upgrade,
) -> Response {
    let asked = signaling_protocol::query_param(uri.query().unwrap_or(""), "lobby");
    let now = shared.now();
    let mut st = shared.lock();
    let n = match asked {
        None => place(&st.lobbies),
        Some(text) => match lobby_number(text, st.lobbies.len()) {
            Some(n) => n,
            None => return error(StatusCode::NOT_FOUND, "no such lobby"),
        },
    };
    let Ok(upgrade) = upgrade else {
        return not_an_upgrade();
    };
    let cap = shared.config.lobby.max_sockets_per_address;
    let held: usize = st
        .lobbies
        .iter()
        .map(|h| h.machine.sockets_from(peer.ip()))
        .sum();
    // The directory's and the lobby's own refusals first, then the day's
    // budgets, then the admission, under one lock: only a socket the lobby
    // takes is charged.
    let admitted = if cap != 0 && held >= cap {
        Err(LobbyRefusal::TooManyFromAddress)
    } else if let Err(refusal) = st.lobbies[n].machine.check_admission(Some(peer.ip())) {
        Err(refusal)
    } else if let Err(spent) = shared.charge_upgrade_in(&mut st, peer.ip()) {
        drop(st);
        return budget_spent(&shared, spent, "lobby_ws");
    } else {
        st.lobbies[n].machine.admit_from(now, Some(peer.ip()))
    };
    let (socket, actions) = match admitted {
        Ok(ok) => ok,
        Err(refusal) => {
            drop(st);
            let event = match refusal {
                LobbyRefusal::TooManySockets => "lobby.busy",
                LobbyRefusal::TooManyFromAddress => "lobby.too_many_from_client",
            };
            shared.log(LogRecord::new(Level::Warn, event));
            return refuse(refusal.status(), refusal.reason());
        }
    };
    let (tx, rx) = mpsc::channel(OUTBOX_LEN);
    st.lobbies[n].outs.insert(socket, tx);
    shared.apply(&mut st, Target::Lobby(n), actions);
    drop(st);
    accept(shared, Target::Lobby(n), socket, upgrade, rx)
}

fn refuse(status: u16, reason: &str) -> Response {
    error(
        StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_REQUEST),
        reason,
    )
}

/// The answer to an upgrade the day's budgets cannot pay for (429 when its
/// address spent its own, 503 when the service spent everyone's), logged
/// under the route's fixed name.
pub(crate) fn budget_spent(shared: &Shared, spent: BudgetSpent, route: &'static str) -> Response {
    let (event, status, reason) = match spent {
        BudgetSpent::Address => (
            "http.address_budget_spent",
            StatusCode::TOO_MANY_REQUESTS,
            ADDRESS_BUDGET_REASON,
        ),
        BudgetSpent::Service => (
            "http.budget_spent",
            StatusCode::SERVICE_UNAVAILABLE,
            DailyBudget::REASON,
        ),
    };
    shared.log(LogRecord::new(Level::Warn, event).with("route", route));
    error(status, reason)
}

/// Completes the upgrade and runs the socket; a failed upgrade is reported
/// to the machine as a closed socket, freeing its slot.
fn accept(
    shared: Ctx,
    target: Target,
    socket: SocketId,
    upgrade: WebSocketUpgrade,
    rx: mpsc::Receiver<Out>,
) -> Response {
    let on_fail = shared.clone();
    let failed_target = target.clone();
    crate::socket::capped(upgrade, max_ws_message(&shared))
        .on_failed_upgrade(move |_| on_fail.socket_gone(failed_target, socket))
        .on_upgrade(move |ws| run_socket(shared, target, socket, ws, rx))
}

/// Runs a lobby or room socket, each frame passed to its machine.
async fn run_socket(
    shared: Ctx,
    target: Target,
    socket: SocketId,
    ws: WebSocket,
    rx: mpsc::Receiver<Out>,
) {
    let cap = max_ws_message(&shared);
    crate::socket::serve(
        ws,
        rx,
        shared.config.close_grace,
        |frame| {
            let event = match frame {
                Inbound::Text(text) => Event::Text { socket, text },
                Inbound::Binary(bytes) => Event::Binary {
                    socket,
                    len: bytes.len(),
                },
            };
            shared.deliver(target.clone(), event);
        },
        // Refused unread: to the machine a message over the read cap (of
        // either kind: the size check comes first).
        || {
            shared.deliver(
                target.clone(),
                Event::Binary {
                    socket,
                    len: cap + 1,
                },
            );
        },
    )
    .await;
    shared.socket_gone(target, socket);
}
