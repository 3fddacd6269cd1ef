//! `signaling-conformance --base-url URL`: runs the conformance suite
//! against a running signalling host and prints one line per check.

use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use signaling_conformance::{run, SuiteConfig};

/// Checks a signalling host (embedded server or `wrangler dev`) against the
/// contract in docs/signaling.md, over real HTTP and WebSockets. Tell it the
/// host's configured limits; it exits non-zero if any check fails.
#[derive(Parser, Debug)]
#[command(version, about, long_about)]
struct Args {
    /// The host's base URL, e.g. http://127.0.0.1:8787 (http only).
    #[arg(long)]
    base_url: String,
    /// Origin header to send on every request (one the host allows).
    #[arg(long)]
    origin: Option<String>,
    /// An origin the host must refuse with 403 (skip if the host allows `*`).
    #[arg(long)]
    forbidden_origin: Option<String>,
    /// The host's room TTL in seconds.
    #[arg(long, default_value_t = 600)]
    room_ttl_seconds: u64,
    /// Wait for a room to expire only when its TTL is at most this many
    /// seconds (otherwise that check is skipped).
    #[arg(long, default_value_t = 30)]
    max_ttl_wait_seconds: u64,
    /// The host's lobby hello timeout, in milliseconds; 0 (a host with
    /// none) skips that check.
    #[arg(long, default_value_t = 10_000)]
    hello_timeout_ms: u64,
    /// The host's per-IP request limit per minute; 0 skips the 429 check
    /// (which runs last).
    #[arg(long, default_value_t = 0)]
    rate_limit_per_minute: u32,
    /// The host's relay lifetime in seconds (waited for only when at most
    /// --max-ttl-wait-seconds).
    #[arg(long, default_value_t = signaling_core::defaults::RELAY_TTL_SECONDS)]
    relay_ttl_seconds: u64,
    /// The host's relay bytes per socket per second; 0 skips that check.
    #[arg(long, default_value_t = signaling_core::defaults::RELAY_BYTES_PER_SECOND)]
    relay_bytes_per_second: u32,
    /// The host's lobby messages per socket per minute; 0 skips the lobby
    /// rate checks.
    #[arg(long, default_value_t = signaling_core::defaults::LOBBY_MESSAGES_PER_MINUTE)]
    lobby_messages_per_minute: u32,
    /// The host's room messages per side or member per minute; 0 skips
    /// that check.
    #[arg(long, default_value_t = signaling_core::defaults::ROOM_MESSAGES_PER_MINUTE)]
    room_messages_per_minute: u32,
    /// Longest wait for any single answer, in seconds.
    #[arg(long, default_value_t = 10)]
    deadline_seconds: u64,
    /// Run only checks whose names contain this (repeatable).
    #[arg(long)]
    only: Vec<String>,
    /// The host's idle timeout for welcomed lobby sockets, in
    /// milliseconds; 0 skips that check. It must exceed the hello timeout
    /// by more than a second.
    #[arg(long, default_value_t = 0)]
    lobby_idle_timeout_ms: u64,
    /// The host's cap on open lobby sockets per client address; 0 skips
    /// that check (which needs a host on a loopback address).
    #[arg(long, default_value_t = 0)]
    max_lobby_sockets_per_ip: usize,
    /// The host's cap on live rooms created from one client address; 0
    /// skips that check (which needs a host on a loopback address).
    #[arg(long, default_value_t = 0)]
    max_rooms_per_ip: usize,
    /// The host's daily budget of WebSocket upgrades; 0 skips that check.
    /// It spends the budget: run it alone (`--only daily_budget`) against
    /// a host started for it.
    #[arg(long, default_value_t = 0)]
    daily_upgrades: u64,
    /// The host's daily budget of upgrades per client address; 0 skips
    /// that check. It spends one address's budget: run it alone
    /// (`--only address_upgrade_allowance`) against a host started for it.
    #[arg(long, default_value_t = 0)]
    daily_upgrades_per_ip: u64,
    /// The host's cap on rooms alive at once; 0 skips that check. It fills
    /// the cap: run it alone (`--only rooms_alive_cap`) against a host
    /// started with a small one.
    #[arg(long, default_value_t = 0)]
    max_rooms: usize,
    /// How many lobbies the host's directory holds; below 2 skips that
    /// check. It fills a lobby: run it alone (`--only lobby_directory`)
    /// against an idle host.
    #[arg(long, default_value_t = 0)]
    lobbies: usize,
    /// The host's players per lobby (the server's --max-players, the
    /// Worker's PLAYERS_PER_LOBBY).
    #[arg(long, default_value_t = signaling_core::protocol::limits::MAX_PLAYERS)]
    players_per_lobby: usize,
    /// The host's cap on open sockets per lobby (the server's
    /// --max-lobby-sockets, the Worker's LOBBY_MAX_SOCKETS); 0 (no cap)
    /// skips the 503 part of the lobby_full_and_busy check.
    #[arg(long, default_value_t = signaling_core::defaults::LOBBY_MAX_SOCKETS)]
    max_lobby_sockets: usize,
}

#[tokio::main]
async fn main() -> ExitCode {
    let a = Args::parse();
    let config = SuiteConfig {
        base_url: a.base_url,
        origin: a.origin,
        forbidden_origin: a.forbidden_origin,
        room_ttl_seconds: a.room_ttl_seconds,
        max_ttl_wait: Duration::from_secs(a.max_ttl_wait_seconds),
        hello_timeout: Duration::from_millis(a.hello_timeout_ms),
        rate_limit_per_minute: a.rate_limit_per_minute,
        relay_ttl_seconds: a.relay_ttl_seconds,
        relay_bytes_per_second: a.relay_bytes_per_second,
        room_messages_per_minute: a.room_messages_per_minute,
        lobby_messages_per_minute: a.lobby_messages_per_minute,
        deadline: Duration::from_secs(a.deadline_seconds),
        only: a.only,
        lobby_idle_timeout: (a.lobby_idle_timeout_ms != 0)
            .then(|| Duration::from_millis(a.lobby_idle_timeout_ms)),
        lobby_sockets_per_ip: a.max_lobby_sockets_per_ip,
        rooms_per_ip: a.max_rooms_per_ip,
        daily_upgrades: a.daily_upgrades,
        daily_upgrades_per_ip: a.daily_upgrades_per_ip,
        max_rooms: a.max_rooms,
        lobbies: a.lobbies,
        players_per_lobby: a.players_per_lobby,
        lobby_max_sockets: a.max_lobby_sockets,
    };
    let results = match run(&config).await {
        Ok(r) => r,
        Err(e) => {
            eprintln!("signaling-conformance: {e}");
            return ExitCode::from(2);
        }
    };
    let mut failed = 0;
    for r in &results {
        match &r.outcome {
            Ok(None) => println!("pass  {:<24} {:>7.2?}", r.name, r.elapsed),
            Ok(Some(why)) => println!("skip  {:<24} ({why})", r.name),
            Err(e) => {
                failed += 1;
                println!("FAIL  {:<24} {e}", r.name);
            }
        }
    }
    println!("{} checks, {failed} failed", results.len());
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
