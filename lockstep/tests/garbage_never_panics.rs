//! Garbage from the peer never panics, and the documented policy holds:
//! anything that fails strict decoding or breaks the protocol ends the
//! match with InvalidData, sends Bye(InvalidData), and the peer then ends
//! with InvalidData { RejectedByPeer }. Inputs and pings that arrive before
//! the Hello are dropped.
mod common;

use common::{Mode, Pair, Tiny};
use lockstep::wire::{ByeReason, HashReport, Hello, Inputs, Message, MAX_RUN};
use lockstep::{
    Channel, DecodeError, Event, Millis, Outcome, Session, SessionConfig, Violation,
    PROTOCOL_VERSION,
};
use netsim::LinkConfig;
use proptest::prelude::*;

type M = Message<u8>;

fn guest_hello() -> Vec<u8> {
    M::Hello(Hello {
        protocol: PROTOCOL_VERSION,
        build: <Tiny as lockstep::DeterministicGame>::BUILD_ID,
        seed: 0,
        side: 1,
        input_delay: 0,
        hash_interval: 60,
        prediction_window: 0,
    })
    .encode()
    // Cannot fail: well-formed messages with u8/u16 inputs always encode.
    .expect("valid messages encode")
}

/// A host session that has accepted a (fake) guest's Hello: running, tick 0,
/// input delay 4.
fn running_host() -> Session<Tiny> {
    running_host_in(Mode::LockStep)
}

/// The same in `mode`.
fn running_host_in(mode: Mode) -> Session<Tiny> {
    let cfg = mode.cfg(SessionConfig::host(9, 4));
    // Cannot fail: the configuration is valid (delay <= 60, non-zero intervals).
    let mut s = Session::<Tiny>::new(cfg).expect("valid config");
    s.handle_datagram(Millis(0), Channel::Reliable, &guest_hello());
    assert!(s.is_running());
    while s.poll_transmit().is_some() {}
    while s.poll_event().is_some() {}
    s
}

fn inputs(ack: u32, first_tick: u32, pads: Vec<u8>) -> Vec<u8> {
    M::Inputs(Inputs {
        ack,
        first_tick,
        pads,
        ping: None,
        pong: None,
        advantage: None,
    })
    .encode()
    // Cannot fail: well-formed messages with u8/u16 inputs always encode.
    .expect("valid messages encode")
}

fn sent_bye(s: &mut Session<Tiny>) -> Option<ByeReason> {
    let mut bye = None;
    while let Some((ch, b)) = s.poll_transmit() {
        if let (Channel::Reliable, Ok(M::Bye(r))) = (ch, M::decode(&b)) {
            bye = Some(r);
        }
    }
    bye
}

/// Feeds `bytes` to a running host and returns the violation it ended with.
fn violation_of(channel: Channel, bytes: &[u8]) -> Violation {
    let mut s = running_host();
    s.advance_frame(Millis(16), || 1);
    s.handle_datagram(Millis(20), channel, bytes);
    let Some(Outcome::InvalidData { violation }) = s.outcome().cloned() else {
        panic!("not ended with InvalidData: {:?}", s.outcome());
    };
    assert_eq!(sent_bye(&mut s), Some(ByeReason::InvalidData));
    // Further garbage and calls change nothing and do not panic.
    s.handle_datagram(Millis(30), channel, bytes);
    s.advance_frame(Millis(33), || 1);
    assert!(matches!(s.outcome(), Some(Outcome::InvalidData { .. })));
    violation
}

fn malformed(channel: Channel, error: DecodeError) -> Violation {
    Violation::Malformed { channel, error }
}

#[test]
fn undecodable_datagrams_end_the_match() {
    let u = Channel::Unreliable;
    assert_eq!(violation_of(u, &[]), malformed(u, DecodeError::Empty));
    assert_eq!(
        violation_of(u, &[42]),
        malformed(u, DecodeError::UnknownTag(42))
    );
    // Truncated Inputs.
    let mut b = inputs(4, 4, vec![1, 2, 3]);
    b.pop();
    assert_eq!(violation_of(u, &b), malformed(u, DecodeError::Truncated));
    // Over-long (trailing bytes).
    let mut b = inputs(4, 4, vec![1]);
    b.extend([0, 0]);
    assert_eq!(
        violation_of(u, &b),
        malformed(u, DecodeError::TrailingBytes(2))
    );
    // A run over 128.
    let mut b = vec![1, 4, 0, 0x82, 0x02];
    b.extend([0u8; MAX_RUN + 1]);
    assert_eq!(
        violation_of(u, &b),
        malformed(u, DecodeError::RunTooLong(MAX_RUN as u32 + 1))
    );
    // Overlong varint.
    assert_eq!(
        violation_of(u, &[4, 0x81, 0x00]),
        malformed(u, DecodeError::NonCanonical)
    );
}

