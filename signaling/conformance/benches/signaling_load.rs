//! Load figures for the embedded signalling server, printed (never asserted
//! on time): rooms created and paired per second, lobby messages relayed per
//! second, and the 33rd lobby socket refused.
//!
//! `cargo bench -p signaling-conformance --bench signaling_load`
//!
//! It exits with status 1 if the 33rd socket is not refused with 503.
//!
//! Everything runs in one process on loopback: the server on a tokio
//! runtime, the clients on the same runtime, so the figures include the
//! clients' own cost.

use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use serde_json::Value;
use signaling_conformance::client::Target;
use signaling_core::{LobbyLimits, RoomLimits};
use signaling_server::{Config, Server};
use tokio::sync::Barrier;
use tokio_tungstenite::tungstenite::Message;

const ROOM_TASKS: usize = 8;
const ROOMS_PER_TASK: usize = 250;
const PLAYERS: usize = 16;
const SIGNALS_PER_PLAYER: usize = 5_000;
const WINDOW: usize = 250;

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime");
    if let Err(e) = rt.block_on(bench()) {
        eprintln!("signaling_load: {e}");
        std::process::exit(1);
    }
}

async fn start(lobby: LobbyLimits) -> String {
    let config = Config {
        listen: "127.0.0.1:0".parse().expect("literal address"),
        rate_limit_per_minute: 0,
        stun_urls: Vec::new(),
        room: RoomLimits::default(),
        lobby,
        log_level: signaling_core::Level::Error,
        ..Config::default()
    };
    let addr = Server::bind(config).await.expect("bind").spawn();
    format!("http://{addr}")
}

async fn bench() -> Result<(), String> {
    let base = start(LobbyLimits {
        messages_per_minute: 0,
        ..LobbyLimits::default()
    })
    .await;
    let target = Target::parse(&base, Duration::from_secs(30)).expect("base URL");
    println!("signalling load benchmark (embedded server, loopback, 2 worker threads)");

    // -- rooms: POST /rooms, host and guest connect, peer-joined, offer,
    //    answer, done, both closed.
    let t = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..ROOM_TASKS {
        let target = target.clone();
        tasks.push(tokio::spawn(async move {
            for _ in 0..ROOMS_PER_TASK {
                pair_once(&target).await.expect("room pairing");
            }
        }));
    }
    for task in tasks {
        task.await.expect("room task");
    }
    let rooms = ROOM_TASKS * ROOMS_PER_TASK;
    let secs = t.elapsed().as_secs_f64();
    println!(
        "rooms created and paired: {rooms} in {secs:.2} s = {:.0} rooms/s ({ROOM_TASKS} concurrent clients; each: POST, 2 upgrades, peer-joined, offer, answer, done)",
        rooms as f64 / secs
    );

    // -- lobby relay: 16 players, each signals the next one in a ring.
    let (relayed, secs, mut players) = lobby_relay(&target).await;
    println!(
        "lobby signals relayed: {relayed} in {secs:.2} s = {:.0} messages/s ({PLAYERS} players, per-socket rate limit off)",
        relayed as f64 / secs
    );

    // -- capacity: 32 sockets fit, the 33rd is refused. The first player
    //    stays and watches the other 15 leave, so their slots are known to
    //    be free before the next 31 sockets open.
    let mut watcher = players.remove(0);
    for mut ws in players {
        let _ = ws.close(None).await;
    }
    let mut left = 0;
    while left < PLAYERS - 1 {
        let frame = tokio::time::timeout(Duration::from_secs(30), watcher.next()).await;
        match frame {
            Ok(Some(Ok(Message::Text(t)))) => {
                let v: Value = serde_json::from_str(t.as_str()).map_err(|e| e.to_string())?;
                if v["type"] == "left" {
                    left += 1;
                }
            }
            Ok(Some(Ok(_))) => {}
            other => return Err(format!("watcher: {left} players left, then {other:?}")),
        }
    }
    let mut open = Vec::new();
    for i in 2..=32 {
        open.push(
            target
                .ws_ok("/lobby/ws", None)
                .await
                .map_err(|e| format!("lobby socket {i} of 32: {e}"))?,
        );
    }
    match target.ws("/lobby/ws", None).await {
        Err(signaling_conformance::client::WsOpenError::Refused(r)) if r.status == 503 => {
            println!(
                "33rd lobby socket: refused with HTTP {} {}",
                r.status, r.body
            );
            Ok(())
        }
        Err(signaling_conformance::client::WsOpenError::Refused(r)) => Err(format!(
            "33rd lobby socket: refused with HTTP {} instead of 503",
            r.status
        )),
        Ok(_) => Err("33rd lobby socket: accepted".into()),
        Err(signaling_conformance::client::WsOpenError::Other(e)) => {
            Err(format!("33rd lobby socket: {e}"))
        }
    }
}

