//! Four players of a game that plays on; slot 3's player leaves for good
//! and its slot plays the neutral input. Then slot 1's page reloads: it
//! rejoins with its token, its catch-up says slot 3 is neutral, and it
//! keeps playing slot 3 neutral as the others do. All three remaining
//! players end on the same hashes, in lock-step and in rollback.
use crate::common;

use common::{
    assert_players_agree, in_both_modes, mesh_after_a_leave, run_some_to_confirmed, Bench, Mode,
};
use lockstep::Event;

#[test]
fn a_player_rejoins_while_another_slot_plays_neutral() {
    in_both_modes(|mode| {
        let link = common::mild_link();
        let mut m = mesh_after_a_leave::<Bench>(mode, 0x1026, link, 4, 1800);
        m.reload(1).expect("slot 1 can be rejoined");
        assert!(
            run_some_to_confirmed(&mut m, &[0, 1, 2], 3600, 60 * 300),
            "{}",
            m.progress()
        );
        assert!(m.players[1]
            .seen
            .events
            .iter()
            .any(|e| matches!(e, Event::Rejoined { .. })));
        let want = if mode == Mode::LockStep { 600 } else { 60 };
        assert_players_agree(&m, &[0, 2], want);
        let back = m.players[1].seen.hashes.keys().next().copied().unwrap_or(0);
        let n = m.players[1]
            .seen
            .hashes
            .iter()
            .filter(|(t, h)| **t >= back && m.players[0].seen.hashes.get(t) == Some(h))
            .count();
        assert!(n >= want, "only {n} ticks agree with the rejoiner");
    });
}
