//! Garbage from the peer never panics, and the documented policy holds:
//! anything that fails strict decoding or breaks the protocol ends the
//! match with InvalidData, sends Bye(InvalidData), and the peer then ends
//! with InvalidData { RejectedByPeer }. Inputs that arrive before the
//! peer's Hello are dropped, pings are answered (a host picking its delay
//! from the round trip pings first). A Hello that will not decode but
//! announces another protocol version during the handshake is a version
//! mismatch.
//!
//! The property tests check each datagram against [`expected`], a model of
//! that policy written from `docs/engine.md` and `docs/protocol.md`, in
//! every phase a session goes through (see [`every_phase`]).
//!
//! Reproducing a failure: the property tests run with a fresh random seed
//! each time and keep no regression file. When one fails (in CI, say), the
//! panic message ends with `minimal failing input: bytes = [...], reliable
//! = ...`: paste those values into a call of [`check_datagram`] in
//! `pinned_cases` below, where the case then runs on every test run.
//! `PROPTEST_RNG_SEED=<n> cargo test -p lockstep --test scenarios garbage_never_panics`
//! replays one fixed sequence of cases locally.
use crate::common;

use common::{Mode, Pair, Tiny};
use lockstep::parts::{PartHashes, MAX_PARTS};
use lockstep::wire::{
    peek_hello_protocol, ByeReason, CatchUp, CatchUpRun, Confirmed, HashReport, Held, Hello,
    Inputs, Join, Member, Message, Missing, Rejoin, RejoinRefusal, Resume, Roster, RosterChange,
    SavedState, Watch, WatchRefusal, Welcome, MAX_RUN,
};
use lockstep::{
    Channel, DecodeError, DeterministicGame, Event, Frame, Millis, Outcome, Session, SessionConfig,
    Version, Violation, PROTOCOL_VERSION,
};
use lockstep::{LinkState, PeerId};
use lockstep_testing::member_id;
use netsim::LinkConfig;
use proptest::prelude::*;

type M = Message<u8>;

/// The running hosts' input delay.
const DELAY: u32 = 4;

fn encode(m: &M) -> Vec<u8> {
    // Cannot fail: well-formed messages with u8 inputs always encode.
    m.encode().expect("valid messages encode")
}

fn guest_hello() -> Vec<u8> {
    encode(&M::Hello(Hello {
        protocol: PROTOCOL_VERSION,
        build: Tiny::BUILD_ID,
        seed: 0,
        side: 1,
        input_delay: 0,
        hash_interval: 60,
        prediction_window: 0,
        players: 0,
        slot: 0,
        match_id: 0,
        rejoin_token: 0,
        host_proof: 0,
        proofs: [0; 8],
    }))
}

fn tiny_version() -> Version {
    Version {
        protocol: PROTOCOL_VERSION,
        build: Some(Tiny::BUILD_ID),
    }
}

fn drain(s: &mut Session<Tiny>) {
    while s.poll_transmit().is_some() {}
    while s.poll_event().is_some() {}
}

/// A host session in `mode` that has accepted a (fake) guest's Hello:
/// running, tick 0, input delay 4.
fn running_host_in(mode: Mode) -> Session<Tiny> {
    let cfg = mode.cfg(SessionConfig::host(9, DELAY as u8));
    // Cannot fail: the configuration is valid (delay <= 60, non-zero intervals).
    let mut s = Session::<Tiny>::new(cfg).expect("valid config");
    s.handle_datagram(Millis(0), PeerId(0), Channel::Reliable, &guest_hello());
    assert!(s.is_running());
    drain(&mut s);
    s
}

/// A host that picks its delay from the round trip, in the middle of
/// measuring it: the guest's Hello is in, two pings are out, its own Hello
/// is not sent yet.
fn measuring_host_in(mode: Mode) -> Session<Tiny> {
    let cfg = mode
        .cfg(SessionConfig::host(9, DELAY as u8))
        .input_delay_from_rtt();
    // Cannot fail: the configuration is valid (delay <= 60, non-zero intervals).
    let mut s = Session::<Tiny>::new(cfg).expect("valid config");
    assert!(
        s.poll_transmit().is_none(),
        "no Hello before the round trip"
    );
    s.handle_datagram(Millis(0), PeerId(0), Channel::Reliable, &guest_hello());
    let mut pings = 0;
    for now in [16, 33] {
        assert_eq!(s.advance_frame(Millis(now), || 1), Frame::Waiting);
        while let Some((_, ch, bytes)) = s.poll_transmit() {
            assert_eq!(ch, Channel::Unreliable);
            assert!(matches!(M::decode(&bytes), Ok(M::Ping(_))));
            pings += 1;
        }
    }
    assert_eq!(pings, 2);
    assert!(!s.is_running());
    drain(&mut s);
    s
}

fn inputs(ack: u32, first_tick: u32, pads: Vec<u8>) -> Vec<u8> {
    encode(&M::Inputs(Inputs {
        ack,
        first_tick,
        pads,
        ping: None,
        pong: None,
        advantage: None,
    }))
}

fn hash(tick: u32) -> Vec<u8> {
    encode(&M::Hash(HashReport { tick, hash: 1 }))
}

/// The reason of the last Bye the session queued, draining its datagrams.
fn sent_bye(s: &mut Session<Tiny>) -> Option<ByeReason> {
    let mut bye = None;
    while let Some((_, ch, b)) = s.poll_transmit() {
        if let (Channel::Reliable, Ok(M::Bye(r))) = (ch, M::decode(&b)) {
            bye = Some(r);
        }
    }
    bye
}

/// The first tick past what an honest peer's inputs can reach for a
/// host at tick 1 (after one frame), delay 4: tick + 2 × delay + window +
/// 8, where in lock-step the delay counted is at least
/// `MAX_ADAPTIVE_DELAY` (either side may have raised its own).
fn first_refused_tick(mode: Mode) -> u32 {
    let (delay, window) = match mode {
        Mode::LockStep => (DELAY.max(u32::from(lockstep::MAX_ADAPTIVE_DELAY)), 0),
        Mode::Rollback => (
            DELAY,
            u32::from(lockstep::session::DEFAULT_PREDICTION_WINDOW),
        ),
    };
    1 + 2 * delay + window + 8 + 1
}

