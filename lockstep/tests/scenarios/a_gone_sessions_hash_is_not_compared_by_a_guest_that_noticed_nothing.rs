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

use common::{in_both_modes, Bench, Mode};
use lockstep::Event;
use lockstep_testing::Mesh;

#[test]
fn a_gone_sessions_hash_is_not_compared_by_a_guest_that_noticed_nothing() {
    in_both_modes(scenario);
}

fn scenario(mode: Mode) {
    let (mut m, ahead) = common::gone_session_reloaded(mode);
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
    common::gone_session_back_in_sync(&mut m, ahead, start);
}
