//! A host that picked the input delay from the measured round trips
//! reloads and comes back with the configuration it was built with (its
//! delay argument unused): it takes the delay and the match id from the
//! guest's `Resume`, not from its configuration or a new measure, and the
//! match goes on in sync with the delay it had.
use crate::common;

use common::{assert_players_agree, host_gone_for, in_both_modes, until_host_live, Bench, Mode};
use lockstep::{Millis, SessionConfig};
use lockstep_testing::{LinkConfig, Mesh};

#[test]
fn a_host_that_picked_its_delay_comes_back_with_it() {
    in_both_modes(|mode| {
        let (seed, entropy) = (83, 0x9_0b0c_2026);
        // A long round trip, so the delay picked is far from the 1 given.
        let link = LinkConfig {
            latency: Millis(70),
            ..LinkConfig::default()
        };
        let host = mode.cfg(
            SessionConfig::host(seed, 1)
                .rejoin_entropy(entropy)
                .input_delay_from_rtt(),
        );
        let mut m = Mesh::<Bench>::new(2, host, mode.cfg(SessionConfig::guest()), link, seed);
        assert!(m.run_to_confirmed(300, 3000), "{}", m.progress());
        let delay = m.players[0].input_delay().expect("the match runs");
        let params = m.players[0].parameters();
        assert_ne!(delay, 1, "the delay came from the round trips");
        let token = m.players[0].rejoin_token().expect("the host's token");
        host_gone_for(&mut m, 120);
        m.reload_as(0, host.back_as_host(token))
            .expect("a host of two with entropy can come back");
        until_host_live(&mut m, 600).expect("the host is back");
        assert_eq!(m.players[0].parameters(), params);
        assert!(m.run_to_confirmed(1200, 8000), "{}", m.progress());
        assert!(m.players.iter().all(|p| p.outcome().is_none()));
        let want = if mode == Mode::LockStep { 500 } else { 100 };
        assert_players_agree(&m, &[0, 1], want);
    });
}
