//! Plays CPU-against-CPU matches and prints scores and team statistics.
//!
//! `cargo run --release -p ntba --example cpu_stats -- [matches]`
use lockstep::DeterministicGame;
use ntba::{Cpu, Ntba};

fn main() {
    let n: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(10);
    let mut totals = [0u32; 2];
    for seed in 0..n {
        let mut g = Ntba::new(seed, 2);
        let (mut a, mut b) = (Cpu::new(seed * 2 + 1), Cpu::new(seed * 2 + 2));
        while !g.is_over() && g.tick() < 60 * 60 * 10 {
            let pads = [a.pad(&g, 0), b.pad(&g, 1)];
            g.step(&pads);
        }
        let s = g.score();
        totals[0] += u32::from(s[0]);
        totals[1] += u32::from(s[1]);
        let st = g.stats();
        println!(
            "seed {seed:3}: {:3}-{:<3} period {} ticks {:6} | shots {:?}/{:?} made {}/{} 3s {}/{} steals {}/{} blocks {}/{} reb {}/{} oreb {}/{} tov {}/{}",
            s[0], s[1], g.clocks().period, g.tick(),
            st[0].shots, st[1].shots, st[0].made, st[1].made,
            st[0].threes_made + st[1].threes_made, st[0].threes + st[1].threes,
            st[0].steals, st[1].steals, st[0].blocks, st[1].blocks,
            st[0].rebounds, st[1].rebounds, st[0].offensive_rebounds, st[1].offensive_rebounds,
            st[0].turnovers, st[1].turnovers
        );
    }
    println!(
        "average {:.1} - {:.1}",
        totals[0] as f64 / n as f64,
        totals[1] as f64 / n as f64
    );
}
