//! One conformance suite for every host of the signalling service.
//!
//! It speaks real HTTP and real WebSockets to a base URL (`http://` only)
//! and checks the contract of `docs/signaling.md`: rooms, the lobby, `/ice`,
//! `/health`, every limit and refusal. It runs against the embedded server
//! (`cargo test -p signaling-conformance` starts one in-process) and against
//! the Cloudflare Worker under `wrangler dev` (the `signaling-conformance`
//! binary, `--base-url http://127.0.0.1:8787`).
//!
//! The lobby is global, so the checks run one after another and each one
//! leaves the lobby as it found it (every socket it opened is closed, and a
//! watcher sees every player leave). Timers the host can shorten (room TTL,
//! hello timeout) are told to the suite through [`SuiteConfig`]; every wait
//! is for an event, with a generous deadline.
#![warn(missing_docs)]

pub mod client;
mod member_relay;
mod members;
mod relay;

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use client::{Frame, Target, Ws};
use signaling_protocol::heartbeat;

/// What the suite needs to know about the host under test.
#[derive(Clone, Debug)]
pub struct SuiteConfig {
    /// `http://host:port`.
    pub base_url: String,
    /// `Origin` to send on every request (one the host allows), or none.
    pub origin: Option<String>,
    /// An origin the host must refuse with 403; `None` skips that check
    /// (for hosts configured with `*`).
    pub forbidden_origin: Option<String>,
    /// The host's room TTL in seconds (checked in `POST /rooms`).
    pub room_ttl_seconds: u64,
    /// Wait for a room to expire only when its TTL is at most this long.
    pub max_ttl_wait: Duration,
    /// The host's lobby hello timeout; zero (a host with none) skips the
    /// check.
    pub hello_timeout: Duration,
    /// The host's per-IP limit per minute; 0 skips the 429 check (it runs
    /// last, because afterwards this client is limited for a while).
    pub rate_limit_per_minute: u32,
    /// The host's relay lifetime in seconds (its TTL check waits only when
    /// this is at most `max_ttl_wait`).
    pub relay_ttl_seconds: u64,
    /// The host's relay byte rate per socket per second; 0 skips the check.
    pub relay_bytes_per_second: u32,
    /// The host's lobby rate (messages per socket per minute); 0 skips the
    /// rate checks.
    pub lobby_messages_per_minute: u32,
    /// The host's room rate (messages per side or member per minute); 0
    /// skips the check.
    pub room_messages_per_minute: u32,
    /// Longest wait for any single answer.
    pub deadline: Duration,
    /// Run only the checks whose names contain one of these (all if empty).
    pub only: Vec<String>,
    /// The host's idle timeout for welcomed lobby sockets; `None` skips
    /// that check (for hosts with the expiry off, or a timeout too long to
    /// wait for). Must be longer than the hello timeout plus a second: the
    /// other checks hold welcomed sockets silent that long.
    pub lobby_idle_timeout: Option<Duration>,
    /// The host's cap on open lobby sockets per client address; 0 skips
    /// that check. It needs a host on a loopback address, where the suite
    /// can connect from other local addresses (`127.0.0.x`) to stand for
    /// other clients.
    pub lobby_sockets_per_ip: usize,
    /// The host's cap on live rooms created from one client address; 0
    /// skips that check (which, like the lobby's, needs a loopback host).
    pub rooms_per_ip: usize,
    /// The host's daily budget of WebSocket upgrades; 0 skips that check.
    /// Run it alone (`--only daily_budget`) against a host started for it:
    /// it spends the whole day's budget.
    pub daily_upgrades: u64,
    /// The host's daily budget of upgrades per client address; 0 skips
    /// that check. Run it alone (`--only address_upgrade_allowance`) against a
    /// host started for it (on a loopback address): it spends one
    /// address's budget.
    pub daily_upgrades_per_ip: u64,
    /// The host's cap on rooms alive at once; 0 skips that check. Run it
    /// alone (`--only rooms_alive_cap`) against a host started with a
    /// small cap: it fills it.
    pub max_rooms: usize,
    /// How many lobbies the host's directory holds; below 2 skips the
    /// directory check. Run it alone (`--only lobby_directory`) against an
    /// idle host: it fills a lobby.
    pub lobbies: usize,
    /// The host's players per lobby (the roster's size, 1 to 16): one more
    /// is told `full`.
    pub players_per_lobby: usize,
    /// The host's cap on open sockets per lobby, welcomed or not (one more
    /// upgrade gets 503); 0 (a host with no cap) skips that part of the
    /// check. Must be at least `players_per_lobby + 1`.
    pub lobby_max_sockets: usize,
}

impl SuiteConfig {
    /// Settings for a host with the default limits at `base_url`.
    #[must_use]
    pub fn new(base_url: &str) -> SuiteConfig {
        SuiteConfig {
            base_url: base_url.to_owned(),
            origin: None,
            forbidden_origin: None,
            room_ttl_seconds: 600,
            max_ttl_wait: Duration::from_secs(30),
            hello_timeout: Duration::from_secs(10),
            rate_limit_per_minute: 0,
            relay_ttl_seconds: signaling_core::defaults::RELAY_TTL_SECONDS,
            relay_bytes_per_second: signaling_core::defaults::RELAY_BYTES_PER_SECOND,
            room_messages_per_minute: signaling_core::defaults::ROOM_MESSAGES_PER_MINUTE,
            lobby_messages_per_minute: signaling_core::defaults::LOBBY_MESSAGES_PER_MINUTE,
            deadline: Duration::from_secs(10),
            only: Vec::new(),
            lobby_idle_timeout: None,
            lobby_sockets_per_ip: 0,
            rooms_per_ip: 0,
            daily_upgrades: 0,
            daily_upgrades_per_ip: 0,
            max_rooms: 0,
            lobbies: 0,
            players_per_lobby: signaling_core::protocol::limits::MAX_PLAYERS,
            lobby_max_sockets: signaling_core::defaults::LOBBY_MAX_SOCKETS,
        }
    }
}

/// The outcome of one check.
#[derive(Debug)]
pub struct CheckResult {
    /// The check's name.
    pub name: &'static str,
    /// `Ok(None)` passed, `Ok(Some(why))` skipped, `Err(what)` failed.
    pub outcome: Result<Option<String>, String>,
    /// How long it took.
    pub elapsed: Duration,
}

type CheckFuture<'a> = Pin<Box<dyn Future<Output = Result<Option<String>, String>> + 'a>>;
type CheckFn = for<'a> fn(&'a Ctx) -> CheckFuture<'a>;

/// Every check, in the order it runs.
pub const CHECKS: &[(&str, CheckFn)] = &[
    ("health", |c| Box::pin(health(c))),
    ("ice", |c| Box::pin(ice(c))),
    ("origin_refused", |c| Box::pin(origin_refused(c))),
    ("own_origin_allowed", |c| Box::pin(own_origin_allowed(c))),
    ("security_headers", |c| Box::pin(security_headers(c))),
    ("room_create", |c| Box::pin(room_create(c))),
    ("room_pairing_verbatim", |c| Box::pin(room_pairing(c))),
    ("room_refusals", |c| Box::pin(room_refusals(c))),
    ("room_size_cap", |c| Box::pin(room_size_cap(c))),
    ("room_count_cap", |c| Box::pin(room_count_cap(c))),
    ("room_count_survives_reconnect", |c| {
        Box::pin(room_count_survives_reconnect(c))
    }),
    ("room_ttl", |c| Box::pin(room_ttl(c))),
    ("member_room_mesh", |c| {
        Box::pin(members::member_room_mesh(c))
    }),
    ("member_room_leave_and_refusals", |c| {
        Box::pin(members::member_room_leave_and_refusals(c))
    }),
    ("room_rate_cap", |c| Box::pin(members::room_rate_cap(c))),
    ("relay_pairing_verbatim", |c| {
        Box::pin(relay::relay_pairing_verbatim(c))
    }),
    ("relay_refusals", |c| Box::pin(relay::relay_refusals(c))),
    ("relay_size_cap", |c| {
        Box::pin(relay::relay_size_cap(c, relay::Kind::TwoSeat))
    }),
    ("relay_rate_cap", |c| {
        Box::pin(relay::relay_rate_cap(c, relay::Kind::TwoSeat))
    }),
    ("relay_text_refused", |c| {
        Box::pin(relay::relay_text_refused(c))
    }),
    ("relay_ttl", |c| {
        Box::pin(relay::relay_ttl(c, relay::Kind::TwoSeat))
    }),
    ("member_relay_pairs", |c| {
        Box::pin(member_relay::member_relay_pairs(c))
    }),
    ("member_relay_refusals", |c| {
        Box::pin(member_relay::member_relay_refusals(c))
    }),
    ("member_relay_size_cap", |c| {
        Box::pin(relay::relay_size_cap(c, relay::Kind::Pair))
    }),
    ("member_relay_rate_cap", |c| {
        Box::pin(relay::relay_rate_cap(c, relay::Kind::Pair))
    }),
    ("member_relay_ttl", |c| {
        Box::pin(relay::relay_ttl(c, relay::Kind::Pair))
    }),
    ("lobby_presence", |c| Box::pin(lobby_presence(c))),
    ("lobby_refusals", |c| Box::pin(lobby_refusals(c))),
    ("lobby_names", |c| Box::pin(lobby_names(c))),
    ("lobby_tags", |c| Box::pin(lobby_tags(c))),
    ("lobby_size_cap", |c| Box::pin(lobby_size_cap(c))),
    ("lobby_rate_cap", |c| Box::pin(lobby_rate_cap(c))),
    ("lobby_replies_charged_to_sender", |c| {
        Box::pin(lobby_replies_charged_to_sender(c))
    }),
    ("lobby_full_and_busy", |c| Box::pin(lobby_full_and_busy(c))),
    ("lobby_hello_timeout", |c| Box::pin(lobby_hello_timeout(c))),
    ("heartbeat", |c| Box::pin(heartbeat(c))),
    ("lobby_idle_expiry", |c| Box::pin(lobby_idle_expiry(c))),
    ("lobby_sockets_per_ip", |c| {
        Box::pin(lobby_sockets_per_ip(c))
    }),
    ("rooms_per_ip", |c| Box::pin(rooms_per_ip(c))),
    ("daily_budget", |c| Box::pin(daily_budget(c))),
    ("address_upgrade_allowance", |c| {
        Box::pin(address_upgrade_allowance(c))
    }),
    ("lobby_directory", |c| Box::pin(lobby_directory(c))),
    ("rooms_alive_cap", |c| Box::pin(rooms_alive_cap(c))),
    ("rate_limit", |c| Box::pin(rate_limit(c))),
];

