//! A fresh session with the host's own token asks the guest for the match
//! while the old host session still plays (a copy of the host's tab, say):
//! the guest refuses it on that new link alone with `RejoinRefused {
//! SlotLive }`, and the match goes on in sync with the host it has.
use crate::common;

use common::{assert_players_agree, count_events, host_back_cfg, in_both_modes, rejoin_mesh, Mode};
use lockstep::wire::RejoinRefusal;
use lockstep::{Event, Outcome};

#[test]
fn a_host_return_while_the_old_host_is_live_is_refused() {
    in_both_modes(|mode| {
        let (seed, entropy, delays) = (61, 0x5_0b0c_2026, (4, 2));
        let mut m = rejoin_mesh(mode, 2, seed, entropy, common::mild_link(), delays);
        assert!(m.run_to_confirmed(300, 2000), "{}", m.progress());
        let token = m.players[0].rejoin_token().expect("the host's token");
        // Linked to the guest alone, on a link the guest does not know.
        let copy = m
            .add_player(host_back_cfg(mode, seed, entropy, delays, token), &[1])
            .expect("a host of two with entropy can come back");
        assert!(m.run_until_all_end_of(&[copy], 600), "{}", m.progress());
        assert_eq!(
            m.players[copy].outcome(),
            Some(&Outcome::RejoinRefused {
                why: RejoinRefusal::SlotLive
            })
        );
        assert!(m.run_first_to_confirmed(2, 900, 6000), "{}", m.progress());
        let dropped = m.players[1]
            .seen
            .events
            .iter()
            .any(|e| matches!(e, Event::Dropped { slot: 0, .. }));
        assert!(!dropped, "{:?}", m.players[1].seen.events);
        assert_eq!(count_events(&m, 1, &Event::Resumed { slot: 0 }), 0);
        assert!(m.players[..2].iter().all(|p| p.outcome().is_none()));
        let want = if mode == Mode::LockStep { 500 } else { 100 };
        assert_players_agree(&m, &[0, 1], want);
    });
}
