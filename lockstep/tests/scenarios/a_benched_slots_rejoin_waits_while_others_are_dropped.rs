//! Four dots players in a game that plays a held slot on. Slot 3 drops
//! alone and is benched; the others play on. Then slots 1 and 2 lose
//! their links at the same moment: the host benches one slot at a time,
//! only once every other player has answered for it, so it waits for
//! both (or, when one of them holds the match up alone, asks the other
//! for its inputs, which it cannot give). Slot 3's page reloads
//! meanwhile: its fresh session asks for the benched slot, which needs
//! every player to apply the change that hands it back, so the request
//! waits (the fresh session does not end) instead of being refused. When
//! slots 1 and 2 are back, slot 3 is handed back as soon as nobody is
//! away and no change is under way, at a tick every member agrees on,
//! and the players in the match (a slot benched meanwhile stays benched)
//! play on in sync on the same hashes, in both modes.
use crate::common;

use common::{
    assert_players_agree, bench_mesh, benched_at, in_both_modes, run_some_to_confirmed,
    unbenched_at,
};
use lockstep_testing::{BenchDots, Mesh};

/// Runs `m` until player `i` plays again and the host handed its slot
/// back `times` times so far in all, at most `frames`.
fn until_back(m: &mut Mesh<BenchDots>, i: usize, times: usize, frames: u64) {
    let slot = i as u8;
    let stop = m.net.frame + frames;
    while !(m.players[i].is_running() && unbenched_at(m, 0, slot).len() >= times) {
        assert!(m.net.frame < stop, "slot {slot} not back: {}", m.progress());
        assert_eq!(m.players[i].outcome(), None, "{}", m.progress());
        m.step_frame();
    }
}

#[test]
fn a_benched_slots_rejoin_waits_while_others_are_dropped() {
    in_both_modes(|mode| {
        let mut m = bench_mesh(mode, 4, 0x3c4d);
        m.sever_player(3);
        m.run_frames(300);
        assert_eq!(benched_at(&m, 0, 3).len(), 1, "{}", m.progress());
        m.sever_player(1);
        m.sever_player(2);
        m.run_frames(60);
        m.reload(3).expect("a guest's slot");
        m.sever(3, 1);
        m.sever(3, 2);
        // 7 s: longer than the fresh session's silence timeout.
        m.run_frames(420);
        assert_eq!(m.players[3].outcome(), None, "{}", m.progress());
        assert!(!m.players[3].is_running(), "{}", m.progress());
        assert!(unbenched_at(&m, 0, 3).is_empty(), "{}", m.progress());
        // Slots 1 and 2 are back: slot 3 is handed back as soon as nobody
        // is away and no change is under way.
        m.restore_player(1);
        m.restore_player(2);
        until_back(&mut m, 3, 1, 600);
        let back = unbenched_at(&m, 0, 3);
        // A slot the host benched meanwhile stays benched: the others
        // play on.
        let stay: Vec<usize> = (0..4)
            .filter(|&i| unbenched_at(&m, 0, i as u8).len() >= benched_at(&m, 0, i as u8).len())
            .collect();
        assert!(stay.contains(&3) && stay.len() >= 3, "{stay:?}");
        let from = m.players[0].confirmed_tick();
        let stop = m.net.frame + 3000;
        assert!(
            run_some_to_confirmed(&mut m, &stay, from + 600, stop),
            "{}",
            m.progress()
        );
        for &i in &stay {
            assert_eq!(m.players[i].outcome(), None, "{}", m.progress());
        }
        // Every player whose session saw slot 3 handed back saw it at the
        // host's tick (a fresh session since knows it from its catch-up).
        for &j in &stay[1..] {
            let seen = unbenched_at(&m, j, 3);
            assert!(
                seen.is_empty() || seen == back,
                "player {j}: {seen:?} {back:?}"
            );
        }
        assert_players_agree(&m, &stay, 100);
    });
}
