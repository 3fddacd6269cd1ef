//! Four players of dots that takes new players into free slots: the
//! host's page is gone for good and its place moves to guest 1, so slot 0
//! is free. A new page asks to join: the new host, which holds no entropy
//! to give it a token, refuses it with `HostUnable` on its link alone,
//! and the three guests play on in sync.
use crate::common;

use common::host_moved::{assert_host_moved, host_never_back};
use common::{assert_players_agree, in_both_modes, run_some_to_confirmed, Mode, OpenDots};
use lockstep::{Outcome, RejoinRefusal, SessionConfig};
use lockstep_testing::Mesh;

#[test]
fn a_join_into_a_match_whose_host_moved_is_refused() {
    in_both_modes(|mode| {
        let delay = if mode == Mode::LockStep { 4 } else { 2 };
        let host = SessionConfig::host(223, delay)
            .players(4)
            .rejoin_entropy(0x10_2026);
        let mut m = Mesh::<OpenDots<false>>::new(
            4,
            mode.cfg(host),
            mode.cfg(SessionConfig::guest()),
            common::mild_link(),
            223,
        );
        assert!(m.run_to_confirmed(300, 3000), "{}", m.progress());
        host_never_back(&mut m);
        assert!(
            run_some_to_confirmed(&mut m, &[1, 2, 3], 2000, 60 * 120),
            "{}",
            m.progress()
        );
        assert_host_moved(&m, &[1, 2, 3], 1);
        let joiner = m
            .add_player(mode.cfg(SessionConfig::guest().join(None)), &[1, 2, 3])
            .expect("a joiner's configuration");
        assert!(
            m.run_until_all_end_of(&[joiner], 60 * 10),
            "{}",
            m.progress()
        );
        assert_eq!(
            m.players[joiner].outcome(),
            Some(&Outcome::RejoinRefused {
                why: RejoinRefusal::HostUnable
            })
        );
        let (from, until) = (m.players[1].confirmed_tick(), m.net.frame + 60 * 30);
        assert!(
            run_some_to_confirmed(&mut m, &[1, 2, 3], from + 600, until),
            "{}",
            m.progress()
        );
        let want = if mode == Mode::LockStep { 500 } else { 100 };
        assert_players_agree(&m, &[1, 2, 3], want);
    });
}
