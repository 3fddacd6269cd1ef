//! A plain HTTP connection kept alive after its requests, and then silent,
//! is closed by the server once it has waited the keep-alive timeout for
//! a next request; a WebSocket on the same server is not HTTP any more and
//! is left to its own timers.

use std::time::{Duration, Instant};

use signaling_core::LobbyLimits;
use signaling_server::{Config, Server};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const KEEP_ALIVE: Duration = Duration::from_millis(300);

async fn start(config: Config) -> std::net::SocketAddr {
    Server::bind(Config {
        listen: "127.0.0.1:0".parse().unwrap(),
        keep_alive_timeout: KEEP_ALIVE,
        ..config
    })
    .await
    .expect("bind")
    .spawn()
}

/// Reads until the server closes the connection (end of stream, or a reset),
/// waiting far longer than any timeout here; the bytes it sent before.
async fn read_until_closed(tcp: &mut TcpStream) -> Vec<u8> {
    let mut got = Vec::new();
    tokio::time::timeout(Duration::from_secs(20), async {
        let mut buf = [0u8; 1024];
        loop {
            match tcp.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => got.extend_from_slice(&buf[..n]),
            }
        }
    })
    .await
    .expect("the server closed the connection");
    got
}

fn count(haystack: &[u8], needle: &[u8]) -> usize {
    haystack
        .windows(needle.len())
        .filter(|w| *w == needle)
        .count()
}

#[tokio::test]
async fn an_idle_keep_alive_connection_is_closed_after_the_timeout() {
    let addr = start(Config::default()).await;
    let mut tcp = TcpStream::connect(addr).await.unwrap();
    // Two requests on one kept-alive connection (HTTP/1.1 keeps it alive
    // unless told otherwise), then silence.
    let sent = Instant::now();
    tcp.write_all(
        b"GET /health HTTP/1.1\r\nHost: x\r\n\r\nGET /health HTTP/1.1\r\nHost: x\r\n\r\n",
    )
    .await
    .unwrap();
    let got = read_until_closed(&mut tcp).await;
    assert_eq!(
        count(&got, b"HTTP/1.1 200"),
        2,
        "both requests answered before the close: {}",
        String::from_utf8_lossy(&got)
    );
    assert!(
        sent.elapsed() >= KEEP_ALIVE,
        "closed {:?} after the requests, before the keep-alive timeout",
        sent.elapsed()
    );
}

#[tokio::test]
async fn a_websocket_outlives_the_keep_alive_timeout() {
    let addr = start(Config {
        lobby: LobbyLimits {
            hello_timeout_ms: 1_500,
            ..LobbyLimits::default()
        },
        close_grace: Duration::from_millis(200),
        ..Config::default()
    })
    .await;
    let mut tcp = TcpStream::connect(addr).await.unwrap();
    tcp.write_all(
        b"GET /lobby/ws HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\
          Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n",
    )
    .await
    .unwrap();
    // The socket says nothing. What ends it must be the lobby's hello
    // timeout, a close frame with 1008, long after the keep-alive timeout:
    // not the connection cut short without one.
    let got = read_until_closed(&mut tcp).await;
    let head_end = got
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("an answer to the upgrade");
    assert!(
        got.starts_with(b"HTTP/1.1 101"),
        "{}",
        String::from_utf8_lossy(&got)
    );
    let frame = &got[head_end + 4..];
    assert!(
        frame.len() >= 4 && frame[0] == 0x88,
        "a close frame after the upgrade, not a cut connection: {frame:?}"
    );
    assert_eq!(u16::from_be_bytes([frame[2], frame[3]]), 1008, "{frame:?}");
}
