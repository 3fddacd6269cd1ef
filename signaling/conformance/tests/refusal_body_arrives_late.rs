//! A refused upgrade whose body does not come with its headers (as through
//! wrangler dev's proxy) is still read in full: the client asks again.

use std::time::Duration;

use signaling_conformance::client::{Target, WsOpenError};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

#[tokio::test]
async fn refusal_body_is_fetched_again_when_missing() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = tokio::spawn(async move {
        let body = r#"{"error":"room not found"}"#;
        // First connection: headers only, then hang up before the body.
        // Second connection: the whole answer.
        for full in [false, true] {
            let (mut tcp, _) = listener.accept().await.unwrap();
            let mut buf = vec![0u8; 4096];
            let mut got = 0;
            while !buf[..got].windows(4).any(|w| w == b"\r\n\r\n") {
                got += tcp.read(&mut buf[got..]).await.unwrap();
            }
            let req = String::from_utf8_lossy(&buf[..got]).to_lowercase();
            assert!(req.contains("upgrade: websocket") && req.contains("sec-websocket-key"));
            assert!(req.contains("origin: http://o.test"));
            let head = format!(
                "HTTP/1.1 404 Not Found\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                body.len()
            );
            tcp.write_all(head.as_bytes()).await.unwrap();
            if full {
                tcp.write_all(body.as_bytes()).await.unwrap();
            }
            tcp.shutdown().await.unwrap();
        }
    });
    let target = Target::parse(&format!("http://{addr}"), Duration::from_secs(10)).unwrap();
    match target
        .ws("/rooms/ABCDEF/ws?role=host", Some("http://o.test"))
        .await
    {
        Err(WsOpenError::Refused(r)) => {
            assert_eq!(r.status, 404);
            assert_eq!(r.body, r#"{"error":"room not found"}"#);
        }
        Err(WsOpenError::Other(e)) => panic!("{e}"),
        Ok(_) => panic!("upgrade should have been refused"),
    }
    server.await.unwrap();
}
