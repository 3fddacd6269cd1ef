//! The host picks the seed, input delay and hash interval and plays side 0;
//! the guest adopts them from the host's Hello and plays side 1, whatever it
//! configured itself.
use crate::common;

use common::Pair;
use lockstep::PeerId;
use lockstep::{Event, Millis, SessionConfig};
use netsim::LinkConfig;

#[test]
fn guest_adopts_seed_delay_and_hash_interval() {
    let link = LinkConfig {
        latency: Millis(40),
        ..LinkConfig::default()
    };
    let mut p: Pair<common::Tiny, common::Tiny> = Pair::new(
        SessionConfig::host(0xc0ffee, 9).hash_interval(30),
        SessionConfig::guest().hash_interval(45),
        link,
        71,
    );
    assert!(p.run_to_tick(300, 1000));
    assert_eq!(p.host.side(), Some(0));
    assert_eq!(p.guest.side(), Some(1));
    assert_eq!(p.guest.parameters(), Some((0xc0ffee, 9)));
    assert_eq!(p.host.parameters(), Some((0xc0ffee, 9)));
    let started = |events: &[Event]| {
        events
            .iter()
            .find(|e| matches!(e, Event::Started { .. }))
            .cloned()
    };
    assert_eq!(
        started(&p.guest.seen.events),
        Some(Event::Started {
            side: 1,
            seed: 0xc0ffee,
            input_delay: 9
        })
    );
    // Hashes every 30 ticks on both sides: 300 / 30 = 10 checks, minus the
    // last one possibly in flight.
    assert!(
        p.guest.seen.hash_matches >= 9,
        "{}",
        p.guest.seen.hash_matches
    );
    assert!(p
        .guest
        .seen
        .events
        .iter()
        .all(|e| !matches!(e, Event::HashMatched(t) if t % 30 != 0)));
    assert!(p.assert_in_sync() >= 300);
}

#[test]
fn nothing_ticks_before_both_hellos() {
    let link = LinkConfig {
        latency: Millis(100),
        ..LinkConfig::default()
    };
    let mut p = Pair::tiny(link, 72, 3, 4);
    // Hellos take 100 ms each way: the first 6 frames can only wait.
    p.run_frames(6);
    assert_eq!((p.host.tick(), p.guest.tick()), (0, 0));
    assert!(p
        .host
        .seen
        .frames
        .iter()
        .all(|f| *f == lockstep::Frame::Waiting));
    assert_eq!(
        p.host.pads.sampled(),
        0,
        "no pad is sampled before the start"
    );
    p.run_frames(60);
    assert!(p.host.tick() > 0 && p.guest.tick() > 0);
}

#[test]
fn guest_adopts_the_prediction_window() {
    let link = LinkConfig {
        latency: Millis(40),
        ..LinkConfig::default()
    };
    let mut p: Pair<common::Tiny, common::Tiny> = Pair::new(
        SessionConfig::host(5, 2).prediction_window(5),
        SessionConfig::guest().prediction_window(12),
        link,
        73,
    );
    assert_eq!(p.guest.prediction_window(), None, "not before the Hello");
    assert!(p.run_to_tick(300, 1000));
    assert_eq!(p.host.prediction_window(), Some(5));
    assert_eq!(p.guest.prediction_window(), Some(5));
    // Each side's predictions stayed within the host's window.
    assert!(p.guest.stats().max_rollback <= 5 && p.host.stats().max_rollback <= 5);
    assert!(p.guest.stats().predicted_ticks > 0);
}

/// The guest's Hello: zeros where the host decides, and the guest's own
/// configured hash interval, which the host ignores (its hashes keep its
/// own interval).
#[test]
fn the_guests_hello_carries_no_match_parameters() {
    use lockstep::wire::{Hello, Message};
    use lockstep::{Channel, DeterministicGame, Session, PROTOCOL_VERSION};
    let guest_cfg = SessionConfig::guest().hash_interval(45).rollback();
    // Cannot fail: the configuration is valid (non-zero intervals and timeout).
    let mut guest = Session::<common::Tiny>::new(guest_cfg).expect("valid config");
    guest.handle_link_state(Millis(0), PeerId(0), lockstep::LinkState::Open);
    let (_, ch, bytes) = guest
        .poll_transmit()
        // Cannot fail: an open link always gets the Hello, so there is one to take.
        .expect("an open link gets its Hello");
    assert_eq!(ch, Channel::Reliable);
    let hello = Hello {
        protocol: PROTOCOL_VERSION,
        build: common::Tiny::BUILD_ID,
        seed: 0,
        side: 1,
        input_delay: 0,
        hash_interval: 45,
        prediction_window: 0,
        players: 0,
        slot: 0,
        match_id: 0,
        rejoin_token: 0,
        host_proof: 0,
        proofs: [0; 8],
    };
    assert_eq!(Message::<u8>::decode(&bytes), Ok(Message::Hello(hello)));
    // Cannot fail: the configuration is valid (delay <= 60, non-zero intervals).
    let mut host = Session::<common::Tiny>::new(SessionConfig::host(1, 2)).expect("valid config");
    host.handle_datagram(Millis(0), PeerId(1), ch, &bytes);
    assert!(host.is_running());
    while host.poll_transmit().is_some() {}
    // The host runs 60 ticks on inputs 0 from the guest and sends its first
    // hash at tick 60 (its own interval), none at tick 45.
    let mut hashes = Vec::new();
    for frame in 0..62u32 {
        // The guest's inputs for every tick so far, all 0.
        let inputs = Message::<u8>::Inputs(lockstep::wire::Inputs {
            ack: 0,
            first_tick: 2,
            pads: vec![0; frame as usize + 1],
            ping: None,
            pong: None,
            advantage: None,
        });
        // Cannot fail: well-formed messages with u8 inputs always encode.
        let b = inputs.encode().expect("valid messages encode");
        let now = Millis(u64::from(frame) * 16);
        host.handle_datagram(now, PeerId(1), Channel::Unreliable, &b);
        host.advance_frame(now, || 0);
        while let Some((_, _, out)) = host.poll_transmit() {
            if let Ok(Message::Hash(h)) = Message::<u8>::decode(&out) {
                hashes.push(h.tick);
            }
        }
    }
    assert_eq!(host.outcome(), None);
    assert_eq!(host.tick(), 62);
    assert_eq!(hashes, vec![60]);
}