async fn pair_once(target: &Target) -> Result<(), String> {
    let r = target.http("POST", "/rooms", None).await?;
    let code = r.json()?["code"].as_str().unwrap_or_default().to_owned();
    let mut host = target
        .ws_ok(&format!("/rooms/{code}/ws?role=host"), None)
        .await?;
    let mut guest = target
        .ws_ok(&format!("/rooms/{code}/ws?role=guest"), None)
        .await?;
    host.expect_type("peer-joined").await?;
    host.send(r#"{"type":"offer","sdp":"v=0"}"#).await?;
    guest.expect_type("offer").await?;
    guest.send(r#"{"type":"answer","sdp":"v=0"}"#).await?;
    host.expect_type("answer").await?;
    guest.send(r#"{"type":"done"}"#).await?;
    host.expect_close(1000, "done").await?;
    guest.expect_close(1000, "done").await?;
    Ok(())
}

/// Relays the signals; returns their count, the seconds taken and the 16
/// players' sockets, still open, with nothing left unread.
async fn lobby_relay(target: &Target) -> (usize, f64, Vec<LobbySocket>) {
    let url = format!("ws://{}/lobby/ws", target.authority);
    let ids: Vec<String> = (0..PLAYERS).map(|i| format!("BENCH{i:07}")).collect();
    let mut socks = Vec::new();
    for id in &ids {
        let (mut ws, _) = tokio_tungstenite::connect_async(url.as_str())
            .await
            .expect("lobby socket");
        let hello = format!(r#"{{"type":"hello","id":"{id}","nick":"bench"}}"#);
        ws.send(Message::text(hello)).await.expect("send hello");
        socks.push(ws);
    }
    // Drain welcomes and joined messages: player i sees PLAYERS - 1 - i joins.
    for (i, ws) in socks.iter_mut().enumerate() {
        for _ in 0..(PLAYERS - i) {
            ws.next().await.expect("welcome/joined").expect("frame");
        }
    }
    // Each player sends a window of signals to the next one, then reads the
    // window its predecessor sent, and so on: at most WINDOW signals wait in
    // any socket's outbox, as a real client reading its socket would keep it.
    let barrier = Arc::new(Barrier::new(PLAYERS + 1));
    let mut tasks = Vec::new();
    for (i, mut ws) in socks.into_iter().enumerate() {
        let to = ids[(i + 1) % PLAYERS].clone();
        let barrier = barrier.clone();
        tasks.push(tokio::spawn(async move {
            let msg = format!(
                r#"{{"type":"signal","to":"{to}","data":{{"candidate":"candidate:1 1 udp 2122260223 127.0.0.1 50000 typ host"}}}}"#
            );
            barrier.wait().await;
            for _ in 0..SIGNALS_PER_PLAYER / WINDOW {
                for _ in 0..WINDOW {
                    ws.feed(Message::text(msg.clone())).await.expect("send signal");
                }
                ws.flush().await.expect("flush");
                let mut got = 0;
                while got < WINDOW {
                    match ws.next().await {
                        Some(Ok(Message::Text(t))) => {
                            let v: Value = serde_json::from_str(t.as_str()).expect("JSON");
                            if v["type"] == "signal" {
                                got += 1;
                            }
                        }
                        Some(Ok(_)) => {}
                        other => panic!("lobby socket ended: {other:?}"),
                    }
                }
            }
            ws
        }));
    }
    barrier.wait().await;
    let t = Instant::now();
    let mut done = Vec::new();
    for task in tasks {
        done.push(task.await.expect("player task"));
    }
    let secs = t.elapsed().as_secs_f64();
    (PLAYERS * SIGNALS_PER_PLAYER, secs, done)
}

type LobbySocket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;
