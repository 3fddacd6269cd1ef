//! A game that plays on after a leave but takes no new players (the
//! default of `DeterministicGame::takes_joiners`): a player leaves for
//! good, its slot plays the neutral input, and a newcomer asking for that
//! slot (or any) is refused with `NoJoiners`. The two players left play on
//! in sync, the slot still neutral.
use crate::common;

use common::{in_both_modes, mesh_after_a_leave, refused_join, Bench};
use lockstep::wire::RejoinRefusal;
use lockstep::{Millis, Outcome, SessionConfig};
use lockstep_testing::LinkConfig;

#[test]
fn a_join_into_a_game_without_joiners_is_refused() {
    in_both_modes(|mode| {
        let link = LinkConfig {
            latency: Millis(30),
            loss_percent: 2,
            ..LinkConfig::default()
        };
        let mut m = mesh_after_a_leave::<Bench>(mode, 0x101f, link, 3, 1500);
        for asked in [Some(2), None] {
            let why = refused_join(
                &mut m,
                mode.cfg(SessionConfig::guest().join(asked)),
                &[0, 1],
                true,
            );
            assert_eq!(
                why,
                Outcome::RejoinRefused {
                    why: RejoinRefusal::NoJoiners
                }
            );
        }
        let log = m.players[0].input_log();
        let last = log.inputs.chunks(3).last().expect("ticks ran");
        assert_eq!(last[2], 0, "slot 2 still plays the neutral input");
    });
}
