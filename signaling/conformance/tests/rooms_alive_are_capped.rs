//! The embedded server with a cap of three rooms alive at once: three are
//! created, the fourth is refused with 503, and a room that ends gives its
//! place back (the suite's `rooms_alive_cap` check, alone, on a fresh
//! host); a host with the cap off fails the same check.

use signaling_conformance::{run, SuiteConfig};
use signaling_server::{Config, Server};

async fn check(max_rooms: usize) -> Result<Option<String>, String> {
    let config = Config {
        listen: "127.0.0.1:0".parse().unwrap(),
        stun_urls: Vec::new(),
        max_rooms,
        ..Config::default()
    };
    let addr = Server::bind(config).await.expect("bind port 0").spawn();
    let suite = SuiteConfig {
        only: vec!["rooms_alive_cap".into()],
        max_rooms: 3,
        ..SuiteConfig::new(&format!("http://{addr}"))
    };
    let mut results = run(&suite).await.expect("valid base URL");
    assert_eq!(results.len(), 1);
    results.remove(0).outcome
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rooms_alive_are_capped() {
    assert_eq!(check(3).await, Ok(None));
    assert!(check(0).await.is_err());
}
