//! Time synchronisation keeps the two sides within its dead band (a side
//! 1.5 ticks ahead lets a frame pass) for every hold length a side may
//! choose, on lossy links too. Here the guest holds back its packets for
//! up to 8 or 15 frames (`max_hold_frames`) while its pad is unchanged,
//! the host keeps the default of 2, and 5–20% of packets are lost: over
//! the second half of each minute-long match the guest's lead, averaged,
//! stays within 1.5 ticks.
//!
//! A held packet that is lost leaves the peer without the inputs it
//! carried until the next packet; if the hold counted on it, the peer ran
//! out of its prediction window and stalled while the holding side ran
//! on, a lead that time sync (at most one skipped frame in 20) could only
//! chase.
use crate::common;

use common::{Mode, Pads, Pair, Tiny};
use lockstep::{Millis, SessionConfig};
use netsim::LinkConfig;

#[test]
fn the_side_holding_long_does_not_run_ahead() {
    for loss in [5u8, 10, 20] {
        for hold in [8u8, 15] {
            let mut worst = 0.0f64;
            for seed in 0..6u64 {
                let link = LinkConfig {
                    latency: Millis(30),
                    jitter: Millis(5),
                    loss_percent: loss,
                    ..LinkConfig::default()
                };
                let mut p: Pair<Tiny, Tiny> = Pair::new(
                    Mode::Rollback.cfg(SessionConfig::host(seed, 2)),
                    Mode::Rollback
                        .cfg(SessionConfig::guest())
                        .max_hold_frames(hold),
                    link,
                    7000 + seed,
                );
                // Players who hold their buttons (a change about every
                // 40 frames), so the guest does hold its packets back.
                p.host.pads = Pads::changing_one_in(seed, 40);
                p.guest.pads = Pads::changing_one_in(seed + 99, 40);
                p.run_frames(1800);
                let sent_before = p.guest.stats().unreliable_packets;
                let mut lead_sum = 0i64;
                for _ in 0..1800 {
                    p.step_frame();
                    lead_sum += i64::from(p.guest.tick()) - i64::from(p.host.tick());
                }
                let lead = lead_sum as f64 / 1800.0;
                let sent = p.guest.stats().unreliable_packets - sent_before;
                eprintln!(
                    "loss {loss}% hold {hold} seed {seed}: guest lead {lead:.2} ticks, {} packets/s, stalls {}/{}",
                    sent / 30,
                    p.host.stats().stalled_frames,
                    p.guest.stats().stalled_frames
                );
                assert!(
                    lead.abs() <= 1.5,
                    "loss {loss}% hold {hold} seed {seed}: the guest leads by {lead:.2} ticks on average"
                );
                // The guest did hold back (fewer than one packet a frame).
                assert!(sent < 1800 * 9 / 10, "{sent} packets in 1,800 frames");
                assert_eq!(p.host.outcome(), None);
                assert_eq!(p.guest.outcome(), None);
                p.assert_in_sync();
                worst = worst.max(lead.abs());
            }
            eprintln!("loss {loss}% hold {hold}: worst lead {worst:.2}");
        }
    }
}
