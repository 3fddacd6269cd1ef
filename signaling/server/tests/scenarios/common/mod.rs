//! What the server's HTTP tests share: one raw request over TCP.
#![allow(dead_code)] // each test file uses a part of this module

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Sends one raw HTTP/1.1 request whose first lines are `head` (Host and
/// `Connection: close` are added) and returns the response head as sent
/// (case kept) and its body.
pub async fn raw_request(addr: std::net::SocketAddr, head: &str) -> (String, Vec<u8>) {
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
    (
        String::from_utf8_lossy(&buf[..split]).into_owned(),
        buf[split + 4..].to_vec(),
    )
}
