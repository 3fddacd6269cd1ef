//! Three players; one guest's page reloads mid-match. Its fresh session
//! asks the host for its slot back; the host first gathers what the other
//! guest holds of the slot's inputs, tells that guest the slot came back
//! (with a fingerprint of the token), then sends the catch-up. The other
//! guest takes the fresh session on its link once the session's token
//! matches the fingerprint, sends its inputs again from there, and all
//! three play on in sync. Neither the host nor the guest that stayed
//! replays anything.
use crate::common;

use common::{assert_players_agree, in_both_modes, rejoin_mesh, Mode};
use lockstep::Event;
use lockstep_testing::member_id;

#[test]
fn a_reloaded_guest_rejoins_among_three_players_in_sync() {
    in_both_modes(|mode| {
        let link = common::mild_link();
        let mut m = rejoin_mesh(mode, 3, 33, 0x3ee_2026, link, (4, 2));
        assert!(m.run_to_confirmed(900, 3000), "{}", m.progress());
        m.reload(2).expect("a guest's slot can be rejoined");
        assert!(m.run_to_confirmed(2400, 6000), "{}", m.progress());
        let rejoined: Vec<u32> = m.players[2]
            .seen
            .events
            .iter()
            .filter_map(|e| match e {
                Event::Rejoined { tick } => Some(*tick),
                _ => None,
            })
            .collect();
        assert_eq!(rejoined.len(), 1, "{:?}", m.players[2].seen.events);
        assert!(rejoined[0] >= 900, "{rejoined:?}");
        // The host and the guest that stayed both took it back, once.
        for i in [0, 1] {
            let back = m.players[i]
                .seen
                .events
                .iter()
                .filter(|e| **e == Event::Resumed { slot: 2 })
                .count();
            assert_eq!(back, 1, "player {i}: {:?}", m.players[i].seen.events);
        }
        // The rejoiner knows who is behind each of its links again.
        assert_eq!(m.players[2].peer_slot(member_id(0)), Some(0));
        assert_eq!(m.players[2].peer_slot(member_id(1)), Some(1));
        assert!(m.players.iter().all(|p| p.outcome().is_none()));
        // Nobody who stayed replayed: their longest re-simulation is an
        // ordinary rollback, within the prediction window.
        for i in [0, 1] {
            let longest = m.players[i].stats().max_rollback;
            assert!(
                longest <= 8,
                "player {i} re-simulated {longest} ticks at once"
            );
        }
        let want = if mode == Mode::LockStep { 1000 } else { 100 };
        // All three hashed the same states, and the rejoiner compared its
        // hashes with both others after its catch-up (one match per peer
        // and tick).
        assert_players_agree(&m, &[0, 1, 2], want);
        let matched = m.players[2]
            .seen
            .events
            .iter()
            .filter(|e| matches!(e, Event::HashMatched(t) if *t > rejoined[0]))
            .count();
        assert!(
            matched >= 2 * 20,
            "{matched} hashes matched after the rejoin"
        );
        eprintln!("rejoined at tick {}, {}", rejoined[0], m.progress());
    });
}
