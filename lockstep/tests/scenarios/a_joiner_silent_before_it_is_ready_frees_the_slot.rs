//! A newcomer asks for the free slot of a three-player dots match, then
//! its page blocks before it took in its catch-up: it never says it is
//! ready. Nobody but the host ever hears of it, and the two who stayed
//! stall exactly as the same match without it; meanwhile the slot is kept
//! for it (another newcomer is refused with `HostUnable`). After the
//! deadline the host releases the slot: the blocked newcomer, once free
//! again, ends with `RejoinRefused { NotReady }`, and a third newcomer
//! takes the slot and plays in sync. In lock-step and in rollback.
use crate::common;

use common::{assert_players_agree, in_both_modes, joins_seen, mesh_after_a_leave, Mode};
use lockstep::{Outcome, RejoinRefusal, SessionConfig};
use lockstep_testing::{Mesh, OpenDots};

/// Stalled frames of players 0 and 1 so far.
fn stalls(m: &Mesh<OpenDots<false>>) -> [u64; 2] {
    [0, 1].map(|i| m.players[i].stats().stalled_frames)
}

#[test]
fn a_joiner_silent_before_it_is_ready_frees_the_slot() {
    in_both_modes(|mode| {
        let seed = 0x5113_0001;
        let at = || mesh_after_a_leave::<OpenDots<false>>(mode, seed, common::mild_link(), 3, 1500);
        let mut m = at();
        let from = stalls(&m);
        let silent = m
            .add_player(mode.cfg(SessionConfig::guest().join(None)), &[0, 1])
            .expect("a valid configuration");
        // Its Join goes out; then its page blocks.
        m.run_frames(2);
        m.players[silent].busy = true;
        // Another newcomer 3 s later: the slot is kept for the first.
        m.run_frames(180);
        let second = m
            .add_player(mode.cfg(SessionConfig::guest().join(None)), &[0, 1])
            .expect("a valid configuration");
        m.run_frames(60);
        assert_eq!(
            m.players[second].outcome(),
            Some(&Outcome::RejoinRefused {
                why: RejoinRefusal::HostUnable
            })
        );
        // Until just before the deadline (10 s), nobody but the host knew.
        m.run_frames(350);
        let to = stalls(&m);
        let mut quiet = at();
        let quiet_from = stalls(&quiet);
        quiet.run_frames(2 + 180 + 60 + 350);
        let quiet_to = stalls(&quiet);
        for i in 0..2 {
            assert!(
                to[i] - from[i] <= quiet_to[i] - quiet_from[i],
                "player {i}: {} stalled frames with the silent newcomer, {} without",
                to[i] - from[i],
                quiet_to[i] - quiet_from[i]
            );
            assert!(joins_seen(&m, i).is_empty());
        }
        // Past the deadline, the page free again: told it was too late.
        m.run_frames(60);
        m.players[silent].busy = false;
        m.run_frames(60);
        assert_eq!(
            m.players[silent].outcome(),
            Some(&Outcome::RejoinRefused {
                why: RejoinRefusal::NotReady
            }),
            "{}",
            m.progress()
        );
        // The slot is free again: a third newcomer takes it.
        let third = m
            .add_player(mode.cfg(SessionConfig::guest().join(None)), &[0, 1])
            .expect("a valid configuration");
        m.run_frames(400);
        let tick = joins_seen(&m, 0).first().map(|&(_, t)| t).expect("joined");
        for i in [0, 1, third] {
            assert_eq!(joins_seen(&m, i), [(2, tick)], "player {i}");
        }
        assert!(m.players[third].tick() > tick + 100, "{}", m.progress());
        assert!([0, 1, third]
            .iter()
            .all(|&i| m.players[i].outcome().is_none()));
        let want = if mode == Mode::LockStep { 100 } else { 10 };
        assert_players_agree(&m, &[0, 1, third], want);
    });
}