/// Feeds `bytes` to a host running in `mode` (after one frame) and returns
/// the violation it ended with.
fn violation_of(mode: Mode, channel: Channel, bytes: &[u8]) -> Violation {
    let mut s = running_host_in(mode);
    assert_eq!(s.advance_frame(Millis(16), || 1), Frame::Ticked(1));
    s.handle_datagram(Millis(20), PeerId(0), channel, bytes);
    let Some(Outcome::InvalidData { violation }) = s.outcome().cloned() else {
        panic!("not ended with InvalidData: {:?}", s.outcome());
    };
    assert_eq!(sent_bye(&mut s), Some(ByeReason::InvalidData));
    // Further garbage and calls change nothing and do not panic.
    s.handle_datagram(Millis(30), PeerId(0), channel, bytes);
    s.advance_frame(Millis(33), || 1);
    assert!(matches!(s.outcome(), Some(Outcome::InvalidData { .. })));
    assert_eq!(s.poll_transmit(), None, "one Bye only");
    violation
}

fn malformed(channel: Channel, error: DecodeError) -> Violation {
    Violation::Malformed { channel, error }
}

#[test]
fn undecodable_datagrams_end_the_match() {
    common::in_both_modes(|mode| {
        let u = Channel::Unreliable;
        let v = |b: &[u8]| violation_of(mode, u, b);
        assert_eq!(v(&[]), malformed(u, DecodeError::Empty));
        assert_eq!(v(&[42]), malformed(u, DecodeError::UnknownTag(42)));
        // Truncated Inputs.
        let mut b = inputs(4, 4, vec![1, 2, 3]);
        b.pop();
        assert_eq!(v(&b), malformed(u, DecodeError::Truncated));
        // Over-long (trailing bytes).
        let mut b = inputs(4, 4, vec![1]);
        b.extend([0, 0]);
        assert_eq!(v(&b), malformed(u, DecodeError::TrailingBytes(2)));
        // A run over 128.
        let mut b = vec![1, 4, 0, 0x82, 0x02];
        b.extend([0u8; MAX_RUN + 1]);
        assert_eq!(
            v(&b),
            malformed(u, DecodeError::RunTooLong(MAX_RUN as u32 + 1))
        );
        // Overlong varint.
        assert_eq!(v(&[4, 0x81, 0x00]), malformed(u, DecodeError::NonCanonical));
        // A Hello of another protocol after the handshake is just malformed
        // (the version question was settled by the first Hello).
        let r = Channel::Reliable;
        assert_eq!(
            violation_of(mode, r, &[0, 9, 0xff]),
            malformed(r, DecodeError::Truncated)
        );
    });
}

#[test]
fn protocol_violations_end_the_match() {
    common::in_both_modes(|mode| {
        let u = Channel::Unreliable;
        let r = Channel::Reliable;
        // Right message, wrong channel.
        assert_eq!(
            violation_of(mode, r, &inputs(4, 4, vec![1])),
            Violation::WrongChannel { received_on: r }
        );
        assert_eq!(
            violation_of(mode, r, &encode(&M::Ping(1))),
            Violation::WrongChannel { received_on: r }
        );
        assert_eq!(
            violation_of(mode, u, &hash(60)),
            Violation::WrongChannel { received_on: u }
        );
        assert_eq!(
            violation_of(mode, r, &guest_hello()),
            Violation::UnexpectedHello
        );
        // The guest's first input is for tick 4 (the delay); 5 leaves a gap.
        assert_eq!(
            violation_of(mode, u, &inputs(4, 5, vec![1])),
            Violation::InputGap {
                expected: 4,
                first: 5
            }
        );
        // Ticks below the delay are the default input on both sides.
        assert_eq!(
            violation_of(mode, u, &inputs(4, 3, vec![7, 1])),
            Violation::ConflictingInput { tick: 3 }
        );
        // Far beyond what an honest peer can have sampled.
        assert_eq!(
            violation_of(mode, u, &inputs(4, 4, vec![0; 100])),
            Violation::TooFarAhead { tick: 104 }
        );
        // The host sampled one input (tick 4): acking 6 is acking the future.
        assert_eq!(
            violation_of(mode, u, &inputs(6, 4, vec![])),
            Violation::AckBeyondSent { ack: 6, sent: 5 }
        );
        assert_eq!(
            violation_of(mode, r, &hash(61)),
            Violation::BadHashTick { tick: 61 }
        );
        assert_eq!(
            violation_of(mode, r, &hash(6000)),
            Violation::TooFarAhead { tick: 6000 }
        );
        let bye = encode(&M::Bye(ByeReason::Desync { tick: 60, hash: 1 }));
        assert_eq!(
            violation_of(mode, r, &bye),
            Violation::UnknownDesyncTick { tick: 60 }
        );
    });
}

#[test]
fn the_too_far_ahead_limit_allows_for_the_window_and_a_raised_delay() {
    common::in_both_modes(|mode| {
        let refused = first_refused_tick(mode);
        // Inputs up to the limit are an honest peer running ahead ...
        let mut s = running_host_in(mode);
        s.advance_frame(Millis(16), || 1);
        let n = (refused - 1 - DELAY) as usize;
        s.handle_datagram(
            Millis(20),
            PeerId(0),
            Channel::Unreliable,
            &inputs(4, 4, vec![3; n]),
        );
        assert_eq!(s.outcome(), None, "{n} inputs from tick 4");
        // ... one more is a flood.
        assert_eq!(
            violation_of(mode, Channel::Unreliable, &inputs(4, 4, vec![3; n + 1])),
            Violation::TooFarAhead { tick: refused }
        );
    });
    // Rollback's limit is the window (8 ticks) further out than twice its
    // delay; lock-step's allows for two delays raised to the most.
    assert_eq!(
        first_refused_tick(Mode::Rollback),
        1 + 2 * DELAY + 8 + 8 + 1
    );
    assert_eq!(first_refused_tick(Mode::LockStep), 1 + 2 * 12 + 8 + 1);
}

