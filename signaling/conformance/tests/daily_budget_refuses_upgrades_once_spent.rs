//! The embedded server with a daily budget of five upgrades: the five go
//! through, then every upgrade is refused with 503 while plain routes
//! still answer (the suite's `daily_budget` check, alone, on a fresh host).

use signaling_conformance::{run, SuiteConfig};
use signaling_server::{Config, Server};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn daily_budget_refuses_upgrades_once_spent() {
    let config = Config {
        listen: "127.0.0.1:0".parse().unwrap(),
        stun_urls: Vec::new(),
        daily_upgrades: 5,
        ..Config::default()
    };
    let addr = Server::bind(config).await.expect("bind port 0").spawn();
    let suite = SuiteConfig {
        only: vec!["daily_budget".into()],
        daily_upgrades: 5,
        ..SuiteConfig::new(&format!("http://{addr}"))
    };
    let results = run(&suite).await.expect("valid base URL");
    assert_eq!(results.len(), 1);
    assert!(
        matches!(results[0].outcome, Ok(None)),
        "{:?}",
        results[0].outcome
    );

    // Against a host without a budget the same check fails: it is told of
    // a budget the host does not keep.
    let open = Server::bind(Config {
        listen: "127.0.0.1:0".parse().unwrap(),
        stun_urls: Vec::new(),
        ..Config::default()
    })
    .await
    .expect("bind port 0")
    .spawn();
    let results = run(&SuiteConfig {
        base_url: format!("http://{open}"),
        ..suite
    })
    .await
    .expect("valid base URL");
    assert!(results[0].outcome.is_err(), "{:?}", results[0].outcome);
}
