//! The host's page of a match of three reloads twice, each time coming
//! back with the same token: the first time 2 s later, before the guests
//! noticed it gone; the second also 2 s later, soon after its first
//! return, so the guests still take the returned session for live when
//! the next one asks. Each time guest 1 acts for it and every guest takes
//! the fresh session back; the match goes on in sync after both returns.
use crate::common;

use common::{
    assert_players_agree, count_events, host_back_cfg, host_gone_for, in_both_modes, rejoin_mesh,
    rejoined_ticks, until_host_live, Mode,
};
use lockstep::Event;

#[test]
fn a_reloaded_host_of_three_comes_back_twice() {
    in_both_modes(|mode| {
        let (seed, entropy, delays) = (127, 0x6f70_2026, (4, 2));
        let mut m = rejoin_mesh(mode, 3, seed, entropy, common::mild_link(), delays);
        assert!(m.run_to_confirmed(300, 3000), "{}", m.progress());
        let token = m.players[0].rejoin_token().expect("the host's token");
        for (round, until) in [(1, 500), (2, 1200)] {
            host_gone_for(&mut m, 120);
            let cfg = host_back_cfg(mode, seed, entropy, delays, token).players(3);
            m.reload_as(0, cfg)
                .expect("a host with entropy can come back");
            until_host_live(&mut m, 600).expect("the host is back");
            assert!(m.run_to_confirmed(until, 9000), "{}", m.progress());
            assert_eq!(rejoined_ticks(&m, 0).len(), 1, "round {round}");
            for i in [1, 2] {
                assert_eq!(
                    count_events(&m, i, &Event::Resumed { slot: 0 }),
                    round,
                    "guest {i}: {:?}",
                    m.players[i].seen.events
                );
            }
            assert_eq!(m.players[0].rejoin_token(), Some(token));
        }
        // Neither absence was long enough to be noticed.
        for i in [1, 2] {
            let dropped = m.players[i]
                .seen
                .events
                .iter()
                .filter(|e| matches!(e, Event::Dropped { slot: 0, .. }))
                .count();
            assert_eq!(dropped, 0, "{:?}", m.players[i].seen.events);
        }
        assert!(m.players.iter().all(|p| p.outcome().is_none()));
        let want = if mode == Mode::LockStep { 500 } else { 100 };
        assert_players_agree(&m, &[0, 1, 2], want);
    });
}
