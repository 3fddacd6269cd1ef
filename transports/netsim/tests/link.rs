//! Behaviour of the simulated link, all in virtual time.

use lockstep::{Channel, LinkState, Millis, Transport, TransportError};
use netsim::{pair, ConfigError, Direction, LinkConfig, SimEndpoint, MAX_DATAGRAM};

/// Receives everything due at the current time, with its arrival time.
fn drain(ep: &mut SimEndpoint, out: &mut Vec<(Millis, Channel, Vec<u8>)>) {
    while let Some((ch, bytes)) = ep.recv() {
        out.push((ep.now(), ch, bytes));
    }
}

/// Steps the clock to every delivery towards `ep` until nothing is in flight.
fn run_until_idle(ep: &mut SimEndpoint) -> Vec<(Millis, Channel, Vec<u8>)> {
    let mut out = Vec::new();
    drain(ep, &mut out);
    while let Some(t) = ep.poll_timeout() {
        ep.advance_to(t);
        drain(ep, &mut out);
    }
    out
}

fn numbered(i: u32) -> Vec<u8> {
    i.to_le_bytes().to_vec()
}

fn number(bytes: &[u8]) -> u32 {
    u32::from_le_bytes(bytes.try_into().expect("4-byte test datagram"))
}

#[test]
fn perfect_link_delivers_instantly_in_order() {
    let (mut a, mut b) = pair(LinkConfig::default(), 1);
    for i in 0..10 {
        a.send(Channel::Unreliable, &numbered(i)).unwrap();
    }
    let got: Vec<u32> = (0..10).map(|_| number(&b.recv().unwrap().1)).collect();
    assert_eq!(got, (0..10).collect::<Vec<_>>());
    assert_eq!(b.recv(), None);
}

#[test]
fn fixed_latency_is_exact() {
    let cfg = LinkConfig {
        latency: Millis(50),
        ..LinkConfig::default()
    };
    let (mut a, mut b) = pair(cfg, 1);
    a.advance_to(Millis(1000));
    a.send(Channel::Unreliable, b"x").unwrap();
    assert_eq!(b.poll_timeout(), Some(Millis(1050)));
    b.advance_to(Millis(1049));
    assert_eq!(b.recv(), None);
    b.advance_to(Millis(1050));
    assert_eq!(b.recv(), Some((Channel::Unreliable, b"x".to_vec())));
    assert_eq!(b.poll_timeout(), None);
    // The clock is shared and never runs back.
    a.advance_to(Millis(10));
    assert_eq!(b.now(), Millis(1050));
}

#[test]
fn jitter_stays_within_bounds_and_spreads() {
    let cfg = LinkConfig {
        latency: Millis(100),
        jitter: Millis(20),
        ..LinkConfig::default()
    };
    let (mut a, mut b) = pair(cfg, 5);
    for i in 0..2000 {
        a.send(Channel::Unreliable, &numbered(i)).unwrap();
    }
    let got = run_until_idle(&mut b);
    assert_eq!(got.len(), 2000);
    let delays: Vec<u64> = got.iter().map(|(t, _, _)| t.0).collect();
    assert!(delays.iter().all(|&d| (80..=120).contains(&d)));
    assert_eq!(*delays.iter().min().unwrap(), 80);
    assert_eq!(*delays.iter().max().unwrap(), 120);
    let mean = delays.iter().sum::<u64>() as f64 / delays.len() as f64;
    assert!((98.0..102.0).contains(&mean), "mean delay {mean}");
}

