//! The lobby directory on the Worker: `LOBBIES` lobbies, each its own
//! [`crate::LobbyObject`] (lobby 0 named `lobby` as before the directory,
//! lobby `N` named `lobby-N`). The entry Worker reads every lobby's fill
//! ([`LobbyLoad`], an internal `GET https://lobby/load`, with the sockets
//! each address holds there), then sends a newcomer to the lobby it asked
//! for or to the one [`place_newcomer`] picks, and answers `GET /lobbies`
//! from fresh fills. With one lobby (the default) a newcomer goes straight
//! to it, as before, at no extra cost.
//!
//! **The fills are kept for a moment.** Asking every lobby before every
//! upgrade made the directory's cost grow with the number of lobbies (64
//! Durable Object requests per newcomer with 64 lobbies). So the entry
//! Worker's isolate keeps the fills it read for [`FILLS_KEPT_MS`], and
//! counts in them each socket it sees admitted since. Placing from a fill a
//! moment old is safe: the lobby object has the last word (below), and a
//! fill that still counts a socket since closed only makes a lobby look
//! fuller than it is.
//!
//! **The per-address cap** counts an address's sockets in every lobby
//! together, from the kept fills plus the sockets admitted since. When
//! that says the address is at its cap, the fills are read afresh before
//! refusing, so a socket closed a moment ago does not cost a refusal.
//! Within one isolate of the entry Worker the count is exact for
//! sockets opened one after another; a client whose upgrades reach other
//! isolates at the same moment may pass the cap by what those open within
//! [`FILLS_KEPT_MS`], but never by more than the cap in one lobby, which
//! each lobby object checks itself, and never past the rate limit.
//!
//! Two newcomers placed at the same instant may both be sent to a lobby
//! with one place left. So a placed upgrade goes to the lobby object as a
//! *placed* request ([`PLACED_PATH`]), which the object refuses with
//! [`FULL_STATUS`] when it has no room left (it admits one request at a
//! time, so its answer is exact); the entry Worker then marks that lobby
//! full and places the newcomer again among the others. Only when every
//! lobby is full does the upgrade go on as a plain one, to meet the
//! lobby's usual refusals (`full` at hello, or 503). An upgrade that asked
//! for a lobby (`?lobby=N`) goes there as a plain one.
//!
//! What the fills cost: one Durable Object request per lobby, at most once
//! per [`FILLS_KEPT_MS`] in each isolate of the entry Worker (and again for
//! an address found at its cap), one per lobby for every `GET /lobbies`,
//! and one more for each lobby that turned out full.

use std::cell::RefCell;
use std::net::IpAddr;

use futures_util::future::join_all;
use signaling_core::{lobby_number, place_newcomer, LobbyLoad, LobbyRefusal, Millis};
use signaling_protocol::{LobbyDirectory, LobbyFill};
use worker::{Env, Method, Request, RequestInit, Response, Result};

use crate::config::Config;
use crate::host::{self, error_response, json_response};
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

/// How long an isolate of the entry Worker places newcomers from the
/// fills it read, in milliseconds: under a second, so that players are
/// still placed where players are, and long enough that a crowd arriving
/// together costs one round of questions, not one per newcomer.
pub const FILLS_KEPT_MS: u64 = 1_000;

/// The fills this isolate read, when, and what it has seen since.
struct Kept {
    read_at: Millis,
    loads: Vec<LobbyLoad>,
}

thread_local! {
    /// This isolate's kept fills. The address keys in them live only here,
    /// in memory, for at most [`FILLS_KEPT_MS`]: never logged or stored.
    static KEPT: RefCell<Option<Kept>> = const { RefCell::new(None) };
}

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

