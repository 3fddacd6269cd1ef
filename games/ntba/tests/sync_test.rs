//! NtBA is rollback-safe: lockstep's SyncTest rolls it back and re-simulates
//! it on every tick (8 ticks back, the default prediction window) through
//! a CPU-against-CPU match, and every re-simulation reproduces the first
//! run; a longer rollback every 30 ticks covers a whole half-second. The
//! same rollback every tick is checked by hand for three and four people.

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
    // SyncTest drives two players; with three and four people the same
    // check is done here: every tick, go back to the state 8 ticks ago,
    // replay the same pads and compare each re-simulated tick's hash with
    // the first run's. One CPU per pad slot; with three people the AI plays
    // the fourth court player inside the simulation.
    use lockstep::DeterministicGame;
    const BACK: usize = 8;
    for people in [3u8, 4] {
        let mut g = Ntba::new(ntba::seed_with_teams(43, [1, 0, 1, 0]), people);
        let mut cpus: Vec<Cpu> = (0..u64::from(people)).map(|s| Cpu::new(s + 50)).collect();
        let mut saved = vec![g.clone()];
        let (mut pads_log, mut hashes) = (Vec::new(), Vec::new());
        for tick in 0..3_600usize {
            let pads: Vec<_> = cpus
                .iter_mut()
                .enumerate()
                .map(|(s, c)| c.pad_for_slot(&g, s as u8))
                .collect();
            g.step(&pads);
            pads_log.push(pads);
            hashes.push(g.state_hash());
            saved.push(g.clone());
            if tick + 1 >= BACK {
                let from = tick + 1 - BACK;
                let mut r = saved[from].clone();
                for t in from..=tick {
                    r.step(&pads_log[t]);
                    assert_eq!(r.state_hash(), hashes[t], "{people} people, tick {t}");
                }
                assert_eq!(r, g);
            }
        }
        assert_eq!(g.people(), people);
        assert_ne!(g.score(), [0, 0], "{people} people: nobody scored");
    }
}
