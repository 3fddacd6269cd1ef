//! A spectator watches a match of three of a game that plays on after a
//! leave, through the host. The host's page is gone for good, and the
//! spectator's link with it: the spectator ends after its own silence
//! timeout, and once the host's place moved to guest 1, the new host
//! orders the spectator count down to 0, so both guests read 0 from the
//! same tick on, in sync.
use crate::common;

use common::host_moved::{assert_host_moved, host_never_back};
use common::{assert_players_agree, in_both_modes, rejoin_mesh, run_some_to_confirmed, Mode};
use lockstep::{Outcome, SessionConfig};

#[test]
fn the_old_hosts_spectator_ends_and_the_count_falls_to_zero_when_the_host_moves() {
    in_both_modes(|mode| {
        let (seed, entropy) = (197, 0x5ec7_2026);
        let link = common::mild_link();
        let mut m = rejoin_mesh(mode, 3, seed, entropy, link, (4, 2));
        assert!(m.run_to_confirmed(120, 2000), "{}", m.progress());
        m.add_spectator(SessionConfig::spectator(), link, seed + 1)
            .expect("a valid configuration");
        assert!(m.run_to_confirmed(300, 2000), "{}", m.progress());
        for i in [1, 2] {
            assert_eq!(m.players[i].spectators(), 1, "{}", m.progress());
        }
        if let Some(l) = m.spectator_link(0) {
            l.0.sever_both();
        }
        host_never_back(&mut m);
        assert!(
            run_some_to_confirmed(&mut m, &[1, 2], 2400, 60 * 120),
            "{}",
            m.progress()
        );
        m.run_frames(120);
        assert_host_moved(&m, &[1, 2], 1);
        assert!(
            matches!(
                m.spectators[0].outcome(),
                Some(Outcome::Timeout | Outcome::TransportLost)
            ),
            "{:?}",
            m.spectators[0].outcome()
        );
        for i in [1, 2] {
            assert_eq!(m.players[i].spectators(), 0, "member {i}");
        }
        let want = if mode == Mode::LockStep { 500 } else { 100 };
        assert_players_agree(&m, &[1, 2], want);
    });
}
