//! Time synchronisation in rollback mode: a side that runs ahead of its
//! peer (here the host, because the guest's first frames came late) lets a
//! frame pass now and then, never two within 20 frames, until both run
//! level, so that neither keeps rolling back. Lock-step never skips (its
//! stalls already keep the sides level).
use crate::common;

use common::{Mode, Pair};
use lockstep::{Frame, Millis};
use netsim::LinkConfig;

fn link() -> LinkConfig {
    LinkConfig {
        latency: Millis(40),
        jitter: Millis(5),
        ..LinkConfig::default()
    }
}

fn skips(frames: &[Frame]) -> Vec<usize> {
    frames
        .iter()
        .enumerate()
        .filter(|(_, f)| matches!(f, Frame::Skipped(_)))
        .map(|(i, _)| i)
        .collect()
}

#[test]
fn the_side_ahead_slows_gently_until_level() {
    let mut p = Pair::tiny_in(Mode::Rollback, link(), 3, 8, 2);
    // The guest's player starts 10 frames late: the host runs ahead on
    // predictions of the guest's inputs.
    p.guest.runs = false;
    p.run_frames(10);
    p.guest.runs = true;
    p.run_frames(120);
    let early = p.host.stats();
    p.run_frames(1200);
    let mid = p.host.stats();
    p.run_frames(600);
    let late = p.host.stats();

    // The host skipped frames, the guest (behind) hardly any.
    let host_skips = skips(&p.host.seen.frames);
    let guest_skips = skips(&p.guest.seen.frames);
    assert!(host_skips.len() >= 3, "host skipped {host_skips:?}");
    assert!(guest_skips.len() < host_skips.len(), "{guest_skips:?}");
    // Never two skips within 20 frames: a hitch, never a freeze.
    for w in host_skips.windows(2).chain(guest_skips.windows(2)) {
        assert!(w[1] - w[0] >= 20, "skips at {w:?}");
    }
    // Once level, re-simulation per frame is far below what it was while
    // the host ran ahead.
    let rate = |a: &lockstep::SessionStats, b: &lockstep::SessionStats| {
        (b.resimulated_ticks - a.resimulated_ticks) as f64 / (b.frames - a.frames) as f64
    };
    let start = lockstep::SessionStats::default();
    let before = rate(&start, &early);
    let after = rate(&mid, &late);
    eprintln!(
        "re-simulated ticks per frame: {before:.2} then {after:.2}; host skips {host_skips:?}"
    );
    // (These pads change one frame in three, so some re-simulation stays:
    // 1.06 then 0.68 per frame here.)
    assert!(after < before * 0.75, "{before} then {after}");
    // Both still advance about one tick per frame and agree.
    assert!(p.host.tick() > 1800 && p.guest.tick() > 1800);
    assert!(p.host.outcome().is_none() && p.guest.outcome().is_none());
    assert!(p.assert_in_sync() > 300);
}

#[test]
fn lock_step_never_skips() {
    let mut p = Pair::tiny_in(Mode::LockStep, link(), 4, 8, 4);
    p.guest.runs = false;
    p.run_frames(10);
    p.guest.runs = true;
    p.run_frames(600);
    assert!(skips(&p.host.seen.frames).is_empty());
    assert!(skips(&p.guest.seen.frames).is_empty());
    assert_eq!(p.host.stats().skipped_frames, 0);
}
