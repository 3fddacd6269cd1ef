//! 8 players over a full mesh (every pair of players joined by its own
//! link with the same conditions), in both modes, over the links of the
//! two-player scenarios: (a) no latency, (b) 50 ms ±10, (c) the same with
//! 5% loss, (d) 100 ms ±20 with 25% loss, (e) 30 ms ±15 with 20%
//! duplication and 20% reordering. Every player confirms 3,600 ticks, all
//! hold the same state at every final tick recorded, their input logs agree
//! and replay, and each compared its hashes with every other player.
mod common;

use common::Mode;
use lockstep::Millis;
use netsim::LinkConfig;

#[test]
fn eight_players_stay_in_sync_over_every_link() {
    let links = [
        ("(a)", LinkConfig::default(), 2, 2),
        (
            "(b)",
            LinkConfig {
                latency: Millis(50),
                jitter: Millis(10),
                ..LinkConfig::default()
            },
            6,
            2,
        ),
        (
            "(c)",
            LinkConfig {
                latency: Millis(50),
                jitter: Millis(10),
                loss_percent: 5,
                ..LinkConfig::default()
            },
            6,
            2,
        ),
        (
            "(d)",
            LinkConfig {
                latency: Millis(100),
                jitter: Millis(20),
                loss_percent: 25,
                ..LinkConfig::default()
            },
            6,
            6,
        ),
        (
            "(e)",
            LinkConfig {
                latency: Millis(30),
                jitter: Millis(15),
                duplicate_percent: 20,
                reorder_percent: 20,
                reorder_delay: Millis(40),
                ..LinkConfig::default()
            },
            4,
            1,
        ),
    ];
    common::in_both_modes(|mode| {
        for (i, &(name, link, lock_step_delay, rollback_delay)) in links.iter().enumerate() {
            eprintln!("link {name}");
            let delay = if mode == Mode::LockStep {
                lock_step_delay
            } else {
                rollback_delay
            };
            let m = common::assert_mesh_in_sync_for_3600_ticks(8, mode, link, 40 + i as u64, delay);
            let stalled: Vec<u64> = m.players.iter().map(|p| p.stats().stalled_frames).collect();
            eprintln!("{name}: {} frames, stalled {stalled:?}", m.net.frame);
        }
    });
}
