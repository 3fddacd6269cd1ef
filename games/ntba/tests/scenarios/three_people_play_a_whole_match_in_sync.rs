//! Three people, each a CPU at its own session, play a whole NtBA match
//! over a full mesh of simulated links (50 ms ±10 one way, 5% loss), in
//! lock-step and in rollback. The line-up is not the default one: slots 0
//! and 2 play for Away, slot 1 alone for Home with the built-in AI as its
//! team-mate. Every player reaches the final whistle on the same tick, with
//! the same state and score (see `common::play_whole_match`).
use crate::common;

use lockstep::Millis;
use lockstep_testing::{in_both_modes, Mode};
use netsim::LinkConfig;
use ntba::Lineup;

#[test]
fn three_people_play_a_whole_match_in_sync() {
    let lineup: Lineup = "AHA".parse().expect("a line-up");
    let link = LinkConfig {
        latency: Millis(50),
        jitter: Millis(10),
        loss_percent: 5,
        ..LinkConfig::default()
    };
    in_both_modes(|mode| {
        let delay = if mode == Mode::LockStep { 6 } else { 2 };
        let finish = common::play_whole_match(lineup, mode, link, 3, delay);
        eprintln!("{mode:?}: {finish:?}");
        assert!(finish.score[0] + finish.score[1] > 0, "nobody scored");
        let want = if mode == Mode::LockStep {
            10_000
        } else {
            1_000
        };
        assert!(
            finish.compared >= want,
            "{} ticks compared",
            finish.compared
        );
    });
}