#[test]
fn reliable_is_complete_and_in_order_under_heavy_loss_and_jitter() {
    let cfg = LinkConfig {
        latency: Millis(50),
        jitter: Millis(20),
        loss_percent: 30,
        duplicate_percent: 50,
        reorder_percent: 50,
        reliable_retransmit_delay: Millis(100),
        ..LinkConfig::default()
    };
    let (mut a, mut b) = pair(cfg, 42);
    let mut got = Vec::new();
    for i in 0..1000u32 {
        // One datagram every 16 ms, interleaved with lossy unreliable ones.
        a.advance_to(Millis(u64::from(i) * 16));
        a.send(Channel::Reliable, &numbered(i)).unwrap();
        a.send(Channel::Unreliable, &numbered(i)).unwrap();
        drain(&mut b, &mut got);
    }
    got.extend(run_until_idle(&mut b));
    let reliable: Vec<(Millis, u32)> = got
        .iter()
        .filter(|(_, ch, _)| *ch == Channel::Reliable)
        .map(|(t, _, bytes)| (*t, number(bytes)))
        .collect();
    assert_eq!(
        reliable.iter().map(|&(_, n)| n).collect::<Vec<_>>(),
        (0..1000).collect::<Vec<_>>()
    );
    for &(t, n) in &reliable {
        // Never earlier than the minimum one-way delay after sending.
        assert!(t.0 >= u64::from(n) * 16 + 30, "datagram {n} at {t:?}");
    }
    let stats = a.outgoing_stats();
    assert_eq!(stats.sent.reliable.packets, 1000);
    assert_eq!(stats.delivered.reliable.packets, 1000);
    // About 30% of attempts lost: retransmissions ~ 1000 * 0.3 / 0.7 = 429.
    assert!(
        (330..530).contains(&stats.retransmissions),
        "{} retransmissions",
        stats.retransmissions
    );
    // Each extra attempt carries the datagram's 4 bytes again.
    assert_eq!(stats.retransmitted_bytes, 4 * stats.retransmissions);
    // Some reliable datagram was held up by a retransmission.
    assert!(reliable
        .iter()
        .any(|&(t, n)| t.0 >= u64::from(n) * 16 + 100));
}

#[test]
fn loss_rate_matches_the_configuration() {
    let cfg = LinkConfig {
        latency: Millis(10),
        loss_percent: 25,
        ..LinkConfig::default()
    };
    let (mut a, mut b) = pair(cfg, 2024);
    for i in 0..10_000 {
        a.send(Channel::Unreliable, &numbered(i)).unwrap();
    }
    let got = run_until_idle(&mut b);
    // 7,500 expected; the standard deviation is about 43.
    assert!((7300..7700).contains(&got.len()), "{} delivered", got.len());
    let stats = a.outgoing_stats();
    assert_eq!(stats.lost + got.len() as u64, 10_000);
    assert_eq!(stats.sent.unreliable.packets, 10_000);
    assert_eq!(stats.sent.unreliable.bytes, 40_000);
    assert_eq!(stats.delivered.unreliable.packets, got.len() as u64);
    assert_eq!(b.incoming_stats(), stats);
}

#[test]
fn duplication_delivers_copies() {
    let cfg = LinkConfig {
        latency: Millis(30),
        jitter: Millis(5),
        duplicate_percent: 40,
        ..LinkConfig::default()
    };
    let (mut a, mut b) = pair(cfg, 77);
    for i in 0..5000 {
        a.send(Channel::Unreliable, &numbered(i)).unwrap();
    }
    let got = run_until_idle(&mut b);
    let stats = a.outgoing_stats();
    assert_eq!(got.len() as u64, 5000 + stats.duplicated);
    assert!(
        (1800..2200).contains(&stats.duplicated),
        "{} duplicated",
        stats.duplicated
    );
    let mut counts = vec![0u32; 5000];
    for (_, _, bytes) in &got {
        counts[number(bytes) as usize] += 1;
    }
    assert!(counts.iter().all(|&c| c == 1 || c == 2));
    assert_eq!(
        counts.iter().filter(|&&c| c == 2).count() as u64,
        stats.duplicated
    );
}

