//! Just before the host's page reloads, one guest stops hearing it (their
//! link is cut): the other guests hold more of the old host's inputs
//! than that one. In a match of three the cut guest is guest 1, the one
//! acting for the absent host, so it must learn the inputs it lacks from
//! guest 2; in a match of four it is guest 2, which must be handed what
//! it lacks. Either way every guest agrees on the old host's last input,
//! the fresh host session samples its pad from the tick after it, and all
//! end on the same hashes and inputs.
use crate::common;

use common::{
    assert_players_agree, count_events, host_back_cfg, host_gone_for, in_both_modes, rejoin_mesh,
    until_host_live, Mode,
};
use lockstep::Event;

#[test]
fn a_returning_host_of_three_is_taken_from_the_guest_holding_the_most() {
    for (players, cut) in [(3u8, 1usize), (4, 2)] {
        in_both_modes(|mode| {
            let (seed, entropy, delays) = (83 + u64::from(players), 0x0e0f_2026, (4, 2));
            let mut m = rejoin_mesh(mode, players, seed, entropy, common::mild_link(), delays);
            assert!(m.run_to_confirmed(300, 3000), "{}", m.progress());
            let token = m.players[0].rejoin_token().expect("the host's token");
            // The cut guest stops hearing the host 20 frames before the
            // others do.
            m.sever(0, cut);
            m.run_frames(20);
            let other = if cut == 1 { 2 } else { 1 };
            host_gone_for(&mut m, 120);
            let (short, long) = (
                m.players[cut].confirmed_tick(),
                m.players[other].confirmed_tick(),
            );
            // The cut guest confirmed fewer ticks: it lacks the old
            // host's last inputs, which the others hold (they run no
            // further ahead of it than its own inputs allow).
            eprintln!("{mode:?}: guest {cut} confirmed {short}, guest {other} {long}");
            assert!(
                short < long,
                "guest {cut} at {short}, guest {other} at {long}"
            );
            let cfg = host_back_cfg(mode, seed, entropy, delays, token).players(players);
            m.reload_as(0, cfg)
                .expect("a host with entropy can come back");
            let live = until_host_live(&mut m, 600).expect("the host is back");
            eprintln!(
                "{mode:?}, {players} players, guest {cut} short: the fresh host session played live {} ms after it was made",
                live.0
            );
            assert!(m.run_to_confirmed(1500, 9000), "{}", m.progress());
            let everyone: Vec<usize> = (0..usize::from(players)).collect();
            for &i in &everyone[1..] {
                assert_eq!(count_events(&m, i, &Event::Resumed { slot: 0 }), 1);
                assert!(m.players[i].stats().max_rollback <= 8);
            }
            assert!(m.players.iter().all(|p| p.outcome().is_none()));
            let want = if mode == Mode::LockStep { 800 } else { 100 };
            assert_players_agree(&m, &everyone, want);
        });
    }
}
