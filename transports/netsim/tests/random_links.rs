//! Property test: whatever the conditions and the traffic, the reliable
//! channel is complete and in order, nothing arrives early, the counters add
//! up, and nothing panics.

use lockstep::{Channel, LinkState, Millis, Transport};
use netsim::{pair, Direction, LinkConfig};
use proptest::prelude::*;

fn link() -> impl Strategy<Value = LinkConfig> {
    (
        0u64..=300,
        0u64..=50,
        0u8..=50,
        0u8..=20,
        0u8..=20,
        0u64..=60,
        1u64..=400,
    )
        .prop_map(
            |(latency, jitter, loss, dup, reorder, reorder_delay, rto)| LinkConfig {
                latency: Millis(latency),
                jitter: Millis(jitter.min(latency)),
                loss_percent: loss,
                duplicate_percent: dup,
                reorder_percent: reorder,
                reorder_delay: Millis(reorder_delay),
                reliable_retransmit_delay: Millis(rto),
            },
        )
}

/// One step of traffic: which side sends, on which channel, after how long.
#[derive(Debug, Clone)]
enum Op {
    Send {
        from_a: bool,
        reliable: bool,
        gap_ms: u8,
    },
    Sever {
        from_a: bool,
    },
    Heal {
        from_a: bool,
    },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        20 => (any::<bool>(), any::<bool>(), any::<u8>())
            .prop_map(|(from_a, reliable, gap_ms)| Op::Send { from_a, reliable, gap_ms }),
        1 => any::<bool>().prop_map(|from_a| Op::Sever { from_a }),
        1 => any::<bool>().prop_map(|from_a| Op::Heal { from_a }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn reliable_is_complete_in_order_and_never_early(
        cfg in link(),
        seed in any::<u64>(),
        ops in proptest::collection::vec(op(), 1..300),
    ) {
        let (mut a, mut b) = pair(cfg, seed);
        // Datagrams carry (sender, sequence number, send time).
        let mut next = [0u32; 2];
        let mut sent_reliable: [Vec<u32>; 2] = [Vec::new(), Vec::new()];
        let mut got: [Vec<(bool, u32, u64, u64)>; 2] = [Vec::new(), Vec::new()];
        let mut now = 0u64;
        let recv_all = |ep: &mut netsim::SimEndpoint, out: &mut Vec<(bool, u32, u64, u64)>| {
            while let Some((ch, bytes)) = ep.recv() {
                let seq = u32::from_le_bytes(bytes[0..4].try_into().unwrap());
                let sent = u64::from_le_bytes(bytes[4..12].try_into().unwrap());
                out.push((ch == Channel::Reliable, seq, sent, ep.now().0));
            }
        };
        for op in &ops {
            match *op {
                Op::Send { from_a, reliable, gap_ms } => {
                    now += u64::from(gap_ms);
                    a.advance_to(Millis(now));
                    recv_all(&mut a, &mut got[0]);
                    recv_all(&mut b, &mut got[1]);
                    let side = usize::from(!from_a);
                    let ep = if from_a { &mut a } else { &mut b };
                    let ch = if reliable { Channel::Reliable } else { Channel::Unreliable };
                    // Number each channel's datagrams separately.
                    let seq = next[side] * 2 + u32::from(reliable);
                    next[side] += 1;
                    let mut bytes = seq.to_le_bytes().to_vec();
                    bytes.extend_from_slice(&now.to_le_bytes());
                    // Sends fail only once the link has failed (every
                    // attempt at a reliable datagram lost).
                    if ep.send(ch, &bytes).is_ok() && reliable {
                        sent_reliable[side].push(seq);
                    }
                }
                Op::Sever { from_a } => {
                    let ep = if from_a { &a } else { &b };
                    ep.sever(Direction::Outgoing);
                }
                Op::Heal { from_a } => {
                    let ep = if from_a { &a } else { &b };
                    ep.heal(Direction::Outgoing);
                }
            }
        }
        a.heal_both();
        // Let everything land.
        loop {
            let next_at = [a.poll_timeout(), b.poll_timeout()].into_iter().flatten().min();
            let Some(t) = next_at else { break };
            a.advance_to(t);
            recv_all(&mut a, &mut got[0]);
            recv_all(&mut b, &mut got[1]);
        }
        let failed = a.state() == LinkState::Failed;
        for (receiver, out) in got.iter().enumerate() {
            let sender = 1 - receiver;
            let (ep_out, ep_in) = if sender == 0 { (&a, &b) } else { (&b, &a) };
            let stats = ep_out.outgoing_stats();
            prop_assert_eq!(stats, ep_in.incoming_stats());
            let mut reliable = Vec::new();
            for &(is_reliable, seq, sent, at) in out {
                // Never before the minimum one-way delay.
                let min_delay = cfg.latency.0 - cfg.jitter.0;
                prop_assert!(at >= sent + min_delay, "seq {} sent {} at {}", seq, sent, at);
                if is_reliable {
                    reliable.push(seq);
                }
            }
            // Reliable: exactly what was sent, in order, no duplicates
            // (a prefix of it if the link failed).
            if failed {
                prop_assert!(sent_reliable[sender].starts_with(&reliable));
            } else {
                prop_assert_eq!(&reliable, &sent_reliable[sender]);
            }
            prop_assert!(reliable.windows(2).all(|w| w[0] < w[1]), "out of order {:?}", reliable);
            if !failed {
                prop_assert_eq!(reliable.len() as u64, stats.sent.reliable.packets);
            }
            let unreliable = out.iter().filter(|d| !d.0).count() as u64;
            prop_assert_eq!(stats.delivered.unreliable.packets, unreliable);
            prop_assert_eq!(stats.delivered.reliable.packets, reliable.len() as u64);
            if !failed {
                prop_assert_eq!(
                    unreliable,
                    stats.sent.unreliable.packets + stats.duplicated
                        - stats.lost
                        - stats.severed_drops
                );
            }
        }
    }
}
