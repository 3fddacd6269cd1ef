//! The Worker's settings, read from its environment (wrangler `[vars]`,
//! `--var` on the command line, and secrets).
//!
//! Reading is pure: [`Config::from_lookup`] takes a function that returns a
//! variable's text, so the rules are unit-tested natively. A value that
//! does not parse is not fatal: the default is used and a warning names the
//! variable (never its value, which could be a secret).

use signaling_core::{
    defaults, AllowedOrigins, Level, LobbyLimits, RelayKey, RelayLimits, RoomLimits,
    DEFAULT_STUN_URL,
};

/// Everything the Worker and its Durable Objects read from the environment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// `ALLOWED_ORIGINS`: comma-separated page origins, `*` for any.
    /// Unset means none: only requests without an `Origin` header pass, so
    /// a fresh deployment is closed until the operator names the game's
    /// origin.
    pub allowed_origins: AllowedOrigins,
    /// `ROOM_TTL_SECONDS` (default 600), `ROOM_MESSAGES_PER_MINUTE` (each
    /// side's or member's rate, default 240, 0 off, at most 100 000) and
    /// the fixed room caps.
    pub room: RoomLimits,
    /// `HELLO_TIMEOUT_SECONDS` (default 10, 0 off, at most 3 600),
    /// `LOBBY_IDLE_TIMEOUT_SECONDS` (default 90, 0 off, at most 3 600),
    /// `LOBBY_SOCKETS_PER_IP` (default 8, 0 off, at most 1 000),
    /// `LOBBY_MESSAGES_PER_MINUTE` (each socket's rate, default 600, 0 off,
    /// at most 100 000), `PLAYERS_PER_LOBBY` (default and most 16, the
    /// page's mesh; least 1), `LOBBY_MAX_SOCKETS` (open sockets per lobby,
    /// welcomed or not: default 32, 0 off, at most 10 000) and the fixed
    /// message size.
    pub lobby: LobbyLimits,
    /// `RELAY_TTL_SECONDS` (default 1800), `RELAY_BYTES_PER_SECOND` (each
    /// relay socket's rate: default 131 072, 0 off, at most 100 000 000)
    /// and the fixed relay caps. The
    /// relay key is `room.relay_key`, from the secret `RELAY_KEY` (unset:
    /// no relay, and rooms say so when asked for a ticket).
    pub relay: RelayLimits,
    /// `STUN_URLS`: comma-separated; unset means Cloudflare's free STUN
    /// server, an empty value means none.
    pub stun_urls: Vec<String>,
    /// `TURN_KEY_ID` and `TURN_KEY_API_TOKEN` (secrets), when both are set.
    pub turn: Option<TurnKey>,
    /// `TURN_API_BASE`: the origin of the API that mints TURN credentials
    /// (default [`DEFAULT_TURN_API_BASE`]). A testing and advanced
    /// setting: it must be an `https://` origin, or an `http://` one on a
    /// loopback host (a local stand-in for the API); anything else is
    /// ignored (and named in [`Config::ignored`]).
    pub turn_api_base: String,
    /// `TURN_TTL_SECONDS`: lifetime of the TURN credentials `/ice` hands out
    /// (default and most 3 600, least 60: `signaling_core::defaults`).
    pub turn_ttl_seconds: u64,
    /// `LOG_LEVEL`: `debug`, `info` (default), `warn` or `error`.
    pub log_level: Level,
    /// `REBUILD_EACH_EVENT=1`, a test setting: the Durable Objects forget
    /// their machine after every event and rebuild it from storage and the
    /// sockets' attachments on the next, exactly as after hibernation. The
    /// conformance suite runs once this way in CI, so the whole contract is
    /// checked across "hibernations". Costs CPU only; off by default.
    pub rebuild_each_event: bool,
    /// `ROOMS_PER_IP`: live rooms created from one client address, an
    /// IPv6 address counting by its /64 (default 20, 0 off, at most
    /// 10 000); the next `POST /rooms` gets 429.
    pub rooms_per_ip: usize,
    /// `LOBBIES`: how many lobbies the directory holds, each its own
    /// Durable Object of 16 players (default 1, at most 64). See
    /// [`crate::directory`].
    pub lobbies: usize,
    /// `DAILY_UPGRADES`: WebSocket upgrades (lobby, room, relay) accepted
    /// per UTC day over all clients (default 0: no budget; at most 10
    /// million); past it they get 503. See [`crate::budget`].
    pub daily_upgrades: u64,
    /// `DAILY_UPGRADES_PER_IP`: WebSocket upgrades accepted per UTC day
    /// from one client address, an IPv6 address counting by its /64
    /// (default 0: no budget; at most 10 million); past it that address's
    /// upgrades get 429. See [`crate::budget`].
    pub daily_upgrades_per_ip: u64,
    /// `MAX_ROOMS`: rooms alive at once over the whole service (default
    /// 10 000, 0 off, at most 1 000 000); further `POST /rooms` get 503.
    /// See [`crate::owner`].
    pub max_rooms: usize,
    /// `RATE_LIMITER_OFF=1`: no per-IP request limit. Without it, a
    /// missing or failing `RATE_LIMITER` binding refuses every request with
    /// 503 rather than letting floods through.
    pub rate_limiter_off: bool,
    /// Variables that were set but could not be read (their names only).
    pub ignored: Vec<&'static str>,
}

