//! The embedded server bounds what idle or greedy connections can hold: a
//! connection that does not finish its headers in time is cut, and
//! connections over the per-address cap are closed unanswered until others
//! go.

use std::time::Duration;

use signaling_server::{Config, Server};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

async fn start(config: Config) -> std::net::SocketAddr {
    Server::bind(Config {
        listen: "127.0.0.1:0".parse().unwrap(),
        ..config
    })
    .await
    .expect("bind")
    .spawn()
}

/// Reads until the server closes; the bytes it sent before closing.
async fn read_until_closed(tcp: &mut TcpStream, within: Duration) -> Vec<u8> {
    let mut got = Vec::new();
    tokio::time::timeout(within, async {
        let mut buf = [0u8; 1024];
        loop {
            match tcp.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => got.extend_from_slice(&buf[..n]),
            }
        }
    })
    .await
    .expect("the server closed the connection in time");
    got
}

async fn health(tcp: &mut TcpStream) -> Vec<u8> {
    tcp.write_all(b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .await
        .expect("write");
    read_until_closed(tcp, Duration::from_secs(5)).await
}

#[tokio::test]
async fn slow_headers_are_cut_at_the_deadline() {
    let addr = start(Config {
        header_timeout: Duration::from_millis(300),
        ..Config::default()
    })
    .await;
    let mut tcp = TcpStream::connect(addr).await.unwrap();
    tcp.write_all(b"GET /health HTTP/1.1\r\nHost: x\r\n")
        .await
        .unwrap();
    // Never finishes the header block: cut well before the 30 s a client
    // could hold it otherwise.
    let got = read_until_closed(&mut tcp, Duration::from_secs(5)).await;
    assert!(
        !got.starts_with(b"HTTP/1.1 200"),
        "{}",
        String::from_utf8_lossy(&got)
    );
    // Prompt headers are still served.
    let mut ok = TcpStream::connect(addr).await.unwrap();
    assert!(health(&mut ok).await.starts_with(b"HTTP/1.1 200"));
}

#[tokio::test]
async fn connections_over_the_per_address_cap_are_closed_until_others_go() {
    let addr = start(Config {
        max_connections_per_ip: 2,
        ..Config::default()
    })
    .await;
    let first = TcpStream::connect(addr).await.unwrap();
    let _second = TcpStream::connect(addr).await.unwrap();
    // The third from 127.0.0.1 is closed without an answer.
    let mut third = TcpStream::connect(addr).await.unwrap();
    let got = health(&mut third).await;
    assert!(got.is_empty(), "{}", String::from_utf8_lossy(&got));
    // Once one goes, a new one is served.
    drop(first);
    let t = std::time::Instant::now();
    loop {
        let mut next = TcpStream::connect(addr).await.unwrap();
        if health(&mut next).await.starts_with(b"HTTP/1.1 200") {
            break;
        }
        assert!(t.elapsed() < Duration::from_secs(5), "never served again");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
