//! GGRS and our session with two and four players in a full mesh, in both
//! modes, over scenario (a), until every row has confirmed a second of
//! ticks: every player of both engines advances and sends, all players of
//! a match agree on every tick all have confirmed, and with either engine
//! a player of four sends to each of its three peers (far more than a
//! player of two). No figure is asserted beyond that: speed is read from
//! the printed table.
//!
//! GGRS reads the wall clock, so this runs in real time; it waits for
//! progress, with a two-minute deadline, so a loaded machine makes it
//! slower, not red.

use std::time::Duration;

use ggrs_compare::mesh::{run_mesh, MeshSettings, Mode, Side};
use ggrs_compare::{RunResult, SCENARIOS};

#[test]
fn ggrs_full_mesh_stays_in_sync() {
    let scenario = &SCENARIOS[0];
    let mut settings = MeshSettings::new(Duration::from_secs(120));
    settings.until_confirmed = Some(60);
    // A short delay in both modes, so confirmed ticks appear early.
    settings.lockstep_delay = 2;
    settings.rollback_delay = 2;
    let results = run_mesh(scenario, &[2, 4], &settings).expect("valid settings");
    // Two counts × two modes × two engines.
    assert_eq!(results.len(), 8);

    let pps = |players: u8, mode: Mode, side: Side| -> f64 {
        let r = results
            .iter()
            .find(|m| m.players == players && m.mode == mode && m.side == side)
            .and_then(|m| m.run.as_ref().ok())
            .expect("every row runs");
        (0..r.peers.len())
            .map(|i| r.packets_per_second(i))
            .fold(f64::INFINITY, f64::min)
    };
    for mode in [Mode::LockStep, Mode::Rollback] {
        for side in [Side::Ours, Side::Ggrs] {
            let (two, four) = (pps(2, mode, side), pps(4, mode, side));
            assert!(
                four > 2.0 * two,
                "{mode}, {side:?}: a player of four sends {four:.1} packets/s, of two {two:.1}"
            );
        }
    }

    for m in &results {
        let what = format!("{} players, {}, {:?}", m.players, m.mode, m.side);
        let run: &RunResult = match &m.run {
            Ok(run) => run,
            Err(why) => panic!("{what}: not run: {why}"),
        };
        assert_eq!(run.peers.len(), usize::from(m.players), "{what}");
        assert_eq!(m.window, settings.window(m.side, m.mode), "{what}");
        for p in &run.peers {
            assert!(p.ticks >= 60, "{what}: player {} made {}", p.side, p.ticks);
            assert!(p.packets > 0, "{what}: player {} sent nothing", p.side);
            assert!(p.problems.is_empty(), "{what}: {:?}", p.problems);
        }
        assert!(run.sync.is_ok(), "{what}: {:?}", run.sync);
    }
}