/// The operator's Cloudflare TURN key (both halves are secrets).
#[derive(Clone, PartialEq, Eq)]
pub struct TurnKey {
    /// The key's id (`TURN_KEY_ID`).
    pub id: String,
    /// The API token that mints credentials (`TURN_KEY_API_TOKEN`).
    pub api_token: String,
}

impl std::fmt::Debug for TurnKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never print the secrets, even in debug output.
        f.write_str("TurnKey(..)")
    }
}

/// Cloudflare's Realtime API, which mints TURN credentials.
pub const DEFAULT_TURN_API_BASE: &str = "https://rtc.live.cloudflare.com";

impl Config {
    /// Reads the settings through `lookup`, which returns a variable's
    /// value or `None` when it is not set.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Config {
        let mut ignored = Vec::new();
        let mut seconds = |name: &'static str, default: u64, min: u64, max: u64| -> u64 {
            match lookup(name) {
                None => default,
                Some(text) => match text.trim().parse::<u64>() {
                    Ok(n) if (min..=max).contains(&n) => n,
                    _ => {
                        ignored.push(name);
                        default
                    }
                },
            }
        };
        let room_ttl = seconds("ROOM_TTL_SECONDS", defaults::ROOM_TTL_SECONDS, 1, 86_400);
        let hello_timeout = seconds(
            "HELLO_TIMEOUT_SECONDS",
            defaults::HELLO_TIMEOUT_MS / 1000,
            0,
            3_600,
        );
        let idle_timeout = seconds(
            "LOBBY_IDLE_TIMEOUT_SECONDS",
            defaults::LOBBY_IDLE_TIMEOUT_MS / 1000,
            0,
            3_600,
        );
        let sockets_per_ip = seconds(
            "LOBBY_SOCKETS_PER_IP",
            defaults::LOBBY_SOCKETS_PER_IP as u64,
            0,
            1_000,
        );
        let players = seconds(
            "PLAYERS_PER_LOBBY",
            signaling_core::protocol::limits::MAX_PLAYERS as u64,
            1,
            signaling_core::protocol::limits::MAX_PLAYERS as u64,
        );
        let lobby_sockets = seconds(
            "LOBBY_MAX_SOCKETS",
            defaults::LOBBY_MAX_SOCKETS as u64,
            0,
            10_000,
        );
        let relay_rate = seconds(
            "RELAY_BYTES_PER_SECOND",
            u64::from(defaults::RELAY_BYTES_PER_SECOND),
            0,
            100_000_000,
        );
        let room_rate = seconds(
            "ROOM_MESSAGES_PER_MINUTE",
            u64::from(defaults::ROOM_MESSAGES_PER_MINUTE),
            0,
            100_000,
        );
        let lobby_rate = seconds(
            "LOBBY_MESSAGES_PER_MINUTE",
            u64::from(defaults::LOBBY_MESSAGES_PER_MINUTE),
            0,
            100_000,
        );
        let rooms_per_ip = seconds("ROOMS_PER_IP", defaults::MAX_ROOMS_PER_IP as u64, 0, 10_000);
        let max_rooms = seconds("MAX_ROOMS", defaults::MAX_ROOMS as u64, 0, 1_000_000);
        let daily_upgrades_per_ip = seconds(
            "DAILY_UPGRADES_PER_IP",
            defaults::DAILY_UPGRADES_PER_IP,
            0,
            10_000_000,
        );
        let lobbies = seconds("LOBBIES", defaults::LOBBIES as u64, 1, 64);
        let daily_upgrades = seconds("DAILY_UPGRADES", defaults::DAILY_UPGRADES, 0, 10_000_000);
        let turn_ttl_seconds = seconds(
            "TURN_TTL_SECONDS",
            defaults::TURN_TTL_SECONDS,
            defaults::MIN_TURN_TTL_SECONDS,
            defaults::TURN_TTL_SECONDS,
        );

        let relay_ttl = seconds("RELAY_TTL_SECONDS", defaults::RELAY_TTL_SECONDS, 1, 86_400);

        let log_level = match lookup("LOG_LEVEL") {
            None => Level::Info,
            Some(text) => Level::parse(text.trim()).unwrap_or_else(|| {
                ignored.push("LOG_LEVEL");
                Level::Info
            }),
        };

        let allowed_origins = AllowedOrigins::parse(
            &lookup("ALLOWED_ORIGINS").unwrap_or_else(|| defaults::ALLOWED_ORIGINS.to_owned()),
        );

        let stun_urls = match lookup("STUN_URLS") {
            None => vec![DEFAULT_STUN_URL.to_owned()],
            Some(list) => list
                .split(',')
                .map(str::trim)
                .filter(|u| !u.is_empty())
                .map(str::to_owned)
                .collect(),
        };

        let nonempty = |name: &str| {
            lookup(name)
                .map(|v| v.trim().to_owned())
                .filter(|v| !v.is_empty())
        };
        let turn = match (nonempty("TURN_KEY_ID"), nonempty("TURN_KEY_API_TOKEN")) {
            // The id becomes a segment of the API's URL path: only the
            // characters of the ids Cloudflare issues, so it cannot reach
            // another path.
            (Some(id), Some(_)) if !is_key_id(&id) => {
                ignored.push("TURN_KEY_ID");
                None
            }
            (Some(id), Some(api_token)) => Some(TurnKey { id, api_token }),
            (None, None) => None,
            // Half a key is a configuration mistake: say so, serve STUN only.
            (Some(_), None) => {
                ignored.push("TURN_KEY_ID");
                None
            }
            (None, Some(_)) => {
                ignored.push("TURN_KEY_API_TOKEN");
                None
            }
        };

        let turn_api_base = match lookup("TURN_API_BASE") {
            None => DEFAULT_TURN_API_BASE.to_owned(),
            Some(text) => api_origin(&text).unwrap_or_else(|| {
                ignored.push("TURN_API_BASE");
                DEFAULT_TURN_API_BASE.to_owned()
            }),
        };

        let rebuild_each_event = lookup("REBUILD_EACH_EVENT").is_some_and(|v| v.trim() == "1");
        let rate_limiter_off = lookup("RATE_LIMITER_OFF").is_some_and(|v| v.trim() == "1");

        Config {
            allowed_origins,
            room: RoomLimits {
                ttl_ms: room_ttl * 1000,
                messages_per_minute: u32::try_from(room_rate)
                    .unwrap_or(defaults::ROOM_MESSAGES_PER_MINUTE),
                relay_key: lookup("RELAY_KEY").and_then(|k| RelayKey::from_secret(&k)),
                ..RoomLimits::default()
            },
            relay: RelayLimits {
                ttl_ms: relay_ttl * 1000,
                bytes_per_second: u32::try_from(relay_rate)
                    .unwrap_or(defaults::RELAY_BYTES_PER_SECOND),
                ..RelayLimits::default()
            },
            lobby: LobbyLimits {
                max_players: usize::try_from(players)
                    .unwrap_or(signaling_core::protocol::limits::MAX_PLAYERS),
                max_sockets: usize::try_from(lobby_sockets).unwrap_or(defaults::LOBBY_MAX_SOCKETS),
                hello_timeout_ms: hello_timeout * 1000,
                idle_timeout_ms: idle_timeout * 1000,
                max_sockets_per_address: usize::try_from(sockets_per_ip)
                    .unwrap_or(defaults::LOBBY_SOCKETS_PER_IP),
                messages_per_minute: u32::try_from(lobby_rate)
                    .unwrap_or(defaults::LOBBY_MESSAGES_PER_MINUTE),
                ..LobbyLimits::default()
            },
            stun_urls,
            turn,
            turn_api_base,
            turn_ttl_seconds,
            log_level,
            rebuild_each_event,
            rate_limiter_off,
            rooms_per_ip: usize::try_from(rooms_per_ip).unwrap_or(defaults::MAX_ROOMS_PER_IP),
            lobbies: usize::try_from(lobbies).unwrap_or(defaults::LOBBIES),
            daily_upgrades,
            daily_upgrades_per_ip,
            max_rooms: usize::try_from(max_rooms).unwrap_or(defaults::MAX_ROOMS),
            ignored,
        }
    }

    /// The room lifetime in whole seconds, as `POST /rooms` reports it.
    #[must_use]
    pub fn room_ttl_seconds(&self) -> u64 {
        self.room.ttl_ms / 1000
    }
}

