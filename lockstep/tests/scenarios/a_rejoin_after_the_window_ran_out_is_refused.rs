//! Three players of a game that plays on; one player's links are cut and
//! its window runs out, so its slot plays the neutral input. Its page then
//! reloads and the fresh session shows its token: the slot is no longer
//! held, the host refuses (`RejoinRefused { SlotNotHeld }`), and the two
//! others play on in sync, undisturbed.
use crate::common;

use common::{assert_players_agree, in_both_modes, rejoin_mesh};
use lockstep::wire::RejoinRefusal;
use lockstep::{Event, Millis, Outcome};
use lockstep_testing::LinkConfig;

#[test]
fn a_rejoin_after_the_window_ran_out_is_refused() {
    in_both_modes(|mode| {
        let link = LinkConfig {
            latency: Millis(20),
            ..LinkConfig::default()
        };
        let mut m = rejoin_mesh(mode, 3, 8, 0xabcd, link, (3, 1));
        assert!(m.run_to_confirmed(600, 2000), "{}", m.progress());
        m.sever_player(2);
        assert!(
            m.run_first_to_confirmed(2, 2400, 60 * 80),
            "{}",
            m.progress()
        );
        assert!(m.players[0]
            .seen
            .events
            .iter()
            .any(|e| matches!(e, Event::Left { slot: 2, .. })));
        m.reload(2).expect("a guest's slot");
        assert!(m.run_until_all_end_of(&[2], 600), "{}", m.progress());
        assert_eq!(
            m.players[2].outcome(),
            Some(&Outcome::RejoinRefused {
                why: RejoinRefusal::SlotNotHeld
            })
        );
        assert!(
            m.run_first_to_confirmed(2, 3000, 60 * 100),
            "{}",
            m.progress()
        );
        assert_players_agree(&m, &[0, 1], 100);
    });
}
