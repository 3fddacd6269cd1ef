//! A spectator watches a match of two through the host; the host's page
//! reloads, and the spectator's link went with it. The guest's catch-up
//! tells the returning host that one spectator watched; the returned host
//! has none, so it orders the count to 0 and both players read 0 from the
//! same tick on, in sync.
use crate::common;

use common::{
    assert_players_agree, host_back_cfg, host_gone_for, in_both_modes, rejoin_mesh, Mode,
};
use lockstep::SessionConfig;

#[test]
fn a_returned_host_tells_the_guest_its_spectators_are_gone() {
    in_both_modes(|mode| {
        let (seed, entropy, delays) = (79, 0x8_0b0c_2026, (4, 2));
        let link = common::mild_link();
        let mut m = rejoin_mesh(mode, 2, seed, entropy, link, delays);
        assert!(m.run_to_confirmed(120, 2000), "{}", m.progress());
        m.add_spectator(SessionConfig::spectator(), link, seed + 1)
            .expect("a valid configuration");
        assert!(m.run_to_confirmed(300, 2000), "{}", m.progress());
        assert_eq!(m.players[1].spectators(), 1, "{}", m.progress());
        let token = m.players[0].rejoin_token().expect("the host's token");
        if let Some(l) = m.spectator_link(0) {
            l.0.sever_both();
        }
        host_gone_for(&mut m, 120);
        m.reload_as(0, host_back_cfg(mode, seed, entropy, delays, token))
            .expect("a host of two with entropy can come back");
        assert!(m.run_to_confirmed(900, 6000), "{}", m.progress());
        assert!(m.players.iter().all(|p| p.outcome().is_none()));
        assert_eq!(m.players[0].spectators(), 0);
        assert_eq!(m.players[1].spectators(), 0);
        let want = if mode == Mode::LockStep { 300 } else { 50 };
        assert_players_agree(&m, &[0, 1], want);
    });
}
