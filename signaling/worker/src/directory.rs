//! The lobby directory on the Worker: `LOBBIES` lobbies, each its own
//! [`crate::LobbyObject`] (lobby 0 named `lobby` as before the directory,
//! lobby `N` named `lobby-N`). The entry Worker asks every lobby for its
//! fill ([`LobbyLoad`], an internal `GET https://lobby/load` carrying the
//! client's `CF-Connecting-IP`), then sends a newcomer to the lobby it
//! asked for or to the one [`place_newcomer`] picks, and answers
//! `GET /lobbies` from the same fills. With one lobby (the default) a
//! newcomer goes straight to it, as before, at no extra cost.
//!
//! Two newcomers placed at the same instant may both be sent to a lobby
//! with one place left, since each read the fills before the other
//! arrived. So a placed upgrade goes to the lobby object as a *placed*
//! request ([`PLACED_PATH`]), which the object refuses with
//! [`FULL_STATUS`] when it has no room left (it admits one request at a
//! time, so its answer is exact); the entry Worker then places the
//! newcomer again among the lobbies it has not tried. Only when every
//! lobby is full does the upgrade go on as a plain one, to meet the
//! lobby's usual refusals (`full` at hello, or 503). An upgrade that asked
//! for a lobby (`?lobby=N`) goes there as a plain one.
//!
//! What the fills cost: one more Durable Object request per lobby for
//! every lobby upgrade and every `GET /lobbies` when there are several
//! lobbies, and one more for each lobby that turned out full.

use futures_util::future::join_all;
use signaling_core::{lobby_number, place_newcomer, LobbyLoad, LobbyRefusal};
use signaling_protocol::{LobbyDirectory, LobbyFill};
use worker::{Env, Headers, Method, Request, RequestInit, Response, Result};

use crate::config::Config;
use crate::host::{error_response, json_response};
use crate::LOBBY_BINDING;

/// The path a lobby object answers its fill on.
pub const LOAD_PATH: &str = "/load";

/// The path of an upgrade the directory placed (rather than one that
/// asked for its lobby): the lobby object refuses it with
/// [`FULL_STATUS`] when it has no room. Clients cannot send it: their
/// upgrades reach a lobby object on `/lobby/ws`.
pub const PLACED_PATH: &str = "/placed";

/// A lobby object's answer to a placed upgrade when it has no room left
/// (never sent to a client: the entry Worker places the newcomer again).
pub const FULL_STATUS: u16 = 409;

/// The Durable Object name of lobby `n`.
#[must_use]
pub fn lobby_name(n: usize) -> String {
    match n {
        0 => crate::lobby::LOBBY_NAME.to_owned(),
        n => format!("{}-{n}", crate::lobby::LOBBY_NAME),
    }
}