#[test]
fn reordering_lets_later_datagrams_overtake() {
    let cfg = LinkConfig {
        latency: Millis(20),
        reorder_percent: 10,
        reorder_delay: Millis(40),
        ..LinkConfig::default()
    };
    let (mut a, mut b) = pair(cfg, 9);
    for i in 0..1000u32 {
        a.advance_to(Millis(u64::from(i) * 10));
        a.send(Channel::Unreliable, &numbered(i)).unwrap();
    }
    let got: Vec<u32> = run_until_idle(&mut b)
        .iter()
        .map(|(_, _, bytes)| number(bytes))
        .collect();
    assert_eq!(got.len(), 1000);
    let out_of_order = got.windows(2).filter(|w| w[0] > w[1]).count() as u64;
    let reordered = a.outgoing_stats().reordered;
    assert!((60..140).contains(&reordered), "{reordered} reordered");
    // Each held-back datagram is overtaken by the next ones sent (two held
    // back in a row show as one descent).
    assert!(out_of_order <= reordered && out_of_order * 4 >= reordered * 3);

    // Without jitter or reordering the unreliable channel keeps order.
    let (mut a, mut b) = pair(
        LinkConfig {
            latency: Millis(20),
            ..LinkConfig::default()
        },
        9,
    );
    for i in 0..100u32 {
        a.advance_to(Millis(u64::from(i)));
        a.send(Channel::Unreliable, &numbered(i)).unwrap();
    }
    let got: Vec<u32> = run_until_idle(&mut b)
        .iter()
        .map(|(_, _, bytes)| number(bytes))
        .collect();
    assert_eq!(got, (0..100).collect::<Vec<_>>());
}

#[test]
fn severing_one_direction_is_silent_and_heals() {
    let cfg = LinkConfig {
        latency: Millis(50),
        reliable_retransmit_delay: Millis(200),
        ..LinkConfig::default()
    };
    let (mut a, mut b) = pair(cfg, 3);
    a.send(Channel::Unreliable, b"in flight").unwrap();
    a.send(Channel::Reliable, b"r0").unwrap();
    a.advance_to(Millis(10));
    a.sever(Direction::Outgoing);
    assert!(a.is_severed(Direction::Outgoing));
    assert!(b.is_severed(Direction::Incoming));
    assert!(!a.is_severed(Direction::Incoming));
    a.send(Channel::Unreliable, b"dropped").unwrap();
    a.send(Channel::Reliable, b"r1").unwrap();
    b.send(Channel::Unreliable, b"other way").unwrap();
    // Still Open on both sides: a silent cut.
    assert_eq!((a.state(), b.state()), (LinkState::Open, LinkState::Open));
    assert_eq!(b.poll_timeout(), None);
    let back = run_until_idle(&mut a);
    assert_eq!(back.len(), 1);
    assert_eq!(back[0].2, b"other way");
    a.advance_to(Millis(5000));
    assert_eq!(b.recv(), None);
    let stats = a.outgoing_stats();
    assert_eq!(stats.severed_drops, 2);
    // r0 (cut off in flight) and r1 (sent while severed) go out again.
    assert_eq!((stats.retransmissions, stats.retransmitted_bytes), (2, 4));

    a.heal(Direction::Outgoing);
    a.send(Channel::Reliable, b"r2").unwrap();
    let got = run_until_idle(&mut b);
    let payloads: Vec<&[u8]> = got.iter().map(|(_, _, p)| p.as_slice()).collect();
    assert_eq!(payloads, [&b"r0"[..], b"r1", b"r2"]);
    // Held datagrams are retransmitted one retransmission delay after the heal.
    assert_eq!(got[0].0, Millis(5000 + 200 + 50));
    assert_eq!(got[2].0, Millis(5000 + 200 + 50));
}

#[test]
fn sever_both_blocks_both_ways() {
    let (mut a, mut b) = pair(LinkConfig::default(), 3);
    b.sever_both();
    a.send(Channel::Unreliable, b"1").unwrap();
    b.send(Channel::Unreliable, b"2").unwrap();
    a.advance_to(Millis(100));
    assert_eq!((a.recv(), b.recv()), (None, None));
    a.heal_both();
    a.send(Channel::Unreliable, b"3").unwrap();
    b.send(Channel::Unreliable, b"4").unwrap();
    assert_eq!(b.recv(), Some((Channel::Unreliable, b"3".to_vec())));
    assert_eq!(a.recv(), Some((Channel::Unreliable, b"4".to_vec())));
}

