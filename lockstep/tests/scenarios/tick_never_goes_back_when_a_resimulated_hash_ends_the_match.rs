//! In rollback, a hash compared while the session re-simulates after a
//! misprediction can end the match (a desync found on a re-simulated tick,
//! or a forged Hash). The session still finishes the re-simulation: after
//! the end, `tick()` is where it was or later, never earlier, and `game()`
//! and `confirmed_game()` are the states of `tick()` and
//! `confirmed_tick()` ticks, not a state part-way through.
//!
//! The host here is scripted over the simulated link: it says Hello, lets
//! the guest run its whole prediction window on guesses, then sends a
//! Hash with a wrong value for a tick the guest has run on a guess,
//! followed by inputs that prove an earlier guess wrong.
use crate::common;

use common::Tiny;
use lockstep::wire::{HashReport, Hello, Inputs, Message};
use lockstep::PeerId;
use lockstep::{
    DeterministicGame, Millis, Outcome, Session, SessionConfig, Transport, PROTOCOL_VERSION,
};
use netsim::LinkConfig;

type M = Message<u8>;

fn send(net: &mut netsim::SimEndpoint, m: &M) {
    // Cannot fail: u8 inputs and in-range fields always encode.
    let bytes = m.encode().expect("valid messages encode");
    // Cannot fail: the simulated link is open and the datagram small.
    net.send(m.channel(), &bytes).expect("link open");
}

#[test]
fn an_end_during_resimulation_leaves_the_present_state() {
    let link = LinkConfig {
        latency: Millis(10),
        ..LinkConfig::default()
    };
    let (mut host_net, mut guest_net) = netsim::pair(link, 5);
    // Cannot fail: the default guest configuration is valid.
    let mut guest = Session::<Tiny>::new(SessionConfig::guest()).expect("valid config");
    send(
        &mut host_net,
        &M::Hello(Hello {
            protocol: PROTOCOL_VERSION,
            build: Tiny::BUILD_ID,
            seed: 3,
            side: 0,
            input_delay: 2,
            hash_interval: 1,
            prediction_window: 8,
            players: 2,
            slot: 1,
            match_id: 7,
            rejoin_token: 0,
            host_proof: 0,
            proofs: [0; 8],
        }),
    );
    let mut frame = 0u64;
    let mut run_frame = |guest: &mut Session<Tiny>, host_net: &mut netsim::SimEndpoint| {
        let now = common::frame_time(frame);
        frame += 1;
        host_net.advance_to(now);
        guest.pump(now, PeerId(0), &mut guest_net);
        guest.advance_frame(now, || 0);
        guest.pump(now, PeerId(0), &mut guest_net);
        while host_net.recv().is_some() {}
    };
    // The guest starts and runs ticks 0 and 1 (the delay) and then its
    // whole window of 8 on guesses of the host's input (0).
    for _ in 0..20 {
        run_frame(&mut guest, &mut host_net);
    }
    assert_eq!(guest.tick(), 10, "{guest:?}");
    assert_eq!(guest.confirmed_tick(), 2);
    let before = (guest.tick(), guest.confirmed_tick());

    // A Hash of tick 5 that cannot match, then the host's inputs for ticks
    // 2 to 7: a 7 at tick 4 makes the guest go back there and re-simulate,
    // and hashing tick 5 on the way ends the match.
    send(&mut host_net, &M::Hash(HashReport { tick: 5, hash: 1 }));
    send(
        &mut host_net,
        &M::Inputs(Inputs {
            ack: 0,
            first_tick: 2,
            pads: vec![0, 0, 7, 7, 7, 7],
            ping: None,
            pong: None,
            advantage: None,
        }),
    );
    for _ in 0..3 {
        run_frame(&mut guest, &mut host_net);
    }
    assert!(
        matches!(guest.outcome(), Some(Outcome::Desync { tick: 5, .. })),
        "{:?}",
        guest.outcome()
    );
    assert!(guest.stats().rollbacks >= 1, "{:?}", guest.stats());

    // Nothing went backwards, and each state is the one of its tick.
    assert!(
        guest.tick() >= before.0,
        "tick {} after {}",
        guest.tick(),
        before.0
    );
    assert!(guest.confirmed_tick() >= before.1);
    assert_eq!(guest.game().map(Tiny::ticks), Some(guest.tick()));
    assert_eq!(
        guest.confirmed_game().map(Tiny::ticks),
        Some(guest.confirmed_tick())
    );
    // The present state is the re-simulation with the host's real inputs
    // (ticks 2 to 7) and guesses past them (the last one, 7, repeated).
    let mut replay = Tiny::new(3, 2);
    let host_inputs = [0, 0, 0, 0, 7, 7, 7, 7, 7, 7];
    for &h in host_inputs.iter().take(guest.tick() as usize) {
        replay.step(&[h, 0]);
    }
    assert_eq!(
        guest.game().map(Tiny::state_hash),
        Some(replay.state_hash())
    );
}
