//! Two and three dots players, in a game that plays a dropped player's
//! slot on while it is held: the last player's every link is cut for
//! 10 s. The host benches its slot a quarter of a second into the silence
//! (every other player is told, with an ordered change, the tick from
//! which it plays the neutral input), so those who stay keep playing: a
//! few stalled frames instead of a freeze. The player comes back with a
//! fresh session and its token, the slot is handed back at a tick every
//! member agrees on, and all play on in sync on the same hashes, in both
//! modes, over 30 ms ±5 links with 2 % loss.
use crate::common;

use common::{assert_players_agree, in_both_modes, mild_link, Mode};
use lockstep::{Event, Millis, SessionConfig};
use lockstep_testing::{BenchDots, Mesh};

/// Stalled frames of the players who stay (all but the last) so far.
fn stalls(m: &Mesh<BenchDots>) -> Vec<u64> {
    let stay = m.players.len() - 1;
    m.players[..stay]
        .iter()
        .map(|p| p.stats().stalled_frames)
        .collect()
}

/// The ticks of the events `pick` finds in player `i`'s events.
fn ticks_of(m: &Mesh<BenchDots>, i: usize, pick: impl Fn(&Event) -> Option<u32>) -> Vec<u32> {
    m.players[i].seen.events.iter().filter_map(pick).collect()
}

#[test]
fn a_benched_player_plays_neutral_until_it_rejoins() {
    in_both_modes(|mode| {
        for n in [2u8, 3] {
            play(mode, n);
        }
    });
}

fn play(mode: Mode, n: u8) {
    let delay = if mode == Mode::LockStep { 4 } else { 2 };
    let host = SessionConfig::host(0xbe4c, delay)
        .players(n)
        .rejoin_entropy(0xbe4c_2026)
        .bench_after(Millis(250));
    let mut m = Mesh::<BenchDots>::new(
        n,
        mode.cfg(host),
        mode.cfg(SessionConfig::guest()),
        mild_link(),
        0xbe4c + u64::from(n),
    );
    assert!(m.run_to_confirmed(600, 3000), "{}", m.progress());
    let cut = usize::from(n) - 1;
    let slot = n - 1;
    let before = stalls(&m);
    let ticks_before: Vec<u32> = m.players.iter().map(|p| p.confirmed_tick()).collect();
    m.sever_player(cut);
    m.run_frames(600);
    let during = stalls(&m);
    let stalled: Vec<u64> = during.iter().zip(&before).map(|(d, b)| d - b).collect();
    eprintln!("{mode:?}, {n} players: stalled frames over the 10 s cut: {stalled:?}");
    // Waiting for the player would stall every frame of the cut but the
    // first few (600).
    for (i, s) in stalled.iter().enumerate() {
        assert!(*s <= 30, "player {i} stalled {s} frames: {}", m.progress());
        assert!(
            m.players[i].confirmed_tick() >= ticks_before[i] + 540,
            "player {i} played on: {}",
            m.progress()
        );
    }
    let bench = |e: &Event| match e {
        Event::Benched { slot: s, tick } if *s == slot => Some(*tick),
        _ => None,
    };
    let benched = ticks_of(&m, 0, bench);
    assert_eq!(benched.len(), 1, "{:?}", m.players[0].seen.events);
    for i in 1..cut {
        assert_eq!(ticks_of(&m, i, bench), benched, "the same tick everywhere");
    }
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
    for i in 1..cut {
        assert_eq!(ticks_of(&m, i, unbench), handed_back);
    }
    assert!(handed_back[0] > benched[0]);
    assert!(m.players[cut]
        .seen
        .events
        .iter()
        .any(|e| matches!(e, Event::Rejoined { .. })));
    let from = m.players[0].confirmed_tick();
    assert!(
        m.run_to_confirmed(from + 900, m.net.frame + 3000),
        "{}",
        m.progress()
    );
    // Few stalls while the slot is handed back either.
    let after = stalls(&m);
    let around: Vec<u64> = after.iter().zip(&during).map(|(a, d)| a - d).collect();
    eprintln!(
        "{mode:?}, {n} players: benched at {}, handed back at {}, stalled around the rejoin: {around:?}",
        benched[0], handed_back[0]
    );
    for (i, s) in around.iter().enumerate() {
        assert!(*s <= 30, "player {i} stalled {s} frames around the rejoin");
    }
    for p in &m.players {
        assert_eq!(p.outcome(), None, "{}", m.progress());
    }
    // The slot played the neutral input while benched, and the
    // rejoiner's own inputs again once back.
    let log = m.players[0].input_log();
    let players = usize::from(log.players);
    let s = usize::from(slot);
    assert!(
        (benched[0] as usize..handed_back[0] as usize).all(|t| log.inputs[t * players + s] == 0),
        "slot {slot} played the neutral input while benched"
    );
    let past = (handed_back[0] as usize + 10)..(from as usize + 800);
    assert!(
        past.clone().any(|t| log.inputs[t * players + s] != 0),
        "slot {slot} played only the neutral input after it came back"
    );
    let all: Vec<usize> = (0..usize::from(n)).collect();
    let ticks = assert_players_agree(&m, &all, 200);
    assert!(ticks as u32 >= from + 800, "{ticks} final ticks");
}
