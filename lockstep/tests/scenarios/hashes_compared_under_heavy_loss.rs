//! With a hash every tick on a link losing 40% of packets, the reliable
//! channel's retransmissions delay the peer's hashes by many ticks. Each
//! side keeps its own hashes until the peer's hash for that tick (or a
//! later one) has arrived, so every tick is still compared, in lock-step
//! and rollback, and a desync is found at the first tick that differs.
use crate::common;

use common::{in_both_modes, Pair, Tiny};
use lockstep::{Event, Millis, SessionConfig};
use netsim::LinkConfig;

#[test]
fn every_tick_is_compared_at_forty_percent_loss() {
    in_both_modes(|mode| {
        let link = LinkConfig {
            latency: Millis(50),
            jitter: Millis(10),
            loss_percent: 40,
            ..LinkConfig::default()
        };
        let mut p: Pair<Tiny, Tiny> = Pair::new(
            mode.cfg(SessionConfig::host(3, 6)).hash_interval(1),
            SessionConfig::guest(),
            link,
            77,
        );
        assert!(p.run_to_confirmed(900, 900 * 6), "{}", p.progress());
        // Let the last hashes of the first 900 ticks cross.
        p.run_frames(600);
        assert_eq!(p.host.outcome(), None);
        assert_eq!(p.guest.outcome(), None);
        for (side, events) in [
            ("host", &p.host.seen.events),
            ("guest", &p.guest.seen.events),
        ] {
            let compared: std::collections::BTreeSet<u32> = events
                .iter()
                .filter_map(|e| match e {
                    Event::HashMatched(t) => Some(*t),
                    _ => None,
                })
                .collect();
            let missing = (1..=900).filter(|t| !compared.contains(t)).count();
            assert_eq!(missing, 0, "{side}: {missing} of 900 ticks never compared");
        }
    });
}
