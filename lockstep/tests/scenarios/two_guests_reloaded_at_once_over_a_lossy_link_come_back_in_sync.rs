//! As `two_guests_reloaded_at_once_both_come_back_in_sync`, over links of
//! 40 ms ± 10 ms with 5 % loss, the later slot's page reloading first,
//! both in the same frame: the host takes them back in the order their
//! requests came, both well within 2 s, and all four play on in sync, in
//! both modes, for several network seeds.
use crate::common;

use common::{assert_all_back_in_sync, in_both_modes, rejoin_mesh, reload_at_once};

#[test]
fn two_guests_reloaded_at_once_over_a_lossy_link_come_back_in_sync() {
    in_both_modes(|mode| {
        for seed in [5, 17, 29, 41] {
            let mut m = rejoin_mesh(mode, 4, seed, 0x1055_2026, common::lossy_link(), (5, 3));
            assert!(m.run_to_confirmed(600, 2400), "{}", m.progress());
            let back = reload_at_once(&mut m, &[2, 1], 0, 120);
            assert_all_back_in_sync(&mut m, &[1, 2], 600);
            eprintln!("{mode:?} seed {seed}: both back after {back} frames");
        }
    });
}
