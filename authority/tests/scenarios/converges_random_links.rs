//! A property test over random links (latency 0-300 ms, jitter up to the
//! latency and at most 50 ms, loss 0-50%, duplication and reordering 0-30%),
//! a different one for each of three guests: every snapshot a guest decodes
//! is the host's, every guest stays within a second of the host, every
//! event arrives exactly once and in order, and nothing panics. 24 cases of
//! 20 s each.
use crate::common;

use lockstep::Millis;
use netsim::LinkConfig;
use proptest::prelude::*;

fn link() -> impl Strategy<Value = LinkConfig> {
    (0u64..=300, 0u64..=50, 0u8..=50, 0u8..=30, 0u8..=30).prop_map(
        |(latency, jitter, loss, duplicate, reorder)| LinkConfig {
            latency: Millis(latency),
            jitter: Millis(jitter.min(latency)),
            loss_percent: loss,
            duplicate_percent: duplicate,
            reorder_percent: reorder,
            ..LinkConfig::default()
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn converges_over_random_links(links in proptest::collection::vec(link(), 3), seed in any::<u64>()) {
        let mut m = common::Match::new(seed, 5);
        for (i, l) in links.iter().enumerate() {
            m.join(*l, seed.rotate_left(7 * i as u32 + 1), None);
        }
        m.run(20_000);
        let host_tick = m.host.tick();
        for i in 0..links.len() {
            let side = &m.sides[i];
            prop_assert!(side.ended.is_none(), "guest {} ended: {:?}", i, side.ended);
            let latest = m.latest_tick(i).unwrap_or(0);
            prop_assert!(latest + 30 >= host_tick, "guest {} at {}, host at {}", i, latest, host_tick);
            prop_assert_eq!(side.guest.stats().invalid, 0);
            // Events from more than three seconds ago have all arrived
            // (half the reliable retransmissions at 50% loss take longer
            // than one second).
            m.assert_events(i, 90);
        }
        prop_assert!(m.verified > 0);
    }
}
