//! A fraction of a second of scenario (a) with both games and every default row
//! (the full benchmark runs in real time for much longer; see the binary).
//! It checks that the harness works: every peer advanced, the two peers of
//! every pair agree on every tick both have confirmed, and nothing went
//! wrong. No figure is asserted: speed is read from the printed table.

use std::time::Duration;

use ggrs_compare::{run_scenario, GameKind, RunSettings, DEFAULT_ENGINES, SCENARIOS};

#[test]
fn both_engines_advance_and_stay_in_sync() {
    // Scenario (a): no latency, so both handshakes (GGRS needs five round
    // trips) are done within a few frames and 0.8 s leaves most of the time
    // for play even on a loaded machine.
    let scenario = &SCENARIOS[0];
    let mut settings = RunSettings::new(scenario.link, Duration::from_millis(800));
    // A short delay, so confirmed ticks appear early.
    settings.input_delay = 2;
    let results = run_scenario(
        scenario,
        &[GameKind::Dots, GameKind::Ntba],
        DEFAULT_ENGINES,
        &settings,
    )
    .expect("the default engines can be set up");
    assert_eq!(results.len(), 2 * DEFAULT_ENGINES.len());
    for r in &results {
        let what = format!("{} on {}", r.engine, r.game.name());
        for p in &r.peers {
            assert!(p.ticks > 0, "{what}: side {} never advanced", p.side);
            assert!(p.packets > 0, "{what}: side {} sent nothing", p.side);
            assert!(p.problems.is_empty(), "{what}: {:?}", p.problems);
        }
        assert!(r.sync.is_ok(), "{what}: {:?}", r.sync);
    }
}

#[test]
fn a_window_our_session_refuses_is_an_error_not_a_run() {
    // Configuration mistakes surface as an error from the harness.
    let scenario = &SCENARIOS[0];
    let settings = RunSettings::new(scenario.link, Duration::from_millis(10));
    let window = lockstep::wire::MAX_PREDICTION_WINDOW + 1;
    let result = run_scenario(
        scenario,
        &[GameKind::Dots],
        &[ggrs_compare::Engine::Ours {
            window,
            send_interval: 1,
            max_hold: 0,
        }],
        &settings,
    );
    assert!(result.is_err());
}
