//! Three players of a game that plays on; the gone player's link to the
//! host fails a second before its link to the other guest, so that guest
//! holds inputs of the gone player the host never received. When the
//! window runs out the host asks, takes the longer answer, hands it on and
//! orders the neutral slot from its end: both remaining players switch at
//! the same tick, and play on in sync with every input the other guest
//! confirmed before.
use crate::common;

use common::{assert_players_agree, in_both_modes, Bench, Mode};
use lockstep::{Event, Millis, SessionConfig};
use lockstep_testing::{LinkConfig, Mesh};

#[test]
fn a_leave_keeps_inputs_only_one_player_received() {
    in_both_modes(|mode| {
        let link = LinkConfig {
            latency: Millis(20),
            jitter: Millis(5),
            ..LinkConfig::default()
        };
        let delay = if mode == Mode::LockStep { 4 } else { 2 };
        let mut m = Mesh::<Bench>::new(
            3,
            mode.cfg(SessionConfig::host(13, delay)),
            mode.cfg(SessionConfig::guest()),
            link,
            13,
        );
        assert!(m.run_to_confirmed(600, 3000), "{}", m.progress());
        m.sever(0, 2);
        m.run_frames(60);
        m.sever(1, 2);
        // Slot 2's inputs as each remaining player holds them when the
        // second link fails.
        let held: Vec<usize> = m.players[..2]
            .iter()
            .map(|p| {
                let log = p.input_log();
                log.inputs.len() / 3
            })
            .collect();
        assert!(
            m.run_first_to_confirmed(2, 3000, 60 * 120),
            "{}",
            m.progress()
        );
        m.run_frames(120);
        let left: Vec<u32> = m.players[..2]
            .iter()
            .filter_map(|p| {
                p.seen.events.iter().find_map(|e| match e {
                    Event::Left { slot: 2, tick } => Some(*tick),
                    _ => None,
                })
            })
            .collect();
        assert_eq!(left.len(), 2, "{left:?}");
        assert_eq!(left[0], left[1]);
        eprintln!("confirmed when cut {held:?}, neutral from {}", left[0]);
        // The guest kept hearing the gone player a second longer: the
        // change comes after every tick it had confirmed.
        assert!(left[0] as usize >= held[1], "{left:?} {held:?}");
        let want = if mode == Mode::LockStep { 1500 } else { 200 };
        assert_players_agree(&m, &[0, 1], want);
    });
}
