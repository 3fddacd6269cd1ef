//! A thousand players in a lobby directory, over real WebSockets on
//! loopback: the embedded server's, started in its own process so that
//! its CPU time and memory are its own, or any running host's (the Worker
//! under `wrangler dev`, see `scripts/bench-worker-lobby.sh`).
//!
//! ```sh
//! cargo build --release -p signaling-server
//! cargo bench -p signaling-conformance --bench lobby_thousand
//! ```
//!
//! With `LOBBY_BENCH_URL=http://127.0.0.1:PORT` it starts no server and
//! plays against that host instead, which must hold [`LOBBIES`] lobbies
//! with its per-address caps, rate limit and daily budget off (every
//! player comes from 127.0.0.1); `LOBBY_BENCH_PID` names the process whose
//! CPU time and memory to report (none without it), and
//! `LOBBY_BENCH_PLAYERS` lowers the number of players (1 to 1,000).
//!
//! The players arrive evenly over [`ARRIVAL`], each opening `/lobby/ws`
//! (the directory places it), saying hello and waiting for its welcome;
//! then, for [`CHAT`], every player sends a `signal` to another player of
//! its lobby every [`SIGNAL_EVERY`] (about what a lobby sees when players
//! challenge each other and their pages exchange handshakes) and a
//! heartbeat every 25 s. It prints the time to open the socket and to be
//! welcomed (percentiles), the time a signal takes from its sender to its
//! receiver through the server (percentiles), joins per second while the
//! players arrive and signals relayed per second while they chat, the
//! server's CPU time over the run and its resident memory before and with
//! everyone online, and how many players were refused. A player that is
//! not done by [`JOIN_DEADLINE`] after the chat ends counts as refused, so
//! the run ends within about [`ARRIVAL`] + [`CHAT`] + [`JOIN_DEADLINE`]
//! whatever the host does. It exits with status 1 if any was refused (the
//! directory has room for all of them) or if no signal arrived.
//!
//! The server binary is `signaling-server` next to this benchmark's
//! target folder (`target/release/`), or `$SIGNALING_SERVER`. Both
//! processes need a file descriptor per player and some more: the run
//! stops at once, saying so, when the soft limit (`ulimit -n`) is too low.

use std::io::BufRead;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio::sync::Mutex;
use tokio_tungstenite::tungstenite::Message;

const PLAYERS: usize = 1_000;
/// Lobbies of 16: room for 1,024 players.
const LOBBIES: usize = 64;
const ARRIVAL: Duration = Duration::from_secs(60);
const CHAT: Duration = Duration::from_secs(30);
const SIGNAL_EVERY: Duration = Duration::from_secs(5);
const HEARTBEAT_EVERY: Duration = Duration::from_secs(25);
/// How long after the chat a player may still be joining or finishing.
const JOIN_DEADLINE: Duration = Duration::from_secs(30);
/// Descriptors each process needs beyond one per player.
const SPARE_FDS: u64 = 64;

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime");
    match rt.block_on(bench()) {
        Ok(()) => {}
        Err(e) => {
            eprintln!("lobby_thousand: {e}");
            std::process::exit(1);
        }
    }
}

/// The soft limit on open files of this process (which the server
/// inherits).
fn open_files_limit() -> Option<u64> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits.lines().find(|l| l.starts_with("Max open files"))?;
    line.split_whitespace().nth(3)?.parse().ok()
}

fn server_binary() -> std::path::PathBuf {
    if let Some(p) = std::env::var_os("SIGNALING_SERVER") {
        return p.into();
    }
    // target/release/deps/lobby_thousand-HASH -> target/release/
    let exe = std::env::current_exe().expect("the benchmark's own path");
    exe.parent()
        .and_then(|deps| deps.parent())
        .map(|dir| dir.join("signaling-server"))
        .expect("a target folder")
}

/// Starts the server on a free port; returns it and its base URL.
fn start_server() -> Result<(Child, String), String> {
    let bin = server_binary();
    let mut child = Command::new(&bin)
        .args([
            "--listen",
            "127.0.0.1:0",
            "--stun-urls",
            "",
            "--log-level",
            "warn",
        ])
        .args(["--lobbies", &LOBBIES.to_string()])
        // Every player comes from 127.0.0.1: the per-address caps and the
        // rate limit would stand for one abusive client.
        .args([
            "--rate-limit-per-minute",
            "0",
            "--max-lobby-sockets-per-ip",
            "0",
        ])
        .args(["--max-connections", "0", "--max-connections-per-ip", "0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start {} ({e}); build it first", bin.display()))?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let mut line = String::new();
    std::io::BufReader::new(stdout)
        .read_line(&mut line)
        .map_err(|e| e.to_string())?;
    let url = line
        .trim()
        .strip_prefix("listening on ")
        .ok_or_else(|| format!("unexpected first line {line:?}"))?
        .to_owned();
    Ok((child, url))
}

