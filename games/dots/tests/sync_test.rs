//! Dots is rollback-safe: lockstep's SyncTest rolls it back and
//! re-simulates it on every tick (8 ticks back, as the default prediction
//! window) and every re-simulation reproduces the first run.

use dots::{scripted_input, Dots};
use lockstep::SyncTest;

#[test]
fn dots_survives_a_rollback_every_tick() {
    let mut t = SyncTest::<Dots>::new(0xd075, 2);
    for tick in 0..3_000u32 {
        // Held directions from the script, with a change of mind now and
        // then, so predictions would often be wrong.
        let mut pads = [scripted_input(tick, 0), scripted_input(tick, 1)];
        if tick % 7 == 3 {
            pads[1] = scripted_input(tick + 40, 1);
        }
        assert_eq!(t.advance(&pads), Ok(()), "tick {tick}");
    }
    assert_eq!(t.checks(), 3_000 - 7);
    assert_eq!(t.resimulated_ticks(), (3_000 - 7) * 8);
}
