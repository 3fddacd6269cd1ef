//! A guest drops and comes back with a fresh session more than once in
//! the same match: its page reloads, it rejoins with its token and plays,
//! then it reloads again (after another player did the same, with three
//! players) and rejoins again with the token it kept. A rejoin token lets
//! its player back into its own slot for the whole match, so every rejoin
//! is taken and the match ends in sync. The same holds for a session
//! whose request had to wait (another slot was held then): it keeps its
//! slot and token while it waits, gets in once the other player is back,
//! and the same token takes it back after its next reload.
use crate::common;

use common::{assert_players_agree, in_both_modes, rejoin_mesh, Mode};
use lockstep::Event;
use lockstep_testing::LinkConfig;

fn link() -> LinkConfig {
    common::mild_link()
}

#[test]
fn a_guest_reloaded_twice_rejoins_twice_in_sync() {
    in_both_modes(|mode| {
        let mut m = rejoin_mesh(mode, 2, 41, 0x2ee_2026, link(), (4, 2));
        assert!(m.run_to_confirmed(600, 3000), "{}", m.progress());
        let token = m.players[1].rejoin_token();
        m.reload(1).expect("a guest's slot can be rejoined");
        assert!(m.run_to_confirmed(1200, 6000), "{}", m.progress());
        assert_eq!(common::rejoined_ticks(&m, 1).len(), 1, "{}", m.progress());
        // The fresh session keeps the token it came back with.
        assert_eq!(m.players[1].rejoin_token(), token);
        m.reload(1).expect("a guest's slot can be rejoined");
        assert!(m.run_to_confirmed(2400, 9000), "{}", m.progress());
        let back = common::rejoined_ticks(&m, 1);
        assert_eq!(back.len(), 1, "{}", m.progress());
        assert!(back[0] >= 1200, "{back:?}");
        let resumed = m.players[0]
            .seen
            .events
            .iter()
            .filter(|e| **e == Event::Resumed { slot: 1 })
            .count();
        assert_eq!(resumed, 2, "{}", m.progress());
        assert!(m.players.iter().all(|p| p.outcome().is_none()));
        let want = if mode == Mode::LockStep { 1000 } else { 100 };
        assert_players_agree(&m, &[0, 1], want);
    });
}

#[test]
fn a_guest_rejoins_again_after_another_came_back() {
    in_both_modes(|mode| {
        let mut m = rejoin_mesh(mode, 3, 43, 0x3ee_2027, link(), (4, 2));
        assert!(m.run_to_confirmed(600, 3000), "{}", m.progress());
        m.reload(1).expect("a guest's slot can be rejoined");
        assert!(m.run_to_confirmed(1200, 6000), "{}", m.progress());
        m.reload(2).expect("a guest's slot can be rejoined");
        assert!(m.run_to_confirmed(1800, 9000), "{}", m.progress());
        m.reload(1).expect("a guest's slot can be rejoined");
        assert!(m.run_to_confirmed(2400, 12000), "{}", m.progress());
        for i in [1, 2] {
            assert_eq!(
                common::rejoined_ticks(&m, i).len(),
                1,
                "player {i}: {}",
                m.progress()
            );
        }
        // The host saw slot 1 come back twice; player 2's fresh session
        // (reloaded in between) saw its second return.
        for (i, times) in [(0, 2), (2, 1)] {
            let back = m.players[i]
                .seen
                .events
                .iter()
                .filter(|e| **e == Event::Resumed { slot: 1 })
                .count();
            assert_eq!(back, times, "player {i}: {}", m.progress());
        }
        assert!(m.players.iter().all(|p| p.outcome().is_none()));
        // Slot 1's last session hashed from its return on, a few ticks
        // past where the others stood when its page reloaded.
        let want = if mode == Mode::LockStep { 550 } else { 55 };
        assert_players_agree(&m, &[0, 1, 2], want);
    });
}

#[test]
fn a_guest_that_waited_while_another_was_held_rejoins_again_later() {
    in_both_modes(|mode| {
        let mut m = rejoin_mesh(mode, 3, 47, 0x4ee_2028, link(), (4, 2));
        assert!(m.run_to_confirmed(600, 3000), "{}", m.progress());
        // Guest 1 is cut off until the host holds its slot; guest 2's page
        // reloads meanwhile, and its request waits for guest 1.
        m.sever_player(1);
        m.run_frames(420);
        let token = m.players[2].rejoin_token();
        m.reload(2).expect("a guest's slot can be rejoined");
        m.sever(1, 2);
        m.run_frames(300);
        assert_eq!(m.players[2].outcome(), None, "{}", m.progress());
        assert!(!m.players[2].is_running(), "{}", m.progress());
        // The waiting session knows its slot and its token all along.
        assert_eq!(m.players[2].side(), Some(2));
        assert_eq!(m.players[2].rejoin_token(), token);
        // Guest 1 comes back, and guest 2 with it.
        m.restore_player(1);
        let confirmed = m.players[0].confirmed_tick();
        assert!(
            m.run_to_confirmed(confirmed + 600, m.net.frame + 6000),
            "{}",
            m.progress()
        );
        assert_eq!(common::rejoined_ticks(&m, 2).len(), 1, "{}", m.progress());
        assert_eq!(m.players[2].rejoin_token(), token);
        // The token it came back with takes it back once more.
        m.reload(2).expect("a guest's slot can be rejoined");
        let confirmed = m.players[0].confirmed_tick();
        assert!(
            m.run_to_confirmed(confirmed + 1200, m.net.frame + 6000),
            "{}",
            m.progress()
        );
        assert_eq!(common::rejoined_ticks(&m, 2).len(), 1, "{}", m.progress());
        let resumed = m.players[0]
            .seen
            .events
            .iter()
            .filter(|e| **e == Event::Resumed { slot: 2 })
            .count();
        assert_eq!(resumed, 2, "{}", m.progress());
        assert!(m.players.iter().all(|p| p.outcome().is_none()));
        assert_players_agree(&m, &[0, 1, 2], 10);
    });
}
