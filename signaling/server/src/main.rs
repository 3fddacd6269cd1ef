//! `signaling-server`: the embedded signalling server (see `--help`).

use std::io::Write as _;
use std::net::SocketAddr;
use std::path::PathBuf;

use clap::Parser;
use signaling_core::{
    defaults, AllowedOrigins, Level, LobbyLimits, LogRecord, RoomLimits, DEFAULT_STUN_URL,
};
use signaling_server::{io_error_kind, Config, Server, TurnConfig};

/// The NtBA signalling service as one local process: rooms, the lobby,
/// /ice and /health, and optionally a folder of static files.
///
/// Prints `listening on http://ADDR` (with the real port) as its first line
/// on standard output; logs are JSON lines on standard error, startup
/// failures included (exit status 2 for a bad --static folder, 1 when the
/// address cannot be bound or the server stops). A TURN relay
/// is offered by /ice only when the environment sets TURN_URLS
/// (comma-separated turn: URLs) and TURN_SHARED_SECRET (the secret shared
/// with the TURN server); credentials are then short-lived.
#[derive(Parser, Debug)]
#[command(version, about, long_about)]
struct Args {
    /// Address to listen on; port 0 picks a free port.
    #[arg(long, default_value = "127.0.0.1:8787")]
    listen: SocketAddr,
    /// Comma-separated origins allowed to call the service besides its own
    /// (e.g. https://game.example,http://127.0.0.1:8080); `*` allows any.
    /// Requests without an Origin header, or from the server's own origin
    /// (a page it serves with --static), are always allowed.
    #[arg(long, default_value = defaults::ALLOWED_ORIGINS)]
    allowed_origins: String,
    /// How long a room lives after POST /rooms, in seconds.
    #[arg(long, default_value_t = defaults::ROOM_TTL_SECONDS)]
    room_ttl_seconds: u64,
    /// Requests per client IP per minute over all API routes (bursts up to
    /// that many); 0 turns the limit off.
    #[arg(long, default_value_t = defaults::HTTP_REQUESTS_PER_MINUTE)]
    rate_limit_per_minute: u32,
    /// Comma-separated STUN URLs returned by /ice; an empty string for none
    /// (as browser tests on loopback need).
    #[arg(long, default_value = DEFAULT_STUN_URL)]
    stun_urls: String,
    /// Serve the files of this folder on every other path (index.html for
    /// folders), so a page and its signalling share one address.
    #[arg(long = "static", value_name = "DIR")]
    static_dir: Option<PathBuf>,
    /// Milliseconds a lobby socket has to say hello before it is closed.
    /// 0: no deadline.
    #[arg(long, default_value_t = defaults::HELLO_TIMEOUT_MS)]
    hello_timeout_ms: u64,
    /// Players on the lobby roster, 1 to 16: the page links every lobby
    /// player to every other and keeps at most 16 on its roster, so this is
    /// the size of that mesh rather than a cap to switch off.
    #[arg(
        long,
        default_value_t = signaling_core::protocol::limits::MAX_PLAYERS,
        value_parser = players_per_lobby
    )]
    max_players: usize,
    /// Open lobby sockets, welcomed or not; further upgrades get 503.
    /// 0: no cap.
    #[arg(long, default_value_t = defaults::LOBBY_MAX_SOCKETS)]
    max_lobby_sockets: usize,
    /// Lobby messages per socket per minute; 0 turns the limit off.
    #[arg(long, default_value_t = defaults::LOBBY_MESSAGES_PER_MINUTE)]
    lobby_messages_per_minute: u32,
    /// Milliseconds a welcomed lobby socket may stay silent (heartbeats
    /// count) before it is closed with 1008. 0: no idle expiry.
    #[arg(long, default_value_t = defaults::LOBBY_IDLE_TIMEOUT_MS)]
    lobby_idle_timeout_ms: u64,
    /// Open lobby sockets from one client address (an IPv6 address counts
    /// by its /64); further upgrades from it get 429. 0: no cap.
    #[arg(long, default_value_t = defaults::LOBBY_SOCKETS_PER_IP)]
    max_lobby_sockets_per_ip: usize,
    /// Messages each side of a two-seat room, or each member of a member
    /// room, may send per minute; the next closes that socket with 1008.
    /// 0 turns the rate off (the rooms' lifetime counts still apply).
    #[arg(long, default_value_t = defaults::ROOM_MESSAGES_PER_MINUTE)]
    room_messages_per_minute: u32,
    /// Rooms alive at once; further POST /rooms get 503. 0: no cap.
    #[arg(long, default_value_t = defaults::MAX_ROOMS)]
    max_rooms: usize,
    /// Lobbies in the directory, each holding --max-players players;
    /// GET /lobby/ws places a newcomer in the fullest one with room.
    #[arg(long, default_value_t = defaults::LOBBIES)]
    lobbies: usize,
    /// WebSocket upgrades (lobby, room, relay) accepted per UTC day, from
    /// all clients together; further upgrades get 503 until midnight UTC.
    /// 0: no budget.
    #[arg(long, default_value_t = defaults::DAILY_UPGRADES)]
    daily_upgrades: u64,
    /// WebSocket upgrades accepted per UTC day from one client address (an
    /// IPv6 address counts by its /64); further upgrades from it get 429
    /// until midnight UTC. 0: no budget.
    #[arg(long, default_value_t = defaults::DAILY_UPGRADES_PER_IP)]
    daily_upgrades_per_ip: u64,
    /// Live rooms created from one client address (an IPv6 address counts
    /// by its /64); the next POST /rooms gets 429. 0: no cap.
    #[arg(long, default_value_t = defaults::MAX_ROOMS_PER_IP)]
    max_rooms_per_ip: usize,
    /// Open connections in all; more are closed unanswered. 0: no cap.
    #[arg(long, default_value_t = signaling_server::DEFAULT_MAX_CONNECTIONS)]
    max_connections: usize,
    /// Open connections from one client address (an IPv6 address counts
    /// by its /64); more are closed unanswered. 0: no cap.
    #[arg(long, default_value_t = signaling_server::DEFAULT_MAX_CONNECTIONS_PER_IP)]
    max_connections_per_ip: usize,
    /// Milliseconds a new connection has to send its first request's
    /// headers. 0: no deadline.
    #[arg(long, default_value_t = signaling_server::DEFAULT_HEADER_TIMEOUT_MS)]
    header_timeout_ms: u64,
    /// Milliseconds an HTTP connection may wait for each request's headers
    /// after the previous answer: a keep-alive connection idle that long is
    /// closed (WebSockets are not concerned). 0: no deadline.
    #[arg(long, default_value_t = signaling_server::DEFAULT_KEEP_ALIVE_TIMEOUT_MS)]
    keep_alive_timeout_ms: u64,
    /// How long a match relay lives after its first socket, in seconds.
    #[arg(long, default_value_t = defaults::RELAY_TTL_SECONDS)]
    relay_ttl_seconds: u64,
    /// Bytes one relay socket may send per second; 0 turns the limit off.
    #[arg(long, default_value_t = defaults::RELAY_BYTES_PER_SECOND)]
    relay_bytes_per_second: u32,
    /// Least severe log level written: debug, info, warn or error.
    #[arg(long, default_value = "info", value_parser = parse_level)]
    log_level: Level,
}

