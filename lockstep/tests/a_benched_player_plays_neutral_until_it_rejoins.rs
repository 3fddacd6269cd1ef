//! Three dots players, in a game that plays a dropped player's slot on
//! while it is held: one player's every link is cut for 10 s. The host
//! benches its slot a quarter of a second into the silence (the others
//! are told, with an ordered change, the tick from which it plays the
//! neutral input), so the two who stay keep playing: a few stalled frames
//! instead of a freeze. The player comes back with a fresh session and
//! its token, the slot is handed back at a tick every member agrees on,
//! and all three play on in sync on the same hashes, in both modes, over
//! 30 ms ±5 links with 2 % loss.
mod common;

use common::{assert_players_agree, in_both_modes, mild_link, Mode};
use lockstep::{Event, Millis, SessionConfig};
use lockstep_testing::{BenchDots, Mesh};

/// Stalled frames of players 0 and 1 so far.
fn stalls(m: &Mesh<BenchDots>) -> [u64; 2] {
    [0, 1].map(|i| m.players[i].stats().stalled_frames)
}

/// The ticks of the events `pick` finds in player `i`'s events.
fn ticks_of(m: &Mesh<BenchDots>, i: usize, pick: impl Fn(&Event) -> Option<u32>) -> Vec<u32> {
    m.players[i].seen.events.iter().filter_map(pick).collect()
}

#[test]
fn a_benched_player_plays_neutral_until_it_rejoins() {
    in_both_modes(|mode| {
        let delay = if mode == Mode::LockStep { 4 } else { 2 };
        let host = SessionConfig::host(0xbe4c, delay)
            .rejoin_entropy(0xbe4c_2026)
            .bench_after(Millis(250));
        let mut m = Mesh::<BenchDots>::new(
            3,
            mode.cfg(host),
            mode.cfg(SessionConfig::guest()),
            mild_link(),
            0xbe4c,
        );
        assert!(m.run_to_confirmed(600, 3000), "{}", m.progress());
        let before = stalls(&m);
        let ticks_before: Vec<u32> = m.players.iter().map(|p| p.confirmed_tick()).collect();
        m.sever_player(2);
        m.run_frames(600);
        let during = stalls(&m);
        let stalled = [during[0] - before[0], during[1] - before[1]];
        eprintln!("{mode:?}: stalled frames over the 10 s cut: {stalled:?}");
        // Waiting for the player would stall every frame of the cut but
        // the first few (600).
        for (i, s) in stalled.iter().enumerate() {
            assert!(*s <= 30, "player {i} stalled {s} frames: {}", m.progress());
            assert!(
                m.players[i].confirmed_tick() >= ticks_before[i] + 540,
                "player {i} played on: {}",
                m.progress()
            );
        }
        let bench = |e: &Event| match e {
            Event::Benched { slot: 2, tick } => Some(*tick),
            _ => None,
        };
        let benched = ticks_of(&m, 0, bench);
        assert_eq!(benched.len(), 1, "{:?}", m.players[0].seen.events);
        assert_eq!(ticks_of(&m, 1, bench), benched, "the same tick everywhere");
        // The player's page reloads and comes back with its token.
        m.reload(2).expect("a valid configuration");
        let back = m.net.frame;
        let unbench = |e: &Event| match e {
            Event::Unbenched { slot: 2, tick } => Some(*tick),
            _ => None,
        };
        while !(m.players[2].is_running() && ticks_of(&m, 1, unbench).len() == 1) {
            assert!(m.net.frame < back + 300, "not back: {}", m.progress());
            m.step_frame();
        }
        let handed_back = ticks_of(&m, 0, unbench);
        assert_eq!(handed_back.len(), 1);
        assert_eq!(ticks_of(&m, 1, unbench), handed_back);
        assert!(handed_back[0] > benched[0]);
        assert!(m.players[2]
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
        eprintln!(
            "{mode:?}: benched at {}, handed back at {}, stalled around the rejoin: {:?}",
            benched[0],
            handed_back[0],
            [after[0] - during[0], after[1] - during[1]]
        );
        for i in 0..2 {
            let s = after[i] - during[i];
            assert!(s <= 30, "player {i} stalled {s} frames around the rejoin");
        }
        for p in &m.players {
            assert_eq!(p.outcome(), None, "{}", m.progress());
        }
        // The slot plays the rejoiner's own inputs again.
        let log = m.players[0].input_log();
        let players = usize::from(log.players);
        let past = (handed_back[0] as usize + 10)..(from as usize + 800);
        assert!(
            past.clone().any(|t| log.inputs[t * players + 2] != 0),
            "slot 2 played only the neutral input after it came back"
        );
        assert!(
            (benched[0] as usize..handed_back[0] as usize)
                .all(|t| log.inputs[t * players + 2] == 0),
            "slot 2 played the neutral input while benched"
        );
        let ticks = assert_players_agree(&m, &[0, 1, 2], 200);
        assert!(ticks as u32 >= from + 800, "{ticks} final ticks");
    });
}
