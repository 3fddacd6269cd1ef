//! In rollback, a misprediction found at the start of a frame sends the
//! session back to the state saved before the wrong guess. Ticks between
//! the last one hashed and that point were guessed right and are final
//! too: they are hashed (from their saved states) before the
//! re-simulation, so with a hash every tick both sides compare every tick.
use crate::common;

use common::{Mode, Pair, Tiny};
use lockstep::{Event, Millis, SessionConfig};
use netsim::LinkConfig;

fn matched(events: &[Event]) -> Vec<u32> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::HashMatched(t) => Some(*t),
            _ => None,
        })
        .collect()
}

#[test]
fn a_hash_every_tick_compares_every_tick() {
    // Jitter as large as the latency: inputs arrive out of step with the
    // frames, so guesses right and wrong alternate.
    let link = LinkConfig {
        latency: Millis(20),
        jitter: Millis(20),
        ..LinkConfig::default()
    };
    for seed in 0..10u64 {
        let mut p: Pair<Tiny, Tiny> = Pair::new(
            Mode::Rollback
                .cfg(SessionConfig::host(seed, 2))
                .hash_interval(1),
            SessionConfig::guest(),
            link,
            1000 + seed,
        );
        assert!(p.run_to_confirmed(600, 2000), "{}", p.progress());
        // A few frames for the last hashes to cross.
        p.run_frames(30);
        assert!(p.host.stats().rollbacks > 3, "{:?}", p.host.stats());
        for (side, events) in [
            ("host", &p.host.seen.events),
            ("guest", &p.guest.seen.events),
        ] {
            let seen = matched(events);
            let missing: Vec<u32> = (1..=600).filter(|t| !seen.contains(t)).collect();
            assert!(
                missing.is_empty(),
                "seed {seed}: {side} never compared {missing:?}"
            );
        }
    }
}
