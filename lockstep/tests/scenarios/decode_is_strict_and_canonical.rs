//! The wire codec, as a property: every message round-trips, and whatever
//! bytes decode are exactly the encoding of what they decode to (so
//! decode-then-encode is the identity, including for mutated packets).
//! The cargo-fuzz target `decode` checks the same property for longer.
//!
//! Reproducing a failure: the properties run with a fresh random seed each
//! time and keep no regression file. A failing run prints `minimal failing
//! input: ...` (the shrunk message and mutation); pass those values to
//! [`check_round_trip`], [`check_mutated`] or [`check_bytes`] in
//! `pinned_cases` below, where the case then runs on every test run.
//! `PROPTEST_RNG_SEED=<n>` replays one fixed sequence of cases locally.

use lockstep::parts::{PartHashes, MAX_PARTS};
use lockstep::wire::{
    ByeReason, CatchUp, CatchUpRun, Confirmed, HashReport, Held, Hello, Inputs, Join, Member,
    Message, Missing, Pong, Rejoin, RejoinRefusal, Resume, Roster, RosterChange, Watch,
    WatchRefusal, Welcome, MAX_COUNT_CHANGES, MAX_RUN, MAX_SPECTATORS,
};
use proptest::prelude::*;

type M = Message<u16>;

/// Runs of inputs: random values, or held values (runs of 1 to 20), so that
/// both the plain and the repeat-mask encodings are exercised.
fn pads() -> impl Strategy<Value = Vec<u16>> {
    prop_oneof![
        proptest::collection::vec(any::<u16>(), 0..=MAX_RUN),
        proptest::collection::vec((0u16..4, 1usize..20), 0..40).prop_map(|runs| {
            let mut v: Vec<u16> = runs
                .into_iter()
                .flat_map(|(x, n)| std::iter::repeat_n(x, n))
                .collect();
            v.truncate(MAX_RUN);
            v
        }),
    ]
}

