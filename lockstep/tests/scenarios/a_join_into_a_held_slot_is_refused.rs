//! A game that takes new players. A player's links are cut and its slot
//! is held for its rejoin window: a newcomer naming that slot, or asking
//! for any, is refused with `SlotHeld` (the slot is its player's until
//! the window runs out). The match is untouched: when the player's links
//! come back within the window, all three play on in sync.
use crate::common;

use common::{
    assert_players_agree, in_both_modes, refused_join, run_some_to_confirmed, running_three,
    OpenBench,
};
use lockstep::wire::RejoinRefusal;
use lockstep::{Event, Outcome, SessionConfig};

#[test]
fn a_join_into_a_held_slot_is_refused() {
    in_both_modes(|mode| {
        let mut m = running_three::<OpenBench>(mode, 0x1020);
        m.sever_player(2);
        // Dropped after the 5 s timeout, held for 20 s.
        m.run_frames(60 * 7);
        assert!(m.players[0]
            .seen
            .events
            .iter()
            .any(|e| matches!(e, Event::Dropped { slot: 2, .. })));
        for asked in [Some(2), None] {
            let why = refused_join(
                &mut m,
                mode.cfg(SessionConfig::guest().join(asked)),
                &[0, 1],
                false,
            );
            assert_eq!(
                why,
                Outcome::RejoinRefused {
                    why: RejoinRefusal::SlotHeld
                }
            );
        }
        m.restore_player(2);
        let to = m.players[0].confirmed_tick() + 600;
        let until = m.net.frame + 60 * 60;
        assert!(
            run_some_to_confirmed(&mut m, &[0, 1, 2], to, until),
            "{}",
            m.progress()
        );
        assert_players_agree(&m, &[0, 1, 2], 100);
    });
}
