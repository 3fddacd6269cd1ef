//! The host's page of a match of three is gone for 8 s: both guests
//! dropped it and held slot 0 (`Event::Dropped`, a few `Waiting`) before
//! its fresh session comes back. Taken back as after a short reload, the
//! match goes on in sync; then a guest reloads and is taken back by the
//! returned host as by any host.
use crate::common;

use common::{
    assert_players_agree, count_events, host_back_cfg, host_gone_for, in_both_modes, rejoin_mesh,
    until_host_live, Mode,
};
use lockstep::Event;

#[test]
fn a_host_of_three_back_after_its_slot_was_held_comes_back_in_sync() {
    in_both_modes(|mode| {
        let (seed, entropy, delays) = (89, 0x1f2e_2026, (4, 2));
        let mut m = rejoin_mesh(mode, 3, seed, entropy, common::mild_link(), delays);
        assert!(m.run_to_confirmed(300, 3000), "{}", m.progress());
        let token = m.players[0].rejoin_token().expect("the host's token");
        host_gone_for(&mut m, 480);
        for i in [1, 2] {
            let dropped = m.players[i]
                .seen
                .events
                .iter()
                .filter(|e| matches!(e, Event::Dropped { slot: 0, .. }))
                .count();
            assert_eq!(dropped, 1, "guest {i}: {:?}", m.players[i].seen.events);
        }
        let cfg = host_back_cfg(mode, seed, entropy, delays, token).players(3);
        m.reload_as(0, cfg)
            .expect("a host with entropy can come back");
        let live = until_host_live(&mut m, 600).expect("the host is back");
        eprintln!(
            "{mode:?}: after 8 s away the fresh host session played live {} ms after it was made",
            live.0
        );
        assert!(m.run_to_confirmed(1200, 9000), "{}", m.progress());
        for i in [1, 2] {
            assert_eq!(count_events(&m, i, &Event::Resumed { slot: 0 }), 1);
        }

        // A guest reloads now: the returned host takes it back.
        let before = m.players[0].confirmed_tick();
        m.players[2].runs = false;
        m.sever_player(2);
        m.run_frames(60);
        m.reload(2).expect("a guest with its token can come back");
        assert!(m.run_to_confirmed(before + 600, 9000), "{}", m.progress());
        assert!(m.players.iter().all(|p| p.outcome().is_none()));
        assert_eq!(common::rejoined_ticks(&m, 2).len(), 1);
        let want = if mode == Mode::LockStep { 400 } else { 60 };
        assert_players_agree(&m, &[0, 1, 2], want);
    });
}
