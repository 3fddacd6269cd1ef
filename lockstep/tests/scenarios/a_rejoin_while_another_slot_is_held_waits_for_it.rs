//! Three players. Guest 1's links are cut for good while it plays, so the
//! host drops it and holds its slot; meanwhile guest 2's page reloads and
//! its fresh session asks for slot 2. The host cannot take it back yet:
//! a returning slot's inputs are gathered from every other player first
//! (the old session may have sent some only to some of them), and guest 1
//! cannot answer. So the request waits instead of being refused: the
//! host sends the fresh session a keep-alive every ping interval, and the
//! fresh session waits past its own silence timeout (5 s) and handshake
//! timeout (10 s) without ending. Once guest 1's links are back, the host
//! gathers slot 2's inputs, takes guest 2 back, and all three play on in
//! sync, in both modes.
use crate::common;

use common::{assert_players_agree, in_both_modes, rejoin_mesh};
use lockstep::{Event, Millis};
use lockstep_testing::LinkConfig;

#[test]
fn a_rejoin_while_another_slot_is_held_waits_for_it() {
    in_both_modes(|mode| {
        let link = LinkConfig {
            latency: Millis(25),
            jitter: Millis(5),
            ..LinkConfig::default()
        };
        let mut m = rejoin_mesh(mode, 3, 19, 0x4e1d_2026, link, (4, 2));
        assert!(m.run_to_confirmed(600, 2000), "{}", m.progress());
        m.sever_player(1);
        m.run_frames(420);
        let held = m.players[0]
            .seen
            .events
            .iter()
            .any(|e| matches!(e, Event::Dropped { slot: 1, .. }));
        assert!(held, "the host never dropped guest 1");
        m.reload(2).expect("a guest's slot can be rejoined");
        // Guest 1 stays cut off from the fresh session too.
        m.sever(1, 2);
        // 12 s: longer than the fresh session's silence and handshake
        // timeouts.
        m.run_frames(720);
        for (i, p) in m.players.iter().enumerate() {
            assert_eq!(p.outcome(), None, "player {i}: {}", m.progress());
        }
        assert!(!m.players[2].is_running(), "{}", m.progress());
        assert!(
            !m.players[0]
                .seen
                .events
                .contains(&Event::Resumed { slot: 2 }),
            "slot 2 was taken back while guest 1 was away"
        );
        m.restore_player(1);
        let back = m.net.frame;
        while !m.players[2].is_running() {
            assert!(m.net.frame < back + 600, "{}", m.progress());
            assert_eq!(m.players[2].outcome(), None, "{}", m.progress());
            m.step_frame();
        }
        let rejoined = m.players[2]
            .seen
            .events
            .iter()
            .filter(|e| matches!(e, Event::Rejoined { .. }))
            .count();
        assert_eq!(rejoined, 1, "{}", m.progress());
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