#[test]
fn conflicting_resent_input_is_refused() {
    common::in_both_modes(|mode| {
        let mut s = running_host_in(mode);
        s.handle_datagram(
            Millis(1),
            PeerId(0),
            Channel::Unreliable,
            &inputs(4, 4, vec![1, 2]),
        );
        assert_eq!(s.outcome(), None);
        // The same again (a duplicate) is fine; a different value is not.
        s.handle_datagram(
            Millis(2),
            PeerId(0),
            Channel::Unreliable,
            &inputs(4, 4, vec![1, 2]),
        );
        assert_eq!(s.outcome(), None);
        s.handle_datagram(
            Millis(3),
            PeerId(0),
            Channel::Unreliable,
            &inputs(4, 5, vec![3]),
        );
        assert_eq!(
            s.outcome(),
            Some(&Outcome::InvalidData {
                violation: Violation::ConflictingInput { tick: 5 }
            })
        );
        assert_eq!(sent_bye(&mut s), Some(ByeReason::InvalidData));
    });
}

#[test]
fn side_conflicts_and_early_hashes_are_refused() {
    common::in_both_modes(|mode| {
        let host_cfg = |seed| mode.cfg(SessionConfig::host(seed, 4));
        // Cannot fail: the configuration is valid (delay <= 60, non-zero intervals).
        let mut host = Session::<Tiny>::new(host_cfg(1)).expect("valid config");
        // Cannot fail: the configuration is valid (delay <= 60, non-zero intervals).
        let mut other_host = Session::<Tiny>::new(host_cfg(2)).expect("valid config");
        other_host.handle_link_state(Millis(0), PeerId(0), LinkState::Open);
        let (_, ch, hello) = other_host
            .poll_transmit()
            // Cannot fail: an open link always gets the Hello, so there is one to take.
            .expect("an open link gets its Hello");
        host.handle_datagram(Millis(0), PeerId(1), ch, &hello);
        assert_eq!(
            host.outcome(),
            Some(&Outcome::InvalidData {
                violation: Violation::SideConflict { remote_side: 0 }
            })
        );
        assert!(!host.is_running() && host.game().is_none());
        // Cannot fail: the configuration is valid (non-zero intervals and timeout).
        let mut s = Session::<Tiny>::new(mode.cfg(SessionConfig::guest())).expect("valid config");
        s.handle_datagram(Millis(0), PeerId(0), Channel::Reliable, &hash(60));
        assert_eq!(
            s.outcome(),
            Some(&Outcome::InvalidData {
                violation: Violation::HashBeforeHello
            })
        );
    });
}

#[test]
fn inputs_before_hello_are_dropped_and_pings_answered() {
    common::in_both_modes(|mode| {
        // Cannot fail: the configuration is valid (non-zero intervals and timeout).
        let mut s = Session::<Tiny>::new(mode.cfg(SessionConfig::guest())).expect("valid config");
        s.handle_link_state(Millis(0), PeerId(0), LinkState::Open);
        drain(&mut s);
        s.handle_datagram(
            Millis(0),
            PeerId(0),
            Channel::Unreliable,
            &inputs(6, 6, vec![1, 2]),
        );
        s.handle_datagram(
            Millis(0),
            PeerId(0),
            Channel::Unreliable,
            &encode(&M::Ping(3)),
        );
        assert_eq!(s.outcome(), None);
        // The ping is answered at once: a host that picks its delay from
        // the round trip pings before it sends its Hello.
        assert!(matches!(
            s.poll_transmit().map(|(_, _, b)| M::decode(&b)),
            Some(Ok(M::Pong(_)))
        ));
    });
}

