//! Snapshot sizes, bandwidth and host CPU of the arena game played
//! host-authoritatively, with 2, 4 and 10 players (bots), each guest on its
//! own simulated link (50 ms ±10 one way), without loss and with 25% loss.
//! A minute of virtual time per row. Run it in release:
//!
//! ```text
//! cargo run --release -p authority --example arena_bandwidth
//! ```
//!
//! Columns: players; loss; whole snapshot in bytes (the message, and the
//! same snapshot as JSON text for comparison with JSON-based engines);
//! delta messages in bytes (mean, median, 95th percentile); bytes per second
//! from the host to each guest (every datagram, reliable retransmissions
//! included); the host's total upload; bytes per second from each guest to
//! the host; the host's CPU per tick (mean wall time of
//! `Host::handle_timeout`, which runs the game, builds every guest's
//! snapshot tree, diffs and encodes it).

use std::cell::RefCell;
use std::rc::Rc;
use std::time::{Duration, Instant};

use arena::{Arena, Bot};
use authority::wire::{self, Body, ToGuest};
use authority::{pump_guest, AuthoritativeGame, Guest, GuestEvent, Host, HostConfig, HostLinks};
use lockstep::{Channel, LinkState, Millis, Transport, TransportError};
use netsim::{LinkConfig, SimEndpoint};

/// A transport that notes the size of every unreliable datagram sent.
struct Sizes {
    inner: SimEndpoint,
    unreliable: Rc<RefCell<Vec<usize>>>,
}

impl Transport for Sizes {
    fn send(&mut self, channel: Channel, datagram: &[u8]) -> Result<(), TransportError> {
        if channel == Channel::Unreliable {
            self.unreliable.borrow_mut().push(datagram.len());
        }
        self.inner.send(channel, datagram)
    }
    fn recv(&mut self) -> Option<(Channel, Vec<u8>)> {
        self.inner.recv()
    }
    fn state(&self) -> LinkState {
        self.inner.state()
    }
    fn close(&mut self) {
        self.inner.close();
    }
    fn send_backlog(&self) -> usize {
        self.inner.send_backlog()
    }
}

struct Row {
    players: usize,
    loss: u8,
    whole: usize,
    whole_json: usize,
    delta_mean: f64,
    delta_p50: usize,
    delta_p95: usize,
    down_per_guest: f64,
    host_upload: f64,
    up_per_guest: f64,
    cpu_per_tick: Duration,
}

