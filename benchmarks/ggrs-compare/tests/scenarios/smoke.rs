//! Scenario (a) with both games and every default row, until every pair
//! has confirmed a second of ticks (the full benchmark runs in real time
//! for much longer; see the binary). It checks that the harness works:
//! every peer advanced and sent, the two peers of every pair agree on
//! every tick both have confirmed, and nothing went wrong. No figure is
//! asserted: speed is read from the printed table.
//!
//! GGRS reads the wall clock, so this cannot run in virtual time. It waits
//! for progress instead of for a fixed time: the run ends as soon as every
//! pair has confirmed 60 ticks (about 1.2 s on an idle machine), with a
//! deadline of two minutes, so a loaded machine makes it slower, not red.

use std::time::Duration;

use ggrs_compare::{run_scenario, GameKind, RunSettings, DEFAULT_ENGINES, SCENARIOS};

#[test]
fn both_engines_advance_and_stay_in_sync() {
    // Scenario (a): no latency, so both handshakes (GGRS needs five round
    // trips) are done within a few frames.
    let scenario = &SCENARIOS[0];
    let mut settings = RunSettings::new(scenario.link, Duration::from_secs(120));
    settings.until_confirmed = Some(60);
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
            assert!(
                p.ticks >= 60,
                "{what}: side {} made {} ticks",
                p.side,
                p.ticks
            );
            assert!(p.packets > 0, "{what}: side {} sent nothing", p.side);
            // Scenario (a) loses nothing: nothing reliable is sent twice.
            assert_eq!(p.resent, 0, "{what}: side {}", p.side);
            assert!(p.problems.is_empty(), "{what}: {:?}", p.problems);
        }
        match r.sync {
            ggrs_compare::SyncCheck::Agreed { ticks } => {
                assert!(ticks >= 60, "{what}: {ticks} ticks compared");
            }
            diverged => panic!("{what}: {diverged:?}"),
        }
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

#[test]
fn a_ggrs_window_beyond_ours_or_its_queue_is_an_error_not_a_panic() {
    // GGRS 0.13 assert!s when window plus delay reach its 128-frame input
    // queue; the harness refuses before GGRS sees the settings.
    let scenario = &SCENARIOS[0];
    let mut settings = RunSettings::new(scenario.link, Duration::from_millis(10));
    for (window, delay) in [(61, 6), (255, 6), (8, 120), (60, 61)] {
        settings.input_delay = delay;
        let result = run_scenario(
            scenario,
            &[GameKind::Dots],
            &[ggrs_compare::Engine::Ggrs { window }],
            &settings,
        );
        let e = result.expect_err("refused");
        assert!(
            e.contains("at most 60"),
            "window {window}, delay {delay}: {e}"
        );
    }
}
