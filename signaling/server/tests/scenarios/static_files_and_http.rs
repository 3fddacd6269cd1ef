//! The parts of the embedded server the conformance suite does not cover:
//! static files, preflights, unknown routes, TURN in /ice, the CLI.

use std::time::Duration;

use crate::common;

use signaling_core::AllowedOrigins;
use signaling_server::{Config, Server, TurnConfig};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// One raw HTTP/1.1 request (Connection: close); returns status line,
/// headers (lower-cased) and body.
async fn request(addr: std::net::SocketAddr, head: &str) -> (u16, String, Vec<u8>) {
    let (head, body) = common::raw_request(addr, head).await;
    let head = head.to_lowercase();
    let status = head[9..12].parse().expect("status code");
    (status, head, body)
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

/// A WebSocket upgrade request for `path` over raw TCP; the status and body
/// of the answer (101 when accepted; the socket is then dropped).
async fn upgrade(addr: std::net::SocketAddr, path: &str) -> (u16, Vec<u8>) {
    let fut = async {
        let mut tcp = TcpStream::connect(addr).await.expect("connect");
        let req = format!(
            "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\
             Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
        );
        tcp.write_all(req.as_bytes()).await.expect("write");
        let mut buf = Vec::new();
        let mut chunk = [0u8; 4096];
        loop {
            let n = tcp.read(&mut chunk).await.expect("read");
            buf.extend_from_slice(&chunk[..n]);
            if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                let head = String::from_utf8_lossy(&buf[..end]).to_lowercase();
                let status: u16 = head[9..12].parse().expect("status code");
                if status == 101 {
                    return (status, Vec::new());
                }
                let len: usize = head
                    .lines()
                    .find_map(|l| l.strip_prefix("content-length: "))
                    .and_then(|v| v.trim().parse().ok())
                    .expect("content-length");
                while buf.len() < end + 4 + len {
                    let n = tcp.read(&mut chunk).await.expect("read");
                    assert!(n > 0, "body cut short");
                    buf.extend_from_slice(&chunk[..n]);
                }
                return (status, buf[end + 4..end + 4 + len].to_vec());
            }
            assert!(n > 0, "no answer");
        }
    };
    tokio::time::timeout(Duration::from_secs(10), fut)
        .await
        .expect("answer in time")
}

fn error_text(body: &[u8]) -> String {
    let v: serde_json::Value = serde_json::from_slice(body)
        .unwrap_or_else(|_| panic!("not JSON: {:?}", String::from_utf8_lossy(body)));
    v["error"].as_str().expect("an error field").to_owned()
}

async fn room_code(addr: std::net::SocketAddr) -> String {
    let (s, _, body) = request(addr, "POST /rooms HTTP/1.1\r\nContent-Length: 0").await;
    assert_eq!(s, 200);
    let v: serde_json::Value = serde_json::from_slice(&body).unwrap();
    v["code"].as_str().unwrap().to_owned()
}

fn static_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("sig-{name}-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("pkg")).unwrap();
    std::fs::write(dir.join("index.html"), "<!doctype html><title>t</title>").unwrap();
    std::fs::write(dir.join("pkg/game.js"), "export {};").unwrap();
    std::fs::write(dir.join("pkg/game_bg.wasm"), b"\0asm\x01\0\0\0").unwrap();
    dir
}

#[tokio::test]
async fn static_fallback_errors_are_json() {
    let dir = static_dir("errors");
    let addr = start(Config {
        static_dir: Some(dir.clone()),
        ..Config::default()
    })
    .await;
    // The page's files still come with their types.
    let (s, h, _) = request(addr, "GET /pkg/game.js HTTP/1.1").await;
    assert_eq!(s, 200);
    assert!(h.contains("content-type: text/javascript"), "{h}");
    let (s, h, _) = request(addr, "GET /index.html HTTP/1.1").await;
    assert!(s == 200 && h.contains("content-type: text/html"), "{s} {h}");
    // A missing file and a wrong method on a file: JSON, as every route.
    let (s, h, body) = request(addr, "GET /missing.js HTTP/1.1").await;
    assert_eq!(s, 404);
    assert!(h.contains("content-type: application/json"), "{h}");
    assert_eq!(error_text(&body), "not found");
    let (s, h, body) = request(addr, "DELETE /index.html HTTP/1.1").await;
    assert_eq!(s, 405);
    assert!(h.contains("content-type: application/json"), "{h}");
    assert!(
        h.contains("allow: get,head") || h.contains("allow: get, head"),
        "{h}"
    );
    assert_eq!(error_text(&body), "method not allowed on this route");
    std::fs::remove_dir_all(dir).unwrap();
}

