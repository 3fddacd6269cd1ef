//! A game that takes new players, with every player there: a newcomer
//! naming a live player's slot is refused with `SlotLive`; the player in
//! it keeps playing and the three stay in sync.
use crate::common;

use common::{assert_players_agree, in_both_modes, refused_join, running_three, OpenBench};
use lockstep::wire::RejoinRefusal;
use lockstep::{Outcome, SessionConfig};

#[test]
fn a_joiner_claiming_a_live_slot_is_refused() {
    in_both_modes(|mode| {
        let mut m = running_three::<OpenBench>(mode, 0x1022);
        for slot in [1, 2] {
            let why = refused_join(
                &mut m,
                mode.cfg(SessionConfig::guest().join(Some(slot))),
                &[0, 1, 2],
                true,
            );
            assert_eq!(
                why,
                Outcome::RejoinRefused {
                    why: RejoinRefusal::SlotLive
                }
            );
        }
        assert_players_agree(&m, &[0, 1, 2], 100);
    });
}
