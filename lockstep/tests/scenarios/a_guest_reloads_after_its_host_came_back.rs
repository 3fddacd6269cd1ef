//! The host's page reloads and comes back; then the guest's page reloads
//! too. The returned host issues the guest's same token (a keyed hash of
//! the match id the guest handed back), so the guest's fresh session is
//! taken back with the token its first session was given, and both end
//! in sync.
use crate::common;

use common::{
    assert_players_agree, count_events, host_back_cfg, host_gone_for, in_both_modes, rejoin_mesh,
    rejoined_ticks, until_host_live, Mode,
};
use lockstep::Event;

#[test]
fn a_guest_reloads_after_its_host_came_back() {
    in_both_modes(|mode| {
        let (seed, entropy, delays) = (53, 0x3_0b0c_2026, (4, 2));
        let mut m = rejoin_mesh(mode, 2, seed, entropy, common::mild_link(), delays);
        assert!(m.run_to_confirmed(300, 2000), "{}", m.progress());
        let token = m.players[0].rejoin_token().expect("the host's token");
        let guest_token = m.players[1].rejoin_token().expect("the guest's token");
        host_gone_for(&mut m, 120);
        m.reload_as(0, host_back_cfg(mode, seed, entropy, delays, token))
            .expect("a host of two with entropy can come back");
        until_host_live(&mut m, 600).expect("the host is back");
        assert!(m.run_to_confirmed(900, 6000), "{}", m.progress());

        m.reload(1).expect("a guest's slot can be rejoined");
        assert_eq!(m.players[1].rejoin_token(), Some(guest_token));
        assert!(m.run_to_confirmed(1800, 9000), "{}", m.progress());
        let back = rejoined_ticks(&m, 1);
        assert_eq!(back.len(), 1, "{:?}", m.players[1].seen.events);
        assert!(back[0] >= 900, "{back:?}");
        assert_eq!(count_events(&m, 0, &Event::Resumed { slot: 1 }), 1);
        assert!(m.players.iter().all(|p| p.outcome().is_none()));
        let want = if mode == Mode::LockStep { 500 } else { 100 };
        assert_players_agree(&m, &[0, 1], want);
    });
}
