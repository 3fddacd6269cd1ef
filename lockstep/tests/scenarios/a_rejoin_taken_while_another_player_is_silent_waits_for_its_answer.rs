//! Three players, over mildly lossy links. Guest 1's links are cut; a
//! second later, before anyone takes it for gone (the timeout is 5 s),
//! guest 2's page reloads and its fresh session asks for slot 2. Nobody
//! is away yet, so the host takes the request up at once and asks guest
//! 1, as every other player, what it holds of slot 2's inputs; guest 1
//! cannot answer. Meanwhile the host sends the fresh session a
//! keep-alive every ping interval, so it waits past its own silence
//! timeout (5 s) instead of ending, while guest 1 is dropped and its
//! slot held. Once guest 1's links are back it answers, the host takes
//! guest 2 back, and all three play on in sync, in both modes.
use crate::common;

use common::{assert_players_agree, in_both_modes, rejoin_mesh};
use lockstep::Event;

#[test]
fn a_rejoin_taken_while_another_player_is_silent_waits_for_its_answer() {
    in_both_modes(|mode| {
        let mut m = rejoin_mesh(mode, 3, 23, 0x5a1_2026, common::mild_link(), (4, 2));
        assert!(m.run_to_confirmed(600, 2000), "{}", m.progress());
        m.sever_player(1);
        m.run_frames(60);
        m.reload(2).expect("a guest's slot can be rejoined");
        // Guest 1 stays cut off from the fresh session too.
        m.sever(1, 2);
        // 8 s: past the fresh session's silence timeout, and past the
        // host's drop of guest 1.
        m.run_frames(480);
        for (i, p) in m.players.iter().enumerate() {
            assert_eq!(p.outcome(), None, "player {i}: {}", m.progress());
        }
        assert!(!m.players[2].is_running(), "{}", m.progress());
        let dropped = m.players[0]
            .seen
            .events
            .iter()
            .any(|e| matches!(e, Event::Dropped { slot: 1, .. }));
        assert!(dropped, "the host never dropped guest 1");
        m.restore_player(1);
        let back = m.net.frame;
        while !m.players[2].is_running() {
            assert!(m.net.frame < back + 600, "{}", m.progress());
            assert_eq!(m.players[2].outcome(), None, "{}", m.progress());
            m.step_frame();
        }
        let from = m.players[0].confirmed_tick();
        assert!(
            m.run_to_confirmed(from + 600, m.net.frame + 4000),
            "{}",
            m.progress()
        );
        for (i, p) in m.players.iter().enumerate() {
            assert_eq!(p.outcome(), None, "player {i}: {}", m.progress());
        }
        assert_players_agree(&m, &[0, 1, 2], 10);
    });
}
