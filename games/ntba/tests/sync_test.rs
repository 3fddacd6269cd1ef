//! NtBA is rollback-safe: lockstep's SyncTest rolls it back and re-simulates
//! it on every tick (8 ticks back, the default prediction window) through
//! a CPU-against-CPU match, and every re-simulation reproduces the first
//! run; a longer rollback every 30 ticks covers a whole half-second.

use lockstep::SyncTest;
use ntba::{Cpu, Ntba};

fn play(mut t: SyncTest<Ntba>, seed: u64, ticks: u32) -> SyncTest<Ntba> {
    let (mut a, mut b) = (Cpu::new(seed + 1), Cpu::new(seed + 2));
    for tick in 0..ticks {
        let pads = [a.pad(t.game(), 0), b.pad(t.game(), 1)];
        assert_eq!(t.advance(&pads), Ok(()), "tick {tick}");
    }
    t
}

#[test]
fn ntba_survives_a_rollback_every_tick() {
    let t = play(SyncTest::new(41, 2), 41, 3_600);
    assert_eq!(t.checks(), 3_600 - 7);
}

#[test]
fn ntba_survives_long_rollbacks() {
    let t = play(SyncTest::new(42, 2).check_distance(30).every(30), 42, 3_600);
    assert_eq!(t.checks(), 3_600 / 30);
    assert_eq!(t.resimulated_ticks(), 3_600);
}
