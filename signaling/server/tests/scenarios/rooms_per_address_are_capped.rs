//! One address cannot fill the room table: past its cap of live rooms,
//! `POST /rooms` from it gets 429, and a room that ends frees a place.

use std::time::Duration;

use signaling_core::RoomLimits;
use signaling_server::{Config, Server};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

async fn post_rooms(addr: std::net::SocketAddr) -> u16 {
    let mut tcp = TcpStream::connect(addr).await.expect("connect");
    tcp.write_all(
        b"POST /rooms HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
    )
    .await
    .expect("write");
    let mut buf = Vec::new();
    tokio::time::timeout(Duration::from_secs(5), tcp.read_to_end(&mut buf))
        .await
        .expect("answer in time")
        .expect("read");
    String::from_utf8_lossy(&buf[9..12])
        .parse()
        .expect("status")
}

#[tokio::test]
async fn the_third_live_room_from_one_address_is_refused_until_one_expires() {
    let addr = Server::bind(Config {
        listen: "127.0.0.1:0".parse().unwrap(),
        max_rooms_per_ip: 2,
        room: RoomLimits {
            ttl_ms: 400,
            ..RoomLimits::default()
        },
        ..Config::default()
    })
    .await
    .expect("bind")
    .spawn();
    assert_eq!(post_rooms(addr).await, 200);
    assert_eq!(post_rooms(addr).await, 200);
    assert_eq!(post_rooms(addr).await, 429);
    // Once the rooms' 400 ms are up they no longer count.
    let t = std::time::Instant::now();
    while post_rooms(addr).await != 200 {
        assert!(t.elapsed() < Duration::from_secs(5), "never allowed again");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
