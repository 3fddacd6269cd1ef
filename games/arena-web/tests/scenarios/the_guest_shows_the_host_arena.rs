//! A host page and a guest page play the arena over a 50 ms link with
//! jitter, both steering and firing: every other ship the guest draws is
//! within 0.5 m of where the host had it at the guest's render time, its
//! own predicted ship within the snap distance of where the host had it at
//! the predicted tick, and no correction snaps without an event to explain
//! it.
use crate::common;

use arena::SNAP_DISTANCE;
use lockstep::Millis;
use netsim::LinkConfig;

/// Interpolated ships against the host's state at the same tick (metres):
/// positions travel in decimetres, and a straight blend between snapshots
/// two ticks apart cuts a turning ship's curve by a little.
const INTERPOLATION_BOUND: f32 = 0.5;

#[test]
fn the_guest_draws_every_ship_where_the_host_had_it() {
    let link = LinkConfig {
        latency: Millis(50),
        jitter: Millis(10),
        ..LinkConfig::default()
    };
    let mut p = common::Pair::new(link, 61);
    let mut checked = 0;
    let mut own_checked = 0;
    let mut frame = 0u32;
    // The prediction stands for a tick the host has not run yet: kept
    // until the host's history reaches it.
    let mut predicted: Vec<(u64, [f32; 2])> = Vec::new();
    p.run(30_000, |p| {
        frame += 1;
        // Both players steer in changing circles and keep firing.
        let phase = frame / 90;
        p.host.held = match phase % 3 {
            0 => vec!["ArrowUp", "ArrowLeft", "Space"],
            1 => vec!["ArrowUp", "Space"],
            _ => vec!["ArrowRight", "Space"],
        };
        p.guest.held = match (phase + 1) % 4 {
            0 => vec!["KeyW", "KeyD", "Space"],
            1 => vec!["KeyW"],
            2 => vec!["KeyA", "Space"],
            _ => vec![],
        };
        let host = p.host.probe.borrow();
        let guest = p.guest.probe.borrow();
        let (Some(tick), Some(seat)) = (guest.tick, guest.seat) else {
            return;
        };
        for s in guest.ships.iter().filter(|s| s.id != seat && s.hp > 0) {
            if let Some(h) = common::host_at(&host, s.id, tick) {
                let d = (s.x - h[0]).hypot(s.y - h[1]);
                assert!(
                    d <= INTERPOLATION_BOUND,
                    "ship {} drawn {d} m from the host's at tick {tick}",
                    s.id
                );
                checked += 1;
            }
        }
        if let Some(own) = guest.own {
            predicted.push((own.tick, [own.x, own.y]));
        }
        let newest = host.history.back().map_or(0, |h| h.tick);
        predicted.retain(|&(tick, pos)| {
            if tick > newest {
                return true;
            }
            #[allow(clippy::cast_precision_loss)]
            if let Some(h) = common::host_at(&host, seat, tick as f64) {
                let d = (pos[0] - h[0]).hypot(pos[1] - h[1]);
                assert!(
                    d <= SNAP_DISTANCE,
                    "own ship predicted {d} m from the host's at tick {tick}"
                );
                own_checked += 1;
            }
            false
        });
    });
    assert!(checked > 1_000, "only {checked} comparisons");
    assert!(
        own_checked > 1_000,
        "only {own_checked} own-ship comparisons"
    );
    let g = p.guest.probe.borrow();
    assert!(g.events > 0, "hits and bumps reached the guest");
    assert_eq!(g.unexplained_snaps, 0);
    assert!(p.host.ended.is_none() && p.guest.ended.is_none());
}