#[test]
fn protocol_violations_end_the_match() {
    let u = Channel::Unreliable;
    let r = Channel::Reliable;
    // Right message, wrong channel.
    assert_eq!(
        violation_of(r, &inputs(4, 4, vec![1])),
        Violation::WrongChannel { received_on: r }
    );
    assert_eq!(violation_of(r, &guest_hello()), Violation::UnexpectedHello);
    // The guest's first input is for tick 4 (the delay); 5 leaves a gap.
    assert_eq!(
        violation_of(u, &inputs(4, 5, vec![1])),
        Violation::InputGap {
            expected: 4,
            first: 5
        }
    );
    // Ticks below the delay are the default input on both sides.
    assert_eq!(
        violation_of(u, &inputs(4, 3, vec![7, 1])),
        Violation::ConflictingInput { tick: 3 }
    );
    // Far beyond what an honest peer can have sampled.
    assert_eq!(
        violation_of(u, &inputs(4, 4, vec![0; 100])),
        Violation::TooFarAhead { tick: 104 }
    );
    // The host sampled one input (tick 4): acking 6 is acking the future.
    assert_eq!(
        violation_of(u, &inputs(6, 4, vec![])),
        Violation::AckBeyondSent { ack: 6, sent: 5 }
    );
    let hash = |tick| {
        M::Hash(HashReport { tick, hash: 1 })
            .encode()
            // Cannot fail: well-formed messages with u8/u16 inputs always encode.
            .expect("valid messages encode")
    };
    assert_eq!(
        violation_of(r, &hash(61)),
        Violation::BadHashTick { tick: 61 }
    );
    assert_eq!(
        violation_of(r, &hash(6000)),
        Violation::TooFarAhead { tick: 6000 }
    );
    let bye = M::Bye(ByeReason::Desync { tick: 60, hash: 1 })
        .encode()
        // Cannot fail: well-formed messages with u8/u16 inputs always encode.
        .expect("valid messages encode");
    assert_eq!(
        violation_of(r, &bye),
        Violation::UnknownDesyncTick { tick: 60 }
    );
}

#[test]
fn conflicting_resent_input_is_refused() {
    let mut s = running_host();
    s.handle_datagram(Millis(1), Channel::Unreliable, &inputs(4, 4, vec![1, 2]));
    assert_eq!(s.outcome(), None);
    // The same again (a duplicate) is fine; a different value is not.
    s.handle_datagram(Millis(2), Channel::Unreliable, &inputs(4, 4, vec![1, 2]));
    assert_eq!(s.outcome(), None);
    s.handle_datagram(Millis(3), Channel::Unreliable, &inputs(4, 5, vec![3]));
    assert_eq!(
        s.outcome(),
        Some(&Outcome::InvalidData {
            violation: Violation::ConflictingInput { tick: 5 }
        })
    );
}

#[test]
fn side_conflicts_and_early_hashes_are_refused() {
    // Cannot fail: the configuration is valid (delay <= 60, non-zero intervals).
    let mut host = Session::<Tiny>::new(SessionConfig::host(1, 4)).expect("valid config");
    // Cannot fail: the configuration is valid (delay <= 60, non-zero intervals).
    let mut other_host = Session::<Tiny>::new(SessionConfig::host(2, 4)).expect("valid config");
    let (ch, hello) = other_host
        .poll_transmit()
        // Cannot fail: Session::new always queues the Hello, so there is one to take.
        .expect("a new session queues its Hello");
    host.handle_datagram(Millis(0), ch, &hello);
    assert_eq!(
        host.outcome(),
        Some(&Outcome::InvalidData {
            violation: Violation::SideConflict { remote_side: 0 }
        })
    );
    // Cannot fail: the configuration is valid (delay <= 60, non-zero intervals).
    let mut s = Session::<Tiny>::new(SessionConfig::guest()).expect("valid config");
    let hash = M::Hash(HashReport { tick: 60, hash: 1 })
        .encode()
        // Cannot fail: well-formed messages with u8/u16 inputs always encode.
        .expect("valid messages encode");
    s.handle_datagram(Millis(0), Channel::Reliable, &hash);
    assert_eq!(
        s.outcome(),
        Some(&Outcome::InvalidData {
            violation: Violation::HashBeforeHello
        })
    );
}

