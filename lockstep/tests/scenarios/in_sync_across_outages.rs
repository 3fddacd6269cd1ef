//! A property test of outages: over random links (latency 0-150 ms, jitter
//! 0-30 ms, loss 0-25%), the link is cut both ways or one way for up to 4 s
//! at a random moment, then healed. The match stalls, resumes and stays in
//! sync, without ending. Each case picks lock-step or rollback.
//!
//! Reproducing a failure: the property runs with a fresh random seed each
//! time and keeps no regression file; every case is deterministic (the
//! link is seeded, time is virtual). A failing run prints `minimal failing
//! input: latency = ..., ...`: pass those values to [`check_outage`] in
//! `pinned_cases` below, where the case then runs on every test run.
//! `PROPTEST_RNG_SEED=<n>` replays one fixed sequence of cases locally.
use crate::common;

use common::{Mode, Pair};
use lockstep::Millis;
use netsim::LinkConfig;
use proptest::prelude::*;

/// One outage case: the link, the delay, when and how long the cut lasts,
/// which way it cuts, the mode and the seed (of both the link and the
/// match).
#[allow(clippy::too_many_arguments)] // the property's inputs, as printed on failure
fn check_outage(
    latency: u64,
    jitter: u64,
    loss: u8,
    delay: u8,
    cut_at: u64,
    cut_for: u64,
    one_way: bool,
    rollback: bool,
    seed: u64,
) {
    let link = LinkConfig {
        latency: Millis(latency),
        jitter: Millis(jitter),
        loss_percent: loss,
        ..LinkConfig::default()
    };
    let mode = if rollback {
        Mode::Rollback
    } else {
        Mode::LockStep
    };
    let mut p = Pair::tiny_in(mode, link, seed, seed ^ 0x55, delay);
    p.run_frames(cut_at);
    if one_way {
        p.guest_net().sever(netsim::Direction::Outgoing);
    } else {
        p.host_net().sever_both();
    }
    p.run_frames(cut_for);
    p.host_net().heal_both();
    let reached = p.run_to_tick(600, 600 * 40);
    assert!(reached, "{}", p.progress());
    // Rollback records the confirmed state, which moves in steps that land
    // on different ticks on the two sides (more so with packets held
    // back): there the in-band hash checks compare the states, and the
    // final inputs are compared either way.
    if rollback {
        p.assert_in_sync();
        assert!(
            p.host.seen.hash_matches >= 5,
            "{}",
            p.host.seen.hash_matches
        );
    } else {
        assert!(p.assert_in_sync() >= 600);
    }
}

/// Cases worth keeping (see the module doc for adding a failing one): the
/// longest cut both ways on the slowest link, and a one-way cut in
/// rollback.
#[test]
fn pinned_cases() {
    check_outage(150, 30, 25, 8, 399, 239, false, false, 1);
    check_outage(80, 10, 5, 2, 30, 120, true, true, 2);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 100, failure_persistence: None, ..ProptestConfig::default() })]

    /// The same with an outage: the link is cut both ways (or one way) for
    /// up to 4 s at a random moment, then healed. The match stalls and
    /// resumes in sync, without ending.
    #[test]
    fn in_sync_across_an_outage(latency in 0u64..=150, jitter in 0u64..=30, loss in 0u8..=25,
                                delay in 1u8..=8, cut_at in 30u64..400, cut_for in 1u64..240,
                                one_way in any::<bool>(), rollback in any::<bool>(),
                                seed in any::<u64>()) {
        check_outage(latency, jitter, loss, delay, cut_at, cut_for, one_way, rollback, seed);
    }
}