#[test]
fn the_accused_peer_ends_with_rejected_by_peer() {
    common::in_both_modes(|mode| {
        let mut p = Pair::tiny_in(mode, LinkConfig::default(), 51, 1, 3);
        assert!(p.run_to_tick(100, 400));
        // The guest receives garbage as if from the host.
        let now = p.now();
        p.guest
            .handle_datagram(now, member_id(0), Channel::Unreliable, &[0xff, 0xff]);
        let (host, guest) = p.run_until_both_end(p.frame() + 10);
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

// ----- the policy as a model -------------------------------------------------

/// Where a session under test stands when the datagram arrives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// A guest that has heard nothing yet.
    FreshGuest,
    /// A host measuring the round trip (`measuring_host_in`): the guest's
    /// Hello is in, pings are out, the match has not started.
    MeasuringHost,
    /// A host running at tick 0 with delay 4 (`running_host_in`).
    Running(Mode),
    /// A running host that has quit.
    Ended,
    /// A spectator that has not heard the host yet.
    FreshSpectator,
}

/// A session in each phase, lock-step and rollback.
fn every_phase() -> Vec<(Phase, Session<Tiny>)> {
    let ended = |mode| {
        let mut s = running_host_in(mode);
        s.quit(Millis(1));
        drain(&mut s);
        s
    };
    let fresh = |mode: Mode| {
        // Cannot fail: the configuration is valid (non-zero intervals and timeout).
        let mut s = Session::<Tiny>::new(mode.cfg(SessionConfig::guest())).expect("valid config");
        drain(&mut s);
        s
    };
    let mut all = Vec::new();
    for mode in common::MODES {
        all.push((Phase::FreshGuest, fresh(mode)));
        all.push((Phase::MeasuringHost, measuring_host_in(mode)));
        all.push((Phase::Running(mode), running_host_in(mode)));
        all.push((Phase::Ended, ended(mode)));
    }
    // Cannot fail: the configuration is valid.
    let mut spectator = Session::<Tiny>::new(SessionConfig::spectator()).expect("valid config");
    drain(&mut spectator);
    all.push((Phase::FreshSpectator, spectator));
    all
}

/// What a datagram must lead to.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Expect {
    /// Dropped, answered or stored: the match goes on (or stays ended).
    Nothing,
    /// The match ends with this outcome, and this Bye goes to the peer.
    Ends(Outcome, Option<ByeReason>),
    /// The match goes on, but this Bye goes to the link (a refused
    /// rejoin: only the newcomer on that link hears of it).
    Answers(ByeReason),
}

fn invalid(violation: Violation) -> Expect {
    Expect::Ends(
        Outcome::InvalidData { violation },
        Some(ByeReason::InvalidData),
    )
}

fn mismatch(remote: Version) -> Expect {
    Expect::Ends(
        Outcome::VersionMismatch {
            local: tiny_version(),
            remote: Some(remote),
        },
        Some(ByeReason::VersionMismatch),
    )
}

/// The policy: what `bytes` received on `channel` must do to a session in
/// `phase`. A running host is at tick 0 with delay 4: it holds (and has
/// sent) inputs for ticks 0..4, all the default 0.
fn expected(phase: Phase, channel: Channel, bytes: &[u8]) -> Expect {
    if phase == Phase::Ended {
        return Expect::Nothing;
    }
    let handshake = matches!(
        phase,
        Phase::FreshGuest | Phase::MeasuringHost | Phase::FreshSpectator
    );
    let msg = match M::decode(bytes) {
        Ok(m) => m,
        Err(error) => {
            return match peek_hello_protocol(bytes) {
                Some(protocol) if handshake && protocol != PROTOCOL_VERSION => mismatch(Version {
                    protocol,
                    build: None,
                }),
                _ => invalid(Violation::Malformed { channel, error }),
            };
        }
    };
    if msg.channel() != channel {
        return invalid(Violation::WrongChannel {
            received_on: channel,
        });
    }
    if phase == Phase::FreshSpectator {
        return spectator_expects(msg);
    }
    let running = match phase {
        Phase::Running(mode) => Some(mode),
        _ => None,
    };
    // Limit on ticks at tick 0: 2 × delay + window + 8.
    let limit = running.map(|mode| first_refused_tick(mode) - 2);
    match msg {
        M::Hello(h) => {
            if phase != Phase::FreshGuest {
                return invalid(Violation::UnexpectedHello);
            }
            let remote = Version {
                protocol: h.protocol,
                build: Some(h.build),
            };
            if remote != tiny_version() {
                mismatch(remote)
            } else {
                // The host's Hello starts the match; another guest's
                // waits for its introduction.
                Expect::Nothing
            }
        }
        M::Inputs(i) => {
            let Some(limit) = limit else {
                return Expect::Nothing; // before the match: dropped
            };
            if i.ack > DELAY {
                return invalid(Violation::AckBeyondSent {
                    ack: i.ack,
                    sent: DELAY,
                });
            }
            if i.first_tick > DELAY {
                return invalid(Violation::InputGap {
                    expected: DELAY,
                    first: i.first_tick,
                });
            }
            let end = i.first_tick + i.pads.len() as u32;
            if end > limit {
                return invalid(Violation::TooFarAhead { tick: end });
            }
            for (tick, &pad) in (i.first_tick..DELAY).zip(&i.pads) {
                if pad != 0 {
                    return invalid(Violation::ConflictingInput { tick });
                }
            }
            Expect::Nothing
        }
        M::Hash(h) => match limit {
            None => invalid(Violation::HashBeforeHello),
            Some(_) if h.tick % 60 != 0 => invalid(Violation::BadHashTick { tick: h.tick }),
            Some(limit) if h.tick > limit => invalid(Violation::TooFarAhead { tick: h.tick }),
            Some(_) => Expect::Nothing,
        },
        M::Ping(_) | M::Pong(_) => Expect::Nothing,
        // Only between guests, after their Hellos: this fresh guest has
        // heard no Hello, the others are a host or running.
        M::Member(_) => invalid(Violation::UnexpectedMember),
        M::Bye(reason) => match reason {
            ByeReason::Quit => Expect::Ends(Outcome::RemoteQuit, None),
            ByeReason::Timeout => Expect::Ends(Outcome::Timeout, None),
            ByeReason::HandshakeTimeout => Expect::Ends(Outcome::HandshakeTimeout, None),
            ByeReason::NoProgress => Expect::Ends(Outcome::NoProgress, None),
            ByeReason::PlayerLeft { slot } => Expect::Ends(Outcome::PlayerLeft { slot }, None),
            ByeReason::RejoinRefused(why) => Expect::Ends(Outcome::RejoinRefused { why }, None),
            // Only a spectator is refused a watch.
            ByeReason::WatchRefused(_) => invalid(Violation::UnexpectedWatch),
            ByeReason::InvalidData => Expect::Ends(
                Outcome::InvalidData {
                    violation: Violation::RejectedByPeer,
                },
                None,
            ),
            ByeReason::VersionMismatch => Expect::Ends(
                Outcome::VersionMismatch {
                    local: tiny_version(),
                    remote: (phase != Phase::FreshGuest).then(tiny_version),
                },
                None,
            ),
            // No phase here has hashed a tick yet.
            ByeReason::Desync { tick, .. } => invalid(Violation::UnknownDesyncTick { tick }),
        },
        // Part hashes come only after a desync both sides found; no phase
        // here has found one.
        M::Parts(p) => invalid(Violation::UnexpectedParts { tick: p.tick }),
        // Membership messages pass between the host and the guests of a
        // running match with a player leaving: the question and the change
        // only from a host, to a guest it did not ask about itself; the
        // runs and acknowledgements only in turn. No phase here has a
        // player leaving, and none is a guest of a running match.
        M::Missing(_) | M::Held(_) | M::Roster(_) | M::RosterAck(_) => {
            invalid(Violation::UnexpectedRoster)
        }
        // Only the host takes rejoins (a guest drops them); a host still in
        // its handshake cannot; a running host's link 0 is slot 1's, live:
        // a rejoin there for another slot is that player's fault, one for
        // its own slot from another build is told so, and this host
        // (given no entropy) issues no tokens.
        M::Rejoin(r) => match phase {
            Phase::FreshGuest | Phase::Ended | Phase::FreshSpectator => Expect::Nothing,
            Phase::MeasuringHost => {
                Expect::Answers(ByeReason::RejoinRefused(RejoinRefusal::HostUnable))
            }
            Phase::Running(_) if r.slot != 1 => invalid(Violation::UnexpectedRejoin),
            Phase::Running(_) if r.protocol != PROTOCOL_VERSION || r.build != Tiny::BUILD_ID => {
                Expect::Answers(ByeReason::VersionMismatch)
            }
            Phase::Running(_) => {
                Expect::Answers(ByeReason::RejoinRefused(RejoinRefusal::HostUnable))
            }
        },
        // A catch-up goes only to a session that rejoins, after the
        // host's Hello (or, from a guest, to a host coming back, after
        // the guest's Resume): none of these.
        M::CatchUpRun(_) | M::CatchUp(_) | M::SavedState(_) | M::Resume(_) => {
            invalid(Violation::BadCatchUp)
        }
        // A player stays a player: a Watch on its link is refused and
        // logged, the match untouched.
        M::Watch(_) => Expect::Nothing,
        // A player stays in its slot: a Join on a player's link is
        // refused and logged, the match untouched; guests never answer
        // one; a host still in its handshake has no free slot.
        M::Join(_) => match phase {
            Phase::MeasuringHost => {
                Expect::Answers(ByeReason::RejoinRefused(RejoinRefusal::HostUnable))
            }
            _ => Expect::Nothing,
        },
        // Only a newcomer the host is letting in says it is ready; on a
        // player's link (or before the match runs) it is logged and
        // dropped, the match untouched.
        M::JoinReady(_) => Expect::Nothing,
        // What the host sends a spectator, or a spectator the host, is
        // out of place between players.
        M::Welcome(_) | M::Confirmed(_) | M::WatchAck(_) | M::Streamed(_) => {
            invalid(Violation::UnexpectedWatch)
        }
    }
}

/// The policy for a spectator that has not heard the host yet: it takes
/// the host's Welcome, a keep-alive ping and a Bye (which ends it); a
/// Hello of another version is a mismatch as for any session in its
/// handshake; anything else is out of place.
fn spectator_expects(msg: M) -> Expect {
    match msg {
        // A streamed run may overtake the Welcome on its own channel: it
        // is dropped, the host sends it again.
        M::Welcome(_) | M::Ping(_) | M::Streamed(_) => Expect::Nothing,
        M::Bye(reason) => match reason {
            ByeReason::WatchRefused(why) => Expect::Ends(Outcome::WatchRefused { why }, None),
            ByeReason::Quit => Expect::Ends(Outcome::RemoteQuit, None),
            ByeReason::Timeout => Expect::Ends(Outcome::Timeout, None),
            ByeReason::HandshakeTimeout => Expect::Ends(Outcome::HandshakeTimeout, None),
            ByeReason::NoProgress => Expect::Ends(Outcome::NoProgress, None),
            ByeReason::PlayerLeft { slot } => Expect::Ends(Outcome::PlayerLeft { slot }, None),
            ByeReason::InvalidData => Expect::Ends(
                Outcome::InvalidData {
                    violation: Violation::RejectedByPeer,
                },
                None,
            ),
            ByeReason::VersionMismatch => Expect::Ends(
                Outcome::VersionMismatch {
                    local: tiny_version(),
                    remote: None,
                },
                None,
            ),
            ByeReason::Desync { .. } | ByeReason::RejoinRefused(_) => {
                invalid(Violation::UnexpectedWatch)
            }
        },
        _ => invalid(Violation::UnexpectedWatch),
    }
}

/// Feeds `bytes` on `channel` to a session in every phase, then a frame
/// and a timeout check, and holds each to [`expected`]: the outcome, the
/// single `Ended` event and the Bye sent. Panics with the phase on a
/// mismatch.
fn check_datagram(bytes: &[u8], reliable: bool) {
    let ch = if reliable {
        Channel::Reliable
    } else {
        Channel::Unreliable
    };
    for (phase, mut s) in every_phase() {
        let want = expected(phase, ch, bytes);
        let before = s.outcome().cloned();
        s.handle_datagram(Millis(100), PeerId(0), ch, bytes);
        s.advance_frame(Millis(116), || 0);
        s.handle_timeout(Millis(117));
        let bye = sent_bye(&mut s);
        let mut ended = Vec::new();
        while let Some(e) = s.poll_event() {
            if let Event::Ended(o) = e {
                ended.push(o);
            }
        }
        let _ = s.input_log();
        let ctx = format!("{phase:?}, {ch:?}, {:?}", M::decode(bytes));
        match want {
            Expect::Nothing => {
                assert_eq!(s.outcome().cloned(), before, "{ctx}");
                assert_eq!(ended, vec![], "{ctx}");
                assert_eq!(bye, None, "{ctx}");
            }
            Expect::Ends(outcome, want_bye) => {
                assert_eq!(s.outcome(), Some(&outcome), "{ctx}");
                assert_eq!(ended, vec![outcome], "{ctx}");
                assert_eq!(bye, want_bye, "{ctx}");
                assert_eq!(s.tick(), 0, "{ctx}: no tick after the end");
            }
            Expect::Answers(want_bye) => {
                assert_eq!(s.outcome().cloned(), before, "{ctx}");
                assert_eq!(ended, vec![], "{ctx}");
                assert_eq!(bye, Some(want_bye), "{ctx}");
            }
        }
    }
}

/// Every kind of datagram the model distinguishes, on both channels, in
/// every phase, so each branch of the policy runs on every test run (the
/// random cases below rarely build a valid message by chance).
#[test]
fn every_kind_of_datagram_in_every_phase() {
    let hello = |protocol, build, side: u8| {
        let host = side == 0;
        encode(&M::Hello(Hello {
            protocol,
            build,
            seed: 7,
            side,
            input_delay: 3,
            hash_interval: 60,
            prediction_window: 0,
            players: if host { 2 } else { 0 },
            slot: u8::from(host),
            match_id: if host { 7 } else { 0 },
            rejoin_token: if host { 9 } else { 0 },
            host_proof: 0,
            proofs: [0; 8],
        }))
    };
    let id = Tiny::BUILD_ID;
    let mut cases = vec![
        vec![],
        vec![0xff],
        vec![0, 9, 1],                      // future Hello layout
        vec![0, PROTOCOL_VERSION as u8, 1], // our version, cut short
        hello(PROTOCOL_VERSION, id, 0),     // accepted by a guest
        hello(PROTOCOL_VERSION, id, 1),     // another guest: waits for its Member
        encode(&M::Member(Member {
            slot: 2,
            match_id: 7,
        })), // never before a Hello
        hello(PROTOCOL_VERSION + 1, id, 0), // version mismatch
        hello(PROTOCOL_VERSION, id ^ 1, 0), // build mismatch
        inputs(4, 4, vec![1, 2]),           // fine
        inputs(0, 0, vec![0, 0, 0, 0, 5]),  // fine: resends the defaults
        inputs(0, 2, vec![0, 9]),           // conflicts at tick 3
        inputs(5, 4, vec![]),               // acks the future
        inputs(4, 5, vec![1]),              // gap
        inputs(4, 4, vec![1; 13]),          // refused in lock-step only
        hash(60),
        hash(7),
        encode(&M::Ping(1)),
        encode(&M::Pong(lockstep::wire::Pong { id: 0, held_ms: 2 })),
        encode(&M::Pong(lockstep::wire::Pong { id: 99, held_ms: 2 })),
        encode(&M::Parts(PartHashes {
            tick: 60,
            hashes: vec![1, 2, 3],
        })),
        vec![8, 60, 65],            // 65 part hashes announced: over the cap
        vec![8, 60, 0xff, 0xff, 3], // an absurd part count
        vec![8, 0, 0],              // part hashes of tick 0
        vec![8, 60, 2, 1, 2, 3],    // part hashes cut short
        encode(&M::Missing(Missing { slot: 1, have: 0 })),
        encode(&M::Missing(Missing { slot: 2, have: 4 })),
        // A guest acting for an absent host asks about slot 0, hands its
        // runs on and orders its return: never to a host.
        encode(&M::Missing(Missing { slot: 0, have: 4 })),
        encode(&M::Held(Held {
            slot: 0,
            first_tick: 4,
            pads: vec![1, 2],
        })),
        encode(&M::Roster(Roster {
            seq: 1,
            tick: 4,
            change: RosterChange::Returned { slot: 0, proof: 7 },
        })),
        vec![10, 8, 4],       // Missing of slot 8: nobody's
        vec![12, 1, 4, 0, 0], // slot 0 left: never
        encode(&M::Held(Held {
            slot: 1,
            first_tick: 4,
            pads: vec![1, 2],
        })),
        encode(&M::Roster(Roster {
            seq: 1,
            tick: 4,
            change: RosterChange::Neutral { slot: 1 },
        })),
        encode(&M::RosterAck(1)),
        vec![11, 1, 0, 0x82, 0x02], // a run of 129 announced
        vec![12, 0, 4, 0, 1],       // change number 0
        encode(&M::Rejoin(Rejoin {
            protocol: PROTOCOL_VERSION,
            build: id,
            slot: 1,
            token: 5,
        })), // a running host issued no token
        encode(&M::Rejoin(Rejoin {
            protocol: PROTOCOL_VERSION,
            build: id ^ 1,
            slot: 1,
            token: 5,
        })), // another build
        encode(&M::Rejoin(Rejoin {
            protocol: PROTOCOL_VERSION,
            build: id,
            slot: 2,
            token: 5,
        })), // a live player claims another slot
        encode(&M::Rejoin(Rejoin {
            protocol: PROTOCOL_VERSION,
            build: id,
            slot: 0,
            token: 5,
        })), // the host's slot, to a host or a guest not running yet
        encode(&M::Resume(Resume {
            seed: 3,
            input_delay: 4,
            hash_interval: 60,
            prediction_window: 0,
            players: 2,
            slot: 1,
            match_id: 9,
            benched: 0,
            bench_ticks: [0; 8],
        })), // to a session that is no returning host
        encode(&M::CatchUpRun(CatchUpRun {
            slot: 0,
            first_tick: 0,
            pads: vec![1, 2],
        })),
        encode(&M::CatchUp(CatchUp {
            tick: 4,
            hash: 1,
            roster: 0,
            spectators: vec![],
            neutral: 0,
        })),
        encode(&M::SavedState(SavedState {
            tick: 4,
            total: 3,
            offset: 0,
            bytes: vec![1, 2, 3],
        })),
        vec![22, 4, 0, 0, 1, 1],                // a saved state of no bytes
        vec![22, 4, 0x81, 0x10, 0, 0x81, 0x08], // a piece over 1 KiB announced
        vec![15, 1, 0, 0],                      // an empty catch-up run
        vec![15, 8, 0, 2, 1],                   // a run for slot 8
        encode(&M::Watch(Watch {
            protocol: PROTOCOL_VERSION,
            build: id,
        })), // a player cannot become a spectator
        encode(&M::Welcome(Welcome {
            seed: 7,
            players: 2,
            hash_interval: 60,
            match_id: 7,
        })),
        encode(&M::Confirmed(Confirmed {
            first_tick: 0,
            ticks: 2,
            pads: vec![1, 2, 3, 4],
        })),
        encode(&M::WatchAck(4)),
        encode(&M::Streamed(Confirmed {
            first_tick: 0,
            ticks: 2,
            pads: vec![1, 2, 3, 4],
        })),
        encode(&M::Roster(Roster {
            seq: 1,
            tick: 12,
            change: RosterChange::Spectators { count: 3 },
        })),
        vec![19, 0, 3, 8, 1, 2, 3, 4], // 4 inputs do not split into 3 ticks
        vec![19, 0, 0, 0],             // no tick
        vec![19, 0, 2, 4, 1, 2],       // one player
        vec![21, 0, 3, 8, 1, 2, 3, 4], // streamed: 4 inputs, 3 ticks
        vec![21, 0, 0, 0],             // streamed: no tick
        vec![21, 0, 2, 4, 1, 2],       // streamed: one player
        vec![18, 0, 0, 0, 0, 0, 0, 0, 0, 9, 60, 0, 0, 0, 0, 0, 0, 0, 0], // 9 players
        vec![12, 1, 4, 2, 17],         // 17 spectators
        encode(&M::Join(Join {
            protocol: PROTOCOL_VERSION,
            build: id,
            slot: 0,
        })), // a Join on a player's link
        encode(&M::Join(Join {
            protocol: PROTOCOL_VERSION,
            build: id,
            slot: 1,
        })),
        encode(&M::Roster(Roster {
            seq: 1,
            tick: 12,
            change: RosterChange::Joined { slot: 1, proof: 3 },
        })),
        vec![23, 11, 0, 0, 0, 0, 0, 0, 0, 0, 8], // a Join for slot 8
        vec![12, 1, 4, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0], // a join into slot 0
        encode(&M::Roster(Roster {
            seq: 1,
            tick: 12,
            change: RosterChange::Benched {
                slot: 1,
                held_for: 20_000,
            },
        })),
        vec![12, 1, 4, 4, 0, 0], // slot 0 benched
        encode(&M::Roster(Roster {
            seq: 1,
            tick: 12,
            change: RosterChange::HostMoved { host: 1 },
        })),
        vec![12, 1, 4, 5, 0],     // the host moved to its own slot
        vec![12, 1, 4, 6, 1],     // an unknown change
        encode(&M::JoinReady(0)), // a ready from a player, or before the match
        encode(&M::JoinReady(u32::MAX)),
        vec![25],                               // a ready without its tick
        vec![25, 0x80, 0x80, 0x80, 0x80, 0x80], // its tick past 32 bits
    ];
    for reason in [
        ByeReason::Quit,
        ByeReason::Timeout,
        ByeReason::InvalidData,
        ByeReason::VersionMismatch,
        ByeReason::HandshakeTimeout,
        ByeReason::NoProgress,
        ByeReason::Desync { tick: 60, hash: 3 },
        ByeReason::PlayerLeft { slot: 1 },
        ByeReason::RejoinRefused(RejoinRefusal::WrongToken),
        ByeReason::RejoinRefused(RejoinRefusal::SlotLive),
        ByeReason::RejoinRefused(RejoinRefusal::SlotNotHeld),
        ByeReason::RejoinRefused(RejoinRefusal::HostUnable),
        ByeReason::RejoinRefused(RejoinRefusal::NoJoiners),
        ByeReason::RejoinRefused(RejoinRefusal::SlotHeld),
        ByeReason::RejoinRefused(RejoinRefusal::NoFreeSlot),
        ByeReason::RejoinRefused(RejoinRefusal::NotReady),
        ByeReason::WatchRefused(WatchRefusal::Full),
        ByeReason::WatchRefused(WatchRefusal::TooSlow),
    ] {
        cases.push(encode(&M::Bye(reason)));
    }
    for bytes in &cases {
        for reliable in [false, true] {
            check_datagram(bytes, reliable);
        }
    }
}

/// Cases found by the property tests, or worth keeping: each runs on every
/// test run (see the module doc for adding one).
#[test]
fn pinned_cases() {
    check_datagram(&[], false);
    check_datagram(&[0, 3], true);
}

/// Random bytes; bytes that start with a real tag; and real messages with
/// random fields (so that more of them decode).
fn datagram() -> impl Strategy<Value = Vec<u8>> {
    let valid = (
        0u8..25,
        any::<u32>(),
        any::<u32>(),
        proptest::collection::vec(0u8..3, 0..20),
    )
        .prop_map(|(kind, a, b, pads)| {
            let m = match kind {
                0 => M::Hello(Hello {
                    protocol: PROTOCOL_VERSION + a % 2,
                    build: if b % 3 == 0 {
                        Tiny::BUILD_ID ^ 1
                    } else {
                        Tiny::BUILD_ID
                    },
                    seed: u64::from(b),
                    side: (a / 2 % 2) as u8,
                    input_delay: (b % 61) as u8,
                    hash_interval: (b % 200 + 1) as u16,
                    prediction_window: (a % 61) as u8,
                    players: if a / 2 % 2 == 0 { 2 } else { 0 },
                    slot: u8::from(a / 2 % 2 == 0),
                    match_id: if a / 2 % 2 == 0 { u64::from(b) } else { 0 },
                    rejoin_token: if a / 2 % 2 == 0 { u64::from(a) } else { 0 },
                    host_proof: 0,
                    proofs: [0; 8],
                }),
                6 if a % 5 == 0 => M::Member(Member {
                    slot: (b % 7 + 1) as u8,
                    match_id: u64::from(a),
                }),
                1 => M::Inputs(Inputs {
                    ack: a % 8,
                    first_tick: b % 8,
                    pads,
                    ping: None,
                    pong: None,
                    advantage: (a % 3 == 0).then_some(1),
                }),
                2 => M::Hash(HashReport {
                    tick: (a % 4 + 1) * 30,
                    hash: u64::from(b),
                }),
                3 => M::Ping(a as u16),
                4 => M::Pong(lockstep::wire::Pong {
                    id: (a % 4) as u16,
                    held_ms: b as u16,
                }),
                5 => M::Parts(PartHashes {
                    tick: (a % 4 + 1) * 30,
                    hashes: pads.iter().map(|&p| u64::from(p) * u64::from(b)).collect(),
                }),
                7 => M::Missing(Missing {
                    slot: (a % 8) as u8,
                    have: b % 8,
                }),
                8 => M::Held(Held {
                    slot: (a % 8) as u8,
                    first_tick: b % 8,
                    pads,
                }),
                9 if a % 2 == 0 => M::Roster(Roster {
                    seq: (a % 3 + 1) as u16,
                    tick: b % 8,
                    change: RosterChange::Neutral {
                        slot: (a % 7 + 1) as u8,
                    },
                }),
                9 => M::Roster(Roster {
                    seq: (a % 3 + 1) as u16,
                    tick: b % 8,
                    change: RosterChange::Returned {
                        slot: (a % 8) as u8,
                        proof: u64::from(b),
                    },
                }),
                10 => M::RosterAck((a % 3 + 1) as u16),
                11 => M::Rejoin(Rejoin {
                    protocol: PROTOCOL_VERSION + a % 2,
                    build: Tiny::BUILD_ID ^ u64::from(b % 2),
                    slot: (a % 8) as u8,
                    token: u64::from(b),
                }),
                12 if !pads.is_empty() => M::CatchUpRun(CatchUpRun {
                    slot: (a % 8) as u8,
                    first_tick: b % 8,
                    pads,
                }),
                12 => M::CatchUp(CatchUp {
                    tick: a % 8,
                    hash: u64::from(b),
                    roster: (a % 3) as u16,
                    spectators: vec![],
                    neutral: (b % 256) as u8 & !1,
                }),
                13 => M::Watch(Watch {
                    protocol: PROTOCOL_VERSION + a % 2,
                    build: Tiny::BUILD_ID ^ u64::from(b % 2),
                }),
                14 => M::Welcome(Welcome {
                    seed: u64::from(a),
                    players: (b % 7 + 2) as u8,
                    hash_interval: (a % 100 + 1) as u16,
                    match_id: u64::from(b),
                }),
                15 if !pads.is_empty() && pads.len() % 2 == 0 => M::Confirmed(Confirmed {
                    first_tick: a % 8,
                    ticks: (pads.len() / 2) as u8,
                    pads,
                }),
                15 => M::WatchAck(a % 8),
                18 if !pads.is_empty() && pads.len() % 2 == 0 => M::Streamed(Confirmed {
                    first_tick: a % 8,
                    ticks: (pads.len() / 2) as u8,
                    pads,
                }),
                19 => M::SavedState(SavedState {
                    tick: a % 8,
                    total: (b % 4).max(pads.len() as u32).max(1),
                    offset: 0,
                    bytes: if pads.is_empty() { vec![1] } else { pads },
                }),
                23 if a % 2 == 0 => M::Roster(Roster {
                    seq: (a % 3 + 1) as u16,
                    tick: b % 8,
                    change: RosterChange::HostMoved {
                        host: (b % 7 + 1) as u8,
                    },
                }),
                23 => M::Resume(Resume {
                    seed: u64::from(b),
                    input_delay: (a % 61) as u8,
                    hash_interval: (b % 200 + 1) as u16,
                    prediction_window: (b % 61) as u8,
                    players: 2,
                    slot: 1,
                    match_id: u64::from(a),
                    benched: 0,
                    bench_ticks: [0; 8],
                }),
                24 => M::JoinReady(a % 8),
                20 => M::Join(Join {
                    protocol: PROTOCOL_VERSION + a % 2,
                    build: Tiny::BUILD_ID ^ u64::from(b % 2),
                    slot: (a % 8) as u8,
                }),
                21 => M::Roster(Roster {
                    seq: (a % 3 + 1) as u16,
                    tick: b % 8,
                    change: RosterChange::Joined {
                        slot: (a % 7 + 1) as u8,
                        proof: u64::from(b),
                    },
                }),
                22 => M::Roster(Roster {
                    seq: (a % 3 + 1) as u16,
                    tick: b % 8,
                    change: RosterChange::Benched {
                        slot: (a % 7 + 1) as u8,
                        held_for: b,
                    },
                }),
                16 => M::Roster(Roster {
                    seq: (a % 3 + 1) as u16,
                    tick: b % 8,
                    change: RosterChange::Spectators {
                        count: (a % 17) as u8,
                    },
                }),
                17 => M::Bye(ByeReason::WatchRefused(if a % 2 == 0 {
                    WatchRefusal::Full
                } else {
                    WatchRefusal::TooSlow
                })),
                _ if a % 8 == 6 => M::Bye(ByeReason::RejoinRefused(match b % 8 {
                    6 => RejoinRefusal::NotReady,
                    0 => RejoinRefusal::WrongToken,
                    1 => RejoinRefusal::SlotLive,
                    2 => RejoinRefusal::SlotNotHeld,
                    3 => RejoinRefusal::NoJoiners,
                    4 => RejoinRefusal::SlotHeld,
                    5 => RejoinRefusal::NoFreeSlot,
                    _ => RejoinRefusal::HostUnable,
                })),
                _ if a % 8 == 7 => M::Bye(ByeReason::PlayerLeft {
                    slot: (b % 8) as u8,
                }),
                _ => M::Bye(match a % 7 {
                    0 => ByeReason::Quit,
                    1 => ByeReason::Timeout,
                    2 => ByeReason::InvalidData,
                    3 => ByeReason::VersionMismatch,
                    4 => ByeReason::HandshakeTimeout,
                    5 => ByeReason::NoProgress,
                    _ => ByeReason::Desync { tick: b, hash: 0 },
                }),
            };
            encode(&m)
        });
    prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..300),
        (0u8..26, proptest::collection::vec(any::<u8>(), 0..24)).prop_map(|(tag, mut rest)| {
            rest.insert(0, tag);
            rest
        }),
        valid,
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, failure_persistence: None, ..ProptestConfig::default() })]

    /// Random datagrams on either channel, in every phase: no panic, and
    /// exactly what the policy says (see [`expected`]).
    #[test]
    fn random_bytes_follow_the_policy(bytes in datagram(), reliable in any::<bool>()) {
        check_datagram(&bytes, reliable);
    }

    /// Valid messages with random fields, in random order: no panic.
    #[test]
    fn random_valid_messages_never_panic(msgs in proptest::collection::vec(
        (0u8..7, any::<u32>(), any::<u32>(), proptest::collection::vec(any::<u8>(), 0..=MAX_RUN), any::<u16>()),
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
                5 => M::Parts(PartHashes { tick: a.max(1), hashes: pads.iter().take(MAX_PARTS).map(|&p| u64::from(p)).collect() }),
                _ => M::Inputs(Inputs { ack: 4, first_tick: 4 + (i as u32), pads: vec![1], ping: None, pong: None, advantage: None }),
            };
            let bytes = encode(&m);
            s.handle_datagram(Millis(i as u64), PeerId(0), m.channel(), &bytes);
            s.advance_frame(Millis(i as u64), || 1);
        }
        while s.poll_transmit().is_some() {}
    }
}
