//! Three dots players in a game that plays a held slot on: the last
//! player's links are cut and the host benches its slot. A fresh session
//! comes for the slot with a token the host never gave: it is refused
//! (`RejoinRefused { WrongToken }`) on its own link, the slot stays benched
//! (nobody sees it handed back), and the two who stay play on without
//! waiting. The player's own session then comes back with the right token,
//! takes the slot back at a tick every member agrees on, and all play on
//! in sync. Both modes.
use crate::common;

use common::{
    assert_players_agree, bench_mesh, benched_at, in_both_modes, stalls_of, unbenched_at,
};
use lockstep::wire::RejoinRefusal;
use lockstep::Outcome;

#[test]
fn a_wrong_token_for_a_benched_slot_is_refused() {
    in_both_modes(|mode| {
        let mut m = bench_mesh(mode, 3, 0x70c3);
        let token = m.players[2].rejoin_token().expect("a token from the host");
        m.sever_player(2);
        m.run_frames(120);
        let benched = benched_at(&m, 0, 2);
        assert_eq!(benched.len(), 1, "{}", m.progress());
        assert_eq!(benched_at(&m, 1, 2), benched);

        let before = stalls_of(&m, &[0, 1]);
        let ticks: Vec<u32> = (0..2).map(|i| m.players[i].confirmed_tick()).collect();
        m.reload_with_token(2, token ^ 0x5a)
            .expect("a guest's slot");
        assert!(m.run_until_all_end_of(&[2], 600), "{}", m.progress());
        assert_eq!(
            m.players[2].outcome(),
            Some(&Outcome::RejoinRefused {
                why: RejoinRefusal::WrongToken
            })
        );
        // Another two seconds with the slot still benched.
        m.run_frames(120);
        for (i, &t) in ticks.iter().enumerate() {
            assert_eq!(m.players[i].outcome(), None, "player {i} goes on");
            assert!(unbenched_at(&m, i, 2).is_empty(), "the slot stays benched");
            assert!(
                m.players[i].confirmed_tick() >= t + 100,
                "player {i} played on: {}",
                m.progress()
            );
        }
        let stalled: Vec<u64> = stalls_of(&m, &[0, 1])
            .iter()
            .zip(&before)
            .map(|(a, b)| a - b)
            .collect();
        assert!(stalled.iter().all(|&s| s <= 30), "stalled {stalled:?}");

        // The player's right token takes the slot back.
        m.reload_with_token(2, token).expect("a guest's slot");
        let back = m.net.frame;
        while !(m.players[2].is_running() && (0..2).all(|i| unbenched_at(&m, i, 2).len() == 1)) {
            assert!(m.net.frame < back + 300, "not back: {}", m.progress());
            m.step_frame();
        }
        assert_eq!(unbenched_at(&m, 1, 2), unbenched_at(&m, 0, 2));
        let from = m.players[0].confirmed_tick();
        assert!(
            m.run_to_confirmed(from + 600, m.net.frame + 3000),
            "{}",
            m.progress()
        );
        assert_players_agree(&m, &[0, 1, 2], 200);
    });
}
