//! The signalling service as a Cloudflare Worker.
//!
//! This crate is a host: all the rules live in [`signaling_core`]. It
//! gives the core's two machines a home on Cloudflare's network and speaks
//! HTTP for them:
//!
//! | route | handled by |
//! | --- | --- |
//! | `POST /rooms[?players=N&spectators=M]` | here: draws a code, asks that room's object to create it (a member room with `players`) |
//! | `GET /rooms/<code>/ws?role=host\|guest\|player\|spectator` | the room's Durable Object ([`RoomObject`], `idFromName(code)`) |
//! | `GET /lobby/ws[?lobby=N]` | lobby `N`'s [`LobbyObject`] (`idFromName("lobby")` for lobby 0, `"lobby-N"` for the others), or the one the [`directory`] places the newcomer in |
//! | `GET /lobbies` | here: every lobby's fill, asked of each lobby object |
//! | `GET /relay/<code>/ws?ticket=...` | the [`RelayObject`] of the relay the ticket names: the room's (`idFromName(code)`), or a member room pair's (`idFromName("<code>/<low>-<high>")`) |
//! | `GET /ice` | here: STUN URLs, plus TURN credentials when configured |
//! | `GET /health` | here |
//!
//! Before routing, every request passes the `ALLOWED_ORIGINS` check (403)
//! and the per-IP Workers rate-limit binding `RATE_LIMITER` (429). Errors
//! are JSON `{"error": "..."}`; logs are JSON lines with a `level` and never
//! hold a nickname, a payload or an address. Both Durable Objects use the
//! WebSocket hibernation API and keep per-socket state in attachments.
//!
//! Settings come from the environment; see [`config::Config`] and
//! `docs/deploy.md`. The crate is built for `wasm32-unknown-unknown` by
//! `build.sh` and served by wrangler through `js/shim.mjs`. It also compiles
//! natively, so its pure parts ([`config`], [`route`], [`turn`]) are
//! unit-tested with `cargo test`.
#![warn(missing_docs)]

pub mod budget;
pub mod config;
pub mod directory;
pub mod host;
pub mod lobby;
pub mod owner;
pub mod relay;
pub mod room;
pub mod route;
pub mod turn;

pub use budget::BudgetObject;
pub use lobby::LobbyObject;
pub use owner::AddressRoomsObject;
pub use relay::RelayObject;
pub use room::RoomObject;

use signaling_core::{ice_servers_json, parse_join_role, Level, LogRecord};
use signaling_protocol::{MemberRoomCreated, RoomCapacity, RoomCode, RoomCreated};
use worker::{event, Context, Env, Headers, Method, Request, RequestInit, Response, Result};

use crate::config::Config;
use crate::host::{error_response, json_response, Logger};
use crate::route::Route;

/// Binding name of the room objects' namespace.
pub const ROOMS_BINDING: &str = "ROOMS";
/// Binding name of the relay objects' namespace.
pub const RELAYS_BINDING: &str = "RELAYS";
/// Binding name of the lobby object's namespace.
pub const LOBBY_BINDING: &str = "LOBBY";
/// Binding name of the per-address room ledgers' namespace
/// ([`AddressRoomsObject`]).
pub const OWNERS_BINDING: &str = "OWNERS";
/// Binding name of the daily upgrade budget's namespace ([`BudgetObject`]).
pub const BUDGET_BINDING: &str = "BUDGET";
/// Binding name of the Workers rate limiter (required: without it every
/// request gets 503, unless `RATE_LIMITER_OFF=1`).
pub const RATE_LIMIT_BINDING: &str = "RATE_LIMITER";

/// How many fresh codes `POST /rooms` tries before giving up. A clash needs
/// a live room with the same code: with 31⁶ ≈ 887 million codes, even one
/// retry is rare.
const CREATE_ATTEMPTS: usize = 4;

/// The Worker's entry point: every HTTP request arrives here. Whatever goes
/// wrong inside becomes a logged JSON 500, never the runtime's bare error.
#[event(fetch)]
pub async fn fetch(req: Request, env: Env, _ctx: Context) -> Result<Response> {
    let config = host::config(&env);
    let logger = Logger::new(&config);
    match handle(req, &env, &config, &logger).await {
        Ok(response) => Ok(response),
        Err(e) => {
            logger.failure("http.internal_error", &e);
            error_response(500, "internal error")
        }
    }
}

