//! Three dots players over a lossy link (40 ms ±10, 5 % loss), one gone
//! for good at tick 600; at minute 1 a newcomer asks for the free slot.
//! It catches up while the match goes on, says it is ready, and only
//! then does the host order the change, far enough ahead. Over the join
//! (from the request until the two who stayed are a third of a second
//! past the change's tick) they stall no more than the same match stalls
//! over the same frames without a join (the loss alone costs them a
//! frame now and then in both), and the newcomer plays its own inputs
//! within 2 s. In lock-step and in rollback.
use crate::common;

use common::{in_both_modes, joins_seen, mesh_after_a_leave, Mode};
use lockstep::SessionConfig;
use lockstep_testing::{Mesh, OpenDots};

/// Stalled frames of players 0 and 1 so far.
fn stalls(m: &Mesh<OpenDots<false>>) -> [u64; 2] {
    [0, 1].map(|i| m.players[i].stats().stalled_frames)
}

/// The match of `seed` in `mode` at minute 1, one slot free.
fn at_minute_one(mode: Mode, seed: u64) -> Mesh<OpenDots<false>> {
    mesh_after_a_leave::<OpenDots<false>>(mode, seed, common::lossy_link(), 3, 3600)
}

#[test]
fn a_join_at_minute_one_over_a_lossy_link_stalls_nobody() {
    in_both_modes(|mode| {
        for seed in [0x5a11_0001, 0x5a11_0002, 0x5a11_0003] {
            let mut m = at_minute_one(mode, seed);
            let from = stalls(&m);
            let joiner = m
                .add_player(mode.cfg(SessionConfig::guest().join(None)), &[0, 1])
                .expect("a valid configuration");
            // Until both who stayed are 20 ticks past the change's tick
            // (at most 4 s).
            let past = |m: &Mesh<OpenDots<false>>| {
                joins_seen(m, 0)
                    .first()
                    .is_some_and(|&(_, t)| [0, 1].iter().all(|&i| m.players[i].tick() > t + 20))
            };
            let mut frames = 0;
            let mut plays_at = None;
            while !past(&m) && frames < 240 {
                m.step_frame();
                frames += 1;
                let plays = joins_seen(&m, joiner)
                    .first()
                    .is_some_and(|&(_, t)| m.players[joiner].tick() > t);
                if plays && plays_at.is_none() {
                    plays_at = Some(frames);
                }
            }
            assert!(past(&m), "the change came and passed: {}", m.progress());
            assert!(
                plays_at.is_some_and(|f| f <= 120),
                "the newcomer plays within 2 s: {plays_at:?} {}",
                m.progress()
            );
            let to = stalls(&m);
            let with = [to[0] - from[0], to[1] - from[1]];
            assert!(m.players.iter().take(2).all(|p| p.outcome().is_none()));
            assert!(m.players[joiner].outcome().is_none());

            // The same match without a join, over the same frames.
            let mut quiet = at_minute_one(mode, seed);
            let from = stalls(&quiet);
            quiet.run_frames(frames);
            let to = stalls(&quiet);
            let without = [to[0] - from[0], to[1] - from[1]];
            eprintln!(
                "{mode:?} {seed:#x}: plays after {plays_at:?} frames; over {frames} frames the stayers stalled {with:?} with the join, {without:?} without"
            );
            for i in 0..2 {
                assert!(
                    with[i] <= without[i],
                    "player {i} stalled {} frames over the join, {} without",
                    with[i],
                    without[i]
                );
            }
        }
    });
}