/// Runs the suite (the checks selected by `only`), one check at a time.
pub async fn run(config: &SuiteConfig) -> Result<Vec<CheckResult>, String> {
    let ctx = Ctx {
        target: Target::parse(&config.base_url, config.deadline)?,
        config: config.clone(),
        ids: AtomicU32::new(0),
        run_tag: run_tag(),
        next_source: AtomicU32::new(0),
    };
    let mut results = Vec::new();
    for (name, check) in CHECKS {
        if !config.only.is_empty() && !config.only.iter().any(|o| name.contains(o.as_str())) {
            continue;
        }
        let t = Instant::now();
        let outcome = check(&ctx).await;
        results.push(CheckResult {
            name,
            outcome,
            elapsed: t.elapsed(),
        });
    }
    Ok(results)
}

/// State shared by the checks.
pub struct Ctx {
    target: Target,
    config: SuiteConfig,
    ids: AtomicU32,
    run_tag: String,
    /// Rotates the local addresses lobby sockets come from (see
    /// [`Ctx::lobby_target`]).
    next_source: AtomicU32,
}

/// Five characters that differ between runs, so that ids from an earlier
/// run still closing cannot clash with ours.
fn run_tag() -> String {
    let n = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0)
        ^ u128::from(std::process::id());
    let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    (0..5)
        .map(|i| alphabet[((n >> (i * 6)) % 62) as usize] as char)
        .collect()
}

impl Ctx {
    fn origin(&self) -> Option<&str> {
        self.config.origin.as_deref()
    }

    /// A fresh valid player id (12 characters).
    fn id(&self) -> String {
        let n = self.ids.fetch_add(1, Ordering::Relaxed);
        format!("{}{:07}", self.run_tag, n)
    }

    async fn get(&self, path: &str) -> Result<client::HttpReply, String> {
        self.target.http("GET", path, self.origin()).await
    }

    async fn create_room(&self) -> Result<String, String> {
        let r = self.target.http("POST", "/rooms", self.origin()).await?;
        if r.status != 200 {
            return Err(format!(
                "POST /rooms: expected 200, got {} {}",
                r.status, r.body
            ));
        }
        let v = r.json()?;
        v.get("code")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| format!("POST /rooms: no code in {v}"))
    }

    async fn room_ws(&self, code: &str, role: &str) -> Result<Ws, String> {
        self.target
            .ws_ok(&format!("/rooms/{code}/ws?role={role}"), self.origin())
            .await
    }

    /// A host and a guest in a fresh room, with peer-joined consumed.
    async fn room_pair(&self) -> Result<(Ws, Ws), String> {
        let code = self.create_room().await?;
        let mut host = self.room_ws(&code, "host").await?;
        let guest = self.room_ws(&code, "guest").await?;
        host.expect_type("peer-joined").await?;
        Ok((host, guest))
    }

    /// Where a new lobby socket connects from. A host on loopback sees
    /// each one come from its own address in `127.0.0.2`–`127.0.0.250`
    /// (in turn), so that the checks which hold many sockets at once are
    /// not stopped by the host's cap on sockets per address; that cap has
    /// its own check, from addresses outside this range.
    fn lobby_target(&self) -> client::Target {
        if !self.target.is_loopback_v4() {
            return self.target.clone();
        }
        let n = self.next_source.fetch_add(1, Ordering::Relaxed) % 249;
        let last = u8::try_from(n + 2).unwrap_or(2);
        self.target
            .from_address(std::net::IpAddr::from([127, 0, 0, last]))
    }

    async fn lobby_ws(&self) -> Result<Ws, String> {
        self.lobby_target().ws_ok("/lobby/ws", self.origin()).await
    }

    /// A lobby socket that said hello; returns it with its welcome.
    async fn player(&self, id: &str, nick: &str) -> Result<(Ws, Value), String> {
        let mut ws = self.lobby_ws().await?;
        ws.send(&hello(id, nick)).await?;
        let welcome = ws.expect_type("welcome").await?;
        Ok((ws, welcome))
    }
}

fn hello(id: &str, nick: &str) -> String {
    json!({"type": "hello", "id": id, "nick": nick}).to_string()
}

fn ensure(cond: bool, what: impl FnOnce() -> String) -> Result<(), String> {
    if cond {
        Ok(())
    } else {
        Err(what())
    }
}

/// Reads frames until one of `kind` arrives; fails on a close or after 64
/// other frames. Used by watchers that may see other traffic first.
async fn wait_for(ws: &mut Ws, kind: &str, pred: impl Fn(&Value) -> bool) -> Result<Value, String> {
    for _ in 0..64 {
        let v = ws.json().await?;
        if v.get("type").and_then(Value::as_str) == Some(kind) && pred(&v) {
            return Ok(v);
        }
    }
    Err(format!("no {kind} message among the next 64"))
}

// ---------------------------------------------------------------- checks

async fn health(c: &Ctx) -> Result<Option<String>, String> {
    let r = c.get("/health").await?;
    ensure(r.status == 200, || {
        format!("GET /health: {} {}", r.status, r.body)
    })?;
    Ok(None)
}

async fn ice(c: &Ctx) -> Result<Option<String>, String> {
    let r = c.get("/ice").await?;
    ensure(r.status == 200, || {
        format!("GET /ice: {} {}", r.status, r.body)
    })?;
    let v = r.json()?;
    let servers = v
        .get("iceServers")
        .and_then(Value::as_array)
        .ok_or_else(|| format!("GET /ice: no iceServers array in {v}"))?;
    for s in servers {
        let urls = s
            .get("urls")
            .ok_or_else(|| format!("ice server without urls: {s}"))?;
        let ok = urls.is_string()
            || urls
                .as_array()
                .is_some_and(|a| a.iter().all(Value::is_string));
        ensure(ok, || format!("urls must be a string or strings: {s}"))?;
    }
    Ok(None)
}

async fn origin_refused(c: &Ctx) -> Result<Option<String>, String> {
    let Some(bad) = c.config.forbidden_origin.as_deref() else {
        return Ok(Some("no forbidden origin given".into()));
    };
    c.target
        .http("GET", "/health", Some(bad))
        .await?
        .expect_error(403, "GET /health from a forbidden origin")?;
    c.target
        .http("POST", "/rooms", Some(bad))
        .await?
        .expect_error(403, "POST /rooms from a forbidden origin")?;
    c.target
        .http("GET", "/ice", Some(bad))
        .await?
        .expect_error(403, "GET /ice from a forbidden origin")?;
    c.target.ws_refused("/lobby/ws", Some(bad), 403).await?;
    let code = c.create_room().await?;
    c.target
        .ws_refused(&format!("/rooms/{code}/ws?role=host"), Some(bad), 403)
        .await?;
    if let Some(good) = c.origin() {
        let r = c.get("/health").await?;
        ensure(r.allow_origin.as_deref() == Some(good), || {
            format!(
                "allowed origin not echoed in Access-Control-Allow-Origin: {:?}",
                r.allow_origin
            )
        })?;
    }
    Ok(None)
}

const ALPHABET: &str = "ABCDEFGHJKMNPQRSTUVWXYZ23456789";

