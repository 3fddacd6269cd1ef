//! Four players of a game that plays on after a leave: the host's page is
//! gone for good and its place moves to guest 1. Then guest 3's page is
//! gone for good too: the new host holds its slot for the window, gathers
//! its inputs from guest 2 and orders it onto the absent input, exactly
//! as slot 0 would have; guests 1 and 2 play on to 3,600 confirmed ticks
//! on the same hashes, each log replaying.
use crate::common;

use common::host_moved::{assert_host_moved, host_never_back};
use common::{
    assert_players_agree, in_both_modes, left_at, rejoin_mesh, run_some_to_confirmed, Mode,
};

#[test]
fn a_guest_of_the_new_host_that_never_returns_leaves_and_the_match_plays_on() {
    in_both_modes(|mode| {
        let mut m = rejoin_mesh(mode, 4, 161, 0x4a4a_2026, common::mild_link(), (4, 2));
        assert!(m.run_to_confirmed(300, 3000), "{}", m.progress());
        host_never_back(&mut m);
        assert!(
            run_some_to_confirmed(&mut m, &[1, 2, 3], 2000, 60 * 120),
            "{}",
            m.progress()
        );
        let moved = assert_host_moved(&m, &[1, 2, 3], 1);
        m.players[3].runs = false;
        m.sever_player(3);
        assert!(
            run_some_to_confirmed(&mut m, &[1, 2], 3600, 60 * 200),
            "{}",
            m.progress()
        );
        m.run_frames(120);
        let left: Vec<Vec<u32>> = [1, 2].iter().map(|&i| left_at(&m, i, 3)).collect();
        assert_eq!(left[0], left[1], "slot 3 left at different ticks");
        assert_eq!(left[0].len(), 1, "{left:?}");
        let tick = left[0][0];
        assert!(
            tick > moved,
            "slot 3 left at {tick}, the host moved at {moved}"
        );
        let want = if mode == Mode::LockStep { 1500 } else { 250 };
        let ticks = assert_players_agree(&m, &[1, 2], want);
        assert!(ticks >= 3600, "{ticks} final ticks");
        let log = m.players[1].input_log();
        assert!(log.inputs[tick as usize * 4..].chunks(4).all(|t| t[3] == 0));
    });
}
