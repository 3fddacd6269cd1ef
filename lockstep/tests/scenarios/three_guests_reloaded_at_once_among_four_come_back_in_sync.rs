//! Four players; all three guests' pages reload in the same frame, so
//! only the host is left playing. The host takes the fresh sessions back
//! one at a time in the order their requests came: the first with
//! nobody to ask (the others' old sessions are gone), each next one once
//! those before it play again and answer for its slot. All three are
//! back within 2 s, and all four play on in sync, in both modes.
use crate::common;

use common::{assert_all_back_in_sync, in_both_modes, rejoin_mesh, reload_at_once};

#[test]
fn three_guests_reloaded_at_once_among_four_come_back_in_sync() {
    in_both_modes(|mode| {
        let mut m = rejoin_mesh(mode, 4, 83, 0x3a7_2026, common::mild_link(), (4, 2));
        assert!(m.run_to_confirmed(600, 2000), "{}", m.progress());
        let back = reload_at_once(&mut m, &[3, 1, 2], 0, 120);
        assert_all_back_in_sync(&mut m, &[1, 2, 3], 900);
        eprintln!(
            "{mode:?}: all three back after {back} frames, {}",
            m.progress()
        );
    });
}
