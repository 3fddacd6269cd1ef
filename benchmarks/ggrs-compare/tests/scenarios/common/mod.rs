//! What the spectator tests of both sides share.

use std::time::Duration;

use ggrs_compare::mesh::{run_spectators, MeshSettings, Mode, Side};
use ggrs_compare::SCENARIOS;

/// A two-player match on `side` whose host serves one spectator, and
/// another whose host serves three, over scenario (a), until every
/// spectator has shown a second of ticks: each spectator shows the host's
/// game tick for tick, and the host uploads to its spectators (more than
/// twice one spectator's traffic when it serves three). The frame loop
/// runs in real time (as GGRS reads the wall clock); it waits for
/// progress, with a two-minute deadline.
pub fn host_serves_spectators_in_sync(side: Side) {
    let scenario = &SCENARIOS[0];
    let mut settings = MeshSettings::new(Duration::from_secs(120));
    settings.until_confirmed = Some(60);
    let results =
        run_spectators(scenario, &[1, 3], Mode::Rollback, &settings, side).expect("valid settings");
    assert_eq!(results.len(), 2);
    for r in &results {
        let what = format!("{} spectators", r.spectators);
        assert_eq!(r.watchers.len(), usize::from(r.spectators), "{what}");
        for w in &r.watchers {
            assert!(
                w.ticks >= 60,
                "{what}: spectator {} showed {}",
                w.side,
                w.ticks
            );
        }
        for p in r.players.iter().chain(&r.watchers) {
            assert!(p.problems.is_empty(), "{what}: {:?}", p.problems);
        }
        assert!(r.sync.is_ok(), "{what}: {:?}", r.sync);
        assert!(r.to_spectators_packets > 0, "{what}: nothing sent");
        assert!(r.payload_per_spectator() > 0.0, "{what}");
    }
    // The same time served, three times the spectators: more than twice
    // the upload to them.
    assert!(
        results[1].to_spectators_bytes > 2 * results[0].to_spectators_bytes,
        "{} bytes to three, {} to one",
        results[1].to_spectators_bytes,
        results[0].to_spectators_bytes
    );
}
