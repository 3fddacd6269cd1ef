//! The embedded server with a daily budget of three upgrades per client
//! address: one address gets its three (refusals not counted), then 429
//! for lobby and room upgrades alike, while another address is let in
//! (the suite's `address_upgrade_allowance` check, alone, on a fresh host).

use signaling_conformance::{run, SuiteConfig};
use signaling_server::{Config, Server};

async fn check(per_ip: u64) -> Result<Option<String>, String> {
    let config = Config {
        listen: "127.0.0.1:0".parse().unwrap(),
        stun_urls: Vec::new(),
        daily_upgrades_per_ip: per_ip,
        ..Config::default()
    };
    let addr = Server::bind(config).await.expect("bind port 0").spawn();
    let suite = SuiteConfig {
        only: vec!["address_upgrade_allowance".into()],
        daily_upgrades_per_ip: 3,
        ..SuiteConfig::new(&format!("http://{addr}"))
    };
    let mut results = run(&suite).await.expect("valid base URL");
    assert_eq!(results.len(), 1);
    results.remove(0).outcome
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn address_upgrade_allowance_refuses_one_address() {
    assert_eq!(check(3).await, Ok(None));
    // A host without the budget fails the same check: it lets the address
    // through past the three it was told of.
    assert!(check(0).await.is_err());
}
