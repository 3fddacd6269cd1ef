//! A spectator there from the start watches a whole two-person NtBA match
//! (each person a CPU) over links of 50 ms ±10 with 5% loss, in lock-step
//! and in rollback, and ends on the host's final state, past the final
//! whistle with the same score (see `common::watch_whole_match`).
use crate::common;

use lockstep::Millis;
use lockstep_testing::{in_both_modes, Mode};
use netsim::LinkConfig;

#[test]
fn a_spectator_watches_a_whole_match() {
    let link = LinkConfig {
        latency: Millis(50),
        jitter: Millis(10),
        loss_percent: 5,
        ..LinkConfig::default()
    };
    in_both_modes(|mode| {
        let delay = if mode == Mode::LockStep { 6 } else { 2 };
        let w = common::watch_whole_match(mode, link, 11, delay, 0);
        eprintln!("{mode:?}: {w:?}");
        // Admitted at the host's first frame of the match.
        assert!(w.watching_from <= 1, "{w:?}");
        assert!(w.last_tick > 14_000, "a match of {} ticks", w.last_tick);
        assert!(w.compared > 5_000, "{} ticks compared", w.compared);
        assert_eq!(w.frames_far_behind, 0, "the spectator fell behind");
    });
}
