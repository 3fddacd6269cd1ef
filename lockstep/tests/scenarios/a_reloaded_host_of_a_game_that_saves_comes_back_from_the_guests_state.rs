//! The host's page reloads in a long match of a game that saves its state
//! (dots): the guest serves the returning host its saved confirmed state
//! and the inputs since, not every input from the start. The fresh host
//! loads it, checks the guest's hash and is the host again; both end on
//! the same hashes, and the host's input log starts from that state and
//! replays to the guest's state at its last tick.
use crate::common;

use common::{count_events, host_gone_for, in_both_modes, until_host_live, Mode};
use dots::Dots;
use lockstep::{Event, SessionConfig};
use lockstep_testing::Mesh;

#[test]
fn a_reloaded_host_of_a_game_that_saves_comes_back_from_the_guests_state() {
    in_both_modes(|mode| {
        let (seed, entropy) = (0x5a7e_0b0c, 0x5a7e_2026);
        let delay = if mode == Mode::LockStep { 4 } else { 2 };
        let host = mode.cfg(SessionConfig::host(seed, delay).rejoin_entropy(entropy));
        let mut m = Mesh::<Dots>::new(
            2,
            host,
            mode.cfg(SessionConfig::guest()),
            common::lossy_link(),
            seed,
        );
        assert!(m.run_to_confirmed(3000, 8000), "{}", m.progress());
        let token = m.players[0].rejoin_token().expect("the host's token");
        host_gone_for(&mut m, 120);
        m.reload_as(0, host.back_as_host(token))
            .expect("a host of two with entropy can come back");
        let live = until_host_live(&mut m, 600).expect("the host is back");
        eprintln!(
            "{mode:?}: the fresh host played live {} ms after it was made",
            live.0
        );
        assert!(m.run_to_confirmed(4800, 16000), "{}", m.progress());
        assert_eq!(count_events(&m, 1, &Event::Resumed { slot: 0 }), 1);
        assert!(m.players.iter().all(|p| p.outcome().is_none()));
        let log = m.players[0].input_log();
        let at = m.players[0].confirmed_tick();
        while m.players[1].confirmed_tick() < at {
            m.step_frame();
        }
        common::assert_log_from_saved_state::<Dots>(&log, &m.players[1].input_log());
        let mut compared = 0;
        for (t, h) in &m.players[0].seen.hashes {
            if let Some(g) = m.players[1].seen.hashes.get(t) {
                assert_eq!(h, g, "the returned host differs from the guest at tick {t}");
                compared += 1;
            }
        }
        let want = if mode == Mode::LockStep { 1500 } else { 150 };
        assert!(compared >= want, "only {compared} ticks compared");
        assert!(m.players[1].stats().max_rollback <= 8);
    });
}
