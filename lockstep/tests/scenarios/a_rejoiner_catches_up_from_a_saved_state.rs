//! A guest's page reloads in a long match of a game that saves its state
//! (dots). The host's catch-up is its saved confirmed state plus the
//! inputs since, not every input from the start: the fresh session loads
//! it, checks the host's hash, plays on live and ends on the same hashes
//! as the others, in both modes, over a lossy link, with two and three
//! players. Its input log starts from the saved state and replays to the
//! host's state at its last tick.
use crate::common;

use common::{in_both_modes, Mode};
use dots::Dots;
use lockstep::SessionConfig;
use lockstep_testing::Mesh;

fn scenario(mode: Mode, players: u8, seed: u64) {
    let link = common::lossy_link();
    let delay = if mode == Mode::LockStep { 4 } else { 2 };
    let host = mode.cfg(SessionConfig::host(seed, delay).rejoin_entropy(0x5a7e_2026));
    let mut m = Mesh::<Dots>::new(players, host, mode.cfg(SessionConfig::guest()), link, seed);
    assert!(m.run_to_confirmed(3000, 8000), "{}", m.progress());
    let last = usize::from(players) - 1;
    m.reload(last).expect("a guest's slot can be rejoined");
    assert!(m.run_to_confirmed(4800, 16000), "{}", m.progress());
    let back = common::rejoined_ticks(&m, last);
    assert_eq!(back.len(), 1, "{}", m.progress());
    assert!(back[0] >= 3000, "{back:?}");
    assert!(m.players.iter().all(|p| p.outcome().is_none()));
    // Its log starts from the host's saved state, holds every confirmed
    // tick since, survives export, and replays to the state the host's
    // own log (from the seed) gives at the same tick.
    // The rejoiner may have confirmed a tick the host has not yet (it
    // had every input of it first): the host's log is read once it got
    // there too.
    let log = m.players[last].input_log();
    let at = m.players[last].confirmed_tick();
    while m.players[0].confirmed_tick() < at {
        m.step_frame();
    }
    common::assert_log_from_saved_state::<Dots>(&log, &m.players[0].input_log());
    // Every hashed tick after the rejoin agrees with the host's, and the
    // rejoiner hashed plenty of them.
    let mut compared = 0;
    for (t, h) in &m.players[last].seen.hashes {
        if let Some(g) = m.players[0].seen.hashes.get(t) {
            assert_eq!(h, g, "the rejoiner differs from the host at tick {t}");
            compared += 1;
        }
    }
    let want = if mode == Mode::LockStep { 1500 } else { 150 };
    assert!(compared >= want, "only {compared} ticks compared");
    // The others never replayed: their longest re-simulation is an
    // ordinary rollback.
    for p in &m.players[..last] {
        assert!(p.stats().max_rollback <= 8, "{}", p.stats().max_rollback);
    }
}

#[test]
fn a_rejoiner_catches_up_from_a_saved_state() {
    in_both_modes(|mode| scenario(mode, 2, 0x5a7e));
}

#[test]
fn a_rejoiner_among_three_catches_up_from_a_saved_state() {
    in_both_modes(|mode| scenario(mode, 3, 0x5a7f));
}