/// A TURN key id as Cloudflare issues them: letters, digits, `-` and `_`
/// (1 to 128 of them).
fn is_key_id(id: &str) -> bool {
    (1..=128).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// Reads `TURN_API_BASE`: `scheme://host[:port]` with an optional trailing
/// `/`, and nothing else (no user name or password, path, query or
/// fragment). `https` is accepted for any host; plain `http` only for a
/// loopback host (`localhost`, `127.x.y.z`, `[::1]`), where a local
/// stand-in for the API may listen. Returns the origin without the
/// trailing `/` (scheme in lower case), or `None` when refused.
#[must_use]
pub fn api_origin(text: &str) -> Option<String> {
    let text = text.trim();
    let text = text.strip_suffix('/').unwrap_or(text);
    let (scheme, authority) = text.split_once("://")?;
    let scheme = scheme.to_ascii_lowercase();
    let secure = match scheme.as_str() {
        "https" => true,
        "http" => false,
        _ => return None,
    };
    let (host, port) = if let Some(rest) = authority.strip_prefix('[') {
        let (inside, after) = rest.split_once(']')?;
        if inside.is_empty() || !inside.bytes().all(|b| b.is_ascii_hexdigit() || b == b':') {
            return None;
        }
        (&authority[..inside.len() + 2], after)
    } else {
        match authority.find(':') {
            Some(i) => (&authority[..i], &authority[i..]),
            None => (authority, ""),
        }
    };
    if !port.is_empty() {
        let digits = port.strip_prefix(':')?;
        let ok = !digits.is_empty()
            && digits.len() <= 5
            && digits.bytes().all(|b| b.is_ascii_digit())
            && digits
                .parse::<u32>()
                .is_ok_and(|p| (1..=65_535).contains(&p));
        if !ok {
            return None;
        }
    }
    let is_name = !host.is_empty()
        && host.len() <= 253
        && !host.starts_with('[')
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.');
    if !is_name && !host.starts_with('[') {
        return None;
    }
    if !secure && !is_loopback(host) {
        return None;
    }
    Some(format!("{scheme}://{authority}"))
}

/// `localhost` (or a name under it), an IPv4 address in 127.0.0.0/8, or
/// the IPv6 loopback `[::1]`.
fn is_loopback(host: &str) -> bool {
    let host = host.to_ascii_lowercase();
    if host == "localhost" || host.ends_with(".localhost") || host == "[::1]" {
        return true;
    }
    host.parse::<std::net::Ipv4Addr>()
        .is_ok_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn read(vars: &[(&str, &str)]) -> Config {
        let map: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        Config::from_lookup(|name| map.get(name).cloned())
    }

    #[test]
    fn defaults_when_nothing_is_set() {
        let c = read(&[]);
        assert_eq!(c.room, RoomLimits::default());
        assert_eq!(c.lobby, LobbyLimits::default());
        assert_eq!(c.room_ttl_seconds(), 600);
        assert_eq!(c.stun_urls, vec![DEFAULT_STUN_URL.to_owned()]);
        assert_eq!(c.turn, None);
        assert_eq!(c.turn_api_base, DEFAULT_TURN_API_BASE);
        assert_eq!(c.log_level, Level::Info);
        assert!(!c.rebuild_each_event);
        assert!(!c.rate_limiter_off, "the limiter is on unless turned off");
        assert_eq!(c.rooms_per_ip, defaults::MAX_ROOMS_PER_IP);
        assert_eq!(read(&[("ROOMS_PER_IP", "0")]).rooms_per_ip, 0);
        assert_eq!(
            c.room.messages_per_minute,
            defaults::ROOM_MESSAGES_PER_MINUTE
        );
        for (text, rate) in [("0", 0), ("30", 30)] {
            let r = read(&[("ROOM_MESSAGES_PER_MINUTE", text)]);
            assert_eq!(r.room.messages_per_minute, rate);
        }
        let r = read(&[("ROOM_MESSAGES_PER_MINUTE", "lots")]);
        assert_eq!(
            (r.room.messages_per_minute, r.ignored),
            (
                defaults::ROOM_MESSAGES_PER_MINUTE,
                vec!["ROOM_MESSAGES_PER_MINUTE"]
            )
        );
        assert_eq!(c.lobbies, defaults::LOBBIES);
        assert_eq!(read(&[("LOBBIES", "3")]).lobbies, 3);
        for bad in ["0", "65", "many"] {
            let r = read(&[("LOBBIES", bad)]);
            assert_eq!((r.lobbies, r.ignored), (defaults::LOBBIES, vec!["LOBBIES"]));
        }
        assert_eq!(c.daily_upgrades, defaults::DAILY_UPGRADES);
        assert_eq!(read(&[("DAILY_UPGRADES", "5000")]).daily_upgrades, 5_000);
        assert_eq!(
            read(&[("DAILY_UPGRADES", "-1")]).daily_upgrades,
            defaults::DAILY_UPGRADES
        );
        assert_eq!(c.daily_upgrades_per_ip, defaults::DAILY_UPGRADES_PER_IP);
        assert_eq!(
            read(&[("DAILY_UPGRADES_PER_IP", "500")]).daily_upgrades_per_ip,
            500
        );
        assert_eq!(c.max_rooms, defaults::MAX_ROOMS);
        assert_eq!(read(&[("MAX_ROOMS", "0")]).max_rooms, 0);
        let r = read(&[("MAX_ROOMS", "-3")]);
        assert_eq!(
            (r.max_rooms, r.ignored),
            (defaults::MAX_ROOMS, vec!["MAX_ROOMS"])
        );
        assert_eq!(
            c.lobby.messages_per_minute,
            defaults::LOBBY_MESSAGES_PER_MINUTE
        );
        for (text, rate) in [("0", 0), ("1200", 1_200)] {
            let r = read(&[("LOBBY_MESSAGES_PER_MINUTE", text)]);
            assert_eq!(r.lobby.messages_per_minute, rate);
        }
        let r = read(&[("LOBBY_MESSAGES_PER_MINUTE", "fast")]);
        assert_eq!(
            (r.lobby.messages_per_minute, r.ignored),
            (
                defaults::LOBBY_MESSAGES_PER_MINUTE,
                vec!["LOBBY_MESSAGES_PER_MINUTE"]
            )
        );
        assert!(c.ignored.is_empty());
        // Closed by default: only requests without an Origin pass.
        assert!(c.allowed_origins.allows(None));
        assert!(!c.allowed_origins.allows(Some("https://example.com")));
        assert_eq!(
            c.allowed_origins,
            AllowedOrigins::parse(defaults::ALLOWED_ORIGINS)
        );
    }

    #[test]
    fn timers_and_lists_are_read() {
        let c = read(&[
            ("ROOM_TTL_SECONDS", "3"),
            ("HELLO_TIMEOUT_SECONDS", " 1 "),
            ("STUN_URLS", "stun:a.example:3478, ,stun:b.example:3478"),
            (
                "ALLOWED_ORIGINS",
                "https://game.example, http://127.0.0.1:8080",
            ),
            ("LOG_LEVEL", "debug"),
            ("REBUILD_EACH_EVENT", "1"),
        ]);
        assert_eq!(c.room.ttl_ms, 3_000);
        assert_eq!(c.room_ttl_seconds(), 3);
        assert_eq!(c.lobby.hello_timeout_ms, 1_000);
        assert_eq!(c.lobby.max_players, 16);
        assert_eq!(
            c.stun_urls,
            vec!["stun:a.example:3478", "stun:b.example:3478"]
        );
        assert!(c.allowed_origins.allows(Some("http://127.0.0.1:8080")));
        assert!(!c.allowed_origins.allows(Some("http://127.0.0.1:8081")));
        assert_eq!(c.log_level, Level::Debug);
        assert!(c.rebuild_each_event);
        assert!(c.ignored.is_empty());
    }

    #[test]
    fn lobby_idle_timeout_and_per_address_cap_are_read_and_zero_turns_them_off() {
        let c = read(&[
            ("LOBBY_IDLE_TIMEOUT_SECONDS", "12"),
            ("LOBBY_SOCKETS_PER_IP", "3"),
        ]);
        assert_eq!(c.lobby.idle_timeout_ms, 12_000);
        assert_eq!(c.lobby.max_sockets_per_address, 3);
        let off = read(&[
            ("LOBBY_IDLE_TIMEOUT_SECONDS", "0"),
            ("LOBBY_SOCKETS_PER_IP", "0"),
        ]);
        assert_eq!(off.lobby.idle_timeout_ms, 0);
        assert_eq!(off.lobby.max_sockets_per_address, 0);
        assert!(off.ignored.is_empty());
        let bad = read(&[
            ("LOBBY_IDLE_TIMEOUT_SECONDS", "-1"),
            ("LOBBY_SOCKETS_PER_IP", "many"),
        ]);
        assert_eq!(bad.lobby, LobbyLimits::default());
        assert_eq!(
            bad.ignored,
            vec!["LOBBY_IDLE_TIMEOUT_SECONDS", "LOBBY_SOCKETS_PER_IP"]
        );
    }

    #[test]
    fn lobby_and_relay_sizes_are_read_and_zero_turns_the_caps_off() {
        let c = read(&[
            ("PLAYERS_PER_LOBBY", "4"),
            ("LOBBY_MAX_SOCKETS", "6"),
            ("RELAY_BYTES_PER_SECOND", "65536"),
        ]);
        assert_eq!(c.lobby.max_players, 4);
        assert_eq!(c.lobby.max_sockets, 6);
        assert_eq!(c.relay.bytes_per_second, 65_536);
        assert!(c.ignored.is_empty());
        let off = read(&[
            ("HELLO_TIMEOUT_SECONDS", "0"),
            ("LOBBY_MAX_SOCKETS", "0"),
            ("RELAY_BYTES_PER_SECOND", "0"),
        ]);
        assert_eq!(off.lobby.hello_timeout_ms, 0);
        assert_eq!(off.lobby.max_sockets, 0);
        assert_eq!(off.relay.bytes_per_second, 0);
        assert!(off.ignored.is_empty());
        // The roster is the page's mesh: no more than sixteen, never none.
        let bad = read(&[
            ("PLAYERS_PER_LOBBY", "17"),
            ("LOBBY_MAX_SOCKETS", "lots"),
            ("RELAY_BYTES_PER_SECOND", "-1"),
        ]);
        assert_eq!(bad.lobby, LobbyLimits::default());
        assert_eq!(bad.relay, RelayLimits::default());
        assert_eq!(
            bad.ignored,
            vec![
                "PLAYERS_PER_LOBBY",
                "LOBBY_MAX_SOCKETS",
                "RELAY_BYTES_PER_SECOND"
            ]
        );
        assert_eq!(
            read(&[("PLAYERS_PER_LOBBY", "0")]).ignored,
            ["PLAYERS_PER_LOBBY"]
        );
    }

    #[test]
    fn relay_key_and_lifetime_are_read() {
        let c = read(&[]);
        assert_eq!(c.room.relay_key, None);
        assert_eq!(c.relay, RelayLimits::default());
        let c = read(&[("RELAY_KEY", "s3cret words"), ("RELAY_TTL_SECONDS", "3")]);
        assert_eq!(c.room.relay_key, RelayKey::from_secret("s3cret words"));
        assert_eq!(c.relay.ttl_ms, 3_000);
        assert!(!format!("{c:?}").contains("s3cret"));
        assert_eq!(
            read(&[("RELAY_TTL_SECONDS", "0")]).ignored,
            ["RELAY_TTL_SECONDS"]
        );
    }

    #[test]
    fn empty_stun_list_means_no_stun() {
        assert!(read(&[("STUN_URLS", "")]).stun_urls.is_empty());
    }

    #[test]
    fn defaults_are_the_services_one_set() {
        let c = read(&[]);
        assert_eq!(c.room_ttl_seconds(), defaults::ROOM_TTL_SECONDS);
        assert_eq!(c.lobby, LobbyLimits::default());
        assert_eq!(c.relay, RelayLimits::default());
        assert_eq!(c.turn_ttl_seconds, defaults::TURN_TTL_SECONDS);
        // The per-IP limit is a binding, configured in wrangler.toml.
        let toml = include_str!("../wrangler.toml");
        let production = toml.split("[env.").next().unwrap_or_default();
        let want = format!(
            "simple = {{ limit = {}, period = 60 }}",
            defaults::HTTP_REQUESTS_PER_MINUTE
        );
        assert!(production.contains(&want), "wrangler.toml lacks {want}");
    }

    #[test]
    fn turn_credentials_live_at_most_an_hour() {
        assert_eq!(read(&[("TURN_TTL_SECONDS", "600")]).turn_ttl_seconds, 600);
        let c = read(&[("TURN_TTL_SECONDS", "86400")]);
        assert_eq!(c.turn_ttl_seconds, defaults::TURN_TTL_SECONDS);
        assert_eq!(c.ignored, vec!["TURN_TTL_SECONDS"]);
    }

    #[test]
    fn bad_values_fall_back_and_are_named() {
        let c = read(&[
            ("ROOM_TTL_SECONDS", "ten"),
            ("HELLO_TIMEOUT_SECONDS", "3601"),
            ("TURN_TTL_SECONDS", "999999999"),
            ("LOG_LEVEL", "loud"),
        ]);
        assert_eq!(c.room.ttl_ms, 600_000);
        assert_eq!(c.lobby.hello_timeout_ms, 10_000);
        assert_eq!(c.turn_ttl_seconds, defaults::TURN_TTL_SECONDS);
        assert_eq!(c.log_level, Level::Info);
        assert_eq!(
            c.ignored,
            vec![
                "ROOM_TTL_SECONDS",
                "HELLO_TIMEOUT_SECONDS",
                "TURN_TTL_SECONDS",
                "LOG_LEVEL"
            ]
        );
    }

    #[test]
    fn turn_needs_both_secrets() {
        let both = read(&[("TURN_KEY_ID", "kid"), ("TURN_KEY_API_TOKEN", "tok")]);
        assert_eq!(
            both.turn,
            Some(TurnKey {
                id: "kid".into(),
                api_token: "tok".into()
            })
        );
        let half = read(&[("TURN_KEY_ID", "kid")]);
        assert_eq!(half.turn, None);
        assert_eq!(half.ignored, vec!["TURN_KEY_ID"]);
        let blank = read(&[("TURN_KEY_ID", " "), ("TURN_KEY_API_TOKEN", "")]);
        assert_eq!(blank.turn, None);
        assert!(blank.ignored.is_empty());
    }

    #[test]
    fn debug_output_hides_the_turn_secrets() {
        let c = read(&[
            ("TURN_KEY_ID", "kid-123"),
            ("TURN_KEY_API_TOKEN", "tok-456"),
        ]);
        let text = format!("{c:?}");
        assert!(
            !text.contains("kid-123") && !text.contains("tok-456"),
            "{text}"
        );
    }

    #[test]
    fn turn_key_ids_must_be_url_safe() {
        for id in ["a/b", "../x", "k?x=1", "k#f", "k y", "ké", &"k".repeat(129)] {
            let c = read(&[("TURN_KEY_ID", id), ("TURN_KEY_API_TOKEN", "tok")]);
            assert_eq!(c.turn, None, "{id}");
            assert_eq!(c.ignored, vec!["TURN_KEY_ID"], "{id}");
        }
        let c = read(&[
            ("TURN_KEY_ID", "0123abcdef-_XYZ"),
            ("TURN_KEY_API_TOKEN", "tok"),
        ]);
        assert!(c.turn.is_some());
    }

    #[test]
    fn turn_api_base_accepts_https_and_loopback_http() {
        for (text, origin) in [
            (
                "https://rtc.live.cloudflare.com",
                "https://rtc.live.cloudflare.com",
            ),
            (
                "https://turn-api.example:8443/",
                "https://turn-api.example:8443",
            ),
            (" HTTPS://api.example ", "https://api.example"),
            ("http://127.0.0.1:9000", "http://127.0.0.1:9000"),
            ("http://127.5.6.7", "http://127.5.6.7"),
            ("http://localhost:1234/", "http://localhost:1234"),
            ("http://[::1]:8080", "http://[::1]:8080"),
            ("https://[2001:db8::1]", "https://[2001:db8::1]"),
        ] {
            assert_eq!(api_origin(text).as_deref(), Some(origin), "{text}");
            let c = read(&[("TURN_API_BASE", text)]);
            assert_eq!(c.turn_api_base, origin, "{text}");
            assert!(c.ignored.is_empty(), "{text}");
        }
    }

    #[test]
    fn turn_api_base_refuses_the_rest() {
        for text in [
            "",
            "rtc.live.cloudflare.com",
            "http://rtc.live.cloudflare.com",
            "http://10.0.0.1:9000",
            "http://[::2]:80",
            "http://127.0.0.1.example",
            "ftp://127.0.0.1",
            "https://",
            "https://user:secret@api.example",
            "https://api.example/v1",
            "https://api.example?x=1",
            "https://api.example#f",
            "https://api.example:0",
            "https://api.example:65536",
            "https://api.example:",
            "https://api.example:80:81",
            "https://api example",
            "https://[::1",
            "https://[]",
        ] {
            assert_eq!(api_origin(text), None, "{text}");
            let c = read(&[("TURN_API_BASE", text)]);
            assert_eq!(c.turn_api_base, DEFAULT_TURN_API_BASE, "{text}");
            assert_eq!(c.ignored, vec!["TURN_API_BASE"], "{text}");
            // A refused value is not kept, so not even debug output
            // can show it.
            assert!(!format!("{c:?}").contains("secret"), "{text}");
        }
    }
}
