//! The lobby directory on the Worker: `LOBBIES` lobbies, each its own
//! [`crate::LobbyObject`] (lobby 0 named `lobby` as before the directory,
//! lobby `N` named `lobby-N`). The entry Worker asks every lobby for its
//! fill ([`LobbyLoad`], an internal `GET https://lobby/load` carrying the
//! client's `CF-Connecting-IP`), then sends a newcomer to the lobby it
//! asked for or to the one [`place_newcomer`] picks, and answers
//! `GET /lobbies` from the same fills. With one lobby (the default) a
//! newcomer goes straight to it, as before, at no extra cost.
//!
//! What the fills cost: one more Durable Object request per lobby for
//! every lobby upgrade and every `GET /lobbies` when there are several
//! lobbies. Two newcomers placed at the same instant may both be sent to a
//! lobby with one place left; the later hello then gets `full`, as it
//! would in a single lobby.

use futures_util::future::join_all;
use signaling_core::{lobby_number, place_newcomer, LobbyLoad, LobbyRefusal};
use signaling_protocol::{LobbyDirectory, LobbyFill};
use worker::{Env, Headers, Method, Request, RequestInit, Response, Result};

use crate::config::Config;
use crate::host::{error_response, json_response};
use crate::LOBBY_BINDING;

/// The path a lobby object answers its fill on.
pub const LOAD_PATH: &str = "/load";

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
    /// Forward the upgrade to lobby `n`.
    Lobby(usize),
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
    Ok(Placement::Lobby(
        asked.unwrap_or_else(|| place_newcomer(&loads)),
    ))
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
