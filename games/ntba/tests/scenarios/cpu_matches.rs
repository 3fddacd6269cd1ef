//! CPU against CPU over many seeds: every match finishes with a plausible
//! score, players stay in the court and apart, the ball stays legal.

use lockstep::DeterministicGame;
use ntba::{
    BallState, Cpu, Event, Ntba, Phase, COURT_LENGTH, COURT_WIDTH, PLAYER_RADIUS, RIM_HEIGHT,
    UNITS_PER_METER,
};

const M: i32 = UNITS_PER_METER;

fn check_invariants(g: &Ntba) {
    let ps = g.players();
    for (i, p) in ps.iter().enumerate() {
        assert!(
            (PLAYER_RADIUS..=COURT_LENGTH - PLAYER_RADIUS).contains(&p.x)
                && (PLAYER_RADIUS..=COURT_WIDTH - PLAYER_RADIUS).contains(&p.y),
            "tick {}: player {i} outside the court at ({}, {})",
            g.tick(),
            p.x,
            p.y
        );
        assert!(
            p.z >= 0 && p.z <= 2 * M,
            "tick {}: player {i} at height {}",
            g.tick(),
            p.z
        );
        for (j, q) in ps.iter().enumerate().skip(i + 1) {
            let dx = i64::from(p.x - q.x);
            let dy = i64::from(p.y - q.y);
            let min = i64::from(2 * PLAYER_RADIUS * 9 / 10);
            assert!(
                dx * dx + dy * dy >= min * min,
                "tick {}: players {i} and {j} overlap: {p:?} {q:?} {:?}",
                g.tick(),
                g.clocks()
            );
        }
    }
    let b = g.ball();
    assert!(
        (0..=COURT_LENGTH).contains(&b.x) && (0..=COURT_WIDTH).contains(&b.y),
        "tick {}: ball outside the court at ({}, {}) in {:?}",
        g.tick(),
        b.x,
        b.y,
        b.state
    );
    assert!(
        b.z >= 0 && b.z < RIM_HEIGHT + 4 * M,
        "tick {}: ball height {}",
        g.tick(),
        b.z
    );
    if let BallState::Held(h) = b.state {
        assert!(ps[h as usize].has_ball);
        // With two people control follows the ball (the player is the
        // AI's while nobody is at its team's pad, `Pad::ABSENT`, which
        // random pads press too); with more, the AI may hold it for a
        // court player nobody drives.
        assert!(
            g.controlled(h / 2) == h || g.people() > 2,
            "the ball handler is the controlled player"
        );
    }
    // A person's pad always drives the same court player.
    if g.people() > 2 {
        for p in 0..4u8 {
            assert_eq!(ps[p as usize].controlled, g.pad_slot(p).is_some());
        }
    }
    let c = g.clocks();
    if c.phase == Phase::Play {
        assert!(c.game_clock <= ntba::HALF_TICKS);
    }
}

#[test]
fn a_hundred_cpu_matches_finish_plausibly() {
    let mut totals = [0u32; 2];
    // Points per half (overtimes count with the second half) and side, over
    // all matches.
    let mut by_half = [[0u32; 2]; 2];
    let mut overtimes = 0;
    let mut wins = [0u32; 2];
    for seed in 0..100u64 {
        let mut g = Ntba::new(seed, 2);
        let (mut home, mut away) = (Cpu::new(seed * 7 + 1), Cpu::new(seed * 7 + 2));
        let mut points = [0u32; 2];
        let before = by_half;
        while !g.is_over() {
            let pads = [home.pad(&g, 0), away.pad(&g, 1)];
            g.step(&pads);
            for e in g.events() {
                if let Event::Score {
                    side, points: p, ..
                } = e
                {
                    assert!(*p == 2 || *p == 3);
                    points[*side as usize] += u32::from(*p);
                    // Every basket drops through the hoop its team attacks
                    // in this period (teams change ends at half time).
                    let b = g.ball();
                    assert_eq!(
                        (b.x, b.y),
                        g.attacked_hoop(*side),
                        "seed {seed}: a basket in the wrong hoop"
                    );
                    let half = usize::from(g.clocks().period.min(1));
                    by_half[half][*side as usize] += u32::from(*p);
                }
            }
            check_invariants(&g);
            assert!(g.tick() < 40_000, "seed {seed}: match still running");
        }
        let half_points =
            [0, 1].map(|h| by_half[h][0] + by_half[h][1] - before[h][0] - before[h][1]);
        let s = g.score();
        assert!(
            half_points[0] > 0 && half_points[1] > 0,
            "seed {seed}: points in each half: {half_points:?}"
        );
        assert_eq!(
            [u32::from(s[0]), u32::from(s[1])],
            points,
            "seed {seed}: score = sum of baskets"
        );
        let w = g.winner().expect("a finished match has a winner");
        // The winner leads, unless a scoreless sudden-death period left it
        // to the tiebreak.
        let tiebreak = s[0] == s[1] && g.clocks().period == ntba::SUDDEN_DEATH_PERIOD;
        assert!(
            s[w as usize] > s[1 - w as usize] || tiebreak,
            "seed {seed}: winner leads"
        );
        assert!(g.clocks().period <= ntba::SUDDEN_DEATH_PERIOD);
        wins[w as usize] += 1;
        for side in 0..2 {
            assert!(
                (2..=80).contains(&s[side]),
                "seed {seed}: implausible score {s:?}"
            );
            totals[side] += u32::from(s[side]);
        }
        if g.clocks().period >= 2 {
            overtimes += 1;
        }
        let st = g.stats();
        assert!(
            st[0].shots + st[1].shots >= 15,
            "seed {seed}: too few shots {st:?}"
        );
    }
    let avg = [totals[0] / 100, totals[1] / 100];
    println!(
        "average score {avg:?}, wins {wins:?}, {overtimes} overtimes, points by half \
         (second with overtimes) {by_half:?}"
    );
    // The CPU scores after changing ends as well as before: each side's
    // second half (with overtimes) brings at least 80% of its first half.
    for side in 0..2 {
        assert!(
            by_half[1][side] * 10 >= by_half[0][side] * 8,
            "side {side} scores less after changing ends: {by_half:?}"
        );
    }
    for side in 0..2 {
        assert!((8..=50).contains(&avg[side]), "average score {avg:?}");
        assert!(wins[side] >= 25, "one side wins far too often: {wins:?}");
    }
    assert!(overtimes < 30, "{overtimes} overtimes in 100 matches");
}