#[tokio::test]
async fn static_files_pass_the_origin_check_and_the_rate_limit() {
    let dir = static_dir("guarded");
    let addr = start(Config {
        static_dir: Some(dir.clone()),
        allowed_origins: AllowedOrigins::parse("https://game.example"),
        rate_limit_per_minute: 5,
        ..Config::default()
    })
    .await;
    let (s, _, body) = request(
        addr,
        "GET /pkg/game.js HTTP/1.1\r\nOrigin: https://evil.example",
    )
    .await;
    assert_eq!((s, error_text(&body).as_str()), (403, "origin not allowed"));
    let (s, _, body) = request(
        addr,
        "GET /missing HTTP/1.1\r\nOrigin: https://evil.example",
    )
    .await;
    assert_eq!((s, error_text(&body).as_str()), (403, "origin not allowed"));
    // Five requests a minute from this address, files or not.
    for path in [
        "/",
        "/pkg/game.js",
        "/pkg/game_bg.wasm",
        "/missing",
        "/health",
    ] {
        let (s, _, _) = request(addr, &format!("GET {path} HTTP/1.1")).await;
        assert_ne!(s, 429, "{path}");
    }
    let (s, h, body) = request(
        addr,
        "GET /pkg/game.js HTTP/1.1\r\nOrigin: https://game.example",
    )
    .await;
    assert_eq!(s, 429);
    assert_eq!(error_text(&body), "too many requests; slow down");
    // The page may read why: the 429 carries the CORS header.
    assert!(
        h.contains("access-control-allow-origin: https://game.example"),
        "{h}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[tokio::test]
async fn room_urls_are_read_as_the_worker_reads_them() {
    let addr = start(Config::default()).await;
    let code = room_code(addr).await;
    // A repeated role: the first one counts.
    let (s, body) = upgrade(addr, &format!("/rooms/{code}/ws?role=host&role=spectator")).await;
    assert_eq!(s, 101, "{}", String::from_utf8_lossy(&body));
    let (s, body) = upgrade(addr, &format!("/rooms/{code}/ws?role=spectator&role=guest")).await;
    assert_eq!(s, 400);
    assert!(error_text(&body).contains("role"));
    // Not decoded, and a malformed escape is just another unknown role.
    for query in ["role=gu%65st", "role=%ZZ", "role=%FF", "role"] {
        let (s, body) = upgrade(addr, &format!("/rooms/{code}/ws?{query}")).await;
        assert_eq!(s, 400, "{query}");
        error_text(&body);
    }
    let (s, body) = upgrade(addr, &format!("/rooms/{code}/ws?role=guest&x=%ZZ&x")).await;
    assert_eq!(s, 101, "{}", String::from_utf8_lossy(&body));
    // A code that is not valid UTF-8 once decoded, or an escaped code: 404.
    for path in [
        "/rooms/%FF/ws?role=host",
        &format!(
            "/rooms/%{:X}{}/ws?role=host",
            code.as_bytes()[0],
            &code[1..]
        ),
    ] {
        let (s, body) = upgrade(addr, path).await;
        assert_eq!(
            (s, error_text(&body).as_str()),
            (404, "room not found"),
            "{path}"
        );
    }
    // Role before code, as the Worker checks them.
    let (s, body) = upgrade(addr, "/rooms/%FF/ws?role=x").await;
    assert_eq!(s, 400);
    error_text(&body);
}

#[tokio::test]
async fn messages_over_the_read_cap_close_with_1009() {
    use futures_util::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::Message;
    let addr = start(Config::default()).await;
    // 100 KiB is read and refused by the lobby; 2 MiB is over the 1 MiB the
    // server reads at all. Both get 1009, and the socket's slot is freed.
    for len in [100 * 1024, 2 * 1024 * 1024] {
        let (mut ws, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/lobby/ws"))
            .await
            .expect("lobby upgrade");
        let text = format!(r#"{{"type":"hello","pad":"{}"}}"#, "x".repeat(len));
        ws.send(Message::text(text)).await.expect("send");
        let close = tokio::time::timeout(Duration::from_secs(10), async {
            loop {
                match ws.next().await {
                    Some(Ok(Message::Close(frame))) => break frame.map(|f| u16::from(f.code)),
                    Some(Ok(_)) => continue,
                    other => panic!("{len} bytes: no close frame but {other:?}"),
                }
            }
        })
        .await
        .expect("a close in time");
        assert_eq!(close, Some(1009), "{len} bytes");
    }
}

#[test]
fn startup_failures_are_json_log_lines() {
    let exe = env!("CARGO_BIN_EXE_signaling-server");
    let missing = std::env::temp_dir().join(format!("sig-none-{}", std::process::id()));
    let out = std::process::Command::new(exe)
        .args(["--listen", "127.0.0.1:0", "--static"])
        .arg(&missing)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let line: serde_json::Value = serde_json::from_slice(&out.stderr).expect("one JSON line");
    assert_eq!(line["level"], "error");
    assert_eq!(line["event"], "server.static_dir_missing");

    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port();
    let out = std::process::Command::new(exe)
        .args(["--listen", &format!("127.0.0.1:{port}")])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty(), "no listening line");
    let line: serde_json::Value = serde_json::from_slice(&out.stderr).expect("one JSON line");
    assert_eq!(line["level"], "error");
    assert_eq!(line["event"], "server.bind_failed");
    assert_eq!(line["io_error"], "addr_in_use");
    assert!(!String::from_utf8_lossy(&out.stderr).contains("127.0.0.1"));
}
