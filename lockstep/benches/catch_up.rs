//! The catch-up a player gets when it comes back to a long match: every
//! input from the start to replay (the default) against the host's saved
//! state and the inputs since (a game that saves its state), for a
//! two-player dots match rejoined at minute 1, 5 and 10.
//!
//! Run with `cargo bench -p lockstep --bench catch_up`. Each match is
//! played in virtual time on the engine's test driver (lock-step, a
//! 20 ms round trip without loss, the driver's pads: a random byte one
//! sample in three, held otherwise, a worst case for replay); then
//! a fresh session asks the host for slot 1. Printed: the bytes the host
//! queues for it (its Hello, the catch-up and its end; datagrams and
//! payload bytes), and the rejoiner's time to take them in, from the
//! first datagram to standing at the host's tick with the host's hash
//! (the median of 9 runs). Both ways run in the same process, on the same
//! matches; the last column is replay over saved state.

use std::time::{Duration, Instant};

use dots::Dots;
use lockstep::{Channel, DeterministicGame, Event, LinkState, Millis, Session, SessionConfig};
use lockstep_testing::{member_id, LinkConfig, Mesh};

/// Dots without `save`: its catch-up replays from the start.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Replayed(Dots);

impl DeterministicGame for Replayed {
    type Input = u8;
    const BUILD_ID: u64 = Dots::BUILD_ID;
    fn new(seed: u64, players: u8) -> Self {
        Replayed(Dots::new(seed, players))
    }
    fn step(&mut self, inputs: &[u8]) {
        self.0.step(inputs);
    }
    fn state_hash(&self) -> u64 {
        self.0.state_hash()
    }
}

/// What one catch-up cost.
struct Cost {
    datagrams: usize,
    bytes: usize,
    time: Duration,
}

/// Plays a two-player match of `G` to `ticks` confirmed ticks, then takes
/// a fresh session of slot 1 back: the host's datagrams for it, and the
/// median time the rejoiner takes to go through them.
fn catch_up<G: DeterministicGame<Input = u8>>(ticks: u32) -> Cost {
    let link = LinkConfig {
        latency: Millis(10),
        ..LinkConfig::default()
    };
    let host = SessionConfig::host(7, 2).rejoin_entropy(0xbe9c_2026);
    let mut m = Mesh::<G>::new(2, host, SessionConfig::guest(), link, 7);
    assert!(
        m.run_to_confirmed(ticks, u64::from(ticks) * 3),
        "{}",
        m.progress()
    );
    let token = m.players[1].rejoin_token().expect("the host gave a token");
    let now = m.net.now();
    let mut fresh = Session::<G>::new(SessionConfig::guest().rejoin(1, token)).expect("valid");
    fresh.handle_link_state(now, member_id(0), LinkState::Open);
    let host = &mut m.players[0];
    while let Some((_, ch, bytes)) = fresh.poll_transmit() {
        host.handle_datagram(now, member_id(1), ch, &bytes);
    }
    let mut sent: Vec<(Channel, Vec<u8>)> = Vec::new();
    while let Some(d) = host.poll_transmit_to(member_id(1)) {
        sent.push(d);
    }
    let bytes = sent.iter().map(|(_, b)| b.len()).sum();
    let mut times: Vec<Duration> = (0..9)
        .map(|_| {
            let mut s = Session::<G>::new(SessionConfig::guest().rejoin(1, token)).expect("valid");
            s.handle_link_state(now, member_id(0), LinkState::Open);
            while s.poll_transmit().is_some() {}
            let start = Instant::now();
            for (ch, d) in &sent {
                s.handle_datagram(now, member_id(0), *ch, d);
            }
            let took = start.elapsed();
            let back =
                std::iter::from_fn(|| s.poll_event()).any(|e| matches!(e, Event::Rejoined { .. }));
            assert!(back && s.outcome().is_none(), "{:?}", s.outcome());
            took
        })
        .collect();
    times.sort();
    Cost {
        datagrams: sent.len(),
        bytes,
        time: times[times.len() / 2],
    }
}

fn main() {
    println!("catch-up of a two-player dots match (lock-step), rejoined at:");
    println!(
        "{:>8} | {:>26} | {:>26} | {:>14}",
        "minute", "replay: dgrams, bytes, µs", "saved: dgrams, bytes, µs", "bytes, time ×"
    );
    for minutes in [1u32, 5, 10] {
        let ticks = minutes * 3600;
        let r = catch_up::<Replayed>(ticks);
        let s = catch_up::<Dots>(ticks);
        println!(
            "{minutes:>8} | {:>6} {:>9} {:>9} | {:>6} {:>9} {:>9} | {:>5.0} {:>6.0}",
            r.datagrams,
            r.bytes,
            r.time.as_micros(),
            s.datagrams,
            s.bytes,
            s.time.as_micros(),
            r.bytes as f64 / s.bytes as f64,
            r.time.as_secs_f64() / s.time.as_secs_f64().max(1e-9),
        );
    }
}