fn message() -> impl Strategy<Value = M> {
    let hello = (
        any::<u32>(),
        any::<u64>(),
        any::<u64>(),
        0u8..=2,
        0u8..=60,
        1u16..,
        0u8..=60,
        (2u8..=8, any::<u8>(), any::<u64>(), any::<u64>()),
    )
        .prop_map(
            |(protocol, build, seed, kind, input_delay, hash_interval, prediction_window, m)| {
                // A host's Hello (kind 0: slot 0's; kind 2: a guest's the
                // host's place moved to) names the match, the receiver's
                // slot and token and the checks of every slot's token; a
                // guest's (kind 1) leaves them 0.
                let mut proofs = [0u64; 8];
                let (players, side, slot, match_id, rejoin_token, host_proof) = match kind {
                    0 => (m.0, 0, 1 + m.1 % (m.0 - 1), m.2, m.3, m.3.rotate_left(9)),
                    2 => {
                        let players = m.0.max(3);
                        let side = 1 + m.1 % (players - 1);
                        let slot = if side + 1 < players { side + 1 } else { 1 };
                        (players, side, slot, m.2, 0, 0)
                    }
                    _ => (0, 1, 0, 0, 0, 0),
                };
                for (s, p) in proofs.iter_mut().enumerate().take(usize::from(players)) {
                    *p = m.3.rotate_left(s as u32 * 7);
                }
                M::Hello(Hello {
                    protocol,
                    build,
                    seed,
                    side,
                    input_delay,
                    hash_interval,
                    prediction_window,
                    players,
                    slot,
                    match_id,
                    rejoin_token,
                    host_proof,
                    proofs,
                })
            },
        );
    let member =
        (1u8..8, any::<u64>()).prop_map(|(slot, match_id)| M::Member(Member { slot, match_id }));
    let inputs = (
        0u32..1_000_000,
        -1000i32..1000,
        pads(),
        proptest::option::of(any::<u16>()),
        proptest::option::of((any::<u16>(), any::<u16>())),
        proptest::option::of(any::<i8>()),
    )
        .prop_map(|(first_tick, d, pads, ping, pong, advantage)| {
            M::Inputs(Inputs {
                ack: first_tick.saturating_add_signed(d),
                first_tick,
                pads,
                ping,
                pong: pong.map(|(id, held_ms)| Pong { id, held_ms }),
                advantage,
            })
        });
    let hash = (1u32.., any::<u64>()).prop_map(|(tick, hash)| M::Hash(HashReport { tick, hash }));
    let bye = prop_oneof![
        Just(ByeReason::Quit),
        (any::<u32>(), any::<u64>()).prop_map(|(tick, hash)| ByeReason::Desync { tick, hash }),
        Just(ByeReason::VersionMismatch),
        Just(ByeReason::InvalidData),
        Just(ByeReason::Timeout),
        (0u8..8).prop_map(|slot| ByeReason::PlayerLeft { slot }),
        prop_oneof![
            Just(RejoinRefusal::WrongToken),
            Just(RejoinRefusal::SlotLive),
            Just(RejoinRefusal::SlotNotHeld),
            Just(RejoinRefusal::HostUnable),
            Just(RejoinRefusal::NoJoiners),
            Just(RejoinRefusal::SlotHeld),
            Just(RejoinRefusal::NoFreeSlot),
            Just(RejoinRefusal::NotReady),
        ]
        .prop_map(ByeReason::RejoinRefused),
        prop_oneof![Just(WatchRefusal::Full), Just(WatchRefusal::TooSlow)]
            .prop_map(ByeReason::WatchRefused),
    ]
    .prop_map(M::Bye);
    // The membership messages: a guest's slot (1 to 7), ticks anywhere.
    let missing =
        (1u8..8, any::<u32>()).prop_map(|(slot, have)| M::Missing(Missing { slot, have }));
    let held = (1u8..8, 0u32..1_000_000, pads()).prop_map(|(slot, first_tick, pads)| {
        M::Held(Held {
            slot,
            first_tick,
            pads,
        })
    });
    let roster = (
        1u16..,
        any::<u32>(),
        1u8..8,
        proptest::option::of(any::<u64>()),
        0u8..=MAX_SPECTATORS,
        0u8..6,
    )
        .prop_map(|(seq, tick, slot, proof, count, kind)| {
            M::Roster(Roster {
                seq,
                tick,
                change: match (kind, proof) {
                    (0, _) => RosterChange::Spectators { count },
                    (5, _) => RosterChange::HostMoved { host: slot },
                    (4, proof) => RosterChange::Benched {
                        slot,
                        held_for: proof.map_or(0, |p| p as u32),
                    },
                    (3, proof) => RosterChange::Joined {
                        slot,
                        proof: proof.unwrap_or(0),
                    },
                    (_, None) => RosterChange::Neutral { slot },
                    (_, Some(proof)) => RosterChange::Returned { slot, proof },
                },
            })
        });
    // Spectators: a Watch, the host's Welcome (2 to 8 players, a hash
    // interval of at least 1), runs of confirmed ticks (a whole number of
    // ticks of 2 to 8 slots, at most MAX_RUN inputs) and acknowledgements.
    let watch = (any::<u32>(), any::<u64>())
        .prop_map(|(protocol, build)| M::Watch(Watch { protocol, build }));
    let welcome = (any::<u64>(), 2u8..=8, 1u16.., any::<u64>()).prop_map(
        |(seed, players, hash_interval, match_id)| {
            M::Welcome(Welcome {
                seed,
                players,
                hash_interval,
                match_id,
            })
        },
    );
    let confirmed = (0u32..1_000_000, 2usize..=8, pads(), any::<bool>()).prop_filter_map(
        "a whole number of ticks",
        |(first_tick, players, pads, streamed)| {
            let ticks = pads.len() / players;
            let pads: Vec<u16> = pads.into_iter().take(ticks * players).collect();
            (ticks > 0).then(|| {
                let c = Confirmed {
                    first_tick,
                    ticks: u8::try_from(ticks).unwrap_or(1),
                    pads,
                };
                if streamed {
                    M::Streamed(c)
                } else {
                    M::Confirmed(c)
                }
            })
        },
    );
    // Rejoin after a reload: any slot (0: the host coming back); catch-up
    // runs of any slot, never empty.
    let rejoin = (any::<u32>(), any::<u64>(), 0u8..8, any::<u64>()).prop_map(
        |(protocol, build, slot, token)| {
            M::Rejoin(Rejoin {
                protocol,
                build,
                slot,
                token,
            })
        },
    );
    // Late join: any slot asked for, 0 meaning any.
    let join = (any::<u32>(), any::<u64>(), 0u8..8).prop_map(|(protocol, build, slot)| {
        M::Join(Join {
            protocol,
            build,
            slot,
        })
    });
    // A guest's answer to its host coming back: the match as it holds it.
    let resume = (
        any::<u64>(),
        0u8..=60,
        1u16..,
        0u8..=60,
        2u8..=8,
        any::<u8>(),
        any::<u64>(),
    )
        .prop_map(
            |(seed, input_delay, hash_interval, prediction_window, players, slot, match_id)| {
                let slot = 1 + slot % (players - 1);
                // Any of the other guests' slots may be benched.
                let others = ((1u16 << players) - 2) & !(1u16 << slot);
                let benched = (u16::from(seed as u8) & others) as u8;
                M::Resume(Resume {
                    seed,
                    input_delay,
                    hash_interval,
                    prediction_window,
                    players,
                    slot,
                    match_id,
                    benched,
                    bench_ticks: core::array::from_fn(|s| {
                        if benched & 1 << s != 0 {
                            (match_id >> (4 * s)) as u32 & 0xfff
                        } else {
                            0
                        }
                    }),
                })
            },
        );
    let catch_up_run = (0u8..8, 0u32..1_000_000, pads())
        .prop_filter("a run holds an input", |(_, _, p)| !p.is_empty())
        .prop_map(|(slot, first_tick, pads)| {
            M::CatchUpRun(CatchUpRun {
                slot,
                first_tick,
                pads,
            })
        });
    // The spectator count's changes: ticks never going back, counts to
    // 16; neutral slots never the host's.
    let catch_up = (
        any::<u32>(),
        any::<u64>(),
        any::<u16>(),
        proptest::collection::vec((0u32..1_000, 0u8..=MAX_SPECTATORS), 0..=MAX_COUNT_CHANGES),
        any::<u8>(),
    )
        .prop_map(|(tick, hash, roster, mut spectators, neutral)| {
            spectators.sort_by_key(|&(t, _)| t);
            M::CatchUp(CatchUp {
                tick,
                hash,
                roster,
                spectators,
                neutral: neutral & !1,
            })
        });
    let parts = (
        1u32..,
        proptest::collection::vec(any::<u64>(), 0..=MAX_PARTS),
    )
        .prop_map(|(tick, hashes)| M::Parts(PartHashes { tick, hashes }));
    prop_oneof![
        hello,
        inputs,
        hash,
        any::<u16>().prop_map(M::Ping),
        (any::<u16>(), any::<u16>()).prop_map(|(id, held_ms)| M::Pong(Pong { id, held_ms })),
        bye,
        parts,
        member,
        missing,
        held,
        roster,
        (1u16..).prop_map(M::RosterAck),
        rejoin,
        join,
        resume,
        catch_up_run,
        catch_up,
        watch,
        welcome,
        confirmed,
        any::<u32>().prop_map(M::WatchAck),
        any::<u32>().prop_map(M::JoinReady),
    ]
}

