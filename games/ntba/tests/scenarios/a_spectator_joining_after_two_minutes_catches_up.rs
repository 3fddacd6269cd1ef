//! A spectator joins a two-person NtBA match (each person a CPU, links of
//! 50 ms ±10 with 5% loss) two minutes in, in lock-step and in rollback:
//! the host's catch-up replays to its hash at once, the spectator is live
//! within a few seconds, and it ends on the host's final state, past the
//! final whistle with the same score (see `common::watch_whole_match`).
use crate::common;

use lockstep::Millis;
use lockstep_testing::{in_both_modes, Mode};
use netsim::LinkConfig;

#[test]
fn a_spectator_joining_after_two_minutes_catches_up() {
    let link = LinkConfig {
        latency: Millis(50),
        jitter: Millis(10),
        loss_percent: 5,
        ..LinkConfig::default()
    };
    in_both_modes(|mode| {
        let delay = if mode == Mode::LockStep { 6 } else { 2 };
        let two_minutes = 2 * 60 * 60;
        let w = common::watch_whole_match(mode, link, 12, delay, two_minutes);
        eprintln!("{mode:?}: {w:?}");
        assert!(w.joined_at >= two_minutes);
        assert!(
            w.watching_from >= w.joined_at && w.watching_from < w.joined_at + 60,
            "{w:?}"
        );
        // Its catch-up and a few seconds of hurrying at two ticks a frame.
        assert!(w.frames_far_behind < 300, "{w:?}");
        assert!(w.compared > 3_000, "{} ticks compared", w.compared);
    });
}
