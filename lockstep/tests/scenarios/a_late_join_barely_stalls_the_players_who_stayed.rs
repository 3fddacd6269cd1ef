//! Lock-step, three dots players, one gone for good: when a newcomer
//! takes the free slot, the two who stayed do not stand still waiting for
//! it. The host sets the change's tick far enough ahead for the change,
//! the acknowledgements and the catch-up to cross, and the newcomer runs
//! the ticks before it faster than one a frame, so its first inputs are
//! there before the others reach that tick. Several matches and moments,
//! each over a link of 30 ms ±5 with 2 % loss.
use crate::common;

use common::{joins_seen, mesh_after_a_leave, Mode};
use lockstep::SessionConfig;
use lockstep_testing::{Mesh, OpenDots};

/// Stalled frames of players 0 and 1 so far.
fn stalls(m: &Mesh<OpenDots<false>>) -> [u64; 2] {
    [0, 1].map(|i| m.players[i].stats().stalled_frames)
}

#[test]
fn a_late_join_barely_stalls_the_players_who_stayed() {
    let mut worst = 0;
    for (seed, at) in [
        (0x1a7e_0001, 1_500),
        (0x1a7e_0002, 2_400),
        (0x1a7e_0003, 3_000),
    ] {
        let mut m =
            mesh_after_a_leave::<OpenDots<false>>(Mode::LockStep, seed, common::mild_link(), 3, at);
        let before = stalls(&m);
        let joiner = m
            .add_player(SessionConfig::guest().join(None), &[0, 1])
            .expect("a valid configuration");
        // Until the newcomer plays its own inputs (at most 3 s).
        let mut frames = 0;
        let plays = |m: &Mesh<OpenDots<false>>| {
            joins_seen(m, joiner)
                .first()
                .is_some_and(|&(_, t)| m.players[joiner].tick() > t)
        };
        while !plays(&m) && frames < 180 {
            m.step_frame();
            frames += 1;
        }
        assert!(plays(&m), "the newcomer plays within 3 s: {}", m.progress());
        let after = stalls(&m);
        for i in 0..2 {
            worst = worst.max(after[i] - before[i]);
        }
        assert!(m.players.iter().take(2).all(|p| p.outcome().is_none()));
    }
    // Before the lead and the newcomer's catching up, the players stood
    // still at the change's tick for 10 frames or more.
    assert!(
        worst <= 3,
        "the players who stayed stalled up to {worst} frames"
    );
}