/// Encoding then decoding gives the message back.
fn check_round_trip(m: M) {
    // Cannot fail: well-formed messages with u8/u16 inputs always encode.
    let bytes = m.encode().expect("valid messages encode");
    assert_eq!(M::decode(&bytes), Ok(m));
}

/// `m`'s encoding cut at `at` (modulo its length), or with the byte there
/// replaced: rejected, or the canonical encoding of what it decodes to.
fn check_mutated(m: M, at: usize, byte: u8, cut: bool) {
    // Cannot fail: well-formed messages with u8/u16 inputs always encode.
    let mut bytes = m.encode().expect("valid messages encode");
    let i = at % bytes.len();
    if cut {
        bytes.truncate(i);
    } else {
        bytes[i] = byte;
    }
    check_bytes(&bytes);
}

/// Whatever `bytes` decode to encodes back to exactly `bytes`.
fn check_bytes(bytes: &[u8]) {
    if let Ok(m) = M::decode(bytes) {
        // Cannot fail: a message that decoded holds only encodable values.
        assert_eq!(m.encode().expect("decoded messages encode"), bytes);
    }
}

/// Cases worth keeping (see the module doc for adding a failing one).
#[test]
fn pinned_cases() {
    check_round_trip(M::Inputs(Inputs {
        ack: 0,
        first_tick: 1000,
        pads: vec![7; MAX_RUN],
        ping: Some(0),
        pong: None,
        advantage: Some(-128),
    }));
    check_mutated(M::Ping(300), 1, 0x80, false);
    check_bytes(&[2, 0, 0, 0, 0, 0]);
}

/// Late join's messages: a slot past the players in a Join, the host's
/// slot in a Joined change, a refusal past the last one, a JoinReady
/// without its tick or with bytes after it, and the tag after the last
/// message (JoinReady) are refused.
#[test]
fn late_join_values_out_of_range_are_refused() {
    use lockstep::wire::DecodeError;
    let join = |slot: u8| {
        let mut b = vec![23, 11];
        b.extend_from_slice(&[0; 8]);
        b.push(slot);
        b
    };
    assert!(M::decode(&join(7)).is_ok());
    assert_eq!(M::decode(&join(8)), Err(DecodeError::BadValue("slot")));
    let joined = |slot: u8| {
        let mut b = vec![12, 1, 4, 3, slot];
        b.extend_from_slice(&[0; 8]);
        b
    };
    assert!(M::decode(&joined(1)).is_ok());
    assert_eq!(M::decode(&joined(0)), Err(DecodeError::BadValue("slot")));
    assert!(M::decode(&[6, 8, 7]).is_ok());
    assert_eq!(M::decode(&[6, 8, 8]), Err(DecodeError::BadValue("refusal")));
    assert_eq!(M::decode(&[25, 0xac, 0x02]), Ok(M::JoinReady(300)));
    assert_eq!(M::decode(&[25]), Err(DecodeError::Truncated));
    assert_eq!(M::decode(&[25, 1, 0]), Err(DecodeError::TrailingBytes(1)));
    assert_eq!(M::decode(&[25, 0x81, 0]), Err(DecodeError::NonCanonical));
    assert_eq!(M::decode(&[26]), Err(DecodeError::UnknownTag(26)));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn every_message_round_trips(m in message()) {
        check_round_trip(m);
    }

    #[test]
    fn mutated_packets_are_rejected_or_canonical(m in message(), at in any::<usize>(), byte in any::<u8>(),
                                                 cut in any::<bool>()) {
        check_mutated(m, at, byte, cut);
    }

    #[test]
    fn random_bytes_are_rejected_or_canonical(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
        check_bytes(&bytes);
    }
}
