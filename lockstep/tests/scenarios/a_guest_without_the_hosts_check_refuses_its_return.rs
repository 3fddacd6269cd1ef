//! A host without rejoin entropy gave its guest no check of a token of its
//! own: a fresh session coming back as that host (whatever token it
//! shows) is refused with `RejoinRefused { HostUnable }`, and the guest,
//! holding slot 0 for nothing, ends with `PlayerLeft { slot: 0 }` once the
//! window ran out.
use crate::common;

use common::{host_gone_for, in_both_modes, Bench, Mode};
use lockstep::wire::RejoinRefusal;
use lockstep::{Outcome, SessionConfig};
use lockstep_testing::Mesh;

#[test]
fn a_guest_without_the_hosts_check_refuses_its_return() {
    in_both_modes(|mode| {
        let (seed, delay) = (71, if mode == Mode::LockStep { 4 } else { 2 });
        let mut m = Mesh::<Bench>::new(
            2,
            mode.cfg(SessionConfig::host(seed, delay)),
            mode.cfg(SessionConfig::guest()),
            common::mild_link(),
            seed,
        );
        assert!(m.run_to_confirmed(300, 2000), "{}", m.progress());
        assert_eq!(m.players[0].rejoin_token(), None, "a host without entropy");
        host_gone_for(&mut m, 60);
        // Entropy made only now: the guest has nothing to check it against.
        let cfg = mode.cfg(SessionConfig::host(seed, delay).rejoin_entropy(1));
        m.reload_as(0, cfg.back_as_host(5))
            .expect("the configuration is valid; only the guest can check the token");
        assert!(m.run_until_all_end_of(&[0], 600), "{}", m.progress());
        assert_eq!(
            m.players[0].outcome(),
            Some(&Outcome::RejoinRefused {
                why: RejoinRefusal::HostUnable
            })
        );
        assert!(m.players[1].outcome().is_none());
        assert!(m.run_until_all_end_of(&[1], 60 * 30), "{}", m.progress());
        assert_eq!(
            m.players[1].outcome(),
            Some(&Outcome::PlayerLeft { slot: 0 })
        );
    });
}
