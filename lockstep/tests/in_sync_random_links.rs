//! A property test over random link conditions (latency 0-300 ms, jitter
//! 0-50 ms, loss 0-50%, duplication, reordering, input delay 1-10): the
//! two sides are always in sync and nothing panics. Each case plays 600
//! ticks to keep the suite fast; the fixed scenarios play 3,600. 200 cases
//! in lock-step, 200 in rollback (window 1-12).
mod common;

use common::{Pair, Tiny};
use lockstep::{Millis, SessionConfig};
use netsim::LinkConfig;
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn always_in_sync(latency in 0u64..=300, jitter in 0u64..=50, loss in 0u8..=50,
                      duplicate in 0u8..=30, reorder in 0u8..=30, delay in 1u8..=10,
                      seed in any::<u64>()) {
        let link = LinkConfig {
            latency: Millis(latency),
            jitter: Millis(jitter),
            loss_percent: loss,
            duplicate_percent: duplicate,
            reorder_percent: reorder,
            ..LinkConfig::default()
        };
        let mut p = Pair::tiny(link, seed, seed.rotate_left(17), delay);
        let reached = p.run_to_confirmed(600, 600 * 40);
        prop_assert!(reached, "{}", p.progress());
        p.assert_same_state_at(600, 3000);
        prop_assert!(p.assert_in_sync() >= 600);
        prop_assert!(p.host_seen.hash_matches >= 8);
    }

    #[test]
    fn always_in_sync_in_rollback(latency in 0u64..=300, jitter in 0u64..=50, loss in 0u8..=50,
                      duplicate in 0u8..=30, reorder in 0u8..=30, delay in 0u8..=10,
                      window in 1u8..=12, seed in any::<u64>()) {
        let link = LinkConfig {
            latency: Millis(latency),
            jitter: Millis(jitter),
            loss_percent: loss,
            duplicate_percent: duplicate,
            reorder_percent: reorder,
            ..LinkConfig::default()
        };
        let mut p: Pair<Tiny, Tiny> = Pair::new(
            SessionConfig::host(seed.rotate_left(17), delay).prediction_window(window),
            SessionConfig::guest(),
            link,
            seed,
        );
        let reached = p.run_to_confirmed(600, 600 * 40);
        prop_assert!(reached, "{}", p.progress());
        // The same state at tick 600 on both sides (the sessions' own
        // hash check of their final states, and the final inputs
        // replayed), and each side's final state is its inputs' replay.
        p.assert_same_state_at(600, 3000);
        // The confirmed tick moves in steps, and with packets held back
        // the two sides' steps land on different ticks: the in-band hash
        // checks (every 60 ticks) and the final inputs compare the rest.
        p.assert_in_sync();
        prop_assert!(p.host_seen.hash_matches >= 8);
        // Where the trip is two ticks longer than the delay, ticks ran on
        // guesses, and pads that change every third frame made some wrong:
        // the rollback path, not lock-step, carried the match.
        if latency * 60 / 1000 >= u64::from(delay) + 2 {
            for s in [p.host.stats(), p.guest.stats()] {
                prop_assert!(s.predicted_ticks > 0 && s.rollbacks > 0, "{:?}", s);
            }
        }
    }
}
