//! Three players. Guest 1's links are cut, so the host holds its slot;
//! guest 2's page reloads meanwhile and its fresh session's request
//! waits. Then the player quits on that page: its session ends, but
//! sends no `Bye`, since it does not know which link is the host's and
//! guest 1 (which has not taken it back) would take a `Bye` for the old
//! session's and end its own match. Nobody else ends. Guest 1 comes back;
//! the host takes the request up, its session never speaks, and slot 2
//! leaves for good at the end of its window. The host and guest 1 play on
//! in sync, in both modes.
use crate::common;

use common::{assert_players_agree, in_both_modes, left_at, rejoin_mesh};
use lockstep::Outcome;

#[test]
fn a_waiting_rejoiner_that_quits_ends_nobody_elses_match() {
    in_both_modes(|mode| {
        let mut m = rejoin_mesh(mode, 3, 31, 0x91e_2026, common::mild_link(), (4, 2));
        assert!(m.run_to_confirmed(600, 2000), "{}", m.progress());
        m.sever_player(1);
        m.run_frames(420);
        m.reload(2).expect("a guest's slot can be rejoined");
        m.sever(1, 2);
        m.run_frames(120);
        assert_eq!(m.players[2].outcome(), None, "{}", m.progress());
        let now = m.net.now();
        m.players[2].quit(now);
        assert_eq!(m.players[2].outcome(), Some(&Outcome::LocalQuit));
        m.run_frames(120);
        assert_eq!(m.players[0].outcome(), None, "{}", m.progress());
        assert_eq!(m.players[1].outcome(), None, "{}", m.progress());
        m.restore_player(1);
        // Slot 2, silent since it was taken back, is dropped and leaves
        // when its window runs out.
        let from = m.players[0].confirmed_tick();
        assert!(
            m.run_first_to_confirmed(2, from + 600, m.net.frame + 60 * 60),
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
