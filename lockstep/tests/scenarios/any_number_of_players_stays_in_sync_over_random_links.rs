//! A property test over matches of 2 to 8 players on a full mesh of random
//! links (latency 0-100 ms, jitter 0-30 ms, loss 0-30%, duplication and
//! reordering 0-20%), random input delays and both modes (rollback with a
//! window of 1 to 10): every player confirms the target tick with no
//! outcome (nothing panics, nothing ends the match), all agree on every
//! final input and every state recorded, every log replays, and hashes
//! were compared with every peer (waiting up to 5 s for the last
//! reliable hash reports on the lossiest links). Each match also has 0 to 3 spectators
//! on links of the same conditions: none ends, and each agrees with the
//! host on every state both recorded. 200 cases of 60 ticks each, the players
//! woken at frame times only, to keep the suite fast; the fixed scenarios
//! play 3,600 ticks on the default schedule.
use crate::common;

use common::Crowd;
use lockstep::{InputLog, Millis, SessionConfig};
use lockstep_testing::{Mesh, Schedule};
use netsim::LinkConfig;
use proptest::prelude::*;

const TICKS: u32 = 60;

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn any_number_of_players_stays_in_sync(players in 2u8..=8, latency in 0u64..=100,
            jitter in 0u64..=30, loss in 0u8..=30, duplicate in 0u8..=20, reorder in 0u8..=20,
            delay in 1u8..=8, window in 0u8..=10, spectators in 0u64..=3, seed in any::<u64>()) {
        let link = LinkConfig {
            latency: Millis(latency),
            jitter: Millis(jitter),
            loss_percent: loss,
            duplicate_percent: duplicate,
            reorder_percent: reorder,
            ..LinkConfig::default()
        };
        let host = SessionConfig::host(seed.rotate_left(9), delay)
            .hash_interval(30)
            .prediction_window(window);
        let guest = SessionConfig::guest();
        let mut m = Mesh::<Crowd>::with_schedule(Schedule::FrameOnly, players, host, guest, link, seed);
        for k in 0..spectators {
            let cfg = SessionConfig::spectator().watch_delay((seed >> (8 * k)) as u8 % 20);
            m.add_spectator(cfg, link, seed.wrapping_add(1000 + k)).expect("a valid spectator");
        }
        let reached = m.run_to_confirmed(TICKS, u64::from(TICKS) * 40);
        prop_assert!(reached, "{}", m.progress());
        // Frames for the hashes to cross and every spectator to start
        // watching: hashes and the spectator's welcome travel reliably, so
        // on a lossy link each waits for its own retransmissions (200 ms
        // each) and for those of everything queued ahead of it. At least
        // half a second, up to 5 s.
        let wanted = u32::from(players) - 1;
        for frame in 0..300 {
            let crossed = m.players.iter().all(|p| p.seen.hash_matches >= wanted)
                && m.spectators.iter().all(|s| s.seen.started);
            if crossed && frame >= 30 {
                break;
            }
            m.step_frame();
        }
        for p in &m.players {
            prop_assert!(p.outcome().is_none(), "{}", m.progress());
            prop_assert!(p.seen.hash_matches >= wanted, "{} checks", p.seen.hash_matches);
        }
        let logs: Vec<InputLog<u8>> = m.players.iter().map(|p| p.input_log()).collect();
        let n = logs.iter().map(|l| l.inputs.len()).min().unwrap_or(0);
        prop_assert!(n >= TICKS as usize * usize::from(players));
        for (i, log) in logs.iter().enumerate() {
            prop_assert_eq!(&log.inputs[..n], &logs[0].inputs[..n], "player {}", i);
            prop_assert!(log.replay::<Crowd>().is_ok(), "player {}", i);
        }
        for p in m.players[1..].iter().chain(&m.spectators) {
            for (t, h) in &m.players[0].seen.hashes {
                if let Some(g) = p.seen.hashes.get(t) {
                    prop_assert_eq!(h, g, "tick {}", t);
                }
            }
        }
        for (k, s) in m.spectators.iter().enumerate() {
            prop_assert!(s.outcome().is_none(), "spectator {}: {:?}", k, s.outcome());
            prop_assert!(s.seen.started, "spectator {} never watched: {}", k, m.progress());
        }
    }
}
