//! The host's page reloads at tick 300 of a match of three, then of
//! four: its session is destroyed with its links, and 2 s later a fresh
//! one comes back with the host's own token on a link to every guest.
//! Guest 1, the lowest guest slot, acts for the absent host: it gathers
//! slot 0's inputs the others hold, orders the slot back at the tick
//! where the longest stream ends and serves the catch-up; every guest
//! takes the fresh session on its own link once its token matches the
//! check the old host's Hello gave it. Everyone plays on and ends on the
//! same hashes and inputs, and no guest re-simulated more than a
//! rollback. Prints the virtual time from the fresh session to live play.
use crate::common;

use common::{
    assert_players_agree, count_events, host_back_cfg, host_gone_for, in_both_modes, rejoin_mesh,
    rejoined_ticks, until_host_live, Mode,
};
use lockstep::{Event, Outcome};

#[test]
fn a_reloaded_host_of_three_or_four_comes_back_in_sync() {
    for players in [3u8, 4] {
        in_both_modes(|mode| {
            let (seed, entropy, delays) = (37 + u64::from(players), 0x0c0d_2026, (4, 2));
            let mut m = rejoin_mesh(mode, players, seed, entropy, common::mild_link(), delays);
            assert!(m.run_to_confirmed(300, 3000), "{}", m.progress());
            let token = m.players[0]
                .rejoin_token()
                .expect("a host with entropy has a token of its own");
            let guest_tokens: Vec<_> = (1..usize::from(players))
                .map(|i| m.players[i].rejoin_token())
                .collect();
            host_gone_for(&mut m, 120);
            let held_at = m.players[1].confirmed_tick();
            let cfg = host_back_cfg(mode, seed, entropy, delays, token).players(players);
            m.reload_as(0, cfg)
                .expect("a host with entropy can come back");
            let live = until_host_live(&mut m, 600).expect("the host is back");
            eprintln!(
                "{mode:?}, {players} players: the fresh host session played live {} ms after it was made",
                live.0
            );
            assert!(live.0 < 1000, "{} ms", live.0);
            assert!(m.run_to_confirmed(1500, 9000), "{}", m.progress());

            let back = rejoined_ticks(&m, 0);
            assert_eq!(back.len(), 1, "{:?}", m.players[0].seen.events);
            assert!(back[0] >= held_at, "{back:?} before {held_at}");
            let everyone: Vec<usize> = (0..usize::from(players)).collect();
            for &i in &everyone[1..] {
                assert_eq!(
                    count_events(&m, i, &Event::Resumed { slot: 0 }),
                    1,
                    "guest {i}: {:?}",
                    m.players[i].seen.events
                );
                let longest = m.players[i].stats().max_rollback;
                assert!(longest <= 8, "guest {i} re-simulated {longest} ticks");
                assert_eq!(m.players[i].rejoin_token(), guest_tokens[i - 1]);
            }
            assert_eq!(m.players[0].rejoin_token(), Some(token));
            let want = if mode == Mode::LockStep { 800 } else { 100 };
            assert_players_agree(&m, &everyone, want);

            // The returned host orders the end of the match as any host.
            let now = m.net.now();
            m.players[0].quit(now);
            let outcomes = m.run_until_all_end(m.net.frame + 600);
            assert_eq!(outcomes[0], Some(Outcome::LocalQuit));
            for o in &outcomes[1..] {
                assert_eq!(o, &Some(Outcome::RemoteQuit));
            }
        });
    }
}
