//! Four dots players in a game that plays a held slot on. First the
//! players in slots 2 and 3 lose every link at the same moment: the host
//! benches both (each with its own ordered change, at ticks every member
//! agrees on), and the two who stay play on without waiting for either.
//! Both come back with their tokens, one after the other, and get their
//! slots back. Then slot 1 drops and comes back alone, a second bench of
//! the same match. All four end in sync on the same hashes. Both modes.
use crate::common;

use common::{
    assert_players_agree, bench_mesh, benched_at, in_both_modes, stalls_of, unbenched_at,
};
use lockstep_testing::{BenchDots, Mesh};

/// Runs until player `i`'s fresh session plays and every other player saw
/// its slot handed back (`times` in all, counting earlier returns).
fn until_back(m: &mut Mesh<BenchDots>, i: usize, times: usize) {
    let slot = i as u8;
    let start = m.net.frame;
    let others: Vec<usize> = (0..m.players.len()).filter(|&j| j != i).collect();
    while !(m.players[i].is_running()
        && others.iter().all(|&j| unbenched_at(m, j, slot).len() == times))
    {
        assert!(m.net.frame < start + 600, "player {i} not back: {}", m.progress());
        m.step_frame();
    }
}

#[test]
fn two_players_benched_at_once_both_come_back() {
    in_both_modes(|mode| {
        let mut m = bench_mesh(mode, 4, 0x2b3c);
        let before = stalls_of(&m, &[0, 1]);
        let ticks: Vec<u32> = (0..2).map(|i| m.players[i].confirmed_tick()).collect();
        m.sever_player(2);
        m.sever_player(3);
        m.run_frames(300);
        for slot in [2u8, 3] {
            let at = benched_at(&m, 0, slot);
            assert_eq!(at.len(), 1, "slot {slot}: {}", m.progress());
            assert_eq!(benched_at(&m, 1, slot), at, "slot {slot}: the same tick");
        }
        let stalled: Vec<u64> = stalls_of(&m, &[0, 1])
            .iter()
            .zip(&before)
            .map(|(a, b)| a - b)
            .collect();
        eprintln!("{mode:?}: stalled frames while two were benched: {stalled:?}");
        for i in 0..2 {
            assert!(stalled[i] <= 45, "player {i} stalled {} frames", stalled[i]);
            assert!(m.players[i].confirmed_tick() >= ticks[i] + 240, "{}", m.progress());
        }

        m.reload(2).expect("a guest's slot");
        until_back(&mut m, 2, 1);
        m.reload(3).expect("a guest's slot");
        until_back(&mut m, 3, 1);
        let from = m.players[0].confirmed_tick();
        assert!(m.run_to_confirmed(from + 300, m.net.frame + 2000), "{}", m.progress());

        // A second bench in the same match: slot 1 this time.
        m.sever_player(1);
        m.run_frames(120);
        assert_eq!(benched_at(&m, 0, 1).len(), 1, "{}", m.progress());
        m.reload(1).expect("a guest's slot");
        until_back(&mut m, 1, 1);
        for slot in [1u8, 2, 3] {
            let at = unbenched_at(&m, 0, slot);
            for j in (1..4).filter(|&j| j != usize::from(slot)) {
                assert_eq!(unbenched_at(&m, j, slot), at, "slot {slot} on player {j}");
            }
        }
        let from = m.players[0].confirmed_tick();
        assert!(m.run_to_confirmed(from + 600, m.net.frame + 3000), "{}", m.progress());
        for p in &m.players {
            assert_eq!(p.outcome(), None, "{}", m.progress());
        }
        assert_players_agree(&m, &[0, 1, 2, 3], 200);
    });
}
