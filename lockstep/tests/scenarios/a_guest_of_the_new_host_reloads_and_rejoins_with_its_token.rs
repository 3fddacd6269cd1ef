//! Three, then four, players of a game that plays on after a leave: the
//! host's page is gone for good and its place moves to guest 1. Then the
//! last guest's page reloads: its fresh session, with the token the old
//! host gave it, is first made with a wrong token (refused with
//! `WrongToken` on its link alone, the match untouched), then with its
//! own. The new host, which holds no token but the check of each the old
//! host's Hello gave it, takes it back: every guest plays on, the
//! rejoiner from the new host's catch-up, to 3,000 confirmed ticks on the
//! same hashes, each log replaying.
use crate::common;

use common::host_moved::{assert_host_moved, host_never_back};
use common::{
    assert_players_agree, in_both_modes, rejoin_mesh, rejoined_ticks, run_some_to_confirmed, Mode,
};
use lockstep::{Event, Outcome, RejoinRefusal};

#[test]
fn a_guest_of_the_new_host_reloads_and_rejoins_with_its_token() {
    for n in [3u8, 4] {
        in_both_modes(|mode| {
            let seed = 181 + u64::from(n);
            let mut m = rejoin_mesh(mode, n, seed, 0x9c9c_2026, common::mild_link(), (4, 2));
            assert!(m.run_to_confirmed(300, 3000), "{}", m.progress());
            host_never_back(&mut m);
            let guests: Vec<usize> = (1..usize::from(n)).collect();
            assert!(
                run_some_to_confirmed(&mut m, &guests, 1900, 60 * 120),
                "{}",
                m.progress()
            );
            assert_host_moved(&m, &guests, 1);
            let last = usize::from(n) - 1;
            let token = m.players[last]
                .rejoin_token()
                .expect("the old host's token");

            m.reload_with_token(last, token ^ 1)
                .expect("a guest can rejoin");
            m.sever(last, 0);
            assert!(m.run_until_all_end_of(&[last], 60 * 10), "{}", m.progress());
            assert_eq!(
                m.players[last].outcome(),
                Some(&Outcome::RejoinRefused {
                    why: RejoinRefusal::WrongToken
                })
            );
            for &i in &guests[..guests.len() - 1] {
                assert!(m.players[i].outcome().is_none(), "member {i} ended");
            }

            m.reload_with_token(last, token)
                .expect("a guest can rejoin");
            m.sever(last, 0);
            assert!(
                run_some_to_confirmed(&mut m, &guests, 3000, 60 * 200),
                "{}",
                m.progress()
            );
            m.run_frames(120);
            assert_eq!(rejoined_ticks(&m, last).len(), 1, "{}", m.progress());
            assert_eq!(m.players[last].host_slot(), 1);
            assert!(!m.players[last].is_host());
            let slot = u8::try_from(last).expect("a slot");
            assert!(m.players[1].seen.events.contains(&Event::Resumed { slot }));
            let want = if mode == Mode::LockStep { 500 } else { 100 };
            let ticks = assert_players_agree(&m, &guests, want);
            assert!(ticks >= 3000, "{ticks} final ticks");
        });
    }
}