/// The server's CPU time so far (user + system), from `/proc`.
fn cpu_time(pid: u32) -> Duration {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // Fields after the command name (which is in parentheses).
    let rest = stat.rsplit(')').next().unwrap_or("");
    let f: Vec<u64> = rest
        .split_whitespace()
        .map(|x| x.parse().unwrap_or(0))
        .collect();
    // utime and stime are fields 14 and 15 of the whole line, 12 and 13
    // after the name; the kernel counts them in ticks of 1/100 s here
    // (`getconf CLK_TCK`).
    let ticks = f.get(11).copied().unwrap_or(0) + f.get(12).copied().unwrap_or(0);
    Duration::from_millis(ticks * 10)
}

/// A `/proc/PID/status` figure in KiB (`VmRSS`, `VmHWM`).
fn memory_kib(pid: u32, field: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

fn percentiles(name: &str, mut v: Vec<Duration>) {
    if v.is_empty() {
        println!("{name}: no samples");
        return;
    }
    v.sort_unstable();
    let at = |p: f64| v[((v.len() - 1) as f64 * p).round() as usize];
    println!(
        "{name} ({} samples): p50 {:.2?}  p90 {:.2?}  p99 {:.2?}  max {:.2?}",
        v.len(),
        at(0.5),
        at(0.9),
        at(0.99),
        v[v.len() - 1]
    );
}

#[derive(Default)]
struct Figures {
    connect: Vec<Duration>,
    welcome: Vec<Duration>,
    latency: Vec<Duration>,
    refused: usize,
    sent: usize,
    /// When the last welcome arrived.
    last_welcome: Option<Instant>,
}

async fn bench() -> Result<(), String> {
    let need = PLAYERS as u64 + SPARE_FDS;
    match open_files_limit() {
        Some(n) if n >= need => println!("open files limit {n} (need {need} per process)"),
        Some(n) => {
            return Err(format!(
                "the open files limit is {n}; {PLAYERS} players need {need} in this process \
                 and in the server: raise it first (ulimit -n 4096)"
            ))
        }
        None => println!("open files limit unknown (no /proc); need {need}"),
    }
    // A variable set but empty counts as unset.
    let var = |name| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
    let players = match var("LOBBY_BENCH_PLAYERS") {
        None => PLAYERS,
        Some(text) => text
            .trim()
            .parse()
            .ok()
            .filter(|n| (1..=PLAYERS).contains(n))
            .ok_or_else(|| format!("LOBBY_BENCH_PLAYERS must be 1 to {PLAYERS}"))?,
    };
    if let Some(url) = var("LOBBY_BENCH_URL") {
        let pid = match var("LOBBY_BENCH_PID") {
            None => None,
            Some(text) => Some(
                text.trim()
                    .parse()
                    .map_err(|_| "LOBBY_BENCH_PID must be a process id")?,
            ),
        };
        println!("playing against {url}");
        return run(&url, pid, players).await;
    }
    let (mut child, url) = start_server()?;
    let pid = child.id();
    let result = run(&url, Some(pid), players).await;
    let _ = child.kill();
    let _ = child.wait();
    result
}

async fn run(url: &str, pid: Option<u32>, players: usize) -> Result<(), String> {
    let ws_url = format!("{}/lobby/ws", url.replacen("http://", "ws://", 1));
    let cpu_time = |pid: Option<u32>| pid.map_or(Duration::ZERO, cpu_time);
    let memory_kib = |pid: Option<u32>, field| pid.map_or(0, |p| memory_kib(p, field));
    let rss_idle = memory_kib(pid, "VmRSS");
    let cpu_start = cpu_time(pid);
    let origin = Instant::now();
    let figures = Arc::new(Mutex::new(Figures::default()));
    let chat_start = origin + ARRIVAL;
    let end = chat_start + CHAT;
    let mut tasks = Vec::new();
    for i in 0..players {
        let arrive = origin + ARRIVAL.mul_f64(i as f64 / players as f64);
        let ws_url = ws_url.clone();
        let figures = Arc::clone(&figures);
        tasks.push(tokio::spawn(async move {
            tokio::time::sleep_until(arrive.into()).await;
            let played = player(i, &ws_url, origin, chat_start, end, &figures);
            let outcome = tokio::time::timeout_at((end + JOIN_DEADLINE).into(), played)
                .await
                .unwrap_or_else(|_| Err("not done by the end of the run".into()));
            if let Err(e) = outcome {
                figures.lock().await.refused += 1;
                eprintln!("player {i}: {e}");
            }
        }));
    }
    // Everyone is online between the last arrival and the end of the chat.
    tokio::time::sleep_until((chat_start + CHAT / 2).into()).await;
    let rss_full = memory_kib(pid, "VmRSS");
    for t in tasks {
        t.await.map_err(|e| e.to_string())?;
    }
    let wall = origin.elapsed();
    let cpu = cpu_time(pid).saturating_sub(cpu_start);
    let f = std::mem::take(&mut *figures.lock().await);
    println!(
        "{players} players over {ARRIVAL:?} into {LOBBIES} lobbies of 16, then {CHAT:?} of a \
         signal every {SIGNAL_EVERY:?} per player"
    );
    let joined = f.welcome.len();
    let join_span = f.last_welcome.map_or(ARRIVAL, |t| t.duration_since(origin));
    let relayed = f.latency.len();
    percentiles("socket open (TCP + upgrade)", f.connect);
    percentiles("hello to welcome", f.welcome);
    percentiles("signal, sender to receiver", f.latency);
    println!(
        "joins {joined} in {join_span:.2?} ({:.1} per s); signals sent {}, relayed {relayed} \
         ({:.1} per s over the {CHAT:?} of chat); refused players {}",
        joined as f64 / join_span.as_secs_f64(),
        f.sent,
        relayed as f64 / CHAT.as_secs_f64(),
        f.refused,
    );
    if pid.is_some() {
        println!(
            "server CPU {cpu:.2?} over {wall:.2?} ({:.1} % of one core)",
            100.0 * cpu.as_secs_f64() / wall.as_secs_f64()
        );
        println!(
            "server RSS idle {} KiB, all online {} KiB ({:.1} KiB per player), peak {} KiB",
            rss_idle,
            rss_full,
            (rss_full.saturating_sub(rss_idle)) as f64 / players as f64,
            memory_kib(pid, "VmHWM")
        );
    }
    if f.refused > 0 {
        return Err(format!(
            "{} players refused while the directory had room",
            f.refused
        ));
    }
    if f.sent == 0 {
        return Err("no signal was sent".into());
    }
    Ok(())
}

/// One player: join, then signal a lobby mate every few seconds until
/// `end`, recording what it measures.
async fn player(
    i: usize,
    url: &str,
    origin: Instant,
    chat_start: Instant,
    end: Instant,
    figures: &Mutex<Figures>,
) -> Result<(), String> {
    let t0 = Instant::now();
    let (ws, _) = tokio_tungstenite::connect_async(url)
        .await
        .map_err(|e| format!("open: {e}"))?;
    let connected = t0.elapsed();
    let (mut tx, mut rx) = ws.split();
    let me = format!("P{i:011}");
    let t1 = Instant::now();
    let hello = json!({"type":"hello","id":me,"nick":format!("player {i}")}).to_string();
    tx.send(Message::text(hello))
        .await
        .map_err(|e| e.to_string())?;
    // Lobby mates by id, kept up to date from joined and left.
    let mut mates: Vec<String> = Vec::new();
    let Some(Ok(Message::Text(t))) = rx.next().await else {
        return Err("closed before welcome".into());
    };
    let v: Value = serde_json::from_str(&t).map_err(|e| e.to_string())?;
    if v["type"] != "welcome" {
        return Err(format!("{} instead of welcome", v["type"]));
    }
    for p in v["roster"].as_array().into_iter().flatten() {
        if let Some(id) = p["id"].as_str().filter(|id| *id != me) {
            mates.push(id.to_owned());
        }
    }
    let welcomed = t1.elapsed();
    {
        let mut f = figures.lock().await;
        f.connect.push(connected);
        f.welcome.push(welcomed);
        f.last_welcome = Some(Instant::now());
    }
    // Spread the players' sends over the interval.
    let offset = SIGNAL_EVERY.mul_f64((i % 97) as f64 / 97.0);
    let mut next_signal = chat_start.max(Instant::now()) + offset;
    let mut next_beat = Instant::now() + HEARTBEAT_EVERY;
    let mut latencies = Vec::new();
    let mut sent = 0usize;
    let mut turn = i;
    loop {
        let wake = next_signal.min(next_beat).min(end);
        tokio::select! {
            frame = rx.next() => {
                let Some(Ok(Message::Text(t))) = frame else {
                    return Err("the server closed the socket".into());
                };
                let v: Value = serde_json::from_str(&t).map_err(|e| e.to_string())?;
                match v["type"].as_str() {
                    Some("joined") => {
                        if let Some(id) = v["player"]["id"].as_str() {
                            mates.push(id.to_owned());
                        }
                    }
                    Some("left") => mates.retain(|m| v["id"] != m.as_str()),
                    Some("signal") => {
                        if let Some(at) = v["data"]["at_us"].as_u64() {
                            let now = origin.elapsed().as_micros() as u64;
                            latencies.push(Duration::from_micros(now.saturating_sub(at)));
                        }
                    }
                    _ => {}
                }
            }
            () = tokio::time::sleep_until(wake.into()) => {
                let now = Instant::now();
                if now >= end {
                    break;
                }
                if now >= next_beat {
                    tx.send(Message::text(signaling_protocol::heartbeat::PING))
                        .await
                        .map_err(|e| e.to_string())?;
                    next_beat = now + HEARTBEAT_EVERY;
                }
                if now >= next_signal {
                    if !mates.is_empty() {
                        turn += 1;
                        let to = &mates[turn % mates.len()];
                        let at_us = origin.elapsed().as_micros() as u64;
                        let msg = json!({"type":"signal","to":to,"data":{"at_us":at_us}});
                        tx.send(Message::text(msg.to_string()))
                            .await
                            .map_err(|e| e.to_string())?;
                        sent += 1;
                    }
                    next_signal = now + SIGNAL_EVERY;
                }
            }
        }
    }
    let _ = tx.send(Message::Close(None)).await;
    let mut f = figures.lock().await;
    f.latency.extend(latencies);
    f.sent += sent;
    Ok(())
}
