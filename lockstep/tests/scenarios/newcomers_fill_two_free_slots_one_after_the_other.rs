//! Four players of a game that plays on and takes new players; slot 3's
//! player leaves for good, then slot 2's. A newcomer asking for any slot
//! gets slot 2 while slot 3 still plays the neutral input: its catch-up
//! says so, and it keeps playing slot 3 neutral exactly as the others do.
//! A second newcomer then takes slot 3. All four end on the same hashes,
//! in lock-step and in rollback, each newcomer's input log replaying from
//! tick 0.
use crate::common;

use common::{
    assert_players_agree, in_both_modes, joins_seen, mesh_after_a_leave, run_some_to_confirmed,
    Mode, OpenBench,
};
use lockstep::{Event, SessionConfig};
use lockstep_testing::Mesh;

fn left(m: &Mesh<OpenBench>, i: usize, slot: u8) -> bool {
    m.players[i]
        .seen
        .events
        .iter()
        .any(|e| matches!(e, Event::Left { slot: s, .. } if *s == slot))
}

#[test]
fn newcomers_fill_two_free_slots_one_after_the_other() {
    in_both_modes(|mode| {
        let link = common::mild_link();
        let mut m = mesh_after_a_leave::<OpenBench>(mode, 0x1025, link, 4, 1800);
        m.sever_player(2);
        assert!(run_some_to_confirmed(&mut m, &[0, 1], 3000, 60 * 300));
        assert!((0..2).all(|i| left(&m, i, 2)), "{}", m.progress());
        // The first newcomer takes the lowest free slot; 3 stays neutral.
        let a = m
            .add_player(mode.cfg(SessionConfig::guest().join(None)), &[0, 1])
            .expect("a valid configuration");
        assert!(
            run_some_to_confirmed(&mut m, &[0, 1, a], 4200, 60 * 400),
            "{}",
            m.progress()
        );
        assert_eq!(m.players[a].side(), Some(2));
        // The second takes slot 3.
        let b = m
            .add_player(mode.cfg(SessionConfig::guest().join(Some(3))), &[0, 1, a])
            .expect("a valid configuration");
        assert!(
            run_some_to_confirmed(&mut m, &[0, 1, a, b], 5400, 60 * 500),
            "{}",
            m.progress()
        );
        let first = joins_seen(&m, 0);
        assert_eq!(first.len(), 2, "{first:?}");
        assert_eq!((first[0].0, first[1].0), (2, 3));
        for i in [1, a] {
            assert_eq!(joins_seen(&m, i), first, "player {i}");
        }
        assert_eq!(joins_seen(&m, b), &first[1..]);
        let want = if mode == Mode::LockStep { 600 } else { 60 };
        assert_players_agree(&m, &[0, 1, a, b], want);
        // Slot 3 played neutral from its leave until the second join.
        let log = m.players[a].input_log();
        let slot3: Vec<u8> = log.inputs.chunks(4).map(|t| t[3]).collect();
        let from = first[0].1 as usize;
        assert!(slot3[from..first[1].1 as usize].iter().all(|&p| p == 0));
    });
}
