//! A dots match of three in a game that takes new players and saves its
//! state: after one player left for good, a newcomer's catch-up is the
//! host's saved confirmed state plus the inputs since, not the whole
//! match. The newcomer loads it, checks the host's hash, takes the slot
//! at the tick every player applies the change, and plays on in sync with
//! both others, in lock-step and in rollback. Its input log starts from
//! that state and replays to the host's state at its last tick.
use crate::common;

use common::{
    in_both_modes, joins_seen, mesh_after_a_leave, run_some_to_confirmed, Mode, OpenDots,
};
use lockstep::SessionConfig;

#[test]
fn a_joiner_catches_up_from_a_saved_state() {
    in_both_modes(|mode| {
        let link = common::lossy_link();
        let mut m = mesh_after_a_leave::<OpenDots<true>>(mode, 0x1023, link, 3, 2400);
        let joiner = m
            .add_player(mode.cfg(SessionConfig::guest().join(Some(2))), &[0, 1])
            .expect("a valid configuration");
        assert!(
            run_some_to_confirmed(&mut m, &[0, 1, joiner], 4800, 60 * 300),
            "{}",
            m.progress()
        );
        let tick = joins_seen(&m, 0).first().map(|&(_, t)| t).expect("let in");
        for i in [1, joiner] {
            assert_eq!(joins_seen(&m, i), [(2, tick)], "player {i}");
        }
        assert!(tick > 2400, "{tick}");
        common::assert_log_from_saved_state::<OpenDots<true>>(
            &m.players[joiner].input_log(),
            &m.players[0].input_log(),
        );
        // Every tick the newcomer hashed agrees with both others'.
        let want = if mode == Mode::LockStep { 1500 } else { 150 };
        for i in [0, 1] {
            let mut compared = 0;
            for (t, h) in &m.players[joiner].seen.hashes {
                if let Some(g) = m.players[i].seen.hashes.get(t) {
                    assert_eq!(h, g, "the newcomer differs from player {i} at tick {t}");
                    compared += 1;
                }
            }
            assert!(
                compared >= want,
                "player {i}: only {compared} ticks compared"
            );
        }
        for p in &m.players[..2] {
            assert!(p.stats().max_rollback <= 12, "{}", p.stats().max_rollback);
            assert!(p.outcome().is_none());
        }
    });
}
