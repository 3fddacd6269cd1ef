//! The host's page reloads at tick 300 of a match of two: its session is
//! destroyed with its links, and 2 s later a fresh one comes back with
//! the host's own token (`SessionConfig::back_as_host`). The guest, which
//! held slot 0 meanwhile, checks the token against the check the old
//! host's Hello gave it and serves the catch-up; the fresh session
//! replays it and is the host again. Both play on and end in sync, on
//! the same hashes and inputs, and the guest replayed nothing. Prints the
//! virtual time from the fresh session to live play.
use crate::common;

use common::{
    assert_players_agree, count_events, host_back_cfg, host_gone_for, in_both_modes, rejoin_mesh,
    rejoined_ticks, until_host_live, Mode,
};
use lockstep::{Event, Outcome};

#[test]
fn a_reloaded_host_comes_back_in_sync() {
    in_both_modes(|mode| {
        let (seed, entropy, delays) = (31, 0x0b0c_2026, (4, 2));
        let mut m = rejoin_mesh(mode, 2, seed, entropy, common::mild_link(), delays);
        assert!(m.run_to_confirmed(300, 2000), "{}", m.progress());
        let token = m.players[0]
            .rejoin_token()
            .expect("a host with entropy has a token of its own");
        let guest_token = m.players[1].rejoin_token();
        host_gone_for(&mut m, 120);
        let held_at = m.players[1].confirmed_tick();
        m.reload_as(0, host_back_cfg(mode, seed, entropy, delays, token))
            .expect("a host of two with entropy can come back");
        let live = until_host_live(&mut m, 600).expect("the host is back");
        eprintln!(
            "{mode:?}: the fresh host session played live {} ms after it was made",
            live.0
        );
        assert!(live.0 < 1000, "{} ms", live.0);
        assert!(m.run_to_confirmed(1500, 8000), "{}", m.progress());

        let back = rejoined_ticks(&m, 0);
        assert_eq!(back.len(), 1, "{:?}", m.players[0].seen.events);
        assert!(back[0] >= held_at, "{back:?} before {held_at}");
        assert_eq!(count_events(&m, 1, &Event::Resumed { slot: 0 }), 1);
        // The host keeps its token, and the guest's is unchanged.
        assert_eq!(m.players[0].rejoin_token(), Some(token));
        assert_eq!(m.players[1].rejoin_token(), guest_token);
        // The guest replayed nothing: its longest re-simulation is an
        // ordinary rollback.
        let longest = m.players[1].stats().max_rollback;
        assert!(longest <= 8, "the guest re-simulated {longest} ticks");
        let want = if mode == Mode::LockStep { 800 } else { 100 };
        assert_players_agree(&m, &[0, 1], want);

        // The match ends normally.
        let now = m.net.now();
        m.players[0].quit(now);
        let outcomes = m.run_until_all_end(m.net.frame + 600);
        assert_eq!(
            outcomes,
            vec![Some(Outcome::LocalQuit), Some(Outcome::RemoteQuit)]
        );
    });
}
