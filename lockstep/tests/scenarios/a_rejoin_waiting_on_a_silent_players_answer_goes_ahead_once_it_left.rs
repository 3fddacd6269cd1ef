//! Three players in a game that plays on after a leave, over mildly
//! lossy links, the host holding a dropped player's slot for 3 s. Guest
//! 1's links are cut for good; a second later, before anyone takes it
//! for gone, guest 2's page reloads and the host takes the fresh
//! session's request up at once, asking guest 1 what it holds of slot
//! 2's inputs. Guest 1 never answers: it is dropped, and when its window
//! runs out its old session can no longer answer for anything. The
//! rejoin goes ahead without it (the fresh session, kept alive all the
//! while, does not end), then slot 1 leaves for good, and the host and
//! guest 2 play on in sync instead of the match ending. Both modes.
use crate::common;

use common::{assert_players_agree, in_both_modes, left_at, run_some_to_confirmed, Bench, Mode};
use lockstep::{Millis, SessionConfig};
use lockstep_testing::Mesh;

#[test]
fn a_rejoin_waiting_on_a_silent_players_answer_goes_ahead_once_it_left() {
    in_both_modes(|mode| {
        let delay = if mode == Mode::LockStep { 4 } else { 2 };
        let host = SessionConfig::host(29, delay)
            .rejoin_window(Millis(3000))
            .rejoin_entropy(0x1ef7_2026);
        let guest = SessionConfig::guest();
        let mut m = Mesh::<Bench>::new(3, mode.cfg(host), mode.cfg(guest), common::mild_link(), 29);
        assert!(m.run_to_confirmed(600, 2000), "{}", m.progress());
        m.sever_player(1);
        m.run_frames(60);
        m.reload(2).expect("a guest's slot can be rejoined");
        m.sever(1, 2);
        let start = m.net.frame;
        while !m.players[2].is_running() {
            assert!(m.net.frame < start + 900, "{}", m.progress());
            for i in [0, 2] {
                assert_eq!(m.players[i].outcome(), None, "player {i}: {}", m.progress());
            }
            m.step_frame();
        }
        let from = m.players[0].confirmed_tick();
        let until = m.net.frame + 4000;
        assert!(
            run_some_to_confirmed(&mut m, &[0, 2], from + 600, until),
            "{}",
            m.progress()
        );
        for i in [0, 2] {
            assert_eq!(m.players[i].outcome(), None, "player {i}: {}", m.progress());
            assert!(
                !left_at(&m, i, 1).is_empty(),
                "player {i}: {}",
                m.progress()
            );
        }
        assert_players_agree(&m, &[0, 2], 10);
    });
}
