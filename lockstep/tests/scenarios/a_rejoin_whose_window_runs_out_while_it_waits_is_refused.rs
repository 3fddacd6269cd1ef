//! Three players of a game that plays on after a leave. Guest 2's links
//! are cut: the host drops it and holds its slot for 20 s. Ten seconds
//! later guest 1's links are cut too, and seven seconds after that guest
//! 2's page reloads. Its fresh session's request waits for guest 1 (who
//! cannot hand over what it holds of slot 2's inputs), but slot 2's own
//! window keeps running and runs out first: the request is refused as a
//! rejoin after the window would be (`RejoinRefused { SlotNotHeld }`).
//! Guest 1 then comes back, slot 2 leaves for good, and the host and
//! guest 1 play on in sync, in both modes.
use crate::common;

use common::{assert_players_agree, in_both_modes, left_at, rejoin_mesh};
use lockstep::wire::RejoinRefusal;
use lockstep::{Millis, Outcome};
use lockstep_testing::LinkConfig;

#[test]
fn a_rejoin_whose_window_runs_out_while_it_waits_is_refused() {
    in_both_modes(|mode| {
        let link = LinkConfig {
            latency: Millis(20),
            jitter: Millis(5),
            ..LinkConfig::default()
        };
        let mut m = rejoin_mesh(mode, 3, 29, 0x0a7_2026, link, (4, 2));
        assert!(m.run_to_confirmed(600, 2000), "{}", m.progress());
        m.sever_player(2);
        m.run_frames(600);
        m.sever_player(1);
        m.run_frames(420);
        m.reload(2).expect("a guest's slot can be rejoined");
        m.sever(1, 2);
        // Slot 2's window ends 8 s later.
        let start = m.net.frame;
        assert!(m.run_until_all_end_of(&[2], 60 * 12), "{}", m.progress());
        let waited = m.net.frame - start;
        assert!(waited > 60 * 6, "refused after {waited} frames");
        assert_eq!(
            m.players[2].outcome(),
            Some(&Outcome::RejoinRefused {
                why: RejoinRefusal::SlotNotHeld
            })
        );
        assert_eq!(m.players[0].outcome(), None, "{}", m.progress());
        m.restore_player(1);
        let from = m.players[0].confirmed_tick();
        assert!(
            m.run_first_to_confirmed(2, from + 600, m.net.frame + 4000),
            "{}",
            m.progress()
        );
        for i in [0, 1] {
            assert!(
                !left_at(&m, i, 2).is_empty(),
                "player {i}: {}",
                m.progress()
            );
        }
        assert_players_agree(&m, &[0, 1], 10);
    });
}
