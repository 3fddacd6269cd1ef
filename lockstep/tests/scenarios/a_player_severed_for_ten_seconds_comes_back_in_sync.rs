//! A player whose every link is cut for 10 s (twice the silence timeout)
//! in a match of two and of three, in both modes, over 50 ms ±10 links:
//! the others drop it, wait with its slot held (the events name the slot
//! and the time left), and when the links come back everyone resumes
//! within a second and the match runs to 3,600 confirmed ticks in sync.
use crate::common;

use common::{assert_players_agree, in_both_modes, scenario_links, Crowd, Mode};
use lockstep::session::DEFAULT_REJOIN_WINDOW;
use lockstep::{Event, Millis, SessionConfig};
use lockstep_testing::Mesh;

#[test]
fn a_player_severed_for_ten_seconds_comes_back_and_the_match_ends_in_sync() {
    in_both_modes(|mode| {
        for n in [2u8, 3] {
            eprintln!("{n} players");
            let (_, link, lock_step_delay, rollback_delay) = scenario_links()[1];
            let delay = match mode {
                Mode::LockStep => lock_step_delay,
                Mode::Rollback => rollback_delay,
            };
            let mut m = Mesh::<Crowd>::new(
                n,
                mode.cfg(SessionConfig::host(7, delay)),
                mode.cfg(SessionConfig::guest()),
                link,
                70 + u64::from(n),
            );
            assert!(m.run_to_confirmed(600, 3000), "{}", m.progress());
            let cut = usize::from(n) - 1;
            let slot = cut as u8;
            m.sever_player(cut);
            m.run_frames(600);
            for p in &m.players[..cut] {
                assert!(
                    p.seen.events.contains(&Event::Dropped {
                        slot,
                        held_for: DEFAULT_REJOIN_WINDOW
                    }),
                    "{}",
                    m.progress()
                );
                // Each second of the wait is announced with the time left.
                let waits: Vec<Millis> = p
                    .seen
                    .events
                    .iter()
                    .filter_map(|e| match e {
                        Event::Waiting { slot: s, held_for } if *s == slot => Some(*held_for),
                        _ => None,
                    })
                    .collect();
                assert!(waits.len() >= 4, "{waits:?}");
                assert!(waits.windows(2).all(|w| w[1] < w[0]), "{waits:?}");
            }
            let stalled: Vec<u32> = m.players.iter().map(|p| p.tick()).collect();
            m.restore_player(cut);
            let back = m.net.frame;
            // Back in play within a second of the links returning.
            while m
                .players
                .iter()
                .zip(&stalled)
                .any(|(p, &t)| p.tick() <= t + 1)
            {
                assert!(m.net.frame < back + 60, "not resumed: {}", m.progress());
                m.step_frame();
            }
            eprintln!(
                "resumed {} frames after the links returned",
                m.net.frame - back
            );
            assert!(
                m.run_to_confirmed(3600, m.net.frame + 3600 * 3),
                "{}",
                m.progress()
            );
            m.run_frames(120);
            for p in &m.players {
                assert_eq!(p.outcome(), None, "{}", m.progress());
            }
            for p in &m.players[..cut] {
                assert!(p.seen.events.contains(&Event::Resumed { slot }));
            }
            let want = if mode == Mode::LockStep { 3000 } else { 500 };
            let all: Vec<usize> = (0..usize::from(n)).collect();
            let ticks = assert_players_agree(&m, &all, want);
            assert!(ticks >= 3600, "{ticks} final ticks");
        }
    });
}
