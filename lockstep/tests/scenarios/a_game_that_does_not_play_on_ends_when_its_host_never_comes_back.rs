//! When the host never comes back, its place moves only in a game that
//! plays on after a leave with the players who remain, at least two:
//! three players of a game that does not play on, and two players of one
//! that does, end with `PlayerLeft { slot: 0 }` once slot 0's window ran
//! out, and nobody takes the host's place.
use crate::common;

use common::host_moved::{host_never_back, moves_seen};
use common::{in_both_modes, rejoin_mesh, Crowd, Mode};
use lockstep::{Outcome, SessionConfig};
use lockstep_testing::Mesh;

#[test]
fn a_game_that_does_not_play_on_ends_when_its_host_never_comes_back() {
    in_both_modes(|mode| {
        let delay = if mode == Mode::LockStep { 4 } else { 2 };
        let host = SessionConfig::host(141, delay).rejoin_entropy(0x51ab_2026);
        let mut three = Mesh::<Crowd>::new(
            3,
            mode.cfg(host),
            mode.cfg(SessionConfig::guest()),
            common::mild_link(),
            141,
        );
        assert!(three.run_to_confirmed(300, 3000), "{}", three.progress());
        host_never_back(&mut three);
        assert!(
            three.run_until_all_end_of(&[1, 2], 60 * 60),
            "{}",
            three.progress()
        );
        for i in [1, 2] {
            assert_eq!(
                three.players[i].outcome(),
                Some(&Outcome::PlayerLeft { slot: 0 }),
                "member {i}"
            );
            assert!(moves_seen(&three, i).is_empty());
            assert!(!three.players[i].is_host());
        }

        // A game that plays on, but one player would remain.
        let mut two = rejoin_mesh(mode, 2, 142, 0x51ab_2026, common::mild_link(), (4, 2));
        assert!(two.run_to_confirmed(300, 3000), "{}", two.progress());
        host_never_back(&mut two);
        assert!(
            two.run_until_all_end_of(&[1], 60 * 60),
            "{}",
            two.progress()
        );
        assert_eq!(
            two.players[1].outcome(),
            Some(&Outcome::PlayerLeft { slot: 0 })
        );
        assert!(moves_seen(&two, 1).is_empty());
    });
}
