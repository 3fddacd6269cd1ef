//! The embedded server with a directory of three lobbies: the suite's
//! `lobby_directory` check, alone, on an idle host; and the same check
//! failing against a host with one lobby, where the seventeenth newcomer
//! hears `full`.

use signaling_conformance::{run, SuiteConfig};
use signaling_server::{Config, Server};

async fn directory_check(lobbies: usize) -> Result<Option<String>, String> {
    let config = Config {
        listen: "127.0.0.1:0".parse().unwrap(),
        stun_urls: Vec::new(),
        lobbies,
        ..Config::default()
    };
    let addr = Server::bind(config).await.expect("bind port 0").spawn();
    let suite = SuiteConfig {
        only: vec!["lobby_directory".into()],
        lobbies: 3,
        lobby_sockets_per_ip: signaling_core::defaults::LOBBY_SOCKETS_PER_IP,
        ..SuiteConfig::new(&format!("http://{addr}"))
    };
    let mut results = run(&suite).await.expect("valid base URL");
    assert_eq!(results.len(), 1);
    results.remove(0).outcome
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lobby_directory_places_newcomers() {
    assert_eq!(directory_check(3).await, Ok(None));
    assert!(directory_check(1).await.is_err());
}
