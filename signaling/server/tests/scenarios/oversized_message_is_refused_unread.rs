//! A WebSocket message longer than the service's message limit is refused
//! with 1009 as soon as its frame header announces the length: the server
//! never buffers more than the limit for one message, so many sockets each
//! announcing a huge message cannot hold the server's memory.

use std::time::Duration;

use signaling_server::{Config, Server};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

#[tokio::test]
async fn a_frame_announcing_64_kib_is_closed_with_1009_before_it_is_sent_whole() {
    let addr = Server::bind(Config {
        listen: "127.0.0.1:0".parse().unwrap(),
        ..Config::default()
    })
    .await
    .expect("bind")
    .spawn();

    let mut tcp = TcpStream::connect(addr).await.expect("connect");
    let upgrade = format!(
        "GET /lobby/ws HTTP/1.1\r\nHost: {addr}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    );
    tcp.write_all(upgrade.as_bytes())
        .await
        .expect("write upgrade");
    let mut head = Vec::new();
    while !head.ends_with(b"\r\n\r\n") {
        let mut byte = [0u8; 1];
        tcp.read_exact(&mut byte)
            .await
            .expect("read the upgrade answer");
        head.push(byte[0]);
    }
    assert!(
        head.starts_with(b"HTTP/1.1 101"),
        "{}",
        String::from_utf8_lossy(&head)
    );

    // A masked text frame announcing 65 536 bytes, of which only the first
    // 9 000 are sent: more than the 8 KiB limit, far less than announced.
    let mut frame = vec![0x81, 0x80 | 127];
    frame.extend_from_slice(&65_536u64.to_be_bytes());
    frame.extend_from_slice(&[1, 2, 3, 4]);
    frame.extend(std::iter::repeat_n(b'a' ^ 1, 9_000));
    tcp.write_all(&frame)
        .await
        .expect("write the partial frame");

    // The server answers with a close frame carrying 1009 without waiting
    // for the other 56 KiB.
    let mut answer = [0u8; 4];
    tokio::time::timeout(Duration::from_secs(5), tcp.read_exact(&mut answer))
        .await
        .expect("the server closes before the message is complete")
        .expect("read the close frame");
    assert_eq!(answer[0], 0x88, "a close frame: {answer:?}");
    assert_eq!(u16::from_be_bytes([answer[2], answer[3]]), 1009);
}
