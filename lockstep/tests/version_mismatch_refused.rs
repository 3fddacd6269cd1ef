//! A different build id or protocol version is refused before the first
//! tick, with VersionMismatch on both sides.
mod common;

use common::{Pair, Tiny, TinyOtherBuild};
use lockstep::wire::{ByeReason, Hello, Message};
use lockstep::{
    Channel, DeterministicGame, Millis, Outcome, Session, SessionConfig, Version, PROTOCOL_VERSION,
};
use netsim::LinkConfig;

fn tiny_version() -> Version {
    Version {
        protocol: PROTOCOL_VERSION,
        build: Some(Tiny::BUILD_ID),
    }
}

#[test]
fn different_build_ids_refuse_to_play() {
    common::in_both_modes(|mode| {
        let link = LinkConfig {
            latency: Millis(50),
            ..LinkConfig::default()
        };
        let mut p: Pair<Tiny, TinyOtherBuild> = Pair::new(
            mode.cfg(SessionConfig::host(1, 6)),
            SessionConfig::guest(),
            link,
            31,
        );
        let (host, guest) = p.run_until_both_end(600);
        let other = Version {
            protocol: PROTOCOL_VERSION,
            build: Some(TinyOtherBuild::BUILD_ID),
        };
        assert_eq!(
            host,
            Some(Outcome::VersionMismatch {
                local: tiny_version(),
                remote: Some(other)
            })
        );
        assert_eq!(
            guest,
            Some(Outcome::VersionMismatch {
                local: other,
                remote: Some(tiny_version())
            })
        );
        assert_eq!((p.host.tick(), p.guest.tick()), (0, 0));
        assert!(p.host.game().is_none() && p.guest.game().is_none());
        assert!(!p.host_seen.started && !p.guest_seen.started);
    });
}

fn hello(protocol: u32, side: u8) -> Vec<u8> {
    Message::<u8>::Hello(Hello {
        protocol,
        build: Tiny::BUILD_ID,
        seed: 3,
        side,
        input_delay: 6,
        hash_interval: 60,
        prediction_window: 0,
    })
    .encode()
    // Cannot fail: well-formed messages with u8/u16 inputs always encode.
    .expect("valid messages encode")
}

/// `true` if the session queued a `Bye(VersionMismatch)` for its peer.
fn says_version_mismatch(s: &mut Session<Tiny>) -> bool {
    let mut found = false;
    while let Some((ch, bytes)) = s.poll_transmit() {
        if ch == Channel::Reliable
            && Message::<u8>::decode(&bytes) == Ok(Message::Bye(ByeReason::VersionMismatch))
        {
            found = true;
        }
    }
    found
}

#[test]
fn a_different_protocol_version_is_refused_by_host_and_guest() {
    for (cfg, peer_side) in [(SessionConfig::host(1, 6), 1), (SessionConfig::guest(), 0)] {
        // Cannot fail: the configuration is valid (delay <= 60, non-zero intervals).
        let mut s = Session::<Tiny>::new(cfg).expect("valid config");
        s.handle_datagram(
            Millis(10),
            Channel::Reliable,
            &hello(PROTOCOL_VERSION + 1, peer_side),
        );
        assert_eq!(
            s.outcome(),
            Some(&Outcome::VersionMismatch {
                local: tiny_version(),
                remote: Some(Version {
                    protocol: PROTOCOL_VERSION + 1,
                    build: Some(Tiny::BUILD_ID)
                })
            })
        );
        assert_eq!(s.tick(), 0);
        assert!(says_version_mismatch(&mut s), "the peer is told too");
    }
}

#[test]
fn a_future_hello_layout_is_still_a_version_mismatch() {
    // Protocol 9 with a Hello this version cannot parse.
    // Cannot fail: the configuration is valid (delay <= 60, non-zero intervals).
    let mut s = Session::<Tiny>::new(SessionConfig::guest()).expect("valid config");
    s.handle_datagram(Millis(0), Channel::Reliable, &[0, 9, 0xff, 0xff]);
    assert_eq!(
        s.outcome(),
        Some(&Outcome::VersionMismatch {
            local: tiny_version(),
            remote: Some(Version {
                protocol: 9,
                build: None
            })
        })
    );
    assert!(says_version_mismatch(&mut s));
}

#[test]
fn the_peer_of_a_refusing_side_ends_with_version_mismatch_too() {
    // The peer's Hello was accepted, then it says it refuses ours.
    // Cannot fail: the configuration is valid (delay <= 60, non-zero intervals).
    let mut s = Session::<Tiny>::new(SessionConfig::host(1, 6)).expect("valid config");
    s.handle_datagram(Millis(0), Channel::Reliable, &hello(PROTOCOL_VERSION, 1));
    let bye = Message::<u8>::Bye(ByeReason::VersionMismatch)
        .encode()
        // Cannot fail: well-formed messages with u8/u16 inputs always encode.
        .expect("valid messages encode");
    s.handle_datagram(Millis(0), Channel::Reliable, &bye);
    assert!(matches!(s.outcome(), Some(Outcome::VersionMismatch { .. })));
}
