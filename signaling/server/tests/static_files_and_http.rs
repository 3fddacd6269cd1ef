//! The parts of the embedded server the conformance suite does not cover:
//! static files, preflights, unknown routes, TURN in /ice, the CLI.

use std::time::Duration;

use signaling_core::AllowedOrigins;
use signaling_server::{Config, Server, TurnConfig};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// One raw HTTP/1.1 request (Connection: close); returns status line,
/// headers (lower-cased) and body.
async fn request(addr: std::net::SocketAddr, head: &str) -> (u16, String, Vec<u8>) {
    let fut = async {
        let mut tcp = TcpStream::connect(addr).await.expect("connect");
        let req = format!("{head}\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
        tcp.write_all(req.as_bytes()).await.expect("write");
        let mut buf = Vec::new();
        tcp.read_to_end(&mut buf).await.expect("read");
        buf
    };
    let buf = tokio::time::timeout(Duration::from_secs(10), fut)
        .await
        .expect("answer in time");
    let split = buf
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("header end");
    let head = String::from_utf8_lossy(&buf[..split]).to_lowercase();
    let status = head[9..12].parse().expect("status code");
    (status, head, buf[split + 4..].to_vec())
}

async fn start(config: Config) -> std::net::SocketAddr {
    Server::bind(Config {
        listen: "127.0.0.1:0".parse().unwrap(),
        ..config
    })
    .await
    .expect("bind")
    .spawn()
}

#[tokio::test]
async fn serves_static_files_next_to_the_routes() {
    let dir = std::env::temp_dir().join(format!("sig-static-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("pkg")).unwrap();
    std::fs::write(dir.join("index.html"), "<!doctype html><title>t</title>").unwrap();
    std::fs::write(dir.join("pkg/game_bg.wasm"), b"\0asm\x01\0\0\0").unwrap();
    let addr = start(Config {
        static_dir: Some(dir.clone()),
        ..Config::default()
    })
    .await;

    let (s, h, body) = request(addr, "GET / HTTP/1.1").await;
    assert_eq!(s, 200);
    assert!(h.contains("content-type: text/html"), "{h}");
    assert_eq!(body, b"<!doctype html><title>t</title>");
    let (s, h, body) = request(addr, "GET /pkg/game_bg.wasm HTTP/1.1").await;
    assert_eq!(s, 200);
    assert!(h.contains("content-type: application/wasm"), "{h}");
    assert_eq!(body, b"\0asm\x01\0\0\0");
    let (s, _, _) = request(addr, "GET /missing.js HTTP/1.1").await;
    assert_eq!(s, 404);
    // No escaping the folder.
    for path in [
        "/../Cargo.toml",
        "/pkg/../../Cargo.toml",
        "/%2e%2e/Cargo.toml",
    ] {
        let (s, _, body) = request(addr, &format!("GET {path} HTTP/1.1")).await;
        assert!(s == 404 || s == 400, "{path}: {s}");
        assert!(
            !String::from_utf8_lossy(&body).contains("[package]"),
            "{path}"
        );
    }
    // The routes still win over the folder.
    let (s, _, body) = request(addr, "GET /health HTTP/1.1").await;
    assert_eq!((s, body.as_slice()), (200, &br#"{"ok":true}"#[..]));
    std::fs::remove_dir_all(dir).unwrap();
}

#[tokio::test]
async fn unknown_routes_and_plain_gets_get_json_errors() {
    let addr = start(Config::default()).await;
    let (s, h, body) = request(addr, "GET /nope HTTP/1.1").await;
    assert_eq!(s, 404);
    assert!(h.contains("content-type: application/json"));
    let v: serde_json::Value = serde_json::from_slice(&body).unwrap();
    assert!(v["error"].is_string());
    // A known route with the wrong method: 405, still JSON, with Allow.
    let (s, h, body) = request(addr, "GET /rooms HTTP/1.1").await;
    assert_eq!(s, 405);
    assert!(h.contains("allow: post"), "{h}");
    assert!(serde_json::from_slice::<serde_json::Value>(&body).unwrap()["error"].is_string());
    // A lobby GET that is not an upgrade.
    let (s, _, body) = request(addr, "GET /lobby/ws HTTP/1.1").await;
    assert_eq!(s, 426);
    assert!(serde_json::from_slice::<serde_json::Value>(&body).unwrap()["error"].is_string());
}

#[tokio::test]
async fn preflight_and_cors_for_allowed_origins_only() {
    let addr = start(Config {
        allowed_origins: AllowedOrigins::parse("https://game.example"),
        ..Config::default()
    })
    .await;
    let (s, h, _) = request(addr, "OPTIONS /rooms HTTP/1.1\r\nOrigin: https://game.example\r\nAccess-Control-Request-Method: POST").await;
    assert_eq!(s, 204);
    assert!(
        h.contains("access-control-allow-origin: https://game.example"),
        "{h}"
    );
    assert!(
        h.contains("access-control-allow-methods: get, post, options"),
        "{h}"
    );
    let (s, h, _) = request(
        addr,
        "OPTIONS /rooms HTTP/1.1\r\nOrigin: https://evil.example",
    )
    .await;
    assert_eq!(s, 403);
    assert!(!h.contains("access-control-allow-origin"));
    let (s, _, body) = request(
        addr,
        "POST /rooms HTTP/1.1\r\nOrigin: https://game.example\r\nContent-Length: 0",
    )
    .await;
    assert_eq!(s, 200);
    let v: serde_json::Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(v["ttl"], 600);
}

#[tokio::test]
async fn ice_lists_stun_and_turn_when_configured() {
    let addr = start(Config {
        stun_urls: vec!["stun:a.example:3478".into(), "stun:b.example:3478".into()],
        turn: Some(TurnConfig {
            urls: vec!["turn:t.example:3478?transport=udp".into()],
            shared_secret: "s3cret".into(),
            ttl_seconds: 600,
        }),
        ..Config::default()
    })
    .await;
    let (s, _, body) = request(addr, "GET /ice HTTP/1.1").await;
    assert_eq!(s, 200);
    let v: serde_json::Value = serde_json::from_slice(&body).unwrap();
    let servers = v["iceServers"].as_array().unwrap();
    assert_eq!(
        servers[0]["urls"],
        serde_json::json!(["stun:a.example:3478", "stun:b.example:3478"])
    );
    assert_eq!(servers[1]["urls"][0], "turn:t.example:3478?transport=udp");
    let user = servers[1]["username"].as_str().unwrap();
    let expiry: u64 = user.split(':').next().unwrap().parse().unwrap();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    assert!(expiry > now && expiry <= now + 601, "{expiry} vs {now}");
    assert_eq!(
        servers[1]["credential"].as_str().unwrap().len(),
        28,
        "base64 of 20 bytes"
    );
    assert!(!String::from_utf8_lossy(&body).contains("s3cret"));

    let none = start(Config {
        stun_urls: Vec::new(),
        ..Config::default()
    })
    .await;
    let (_, _, body) = request(none, "GET /ice HTTP/1.1").await;
    assert_eq!(body, br#"{"iceServers":[]}"#);
}

#[test]
fn binary_prints_its_address_first_and_documents_every_flag() {
    let exe = env!("CARGO_BIN_EXE_signaling-server");
    let help = std::process::Command::new(exe)
        .arg("--help")
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    for flag in [
        "--listen",
        "--allowed-origins",
        "--room-ttl-seconds",
        "--rate-limit-per-minute",
        "--stun-urls",
        "--static",
        "--hello-timeout-ms",
        "--log-level",
        "TURN_URLS",
        "TURN_SHARED_SECRET",
    ] {
        assert!(help.contains(flag), "--help lacks {flag}");
    }
    let mut child = std::process::Command::new(exe)
        .args(["--listen", "127.0.0.1:0", "--stun-urls", ""])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(child.stdout.take().unwrap()),
        &mut line,
    )
    .unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
    let addr = line
        .trim()
        .strip_prefix("listening on http://127.0.0.1:")
        .expect(&line);
    assert!(addr.parse::<u16>().unwrap() > 0);
}

#[tokio::test]
async fn a_client_that_never_answers_our_close_is_cut_off() {
    let addr = start(Config {
        lobby: signaling_core::LobbyLimits {
            hello_timeout_ms: 100,
            ..Default::default()
        },
        close_grace: Duration::from_millis(200),
        ..Config::default()
    })
    .await;
    let mut tcp = TcpStream::connect(addr).await.unwrap();
    let req = format!(
        "GET /lobby/ws HTTP/1.1\r\nHost: {addr}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\
         Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
    );
    tcp.write_all(req.as_bytes()).await.unwrap();
    // Read everything until the server hangs up; we never send a byte more.
    let mut buf = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), tcp.read_to_end(&mut buf))
        .await
        .expect("the server cuts the connection")
        .unwrap();
    let split = buf
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("101 headers")
        + 4;
    assert!(
        buf.starts_with(b"HTTP/1.1 101"),
        "{}",
        String::from_utf8_lossy(&buf)
    );
    let frame = &buf[split..];
    // An unmasked close frame with code 1008 ("no hello in time").
    assert_eq!(frame[0], 0x88, "close frame");
    assert_eq!(u16::from_be_bytes([frame[2], frame[3]]), 1008);
}