async fn handle(req: Request, env: &Env, config: &Config, logger: &Logger) -> Result<Response> {
    let origin = req.headers().get("Origin")?;
    let path = req.path();
    let route = route::route(req.method().as_ref(), &path);

    let own = req.url().ok().map(|u| u.origin().ascii_serialization());
    if !config
        .allowed_origins
        .allows_at(origin.as_deref(), own.as_deref())
    {
        logger.record(
            &LogRecord::new(Level::Warn, "http.origin_refused").with("route", route_name(&route)),
        );
        return error_response(403, "origin not allowed");
    }
    let verdict = if config.rate_limiter_off {
        RateVerdict::Allowed
    } else {
        rate_limit(&req, env, logger).await
    };
    match verdict {
        RateVerdict::Allowed => {}
        RateVerdict::Limited => {
            logger.record(
                &LogRecord::new(Level::Warn, "http.rate_limited").with("route", route_name(&route)),
            );
            return with_cors(
                error_response(429, "too many requests; slow down"),
                origin.as_deref(),
            );
        }
        RateVerdict::Unavailable => {
            return with_cors(
                error_response(
                    503,
                    "the service cannot check its request limit; try again soon",
                ),
                origin.as_deref(),
            );
        }
    }

    // WebSocket upgrades are charged to the day's budgets by the object
    // that admits them, once its machine has said it would ([`budget`]):
    // an upgrade refused for a reason of its own costs nothing.

    let response = match &route {
        Route::Health => json_response(200, "{\"ok\":true}".to_owned()),
        Route::Ice => ice(config, logger).await,
        Route::CreateRoom => {
            let url = req.url()?;
            match RoomCapacity::from_query(url.query().unwrap_or("")) {
                Ok(capacity) => {
                    create_room(env, config, logger, host::client_address(&req), capacity).await
                }
                Err(e) => error_response(400, e.reason()),
            }
        }
        Route::RoomSocket(code) => {
            // A bad role is refused here, before the room's object is woken.
            let url = req.url()?;
            if let Err(refusal) =
                parse_join_role(route::query_param(url.query().unwrap_or(""), "role"))
            {
                return error_response(refusal.status(), refusal.reason());
            }
            let stub = env
                .durable_object(ROOMS_BINDING)?
                .id_from_name(code.as_str())?
                .get_stub()?;
            // The room's object answers the upgrade (or 404/409) itself.
            let answer = stub.fetch_with_request(req).await?;
            log_request(logger, &route, answer.status_code());
            return Ok(answer);
        }
        Route::LobbySocket => {
            let url = req.url()?;
            let asked = route::query_param(url.query().unwrap_or(""), "lobby");
            let client = host::client_address(&req);
            let (n, loads) = match directory::place(env, config, asked, client).await? {
                directory::Placement::Lobby(n) => (n, None),
                directory::Placement::Placed(n, loads) => (n, Some(loads)),
                directory::Placement::Refused(status, reason) => {
                    if status == 429 {
                        logger.record(
                            &LogRecord::new(Level::Warn, "lobby.refused_socket")
                                .with("status", status),
                        );
                    }
                    let answer = error_response(status, reason);
                    return with_cors(answer, origin.as_deref());
                }
            };
            let (n, answer) = match loads {
                Some(loads) => directory::forward_placed(env, req, n, loads).await?,
                None => (n, directory::forward(env, &req, n).await?),
            };
            if answer.status_code() == 101 {
                directory::note_admitted(config, n, client);
            }
            log_request(logger, &route, answer.status_code());
            return Ok(answer);
        }
        Route::Lobbies => directory::lobbies(env, config).await,
        Route::Preflight => preflight(),
        Route::WrongMethod(allow) => error_response(405, "method not allowed").and_then(|mut r| {
            r.headers_mut().set("Allow", allow)?;
            Ok(r)
        }),
        Route::UnknownRoom => {
            // The role is checked before the code, as for a well-formed code.
            let url = req.url()?;
            match parse_join_role(route::query_param(url.query().unwrap_or(""), "role")) {
                Err(refusal) => error_response(refusal.status(), refusal.reason()),
                Ok(_) => error_response(404, "room not found"),
            }
        }
        Route::RelaySocket(code) => {
            let answer = relay::forward(req, env, code).await?;
            log_request(logger, &route, answer.status_code());
            return Ok(answer);
        }
        Route::UnknownRelay => error_response(404, "no relay at this address"),
        Route::NotFound => error_response(404, "no such route"),
    }?;
    log_request(logger, &route, response.status_code());
    with_cors(Ok(response), origin.as_deref())
}

/// One debug record per answered request: the route's fixed name and the
/// status, nothing about the client.
fn log_request(logger: &Logger, route: &Route, status: u16) {
    logger.record(
        &LogRecord::new(Level::Debug, "http.request")
            .with("route", route_name(route))
            .with("status", status),
    );
}

/// A short fixed name for a route, for logs.
fn route_name(route: &Route) -> &'static str {
    match route {
        Route::Health => "health",
        Route::Ice => "ice",
        Route::CreateRoom => "create-room",
        Route::RoomSocket(_) | Route::UnknownRoom => "room-ws",
        Route::LobbySocket => "lobby-ws",
        Route::Lobbies => "lobbies",
        Route::RelaySocket(_) | Route::UnknownRelay => "relay-ws",
        Route::Preflight => "preflight",
        Route::WrongMethod(_) | Route::NotFound => "other",
    }
}

