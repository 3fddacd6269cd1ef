//! A game that takes new players, with every player there: a newcomer
//! asking for any slot is refused with `NoFreeSlot`, and so is one naming
//! a slot beyond the match's players. The three play on in sync.
use crate::common;

use common::{assert_players_agree, in_both_modes, refused_join, running_three, OpenBench};
use lockstep::wire::RejoinRefusal;
use lockstep::{Outcome, SessionConfig};

#[test]
fn a_join_with_no_free_slot_is_refused() {
    in_both_modes(|mode| {
        let mut m = running_three::<OpenBench>(mode, 0x1021);
        for asked in [None, Some(5)] {
            let why = refused_join(
                &mut m,
                mode.cfg(SessionConfig::guest().join(asked)),
                &[0, 1, 2],
                true,
            );
            assert_eq!(
                why,
                Outcome::RejoinRefused {
                    why: RejoinRefusal::NoFreeSlot
                }
            );
        }
        assert_players_agree(&m, &[0, 1, 2], 100);
    });
}
