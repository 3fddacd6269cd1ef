//! Three players of a game with a stand-in of its own (`StandInDots`: a
//! slot nobody drives plays `STAND_IN`, and its dot then walks to the
//! coin): the last player's links are cut for 10 s, the host benches its
//! slot, and every member plays the game's stand-in input for it, not the
//! neutral one, from the bench's tick until the player rejoins with its
//! token and gets its slot back. Every member's log records the stand-in
//! input for those ticks, the stand-in's dot scored meanwhile, and every
//! log replays to the member's own state. Both modes, over 30 ms ±5 links with
//! 2 % loss.
use crate::common;

use common::{assert_players_agree, in_both_modes, mild_link, Mode};
use lockstep::{DeterministicGame, Event, Millis, SessionConfig};
use lockstep_testing::{Mesh, StandInDots, STAND_IN};

/// The ticks of the events `pick` finds in player `i`'s events.
fn ticks_of(m: &Mesh<StandInDots>, i: usize, pick: impl Fn(&Event) -> Option<u32>) -> Vec<u32> {
    m.players[i].seen.events.iter().filter_map(pick).collect()
}

#[test]
fn a_benched_slot_plays_the_games_stand_in_until_it_rejoins() {
    // A game without the override plays the neutral input (the default).
    assert_eq!(lockstep_testing::BenchDots::absent_input(3, 2), 0);
    assert_eq!(StandInDots::<true>::absent_input(3, 2), STAND_IN);
    in_both_modes(play);
}

fn play(mode: Mode) {
    let n = 3u8;
    let delay = if mode == Mode::LockStep { 4 } else { 2 };
    let host = SessionConfig::host(0x57a4, delay)
        .players(n)
        .rejoin_entropy(0x57a4_2026)
        .bench_after(Millis(250));
    let mut m = Mesh::<StandInDots>::new(
        n,
        mode.cfg(host),
        mode.cfg(SessionConfig::guest()),
        mild_link(),
        0x57a4,
    );
    assert!(m.run_to_confirmed(300, 2000), "{}", m.progress());
    let (cut, slot) = (2usize, 2u8);
    m.sever_player(cut);
    m.run_frames(600);
    let bench = |e: &Event| match e {
        Event::Benched { slot: s, tick } if *s == slot => Some(*tick),
        _ => None,
    };
    let benched = ticks_of(&m, 0, bench);
    assert_eq!(benched.len(), 1, "{:?}", m.players[0].seen.events);
    assert_eq!(ticks_of(&m, 1, bench), benched, "the same tick everywhere");
    // The player's page reloads and comes back with its token.
    m.reload(cut).expect("a valid configuration");
    let back = m.net.frame;
    let unbench = |e: &Event| match e {
        Event::Unbenched { slot: s, tick } if *s == slot => Some(*tick),
        _ => None,
    };
    while !(m.players[cut].is_running() && (0..cut).all(|i| ticks_of(&m, i, unbench).len() == 1)) {
        assert!(m.net.frame < back + 300, "not back: {}", m.progress());
        m.step_frame();
    }
    let handed_back = ticks_of(&m, 0, unbench);
    assert_eq!(ticks_of(&m, 1, unbench), handed_back);
    let (from, to) = (benched[0] as usize, handed_back[0] as usize);
    assert!(to > from + 500, "benched at {from}, handed back at {to}");
    let confirmed = m.players[0].confirmed_tick();
    assert!(
        m.run_to_confirmed(confirmed + 600, m.net.frame + 2000),
        "{}",
        m.progress()
    );
    for p in &m.players {
        assert_eq!(p.outcome(), None, "{}", m.progress());
    }
    // Every member (the rejoiner too: it replayed the host's record)
    // recorded the stand-in input for every benched tick, and the player's
    // own inputs again once it was back.
    let s = usize::from(slot);
    for (i, p) in m.players.iter().enumerate() {
        let log = p.input_log();
        let players = usize::from(log.players);
        let of = |t: usize| log.inputs[t * players + s];
        assert!(
            (from..to).all(|t| of(t) == STAND_IN),
            "player {i}: slot {slot} played the stand-in input while benched"
        );
        assert!(
            (to + 10..to + 400).any(|t| of(t) != STAND_IN),
            "player {i}: slot {slot} played only the stand-in after it came back"
        );
    }
    // The stand-in drove the dot: it chased the coin and scored (the
    // neutral input would have left it standing still).
    let log = m.players[0].input_log();
    let score = |t: usize| {
        let g = log
            .game_at::<StandInDots>(t as u32)
            .expect("a replayable log");
        g.0.players()[s].score
    };
    let (before, after) = (score(from), score(to));
    assert!(
        after >= before + 5,
        "scored {before} then {after} while benched"
    );
    // Every log replays to its member's own state, and the three agree.
    let all: Vec<usize> = (0..usize::from(n)).collect();
    let ticks = assert_players_agree(&m, &all, 200);
    assert!(ticks >= to + 500, "{ticks} final ticks");
    eprintln!(
        "{mode:?}: benched at {from}, handed back at {to}, the stand-in scored {}, {ticks} final ticks agreed",
        after - before
    );
}
