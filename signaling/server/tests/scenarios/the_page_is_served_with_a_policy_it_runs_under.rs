//! The page served with `--static` and its files come with a
//! Content-Security-Policy that lets the page run (its WebAssembly, its own
//! scripts and exactly its inline scripts) and nothing else, no framing,
//! no type sniffing and no referrer; the API answers with a policy that
//! allows nothing. (Stages 50 and 60 run the real page under it.)

use crate::common;

use base64::Engine as _;
use sha2::{Digest, Sha256};
use signaling_server::{Config, Server};

/// One GET; returns the response head as sent (case kept).
async fn head_of(addr: std::net::SocketAddr, path: &str) -> String {
    common::raw_request(addr, &format!("GET {path} HTTP/1.1"))
        .await
        .0
}

fn header<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.lines().find_map(|l| {
        let (n, v) = l.split_once(':')?;
        n.eq_ignore_ascii_case(name).then(|| v.trim())
    })
}

#[tokio::test]
async fn the_page_gets_its_policy_and_the_api_a_closed_one() {
    let dir = std::env::temp_dir().join(format!("sig-csp-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("pkg")).unwrap();
    let inline = "\n  import init from './pkg/game.js';\n  init();\n";
    std::fs::write(
        dir.join("index.html"),
        format!("<!doctype html><script src=\"config.js\"></script><script type=\"module\">{inline}</script>"),
    )
    .unwrap();
    std::fs::write(dir.join("pkg/game.js"), "export default () => {};").unwrap();
    let addr = Server::bind(Config {
        listen: "127.0.0.1:0".parse().unwrap(),
        static_dir: Some(dir.clone()),
        ..Config::default()
    })
    .await
    .expect("bind")
    .spawn();

    let hash = base64::engine::general_purpose::STANDARD.encode(Sha256::digest(inline));
    for path in ["/", "/pkg/game.js"] {
        let head = head_of(addr, path).await;
        assert!(head.starts_with("HTTP/1.1 200"), "{path}: {head}");
        let csp = header(&head, "content-security-policy").expect("a policy");
        let script_src = format!("script-src 'self' 'wasm-unsafe-eval' 'sha256-{hash}';");
        assert!(csp.contains(&script_src), "{path}: {csp}");
        assert!(csp.contains("frame-ancestors 'none'"), "{csp}");
        assert!(csp.contains("object-src 'none'"), "{csp}");
        assert!(!csp.contains("unsafe-inline"), "{csp}");
        assert_eq!(header(&head, "x-content-type-options"), Some("nosniff"));
        assert_eq!(header(&head, "referrer-policy"), Some("no-referrer"));
    }
    let head = head_of(addr, "/health").await;
    assert_eq!(
        header(&head, "content-security-policy"),
        Some(signaling_core::headers::API_POLICY)
    );
    let _ = std::fs::remove_dir_all(&dir);
}