#[test]
fn close_reaches_the_peer_after_reliable_data() {
    let cfg = LinkConfig {
        latency: Millis(40),
        loss_percent: 50,
        reliable_retransmit_delay: Millis(100),
        ..LinkConfig::default()
    };
    let (mut a, mut b) = pair(cfg, 11);
    for i in 0..20 {
        a.send(Channel::Reliable, &numbered(i)).unwrap();
    }
    a.close();
    assert_eq!(a.state(), LinkState::Closed);
    assert_eq!(
        a.send(Channel::Reliable, b"x"),
        Err(TransportError::NotOpen(LinkState::Closed))
    );
    let mut got = Vec::new();
    while b.state() == LinkState::Open {
        let t = b.poll_timeout().expect("close notice pending");
        b.advance_to(t);
        drain(&mut b, &mut got);
    }
    assert_eq!(b.state(), LinkState::Closed);
    drain(&mut b, &mut got);
    let nums: Vec<u32> = got.iter().map(|(_, _, p)| number(p)).collect();
    assert_eq!(nums, (0..20).collect::<Vec<_>>());
    assert!(b.now() >= Millis(40));
}

#[test]
fn fail_link_fails_both_ends_and_drops_traffic() {
    let cfg = LinkConfig {
        latency: Millis(10),
        ..LinkConfig::default()
    };
    let (mut a, mut b) = pair(cfg, 1);
    a.send(Channel::Reliable, b"x").unwrap();
    b.fail_link();
    assert_eq!(
        (a.state(), b.state()),
        (LinkState::Failed, LinkState::Failed)
    );
    a.advance_to(Millis(100));
    assert_eq!(b.recv(), None);
    assert_eq!(b.poll_timeout(), None);
    assert_eq!(
        b.send(Channel::Unreliable, b"y"),
        Err(TransportError::NotOpen(LinkState::Failed))
    );
}

#[test]
fn total_loss_fails_the_link_on_a_reliable_send() {
    let cfg = LinkConfig {
        loss_percent: 100,
        ..LinkConfig::default()
    };
    let (mut a, b) = pair(cfg, 1);
    a.send(Channel::Unreliable, b"gone").unwrap();
    assert_eq!(a.state(), LinkState::Open);
    a.send(Channel::Reliable, b"never").unwrap();
    assert_eq!(
        (a.state(), b.state()),
        (LinkState::Failed, LinkState::Failed)
    );
}

#[test]
fn oversize_datagrams_are_refused() {
    let (mut a, b) = pair(LinkConfig::default(), 1);
    let big = vec![0; MAX_DATAGRAM + 1];
    assert_eq!(
        a.send(Channel::Unreliable, &big),
        Err(TransportError::TooLarge {
            len: MAX_DATAGRAM + 1,
            max: MAX_DATAGRAM
        })
    );
    assert_eq!(a.outgoing_stats().sent.unreliable.packets, 0);
    assert_eq!(b.in_flight(), 0);
}

/// Every delivery, with time, channel and payload, of a fixed traffic pattern.
fn trace(seed: u64) -> Vec<(Millis, Channel, Vec<u8>)> {
    let cfg = LinkConfig {
        latency: Millis(60),
        jitter: Millis(25),
        loss_percent: 20,
        duplicate_percent: 10,
        reorder_percent: 10,
        reorder_delay: Millis(30),
        reliable_retransmit_delay: Millis(150),
    };
    let (mut a, mut b) = pair(cfg, seed);
    let mut out = Vec::new();
    for i in 0..500u32 {
        a.advance_to(Millis(u64::from(i) * 16));
        let ch = if i % 10 == 0 {
            Channel::Reliable
        } else {
            Channel::Unreliable
        };
        a.send(ch, &numbered(i)).unwrap();
        b.send(ch, &numbered(i + 10_000)).unwrap();
        drain(&mut a, &mut out);
        drain(&mut b, &mut out);
    }
    out.extend(run_until_idle(&mut b));
    out.extend(run_until_idle(&mut a));
    out
}

#[test]
fn same_seed_same_network_different_seed_different_network() {
    let one = trace(123);
    assert_eq!(one, trace(123));
    assert_ne!(one, trace(124));
}