fn players_per_lobby(s: &str) -> Result<usize, String> {
    let max = signaling_core::protocol::limits::MAX_PLAYERS;
    match s.trim().parse::<usize>() {
        Ok(n) if (1..=max).contains(&n) => Ok(n),
        _ => Err(format!("expected a number from 1 to {max}")),
    }
}

fn parse_level(s: &str) -> Result<Level, String> {
    Level::parse(s).ok_or_else(|| "expected debug, info, warn or error".to_owned())
}

fn split_list(s: &str) -> Vec<String> {
    s.split(',')
        .map(str::trim)
        .filter(|u| !u.is_empty())
        .map(str::to_owned)
        .collect()
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let args = Args::parse();
    let config = Config {
        listen: args.listen,
        allowed_origins: AllowedOrigins::parse(&args.allowed_origins),
        rate_limit_per_minute: args.rate_limit_per_minute,
        stun_urls: split_list(&args.stun_urls),
        turn: TurnConfig::from_env(),
        static_dir: args.static_dir,
        room: RoomLimits {
            ttl_ms: args.room_ttl_seconds.saturating_mul(1000),
            messages_per_minute: args.room_messages_per_minute,
            ..RoomLimits::default()
        },
        lobby: LobbyLimits {
            max_players: args.max_players,
            max_sockets: args.max_lobby_sockets,
            hello_timeout_ms: args.hello_timeout_ms,
            messages_per_minute: args.lobby_messages_per_minute,
            idle_timeout_ms: args.lobby_idle_timeout_ms,
            max_sockets_per_address: args.max_lobby_sockets_per_ip,
            ..LobbyLimits::default()
        },
        relay: signaling_core::RelayLimits {
            ttl_ms: args.relay_ttl_seconds.saturating_mul(1000),
            bytes_per_second: args.relay_bytes_per_second,
            ..signaling_core::RelayLimits::default()
        },
        max_rooms: args.max_rooms,
        max_rooms_per_ip: args.max_rooms_per_ip,
        daily_upgrades: args.daily_upgrades,
        daily_upgrades_per_ip: args.daily_upgrades_per_ip,
        lobbies: args.lobbies,
        max_connections: args.max_connections,
        max_connections_per_ip: args.max_connections_per_ip,
        header_timeout: std::time::Duration::from_millis(args.header_timeout_ms),
        keep_alive_timeout: std::time::Duration::from_millis(args.keep_alive_timeout_ms),
        log_level: args.log_level,
        ..Config::default()
    };
    if let Some(dir) = &config.static_dir {
        if !dir.is_dir() {
            fatal(LogRecord::new(Level::Error, "server.static_dir_missing"));
            return std::process::ExitCode::from(2);
        }
    }
    let server = match Server::bind(config).await {
        Ok(s) => s,
        Err(e) => {
            fatal(
                LogRecord::new(Level::Error, "server.bind_failed")
                    .with("io_error", io_error_kind(&e)),
            );
            return std::process::ExitCode::from(1);
        }
    };
    let mut out = std::io::stdout();
    let _ = writeln!(out, "listening on http://{}", server.local_addr());
    let _ = out.flush();
    tokio::select! {
        r = server.run() => {
            if let Err(e) = r {
                fatal(
                    LogRecord::new(Level::Error, "server.stopped")
                        .with("io_error", io_error_kind(&e)),
                );
                return std::process::ExitCode::from(1);
            }
        }
        _ = tokio::signal::ctrl_c() => {}
    }
    std::process::ExitCode::SUCCESS
}

