//! A rejoiner refuses a saved state that does not fit, cleanly: with
//! `BadCatchUp` for bytes the game does not load, a state over the cap
//! (refused by the decoder before it is held), a state cut short, a piece
//! out of turn and a state past the catch-up's tick; with
//! `CatchUpHashMismatch` for a state that loads but is not the host's.
//! Each ends the rejoiner's session and nothing else; a good one plays on.
use crate::common;

use common::{in_both_modes, Mode};
use dots::Dots;
use lockstep::wire::{CatchUp, CatchUpRun, Hello, Message, SavedState, MAX_SAVED_STATE};
use lockstep::{
    Channel, DeterministicGame, Event, LinkState, Millis, Outcome, PeerId, Session, SessionConfig,
    Violation,
};

const SEED: u64 = 3;

/// A fresh dots session rejoining slot 1, given the host's Hello.
fn rejoiner(window: u8) -> Session<Dots> {
    let cfg = SessionConfig::guest().rejoin(1, 5);
    let mut s = Session::<Dots>::new(cfg).expect("a valid configuration");
    s.handle_link_state(Millis(0), PeerId(0), LinkState::Open);
    while s.poll_transmit().is_some() {}
    let hello = Message::<u8>::Hello(Hello {
        protocol: lockstep::PROTOCOL_VERSION,
        build: Dots::BUILD_ID,
        seed: SEED,
        side: 0,
        input_delay: 2,
        hash_interval: 60,
        prediction_window: window,
        players: 2,
        slot: 1,
        match_id: 11,
        rejoin_token: 5,
        host_proof: 0,
        proofs: [0; 8],
    });
    s.handle_datagram(Millis(30), PeerId(0), Channel::Reliable, &enc(hello));
    assert_eq!(s.outcome(), None);
    s
}

fn enc(m: Message<u8>) -> Vec<u8> {
    m.encode().expect("encodes")
}

fn piece(tick: u32, total: u32, offset: u32, bytes: &[u8]) -> Vec<u8> {
    enc(Message::SavedState(SavedState {
        tick,
        total,
        offset,
        bytes: bytes.to_vec(),
    }))
}

fn state(bytes: &[u8], tick: u32) -> Vec<u8> {
    piece(tick, bytes.len() as u32, 0, bytes)
}

fn end(tick: u32, hash: u64) -> Vec<u8> {
    enc(Message::CatchUp(CatchUp {
        tick,
        hash,
        roster: 0,
        spectators: vec![],
        neutral: 0,
    }))
}

/// The host's state after 100 ticks of scripted play.
fn host_state() -> Dots {
    let mut g = Dots::new(SEED, 2);
    for t in 0..100 {
        g.step(&[dots::scripted_input(t, 0), dots::scripted_input(t, 1)]);
    }
    g
}

#[test]
fn a_bad_saved_state_is_refused() {
    in_both_modes(|mode| {
        let window = if mode == Mode::LockStep { 0 } else { 8 };
        let good = host_state();
        let bytes = good.to_bytes();
        let hash = good.state_hash();
        let mut other = good.clone();
        other.step(&[dots::RIGHT, dots::UP]);
        let run = enc(Message::CatchUpRun(CatchUpRun {
            slot: 0,
            first_tick: 100,
            pads: vec![1],
        }));
        let bad_catch_up = Outcome::InvalidData {
            violation: Violation::BadCatchUp,
        };
        let cases: Vec<(&str, Vec<Vec<u8>>, Outcome)> = vec![
            (
                "bytes dots does not load",
                vec![state(&[1, 2, 3, 4, 5], 100), end(100, hash)],
                bad_catch_up.clone(),
            ),
            (
                "a state over the cap",
                vec![piece(100, MAX_SAVED_STATE + 1, 0, &bytes), end(100, hash)],
                bad_catch_up.clone(),
            ),
            (
                "a state cut short",
                vec![
                    piece(100, bytes.len() as u32 + 10, 0, &bytes),
                    end(100, hash),
                ],
                bad_catch_up.clone(),
            ),
            (
                "a piece not where the last one ended",
                vec![
                    piece(100, bytes.len() as u32, 0, &bytes[..4]),
                    piece(100, bytes.len() as u32, 5, &bytes[5..]),
                ],
                bad_catch_up.clone(),
            ),
            (
                "a state after a run",
                vec![run.clone(), state(&bytes, 100)],
                bad_catch_up.clone(),
            ),
            (
                "a state past the catch-up's tick",
                vec![state(&bytes, 100), end(90, hash)],
                bad_catch_up.clone(),
            ),
            (
                "another state",
                vec![state(&other.to_bytes(), 100), end(100, hash)],
                Outcome::InvalidData {
                    violation: Violation::CatchUpHashMismatch {
                        tick: 100,
                        local: other.state_hash(),
                        remote: hash,
                    },
                },
            ),
        ];
        for (what, datagrams, want) in cases {
            let mut s = rejoiner(window);
            for d in &datagrams {
                s.handle_datagram(Millis(40), PeerId(0), Channel::Reliable, d);
            }
            assert_eq!(s.outcome(), Some(&want), "{what}");
            assert!(!s.is_running(), "{what}");
        }
        // The host's own state, and nothing else to replay: the rejoiner
        // stands at tick 100 with the host's state and plays on.
        let mut s = rejoiner(window);
        for d in [state(&bytes, 100), end(100, hash)] {
            s.handle_datagram(Millis(40), PeerId(0), Channel::Reliable, &d);
        }
        assert_eq!(s.outcome(), None);
        assert!(s.is_running());
        assert_eq!(s.confirmed_tick(), 100);
        assert_eq!(s.confirmed_game().map(Dots::state_hash), Some(hash));
        let events: Vec<Event> = std::iter::from_fn(|| s.poll_event()).collect();
        assert!(
            events.contains(&Event::Rejoined { tick: 100 }),
            "{events:?}"
        );
    });
}
