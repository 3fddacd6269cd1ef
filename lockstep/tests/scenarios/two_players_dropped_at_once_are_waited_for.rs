//! Four dots players in a game that plays a held slot on. The host
//! benches one slot at a time, and only once every other player has
//! answered for what it holds of the slot's inputs. So when the players
//! in slots 2 and 3 lose every link at the same moment, the two who stay
//! wait, as in a game that does not bench, and neither of them is taken
//! for a silent player while it waits (its inputs are all in: it is not
//! the one holding the match up). When the links come back the match
//! goes on: a slot the host benched meanwhile comes back with a fresh
//! session and its token, the other's own session is heard again, and
//! all four play on in sync on the same hashes. Both modes.
//!
//! Then, in a match of its own, benches one after the other: slot 1 drops
//! alone, is benched at once while the others play on, and comes back;
//! then slot 2; then slot 1 again.
use crate::common;

use common::{
    assert_players_agree, bench_mesh, benched_at, in_both_modes, stalls_of, unbenched_at,
};
use lockstep::Event;
use lockstep_testing::{BenchDots, Mesh};

/// Player `i`'s page reloads and its fresh session takes its benched slot
/// back, at a tick every other player agrees on.
fn back_from_the_bench(m: &mut Mesh<BenchDots>, i: usize) {
    let slot = i as u8;
    let others: Vec<usize> = (0..m.players.len()).filter(|&j| j != i).collect();
    let times: Vec<usize> = others
        .iter()
        .map(|&j| unbenched_at(m, j, slot).len() + 1)
        .collect();
    m.reload(i).expect("a guest's slot");
    let start = m.net.frame;
    while !(m.players[i].is_running()
        && others
            .iter()
            .zip(&times)
            .all(|(&j, &n)| unbenched_at(m, j, slot).len() == n))
    {
        assert!(
            m.net.frame < start + 600,
            "slot {slot} not back: {}",
            m.progress()
        );
        m.step_frame();
    }
    // A player that came back itself since knows only the later ones.
    let back = unbenched_at(m, 0, slot).last().copied();
    for &j in &others {
        assert_eq!(
            unbenched_at(m, j, slot).last().copied(),
            back,
            "slot {slot} on player {j}"
        );
    }
}

/// Player `i` drops alone: its slot is benched on every other player at
/// the same tick and they play on, then it comes back.
fn benched_and_back(m: &mut Mesh<BenchDots>, i: usize) {
    let slot = i as u8;
    let others: Vec<usize> = (0..m.players.len()).filter(|&j| j != i).collect();
    let before = stalls_of(m, &others);
    let ticks: Vec<u32> = others
        .iter()
        .map(|&j| m.players[j].confirmed_tick())
        .collect();
    let benches = benched_at(m, 0, slot).len();
    m.sever_player(i);
    m.run_frames(300);
    let at = benched_at(m, 0, slot);
    assert_eq!(at.len(), benches + 1, "slot {slot}: {}", m.progress());
    for (k, &j) in others.iter().enumerate() {
        assert_eq!(
            benched_at(m, j, slot).last(),
            at.last(),
            "slot {slot} on player {j}"
        );
        let stalled = m.players[j].stats().stalled_frames - before[k];
        assert!(stalled <= 45, "player {j} stalled {stalled} frames");
        assert!(
            m.players[j].confirmed_tick() >= ticks[k] + 240,
            "{}",
            m.progress()
        );
    }
    back_from_the_bench(m, i);
}

#[test]
fn two_players_dropped_at_once_are_waited_for() {
    in_both_modes(|mode| {
        let mut m = bench_mesh(mode, 4, 0x2b3c);
        m.sever_player(2);
        m.sever_player(3);
        m.run_frames(180);
        let waiting: Vec<u32> = (0..2).map(|i| m.players[i].confirmed_tick()).collect();
        m.run_frames(60);
        for (i, &w) in waiting.iter().enumerate() {
            assert!(
                m.players[i].confirmed_tick() <= w + 1,
                "player {i} waits for the two: {}",
                m.progress()
            );
            assert_eq!(m.players[i].outcome(), None);
        }
        // The host never took the player who waited with it for a silent
        // one.
        assert!(!m.players[0]
            .seen
            .events
            .iter()
            .any(|e| matches!(e, Event::Dropped { slot: 1, .. })));
        m.restore_player(2);
        m.restore_player(3);
        m.run_frames(120);
        for i in [2, 3] {
            if unbenched_at(&m, 0, i as u8).len() < benched_at(&m, 0, i as u8).len() {
                back_from_the_bench(&mut m, i);
            }
        }
        let from = m.players[0].confirmed_tick();
        assert!(
            m.run_to_confirmed(from + 600, m.net.frame + 3000),
            "{}",
            m.progress()
        );
        for p in &m.players {
            assert_eq!(p.outcome(), None, "{}", m.progress());
        }
        assert_players_agree(&m, &[0, 1, 2, 3], 200);
    });
}

#[test]
fn benches_one_after_the_other() {
    in_both_modes(|mode| {
        let mut m = bench_mesh(mode, 4, 0x2b3d);
        for i in [1, 2, 1] {
            benched_and_back(&mut m, i);
        }
        let from = m.players[0].confirmed_tick();
        assert!(
            m.run_to_confirmed(from + 600, m.net.frame + 3000),
            "{}",
            m.progress()
        );
        for p in &m.players {
            assert_eq!(p.outcome(), None, "{}", m.progress());
        }
        assert_players_agree(&m, &[0, 1, 2, 3], 200);
    });
}
