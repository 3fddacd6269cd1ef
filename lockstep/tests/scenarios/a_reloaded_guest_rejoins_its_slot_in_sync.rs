//! A guest's page reloads mid-match: its session is destroyed with its
//! link, and a fresh session comes back with the token the host gave the
//! old one. The host takes it back into its held slot, sends the catch-up
//! (every input so far and its hash), the newcomer replays it and the
//! match plays on: both end in sync, with the same input log, and the host
//! never replayed anything.
use crate::common;

use common::{assert_players_agree, in_both_modes, rejoin_mesh, Mode};
use lockstep::Event;

#[test]
fn a_reloaded_guest_rejoins_its_slot_in_sync() {
    in_both_modes(|mode| {
        let link = common::mild_link();
        let mut m = rejoin_mesh(mode, 2, 21, 0x5eed_2026, link, (4, 2));
        assert!(m.run_to_confirmed(900, 3000), "{}", m.progress());
        let token = m.players[1].rejoin_token();
        assert!(token.is_some(), "the host gave the guest a token");
        m.reload(1).expect("a guest's slot can be rejoined");
        assert_eq!(m.players[1].rejoin_token(), token);
        assert!(m.run_to_confirmed(2400, 6000), "{}", m.progress());
        let rejoined: Vec<u32> = m.players[1]
            .seen
            .events
            .iter()
            .filter_map(|e| match e {
                Event::Rejoined { tick } => Some(*tick),
                _ => None,
            })
            .collect();
        assert_eq!(rejoined.len(), 1, "{:?}", m.players[1].seen.events);
        assert!(rejoined[0] >= 900, "{rejoined:?}");
        assert!(m.players[0]
            .seen
            .events
            .contains(&Event::Resumed { slot: 1 }));
        assert!(m.players.iter().all(|p| p.outcome().is_none()));
        // The host replayed nothing: its longest re-simulation is an
        // ordinary rollback, within the prediction window.
        let longest = m.players[0].stats().max_rollback;
        assert!(
            longest <= 8,
            "the host re-simulated {longest} ticks at once"
        );
        let want = if mode == Mode::LockStep { 1000 } else { 100 };
        assert_players_agree(&m, &[0, 1], want);
        eprintln!("rejoined at tick {}, {}", rejoined[0], m.progress());
    });
}
