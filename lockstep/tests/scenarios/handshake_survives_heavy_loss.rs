//! A host that picks its input delay from the round trip measures it with
//! pings before the match. On a link losing half the packets each way,
//! three round trips in four fail. The handshake keeps both sides talking
//! (the host pings every frame until it has its round trips, the guest
//! pings while it waits for the host's Hello), so it always gets to the
//! first tick: it never ends in a silence timeout of its own making.
use crate::common;

use common::{in_both_modes, Pair, Tiny};
use lockstep::{Event, Millis, SessionConfig};
use netsim::LinkConfig;

#[test]
fn half_the_packets_lost_each_way_still_starts() {
    in_both_modes(|mode| {
        let link = LinkConfig {
            latency: Millis(20),
            loss_percent: 50,
            ..LinkConfig::default()
        };
        for seed in 0..40u64 {
            let mut p: Pair<Tiny, Tiny> = Pair::new(
                mode.cfg(SessionConfig::host(seed, 6).input_delay_from_rtt()),
                SessionConfig::guest(),
                link,
                500 + seed,
            );
            assert!(p.run_to_tick(120, 60 * 60), "seed {seed}: {}", p.progress());
            assert_eq!(p.host.outcome(), None, "seed {seed}");
            assert_eq!(p.guest.outcome(), None, "seed {seed}");
            // The delay came from round trips measured before the start.
            let started = p
                .host
                .seen
                .events
                .iter()
                .position(|e| matches!(e, Event::Started { .. }));
            let rtts = p.host.seen.events[..started.unwrap_or(0)]
                .iter()
                .filter(|e| matches!(e, Event::RoundTrip(_)))
                .count();
            assert!(rtts >= 5, "seed {seed}: {rtts} round trips");
        }
    });
}
