//! The host's page of a match of four reloads at tick 300; 1 s later,
//! while slot 0 is held, guest 2's page goes too. 2 s after the host
//! went, both come back: the host's fresh session with its own token,
//! guest 2's with its slot's. The acting guest does not wait for guest
//! 2's old session to say what it held of the host's inputs (its fresh
//! session claimed the slot on its own link: the old one is gone), so the
//! host is taken back; guest 2's request, heard by the returning host
//! before it plays, waits for it, and the returned host takes it back as
//! any host takes a dropped player back. Everyone plays on in sync.
use crate::common;

use common::{
    assert_players_agree, count_events, host_back_cfg, in_both_modes, rejoin_mesh, rejoined_ticks,
    until_host_live, Mode,
};
use lockstep::Event;

#[test]
fn a_guest_dropped_while_its_host_was_away_is_taken_back_by_the_returned_host() {
    in_both_modes(|mode| {
        let (seed, entropy, delays) = (71, 0x6e57_2026, (4, 2));
        let mut m = rejoin_mesh(mode, 4, seed, entropy, common::mild_link(), delays);
        assert!(m.run_to_confirmed(300, 3000), "{}", m.progress());
        let token = m.players[0].rejoin_token().expect("the host's token");
        m.players[0].runs = false;
        m.sever_player(0);
        m.run_frames(60);
        m.players[2].runs = false;
        m.sever_player(2);
        m.run_frames(60);
        let cfg = host_back_cfg(mode, seed, entropy, delays, token).players(4);
        m.reload_as(0, cfg)
            .expect("a host with entropy can come back");
        m.reload(2).expect("a guest with its token can come back");
        let live = until_host_live(&mut m, 600).expect("the host is back");
        eprintln!(
            "{mode:?}: the host played live {} ms after its fresh session",
            live.0
        );
        let before = m.players[1].confirmed_tick();
        assert!(m.run_to_confirmed(before + 600, 9000), "{}", m.progress());
        assert!(
            m.players.iter().all(|p| p.outcome().is_none()),
            "{}",
            m.progress()
        );
        assert_eq!(rejoined_ticks(&m, 0).len(), 1);
        assert_eq!(
            rejoined_ticks(&m, 2).len(),
            1,
            "{:?}",
            m.players[2].seen.events
        );
        for i in [1, 3] {
            assert_eq!(count_events(&m, i, &Event::Resumed { slot: 0 }), 1);
        }
        let want = if mode == Mode::LockStep { 400 } else { 60 };
        assert_players_agree(&m, &[0, 1, 2, 3], want);
    });
}
