//! In a game that plays a dropped player's slot on while it is held, guest
//! 3 of four is benched, then the host's page reloads. The returned host
//! learns from the acting guest's `Resume` which slots are benched and
//! from which tick, and keeps them for their players: guest 3's fresh
//! session is taken back as a benched player's (every guest raises
//! `Unbenched`), and all four end in sync. Without a return, the slot
//! leaves for good when its window (counted again from the host's
//! return) runs out, at the bench's tick on every side.
use crate::common;

use common::{benched_at, in_both_modes, left_at, mild_link, run_some_to_confirmed, Mode};
use lockstep::{Event, Millis, SessionConfig};
use lockstep_testing::{BenchDots, Mesh};

const WINDOW: Millis = Millis(6000);

fn host(mode: Mode) -> SessionConfig {
    let delay = if mode == Mode::LockStep { 4 } else { 2 };
    mode.cfg(
        SessionConfig::host(0xbe7c, delay)
            .rejoin_entropy(0xbe7c_2026)
            .rejoin_window(WINDOW)
            .bench_after(Millis(250))
            .players(4),
    )
}

/// Four BenchDots players; guest 3 is benched, then the host is away 2 s
/// and comes back.
fn benched_then_host_back(mode: Mode) -> Mesh<BenchDots> {
    let mut m = Mesh::<BenchDots>::new(
        4,
        host(mode),
        mode.cfg(SessionConfig::guest().rejoin_window(WINDOW)),
        mild_link(),
        0xbe7c,
    );
    assert!(m.run_to_confirmed(600, 3000), "{}", m.progress());
    let token = m.players[0].rejoin_token().expect("the host's token");
    m.players[3].runs = false;
    m.sever_player(3);
    let until = m.net.frame + 300;
    while benched_at(&m, 1, 3).is_empty() {
        assert!(m.net.frame < until, "{}", m.progress());
        m.step_frame();
    }
    m.run_frames(30);
    m.players[0].runs = false;
    m.sever_player(0);
    m.run_frames(120);
    m.reload_as(0, host(mode).back_as_host(token))
        .expect("a host with entropy can come back");
    common::until_host_live(&mut m, 600).expect("the host is back");
    m
}

#[test]
fn a_returned_host_keeps_a_benched_slot_for_its_player() {
    in_both_modes(|mode| {
        // The benched player comes back under the returned host.
        let mut m = benched_then_host_back(mode);
        let (from, until) = (m.players[0].confirmed_tick(), m.net.frame + 900);
        assert!(
            run_some_to_confirmed(&mut m, &[0, 1, 2], from + 60, until),
            "{}",
            m.progress()
        );
        m.reload(3)
            .expect("a benched player with its token can come back");
        assert!(m.run_to_confirmed(from + 600, 9000), "{}", m.progress());
        for i in [1, 2] {
            let back = m.players[i]
                .seen
                .events
                .iter()
                .filter(|e| matches!(e, Event::Unbenched { slot: 3, .. }))
                .count();
            assert_eq!(back, 1, "guest {i}: {:?}", m.players[i].seen.events);
        }
        assert!(m.players.iter().all(|p| p.outcome().is_none()));
        let want = if mode == Mode::LockStep { 300 } else { 30 };
        common::assert_players_agree(&m, &[0, 1, 2, 3], want);

        // Nobody comes back: the slot leaves at the bench's tick.
        let mut m = benched_then_host_back(mode);
        let bench = benched_at(&m, 1, 3);
        let (from, until) = (m.players[0].confirmed_tick(), m.net.frame + 1200);
        assert!(
            run_some_to_confirmed(&mut m, &[0, 1, 2], from + 500, until),
            "{}",
            m.progress()
        );
        for i in [0, 1, 2] {
            assert_eq!(left_at(&m, i, 3), bench, "player {i}: {}", m.progress());
            assert!(m.players[i].outcome().is_none());
        }
        common::assert_players_agree(&m, &[0, 1, 2], want);
    });
}