fn run(players: usize, loss: u8, seconds: u64) -> Row {
    let link = LinkConfig {
        latency: Millis(50),
        jitter: Millis(10),
        loss_percent: loss,
        ..LinkConfig::default()
    };
    // Cannot fail: the default configuration is valid.
    let mut host = Host::new(Arena::new(7), HostConfig::new(7)).expect("valid config");
    let mut links = HostLinks::new();
    let sizes = Rc::new(RefCell::new(Vec::new()));
    let mut guests = Vec::new();
    for i in 0..players - 1 {
        let (h, g) = netsim::pair(link, 1000 + i as u64);
        // The host end goes into `links`; the link's counters are read
        // through the guest end (`incoming_stats` is the host's upload).
        links.add(
            &mut host,
            Millis(0),
            Sizes {
                inner: h,
                unreliable: Rc::clone(&sizes),
            },
        );
        guests.push((
            Guest::<Arena>::new(Millis(0), None),
            g,
            Bot::new(50 + i as u64),
            None,
        ));
    }
    let mut host_bot = Bot::new(49);
    let mut busy = Duration::ZERO;
    let mut ticks = 0u64;
    let mut whole_sizes = Vec::new();
    let frame = 5;
    let end = seconds * 1000;
    // Sizes are measured over the last 50 s, once every guest has joined.
    let warm_up = 10_000;
    let mut sizes_from = 0;
    for ms in (frame..=end).step_by(frame as usize) {
        let now = Millis(ms);
        for (guest, net, bot, seat) in &mut guests {
            net.advance_to(now);
            pump_guest(guest, now, net);
            while let Some(e) = guest.poll_event() {
                if let GuestEvent::Welcomed { seat: s, .. } = e {
                    *seat = Some(s);
                }
            }
            if let (Some(s), Some((_, _, view))) = (*seat, guest.latest()) {
                let view = view.clone();
                let (c, changed) = bot.decide(&view, s, frame as u32);
                if changed {
                    guest.command(&c);
                }
            }
        }
        links.receive(&mut host, now);
        let before = host.tick();
        let t0 = Instant::now();
        host.handle_timeout(now);
        busy += t0.elapsed();
        ticks += host.tick() - before;
        links.flush(&mut host);
        while host.poll_event().is_some() {}
        let view = host.game().snapshot(0);
        let (c, changed) = host_bot.decide(&view, 0, frame as u32);
        if changed {
            host.local_command(c);
        }
        if ms == warm_up {
            sizes_from = sizes.borrow().len();
        }
        if ms % 1000 == 0 && ms >= warm_up {
            // What a whole snapshot of seat 1 costs now.
            let snap = host.game().snapshot(1);
            let msg = ToGuest::Snapshot(wire::Snapshot {
                tick: host.tick(),
                body: Body::Whole(wire::encode(&snap).expect("encodes")),
                events_from: 1,
                events: Vec::new(),
                commands: 0,
                echo: None,
            });
            let json = serde_json::to_string(&snap).expect("serialises").len();
            whole_sizes.push((msg.encode().expect("encodes").len(), json));
        }
    }
    let mut deltas: Vec<usize> = sizes.borrow()[sizes_from..].to_vec();
    deltas.sort_unstable();
    let secs = seconds as f64;
    let (mut down, mut up) = (0u64, 0u64);
    for (_, net, _, _) in &guests {
        let s = net.incoming_stats();
        down += s.sent.total().bytes + s.retransmitted_bytes;
        let o = net.outgoing_stats();
        up += o.sent.total().bytes + o.retransmitted_bytes;
    }
    let n = guests.len() as f64;
    let whole = whole_sizes.iter().map(|w| w.0).sum::<usize>() / whole_sizes.len().max(1);
    let whole_json = whole_sizes.iter().map(|w| w.1).sum::<usize>() / whole_sizes.len().max(1);
    Row {
        players,
        loss,
        whole,
        whole_json,
        delta_mean: deltas.iter().sum::<usize>() as f64 / deltas.len().max(1) as f64,
        delta_p50: deltas.get(deltas.len() / 2).copied().unwrap_or(0),
        delta_p95: deltas.get(deltas.len() * 95 / 100).copied().unwrap_or(0),
        down_per_guest: down as f64 / n / secs,
        host_upload: down as f64 / secs,
        up_per_guest: up as f64 / n / secs,
        cpu_per_tick: busy / u32::try_from(ticks.max(1)).unwrap_or(u32::MAX),
    }
}

fn main() {
    println!("| players | loss | whole B (JSON B) | delta B mean / p50 / p95 | host to each guest B/s | host upload B/s | guest upload B/s | host CPU per tick |");
    println!("| --- | --- | --- | --- | --- | --- | --- | --- |");
    for loss in [0u8, 25] {
        for players in [2usize, 4, 10] {
            let r = run(players, loss, 60);
            println!(
                "| {} | {}% | {} ({}) | {:.0} / {} / {} | {:.0} | {:.0} | {:.0} | {:.0} µs |",
                r.players,
                r.loss,
                r.whole,
                r.whole_json,
                r.delta_mean,
                r.delta_p50,
                r.delta_p95,
                r.down_per_guest,
                r.host_upload,
                r.up_per_guest,
                r.cpu_per_tick.as_secs_f64() * 1e6,
            );
        }
    }
}
