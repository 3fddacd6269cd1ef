//! A benched player who never comes back: once the rejoin window (3 s
//! here) runs out, today's leave applies. With three dots players the
//! two who stay are told the slot left for good (`Event::Left` with the
//! bench's tick, on both) and play on in sync with it neutral, never
//! having waited for it; with two, the match ends for the host with
//! `PlayerLeft`. Both modes.
use crate::common;

use common::{benched_at, in_both_modes, left_at, mild_link, run_some_to_confirmed, Mode};
use lockstep::{Event, Millis, Outcome, SessionConfig};
use lockstep_testing::{BenchDots, Mesh};

fn mesh(mode: Mode, players: u8) -> Mesh<BenchDots> {
    let delay = if mode == Mode::LockStep { 4 } else { 2 };
    let host = SessionConfig::host(0x1eaf, delay)
        .rejoin_entropy(0x1eaf_2026)
        .rejoin_window(Millis(3000))
        .bench_after(Millis(250));
    let mut m = Mesh::<BenchDots>::new(
        players,
        mode.cfg(host),
        mode.cfg(SessionConfig::guest().rejoin_window(Millis(3000))),
        mild_link(),
        0x1eaf + u64::from(players),
    );
    assert!(m.run_to_confirmed(600, 3000), "{}", m.progress());
    m
}

#[test]
fn a_benched_player_who_never_returns_leaves_after_the_window() {
    in_both_modes(|mode| {
        // Three players: the slot leaves for good, the others play on.
        let mut m = mesh(mode, 3);
        let before: Vec<u64> = m.players.iter().map(|p| p.stats().stalled_frames).collect();
        m.sever_player(2);
        let (from, until) = (m.players[0].confirmed_tick(), m.net.frame + 1200);
        assert!(
            run_some_to_confirmed(&mut m, &[0, 1], from + 600, until),
            "{}",
            m.progress()
        );
        let picks = |i: usize| (benched_at(&m, i, 2), left_at(&m, i, 2));
        let (benched, left) = picks(0);
        assert_eq!(benched.len(), 1, "{}", m.progress());
        assert_eq!(left, benched, "left for good from the bench's tick");
        assert_eq!(picks(1), (benched.clone(), left));
        for (i, b) in before.iter().take(2).enumerate() {
            let stalled = m.players[i].stats().stalled_frames - b;
            assert!(stalled <= 30, "player {i} stalled {stalled} frames");
            assert_eq!(m.players[i].outcome(), None);
        }
        let mut n = 0;
        for (t, h) in &m.players[0].seen.hashes {
            if let Some(g) = m.players[1].seen.hashes.get(t) {
                assert_eq!(h, g, "players 0 and 1 differ at tick {t}");
                n += 1;
            }
        }
        assert!(n >= 100, "{n} ticks compared");

        // Two players: the match ends with PlayerLeft after the window.
        let mut m = mesh(mode, 2);
        m.sever_player(1);
        let start = m.net.frame;
        while m.players[0].outcome().is_none() {
            assert!(m.net.frame < start + 600, "{}", m.progress());
            m.step_frame();
        }
        assert_eq!(
            m.players[0].outcome(),
            Some(&Outcome::PlayerLeft { slot: 1 })
        );
        let ev = &m.players[0].seen.events;
        assert!(ev
            .iter()
            .any(|e| matches!(e, Event::Benched { slot: 1, .. })));
        // It played on, alone, until the window ran out (3 s).
        let frames = m.net.frame - start;
        assert!(frames >= 180, "ended after {frames} frames");
        assert!(m.players[0].stats().stalled_frames < 60, "{}", m.progress());
    });
}
