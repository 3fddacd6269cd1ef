//! NtBA is rollback-safe: lockstep's SyncTest rolls it back and re-simulates
//! it on every tick (8 ticks back, the default prediction window) through
//! a CPU-against-CPU match, and every re-simulation reproduces the first
//! run; a longer rollback every 30 ticks covers a whole half-second. Three-
//! and four-person matches go through the same check.

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

#[test]
fn ntba_for_three_and_four_people_survives_a_rollback_every_tick() {
    // One CPU per pad slot; with three people the AI plays the fourth court
    // player inside the simulation.
    for people in [3u8, 4] {
        let lineup = ntba::Lineup::new(&[1, 0, 1, 0][..usize::from(people)]).expect("a line-up");
        let mut t = SyncTest::<Ntba>::new(lineup.seed(43), people);
        let mut cpus: Vec<Cpu> = (0..u64::from(people)).map(|s| Cpu::new(s + 50)).collect();
        for tick in 0..3_600u32 {
            let pads: Vec<_> = cpus
                .iter_mut()
                .enumerate()
                .map(|(s, c)| c.pad_for_slot(t.game(), s as u8))
                .collect();
            assert_eq!(t.advance(&pads), Ok(()), "{people} people, tick {tick}");
        }
        assert_eq!(t.checks(), 3_600 - 7, "{people} people");
        assert!(
            t.mispredictions() > 0,
            "{people} people: every guess was right"
        );
        assert_eq!(t.game().people(), people);
        assert_ne!(t.game().score(), [0, 0], "{people} people: nobody scored");
    }
}

/// The figures docs/engine.md quotes, for a 3,600-tick CPU match with the
/// defaults: printed with `cargo test --release -p ntba --test sync_test --
/// --nocapture sync_test_figures`.
#[test]
fn sync_test_figures() {
    let start = std::time::Instant::now();
    let t = play(SyncTest::new(41, 2), 41, 3_600);
    let took = start.elapsed();
    assert_eq!(t.predicted_ticks(), 3_600);
    assert!(t.mispredictions() > 0 && t.mispredictions() < 3_600);
    eprintln!(
        "predicted {} ticks, {} wrong guesses, {} checks, {} ticks re-simulated, {} ms",
        t.predicted_ticks(),
        t.mispredictions(),
        t.checks(),
        t.resimulated_ticks(),
        took.as_millis()
    );
}