#[test]
fn validate_refuses_bad_values() {
    assert_eq!(LinkConfig::default().validate(), Ok(()));
    let bad = LinkConfig {
        loss_percent: 101,
        ..LinkConfig::default()
    };
    assert_eq!(
        bad.validate(),
        Err(ConfigError::PercentOutOfRange {
            field: "loss_percent",
            value: 101
        })
    );
    let bad = LinkConfig {
        latency: Millis(5),
        jitter: Millis(6),
        ..LinkConfig::default()
    };
    assert!(matches!(
        bad.validate(),
        Err(ConfigError::JitterAboveLatency { .. })
    ));
    // pair() clamps instead of refusing.
    let (a, _b) = pair(
        LinkConfig {
            duplicate_percent: 250,
            ..LinkConfig::default()
        },
        0,
    );
    assert_eq!(a.config().duplicate_percent, 100);
}

#[test]
fn extreme_configurations_do_not_overflow() {
    for (latency, jitter) in [(0, u64::MAX), (u64::MAX, u64::MAX), (u64::MAX, 0), (5, 100)] {
        let cfg = LinkConfig {
            latency: Millis(latency),
            jitter: Millis(jitter),
            loss_percent: 50,
            duplicate_percent: 50,
            reorder_percent: 50,
            reorder_delay: Millis(u64::MAX),
            reliable_retransmit_delay: Millis(u64::MAX),
        };
        let (mut a, mut b) = pair(cfg, latency ^ jitter);
        for i in 0..50 {
            a.send(Channel::Unreliable, &numbered(i)).unwrap();
            a.send(Channel::Reliable, &numbered(i)).unwrap();
        }
        a.advance_to(Millis(u64::MAX));
        let mut n = 0;
        while b.recv().is_some() {
            n += 1;
        }
        // Everything due by the end of time arrived; the rest never will.
        assert!(n <= 150);
        assert!(b.poll_timeout().is_none_or(|t| t == Millis(u64::MAX)));
    }
}

#[test]
fn a_throttled_direction_queues_at_its_rate_and_reports_the_backlog() {
    let cfg = LinkConfig {
        latency: Millis(10),
        ..LinkConfig::default()
    };
    let (mut a, mut b) = pair(cfg, 1);
    assert_eq!(a.send_backlog(), 0, "nothing sent, nothing queued");
    // 10 000 bytes per second: a 1000-byte datagram takes 100 ms to leave.
    a.throttle(Some(10_000));
    for i in 0..5 {
        let mut d = numbered(i);
        d.resize(1000, 0);
        a.send(Channel::Unreliable, &d).unwrap();
    }
    assert_eq!(a.send_backlog(), 5000);
    assert_eq!(b.send_backlog(), 0, "the other direction is not throttled");
    // The first leaves at 100 ms and arrives a latency later.
    assert_eq!(b.poll_timeout(), Some(Millis(110)));
    let got = run_until_idle(&mut b);
    let times: Vec<u64> = got.iter().map(|(t, _, _)| t.0).collect();
    assert_eq!(times, vec![110, 210, 310, 410, 510]);
    let order: Vec<u32> = got.iter().map(|(_, _, d)| number(&d[..4])).collect();
    assert_eq!(order, vec![0, 1, 2, 3, 4]);
    assert_eq!(a.send_backlog(), 0);
    // The backlog shrinks as datagrams leave.
    for _ in 0..3 {
        a.send(Channel::Reliable, &[0; 1000]).unwrap();
    }
    a.advance_to(Millis(a.now().0 + 150));
    assert_eq!(a.send_backlog(), 2000, "one of three has left after 150 ms");
    // Lifting the throttle sends new datagrams at once; those already
    // queued leave as scheduled.
    a.throttle(None);
    a.send(Channel::Reliable, b"x").unwrap();
    assert_eq!(a.send_backlog(), 2000);
}

#[test]
fn reliable_datagrams_held_by_a_severed_direction_count_as_backlog() {
    let (mut a, _b) = pair(LinkConfig::default(), 1);
    a.sever(Direction::Outgoing);
    a.send(Channel::Reliable, &[0; 300]).unwrap();
    a.send(Channel::Unreliable, &[0; 300]).unwrap();
    assert_eq!(a.send_backlog(), 300, "only the reliable datagram waits");
    a.heal(Direction::Outgoing);
    assert_eq!(a.send_backlog(), 0);
}
