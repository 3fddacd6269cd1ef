//! The host's page of a match of three of a game that plays on after a
//! leave is gone longer than the rejoin window: its place moves to the
//! first guest. A fresh host session coming back later with the right
//! token finds slot 0 left for good: it is refused with `SlotNotHeld` and ends
//! without ever playing, and the guests play on untouched with guest 1
//! as the host.
use crate::common;

use common::host_moved::{assert_host_moved, host_never_back};
use common::{
    assert_players_agree, host_back_cfg, in_both_modes, rejoin_mesh, run_some_to_confirmed,
};
use lockstep::{Outcome, RejoinRefusal};

#[test]
fn a_host_returning_after_its_place_moved_finds_its_slot_gone() {
    in_both_modes(|mode| {
        let (seed, entropy, delays) = (191, 0x3c4d_2026, (4, 2));
        let mut m = rejoin_mesh(mode, 3, seed, entropy, common::mild_link(), delays);
        assert!(m.run_to_confirmed(300, 3000), "{}", m.progress());
        let token = m.players[0].rejoin_token().expect("the host's token");
        host_never_back(&mut m);
        assert!(
            run_some_to_confirmed(&mut m, &[1, 2], 2000, 60 * 120),
            "{}",
            m.progress()
        );
        assert_host_moved(&m, &[1, 2], 1);
        let cfg = host_back_cfg(mode, seed, entropy, delays, token).players(3);
        m.reload_as(0, cfg)
            .expect("a host with entropy can come back");
        assert!(m.run_until_all_end_of(&[0], 60 * 15), "{}", m.progress());
        assert_eq!(
            m.players[0].outcome(),
            Some(&Outcome::RejoinRefused {
                why: RejoinRefusal::SlotNotHeld
            })
        );
        assert!(!m.players[0].seen.started);
        let from = m.players[1].confirmed_tick();
        let until = m.net.frame + 60 * 30;
        assert!(
            run_some_to_confirmed(&mut m, &[1, 2], from + 600, until),
            "{}",
            m.progress()
        );
        assert_host_moved(&m, &[1, 2], 1);
        assert_players_agree(&m, &[1, 2], 10);
    });
}
