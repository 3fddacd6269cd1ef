//! A new player took the free slot of one who left for good. The one who
//! left reloads and tries to take the slot back with its old token: it is
//! refused (`WrongToken`), the slot's token changed with its player. The
//! newcomer's page then reloads: it comes back to its slot with its own
//! token and the three play on in sync, in lock-step and in rollback.
//! Both the newcomer's sessions also link to the page that left, which
//! never says whose link it is: that link holds no slot and ends nothing.
use crate::common;

use common::{
    assert_players_agree, in_both_modes, joins_seen, mesh_after_a_leave, run_some_to_confirmed,
    OpenBench,
};
use lockstep::wire::RejoinRefusal;
use lockstep::{Event, Outcome, SessionConfig};

#[test]
fn a_joiner_rejoins_with_its_own_token() {
    in_both_modes(|mode| {
        let link = common::mild_link();
        let mut m = mesh_after_a_leave::<OpenBench>(mode, 0x1024, link, 3, 1500);
        let joiner = m
            .add_player(mode.cfg(SessionConfig::guest().join(Some(2))), &[0, 1, 2])
            .expect("a valid configuration");
        assert!(
            run_some_to_confirmed(&mut m, &[0, 1, joiner], 2400, 60 * 200),
            "{}",
            m.progress()
        );
        assert_eq!(joins_seen(&m, joiner).len(), 1);
        // The player who left comes back with its old token: refused.
        m.reload(2).expect("slot 2 can be rejoined");
        assert!(m.run_until_all_end_of(&[2], 120), "{}", m.progress());
        assert_eq!(
            m.players[2].outcome(),
            Some(&Outcome::RejoinRefused {
                why: RejoinRefusal::WrongToken
            })
        );
        // The newcomer's page reloads: back with its own token.
        m.reload(joiner).expect("slot 2 can be rejoined");
        assert!(
            run_some_to_confirmed(&mut m, &[0, 1, joiner], 4200, 60 * 300),
            "{}",
            m.progress()
        );
        assert!(m.players[joiner]
            .seen
            .events
            .iter()
            .any(|e| matches!(e, Event::Rejoined { .. })));
        assert!(m.players[..2].iter().all(|p| p.outcome().is_none()));
        let want = if mode == common::Mode::LockStep {
            1000
        } else {
            100
        };
        let first_back = m.players[joiner]
            .seen
            .hashes
            .keys()
            .next()
            .copied()
            .unwrap_or(0);
        for i in [0, 1] {
            let n = m.players[i]
                .seen
                .hashes
                .iter()
                .filter(|(t, h)| {
                    **t >= first_back && m.players[joiner].seen.hashes.get(t) == Some(h)
                })
                .count();
            assert!(
                n >= want,
                "player {i}: {n} ticks agree with the rejoined newcomer"
            );
        }
        assert_players_agree(&m, &[0, 1], want);
    });
}
