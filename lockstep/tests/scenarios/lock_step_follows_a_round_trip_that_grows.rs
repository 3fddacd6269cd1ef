//! Lock-step with `adaptive_input_delay`: when the round trip grows past
//! what the match's delay covers, each side raises its own delay and the
//! match keeps its pace; without it the same link slows the match down.
//! When the round trip shrinks again the delay comes back down to the
//! match's, and a short spike in the round trip raises nothing. Both
//! sides stay in sync throughout.
use crate::common;

use common::Pair;
use lockstep::{Millis, SessionConfig, MAX_ADAPTIVE_DELAY};
use netsim::LinkConfig;

fn link(latency: u64) -> LinkConfig {
    LinkConfig {
        latency: Millis(latency),
        jitter: Millis(5),
        ..LinkConfig::default()
    }
}

/// A lock-step pair with delay 2 over a 10 ms link, past tick 600.
fn pair(adaptive: bool) -> Pair<common::Tiny, common::Tiny> {
    let (host, guest) = (SessionConfig::host(41, 2), SessionConfig::guest());
    let (host, guest) = if adaptive {
        (host.adaptive_input_delay(), guest.adaptive_input_delay())
    } else {
        (host, guest)
    };
    let mut p = Pair::new(host, guest, link(10), 17);
    assert!(p.run_to_tick(600, 2_000), "{}", p.progress());
    assert_eq!(p.host.input_delay(), Some(2));
    p
}

/// Ticks both sides gained over `frames` frames (the fewer of the two).
fn gained(p: &mut Pair<common::Tiny, common::Tiny>, frames: u64) -> u32 {
    let at = (p.host.tick(), p.guest.tick());
    p.run_frames(frames);
    (p.host.tick() - at.0).min(p.guest.tick() - at.1)
}

#[test]
fn a_longer_round_trip_raises_the_delay_and_the_match_keeps_its_pace() {
    // 90 ms each way: a 180 ms round trip, over five times the 2-tick delay.
    let mut fixed = pair(false);
    fixed.link_mut().0.set_config(link(90));
    fixed.run_frames(300);
    let slow = gained(&mut fixed, 1_200);
    assert!(
        slow < 700,
        "a fixed delay slows the match: {slow} ticks in 1,200 frames"
    );
    assert_eq!(fixed.host.input_delay(), Some(2));

    let mut p = pair(true);
    p.link_mut().0.set_config(link(90));
    // A second or so for the new round trips to be measured.
    p.run_frames(300);
    let stalled_before = (
        p.host.stats().stalled_frames,
        p.guest.stats().stalled_frames,
    );
    let pace = gained(&mut p, 1_200);
    assert!(
        pace >= 1_190,
        "the raised delay keeps the pace: {pace} ticks in 1,200 frames"
    );
    let stalls = (
        p.host.stats().stalled_frames - stalled_before.0,
        p.guest.stats().stalled_frames - stalled_before.1,
    );
    assert!(
        stalls.0 <= 10 && stalls.1 <= 10,
        "stalled frames {stalls:?}"
    );
    // A 185 ms round trip calls for ceil(92.5 ms / 16.7 ms) + 1 = 7 ticks.
    for s in [&p.host, &p.guest] {
        let d = s.input_delay().unwrap_or(0);
        assert!((6..=8).contains(&d), "delay {d}");
    }
    assert!(p.assert_in_sync() > 0);
}

#[test]
fn the_delay_comes_back_down_when_the_round_trip_shrinks() {
    let mut p = pair(true);
    p.link_mut().0.set_config(link(90));
    p.run_frames(600);
    assert!(p.host.input_delay() > Some(5));
    p.link_mut().0.set_config(link(10));
    // One tick per 3 s once the round trips kept are all short again.
    p.run_frames(60 * 30);
    assert_eq!(p.host.input_delay(), Some(2));
    assert_eq!(p.guest.input_delay(), Some(2));
    // Coming down costs no stall of note either.
    let stalled_before = p.host.stats().stalled_frames;
    let pace = gained(&mut p, 600);
    assert!(pace >= 595, "{pace} ticks in 600 frames");
    assert!(p.host.stats().stalled_frames - stalled_before <= 5);
    let at = p.host.tick().min(p.guest.tick()) / 60 * 60 - 60;
    assert!(p.run_to_confirmed(at, p.frame() + 600));
    p.assert_same_state_at(at, 300);
}

#[test]
fn a_short_spike_raises_nothing() {
    // For half a second everything sent takes 600 ms to cross (a tab
    // frozen for a moment, a burst of queueing): the pings sent then come
    // back as the longest round trips kept, and those are left out.
    let mut p = pair(true);
    p.link_mut().0.set_config(link(600));
    p.run_frames(30);
    p.link_mut().0.set_config(link(10));
    p.run_frames(600);
    assert_eq!(p.host.input_delay(), Some(2));
    assert_eq!(p.guest.input_delay(), Some(2));
    assert!(p.assert_in_sync() > 0);
}

#[test]
fn the_delay_stops_at_its_cap() {
    // 400 ms each way.
    let mut p = pair(true);
    p.link_mut().0.set_config(link(400));
    p.run_frames(1_200);
    assert_eq!(p.host.input_delay(), Some(MAX_ADAPTIVE_DELAY));
    assert_eq!(p.guest.input_delay(), Some(MAX_ADAPTIVE_DELAY));
    assert!(p.host.outcome().is_none() && p.guest.outcome().is_none());
    assert!(p.assert_in_sync() > 0);
}
