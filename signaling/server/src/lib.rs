//! The embedded signalling server: [`signaling_core`]'s room and lobby
//! machines hosted on tokio + axum, for local play and for tests.
//!
//! Routes (see `docs/signaling.md` for the full contract):
//!
//! | route | |
//! | --- | --- |
//! | `POST /rooms` | create a room, `{"code":"K7M2QX","ttl":600}` |
//! | `GET /rooms/<code>/ws?role=host\|guest` | WebSocket into the room |
//! | `GET /lobby/ws` | WebSocket into the lobby |
//! | `GET /relay/<code>/ws?ticket=...` | the match relay of a room's two sides |
//! | `GET /ice` | `{"iceServers":[...]}` |
//! | `GET /health` | liveness |
//! | anything else | a file under `--static DIR`, when given |
//!
//! Every route checks `Origin` (403) and the per-IP rate (429); errors are
//! `{"error":"..."}`. Logs are JSON lines on standard error.
//!
//! ```no_run
//! # async fn demo() -> std::io::Result<()> {
//! let config = signaling_server::Config { listen: "127.0.0.1:0".parse().unwrap(), ..Default::default() };
//! let server = signaling_server::Server::bind(config).await?;
//! println!("listening on http://{}", server.local_addr());
//! server.run().await
//! # }
//! ```
#![warn(missing_docs)]

mod conn;
mod hosting;
mod page;
mod relay;
mod routes;
mod socket;
mod turn;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use signaling_core::{
    AllowedOrigins, Level, LobbyLimits, RelayKey, RelayLimits, RoomLimits, DEFAULT_STUN_URL,
};
use tokio::net::TcpListener;

pub use turn::TurnConfig;

/// Everything the server can be told.
#[derive(Clone, Debug)]
pub struct Config {
    /// Address to listen on (port 0 picks a free port).
    pub listen: SocketAddr,
    /// Origins allowed to use the service.
    pub allowed_origins: AllowedOrigins,
    /// Requests per IP per minute over all routes (0 = no limit).
    pub rate_limit_per_minute: u32,
    /// STUN URLs offered by `/ice` (empty for none).
    pub stun_urls: Vec<String>,
    /// TURN relay with short-lived credentials, if configured.
    pub turn: Option<TurnConfig>,
    /// Folder of static files to serve on the other paths.
    pub static_dir: Option<PathBuf>,
    /// Room limits (TTL, size and count caps).
    pub room: RoomLimits,
    /// Lobby limits (players, sockets, hello timeout, size, rate).
    pub lobby: LobbyLimits,
    /// Match relay limits (TTL, frame size, byte rate). The rooms' relay
    /// key, `room.relay_key`, is drawn at random by [`Server::bind`] when
    /// not set.
    pub relay: RelayLimits,
    /// Rooms alive at once; further `POST /rooms` get 503 (0 = no cap).
    pub max_rooms: usize,
    /// Lobbies in the directory, each with the `lobby` limits (at least
    /// one). `GET /lobby/ws` places a newcomer in the fullest lobby with
    /// room; `?lobby=N` asks for lobby `N`; `GET /lobbies` lists them.
    pub lobbies: usize,
    /// WebSocket upgrades (lobby, room, relay) accepted per UTC day over
    /// all clients; past it they get 503 (0 = no budget). See
    /// [`signaling_core::DailyBudget`].
    pub daily_upgrades: u64,
    /// WebSocket upgrades accepted per UTC day from one client address,
    /// an IPv6 address counting by its /64; past it its upgrades get 429
    /// (0 = no budget). Only upgrades the service takes are counted.
    pub daily_upgrades_per_ip: u64,
    /// Least severe log level written.
    pub log_level: Level,
    /// How long a client has to answer the server's close frame (or a
    /// socket dropped as too slow has to go) before the connection is cut.
    pub close_grace: std::time::Duration,
    /// Live rooms created from one client address, an IPv6 address counting
    /// by its /64 (default [`signaling_core::defaults::MAX_ROOMS_PER_IP`]);
    /// the next `POST /rooms` from it gets 429. 0 turns the cap off.
    pub max_rooms_per_ip: usize,
    /// Open connections in all (default 1024); more are closed unanswered.
    /// 0 turns the cap off.
    pub max_connections: usize,
    /// Open connections from one client address, an IPv6 address counting
    /// by its /64 (default 64). 0 turns the cap off.
    pub max_connections_per_ip: usize,
    /// Time a new connection has to send its first request's headers
    /// (default 10 s); zero turns the deadline off.
    pub header_timeout: std::time::Duration,
    /// Time an HTTP connection may wait for each request's headers, from
    /// the end of the previous answer (or from its start, for the first):
    /// a keep-alive connection idle that long between requests is closed
    /// (default 30 s). A WebSocket is no longer HTTP and never concerned.
    /// Zero turns it off.
    pub keep_alive_timeout: std::time::Duration,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            listen: SocketAddr::from(([127, 0, 0, 1], 8787)),
            allowed_origins: AllowedOrigins::parse(signaling_core::defaults::ALLOWED_ORIGINS),
            rate_limit_per_minute: signaling_core::defaults::HTTP_REQUESTS_PER_MINUTE,
            stun_urls: vec![DEFAULT_STUN_URL.to_owned()],
            turn: None,
            static_dir: None,
            room: RoomLimits::default(),
            lobby: LobbyLimits::default(),
            relay: RelayLimits::default(),
            max_rooms: signaling_core::defaults::MAX_ROOMS,
            daily_upgrades: signaling_core::defaults::DAILY_UPGRADES,
            daily_upgrades_per_ip: signaling_core::defaults::DAILY_UPGRADES_PER_IP,
            lobbies: signaling_core::defaults::LOBBIES,
            log_level: Level::Info,
            close_grace: std::time::Duration::from_secs(5),
            max_rooms_per_ip: signaling_core::defaults::MAX_ROOMS_PER_IP,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            max_connections_per_ip: DEFAULT_MAX_CONNECTIONS_PER_IP,
            header_timeout: std::time::Duration::from_millis(DEFAULT_HEADER_TIMEOUT_MS),
            keep_alive_timeout: std::time::Duration::from_millis(DEFAULT_KEEP_ALIVE_TIMEOUT_MS),
        }
    }
}

