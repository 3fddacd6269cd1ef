//! Three players of a game with a stand-in of its own that does not bench
//! (`StandInDots<false>`: a slot nobody drives plays `STAND_IN`, and its
//! dot then walks to the coin): the last player's links are cut for good,
//! the others wait out the rejoin window, and from the leave's tick every
//! member plays the game's stand-in input for the slot, not the neutral
//! one. A newcomer then takes the free slot: it replays the stand-in's
//! ticks from the host's record and plays its own inputs from the tick
//! the host orders. Every log records the stand-in input from the leave
//! to the join, the stand-in's dot scored meanwhile, and the three agree
//! and replay. Both modes, over 30 ms ±5 links with 2 % loss.
use crate::common;

use common::{
    assert_players_agree, in_both_modes, joins_seen, mesh_after_a_leave, mild_link,
    run_some_to_confirmed,
};
use lockstep::{Event, SessionConfig};
use lockstep_testing::{StandInDots, STAND_IN};

type Game = StandInDots<false>;

#[test]
fn a_slot_left_for_good_plays_the_games_stand_in_until_a_newcomer_takes_it() {
    in_both_modes(|mode| {
        let mut m = mesh_after_a_leave::<Game>(mode, 0x57a5, mild_link(), 3, 1500);
        let left = m.players[0]
            .seen
            .events
            .iter()
            .find_map(|e| match e {
                Event::Left { slot: 2, tick } => Some(*tick as usize),
                _ => None,
            })
            .expect("slot 2 left");
        let joiner = m
            .add_player(mode.cfg(SessionConfig::guest().join(None)), &[0, 1])
            .expect("a valid configuration");
        assert!(
            run_some_to_confirmed(&mut m, &[0, 1, joiner], 2400, 60 * 300),
            "{}",
            m.progress()
        );
        let seen: Vec<Vec<(u8, u32)>> = [0, 1, joiner].iter().map(|&i| joins_seen(&m, i)).collect();
        let tick = seen[0]
            .first()
            .map(|&(_, t)| t)
            .expect("the host let it in") as usize;
        for s in &seen {
            assert_eq!(s, &[(2, tick as u32)], "{seen:?}");
        }
        assert!(tick > left + 500, "left at {left}, joined at {tick}");
        // Every member, the newcomer too, recorded the stand-in input from
        // the leave to the join, then the newcomer's own.
        for i in [0, 1, joiner] {
            let log = m.players[i].input_log();
            assert_eq!(log.start_tick, 0, "player {i} replayed from the start");
            let slot2: Vec<u8> = log.inputs.chunks(3).map(|t| t[2]).collect();
            assert!(
                slot2[left..tick].iter().all(|&p| p == STAND_IN),
                "player {i}: the stand-in input from the leave to the join"
            );
            assert!(
                slot2[tick..].iter().any(|&p| p != STAND_IN),
                "player {i}: the newcomer's inputs from the join"
            );
        }
        // The stand-in drove the dot meanwhile: it chased the coin and
        // scored.
        let log = m.players[0].input_log();
        let score = |t: usize| {
            let g = log.game_at::<Game>(t as u32).expect("a replayable log");
            g.0.players()[2].score
        };
        let (before, after) = (score(left), score(tick));
        assert!(
            after >= before + 5,
            "scored {before} then {after} unattended"
        );
        let ticks = assert_players_agree(&m, &[0, 1, joiner], 150);
        assert!(ticks >= 2400, "{ticks}");
        eprintln!(
            "{mode:?}: left at {left}, joined at {tick}, the stand-in scored {}",
            after - before
        );
    });
}
