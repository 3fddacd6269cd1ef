//! Eight players of a game that plays on after a leave; the host's page
//! is gone for good at tick 300. When slot 0's window runs out, the seven
//! guests agree that slot 0 left at one tick and that guest 1 is the host
//! from there, and play on to 2,400 confirmed ticks on the same hashes.
use crate::common;

use common::host_moved::{assert_host_moved, host_never_back};
use common::{assert_players_agree, in_both_modes, rejoin_mesh, run_some_to_confirmed, Mode};

#[test]
fn eight_players_play_on_when_their_host_never_comes_back() {
    in_both_modes(|mode| {
        let mut m = rejoin_mesh(mode, 8, 151, 0x8e8e_2026, common::mild_link(), (4, 2));
        assert!(m.run_to_confirmed(300, 3000), "{}", m.progress());
        host_never_back(&mut m);
        let guests: Vec<usize> = (1..8).collect();
        assert!(
            run_some_to_confirmed(&mut m, &guests, 2400, 60 * 120),
            "{}",
            m.progress()
        );
        m.run_frames(120);
        let tick = assert_host_moved(&m, &guests, 1);
        assert!(tick >= 300, "moved at {tick}");
        let want = if mode == Mode::LockStep { 500 } else { 100 };
        let ticks = assert_players_agree(&m, &guests, want);
        assert!(ticks >= 2400, "{ticks} final ticks");
    });
}