/// Default of [`Config::max_connections`].
pub const DEFAULT_MAX_CONNECTIONS: usize = 1024;
/// Default of [`Config::max_connections_per_ip`].
pub const DEFAULT_MAX_CONNECTIONS_PER_IP: usize = 64;
/// Default of [`Config::header_timeout`], in milliseconds.
pub const DEFAULT_HEADER_TIMEOUT_MS: u64 = 10_000;
/// Default of [`Config::keep_alive_timeout`], in milliseconds: long enough
/// for a page loading its files one after another on one connection, short
/// enough that idle connections do not hold the connection caps' places.
pub const DEFAULT_KEEP_ALIVE_TIMEOUT_MS: u64 = 30_000;

/// A fixed word for an I/O error's kind (`addr_in_use`,
/// `permission_denied`, ...), for log records: never the error's text,
/// which may hold addresses.
#[must_use]
pub fn io_error_kind(e: &std::io::Error) -> &'static str {
    hosting::io_kind(e)
}

/// A bound server, ready to run.
pub struct Server {
    listener: TcpListener,
    limits: conn::ConnLimits,
    keep_alive_timeout: std::time::Duration,
    app: axum::Router,
    addr: SocketAddr,
}

impl Server {
    /// Binds the listening socket (so the real port is known) and builds the
    /// routes.
    pub async fn bind(mut config: Config) -> std::io::Result<Server> {
        if config.room.relay_key.is_none() {
            let mut key = [0u8; 32];
            getrandom::fill(&mut key).map_err(std::io::Error::other)?;
            config.room.relay_key = Some(RelayKey::from_bytes(key));
        }
        // The secret the lobby draws players' `#ABC` tags from.
        let mut tag_key = [0u8; 32];
        getrandom::fill(&mut tag_key).map_err(std::io::Error::other)?;
        let listener = TcpListener::bind(config.listen).await?;
        let addr = listener.local_addr()?;
        let limits = conn::ConnLimits {
            max_connections: config.max_connections,
            max_per_ip: config.max_connections_per_ip,
            header_timeout: config.header_timeout,
        };
        let keep_alive_timeout = config.keep_alive_timeout;
        let state = Arc::new(hosting::Shared::new(config, tag_key));
        let app = routes::router(state);
        Ok(Server {
            listener,
            limits,
            keep_alive_timeout,
            app,
            addr,
        })
    }

    /// The address actually bound.
    #[must_use]
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// Serves until the process ends.
    ///
    /// Each connection is served by hyper's HTTP/1 server with upgrades
    /// (WebSockets) allowed. The caps and the first request's header
    /// deadline apply as connections are accepted (see `conn`); hyper's
    /// header read timeout, [`Config::keep_alive_timeout`], closes a
    /// connection that sends no next request. The client's address reaches
    /// the handlers as axum's `ConnectInfo`.
    pub async fn run(self) -> std::io::Result<()> {
        use axum::serve::Listener as _;
        let mut listener = conn::CappedListener::new(self.listener, self.limits);
        let keep_alive = (!self.keep_alive_timeout.is_zero()).then_some(self.keep_alive_timeout);
        loop {
            let (io, addr) = listener.accept().await;
            let app = tower_http::add_extension::AddExtension::new(
                self.app.clone(),
                axum::extract::ConnectInfo(addr),
            );
            tokio::spawn(async move {
                let mut http = hyper::server::conn::http1::Builder::new();
                if let Some(timeout) = keep_alive {
                    http.timer(hyper_util::rt::TokioTimer::new())
                        .header_read_timeout(timeout);
                }
                let service = hyper_util::service::TowerToHyperService::new(app);
                // A connection's end, whatever the reason (the client left,
                // a timeout, bad bytes), concerns nobody else.
                let _ = http
                    .serve_connection(hyper_util::rt::TokioIo::new(io), service)
                    .with_upgrades()
                    .await;
            });
        }
    }

    /// Runs the server on the current tokio runtime in the background and
    /// returns its address (for in-process tests and benchmarks).
    pub fn spawn(self) -> SocketAddr {
        let addr = self.addr;
        tokio::spawn(async move {
            if let Err(e) = self.run().await {
                hosting::log_line(
                    signaling_core::LogRecord::new(Level::Error, "server.stopped")
                        .with("io_error", hosting::io_kind(&e)),
                );
            }
        });
        addr
    }
}
