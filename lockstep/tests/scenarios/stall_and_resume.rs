//! Stall: while the peer is silent no tick runs; when it comes back the
//! match resumes at normal pace (one tick per frame, no catch-up burst).
use crate::common;

use common::{Mode, Pair};
use lockstep::{Frame, Millis};
use netsim::LinkConfig;

fn link() -> LinkConfig {
    LinkConfig {
        latency: Millis(50),
        jitter: Millis(10),
        ..LinkConfig::default()
    }
}

#[test]
fn no_tick_while_the_peer_is_silent_then_normal_pace() {
    common::in_both_modes(|mode| {
        let mut p = Pair::tiny_in(mode, link(), 11, 99, 6);
        assert!(p.run_to_tick(600, 2000));

        // The guest's tab freezes for two seconds (under the 5 s timeout): it
        // sends nothing, so the host runs out of guest inputs and stalls.
        p.guest.runs = false;
        p.run_frames(30); // inputs already in flight and the delay drain
        let host_tick = p.host.tick();
        let frames_before = p.host.seen.frames.len();
        p.run_frames(90);
        assert_eq!(p.host.tick(), host_tick, "no tick runs without the peer");
        assert!(p.host.seen.frames[frames_before..]
            .iter()
            .all(|f| *f == Frame::Stalled(host_tick)));
        // A stall never samples new local inputs, so the delay does not grow:
        // the host holds inputs up to `tick + delay` and no further.
        let stats = p.host.stats();
        assert!(stats.stalled_frames >= 90);
        assert_eq!(p.host.pads.sampled(), u64::from(host_tick) + 1);

        // The guest comes back.
        p.guest.runs = true;
        let resumed_at = p.frame();
        let ticks_at = (p.host.tick(), p.guest.tick());
        p.run_frames(300);
        let host_gain = p.host.tick() - ticks_at.0;
        let guest_gain = p.guest.tick() - ticks_at.1;
        // Never more than one tick per frame (no burst), and nearly one per
        // frame once the first inputs have crossed the link again.
        assert!(host_gain <= 300 && guest_gain <= 300);
        assert!(
            host_gain >= 280,
            "host gained {host_gain} ticks in 300 frames"
        );
        assert!(
            guest_gain >= 280,
            "guest gained {guest_gain} ticks in 300 frames"
        );
        // Settled pace: the last 200 frames are all ticks (in rollback, the
        // host ran the window ahead during the stall, so time sync may let a
        // frame pass now and then, never two within 20).
        let tail = &p.host.seen.frames[p.host.seen.frames.len() - 200..];
        assert!(
            tail.iter().all(|f| matches!(f, Frame::Ticked(_))
                || (mode == Mode::Rollback && matches!(f, Frame::Skipped(_)))),
            "resumed at frame {resumed_at}"
        );
        assert!(
            tail.iter()
                .filter(|f| matches!(f, Frame::Skipped(_)))
                .count()
                <= 10
        );
        assert_eq!(p.host.outcome(), None);
        assert_eq!(p.guest.outcome(), None);
        assert!(p.assert_in_sync() > 600);
        // Still exactly `delay` ticks of input queued after a tick ran.
        assert_eq!(p.host.pads.sampled(), u64::from(p.host.tick()));
    });
}

#[test]
fn a_severed_link_stalls_both_sides_and_healing_resumes() {
    common::in_both_modes(|mode| {
        let mut p = Pair::tiny_in(mode, link(), 12, 7, 6);
        assert!(p.run_to_tick(300, 1000));
        p.host_net().sever_both();
        p.run_frames(30);
        let ticks = (p.host.tick(), p.guest.tick());
        p.run_frames(150); // 2.5 s
        assert_eq!((p.host.tick(), p.guest.tick()), ticks);
        p.host_net().heal_both();
        let ticks = (p.host.tick(), p.guest.tick());
        p.run_frames(300);
        assert!(p.host.tick() - ticks.0 >= 280 && p.host.tick() - ticks.0 <= 300);
        assert!(p.guest.tick() - ticks.1 >= 280 && p.guest.tick() - ticks.1 <= 300);
        assert_eq!(p.host.outcome(), None);
        assert!(p.assert_in_sync() > 300);
    });
}
