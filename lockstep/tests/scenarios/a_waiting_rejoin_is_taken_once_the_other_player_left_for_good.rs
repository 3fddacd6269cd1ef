//! Three players of a game that plays on after a leave. Guest 1's links
//! are cut for good; the host drops it and holds its slot. Guest 2's page
//! reloads meanwhile, and its fresh session's request waits (guest 1
//! cannot hand over what it holds of slot 2's inputs). Guest 1 never
//! comes back: when its window runs out it leaves for good (its slot
//! plays the neutral input; guest 2's old session, gone for good, is not
//! asked for its inputs), and the waiting request is taken up at once.
//! The host and guest 2 play on in sync, in both modes.
use crate::common;

use common::{assert_players_agree, in_both_modes, rejoin_mesh, run_some_to_confirmed};
use lockstep::{Event, Millis};
use lockstep_testing::LinkConfig;

#[test]
fn a_waiting_rejoin_is_taken_once_the_other_player_left_for_good() {
    in_both_modes(|mode| {
        let link = LinkConfig {
            latency: Millis(25),
            jitter: Millis(5),
            ..LinkConfig::default()
        };
        let mut m = rejoin_mesh(mode, 3, 23, 0x1eff_2026, link, (4, 2));
        assert!(m.run_to_confirmed(600, 2000), "{}", m.progress());
        m.sever_player(1);
        m.run_frames(420);
        m.reload(2).expect("a guest's slot can be rejoined");
        m.sever(1, 2);
        // Guest 1's slot is held for 20 s from its drop (5 s after the
        // cut); guest 2's fresh session waits all that time.
        let start = m.net.frame;
        while !m.players[2].is_running() {
            assert!(m.net.frame < start + 60 * 25, "{}", m.progress());
            for i in [0, 2] {
                assert_eq!(m.players[i].outcome(), None, "{}", m.progress());
            }
            m.step_frame();
        }
        let waited = m.net.frame - start;
        assert!(waited > 60 * 15, "taken back after {waited} frames");
        let left = m.players[0]
            .seen
            .events
            .iter()
            .position(|e| matches!(e, Event::Left { slot: 1, .. }));
        let resumed = m.players[0]
            .seen
            .events
            .iter()
            .position(|e| *e == Event::Resumed { slot: 2 });
        assert!(
            left.is_some() && resumed > left,
            "slot 1 left at {left:?}, slot 2 back at {resumed:?}"
        );
        let from = m.players[0].confirmed_tick();
        let stop = m.net.frame + 4000;
        assert!(
            run_some_to_confirmed(&mut m, &[0, 2], from + 600, stop),
            "{}",
            m.progress()
        );
        assert_players_agree(&m, &[0, 2], 10);
    });
}
