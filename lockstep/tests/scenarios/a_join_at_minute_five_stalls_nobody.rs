//! The same as at minute 1, at minute 5: three dots players over a lossy
//! link (40 ms ±10, 5 % loss), one gone for good at tick 600, a newcomer
//! asks for the free slot at tick 18,000 and catches up (from the
//! inputs of every tick, or from dots' saved state) while the match goes
//! on. Every member sees the change at the same tick, the newcomer plays
//! within 2 s, the two who stayed stall over the join no more than the
//! same match without a join, and all three agree on every hash they
//! compare. In lock-step and in rollback.
use crate::common;

use common::{
    assert_players_agree, in_both_modes, joins_seen, mesh_after_a_leave, run_some_to_confirmed,
    Mode,
};
use lockstep::{DeterministicGame, SessionConfig};
use lockstep_testing::{Mesh, OpenDots};

/// Stalled frames of players 0 and 1 so far.
fn stalls<G: DeterministicGame>(m: &Mesh<G>) -> [u64; 2] {
    [0, 1].map(|i| m.players[i].stats().stalled_frames)
}

/// The join at minute 5 in `mode`, for a game that saves its state or
/// not.
fn join_at_minute_five<G: DeterministicGame<Input = u8>>(mode: Mode, seed: u64, saves: bool) {
    let at = || {
        let mut m = mesh_after_a_leave::<G>(mode, seed, common::lossy_link(), 3, 1500);
        assert!(run_some_to_confirmed(&mut m, &[0, 1], 18_000, 60 * 400));
        m
    };
    let mut m = at();
    let from = stalls(&m);
    let joiner = m
        .add_player(mode.cfg(SessionConfig::guest().join(None)), &[0, 1])
        .expect("a valid configuration");
    let past = |m: &Mesh<G>| {
        joins_seen(m, 0)
            .first()
            .is_some_and(|&(_, t)| [0, 1, joiner].iter().all(|&i| m.players[i].tick() > t + 20))
    };
    let mut frames = 0;
    while !past(&m) && frames < 240 {
        m.step_frame();
        frames += 1;
    }
    assert!(past(&m), "the change came and passed: {}", m.progress());
    let to = stalls(&m);
    let with = [to[0] - from[0], to[1] - from[1]];
    let mut quiet = at();
    let from = stalls(&quiet);
    quiet.run_frames(frames);
    let to = stalls(&quiet);
    let without = [to[0] - from[0], to[1] - from[1]];
    eprintln!(
        "{mode:?}: over {frames} frames the stayers stalled {with:?} with the join, {without:?} without"
    );
    for i in 0..2 {
        assert!(with[i] <= without[i], "player {i}: {with:?} / {without:?}");
    }
    let tick = joins_seen(&m, 0).first().map(|&(_, t)| t).expect("joined");
    for i in [0, 1, joiner] {
        assert_eq!(joins_seen(&m, i), [(2, tick)], "player {i}");
    }
    // Played on a while, everyone agrees on every hash compared.
    m.run_frames(300);
    assert!(m.players.iter().take(2).all(|p| p.outcome().is_none()));
    assert!(m.players[joiner].outcome().is_none());
    let want = if mode == Mode::LockStep { 300 } else { 30 };
    if !saves {
        // Replayed from tick 0: the newcomer's input log is whole too.
        assert_players_agree(&m, &[0, 1, joiner], want);
    } else {
        assert_players_agree(&m, &[0, 1], want);
    }
    // The newcomer's hashes past the change are the others'.
    for i in [0, 1] {
        let mut n = 0;
        for (t, h) in m.players[joiner]
            .seen
            .hashes
            .iter()
            .filter(|(t, _)| **t > tick)
        {
            if let Some(g) = m.players[i].seen.hashes.get(t) {
                assert_eq!(h, g, "the newcomer and player {i} differ at tick {t}");
                n += 1;
            }
        }
        assert!(
            n >= want / 2,
            "player {i}: {n} ticks compared past the join"
        );
    }
}

#[test]
fn a_join_at_minute_five_stalls_nobody() {
    in_both_modes(|mode| {
        join_at_minute_five::<OpenDots<false>>(mode, 0x5a15_0005, false);
        join_at_minute_five::<OpenDots<true>>(mode, 0x5a15_0006, true);
    });
}
