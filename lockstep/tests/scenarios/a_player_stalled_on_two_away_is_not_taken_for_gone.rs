//! Four dots players in a game that benches a held slot after a short
//! silence (`bench_after` 250 ms), over mildly lossy links. Slots 2 and 3
//! lose every link at once; the whole match stalls on them for five
//! seconds, then both pages reload together and come back. Slot 1 stays
//! throughout, but it may lack inputs of the two away that the host has,
//! so it stalls a few ticks behind the host, holding the host up with
//! its own next input, and has nothing new to send. Neither the host's
//! short silence (a stalled side still sends every tenth of a second)
//! nor its check for players heard but stuck (the held slots explain the
//! stall) may take it for gone: it is never dropped, and all four play on
//! in sync. The draws of the links are ones where it used to be, in each
//! mode.
use crate::common;

use common::{assert_all_back_in_sync, bench_mesh, reload_at_once, Mode};
use lockstep::Event;

#[test]
fn a_player_stalled_on_two_away_is_not_taken_for_gone() {
    for (mode, draw) in [(Mode::LockStep, 32), (Mode::Rollback, 35)] {
        let mut m = bench_mesh(mode, 4, 0x2b3c + draw * 7919);
        m.sever_player(2);
        m.sever_player(3);
        m.run_frames(300);
        reload_at_once(&mut m, &[2, 3], 0, 60);
        assert_all_back_in_sync(&mut m, &[2, 3], 600);
        for i in [0, 3] {
            let dropped = m.players[i].seen.events.iter().any(|e| {
                matches!(
                    e,
                    Event::Dropped { slot: 1, .. } | Event::Benched { slot: 1, .. }
                )
            });
            assert!(!dropped, "{mode:?}: player {i} took slot 1 for gone");
        }
    }
}
