//! Two and three dots players in a game that plays a held slot on, the
//! host benching a silent player after a quarter of a second, over slow
//! links (150 ms ± 10 one way, 2 % loss). The last guest's page reloads
//! and its fresh session asks for its slot before the host took the old
//! one for silent: the host takes it back at once (after gathering its
//! inputs from the other guest, with three), and its catch-up and the
//! fresh session's first inputs take a round trip, longer than the
//! quarter of a second, to cross. The host does not take that wait for
//! silence: the player is not benched again, and everyone plays on in
//! sync on the same hashes. Both modes.
use crate::common;

use common::{assert_players_agree, benched_at, in_both_modes, Mode};
use lockstep::{Event, Millis, SessionConfig};
use lockstep_testing::{BenchDots, LinkConfig, Mesh};

fn scenario(mode: Mode, players: u8) {
    let link = LinkConfig {
        latency: Millis(150),
        jitter: Millis(10),
        loss_percent: 2,
        ..LinkConfig::default()
    };
    let delay = if mode == Mode::LockStep { 6 } else { 3 };
    let seed = 0x51_0e + u64::from(players);
    let host = SessionConfig::host(seed, delay)
        .players(players)
        .rejoin_entropy(u128::from(seed ^ 0x2026))
        .bench_after(Millis(250));
    let mut m = Mesh::<BenchDots>::new(
        players,
        mode.cfg(host),
        mode.cfg(SessionConfig::guest()),
        link,
        seed,
    );
    assert!(m.run_to_confirmed(600, 3000), "{}", m.progress());
    let last = usize::from(players) - 1;
    m.reload(last).expect("a guest's slot");
    let start = m.net.frame;
    while !m.players[last].is_running() {
        assert!(m.net.frame < start + 300, "{}", m.progress());
        m.step_frame();
    }
    let from = m.players[0].confirmed_tick();
    assert!(
        m.run_to_confirmed(from + 600, m.net.frame + 3000),
        "{}",
        m.progress()
    );
    let slot = u8::try_from(last).expect("a few players");
    for (i, p) in m.players.iter().enumerate() {
        assert_eq!(p.outcome(), None, "player {i}: {}", m.progress());
        assert!(benched_at(&m, i, slot).is_empty(), "player {i} benched it");
    }
    let resumed = m.players[0]
        .seen
        .events
        .iter()
        .filter(|e| matches!(e, Event::Resumed { slot: s } if *s == slot))
        .count();
    assert_eq!(resumed, 1, "{}", m.progress());
    let all: Vec<usize> = (0..m.players.len()).collect();
    assert_players_agree(&m, &all, 100);
}

#[test]
fn a_player_taken_back_over_a_slow_link_is_not_benched_while_its_catch_up_crosses() {
    in_both_modes(|mode| {
        for players in [2, 3] {
            eprintln!("{players} players");
            scenario(mode, players);
        }
    });
}