/// Writes a startup or shutdown failure as a JSON log line on standard
/// error, whatever `--log-level` says (the process is about to exit).
fn fatal(record: LogRecord) {
    eprintln!("{}", record.to_json_line());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_default_to_the_services_one_set() {
        let args = Args::parse_from(["signaling-server"]);
        assert_eq!(args.room_ttl_seconds, defaults::ROOM_TTL_SECONDS);
        assert_eq!(
            args.hello_timeout_ms,
            LobbyLimits::default().hello_timeout_ms
        );
        assert_eq!(args.max_players, LobbyLimits::default().max_players);
        assert_eq!(args.max_lobby_sockets, LobbyLimits::default().max_sockets);
        assert_eq!(
            args.lobby_messages_per_minute,
            LobbyLimits::default().messages_per_minute
        );
        assert_eq!(
            args.rate_limit_per_minute,
            defaults::HTTP_REQUESTS_PER_MINUTE
        );
        assert_eq!(
            args.room_messages_per_minute,
            RoomLimits::default().messages_per_minute
        );
        assert_eq!(args.max_rooms, defaults::MAX_ROOMS);
        assert_eq!(args.max_rooms_per_ip, defaults::MAX_ROOMS_PER_IP);
        assert_eq!(args.daily_upgrades, defaults::DAILY_UPGRADES);
        assert_eq!(args.daily_upgrades_per_ip, defaults::DAILY_UPGRADES_PER_IP);
        assert_eq!(args.lobbies, defaults::LOBBIES);
        assert_eq!(args.allowed_origins, defaults::ALLOWED_ORIGINS);
        assert_eq!(
            args.lobby_idle_timeout_ms,
            LobbyLimits::default().idle_timeout_ms
        );
        assert_eq!(
            args.max_lobby_sockets_per_ip,
            LobbyLimits::default().max_sockets_per_address
        );
        let relay = signaling_core::RelayLimits::default();
        assert_eq!(args.relay_ttl_seconds * 1000, relay.ttl_ms);
        assert_eq!(args.relay_bytes_per_second, relay.bytes_per_second);
    }

    #[test]
    fn players_per_lobby_stay_within_the_pages_mesh() {
        let parse = |v: &str| Args::try_parse_from(["signaling-server", "--max-players", v]);
        assert_eq!(parse("1").map(|a| a.max_players).ok(), Some(1));
        assert_eq!(parse("16").map(|a| a.max_players).ok(), Some(16));
        assert!(parse("0").is_err());
        assert!(parse("17").is_err());
        assert!(parse("many").is_err());
    }

    #[test]
    fn zero_switches_the_hello_deadline_and_the_socket_cap_off() {
        let args = Args::parse_from([
            "signaling-server",
            "--hello-timeout-ms",
            "0",
            "--max-lobby-sockets",
            "0",
            "--relay-bytes-per-second",
            "0",
        ]);
        assert_eq!(args.hello_timeout_ms, 0);
        assert_eq!(args.max_lobby_sockets, 0);
        assert_eq!(args.relay_bytes_per_second, 0);
    }
}
