//! A host that picks its delay from the round trip sends its Hello and
//! starts half a round trip later. On a jittery link the Hello can reach
//! the guest sooner than that, and with a hash every tick the guest's
//! first Hash can then reach the host before the host has started. That
//! Hash follows the guest's Hello and answers the host's: it is honest, so
//! the host keeps it and compares it once it has run that tick, and the
//! match goes on.
use crate::common;

use common::{in_both_modes, Pair, Tiny};
use lockstep::{Event, Millis, SessionConfig};
use netsim::LinkConfig;

#[test]
fn a_hash_that_beats_the_hosts_start_is_kept_and_compared() {
    in_both_modes(|mode| {
        // 20 ms one way with as much jitter again: the host's Hello often
        // takes less than the half round trip the host waits.
        let link = LinkConfig {
            latency: Millis(20),
            jitter: Millis(20),
            ..LinkConfig::default()
        };
        let mut early_hashes = 0;
        for seed in 0..40u64 {
            let mut p: Pair<Tiny, Tiny> = Pair::new(
                mode.cfg(SessionConfig::host(seed, 6).input_delay_from_rtt())
                    .hash_interval(1),
                SessionConfig::guest(),
                link,
                1000 + seed,
            );
            // Watch the guest's first hash cross before the host starts.
            while !p.host.is_running() && p.frame() < 600 && p.host.outcome().is_none() {
                p.step_frame();
            }
            let guest_ran_first = p
                .guest
                .seen
                .events
                .iter()
                .any(|e| matches!(e, Event::Ticked(_)));
            if guest_ran_first {
                early_hashes += 1;
            }
            assert!(
                p.run_to_confirmed(120, 2000),
                "seed {seed}: {}",
                p.progress()
            );
            assert_eq!(p.host.outcome(), None, "seed {seed}");
            assert_eq!(p.guest.outcome(), None, "seed {seed}");
            // Every tick's hash was compared on both sides, the first ones
            // included.
            assert!(
                p.host.seen.events.contains(&Event::HashMatched(1)),
                "seed {seed}: the host compared tick 1"
            );
            p.assert_same_state_at(120, 120);
        }
        // The case this file is about happened, more than once.
        assert!(
            early_hashes >= 3,
            "{early_hashes} early starts of the guest"
        );
    });
}