async fn room_create(c: &Ctx) -> Result<Option<String>, String> {
    let mut seen = std::collections::BTreeSet::new();
    for _ in 0..5 {
        let r = c.target.http("POST", "/rooms", c.origin()).await?;
        ensure(r.status == 200, || {
            format!("POST /rooms: {} {}", r.status, r.body)
        })?;
        let v = r.json()?;
        let code = v.get("code").and_then(Value::as_str).unwrap_or("");
        ensure(
            code.len() == 6 && code.chars().all(|ch| ALPHABET.contains(ch)),
            || format!("bad room code {code:?}"),
        )?;
        ensure(
            v.get("ttl").and_then(Value::as_u64) == Some(c.config.room_ttl_seconds),
            || format!("ttl should be {}: {v}", c.config.room_ttl_seconds),
        )?;
        seen.insert(code.to_owned());
    }
    ensure(seen.len() == 5, || "five rooms got repeated codes".into())?;
    Ok(None)
}

async fn room_pairing(c: &Ctx) -> Result<Option<String>, String> {
    let code = c.create_room().await?;
    let mut host = c.room_ws(&code, "host").await?;
    let mut guest = c.room_ws(&code, "guest").await?;
    let pj = host.text().await?;
    ensure(
        serde_json::from_str::<Value>(&pj).ok() == Some(json!({"type": "peer-joined"})),
        || format!("host expected peer-joined, got {pj}"),
    )?;
    // Odd spacing, escapes, key order and extra fields must arrive unchanged.
    let offer = "{ \"sdp\" : \"v=0\\r\\no=- 46 2 IN IP4 127.0.0.1\\r\\n\" , \"type\":\"offer\",\"extra\":[1, 2.50, {\"k\" :null}] }";
    host.send(offer).await?;
    let got = guest.text().await?;
    ensure(got == offer, || {
        format!("offer changed in transit:\n sent {offer}\n got  {got}")
    })?;
    let answer = r#"{"type":"answer","sdp":"\u0041nswer \u2713 ✓"}"#;
    guest.send(answer).await?;
    let got = host.text().await?;
    ensure(got == answer, || {
        format!("answer changed in transit: {got}")
    })?;
    let ice_h = r#"{"type":"ice","candidate":{"candidate":"candidate:1 1 udp 2122260223 127.0.0.1 50000 typ host","sdpMid":"0","sdpMLineIndex":0}}"#;
    let ice_g = r#"{"type":"ice","candidate":null}"#;
    host.send(ice_h).await?;
    guest.send(ice_g).await?;
    ensure(guest.text().await? == ice_h, || {
        "host ice changed in transit".into()
    })?;
    ensure(host.text().await? == ice_g, || {
        "guest ice changed in transit".into()
    })?;
    // done from one side closes both normally.
    host.send(r#"{"type":"done"}"#).await?;
    host.expect_close(1000, "host after done").await?;
    guest.expect_close(1000, "guest after done").await?;
    // The room is gone.
    c.target
        .ws_refused(&format!("/rooms/{code}/ws?role=guest"), c.origin(), 404)
        .await?;
    Ok(None)
}

async fn room_refusals(c: &Ctx) -> Result<Option<String>, String> {
    let o = c.origin();
    // A well-formed code nobody created (one in 887 million chance of a clash).
    c.target
        .ws_refused("/rooms/ZZ22ZZ/ws?role=host", o, 404)
        .await?;
    c.target
        .ws_refused("/rooms/00000O/ws?role=host", o, 404)
        .await?;
    let code = c.create_room().await?;
    c.target
        .ws_refused(&format!("/rooms/{code}/ws?role=spectator"), o, 400)
        .await?;
    c.target
        .ws_refused(&format!("/rooms/{code}/ws"), o, 400)
        .await?;
    let mut host = c.room_ws(&code, "host").await?;
    c.target
        .ws_refused(&format!("/rooms/{code}/ws?role=host"), o, 409)
        .await?;
    // Alone in the room: nobody to relay to.
    host.send(r#"{"type":"offer","sdp":"x"}"#).await?;
    host.expect_error("offer with no guest").await?;
    let mut guest = c.room_ws(&code, "guest").await?;
    host.expect_type("peer-joined").await?;
    c.target
        .ws_refused(&format!("/rooms/{code}/ws?role=guest"), o, 409)
        .await?;
    for bad in [
        r#"{"type":"chat","text":"hi"}"#,
        r#"{"type":"peer-joined"}"#,
        r#"{"sdp":"no type"}"#,
        r#"{"type":5}"#,
        "not json",
        "[1,2,3]",
    ] {
        guest.send(bad).await?;
        guest.expect_error(&format!("room message {bad:?}")).await?;
    }
    guest.send_binary(vec![1, 2, 3]).await?;
    guest.expect_error("binary frame").await?;
    // None of that reached the host: its next message is the real one.
    guest.send(r#"{"type":"answer","sdp":"y"}"#).await?;
    host.expect_type("answer").await?;
    host.close().await;
    guest.close().await;
    Ok(None)
}

/// A JSON message of exactly `len` bytes: `{"type":"<kind>",<extra>"pad":"xxx…"}`.
fn padded(kind: &str, extra: &str, len: usize) -> String {
    let head = format!(r#"{{"type":"{kind}",{extra}"pad":""#);
    let fill = len.saturating_sub(head.len() + 2);
    format!("{head}{}\"}}", "x".repeat(fill))
}

async fn room_size_cap(c: &Ctx) -> Result<Option<String>, String> {
    let (mut host, mut guest) = c.room_pair().await?;
    let max = padded("ice", "", 8192);
    host.send(&max).await?;
    let got = guest.text().await?;
    ensure(got == max, || {
        "8192-byte message not relayed verbatim".into()
    })?;
    host.send(&padded("ice", "", 8193)).await?;
    host.expect_close(1009, "8193-byte room message").await?;
    // The guest is still there and was sent nothing.
    guest.send(r#"{"type":"bogus"}"#).await?;
    guest.expect_error("guest still served").await?;
    guest.close().await;
    // Far over the cap (a host reading at most 64 KiB must still say 1009).
    let (mut host, mut guest) = c.room_pair().await?;
    guest.send(&padded("answer", "", HUGE)).await?;
    guest.expect_close(1009, "100 KiB room message").await?;
    host.send(r#"{"type":"bogus"}"#).await?;
    host.expect_error("host still served").await?;
    host.close().await;
    Ok(None)
}

/// A message far over every cap: 100 KiB.
const HUGE: usize = 100 * 1024;

async fn room_count_cap(c: &Ctx) -> Result<Option<String>, String> {
    let (mut host, mut guest) = c.room_pair().await?;
    for i in 0..100 {
        guest.send(&format!(r#"{{"type":"ice","n":{i}}}"#)).await?;
    }
    for i in 0..100 {
        let v = host.json().await?;
        ensure(v.get("n").and_then(Value::as_u64) == Some(i), || {
            format!("relay {i} out of order: {v}")
        })?;
    }
    guest.send(r#"{"type":"ice","n":100}"#).await?;
    guest.expect_close(1008, "101st room message").await?;
    // The 101st was not relayed: the host's next frame is our probe's error.
    host.send(r#"{"type":"bogus"}"#).await?;
    host.expect_error("host still served").await?;
    host.close().await;
    Ok(None)
}

/// The 100-message cap counts a side's messages over the room's whole life:
/// reconnecting as the same role does not start a fresh allowance.
async fn room_count_survives_reconnect(c: &Ctx) -> Result<Option<String>, String> {
    let code = c.create_room().await?;
    let mut host = c.room_ws(&code, "host").await?;
    // With no guest, every relay is answered with an error; all count.
    for _ in 0..60 {
        host.send(r#"{"type":"ice"}"#).await?;
        host.expect_error("no guest yet").await?;
    }
    host.close().await;
    // The role frees once the room has seen the close: a 409 meanwhile is
    // retried until the deadline.
    let t = Instant::now();
    let mut host = loop {
        match c
            .target
            .ws(&format!("/rooms/{code}/ws?role=host"), c.origin())
            .await
        {
            Ok(ws) => break ws,
            Err(_) if t.elapsed() < c.config.deadline => {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            Err(e) => return Err(format!("host could not reconnect: {e:?}")),
        }
    };
    for _ in 0..40 {
        host.send(r#"{"type":"ice"}"#).await?;
        host.expect_error("no guest yet, after reconnecting")
            .await?;
    }
    host.send(r#"{"type":"ice"}"#).await?;
    host.expect_close(
        1008,
        "the 101st message of the host role, across two sockets",
    )
    .await?;
    Ok(None)
}

async fn room_ttl(c: &Ctx) -> Result<Option<String>, String> {
    let ttl = Duration::from_secs(c.config.room_ttl_seconds);
    if ttl > c.config.max_ttl_wait {
        return Ok(Some(format!("TTL {ttl:?} is longer than --max-ttl-wait")));
    }
    let code = c.create_room().await?;
    let t = Instant::now();
    let mut host = c.room_ws(&code, "host").await?;
    host.expect_close_within(1000, ttl + c.config.deadline, "room TTL")
        .await?;
    let waited = t.elapsed();
    ensure(waited + Duration::from_millis(500) >= ttl, || {
        format!("room closed after {waited:?}, before its TTL of {ttl:?}")
    })?;
    c.target
        .ws_refused(&format!("/rooms/{code}/ws?role=guest"), c.origin(), 404)
        .await?;
    Ok(None)
}

async fn lobby_presence(c: &Ctx) -> Result<Option<String>, String> {
    let ids: Vec<String> = (0..4).map(|_| c.id()).collect();
    let nicks = ["Ann", "בועז", "Chloé 🏀", "Dan"];
    let mut socks: Vec<Ws> = Vec::new();
    for (i, id) in ids.iter().enumerate() {
        let (ws, welcome) = c.player(id, nicks[i]).await?;
        ensure(
            welcome.get("you").and_then(Value::as_str) == Some(id),
            || format!("welcome.you: {welcome}"),
        )?;
        let roster = welcome
            .get("roster")
            .and_then(Value::as_array)
            .ok_or_else(|| format!("welcome without roster: {welcome}"))?;
        for earlier in &ids[..=i] {
            ensure(
                roster
                    .iter()
                    .any(|p| p.get("id").and_then(Value::as_str) == Some(earlier)),
                || format!("roster lacks {earlier}: {welcome}"),
            )?;
        }
        let me = roster
            .iter()
            .find(|p| p["id"] == id.as_str())
            .cloned()
            .unwrap_or(Value::Null);
        let tag = me["tag"].as_str().unwrap_or_default().to_owned();
        ensure(
            me == json!({"id": id, "nick": nicks[i], "tag": tag, "status": "lobby"}),
            || format!("own roster entry: {me}"),
        )?;
        for (j, s) in socks.iter_mut().enumerate() {
            let v = s
                .expect_type("joined")
                .await
                .map_err(|e| format!("player {j} on join {i}: {e}"))?;
            ensure(
                v["player"] == json!({"id": id, "nick": nicks[i], "tag": tag, "status": "lobby"}),
                || format!("joined: {v}"),
            )?;
        }
        socks.push(ws);
    }
    // Status change reaches the three others.
    socks[2]
        .send(r#"{"type":"status","status":"in-match"}"#)
        .await?;
    for j in [0, 1, 3] {
        let v = socks[j].expect_type("status").await?;
        ensure(
            v == json!({"type":"status","id":ids[2],"status":"in-match"}),
            || format!("status: {v}"),
        )?;
    }
    // Signals arrive with the sender's id and the data untouched.
    let data = r#"{ "sdp" : "v=0\r\n", "n": [1, 2.50, null], "u": "\u00e9" }"#;
    socks[0]
        .send(&format!(
            r#"{{"type":"signal","to":"{}","data":{data}}}"#,
            ids[3]
        ))
        .await?;
    let got = socks[3].text().await?;
    let want = format!(r#"{{"type":"signal","from":"{}","data":{data}}}"#, ids[0]);
    let same_json =
        serde_json::from_str::<Value>(&got).ok() == serde_json::from_str::<Value>(&want).ok();
    ensure(same_json, || format!("signal: got {got}, want {want}"))?;
    ensure(got.contains(data), || {
        format!("signal data not byte-for-byte: {got}")
    })?;
    socks[3]
        .send(&format!(
            r#"{{"type":"signal","to":"{}","data":"back"}}"#,
            ids[0]
        ))
        .await?;
    let v = socks[0].expect_type("signal").await?;
    ensure(
        v == json!({"type":"signal","from":ids[3],"data":"back"}),
        || format!("signal back: {v}"),
    )?;
    // The status was not echoed to its sender: its next frame is the signal
    // we now send it.
    socks[1]
        .send(&format!(
            r#"{{"type":"signal","to":"{}","data":1}}"#,
            ids[2]
        ))
        .await?;
    socks[2].expect_type("signal").await?;
    // Leaving: the others see left, one by one.
    let mut socks: Vec<Option<Ws>> = socks.into_iter().map(Some).collect();
    for i in 0..4 {
        if let Some(mut ws) = socks[i].take() {
            ws.close().await;
        }
        for (j, s) in socks.iter_mut().enumerate() {
            if let Some(s) = s {
                let v = s
                    .expect_type("left")
                    .await
                    .map_err(|e| format!("player {j} on {i} leaving: {e}"))?;
                ensure(v == json!({"type":"left","id":ids[i]}), || {
                    format!("left: {v}")
                })?;
            }
        }
    }
    Ok(None)
}

async fn lobby_refusals(c: &Ctx) -> Result<Option<String>, String> {
    let watcher_id = c.id();
    let (mut watcher, _) = c.player(&watcher_id, "watcher").await?;
    let mut s = c.lobby_ws().await?;
    // Before hello.
    s.send(r#"{"type":"status","status":"lobby"}"#).await?;
    s.expect_error("status before hello").await?;
    s.send(&json!({"type":"signal","to":watcher_id,"data":1}).to_string())
        .await?;
    s.expect_error("signal before hello").await?;
    // Bad ids.
    for id in [
        json!("ABCDEFGHIJK"),
        json!("ABCDEFGHIJKLM"),
        json!("ABCDEFGHIJ-L"),
        json!("ABCDEFGHIJKé"),
        json!(42),
    ] {
        s.send(&json!({"type":"hello","id":id,"nick":"ok"}).to_string())
            .await?;
        s.expect_error(&format!("hello with id {id}")).await?;
    }
    // Bad nicks.
    for nick in [
        json!(""),
        json!("   "),
        json!("a".repeat(21)),
        json!("bell\u{7}"),
        json!("evil\u{202E}txt"),
        json!("iso\u{2066}late"),
        json!(7),
    ] {
        s.send(&json!({"type":"hello","id":c.id(),"nick":nick}).to_string())
            .await?;
        s.expect_error(&format!("hello with nick {nick}")).await?;
    }
    // Duplicate id.
    s.send(&hello(&watcher_id, "copycat")).await?;
    s.expect_error("hello with a duplicate id").await?;
    // Junk.
    for junk in [
        "not json",
        "[]",
        r#"{"type":"welcome"}"#,
        r#"{"no":"type"}"#,
    ] {
        s.send(junk).await?;
        s.expect_error(&format!("junk {junk:?}")).await?;
    }
    // Now a good hello: the watcher hears only this join (none of the above).
    let id = c.id();
    s.send(&hello(&id, "twenty chars long!!!")).await?;
    s.expect_type("welcome").await?;
    let v = watcher.expect_type("joined").await?;
    ensure(v["player"]["id"] == id.as_str(), || {
        format!("watcher saw {v}")
    })?;
    // Refusals after hello.
    s.send(&hello(&c.id(), "again")).await?;
    s.expect_error("second hello").await?;
    for status in [json!("away"), json!("LOBBY"), json!(null)] {
        s.send(&json!({"type":"status","status":status}).to_string())
            .await?;
        s.expect_error(&format!("status {status}")).await?;
    }
    s.send(&json!({"type":"signal","to":c.id(),"data":{}}).to_string())
        .await?;
    s.expect_error("signal to an unknown id").await?;
    s.send(&json!({"type":"signal","to":watcher_id}).to_string())
        .await?;
    s.expect_error("signal without data").await?;
    // The watcher got nothing from all that: its next frame is left.
    s.close().await;
    let v = watcher.expect_type("left").await?;
    ensure(v["id"] == id.as_str(), || format!("left: {v}"))?;
    watcher.close().await;
    Ok(None)
}

async fn lobby_size_cap(c: &Ctx) -> Result<Option<String>, String> {
    let (a_id, b_id) = (c.id(), c.id());
    let (mut a, _) = c.player(&a_id, "a").await?;
    let (mut b, _) = c.player(&b_id, "b").await?;
    a.expect_type("joined").await?;
    let extra = format!(r#""to":"{a_id}","data":"#);
    // {"type":"signal","to":"…","data":"pad":…} is not valid; build it by hand.
    let head = format!(r#"{{"type":"signal",{extra}""#);
    let fits = format!("{head}{}\"}}", "x".repeat(8192 - head.len() - 2));
    b.send(&fits).await?;
    let v = a.expect_type("signal").await?;
    ensure(
        v["data"].as_str().map(str::len) == Some(8192 - head.len() - 2),
        || "8 KiB signal cut".into(),
    )?;
    let over = format!("{head}{}\"}}", "x".repeat(8193 - head.len() - 2));
    b.send(&over).await?;
    b.expect_close(1009, "8193-byte lobby message").await?;
    let v = a.expect_type("left").await?;
    ensure(v["id"] == b_id.as_str(), || format!("left: {v}"))?;
    // Far over the cap, from a player and from a socket yet to say hello.
    let huge = format!("{head}{}\"}}", "x".repeat(HUGE - head.len() - 2));
    let c_id = c.id();
    let (mut d, _) = c.player(&c_id, "c").await?;
    a.expect_type("joined").await?;
    d.send(&huge).await?;
    d.expect_close(1009, "100 KiB lobby message").await?;
    let v = a.expect_type("left").await?;
    ensure(v["id"] == c_id.as_str(), || format!("left: {v}"))?;
    let mut fresh = c.lobby_ws().await?;
    fresh.send(&padded("hello", "", HUGE)).await?;
    fresh.expect_close(1009, "100 KiB hello").await?;
    a.close().await;
    Ok(None)
}

async fn lobby_rate_cap(c: &Ctx) -> Result<Option<String>, String> {
    let rate = c.config.lobby_messages_per_minute;
    if rate == 0 {
        return Ok(Some("no lobby rate given".into()));
    }
    let watcher_id = c.id();
    let (mut watcher, _) = c.player(&watcher_id, "watcher").await?;
    let id = c.id();
    let (mut s, _) = c.player(&id, "chatty").await?;
    watcher.expect_type("joined").await?;
    // Every junk frame earns one error reply until the minute's allowance
    // runs out; the hello used one of it.
    let mut replies = 0u32;
    let mut closed = None;
    for _ in 0..rate + 100 {
        if s.send("{}").await.is_err() {
            break;
        }
    }
    for _ in 0..rate + 100 {
        match s.next().await? {
            Frame::Text(_) => replies += 1,
            Frame::Closed(code) => {
                closed = Some(code);
                break;
            }
        }
    }
    ensure(closed == Some(Some(1008)), || {
        format!("expected close 1008, got {closed:?} after {replies} replies")
    })?;
    // So many a minute, not a bucket refilling as it goes: exactly the
    // rate less the hello, however long the host takes to answer them.
    ensure(replies == rate - 1, || {
        format!("closed after {replies} replies, expected {}", rate - 1)
    })?;
    let v = wait_for(&mut watcher, "left", |v| v["id"] == id.as_str()).await?;
    ensure(v["id"] == id.as_str(), || "left".into())?;
    watcher.close().await;
    Ok(None)
}

/// A player who answers another's handshake messages is not charged for the
/// answers: the one who started the exchange pays. Here a pushy player sends
/// 301 signals, and the victim answers each with two (602 frames, over the
/// lobby's 600 a minute); the victim must stay, and the pusher, who paid for
/// 301 frames, too.
async fn lobby_replies_charged_to_sender(c: &Ctx) -> Result<Option<String>, String> {
    let rate = c.config.lobby_messages_per_minute;
    if rate == 0 {
        return Ok(Some("no lobby rate given".into()));
    }
    let (pusher_id, victim_id) = (c.id(), c.id());
    let (mut pusher, _) = c.player(&pusher_id, "pusher").await?;
    let (mut victim, _) = c.player(&victim_id, "victim").await?;
    pusher.expect_type("joined").await?;
    let to = |id: &str, n: u32| json!({"type":"signal","to":id,"data":{"n":n}}).to_string();
    // Past half the rate, two answers each make more than the victim's
    // own allowance.
    for n in 0..rate / 2 + 1 {
        pusher.send(&to(&victim_id, n)).await?;
        let got = victim.expect_type("signal").await?;
        ensure(got["data"]["n"] == n, || format!("relay {n}: {got}"))?;
        for _ in 0..2 {
            victim.send(&to(&pusher_id, n)).await?;
            let back = pusher.expect_type("signal").await.map_err(|e| {
                format!("answer to signal {n} did not arrive (victim kicked?): {e}")
            })?;
            ensure(back["from"] == victim_id.as_str(), || format!("{back}"))?;
        }
    }
    // Both are still served.
    victim.send(r#"{"type":"status","status":"lobby"}"#).await?;
    pusher
        .expect_type("status")
        .await
        .map_err(|e| format!("the victim was closed for answering: {e}"))?;
    victim.close().await;
    wait_for(&mut pusher, "left", |v| v["id"] == victim_id.as_str()).await?;
    pusher.close().await;
    Ok(None)
}

async fn lobby_full_and_busy(c: &Ctx) -> Result<Option<String>, String> {
    let size = c.config.players_per_lobby;
    let max_sockets = c.config.lobby_max_sockets;
    if size == 0 || (max_sockets != 0 && max_sockets <= size) {
        return Err(format!(
            "players per lobby {size} and sockets per lobby {max_sockets}: \
             the sockets must exceed the players"
        ));
    }
    let mut players = Vec::new();
    let mut ids = Vec::new();
    for i in 0..size {
        let id = c.id();
        let (mut ws, welcome) = c
            .player(&id, &format!("p{i}"))
            .await
            .map_err(|e| format!("player {i}: {e}"))?;
        if i == 0 {
            // Players of earlier checks whose close the host may still be
            // processing: wait until it has told us they left.
            let roster = welcome["roster"].as_array().cloned().unwrap_or_default();
            for p in roster {
                let other = p["id"].as_str().unwrap_or("").to_owned();
                if other == id {
                    continue;
                }
                ensure(other.starts_with(&c.run_tag), || {
                    format!("the lobby holds a player not from this suite ({other}); run the suite on an idle host")
                })?;
                wait_for(&mut ws, "left", |v| v["id"] == other.as_str()).await?;
            }
        }
        if i + 1 == size {
            let n = welcome["roster"].as_array().map(Vec::len).unwrap_or(0);
            ensure(n == size, || {
                format!("player {size} of {size} sees {n} players; is something else in the lobby?")
            })?;
        }
        ids.push(id);
        players.push(ws);
    }
    let mut extra = c.lobby_ws().await?;
    extra.send(&hello(&c.id(), "one-too-many")).await?;
    let v = extra.json().await?;
    ensure(v == json!({"type":"full"}), || {
        format!(
            "hello {} in a lobby of {size}: expected full, got {v}",
            size + 1
        )
    })?;
    let mut idle = vec![extra];
    if max_sockets != 0 {
        // `size + 1` sockets are open; the rest up to the cap fit, and one
        // more is refused with 503.
        for i in size + 2..=max_sockets {
            idle.push(
                c.lobby_ws()
                    .await
                    .map_err(|e| format!("socket {i} of {max_sockets}: {e}"))?,
            );
        }
        c.target.ws_refused("/lobby/ws", c.origin(), 503).await?;
    }
    for mut ws in idle {
        ws.close().await;
    }
    // The first player watches everyone else leave.
    let mut first = players.remove(0);
    for (mut ws, id) in players.into_iter().zip(ids.iter().skip(1)) {
        ws.close().await;
        let v = wait_for(&mut first, "left", |v| v["id"] == id.as_str()).await?;
        ensure(v["id"] == id.as_str(), || "left".into())?;
    }
    first.close().await;
    Ok(None)
}

async fn lobby_hello_timeout(c: &Ctx) -> Result<Option<String>, String> {
    let timeout = c.config.hello_timeout;
    if timeout.is_zero() {
        return Ok(Some("no hello timeout configured".into()));
    }
    let t = Instant::now();
    let mut ws = c.lobby_ws().await?;
    ws.expect_close_within(1008, timeout + c.config.deadline, "silent lobby socket")
        .await?;
    let waited = t.elapsed();
    ensure(waited + Duration::from_millis(500) >= timeout, || {
        format!("closed after {waited:?}, before the hello timeout of {timeout:?}")
    })?;
    // A socket that says hello in time stays past the timeout: after it, a
    // signal to nobody still gets its error reply.
    let (mut ok, _) = c.player(&c.id(), "prompt").await?;
    // Nothing may arrive meanwhile (a close in particular).
    if let Ok(frame) = ok.next_within(timeout + Duration::from_millis(500)).await {
        return Err(format!(
            "a welcomed socket got {frame:?} while waiting out the hello timeout"
        ));
    }
    ok.send(&json!({"type":"signal","to":c.id(),"data":1}).to_string())
        .await?;
    ok.expect_error("signal after the hello timeout").await?;
    ok.close().await;
    Ok(None)
}

async fn rate_limit(c: &Ctx) -> Result<Option<String>, String> {
    let limit = c.config.rate_limit_per_minute;
    if limit == 0 {
        return Ok(Some("no rate limit given".into()));
    }
    for i in 0..=limit {
        let r = c.get("/health").await?;
        match r.status {
            200 => continue,
            429 => {
                r.expect_error(429, "rate-limited request")?;
                // The budget covers every route: /ice (which may mint TURN
                // credentials) is refused too.
                c.get("/ice")
                    .await?
                    .expect_error(429, "GET /ice once the budget is spent")?;
                return Ok(None);
            }
            s => return Err(format!("request {i}: unexpected {s} {}", r.body)),
        }
    }
    Err(format!(
        "{} requests in a row were all allowed (limit {limit}/min)",
        limit + 1
    ))
}

/// A frame that must be exactly the heartbeat's answer.
async fn expect_pong(ws: &mut Ws, what: &str) -> Result<(), String> {
    let t = ws.text().await.map_err(|e| format!("{what}: {e}"))?;
    ensure(t == heartbeat::PONG, || {
        format!("{what}: expected {} exactly, got {t}", heartbeat::PONG)
    })
}

async fn heartbeat(c: &Ctx) -> Result<Option<String>, String> {
    // On the lobby, before and after hello.
    let mut ws = c.lobby_ws().await?;
    ws.send(heartbeat::PING).await?;
    expect_pong(&mut ws, "lobby ping before hello").await?;
    ws.send(&hello(&c.id(), "beat")).await?;
    ws.expect_type("welcome").await?;
    for i in 0..3 {
        ws.send(heartbeat::PING).await?;
        expect_pong(&mut ws, &format!("lobby ping {i} after hello")).await?;
    }
    ws.close().await;
    // On a room: answered, not relayed to the other side.
    let (mut host, mut guest) = c.room_pair().await?;
    host.send(heartbeat::PING).await?;
    expect_pong(&mut host, "room ping").await?;
    host.send(r#"{"type":"ice","candidate":null}"#).await?;
    let t = guest.text().await?;
    ensure(t.contains("\"ice\""), || {
        format!("the guest should see the host's ice, not its ping; got {t}")
    })?;
    host.close().await;
    guest.close().await;
    Ok(None)
}

async fn lobby_idle_expiry(c: &Ctx) -> Result<Option<String>, String> {
    let Some(idle) = c.config.lobby_idle_timeout else {
        return Ok(Some("no idle timeout given".into()));
    };
    let ghost_id = c.id();
    let (mut watcher, _) = c.player(&c.id(), "watcher").await?;
    let (mut ghost, _) = c.player(&ghost_id, "ghost").await?;
    wait_for(&mut watcher, "joined", |v| {
        v["player"]["id"] == ghost_id.as_str()
    })
    .await?;
    let t = Instant::now();
    // The watcher sends nothing but heartbeats, a third of the timeout
    // apart, until the silent ghost is closed.
    let beat = idle / 3;
    let until = idle + c.config.deadline;
    let mut saw_left = false;
    let closed = loop {
        ensure(t.elapsed() < until, || {
            format!(
                "a silent welcomed socket was still open after {:?}",
                t.elapsed()
            )
        })?;
        watcher.send(heartbeat::PING).await?;
        // The ghost's `left` may come before the pong, if the ghost was
        // closed just after we last looked.
        loop {
            let t = watcher.text().await?;
            if t == heartbeat::PONG {
                break;
            }
            let v: Value = serde_json::from_str(&t).unwrap_or_default();
            ensure(
                v == json!({"type":"left","id":ghost_id}) && !saw_left,
                || format!("watcher heartbeat: expected {}, got {t}", heartbeat::PONG),
            )?;
            saw_left = true;
        }
        match ghost.next_within(beat).await {
            Err(_) => continue,
            Ok(frame) => break frame,
        }
    };
    let waited = t.elapsed();
    ensure(closed == client::Frame::Closed(Some(1008)), || {
        format!("the silent socket: expected close 1008, got {closed:?}")
    })?;
    ensure(waited + Duration::from_millis(500) >= idle, || {
        format!("closed after {waited:?}, before the idle timeout of {idle:?}")
    })?;
    // Everyone else is told it left; the heartbeating watcher is still in.
    if !saw_left {
        wait_for(&mut watcher, "left", |v| v["id"] == ghost_id.as_str()).await?;
    }
    watcher
        .send(&json!({"type":"signal","to":c.id(),"data":1}).to_string())
        .await?;
    watcher
        .expect_error("signal from the heartbeating watcher")
        .await?;
    watcher.close().await;
    Ok(None)
}

async fn lobby_sockets_per_ip(c: &Ctx) -> Result<Option<String>, String> {
    let cap = c.config.lobby_sockets_per_ip;
    if cap == 0 {
        return Ok(Some("no per-address cap given".into()));
    }
    if !c.target.is_loopback_v4() {
        return Ok(Some("needs a host on a loopback address".into()));
    }
    // Two addresses outside the range the other checks rotate through.
    let one = c
        .target
        .from_address(std::net::IpAddr::from([127, 0, 1, 1]));
    let two = c
        .target
        .from_address(std::net::IpAddr::from([127, 0, 1, 2]));
    let mut held = Vec::new();
    for i in 0..cap {
        held.push(
            one.ws_ok("/lobby/ws", c.origin())
                .await
                .map_err(|e| format!("socket {} of {cap} from one address: {e}", i + 1))?,
        );
    }
    one.ws_refused("/lobby/ws", c.origin(), 429).await?;
    // Welcomed or not, they count: a hello changes nothing.
    held[0].send(&hello(&c.id(), "capped")).await?;
    held[0].expect_type("welcome").await?;
    one.ws_refused("/lobby/ws", c.origin(), 429).await?;
    // Another address is not affected.
    let mut other = two.ws_ok("/lobby/ws", c.origin()).await?;
    other.close().await;
    // A socket that closes frees its place (the host may take a moment to
    // see the close: ask again until the deadline).
    let mut first = held.remove(0);
    first.close().await;
    let t = Instant::now();
    let again = loop {
        match one.ws("/lobby/ws", c.origin()).await {
            Ok(ws) => break ws,
            Err(client::WsOpenError::Refused(r)) if r.status == 429 => {
                ensure(t.elapsed() < c.config.deadline, || {
                    "a closed socket's place was not freed".into()
                })?;
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(client::WsOpenError::Refused(r)) => {
                return Err(format!("reopening: {} {}", r.status, r.body))
            }
            Err(client::WsOpenError::Other(e)) => return Err(e),
        }
    };
    held.push(again);
    for mut ws in held {
        ws.close().await;
    }
    Ok(None)
}

/// A page the service serves itself comes from the service's own origin,
/// which every host allows whatever its list says.
async fn own_origin_allowed(c: &Ctx) -> Result<Option<String>, String> {
    let own = format!("http://{}", c.target.authority);
    let r = c.target.http("GET", "/health", Some(&own)).await?;
    ensure(r.status == 200, || {
        format!(
            "GET /health from the service's own origin: {} {}",
            r.status, r.body
        )
    })?;
    let mut ws = c.lobby_target().ws_ok("/lobby/ws", Some(&own)).await?;
    ws.send(heartbeat::PING).await?;
    expect_pong(&mut ws, "lobby socket from the own origin").await?;
    ws.close().await;
    Ok(None)
}

async fn rooms_per_ip(c: &Ctx) -> Result<Option<String>, String> {
    let cap = c.config.rooms_per_ip;
    if cap == 0 {
        return Ok(Some("no per-address room cap given".into()));
    }
    if !c.target.is_loopback_v4() {
        return Ok(Some("needs a host on a loopback address".into()));
    }
    let one = c
        .target
        .from_address(std::net::IpAddr::from([127, 0, 1, 3]));
    let two = c
        .target
        .from_address(std::net::IpAddr::from([127, 0, 1, 4]));
    let create = |t: &client::Target| {
        let t = t.clone();
        async move { t.http("POST", "/rooms", c.origin()).await }
    };
    // The cap counts live rooms, and a room lives at most its TTL (a few
    // seconds in some test configurations): all `cap` rooms must be
    // created, and the one too many asked for, well within it. One after
    // another, on a loaded machine, the last ones came after the first had
    // already expired (and freed their places); asked for all at once, the
    // host's own pace is what it takes.
    let started = Instant::now();
    let replies = futures_util::future::join_all((0..cap).map(|_| create(&one))).await;
    let mut codes = Vec::new();
    for (i, r) in replies.into_iter().enumerate() {
        let r = r?;
        ensure(r.status == 200, || {
            format!(
                "room {} of {cap} from one address: {} {}",
                i + 1,
                r.status,
                r.body
            )
        })?;
        codes.push(r.json()?["code"].as_str().unwrap_or("").to_owned());
    }
    let over = create(&one).await?;
    let ttl = Duration::from_secs(c.config.room_ttl_seconds);
    ensure(started.elapsed() < ttl, || {
        format!(
            "creating {cap} rooms took {:.1?}, longer than a room lives ({ttl:?}): \
             the cap cannot be seen; give the host a longer room TTL",
            started.elapsed()
        )
    })?;
    over.expect_error(429, "one room more than the cap from one address")?;
    let r = create(&two).await?;
    ensure(r.status == 200, || {
        format!("a room from another address: {} {}", r.status, r.body)
    })?;
    // A room that ends gives its place back (the host may take a moment:
    // ask again until the deadline).
    let mut host = c.room_ws(&codes[0], "host").await?;
    let guest = c.room_ws(&codes[0], "guest").await?;
    host.expect_type("peer-joined").await?;
    host.send(r#"{"type":"done"}"#).await?;
    host.expect_close(1000, "done").await?;
    drop(guest);
    let t = Instant::now();
    loop {
        let r = create(&one).await?;
        match r.status {
            200 => break,
            429 if t.elapsed() < c.config.deadline => {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            _ => {
                return Err(format!(
                    "after one of its rooms ended, the address got {} {}",
                    r.status, r.body
                ))
            }
        }
    }
    Ok(None)
}

/// Every answer says what it is and may not be framed, sniffed or used to
/// leak its address: the service's security headers on a success, an
/// error and a preflight.
async fn security_headers(c: &Ctx) -> Result<Option<String>, String> {
    let preflight = c.target.http("OPTIONS", "/ice", c.origin()).await?;
    for (what, r) in [
        ("GET /health", c.get("/health").await?),
        ("GET /nowhere", c.get("/nowhere/at/all").await?),
        ("OPTIONS /ice", preflight),
    ] {
        let csp = r.header("content-security-policy").unwrap_or("");
        ensure(csp.contains("frame-ancestors 'none'"), || {
            format!("{what}: Content-Security-Policy without frame-ancestors 'none': {csp:?}")
        })?;
        ensure(
            r.header("x-content-type-options") == Some("nosniff"),
            || {
                format!(
                    "{what}: X-Content-Type-Options is {:?}",
                    r.header("x-content-type-options")
                )
            },
        )?;
        ensure(
            r.header("referrer-policy").is_some_and(|v| !v.is_empty()),
            || format!("{what}: no Referrer-Policy"),
        )?;
    }
    Ok(None)
}

/// The name rule the page uses too: no `#` (it would fake the id tag shown
/// after a name) and nothing that shows as blank; a mark on a letter is
/// fine.
async fn lobby_names(c: &Ctx) -> Result<Option<String>, String> {
    let mut ws = c.lobby_ws().await?;
    for bad in [
        "Alice#Xy7",
        "\u{2800}",
        "\u{0301}\u{0308}",
        " \u{2800} \u{200D} ",
    ] {
        ws.send(&hello(&c.id(), bad)).await?;
        ws.expect_error(&format!("hello with the name {bad:?}"))
            .await?;
    }
    ws.send(&hello(&c.id(), "Zoe\u{0301}")).await?;
    let welcome = ws.expect_type("welcome").await?;
    let me = welcome["you"].as_str().unwrap_or("").to_owned();
    let shown = welcome["roster"]
        .as_array()
        .and_then(|r| r.iter().find(|p| p["id"] == me.as_str()))
        .map(|p| p["nick"].clone());
    ensure(shown == Some(json!("Zoe\u{0301}")), || {
        format!("the accepted name came back as {shown:?}")
    })?;
    ws.close().await;
    Ok(None)
}

/// The tag of player `id` in a welcome's roster, if it has a well-formed
/// one: three characters of the room-code alphabet.
fn roster_tag(welcome: &Value, id: &str) -> Option<String> {
    let tag = welcome["roster"]
        .as_array()?
        .iter()
        .find(|p| p["id"] == id)?["tag"]
        .as_str()?;
    signaling_protocol::PlayerTag::parse(tag).map(|t| t.as_str().to_owned())
}

/// The `#ABC` tag after a name is the service's: players with the same
/// name (in any case) get different tags, everyone hears the same one,
/// and a tag the client asks for in its hello is not given to it.
async fn lobby_tags(c: &Ctx) -> Result<Option<String>, String> {
    let first = c.id();
    let (mut alice, welcome) = c.player(&first, "Alice").await?;
    let tag = roster_tag(&welcome, &first)
        .ok_or_else(|| format!("no tag of three code characters in {welcome}"))?;
    let mut tags = vec![tag.clone()];
    let mut held = Vec::new();
    for nick in ["alice", "ALICE", "Alice"] {
        let id = c.id();
        let mut ws = c.lobby_ws().await?;
        // Each newcomer asks for the first Alice's tag.
        ws.send(&json!({"type":"hello","id":id,"nick":nick,"tag":tag}).to_string())
            .await?;
        let welcome = ws.expect_type("welcome").await?;
        let mine = roster_tag(&welcome, &id)
            .ok_or_else(|| format!("no tag of three code characters in {welcome}"))?;
        ensure(!tags.contains(&mine), || {
            format!("{nick} was shown with the tag {mine}, already taken: {tags:?}")
        })?;
        let joined = wait_for(&mut alice, "joined", |v| v["player"]["id"] == id.as_str()).await?;
        ensure(joined["player"]["tag"] == mine.as_str(), || {
            format!("joined carries another tag than the welcome ({mine}): {joined}")
        })?;
        tags.push(mine);
        held.push(ws);
    }
    for mut ws in held {
        ws.close().await;
    }
    alice.close().await;
    Ok(None)
}

/// The daily budget of upgrades: once it is spent, lobby, room and relay
/// upgrades get 503 with a reason that says so, while plain routes still
/// answer. On a host started for this check, exactly the budget's
/// upgrades go through first; upgrades refused for reasons of their own
/// (no such lobby or room, a place already taken, a bad relay ticket) are
/// not charged, however many come.
async fn daily_budget(c: &Ctx) -> Result<Option<String>, String> {
    let budget = c.config.daily_upgrades;
    if budget == 0 {
        return Ok(Some("no daily upgrade budget given".into()));
    }
    // A room's two sides and the host's relay socket are charged: three.
    let charged = 3;
    ensure(budget > charged, || {
        format!("the daily_budget check needs a budget above {charged}, not {budget}")
    })?;
    let spent = |r: &client::HttpReply, what: &str| -> Result<(), String> {
        r.expect_error(503, what)?;
        ensure(r.body.contains("allowance"), || {
            format!(
                "{what}: the 503 does not say the allowance is spent: {}",
                r.body
            )
        })
    };
    let t = relay::tickets(c).await?;
    let (mut room_host, mut room_guest) = t.rooms;
    let mut relay_host = c
        .target
        .ws_ok(&relay::path(&t.code, &t.host), c.origin())
        .await?;
    // Refusals cost nothing, on every kind of upgrade: they come now, and
    // the rest of the budget must still be there afterwards.
    let refused: [(String, u16); 6] = [
        ("/lobby/ws?lobby=999".to_owned(), 404),
        ("/rooms/ZZZZZZ/ws?role=host".to_owned(), 404),
        (format!("/rooms/{}/ws?role=host", t.code), 409),
        (format!("/rooms/{}/ws?role=guest", t.code), 409),
        (relay::path(&t.code, "host.1.00"), 403),
        (relay::path(&t.code, &t.host), 409),
    ];
    for _ in 0..2 {
        for (path, status) in &refused {
            c.lobby_target()
                .ws_refused(path, c.origin(), *status)
                .await
                .map_err(|e| format!("refused before the budget was spent: {e}"))?;
        }
    }
    let mut opened = charged;
    loop {
        match c.lobby_target().ws("/lobby/ws", c.origin()).await {
            Ok(mut ws) => {
                ws.close().await;
                opened += 1;
                ensure(opened <= budget, || {
                    format!("{opened} upgrades went through on a budget of {budget}")
                })?;
            }
            Err(client::WsOpenError::Refused(r)) => {
                spent(&r, "the lobby upgrade past the budget")?;
                ensure(opened == budget, || {
                    format!(
                        "only {opened} upgrades of a budget of {budget} went through: \
                         refused upgrades were charged"
                    )
                })?;
                break;
            }
            Err(client::WsOpenError::Other(e)) => return Err(e),
        }
    }
    // Upgrades the rooms and relays would take are refused the same way
    // (a fresh room's host, the free guest side of the relay); plain
    // routes answer.
    let code = c.create_room().await?;
    for path in [
        format!("/rooms/{code}/ws?role=host"),
        relay::path(&t.code, &t.guest),
    ] {
        match c.target.ws(&path, c.origin()).await {
            Ok(mut ws) => {
                ws.close().await;
                return Err(format!("{path}: upgraded after the budget was spent"));
            }
            Err(client::WsOpenError::Refused(r)) => spent(&r, &path)?,
            Err(client::WsOpenError::Other(e)) => return Err(e),
        }
    }
    let health = c.get("/health").await?;
    ensure(health.status == 200, || {
        format!("/health with the budget spent: {}", health.status)
    })?;
    relay_host.close().await;
    room_host.close().await;
    room_guest.close().await;
    Ok(None)
}

/// Each client address's own daily budget of upgrades: from one address,
/// exactly that many upgrades go through (refused ones not counted), then
/// its lobby and room upgrades get 429 with a reason that says so, while
/// another address is still let in. Run alone on a host started for it.
async fn address_upgrade_allowance(c: &Ctx) -> Result<Option<String>, String> {
    let budget = c.config.daily_upgrades_per_ip;
    if budget == 0 {
        return Ok(Some("no per-address daily budget given".into()));
    }
    if !c.target.is_loopback_v4() {
        return Ok(Some("needs a host on a loopback address".into()));
    }
    let one = c
        .target
        .from_address(std::net::IpAddr::from([127, 0, 1, 9]));
    let other = c
        .target
        .from_address(std::net::IpAddr::from([127, 0, 1, 10]));
    for _ in 0..3 {
        one.ws_refused("/lobby/ws?lobby=999", c.origin(), 404)
            .await
            .map_err(|e| format!("a lobby that does not exist, before the budget: {e}"))?;
    }
    for i in 0..budget {
        let mut ws = one
            .ws_ok("/lobby/ws", c.origin())
            .await
            .map_err(|e| format!("upgrade {} of {budget} from one address: {e}", i + 1))?;
        ws.close().await;
    }
    let code = c.create_room().await?;
    for path in [
        "/lobby/ws".to_owned(),
        format!("/rooms/{code}/ws?role=host"),
    ] {
        match one.ws(&path, c.origin()).await {
            Ok(mut ws) => {
                ws.close().await;
                return Err(format!(
                    "{path}: upgraded from an address past its budget of {budget}"
                ));
            }
            Err(client::WsOpenError::Refused(r)) => {
                r.expect_error(429, &path)?;
                ensure(r.body.contains("your address"), || {
                    format!(
                        "{path}: the 429 does not say the address's allowance is spent: {}",
                        r.body
                    )
                })?;
            }
            Err(client::WsOpenError::Other(e)) => return Err(e),
        }
    }
    let mut ws = other
        .ws_ok(&format!("/rooms/{code}/ws?role=host"), c.origin())
        .await
        .map_err(|e| format!("another address, after one spent its budget: {e}"))?;
    // The room ends, so that it does not count against a cap on rooms.
    ws.send(r#"{"type":"done"}"#).await?;
    ws.expect_close(1000, "done").await?;
    Ok(None)
}

/// The cap on rooms alive at once: rooms up to the cap are created, the
/// next `POST /rooms` gets 503, and a room that ends gives its place back.
/// Run alone on a host started with a small cap, holding no other room
/// (a room an earlier check ended may take a moment to give its place
/// back: creating is retried until the deadline).
async fn rooms_alive_cap(c: &Ctx) -> Result<Option<String>, String> {
    let cap = c.config.max_rooms;
    if cap == 0 {
        return Ok(Some("no cap on rooms alive given".into()));
    }
    let create = || async { c.target.http("POST", "/rooms", c.origin()).await };
    // Creates one room, waiting (until the deadline) while the host still
    // counts a room that has ended; `None` when it stays refused.
    let create_one = || async {
        let t = Instant::now();
        loop {
            let r = create().await?;
            match r.status {
                200 => {
                    return Ok::<_, String>(Some(
                        r.json()?["code"].as_str().unwrap_or("").to_owned(),
                    ))
                }
                503 if t.elapsed() < c.config.deadline => {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
                503 => return Ok(None),
                _ => return Err(format!("POST /rooms: {} {}", r.status, r.body)),
            }
        }
    };
    let mut codes = Vec::new();
    for i in 0..cap {
        let code = create_one()
            .await?
            .ok_or_else(|| format!("room {} of a cap of {cap} was refused", i + 1))?;
        codes.push(code);
    }
    let r = create().await?;
    r.expect_error(503, &format!("a room past the cap of {cap}"))?;
    // A room that ends gives its place back.
    let mut host = c
        .lobby_target()
        .ws_ok(&format!("/rooms/{}/ws?role=host", codes[0]), c.origin())
        .await?;
    host.send(r#"{"type":"done"}"#).await?;
    host.expect_close(1000, "done").await?;
    create_one()
        .await?
        .ok_or("after a room ended, a new one was still refused")?;
    Ok(None)
}

/// `GET /lobbies` on this host, read strictly.
async fn directory(c: &Ctx) -> Result<signaling_protocol::LobbyDirectory, String> {
    let r = c.get("/lobbies").await?;
    ensure(r.status == 200, || {
        format!("GET /lobbies: {} {}", r.status, r.body)
    })?;
    signaling_protocol::LobbyDirectory::parse(&r.body)
        .map_err(|e| format!("GET /lobbies: {e:?} in {}", r.body))
}

/// The lobby directory: `GET /lobbies` lists every lobby with its fill; a
/// newcomer is placed in a lobby with room, so the one after a full lobby
/// is welcomed into another instead of hearing `full`, even when two
/// arrive at once for the last place; `?lobby=N` joins lobby N, and a
/// lobby that does not exist is 404; the per-address cap counts every
/// lobby together.
async fn lobby_directory(c: &Ctx) -> Result<Option<String>, String> {
    let lobbies = c.config.lobbies;
    if lobbies < 2 {
        return Ok(Some("no lobby directory given".into()));
    }
    let dir = directory(c).await?;
    ensure(dir.lobbies.len() == lobbies, || {
        format!(
            "GET /lobbies lists {} lobbies, not {lobbies}",
            dir.lobbies.len()
        )
    })?;
    let capacity = dir.lobbies[0].capacity as usize;
    ensure(
        dir.lobbies
            .iter()
            .enumerate()
            .all(|(n, l)| l.lobby as usize == n && l.players == 0),
        || format!("an idle host's directory: {dir:?}"),
    )?;
    // A lobby's worth of players but one, one after another.
    let mut held = Vec::new();
    for i in 0..capacity - 1 {
        let (ws, welcome) = c.player(&c.id(), &format!("p{i}")).await?;
        let seen = welcome["roster"].as_array().map_or(0, Vec::len);
        ensure(seen == i + 1, || {
            format!(
                "newcomer {i} was welcomed with {seen} players, not {}",
                i + 1
            )
        })?;
        held.push(ws);
    }
    // Two more at the same instant, for the one place left: one takes it,
    // the other is placed in another lobby (never told `full`).
    let (first, second) = (c.id(), c.id());
    let (a, b) = tokio::join!(c.player(&first, "late1"), c.player(&second, "late2"));
    let (a, b) = (
        a.map_err(|e| format!("the first of two simultaneous newcomers: {e}"))?,
        b.map_err(|e| format!("the second of two simultaneous newcomers: {e}"))?,
    );
    let mut seen = [&a.1, &b.1].map(|w| w["roster"].as_array().map_or(0, Vec::len));
    seen.sort_unstable();
    ensure(seen == [1, capacity], || {
        format!("two simultaneous newcomers for one place were welcomed with {seen:?} players")
    })?;
    held.extend([a.0, b.0]);
    let mut fills: Vec<u32> = directory(c)
        .await?
        .lobbies
        .iter()
        .map(|l| l.players)
        .collect();
    fills.sort_unstable();
    let mut want = vec![0; lobbies - 2];
    want.extend([1, capacity as u32]);
    ensure(fills == want, || {
        format!("fills after {} players: {fills:?}", capacity + 1)
    })?;
    // An empty lobby, asked for by number.
    let dir = directory(c).await?;
    let empty = dir
        .lobbies
        .iter()
        .find(|l| l.players == 0)
        .map(|l| l.lobby)
        .ok_or("no empty lobby left")?;
    let mut ws = c
        .lobby_target()
        .ws_ok(&format!("/lobby/ws?lobby={empty}"), c.origin())
        .await?;
    ws.send(&hello(&c.id(), "alone")).await?;
    let welcome = ws.expect_type("welcome").await?;
    ensure(
        welcome["roster"].as_array().map(Vec::len) == Some(1),
        || format!("lobby {empty} asked for by number: {welcome}"),
    )?;
    let now = directory(c).await?;
    ensure(now.lobbies[empty as usize].players == 1, || {
        format!("lobby {empty} after its player joined: {now:?}")
    })?;
    held.push(ws);
    for bad in [format!("{lobbies}"), "x".to_owned(), "-1".to_owned()] {
        c.lobby_target()
            .ws_refused(&format!("/lobby/ws?lobby={bad}"), c.origin(), 404)
            .await?;
    }
    for mut ws in held {
        ws.close().await;
    }
    directory_cap_per_address(c, lobbies).await?;
    Ok(None)
}

/// The per-address cap counts an address's lobby sockets in every lobby
/// together: spread over the lobbies, the next upgrade from that address
/// is refused (429) even for a lobby that holds fewer of its sockets than
/// the cap, and even a lobby asked for by number.
async fn directory_cap_per_address(c: &Ctx, lobbies: usize) -> Result<(), String> {
    let cap = c.config.lobby_sockets_per_ip;
    if cap == 0 || !c.target.is_loopback_v4() {
        return Ok(());
    }
    let one = c
        .target
        .from_address(std::net::IpAddr::from([127, 0, 1, 5]));
    let mut held = Vec::new();
    for i in 0..cap {
        let path = format!("/lobby/ws?lobby={}", i % lobbies);
        held.push(
            one.ws_ok(&path, c.origin())
                .await
                .map_err(|e| format!("socket {} of {cap} from one address: {e}", i + 1))?,
        );
    }
    // The lobby holding the fewest of them (the last to get one).
    let least = cap % lobbies;
    for path in ["/lobby/ws".to_owned(), format!("/lobby/ws?lobby={least}")] {
        one.ws_refused(&path, c.origin(), 429).await.map_err(|e| {
            format!("{path} from an address holding {cap} over {lobbies} lobbies: {e}")
        })?;
    }
    for mut ws in held {
        ws.close().await;
    }
    Ok(())
}
