//! Four players, a hash every tick, in both modes: the scenario of
//! `a_gone_sessions_hash_past_a_leave_is_not_compared.rs`, except that
//! guest 1 notices nothing of guest 2's reload before slot 3 leaves.
//! Guest 3's way to the host and to guest 1 is cut, but guest 2 still
//! hears it: guest 2 holds more of slot 3's inputs than anyone else and
//! sends its hashes of ticks the others cannot play yet. Once the host
//! holds slot 3, guest 2's page reloads; its fresh session waits while
//! slot 3 is held, and its `Rejoin` does not reach guest 1 (that way is
//! cut until slot 3 left), whose link to guest 2 still looks live (heard
//! within the timeout). Slot 3's window runs out: the host plays it
//! neutral from where the longest stream guest 1 and the host hold ends,
//! a few ticks before the ones guest 2's old session hashed. Guest 1
//! applies the change with those hashes in hand, made with slot 3's real
//! inputs, and must not compare them with its own (made with the neutral
//! input). Guest 2 then comes back and the three play on in sync.
use crate::common;

use common::{assert_players_agree, in_both_modes, Bench, Mode};
use lockstep::{Event, Millis, SessionConfig};
use lockstep_testing::Mesh;
use netsim::Direction;

#[test]
fn a_gone_sessions_hash_is_not_compared_by_a_guest_that_noticed_nothing() {
    in_both_modes(scenario);
}

fn scenario(mode: Mode) {
    let delay = if mode == Mode::LockStep { 4 } else { 2 };
    let host = SessionConfig::host(61, delay)
        .hash_interval(1)
        .rejoin_window(Millis(3000))
        .rejoin_entropy(0x6a5_2026);
    let guest = SessionConfig::guest().hash_interval(1);
    let mut m = Mesh::<Bench>::new(4, mode.cfg(host), mode.cfg(guest), common::mild_link(), 61);
    assert!(m.run_to_confirmed(600, 2000), "{}", m.progress());
    for other in [0, 1] {
        if let Some(l) = m.net.link(other, 3) {
            // End 1 is guest 3's.
            l.1.sever(Direction::Outgoing);
        }
    }
    m.run_frames(40);
    let ahead = m.players[2].confirmed_tick();
    let stuck = m.players[1].confirmed_tick();
    assert!(ahead > stuck, "guest 2 at {ahead}, guest 1 at {stuck}");
    // The host holds slot 3 (silent for the timeout) before guest 2's
    // page reloads, so the fresh session waits for it.
    let dropped = |m: &Mesh<Bench>| {
        m.players[0]
            .seen
            .events
            .iter()
            .any(|e| matches!(e, Event::Dropped { slot: 3, .. }))
    };
    while !dropped(&m) {
        assert!(m.net.frame < 2000, "{}", m.progress());
        m.step_frame();
    }
    // A second later: slot 3's window (3 s) runs out well before slot 2's.
    m.run_frames(60);
    m.reload(2).expect("a guest's slot can be rejoined");
    // Guest 3's page is gone for the fresh session too, and its Rejoin
    // does not reach guest 1 before slot 3 leaves.
    m.sever(2, 3);
    m.sever(1, 2);
    let left = |m: &Mesh<Bench>| {
        m.players[1]
            .seen
            .events
            .iter()
            .any(|e| matches!(e, Event::Left { slot: 3, .. }))
    };
    let start = m.net.frame;
    while !left(&m) {
        assert!(m.net.frame < start + 600, "{}", m.progress());
        for i in 0..3 {
            assert_eq!(m.players[i].outcome(), None, "player {i}: {}", m.progress());
        }
        m.step_frame();
    }
    // Guest 1 plays on past the ticks guest 2's old session hashed.
    m.run_frames(30);
    for i in 0..3 {
        assert_eq!(m.players[i].outcome(), None, "player {i}: {}", m.progress());
    }
    m.restore(1, 2);
    while !m.players[2].is_running() {
        assert!(m.net.frame < start + 900, "{}", m.progress());
        for i in 0..3 {
            assert_eq!(m.players[i].outcome(), None, "player {i}: {}", m.progress());
        }
        m.step_frame();
    }
    let until = m.net.frame + 3000;
    assert!(
        common::run_some_to_confirmed(&mut m, &[0, 1, 2], ahead + 600, until),
        "{}",
        m.progress()
    );
    for i in 0..3 {
        assert_eq!(m.players[i].outcome(), None, "player {i}: {}", m.progress());
    }
    // Guest 2's fresh session came back after it: the catch-up says the
    // slot plays the neutral input.
    for i in 0..2 {
        let left = m.players[i]
            .seen
            .events
            .iter()
            .any(|e| matches!(e, Event::Left { slot: 3, .. }));
        assert!(left, "player {i} never saw slot 3 leave");
    }
    assert_players_agree(&m, &[0, 1, 2], 10);
}