#[test]
fn random_pads_never_break_the_rules_of_the_court() {
    // Button mashing (any byte, every button at once, held or
    // flickering) on both sides, and pads nobody is at (`Pad::ABSENT`:
    // the AI plays them) coming and going, for whole matches: the same
    // invariants hold every tick.
    for seed in 0..12u64 {
        // Two, three and four people in turn.
        let people = 2 + (seed % 3) as u8;
        let mut g = Ntba::new(seed, people);
        let mut rng = ntba::Rng::new(seed ^ 0xbad_9ad);
        let mut pads = vec![ntba::Pad::NONE; usize::from(people)];
        while !g.is_over() && g.tick() < 20_000 {
            for p in &mut pads {
                // Change each pad now and then, sometimes to extremes.
                match rng.below(40) {
                    0 => *p = ntba::Pad::ABSENT,
                    1 => *p = ntba::Pad(0x7f),
                    2 => *p = ntba::Pad::NONE,
                    3..=5 => *p = ntba::Pad(rng.below(256) as u8),
                    _ => {}
                }
            }
            g.step(&pads);
            check_invariants(&g);
        }
        assert!(g.tick() > 10_000);
    }
}

#[test]
fn cpu_matches_for_three_and_four_people_finish_plausibly() {
    // Each pad slot is a CPU player driving its one court player; with
    // three people the AI plays the fourth court player (Away's second,
    // on the default line-up), with the ball too.
    for people in [3u8, 4] {
        let mut ai_shots = 0;
        for seed in 0..16u64 {
            let mut g = Ntba::new(seed, people);
            let mut cpus: Vec<Cpu> = (0..u64::from(people))
                .map(|s| Cpu::new(seed * 11 + s))
                .collect();
            let mut points = [0u32; 2];
            while !g.is_over() {
                let pads: Vec<_> = cpus
                    .iter_mut()
                    .enumerate()
                    .map(|(s, c)| c.pad_for_slot(&g, s as u8))
                    .collect();
                g.step(&pads);
                for e in g.events() {
                    match e {
                        Event::Score {
                            side, points: p, ..
                        } => points[*side as usize] += u32::from(*p),
                        Event::Shot { player, .. } if g.pad_slot(*player).is_none() => {
                            ai_shots += 1;
                        }
                        _ => {}
                    }
                }
                check_invariants(&g);
                assert!(
                    g.tick() < 40_000,
                    "{people} people, seed {seed}: still running"
                );
            }
            let s = g.score();
            assert_eq!([u32::from(s[0]), u32::from(s[1])], points);
            for side in 0..2 {
                assert!(
                    (2..=90).contains(&s[side]),
                    "{people} people, seed {seed}: implausible score {s:?}"
                );
            }
            let st = g.stats();
            assert!(
                st[0].shots + st[1].shots >= 15,
                "{people} people, seed {seed}: too few shots {st:?}"
            );
        }
        if people == 3 {
            assert!(ai_shots >= 16, "the AI court player shot {ai_shots} times");
        } else {
            assert_eq!(ai_shots, 0, "nobody is the AI's with four people");
        }
    }
}

#[test]
fn a_hard_cpu_beats_an_easy_one_most_of_the_time() {
    use ntba::Level;
    let (mut hard_wins, mut margin) = (0, 0i32);
    for seed in 0..30u64 {
        // Alternate sides so the side does not matter.
        let hard_side = (seed % 2) as u8;
        let mut g = Ntba::new(seed, 2);
        let mut cpus = [
            Cpu::with_level(seed * 3 + 1, Level::Easy),
            Cpu::with_level(seed * 3 + 2, Level::Easy),
        ];
        cpus[hard_side as usize] = Cpu::with_level(seed * 3 + 9, Level::Hard);
        assert_eq!(cpus[hard_side as usize].level(), Level::Hard);
        while !g.is_over() {
            let pads = [cpus[0].pad(&g, 0), cpus[1].pad(&g, 1)];
            g.step(&pads);
        }
        let s = g.score();
        margin += i32::from(s[hard_side as usize]) - i32::from(s[1 - hard_side as usize]);
        if g.winner() == Some(hard_side) {
            hard_wins += 1;
        }
    }
    println!("hard won {hard_wins} of 30, by {margin} points in all");
    assert!(hard_wins >= 20, "hard won only {hard_wins} of 30");
    assert!(margin > 0);
}
