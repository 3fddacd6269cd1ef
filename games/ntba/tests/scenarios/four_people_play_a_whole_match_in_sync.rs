//! Four people, each a CPU at its own session, play a whole NtBA match over
//! a full mesh of simulated links (100 ms ±20 one way, 25% loss), in
//! lock-step and in rollback, with the line-up `HAAH` (slots 0 and 3 Home,
//! 1 and 2 Away). Every player reaches the final whistle on the same tick,
//! with the same state and score (see `common::play_whole_match`).
use crate::common;

use lockstep::Millis;
use lockstep_testing::in_both_modes;
use netsim::LinkConfig;
use ntba::Lineup;

#[test]
fn four_people_play_a_whole_match_in_sync() {
    let lineup: Lineup = "HAAH".parse().expect("a line-up");
    let link = LinkConfig {
        latency: Millis(100),
        jitter: Millis(20),
        loss_percent: 25,
        ..LinkConfig::default()
    };
    in_both_modes(|mode| {
        let finish = common::play_whole_match(lineup, mode, link, 4, 6);
        eprintln!("{mode:?}: {finish:?}");
        assert!(
            finish.score[0] > 0 && finish.score[1] > 0,
            "a team never scored"
        );
        assert!(
            finish.compared >= 1_000,
            "{} ticks compared",
            finish.compared
        );
    });
}
