//! Four players, a hash every tick, in both modes. Guest 3's way to the
//! host and to guest 1 is cut, but guest 2 still hears it: guest 2 holds
//! more of slot 3's inputs than anyone else, plays ticks the others
//! cannot and sends their hashes to all. Once the host holds slot 3,
//! guest 2's page reloads; its fresh session waits while slot 3 is held. Slot 3's window runs out:
//! the host gathers its inputs from the players it can ask (guest 1; not
//! guest 2's gone session) and plays it neutral from where the longest
//! stream they hold ends, a few ticks before the ones guest 2's old
//! session hashed. Guest 1 still holds those hashes, made with slot 3's
//! real inputs; it must not compare them with its own (made with the
//! neutral input) and report a desync the host decided not to check.
//! Guest 2 then comes back and the three play on in sync.
use crate::common;

use common::{in_both_modes, Mode};

#[test]
fn a_gone_sessions_hash_past_a_leave_is_not_compared() {
    in_both_modes(scenario);
}

fn scenario(mode: Mode) {
    let (mut m, ahead) = common::gone_session_reloaded(mode);
    // Guest 3's page is gone for the fresh session too.
    m.sever(2, 3);
    let start = m.net.frame;
    common::gone_session_back_in_sync(&mut m, ahead, start);
}
