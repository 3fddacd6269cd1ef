//! A peer that sends only pings (never its Hello) keeps the silence timer
//! from firing, but not the handshake's deadline: after
//! `DEFAULT_HANDSHAKE_TIMEOUT` (10 s) from its first call the session ends
//! with `HandshakeTimeout` and tells the peer with `Bye(HandshakeTimeout)`,
//! as host or guest, with a fixed delay or one from the round trip, in
//! lock-step and rollback.
use crate::common;

use common::{frame_time, in_both_modes, Tiny};
use lockstep::session::DEFAULT_HANDSHAKE_TIMEOUT;
use lockstep::wire::{ByeReason, Message};
use lockstep::PeerId;
use lockstep::{Millis, Outcome, Session, SessionConfig, Transport};
use netsim::LinkConfig;

type M = Message<u8>;

/// Runs `victim` against a scripted peer that pings every 20 frames and
/// sends nothing else; returns when the victim ended and its Bye.
fn against_a_pinger(cfg: SessionConfig) -> (Option<Outcome>, Millis, Option<ByeReason>) {
    let link = LinkConfig {
        latency: Millis(30),
        jitter: Millis(5),
        ..LinkConfig::default()
    };
    let (mut net, mut pinger) = netsim::pair(link, 8);
    // Cannot fail: the configurations used here are valid.
    let mut s = Session::<Tiny>::new(cfg).expect("valid config");
    let mut bye = None;
    let mut ended_at = None;
    for frame in 0..60 * 60u64 {
        let now = frame_time(frame);
        net.advance_to(now);
        if frame % 20 == 0 {
            // Cannot fail: u8 inputs and in-range fields always encode.
            let ping = M::Ping(frame as u16).encode().expect("encodes");
            // Cannot fail: the link is open and the datagram small.
            pinger
                .send(lockstep::Channel::Unreliable, &ping)
                .expect("link open");
        }
        s.pump(now, PeerId(0), &mut net);
        s.advance_frame(now, || 1);
        s.pump(now, PeerId(0), &mut net);
        while let Some((_, bytes)) = pinger.recv() {
            if let Ok(M::Bye(r)) = M::decode(&bytes) {
                bye = Some(r);
            }
        }
        if s.outcome().is_some() && ended_at.is_none() {
            ended_at = Some(now);
        }
        if bye.is_some() {
            break;
        }
    }
    (
        s.outcome().cloned(),
        ended_at.unwrap_or(Millis(u64::MAX)),
        bye,
    )
}

#[test]
fn a_peer_that_only_pings_is_dropped_after_the_handshake_deadline() {
    in_both_modes(|mode| {
        for cfg in [
            SessionConfig::guest(),
            SessionConfig::host(4, 6),
            SessionConfig::host(4, 6).input_delay_from_rtt(),
        ] {
            let (outcome, at, bye) = against_a_pinger(mode.cfg(cfg));
            assert_eq!(outcome, Some(Outcome::HandshakeTimeout), "{cfg:?}");
            assert_eq!(bye, Some(ByeReason::HandshakeTimeout), "{cfg:?}");
            // The first frame is at 0 ms: the deadline is 10 s after it.
            assert!(
                at >= DEFAULT_HANDSHAKE_TIMEOUT && at <= DEFAULT_HANDSHAKE_TIMEOUT + Millis(17),
                "{cfg:?}: ended at {at:?}"
            );
        }
    });
}

#[test]
fn the_deadline_is_a_setting_and_a_bye_ends_the_peer_too() {
    let cfg = SessionConfig::guest().handshake_timeout(Millis(3000));
    let (outcome, at, _) = against_a_pinger(cfg);
    assert_eq!(outcome, Some(Outcome::HandshakeTimeout));
    assert!(at >= Millis(3000) && at < Millis(3100), "{at:?}");
    // A peer told of it ends the same way.
    // Cannot fail: the default guest configuration is valid.
    let mut s = Session::<Tiny>::new(SessionConfig::guest()).expect("valid config");
    // Cannot fail: u8 inputs and in-range fields always encode.
    let bye = M::Bye(ByeReason::HandshakeTimeout)
        .encode()
        .expect("encodes");
    s.handle_datagram(Millis(5), PeerId(0), lockstep::Channel::Reliable, &bye);
    assert_eq!(s.outcome(), Some(&Outcome::HandshakeTimeout));
    // A zero deadline is a configuration mistake.
    assert!(Session::<Tiny>::new(SessionConfig::guest().handshake_timeout(Millis(0))).is_err());
}
