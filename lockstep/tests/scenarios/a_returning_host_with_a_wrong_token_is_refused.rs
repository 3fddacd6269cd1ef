//! A fresh session comes back as the host with a token that is not the
//! host's (forged, or a stale record): the guest refuses it on that link
//! alone with `RejoinRefused { WrongToken }`, takes the old host session
//! for gone (it was reloaded on that link) and keeps slot 0 held; the
//! refused session ends with that refusal. The host's real fresh session,
//! with the right token within the window, is then taken back and the
//! match goes on in sync.
use crate::common;

use common::{
    assert_players_agree, count_events, host_back_cfg, host_gone_for, in_both_modes, rejoin_mesh,
    until_host_live, Mode,
};
use lockstep::wire::RejoinRefusal;
use lockstep::{Event, Outcome};

#[test]
fn a_returning_host_with_a_wrong_token_is_refused() {
    in_both_modes(|mode| {
        let (seed, entropy, delays) = (59, 0x4_0b0c_2026, (4, 2));
        let mut m = rejoin_mesh(mode, 2, seed, entropy, common::mild_link(), delays);
        assert!(m.run_to_confirmed(300, 2000), "{}", m.progress());
        let token = m.players[0].rejoin_token().expect("the host's token");
        host_gone_for(&mut m, 60);
        m.reload_as(
            0,
            host_back_cfg(mode, seed, entropy, delays, token ^ 0x5a5a),
        )
        .expect("the configuration is valid; only the guest can check the token");
        assert!(m.run_until_all_end_of(&[0], 600), "{}", m.progress());
        assert_eq!(
            m.players[0].outcome(),
            Some(&Outcome::RejoinRefused {
                why: RejoinRefusal::WrongToken
            })
        );
        assert!(m.players[1].outcome().is_none());
        let dropped = m.players[1]
            .seen
            .events
            .iter()
            .filter(|e| matches!(e, Event::Dropped { slot: 0, .. }))
            .count();
        assert_eq!(dropped, 1, "{:?}", m.players[1].seen.events);
        assert_eq!(count_events(&m, 1, &Event::Resumed { slot: 0 }), 0);

        m.reload_as(0, host_back_cfg(mode, seed, entropy, delays, token))
            .expect("a host of two with entropy can come back");
        until_host_live(&mut m, 600).expect("the host is back");
        assert!(m.run_to_confirmed(1200, 8000), "{}", m.progress());
        assert_eq!(count_events(&m, 1, &Event::Resumed { slot: 0 }), 1);
        assert!(m.players.iter().all(|p| p.outcome().is_none()));
        let want = if mode == Mode::LockStep { 500 } else { 100 };
        assert_players_agree(&m, &[0, 1], want);
    });
}
