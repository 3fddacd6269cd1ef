//! The host's page reloads twice in a match of two, each time coming back
//! with the same token: the first time 2 s later, before the guest
//! noticed it gone; the second 8 s later, once the guest had dropped it
//! and held its slot. The guest serves each fresh session the catch-up
//! and the match goes on in sync after both returns.
use crate::common;

use common::{
    assert_players_agree, count_events, host_back_cfg, host_gone_for, in_both_modes, rejoin_mesh,
    rejoined_ticks, until_host_live, Mode,
};
use lockstep::Event;

#[test]
fn a_reloaded_host_comes_back_twice() {
    in_both_modes(|mode| {
        let (seed, entropy, delays) = (47, 0x2_0b0c_2026, (4, 2));
        let mut m = rejoin_mesh(mode, 2, seed, entropy, common::mild_link(), delays);
        assert!(m.run_to_confirmed(300, 2000), "{}", m.progress());
        let token = m.players[0].rejoin_token().expect("the host's token");
        for (round, away, until) in [(1, 120, 900), (2, 480, 1800)] {
            host_gone_for(&mut m, away);
            m.reload_as(0, host_back_cfg(mode, seed, entropy, delays, token))
                .expect("a host of two with entropy can come back");
            until_host_live(&mut m, 600).expect("the host is back");
            assert!(m.run_to_confirmed(until, 9000), "{}", m.progress());
            assert_eq!(rejoined_ticks(&m, 0).len(), 1, "round {round}");
            assert_eq!(
                count_events(&m, 1, &Event::Resumed { slot: 0 }),
                round,
                "{:?}",
                m.players[1].seen.events
            );
            // The fresh session reports the token it came back with.
            assert_eq!(m.players[0].rejoin_token(), Some(token));
        }
        // Only the longer absence was noticed.
        let dropped = m.players[1]
            .seen
            .events
            .iter()
            .filter(|e| matches!(e, Event::Dropped { slot: 0, .. }))
            .count();
        assert_eq!(dropped, 1, "{:?}", m.players[1].seen.events);
        assert!(m.players.iter().all(|p| p.outcome().is_none()));
        let want = if mode == Mode::LockStep { 500 } else { 100 };
        assert_players_agree(&m, &[0, 1], want);
    });
}
