//! The same three dots players and the same 10 s cut as
//! `a_benched_player_plays_neutral_until_it_rejoins`, in a game that does
//! not play a dropped slot on (the default): the two who stay wait for
//! the player while its slot is held, a freeze of nearly the whole cut,
//! and nobody is benched, even with `bench_after` set; when the links
//! come back the match resumes, in both modes.
use crate::common;

use common::{in_both_modes, mild_link, Mode};
use lockstep::{Event, Millis, SessionConfig};
use lockstep_testing::{Mesh, OpenDots};

#[test]
fn a_game_that_does_not_bench_waits_for_a_dropped_player() {
    in_both_modes(|mode| {
        let delay = if mode == Mode::LockStep { 4 } else { 2 };
        let host = SessionConfig::host(0xbe4c, delay)
            .rejoin_entropy(0xbe4c_2026)
            .bench_after(Millis(250));
        let mut m = Mesh::<OpenDots<false>>::new(
            3,
            mode.cfg(host),
            mode.cfg(SessionConfig::guest()),
            mild_link(),
            0xbe4c,
        );
        assert!(m.run_to_confirmed(600, 3000), "{}", m.progress());
        let before: Vec<u64> = m.players.iter().map(|p| p.stats().stalled_frames).collect();
        let ticks: Vec<u32> = m.players.iter().map(|p| p.confirmed_tick()).collect();
        m.sever_player(2);
        m.run_frames(600);
        for i in 0..2 {
            let stalled = m.players[i].stats().stalled_frames - before[i];
            eprintln!("{mode:?}: player {i} stalled {stalled} frames over the cut");
            assert!(stalled >= 500, "player {i} stalled only {stalled} frames");
            assert!(m.players[i].confirmed_tick() < ticks[i] + 60);
            let events = &m.players[i].seen.events;
            assert!(
                events
                    .iter()
                    .any(|e| matches!(e, Event::Dropped { slot: 2, .. })),
                "{events:?}"
            );
            assert!(!events.iter().any(|e| matches!(e, Event::Benched { .. })));
        }
        m.restore_player(2);
        let from = m.players[0].confirmed_tick();
        assert!(
            m.run_to_confirmed(from + 600, m.net.frame + 2400),
            "{}",
            m.progress()
        );
        for i in 0..2 {
            let events = &m.players[i].seen.events;
            assert!(events.contains(&Event::Resumed { slot: 2 }), "{events:?}");
        }
        for p in &m.players {
            assert_eq!(p.outcome(), None, "{}", m.progress());
        }
    });
}
