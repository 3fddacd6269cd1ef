//! Prediction of a guest's own ship against the real host, at 1, 50 and
//! 120 ms one way (no jitter, no loss), three guests and the host's own bot
//! fighting for 30 s.
//!
//! Every 10 ms the guest predicts where its ship will be at the tick a
//! command sent now takes effect on the host; once the host has run that
//! tick, the prediction is compared with the host's real position. Samples
//! whose tick comes after something the guest could not foresee (a hit, a
//! collision, a respawn of its ship) that its newest snapshot did not yet
//! show are left out. The bound: every sample within 0.25 m of the host
//! (ships move up to 20 m/s, 0.66 m a tick; docs/benchmarks.md has the
//! measured figures), and at 50 ms and more, twenty times closer on
//! average than drawing the newest snapshot's position. Corrections: none larger
//! than the snap distance unless an unforeseeable event for that ship
//! arrived in the second before.
use crate::common;

use arena::SNAP_DISTANCE;
use lockstep::Millis;
use netsim::LinkConfig;

fn predict_at(one_way: u64, seed: u64) {
    let link = LinkConfig {
        latency: Millis(one_way),
        ..LinkConfig::default()
    };
    let mut m = common::Match::new(seed, 1);
    for i in 0..3 {
        m.join(link, seed + i, None);
    }
    // (target tick, newest decoded tick, predicted position) of guest 0.
    let mut samples = Vec::new();
    while m.now < Millis(30_000) {
        m.step();
        if m.now.0.is_multiple_of(10) {
            let side = &m.sides[0];
            if let (Some((tick, motion)), Some((base, _, _))) =
                (side.predictor.motion(m.now), side.guest.latest())
            {
                samples.push((tick, base, [motion.x, motion.y]));
            }
        }
    }
    let seat = m.sides[0].seat.expect("seated");
    let log = m.log.borrow();
    let unforeseen: Vec<u64> = log
        .entries
        .iter()
        .filter_map(|e| match e {
            common::Entry::Event(t, to, e) if to.includes(seat) && e.moves(seat) => Some(*t),
            _ => None,
        })
        .collect();
    assert!(
        !unforeseen.is_empty(),
        "the ship was hit or bumped at least once"
    );
    let foreseeable: Vec<_> = samples
        .iter()
        .filter(|(tick, base, _)| !unforeseen.iter().any(|t| t > base && t <= tick))
        .filter_map(|(tick, base, p)| {
            Some((
                log.motions.get(&(seat, *tick))?,
                log.motions.get(&(seat, *base))?,
                p,
            ))
        })
        .collect();
    let mut errors: Vec<f32> = foreseeable
        .iter()
        .map(|(real, _, p)| (real.x - p[0]).hypot(real.y - p[1]))
        .collect();
    // Without prediction the ship would be drawn where the newest snapshot
    // has it: the same comparison for that shows what prediction wins.
    let naive: f32 = foreseeable
        .iter()
        .map(|(real, old, _)| (real.x - old.x).hypot(real.y - old.y))
        .sum::<f32>()
        / foreseeable.len().max(1) as f32;
    assert!(errors.len() > 1500, "{} samples compared", errors.len());
    errors.sort_by(f32::total_cmp);
    let p99 = errors[errors.len() * 99 / 100];
    let max = errors[errors.len() - 1];
    let exact = errors.iter().filter(|e| **e < 1e-3).count();
    eprintln!(
        "{one_way} ms one way: {} samples, {exact} exact, p99 {p99:.3} m, max {max:.3} m, {} unforeseen events",
        errors.len(),
        unforeseen.len()
    );
    let mean = errors.iter().sum::<f32>() / errors.len() as f32;
    eprintln!("mean error {mean:.4} m; without prediction {naive:.3} m");
    assert!(max <= 0.25, "every sample within 0.25 m: max {max}");
    if one_way >= 50 {
        assert!(
            naive > 20.0 * mean.max(0.001),
            "prediction wins: {mean} against {naive}"
        );
    }

    // Corrections beyond the snap distance only follow unforeseen events.
    let side = &m.sides[0];
    for (at, c) in &side.corrections {
        if c.distance > SNAP_DISTANCE {
            assert!(c.snapped);
            let explained = side
                .events
                .iter()
                .zip(&side.event_times)
                .any(|(e, t)| e.moves(seat) && *t <= *at && *at - *t <= Millis(1000));
            assert!(
                explained,
                "a {:.2} m correction at {at:?} with no event to explain it",
                c.distance
            );
        } else {
            assert!(!c.snapped);
        }
    }
    assert!(side.corrections.len() > 100);
}

#[test]
fn prediction_at_1ms_one_way() {
    predict_at(1, 21);
}

#[test]
fn prediction_at_50ms_one_way() {
    predict_at(50, 22);
}

#[test]
fn prediction_at_120ms_one_way() {
    predict_at(120, 13);
}
