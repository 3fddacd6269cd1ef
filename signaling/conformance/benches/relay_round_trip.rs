//! The match relay's added round trip on loopback, printed (never asserted
//! on time).
//!
//! `cargo bench -p signaling-conformance --bench relay_round_trip`
//!
//! Two clients get their tickets from a room of the embedded server and
//! pair on its relay; one sends a 64-byte binary frame (about a lock-step
//! input packet with its channel byte), the other sends it straight back,
//! and the first times the round trip. The baseline is the same ping-pong
//! over one direct WebSocket to an echo task: the difference is what the
//! relay adds (two extra hops through the server and its bookkeeping).
//! Everything runs in one process on one 2-thread tokio runtime, so the
//! figures include the clients' own cost.

use std::time::{Duration, Instant};

use signaling_conformance::client::{Target, Ws};
use signaling_server::{Config, Server};
use tokio::net::TcpListener;

const WARM_UP: usize = 200;
const PINGS: usize = 5_000;

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime");
    if let Err(e) = rt.block_on(bench()) {
        eprintln!("relay_round_trip: {e}");
        std::process::exit(1);
    }
}

async fn bench() -> Result<(), String> {
    let addr = Server::bind(Config {
        listen: "127.0.0.1:0".parse().expect("literal address"),
        rate_limit_per_minute: 0,
        stun_urls: Vec::new(),
        log_level: signaling_core::Level::Error,
        // Back-to-back pings send far more than a match's bytes per
        // second; the rate cap would end the relay, so it is off here.
        relay: signaling_core::RelayLimits {
            bytes_per_second: 0,
            ..signaling_core::RelayLimits::default()
        },
        ..Config::default()
    })
    .await
    .map_err(|e| format!("bind: {e}"))?
    .spawn();
    let target = Target::parse(&format!("http://{addr}"), Duration::from_secs(10))?;

    // Relayed: tickets from a room, then both sides on the relay.
    let room = target.http("POST", "/rooms", None).await?.json()?;
    let code = room["code"].as_str().ok_or("no room code")?.to_owned();
    let mut room_host = target
        .ws_ok(&format!("/rooms/{code}/ws?role=host"), None)
        .await?;
    let mut room_guest = target
        .ws_ok(&format!("/rooms/{code}/ws?role=guest"), None)
        .await?;
    room_host.expect_type("peer-joined").await?;
    let mut relay = Vec::new();
    for ws in [&mut room_host, &mut room_guest] {
        ws.send(r#"{"type":"relay-ticket"}"#).await?;
        let t = ws.expect_type("relay-ticket").await?;
        let ticket = t["ticket"].as_str().ok_or("no ticket")?.to_owned();
        relay.push(
            target
                .ws_ok(&format!("/relay/{code}/ws?ticket={ticket}"), None)
                .await?,
        );
    }
    let (mut a, mut b) = {
        let mut it = relay.into_iter();
        (it.next().ok_or("host")?, it.next().ok_or("guest")?)
    };
    a.expect_type("paired").await?;
    b.expect_type("paired").await?;
    let echo = tokio::spawn(async move {
        while let Ok(frame) = b.binary().await {
            if b.send_binary(frame).await.is_err() {
                break;
            }
        }
    });
    let relayed = ping_pong(&mut a).await?;
    a.close().await;
    let _ = echo.await;

    // Direct: the same ping-pong over one WebSocket to an echo task.
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(|e| format!("bind echo: {e}"))?;
    let echo_addr = listener.local_addr().map_err(|e| e.to_string())?;
    tokio::spawn(async move {
        use futures_util::{SinkExt, StreamExt};
        if let Ok((tcp, _)) = listener.accept().await {
            let _ = tcp.set_nodelay(true);
            if let Ok(mut ws) = tokio_tungstenite::accept_async(tcp).await {
                while let Some(Ok(msg)) = ws.next().await {
                    if msg.is_binary() && ws.send(msg).await.is_err() {
                        break;
                    }
                }
            }
        }
    });
    let echo_target = Target::parse(&format!("http://{echo_addr}"), Duration::from_secs(10))?;
    let mut d = echo_target.ws_ok("/echo", None).await?;
    let direct = ping_pong(&mut d).await?;
    d.close().await;

    println!(
        "relay round trip on loopback, {PINGS} pings of 64 bytes (after {WARM_UP} to warm up):"
    );
    for (name, s) in [
        ("direct WebSocket", &direct),
        ("through the relay", &relayed),
    ] {
        println!(
            "  {name:<18} median {:>7.1} µs   p90 {:>7.1} µs   p99 {:>7.1} µs",
            s.median, s.p90, s.p99
        );
    }
    println!(
        "  added by the relay: median {:.1} µs, p99 {:.1} µs",
        relayed.median - direct.median,
        relayed.p99 - direct.p99
    );
    Ok(())
}

struct Stats {
    median: f64,
    p90: f64,
    p99: f64,
}

async fn ping_pong(ws: &mut Ws) -> Result<Stats, String> {
    let mut times = Vec::with_capacity(PINGS);
    for i in 0..(WARM_UP + PINGS) {
        let mut frame = vec![1u8; 64];
        frame[1..9].copy_from_slice(&(i as u64).to_le_bytes());
        let t = Instant::now();
        ws.send_binary(frame.clone()).await?;
        let back = ws.binary().await?;
        let rtt = t.elapsed();
        if back != frame {
            return Err(format!("ping {i} came back changed"));
        }
        if i >= WARM_UP {
            times.push(rtt.as_secs_f64() * 1e6);
        }
    }
    times.sort_by(f64::total_cmp);
    let at = |q: f64| times[((times.len() - 1) as f64 * q) as usize];
    Ok(Stats {
        median: at(0.5),
        p90: at(0.9),
        p99: at(0.99),
    })
}