/// What the per-IP limit says about a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RateVerdict {
    /// Within the limit.
    Allowed,
    /// Over it: 429.
    Limited,
    /// The limit could not be checked (no binding, or the limiter failed):
    /// 503. The limiter fails closed, so that a broken or missing binding
    /// cannot open the service to floods; an operator who wants no limit
    /// says so with `RATE_LIMITER_OFF=1`.
    Unavailable,
}

impl RateVerdict {
    /// The verdict for a limiter's answer: `None` when there is no
    /// limiter, `Some(Err(()))` when it failed, `Some(Ok(success))`
    /// otherwise.
    #[must_use]
    pub fn from_outcome(outcome: Option<std::result::Result<bool, ()>>) -> RateVerdict {
        match outcome {
            Some(Ok(true)) => RateVerdict::Allowed,
            Some(Ok(false)) => RateVerdict::Limited,
            Some(Err(())) | None => RateVerdict::Unavailable,
        }
    }
}

/// Counts the request against its client's address with the Workers
/// rate-limit binding. The address is only ever the limiter's key: never
/// logged, never stored by us. Without the binding, or if the limiter
/// itself fails, the request is refused ([`RateVerdict::Unavailable`]) and
/// an error is logged.
async fn rate_limit(req: &Request, env: &Env, logger: &Logger) -> RateVerdict {
    let binding = worker::js_sys::Reflect::get(env.as_ref(), &RATE_LIMIT_BINDING.into())
        .ok()
        .filter(|b| !b.is_undefined() && !b.is_null());
    let Some(binding) = binding else {
        logger.record(&LogRecord::new(Level::Error, "http.rate_limiter_missing"));
        return RateVerdict::from_outcome(None);
    };
    // The binding's JavaScript class name differs between the local runtime
    // and production, so it is not checked (the `worker` crate's own
    // accessor insists on one name).
    let limiter: worker::RateLimiter = worker::wasm_bindgen::JsCast::unchecked_into(binding);
    let key = req
        .headers()
        .get("CF-Connecting-IP")
        .ok()
        .flatten()
        .unwrap_or_else(|| "unknown".to_owned());
    let outcome = match limiter.limit(key).await {
        Ok(outcome) => Ok(outcome.success),
        Err(e) => {
            logger.failure("http.rate_limiter_failed", &e);
            Err(())
        }
    };
    RateVerdict::from_outcome(Some(outcome))
}

/// An internal POST to a Durable Object.
async fn post(stub: &worker::Stub, url: &str) -> Result<Response> {
    let mut init = RequestInit::new();
    init.with_method(Method::Post);
    stub.fetch_with_request(Request::new_with_init(url, &init)?)
        .await
}

