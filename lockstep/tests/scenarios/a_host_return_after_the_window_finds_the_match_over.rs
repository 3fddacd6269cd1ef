//! The host's page is gone longer than the guest's rejoin window: the
//! guest ends with `PlayerLeft { slot: 0 }` after the timeout and the
//! window, and a fresh host session coming back later finds nobody to
//! take it back (an ended session answers nothing): it ends without ever
//! playing, and the guest's outcome stays.
use crate::common;

use common::{host_back_cfg, in_both_modes, rejoin_mesh};
use lockstep::Outcome;

#[test]
fn a_host_return_after_the_window_finds_the_match_over() {
    in_both_modes(|mode| {
        let (seed, entropy, delays) = (67, 0x6_0b0c_2026, (4, 2));
        let mut m = rejoin_mesh(mode, 2, seed, entropy, common::mild_link(), delays);
        assert!(m.run_to_confirmed(300, 2000), "{}", m.progress());
        let token = m.players[0].rejoin_token().expect("the host's token");
        m.players[0].runs = false;
        m.sever_player(0);
        assert!(m.run_until_all_end_of(&[1], 60 * 40), "{}", m.progress());
        let left = Some(Outcome::PlayerLeft { slot: 0 });
        assert_eq!(m.players[1].outcome(), left.as_ref());
        m.reload_as(0, host_back_cfg(mode, seed, entropy, delays, token))
            .expect("a host of two with entropy can come back");
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
        assert_eq!(m.players[1].outcome(), left.as_ref());
    });
}
