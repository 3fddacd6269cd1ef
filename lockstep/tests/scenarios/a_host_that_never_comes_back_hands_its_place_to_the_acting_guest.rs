//! The host's page of a match of three, then four, players of a game that
//! plays on after a leave is gone for good at tick 300. The guests hold
//! slot 0 for the rejoin window; when it runs out, guest 1 (acting for
//! the absent host) gathers slot 0's inputs from the others and orders
//! the host's place moved to itself at the end of the longest stream:
//! every guest raises `Left { slot: 0 }` and `HostMoved { slot: 1 }` at
//! the same tick, only guest 1's session says it is the host, slot 0
//! plays the absent input from that tick, and the guests play on to 3,000
//! confirmed ticks on the same hashes, each log replaying.
use crate::common;

use common::host_moved::{assert_host_moved, host_never_back};
use common::{assert_players_agree, in_both_modes, rejoin_mesh, run_some_to_confirmed, Mode};

#[test]
fn a_host_that_never_comes_back_hands_its_place_to_the_acting_guest() {
    for n in [3u8, 4] {
        in_both_modes(|mode| {
            let seed = 131 + u64::from(n);
            let mut m = rejoin_mesh(mode, n, seed, 0x7a1e_2026, common::mild_link(), (4, 2));
            assert!(m.run_to_confirmed(300, 3000), "{}", m.progress());
            host_never_back(&mut m);
            let guests: Vec<usize> = (1..usize::from(n)).collect();
            assert!(
                run_some_to_confirmed(&mut m, &guests, 3000, 60 * 120),
                "{}",
                m.progress()
            );
            m.run_frames(120);
            let tick = assert_host_moved(&m, &guests, 1);
            // The window (20 s) ran out first: about 1,500 ticks later.
            assert!(tick >= 300, "moved at {tick}");
            for &i in &guests {
                assert!(m.players[i].outcome().is_none(), "member {i} ended");
            }
            let want = if mode == Mode::LockStep { 1000 } else { 200 };
            let ticks = assert_players_agree(&m, &guests, want);
            assert!(ticks >= 3000, "{ticks} final ticks");
            // From the move on, nobody drives slot 0: it plays the
            // absent input (the default, 0) on every guest.
            for &i in &guests {
                let log = m.players[i].input_log();
                let per = usize::from(n);
                let from = tick as usize * per;
                assert!(
                    log.inputs[from..].chunks(per).all(|t| t[0] == 0),
                    "member {i}"
                );
            }
        });
    }
}