/// `POST /rooms`: draw a code without bias from the runtime's CSPRNG and
/// have that room's object create it; draw again on the (rare) clash.
/// With a per-address cap (`ROOMS_PER_IP`), a place is first reserved in
/// the client address's ledger ([`owner`]): 429 when it is full; with a
/// cap on all rooms (`MAX_ROOMS`), then in the service's ledger: 503 when
/// it is full. With a `capacity`, the room is a member room.
async fn create_room(
    env: &Env,
    config: &Config,
    logger: &Logger,
    client: Option<std::net::IpAddr>,
    capacity: Option<RoomCapacity>,
) -> Result<Response> {
    let rooms = env.durable_object(ROOMS_BINDING)?;
    // The ledgers to reserve a place in, each with its cap, the room's
    // query parameter that names it, and the refusal when it is full: the
    // client address's (named by its key; an address the edge did not give
    // shares one ledger with the others like it), then the service's.
    let key = client.map_or_else(
        || "unknown".to_owned(),
        |ip| signaling_core::address_key(ip).to_string(),
    );
    let owners = env.durable_object(OWNERS_BINDING)?;
    let mut ledgers = Vec::new();
    for (cap, name, param, status, reason) in [
        (
            config.rooms_per_ip,
            key.as_str(),
            "owner",
            429,
            "too many open rooms from your address; try again when one ends",
        ),
        (
            config.max_rooms,
            owner::ALL_ROOMS_NAME,
            "all",
            503,
            "too many rooms; try again soon",
        ),
    ] {
        if cap != 0 {
            let id = owners.id_from_name(name)?;
            ledgers.push((id, cap, param, status, reason));
        }
    }
    for _ in 0..CREATE_ATTEMPTS {
        let mut bytes = [0u8; 32];
        host::random_bytes(&mut bytes)?;
        let Some(code) = RoomCode::from_random_bytes(&bytes) else {
            continue;
        };
        // The room's object learns its capacity and its ledgers from the
        // query.
        let mut query = match capacity {
            None => String::new(),
            Some(c) => format!("?players={}&spectators={}", c.players, c.spectators),
        };
        let mut reserved = Vec::new();
        let mut refusal = None;
        for (id, cap, param, status, reason) in &ledgers {
            let expires = host::now().0 + config.room.ttl_ms;
            let url = format!("https://owner/reserve?code={code}&expires={expires}&cap={cap}");
            let answer = post(&id.get_stub()?, &url).await?;
            match answer.status_code() {
                201 => {
                    let sep = if query.is_empty() { '?' } else { '&' };
                    query.push_str(&format!("{sep}{param}={id}"));
                    reserved.push(id);
                }
                429 => {
                    if *status == 503 {
                        logger.record(&LogRecord::new(Level::Warn, "room.too_many"));
                    }
                    refusal = Some(error_response(*status, reason));
                    break;
                }
                status => {
                    logger.record(
                        &LogRecord::new(Level::Error, "room.ledger_failed").with("status", status),
                    );
                    refusal = Some(error_response(500, "could not create a room"));
                    break;
                }
            }
        }
        let refused = refusal.is_some();
        let answer = match refusal {
            Some(refusal) => refusal?,
            None => {
                let stub = rooms.id_from_name(code.as_str())?.get_stub()?;
                post(&stub, &format!("https://room/rooms/{code}/create{query}")).await?
            }
        };
        if answer.status_code() != 201 {
            // Give back the places taken before the refusal or the clash.
            for id in reserved {
                post(
                    &id.get_stub()?,
                    &format!("https://owner/release?code={code}"),
                )
                .await?;
            }
            if refused {
                return Ok(answer);
            }
        }
        match answer.status_code() {
            201 => {
                let ttl = config.room_ttl_seconds();
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
                return json_response(200, body);
            }
            409 => logger.record(&LogRecord::new(Level::Info, "room.code_clash")),
            status => {
                logger.record(
                    &LogRecord::new(Level::Error, "room.create_failed").with("status", status),
                );
                return error_response(500, "could not create a room");
            }
        }
    }
    error_response(503, "could not find a free room code; try again")
}

/// `GET /ice`: the configured STUN URLs, plus short-lived TURN credentials
/// when the operator set a TURN key. If minting fails (refused, an error
/// status, an unusable answer, or no answer within
/// [`turn::MINT_TIMEOUT`]) the answer is STUN only, and a warning says why
/// in fixed words: never the key, the token, or the API's answer.
async fn ice(config: &Config, logger: &Logger) -> Result<Response> {
    let turn = match &config.turn {
        None => None,
        Some(key) => match turn::mint(key, &config.turn_api_base, config.turn_ttl_seconds).await {
            Ok(server) => Some(server),
            Err(e) => {
                logger.record(
                    &LogRecord::new(Level::Warn, "ice.turn_failed")
                        .with("reason", e.reason())
                        .with("status", e.status()),
                );
                None
            }
        },
    };
    let body = ice_servers_json(&config.stun_urls, turn.as_ref());
    let response = json_response(200, body)?;
    Ok(response)
}

/// The answer to a CORS preflight from an allowed origin (the origin
/// check already passed).
fn preflight() -> Result<Response> {
    let headers = Headers::new();
    headers.set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")?;
    headers.set("Access-Control-Allow-Headers", "Content-Type")?;
    headers.set("Access-Control-Max-Age", "600")?;
    for (name, value) in signaling_core::headers::API_HEADERS {
        headers.set(name, value)?;
    }
    Ok(Response::empty()?.with_status(204).with_headers(headers))
}

/// Lets a page on an allowed origin read the answer: echoes its `Origin`.
/// WebSocket upgrades are not CORS requests and never pass through here.
fn with_cors(response: Result<Response>, origin: Option<&str>) -> Result<Response> {
    let mut response = response?;
    if let Some(origin) = origin {
        let headers = response.headers_mut();
        headers.set("Access-Control-Allow-Origin", origin)?;
        headers.append("Vary", "Origin")?;
    }
    Ok(response)
}

#[cfg(test)]
mod tests {
    use super::RateVerdict;

    #[test]
    fn the_limiter_fails_closed() {
        assert_eq!(
            RateVerdict::from_outcome(Some(Ok(true))),
            RateVerdict::Allowed
        );
        assert_eq!(
            RateVerdict::from_outcome(Some(Ok(false))),
            RateVerdict::Limited
        );
        assert_eq!(
            RateVerdict::from_outcome(Some(Err(()))),
            RateVerdict::Unavailable
        );
        assert_eq!(RateVerdict::from_outcome(None), RateVerdict::Unavailable);
    }
}
