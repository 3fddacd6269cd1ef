//! The host's page of a match of three (of a game that does not play on
//! after a leave) is gone longer than the rejoin
//! window: both guests end with `PlayerLeft { slot: 0 }`, and a fresh host
//! session coming back later finds nobody to take it back (an ended
//! session answers nothing): it ends without ever playing, and the
//! guests' outcomes stay.
use crate::common;

use common::{host_back_cfg, in_both_modes, Crowd, Mode};
use lockstep::{Outcome, SessionConfig};
use lockstep_testing::Mesh;

#[test]
fn a_host_of_three_returning_after_the_window_finds_the_match_over() {
    in_both_modes(|mode| {
        let (seed, entropy, delays) = (101, 0x3c4d_2026, (4, 2));
        let delay = if mode == Mode::LockStep {
            delays.0
        } else {
            delays.1
        };
        let mut m = Mesh::<Crowd>::new(
            3,
            mode.cfg(SessionConfig::host(seed, delay).rejoin_entropy(entropy)),
            mode.cfg(SessionConfig::guest()),
            common::mild_link(),
            seed,
        );
        assert!(m.run_to_confirmed(300, 3000), "{}", m.progress());
        let token = m.players[0].rejoin_token().expect("the host's token");
        m.players[0].runs = false;
        m.sever_player(0);
        assert!(m.run_until_all_end_of(&[1, 2], 60 * 40), "{}", m.progress());
        let left = Some(Outcome::PlayerLeft { slot: 0 });
        for i in [1, 2] {
            assert_eq!(m.players[i].outcome(), left.as_ref());
        }
        let cfg = host_back_cfg(mode, seed, entropy, delays, token).players(3);
        m.reload_as(0, cfg)
            .expect("a host with entropy can come back");
        assert!(m.run_until_all_end_of(&[0], 60 * 15), "{}", m.progress());
        assert!(
            matches!(
                m.players[0].outcome(),
                Some(Outcome::Timeout | Outcome::HandshakeTimeout)
            ),
            "{:?}",
            m.players[0].outcome()
        );
        assert!(!m.players[0].seen.started);
        for i in [1, 2] {
            assert_eq!(m.players[i].outcome(), left.as_ref());
        }
    });
}