/// Every lobby's fill, in order, read afresh (and kept). A lobby that
/// cannot answer counts as full.
async fn read_loads(env: &Env, config: &Config) -> Result<Vec<LobbyLoad>> {
    let namespace = env.durable_object(LOBBY_BINDING)?;
    let mut asks = Vec::with_capacity(config.lobbies);
    for n in 0..config.lobbies {
        let stub = namespace.id_from_name(&lobby_name(n))?.get_stub()?;
        let mut init = RequestInit::new();
        init.with_method(Method::Get);
        let req = Request::new_with_init(&format!("https://lobby{LOAD_PATH}"), &init)?;
        asks.push(async move {
            let mut answer = stub.fetch_with_request(req).await.ok()?;
            serde_json::from_str::<LobbyLoad>(&answer.text().await.ok()?).ok()
        });
    }
    let loads: Vec<LobbyLoad> = join_all(asks)
        .await
        .into_iter()
        .map(|l| l.unwrap_or_default())
        .collect();
    KEPT.with(|k| {
        *k.borrow_mut() = Some(Kept {
            read_at: host::now(),
            loads: loads.clone(),
        });
    });
    Ok(loads)
}

/// The kept fills, while they are fresh enough, else read afresh.
async fn loads(env: &Env, config: &Config) -> Result<Vec<LobbyLoad>> {
    let now = host::now();
    let kept = KEPT.with(|k| {
        k.borrow()
            .as_ref()
            .filter(|k| {
                now.saturating_since(k.read_at).0 < FILLS_KEPT_MS && k.loads.len() == config.lobbies
            })
            .map(|k| k.loads.clone())
    });
    match kept {
        Some(loads) => Ok(loads),
        None => read_loads(env, config).await,
    }
}

/// Sockets `client` holds over every lobby, by these fills.
fn held(loads: &[LobbyLoad], client: Option<IpAddr>) -> usize {
    client.map_or(0, |ip| loads.iter().map(|l| l.sockets_of(ip)).sum())
}

/// Counts a socket from `client` that lobby `n` admitted in the kept
/// fills (see the module docs).
pub fn note_admitted(config: &Config, n: usize, client: Option<IpAddr>) {
    KEPT.with(|k| {
        if let Some(load) = k.borrow_mut().as_mut().and_then(|k| k.loads.get_mut(n)) {
            load.note_admitted(client, &config.lobby);
        }
    });
}

/// Marks lobby `n` full in the kept fills.
fn note_full(n: usize) {
    KEPT.with(|k| {
        if let Some(load) = k.borrow_mut().as_mut().and_then(|k| k.loads.get_mut(n)) {
            load.has_room = false;
        }
    });
}

/// Places a lobby upgrade: `asked` is the `?lobby=` value, `client` the
/// client's address as the edge gave it.
pub async fn place(
    env: &Env,
    config: &Config,
    asked: Option<&str>,
    client: Option<IpAddr>,
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
    let mut loads = loads(env, config).await?;
    let cap = config.lobby.max_sockets_per_address;
    if cap != 0 && held(&loads, client) >= cap {
        // Perhaps some of those sockets have closed since: ask again
        // before refusing.
        loads = read_loads(env, config).await?;
        if held(&loads, client) >= cap {
            let refusal = LobbyRefusal::TooManyFromAddress;
            return Ok(Placement::Refused(refusal.status(), refusal.reason()));
        }
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
/// lobby would. Returns the lobby that answered, and its answer.
pub async fn forward_placed(
    env: &Env,
    req: Request,
    first: usize,
    mut loads: Vec<LobbyLoad>,
) -> Result<(usize, Response)> {
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
            return Ok((n, answer));
        }
        note_full(n);
        if let Some(load) = loads.get_mut(n) {
            load.has_room = false;
        }
        if !loads.iter().any(|l| l.has_room) {
            break;
        }
        n = place_newcomer(&loads);
    }
    Ok((n, forward(env, &req, n).await?))
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

/// `GET /lobbies`: every lobby with its players and capacity, read afresh
/// (players join by their hello, which only the lobby objects see).
pub async fn lobbies(env: &Env, config: &Config) -> Result<Response> {
    let loads = read_loads(env, config).await?;
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
