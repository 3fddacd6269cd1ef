//! The fresh host session of a match of three makes a link to each
//! guest, and one of them comes through 1 s after the other (cut at the
//! reload, then restored). When the late one leads to guest 2, guest 1
//! (acting for the absent host) takes the host back and serves it at
//! once, and guest 2, told by guest 1 that slot 0 came back, takes the
//! fresh session on its own link when that link's `Rejoin` finally
//! comes. When the late one leads to guest 1, guest 2 keeps the `Rejoin`
//! it got until guest 1 hears the host and orders its return. Both ways
//! everyone plays on in sync.
use crate::common;

use common::{
    assert_players_agree, count_events, host_back_cfg, host_gone_for, in_both_modes, rejoin_mesh,
    until_host_live, Mode,
};
use lockstep::Event;

#[test]
fn a_returning_hosts_late_link_to_a_guest_is_taken_in() {
    for late in [2usize, 1] {
        in_both_modes(|mode| {
            let (seed, entropy, delays) = (107 + late as u64, 0x4d5e_2026, (4, 2));
            let mut m = rejoin_mesh(mode, 3, seed, entropy, common::mild_link(), delays);
            assert!(m.run_to_confirmed(300, 3000), "{}", m.progress());
            let token = m.players[0].rejoin_token().expect("the host's token");
            host_gone_for(&mut m, 120);
            let cfg = host_back_cfg(mode, seed, entropy, delays, token).players(3);
            m.reload_as(0, cfg)
                .expect("a host with entropy can come back");
            m.sever(0, late);
            m.run_frames(60);
            let on_time = 3 - late;
            if late == 2 {
                // Served by guest 1 already; guest 2 waits for its link.
                assert!(m.players[0].is_running(), "{}", m.progress());
                assert_eq!(count_events(&m, on_time, &Event::Resumed { slot: 0 }), 1);
            } else {
                // Guest 2 holds the claim until guest 1's word.
                assert!(!m.players[0].is_running(), "{}", m.progress());
                assert_eq!(count_events(&m, on_time, &Event::Resumed { slot: 0 }), 0);
            }
            assert_eq!(count_events(&m, late, &Event::Resumed { slot: 0 }), 0);
            m.restore(0, late);
            let restored = m.net.now();
            until_host_live(&mut m, 600).expect("the host is back");
            let mut frames = 0;
            while count_events(&m, late, &Event::Resumed { slot: 0 }) == 0 && frames < 600 {
                m.step_frame();
                frames += 1;
            }
            eprintln!(
                "{mode:?}, link to guest {late} late by 1 s: guest {late} took the host back {} ms after the link came",
                m.net.now().0 - restored.0
            );
            assert!(m.run_to_confirmed(1200, 9000), "{}", m.progress());
            for i in [1, 2] {
                assert_eq!(count_events(&m, i, &Event::Resumed { slot: 0 }), 1);
            }
            assert!(m.players.iter().all(|p| p.outcome().is_none()));
            let want = if mode == Mode::LockStep { 500 } else { 100 };
            assert_players_agree(&m, &[0, 1, 2], want);
        });
    }
}
