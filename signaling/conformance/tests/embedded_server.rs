//! The conformance suite against the embedded server, started in-process on
//! port 0 with shortened timers.

use std::time::Duration;

use signaling_conformance::{run, SuiteConfig};
use signaling_core::{AllowedOrigins, LobbyLimits, RelayLimits, RoomLimits};
use signaling_server::{Config, Server};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn embedded_server_passes_the_conformance_suite() {
    let config = Config {
        listen: "127.0.0.1:0".parse().unwrap(),
        allowed_origins: AllowedOrigins::parse("http://good.test"),
        rate_limit_per_minute: 600,
        stun_urls: Vec::new(),
        room: RoomLimits {
            ttl_ms: 5_000,
            ..RoomLimits::default()
        },
        lobby: LobbyLimits {
            hello_timeout_ms: 1_000,
            idle_timeout_ms: 3_000,
            max_sockets_per_address: 4,
            ..LobbyLimits::default()
        },
        relay: RelayLimits {
            ttl_ms: 3_000,
            ..RelayLimits::default()
        },
        ..Config::default()
    };
    let addr = Server::bind(config).await.expect("bind port 0").spawn();
    let suite = SuiteConfig {
        origin: Some("http://good.test".into()),
        forbidden_origin: Some("http://evil.test".into()),
        room_ttl_seconds: 5,
        hello_timeout: Duration::from_millis(1_000),
        rate_limit_per_minute: 600,
        lobby_idle_timeout: Some(Duration::from_millis(3_000)),
        lobby_sockets_per_ip: 4,
        rooms_per_ip: signaling_core::defaults::MAX_ROOMS_PER_IP,
        relay_ttl_seconds: 3,
        ..SuiteConfig::new(&format!("http://{addr}"))
    };
    let results = run(&suite).await.expect("valid base URL");
    let mut failures = Vec::new();
    for r in &results {
        eprintln!("{:<24} {:?} ({:?})", r.name, r.outcome, r.elapsed);
        match &r.outcome {
            Ok(None) => {}
            // These spend a day's budget or fill a lobby or the rooms: each
            // runs alone, by its own test.
            Ok(Some(_))
                if matches!(
                    r.name,
                    "daily_budget"
                        | "address_upgrade_allowance"
                        | "lobby_directory"
                        | "rooms_alive_cap"
                ) => {}
            Ok(Some(why)) => failures.push(format!("{} skipped: {why}", r.name)),
            Err(e) => failures.push(format!("{}: {e}", r.name)),
        }
    }
    assert_eq!(results.len(), signaling_conformance::CHECKS.len());
    assert!(failures.is_empty(), "{failures:#?}");
}

/// The lobby's size and its socket cap are the host's settings, not fixed
/// numbers: a server of five players and nine sockets is full at the sixth
/// hello and refuses the tenth socket.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_smaller_lobby_is_full_at_its_own_size() {
    let config = Config {
        listen: "127.0.0.1:0".parse().unwrap(),
        allowed_origins: AllowedOrigins::parse("http://good.test"),
        stun_urls: Vec::new(),
        lobby: LobbyLimits {
            max_players: 5,
            max_sockets: 9,
            ..LobbyLimits::default()
        },
        ..Config::default()
    };
    let addr = Server::bind(config).await.expect("bind port 0").spawn();
    let suite = SuiteConfig {
        origin: Some("http://good.test".into()),
        players_per_lobby: 5,
        lobby_max_sockets: 9,
        only: vec!["lobby_full_and_busy".into()],
        ..SuiteConfig::new(&format!("http://{addr}"))
    };
    let results = run(&suite).await.expect("valid base URL");
    assert_eq!(results.len(), 1);
    assert!(
        matches!(results[0].outcome, Ok(None)),
        "{:?}",
        results[0].outcome
    );
    // The same check told the defaults (16 players, 32 sockets) fails on
    // this server: it reads the host's settings rather than assuming them.
    let wrong = SuiteConfig {
        origin: Some("http://good.test".into()),
        only: vec!["lobby_full_and_busy".into()],
        ..SuiteConfig::new(&format!("http://{addr}"))
    };
    let results = run(&wrong).await.expect("valid base URL");
    assert!(results[0].outcome.is_err(), "{:?}", results[0].outcome);
}
