//! Four players. Two guests' pages reload a frame apart, so both fresh
//! sessions ask for their slots while the other's slot is held. The host
//! takes them back one at a time, in the order they came: the first
//! while the other slot is held for its player (its old session gone for
//! good, so it is not asked for anything), then the second once the
//! first plays again and can answer for it. Both are back well within
//! 2 s (before, each waited for the other until the first rejoin window
//! ran out, 20 s, and that slot then left for good); nobody leaves, each
//! knows the other's fresh session, and every player hashes the same
//! states afterwards, in both modes.
use crate::common;

use common::{assert_all_back_in_sync, in_both_modes, rejoin_mesh, reload_at_once};

#[test]
fn two_guests_reloaded_at_once_both_come_back_in_sync() {
    in_both_modes(|mode| {
        let mut m = rejoin_mesh(mode, 4, 71, 0x2be_2026, common::mild_link(), (4, 2));
        assert!(m.run_to_confirmed(600, 2000), "{}", m.progress());
        // 2 s at 60 frames a second.
        let back = reload_at_once(&mut m, &[1, 2], 1, 120);
        assert_all_back_in_sync(&mut m, &[1, 2], 900);
        eprintln!("{mode:?}: both back after {back} frames, {}", m.progress());
    });
}