/// Where a lobby upgrade goes, or why it is refused.
#[derive(Debug)]
pub enum Placement {
    /// Forward the upgrade to lobby `n` as it is: the one it asked for, or
    /// the only lobby.
    Lobby(usize),
    /// The directory placed it in lobby `n` after reading these fills;
    /// forward it with [`forward_placed`].
    Placed(usize, Vec<LobbyLoad>),
    /// Answer with this status and reason.
    Refused(u16, &'static str),
}

/// Every lobby's fill, in order, as seen from `client` (its sockets
/// counted in `from_address`). A lobby that cannot answer counts as full.
async fn loads(env: &Env, config: &Config, client: Option<&str>) -> Result<Vec<LobbyLoad>> {
    let namespace = env.durable_object(LOBBY_BINDING)?;
    let mut asks = Vec::with_capacity(config.lobbies);
    for n in 0..config.lobbies {
        let stub = namespace.id_from_name(&lobby_name(n))?.get_stub()?;
        let headers = Headers::new();
        if let Some(ip) = client {
            headers.set("CF-Connecting-IP", ip)?;
        }
        let mut init = RequestInit::new();
        init.with_method(Method::Get).with_headers(headers);
        let req = Request::new_with_init(&format!("https://lobby{LOAD_PATH}"), &init)?;
        asks.push(async move {
            let mut answer = stub.fetch_with_request(req).await.ok()?;
            serde_json::from_str::<LobbyLoad>(&answer.text().await.ok()?).ok()
        });
    }
    Ok(join_all(asks)
        .await
        .into_iter()
        .map(|l| l.unwrap_or_default())
        .collect())
}

/// Places a lobby upgrade: `asked` is the `?lobby=` value, `client` the
/// client's address as the edge gave it.
pub async fn place(
    env: &Env,
    config: &Config,
    asked: Option<&str>,
    client: Option<&str>,
) -> Result<Placement> {
    let asked = match asked {
        None => None,
        Some(text) => match lobby_number(text, config.lobbies) {
            Some(n) => Some(n),
            None => return Ok(Placement::Refused(404, "no such lobby")),
        },
    };
    if config.lobbies == 1 {
        // One lobby: it checks its own per-address cap, as before.
        return Ok(Placement::Lobby(0));
    }
    let loads = loads(env, config, client).await?;
    let cap = config.lobby.max_sockets_per_address;
    let held: usize = loads.iter().map(|l| l.from_address).sum();
    if cap != 0 && held >= cap {
        let refusal = LobbyRefusal::TooManyFromAddress;
        return Ok(Placement::Refused(refusal.status(), refusal.reason()));
    }
    Ok(match asked {
        Some(n) => Placement::Lobby(n),
        None => Placement::Placed(place_newcomer(&loads), loads),
    })
}

/// Forwards a placed upgrade to lobby `first` as a placed request; each
/// lobby that answers [`FULL_STATUS`] is marked full and the newcomer is
/// placed again among the rest. When none has room, the upgrade goes to
/// the last one tried as a plain request, which refuses it as a single
/// lobby would.
pub async fn forward_placed(
    env: &Env,
    req: Request,
    first: usize,
    mut loads: Vec<LobbyLoad>,
) -> Result<Response> {
    let namespace = env.durable_object(LOBBY_BINDING)?;
    let mut n = first;
    // Each turn marks one more lobby full, so this ends within
    // `loads.len()` turns.
    for _ in 0..loads.len() {
        let stub = namespace.id_from_name(&lobby_name(n))?.get_stub()?;
        let answer = stub
            .fetch_with_request(lobby_request(&req, PLACED_PATH, n)?)
            .await?;
        if answer.status_code() != FULL_STATUS {
            return Ok(answer);
        }
        if let Some(load) = loads.get_mut(n) {
            load.has_room = false;
        }
        if !loads.iter().any(|l| l.has_room) {
            break;
        }
        n = place_newcomer(&loads);
    }
    forward(env, &req, n).await
}

/// Forwards an upgrade to lobby `n` as it is (no placing again).
pub async fn forward(env: &Env, req: &Request, n: usize) -> Result<Response> {
    env.durable_object(LOBBY_BINDING)?
        .id_from_name(&lobby_name(n))?
        .get_stub()?
        .fetch_with_request(lobby_request(req, "/lobby/ws", n)?)
        .await
}

/// The client's upgrade as a request to lobby `n`'s object on `path`,
/// with the client's headers and the lobby's number (`?lobby=N`), which
/// the object's `welcome` then carries.
fn lobby_request(req: &Request, path: &str, n: usize) -> Result<Request> {
    let mut init = RequestInit::new();
    init.with_method(Method::Get)
        .with_headers(req.headers().clone());
    Request::new_with_init(&format!("https://lobby{path}?lobby={n}"), &init)
}

/// `GET /lobbies`: every lobby with its players and capacity.
pub async fn lobbies(env: &Env, config: &Config) -> Result<Response> {
    let loads = loads(env, config, None).await?;
    let capacity = u32::try_from(config.lobby.max_players).unwrap_or(u32::MAX);
    let directory = LobbyDirectory {
        lobbies: loads
            .iter()
            .enumerate()
            .map(|(n, l)| LobbyFill {
                lobby: u32::try_from(n).unwrap_or(u32::MAX),
                players: u32::try_from(l.players).unwrap_or(u32::MAX),
                capacity,
            })
            .collect(),
    };
    json_response(200, directory.to_json())
}

/// The answer a lobby object gives on [`LOAD_PATH`].
pub fn load_response(load: LobbyLoad) -> Result<Response> {
    match serde_json::to_string(&load) {
        Ok(body) => json_response(200, body),
        Err(_) => error_response(500, "internal error"),
    }
}
