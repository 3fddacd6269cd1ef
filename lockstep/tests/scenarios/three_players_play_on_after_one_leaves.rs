//! Three players of a game that plays on when a player leaves; one
//! player's links are cut for good. When its rejoin window runs out the
//! host gathers the inputs of the gone player that the others hold and
//! orders its slot onto the neutral input from one tick: both remaining
//! players switch at the same tick and play on to 3,600 confirmed ticks in
//! sync; the gone player, cut off from the host, ends with `PlayerLeft`.
use crate::common;

use common::{assert_players_agree, in_both_modes, scenario_links, Bench, Mode};
use lockstep::{Event, Outcome, SessionConfig};
use lockstep_testing::Mesh;

#[test]
fn three_players_play_on_after_one_leaves() {
    in_both_modes(|mode| {
        let (_, link, lock_step_delay, rollback_delay) = scenario_links()[2];
        let delay = match mode {
            Mode::LockStep => lock_step_delay,
            Mode::Rollback => rollback_delay,
        };
        let mut m = Mesh::<Bench>::new(
            3,
            mode.cfg(SessionConfig::host(11, delay)),
            mode.cfg(SessionConfig::guest()),
            link,
            33,
        );
        assert!(m.run_to_confirmed(600, 3000), "{}", m.progress());
        m.sever_player(2);
        // The stayers wait out the window, then play on.
        assert!(
            m.run_first_to_confirmed(2, 3600, 60 * 200),
            "{}",
            m.progress()
        );
        m.run_frames(120);
        let left: Vec<u32> = m.players[..2]
            .iter()
            .map(|p| {
                let ticks: Vec<u32> = p
                    .seen
                    .events
                    .iter()
                    .filter_map(|e| match e {
                        Event::Left { slot: 2, tick } => Some(*tick),
                        _ => None,
                    })
                    .collect();
                assert_eq!(ticks.len(), 1, "{:?}", p.seen.events.len());
                ticks[0]
            })
            .collect();
        assert_eq!(left[0], left[1], "the change came at different ticks");
        assert!(left[0] >= 600, "{left:?}");
        assert_eq!(
            m.players[2].outcome(),
            Some(&Outcome::PlayerLeft { slot: 0 })
        );
        let want = if mode == Mode::LockStep { 2000 } else { 300 };
        let ticks = assert_players_agree(&m, &[0, 1], want);
        assert!(ticks >= 3600, "{ticks} final ticks");
        // From the change on, the gone slot played the neutral input.
        let log = m.players[0].input_log();
        let from = left[0] as usize * 3;
        assert!(log.inputs[from..].chunks(3).all(|t| t[2] == 0));
    });
}
