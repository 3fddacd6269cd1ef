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
//!
//! The same for a two-person NtBA match (its pad byte driven by the same
//! random pads; a match that ends plays on past the final whistle, so
//! minute 10 is 36,000 ticks of stepping all the same).
//!
//! Then a late join: three dots players over a link of 40 ms ±10 ms with
//! 5 % loss, one leaves for good at tick 600, the other two play on with
//! its slot neutral, and at minute 1, 5 and 10 a newcomer asks for the
//! free slot. Printed, all in virtual time (so the figures do not depend
//! on the machine): how long after its first frame the newcomer plays
//! its own inputs (its first tick past the change), the bytes it receives
//! in its first 5 s, and the frames each of the two who stayed stalled
//! until then, and in the 5 s after the join beyond the 5 s before it.
//! Again replay and saved state, on the same matches.

use std::time::{Duration, Instant};

use dots::Dots;
use lockstep::{Channel, DeterministicGame, Event, LinkState, Millis, Session, SessionConfig};
use lockstep_testing::{member_id, LinkConfig, Mesh, OpenDots, Player};

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

/// NtBA with a byte for its input (the test driver's pads are bytes),
/// saving its state (`SAVES`) or not (its catch-up replays).
#[derive(Clone, Debug, PartialEq, Eq)]
struct ByteNtba<const SAVES: bool>(ntba::Ntba);

impl<const SAVES: bool> DeterministicGame for ByteNtba<SAVES> {
    type Input = u8;
    const BUILD_ID: u64 = ntba::Ntba::BUILD_ID;
    fn new(seed: u64, players: u8) -> Self {
        ByteNtba(ntba::Ntba::new(seed, players))
    }
    fn step(&mut self, inputs: &[u8]) {
        let pads: Vec<ntba::Pad> = inputs.iter().map(|&b| ntba::Pad(b)).collect();
        self.0.step(&pads);
    }
    fn state_hash(&self) -> u64 {
        self.0.state_hash()
    }
    fn save(&self) -> Option<Vec<u8>> {
        if SAVES {
            self.0.save()
        } else {
            None
        }
    }
    fn load(bytes: &[u8]) -> Option<Self> {
        if SAVES {
            ntba::Ntba::load(bytes).map(ByteNtba)
        } else {
            None
        }
    }
}

/// What one late join cost, in virtual time.
struct Join {
    /// From the newcomer's first frame to its first tick past the change.
    plays_after_ms: u64,
    /// Payload bytes delivered to the newcomer in its first 5 s.
    bytes_5s: u64,
    /// Stalled frames of each player who stayed from the newcomer's first
    /// frame until it plays (the join's own cost)...
    join_stalls: [i64; 2],
    /// ... and over the 5 s after its first frame, less those of the 5 s
    /// before (a third player over the lossy link stalls them a little
    /// more from then on).
    extra_stalls: [i64; 2],
}

/// Stalled frames of players 0 and 1 so far.
fn stalls<G: DeterministicGame<Input = u8>>(m: &Mesh<G>) -> [i64; 2] {
    let s = |p: &Player<G, _>| i64::try_from(p.stats().stalled_frames).unwrap_or(i64::MAX);
    [s(&m.players[0]), s(&m.players[1])]
}

/// Three players of `G`; the third leaves for good at tick 600, the two
/// others play on to `ticks` confirmed ticks, then a newcomer joins.
fn late_join<G: DeterministicGame<Input = u8>>(ticks: u32) -> Join {
    let link = LinkConfig {
        latency: Millis(40),
        jitter: Millis(10),
        loss_percent: 5,
        ..LinkConfig::default()
    };
    let host = SessionConfig::host(11, 4).rejoin_entropy(0x1a7e_2026);
    let mut m = Mesh::<G>::new(3, host, SessionConfig::guest(), link, 11);
    assert!(m.run_to_confirmed(600, 3000), "{}", m.progress());
    m.sever_player(2);
    assert!(
        m.run_first_to_confirmed(2, ticks.saturating_sub(300), u64::from(ticks) * 3),
        "{}",
        m.progress()
    );
    let before = stalls(&m);
    m.run_frames(300);
    let at_join = stalls(&m);
    let joiner = m
        .add_player(SessionConfig::guest().join(None), &[0, 1])
        .expect("a valid configuration");
    let (mut plays_after, mut frames) = (None, 0u64);
    let mut join_stalls = [0; 2];
    while frames < 300 {
        m.step_frame();
        frames += 1;
        let p = &m.players[joiner];
        let joined_at = p.seen.events.iter().find_map(|e| match e {
            Event::Joined { tick, .. } => Some(*tick),
            _ => None,
        });
        if plays_after.is_none() && joined_at.is_some_and(|t| p.tick() > t) {
            plays_after = Some(frames * 1000 / 60);
            let now = stalls(&m);
            join_stalls = [now[0] - at_join[0], now[1] - at_join[1]];
        }
    }
    let after = stalls(&m);
    let bytes_5s = [0, 1]
        .iter()
        .filter_map(|&j| m.net.link(j, joiner))
        .map(|l| l.1.incoming_stats().delivered.total().bytes)
        .sum();
    assert!(
        m.players.iter().all(|p| p.outcome().is_none()) || m.players[2].outcome().is_some(),
        "{}",
        m.progress()
    );
    Join {
        plays_after_ms: plays_after
            .unwrap_or_else(|| panic!("not in within 5 s: {}", m.progress())),
        bytes_5s,
        join_stalls,
        extra_stalls: [
            (after[0] - at_join[0]) - (at_join[0] - before[0]),
            (after[1] - at_join[1]) - (at_join[1] - before[1]),
        ],
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

/// Prints the catch-up table for `R` (replays) against `S` (saves).
fn catch_up_table<R, S>(title: &str)
where
    R: DeterministicGame<Input = u8>,
    S: DeterministicGame<Input = u8>,
{
    println!("catch-up of a two-player {title} match (lock-step), rejoined at:");
    println!(
        "{:>8} | {:>26} | {:>26} | {:>14}",
        "minute", "replay: dgrams, bytes, µs", "saved: dgrams, bytes, µs", "bytes, time ×"
    );
    for minutes in [1u32, 5, 10] {
        let ticks = minutes * 3600;
        let r = catch_up::<R>(ticks);
        let s = catch_up::<S>(ticks);
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
    println!();
}

fn main() {
    catch_up_table::<Replayed, Dots>("dots");
    catch_up_table::<ByteNtba<false>, ByteNtba<true>>("NtBA");
    println!("late join into the free slot of a three-player dots match (lock-step, 40 ms ±10, 5 % loss), at:");
    println!(
        "{:>8} | {:>47} | {:>47}",
        "minute",
        "replay: plays after ms, bytes 5 s, stalls, extra",
        "saved: plays after ms, bytes 5 s, stalls, extra"
    );
    for minutes in [1u32, 5, 10] {
        let ticks = minutes * 3600;
        let r = late_join::<OpenDots<false>>(ticks);
        let s = late_join::<OpenDots<true>>(ticks);
        println!(
            "{minutes:>8} | {:>12} {:>10} {:>5} {:>5} {:>5} {:>5} | {:>12} {:>10} {:>5} {:>5} {:>5} {:>5}",
            r.plays_after_ms,
            r.bytes_5s,
            r.join_stalls[0],
            r.join_stalls[1],
            r.extra_stalls[0],
            r.extra_stalls[1],
            s.plays_after_ms,
            s.bytes_5s,
            s.join_stalls[0],
            s.join_stalls[1],
            s.extra_stalls[0],
            s.extra_stalls[1],
        );
    }
}