#[test]
fn inputs_and_pings_before_hello_are_dropped() {
    // Cannot fail: the configuration is valid (delay <= 60, non-zero intervals).
    let mut s = Session::<Tiny>::new(SessionConfig::guest()).expect("valid config");
    s.handle_datagram(Millis(0), Channel::Unreliable, &inputs(6, 6, vec![1, 2]));
    s.handle_datagram(
        Millis(0),
        Channel::Unreliable,
        // Cannot fail: well-formed messages with u8/u16 inputs always encode.
        &M::Ping(3).encode().expect("valid messages encode"),
    );
    assert_eq!(s.outcome(), None);
}

#[test]
fn the_accused_peer_ends_with_rejected_by_peer() {
    common::in_both_modes(|mode| {
        let mut p = Pair::tiny_in(mode, LinkConfig::default(), 51, 1, 3);
        assert!(p.run_to_tick(100, 400));
        // The guest receives garbage as if from the host.
        let now = p.now();
        p.guest
            .handle_datagram(now, Channel::Unreliable, &[0xff, 0xff]);
        let (host, guest) = p.run_until_both_end(p.frame + 10);
        assert!(matches!(
            guest,
            Some(Outcome::InvalidData {
                violation: Violation::Malformed { .. }
            })
        ));
        assert_eq!(
            host,
            Some(Outcome::InvalidData {
                violation: Violation::RejectedByPeer
            })
        );
    });
}

fn every_phase() -> Vec<Session<Tiny>> {
    // Cannot fail: the configuration is valid (delay <= 60, non-zero intervals).
    let fresh = Session::<Tiny>::new(SessionConfig::guest()).expect("valid config");
    let mut ended = running_host();
    ended.quit(Millis(1));
    while ended.poll_event().is_some() {}
    let mut rollback_ended = running_host_in(Mode::Rollback);
    rollback_ended.quit(Millis(1));
    while rollback_ended.poll_event().is_some() {}
    vec![
        fresh,
        running_host(),
        ended,
        running_host_in(Mode::Rollback),
        rollback_ended,
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, failure_persistence: None, ..ProptestConfig::default() })]

    /// Random bytes on either channel, in every phase: no panic, and the
    /// session either ignores them (dropped) or ends with InvalidData, a
    /// version mismatch or (for a valid Bye) the outcome it names.
    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..300),
                                reliable in any::<bool>()) {
        let ch = if reliable { Channel::Reliable } else { Channel::Unreliable };
        for mut s in every_phase() {
            let before = s.outcome().cloned();
            s.handle_datagram(Millis(5), ch, &bytes);
            s.advance_frame(Millis(16), || 0);
            s.handle_timeout(Millis(17));
            while s.poll_transmit().is_some() {}
            while let Some(e) = s.poll_event() {
                if let Event::Ended(o) = e {
                    prop_assert!(before.is_none());
                    prop_assert_eq!(Some(&o), s.outcome());
                }
            }
            let _ = s.input_log();
        }
    }

    /// Valid messages with random fields, in random order: no panic.
    #[test]
    fn random_valid_messages_never_panic(msgs in proptest::collection::vec(
        (0u8..6, any::<u32>(), any::<u32>(), proptest::collection::vec(any::<u8>(), 0..=MAX_RUN), any::<u16>()),
        1..20), rollback in any::<bool>()) {
        let mut s = running_host_in(if rollback { Mode::Rollback } else { Mode::LockStep });
        for (i, (kind, a, b, pads, id)) in msgs.into_iter().enumerate() {
            let a = a % 300;
            let b = b % 300;
            let m = match kind {
                0 => M::Inputs(Inputs { ack: a, first_tick: b, pads, ping: Some(id), pong: None, advantage: Some(id as i8) }),
                1 => M::Hash(HashReport { tick: a.max(1), hash: u64::from(b) }),
                2 => M::Ping(id),
                3 => M::Pong(lockstep::wire::Pong { id, held_ms: b as u16 }),
                4 => M::Bye(ByeReason::Desync { tick: a, hash: 0 }),
                _ => M::Inputs(Inputs { ack: 4, first_tick: 4 + (i as u32), pads: vec![1], ping: None, pong: None, advantage: None }),
            };
            // Cannot fail: well-formed messages with u8/u16 inputs always encode.
            let bytes = m.encode().expect("valid messages encode");
            s.handle_datagram(Millis(i as u64), m.channel(), &bytes);
            s.advance_frame(Millis(i as u64), || 1);
        }
        while s.poll_transmit().is_some() {}
    }
}
