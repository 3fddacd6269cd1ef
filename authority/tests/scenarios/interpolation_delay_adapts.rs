//! The interpolation delay follows the link: short on a steady link, longer
//! with jitter, longer again with loss (a lost snapshot doubles the gap),
//! always within 40-250 ms; and at that delay the render time almost
//! always falls between two snapshots the guest already has.
use crate::common;

use authority::interp::{MAX_DELAY, MIN_DELAY};
use lockstep::Millis;
use netsim::LinkConfig;

/// Runs 20 s over `link`; returns the final delay and the share of frames
/// (after the first 3 s) whose render time was past the newest snapshot.
fn delay_over(link: LinkConfig, seed: u64) -> (Millis, f64) {
    let mut m = common::Match::new(seed, 5);
    m.join(link, seed, None);
    let (mut frames, mut starved) = (0u32, 0u32);
    while m.now < Millis(20_000) {
        m.step();
        let guest = &m.sides[0].guest;
        if let Some(d) = guest.render_delay() {
            assert!((MIN_DELAY..=MAX_DELAY).contains(&d), "{d:?}");
        }
        if m.now > Millis(3_000) {
            let b = guest.bracket(m.now).expect("snapshots arrived");
            frames += 1;
            starved += u32::from(b.starved);
            assert!(guest.view(m.now).is_some());
        }
    }
    let delay = m.sides[0].guest.render_delay().expect("measured");
    (delay, f64::from(starved) / f64::from(frames))
}

#[test]
fn the_delay_follows_interval_and_jitter() {
    let (steady, s1) = delay_over(common::link_a(), 61);
    let jitter = LinkConfig {
        latency: Millis(80),
        jitter: Millis(40),
        ..LinkConfig::default()
    };
    let (jittery, s2) = delay_over(jitter, 62);
    let lossy = LinkConfig {
        loss_percent: 25,
        ..jitter
    };
    let (lossy, s3) = delay_over(lossy, 63);
    eprintln!("steady {steady:?} ({s1:.3} starved), jitter {jittery:?} ({s2:.3}), jitter and loss {lossy:?} ({s3:.3})");
    // One snapshot every two 33 ms ticks, late by at most the 5 ms frame
    // of the test's clock: about 66 ms.
    assert!((Millis(66)..=Millis(75)).contains(&steady), "{steady:?}");
    assert!(jittery > steady + Millis(30), "{jittery:?}");
    assert!(lossy > jittery, "{lossy:?}");
    assert!(s1 == 0.0, "{s1}");
    assert!(s2 < 0.02 && s3 < 0.05, "{s2} {s3}");
}
