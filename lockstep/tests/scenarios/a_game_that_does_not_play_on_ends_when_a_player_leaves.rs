//! Three players of a game that does not play on without a player (the
//! default of `DeterministicGame::plays_on_after_leave`); one player's
//! links are cut for good: when the rejoin window runs out, the two others
//! end with `PlayerLeft` naming its slot, and it ends with `PlayerLeft`
//! naming whichever of theirs ran out first.
use crate::common;

use common::{in_both_modes, Crowd};
use lockstep::{Millis, Outcome, SessionConfig};
use lockstep_testing::{LinkConfig, Mesh};

#[test]
fn a_game_that_does_not_play_on_ends_when_a_player_leaves() {
    in_both_modes(|mode| {
        let link = LinkConfig {
            latency: Millis(20),
            ..LinkConfig::default()
        };
        let mut m = Mesh::<Crowd>::new(
            3,
            mode.cfg(SessionConfig::host(5, 3)),
            mode.cfg(SessionConfig::guest()),
            link,
            5,
        );
        assert!(m.run_to_confirmed(300, 2000), "{}", m.progress());
        m.sever_player(2);
        let outcomes = m.run_until_all_end(m.net.frame + 60 * 30);
        assert_eq!(
            outcomes[..2],
            [
                Some(Outcome::PlayerLeft { slot: 2 }),
                Some(Outcome::PlayerLeft { slot: 2 }),
            ]
        );
        assert!(
            matches!(outcomes[2], Some(Outcome::PlayerLeft { slot: 0 | 1 })),
            "{outcomes:?}"
        );
    });
}
