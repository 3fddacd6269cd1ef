//! A state saved at any moment of a match loads to one that plays on
//! exactly as the original: whole CPU matches of two, three and four
//! people (and matches of random pads) round-trip through
//! `save`/`load` on every tick, and from saves taken mid-possession,
//! mid-shot, mid-pass, after a basket, between periods and at the end,
//! the loaded state and the original stepped with the same pads for a few
//! thousand ticks agree on the state hash and the saved bytes every tick.

use lockstep::DeterministicGame;
use ntba::{BallState, Cpu, Lineup, Ntba, Pad, Phase, Rng, MAX_SAVED_BYTES};

/// Ticks each pair is stepped on after a save.
const AFTER: usize = 3_000;

/// A whole match of `people` CPUs (or random pads), the pads of every
/// tick, and the state before each tick.
fn play(seed: u64, people: u8, random: bool) -> (Vec<Ntba>, Vec<Vec<Pad>>) {
    let mut g = Ntba::new(seed, people);
    let mut cpus: Vec<Cpu> = (0..people)
        .map(|s| Cpu::new(seed ^ u64::from(s) << 8))
        .collect();
    let mut rng = Rng::new(seed);
    let mut held = vec![Pad::NONE; usize::from(people)];
    let (mut states, mut pads) = (Vec::new(), Vec::new());
    while !g.is_over() && states.len() < 40_000 {
        let tick_pads: Vec<Pad> = if random {
            for h in &mut held {
                if rng.below(4) == 0 {
                    *h = Pad(rng.below(256) as u8);
                }
            }
            held.clone()
        } else if people == 2 {
            vec![cpus[0].pad(&g, 0), cpus[1].pad(&g, 1)]
        } else {
            (0..people)
                .map(|s| cpus[usize::from(s)].pad_for_slot(&g, s))
                .collect()
        };
        states.push(g.clone());
        g.step(&tick_pads);
        pads.push(tick_pads);
    }
    assert!(g.is_over(), "the match never ended");
    states.push(g);
    (states, pads)
}

/// `save` then `load`: the same bytes again and the same hash.
fn round_trip(g: &Ntba) -> Ntba {
    let bytes = g.save().expect("NtBA saves its state");
    assert!(bytes.len() <= MAX_SAVED_BYTES);
    let back = Ntba::load(&bytes).unwrap_or_else(|| {
        panic!(
            "tick {}: a reached state is refused: {:?}",
            g.tick(),
            g.snapshot()
        )
    });
    assert_eq!(back.state_hash(), g.state_hash(), "tick {}", g.tick());
    assert_eq!(back.save(), Some(bytes), "tick {}", g.tick());
    back
}

/// Steps the original from `at` and its loaded copy with the recorded
/// pads (then nothing pressed, past the final whistle) and compares
/// them every tick.
fn plays_on(states: &[Ntba], pads: &[Vec<Pad>], at: usize, what: &str) {
    let mut a = states[at].clone();
    let mut b = round_trip(&a);
    let people = usize::from(a.people());
    for t in at..at + AFTER {
        let p = pads.get(t).cloned().unwrap_or(vec![Pad::NONE; people]);
        a.step(&p);
        b.step(&p);
        assert_eq!(
            a.state_hash(),
            b.state_hash(),
            "saved {what} at tick {at}: differs {} ticks on",
            t + 1 - at
        );
        assert_eq!(a.save(), b.save(), "saved {what} at tick {at}");
        assert_eq!(a.events(), b.events());
        assert_eq!(a.snapshot(), b.snapshot());
    }
}

/// A moment of a match worth saving at.
type Moment = fn(&Ntba) -> bool;

/// The first state from `from` on that `pick` chooses.
fn first(states: &[Ntba], from: usize, pick: Moment) -> usize {
    (from..states.len())
        .find(|&i| pick(&states[i]))
        .expect("the match has such a moment")
}

fn scenario(seed: u64, people: u8) {
    let (states, pads) = play(seed, people, false);
    let mut sizes = (usize::MAX, 0);
    for g in &states {
        round_trip(g);
        let n = g.save().map_or(0, |b| b.len());
        sizes = (sizes.0.min(n), sizes.1.max(n));
    }
    eprintln!(
        "{people} people: {} ticks, saved states of {} to {} bytes",
        states.len(),
        sizes.0,
        sizes.1
    );
    let moments: [(&str, Moment); 6] = [
        ("a possession", |g| {
            matches!(g.ball().state, BallState::Held(_))
        }),
        ("a shot", |g| {
            matches!(g.ball().state, BallState::Shot { progress: 3.., .. })
        }),
        ("a pass", |g| {
            matches!(g.ball().state, BallState::Pass { .. })
        }),
        ("a dead ball", |g| g.clocks().phase == Phase::Dead),
        ("half time", |g| g.clocks().phase == Phase::Break),
        ("the end", Ntba::is_over),
    ];
    for (what, pick) in moments {
        let at = first(&states, 2_000.min(states.len() / 3), pick);
        plays_on(&states, &pads, at, what);
    }
    plays_on(&states, &pads, 0, "the start");
    plays_on(&states, &pads, states.len() / 2, "mid-match");
}

#[test]
fn a_state_saved_by_two_people_plays_on_exactly() {
    scenario(0x5a7e_0002, 2);
}

#[test]
fn a_state_saved_by_three_people_plays_on_exactly() {
    let seed = Lineup::alternating(3).expect("a line-up").seed(0x5a7e_0003);
    scenario(seed, 3);
}

#[test]
fn a_state_saved_by_four_people_plays_on_exactly() {
    let seed = Lineup::alternating(4).expect("a line-up").seed(0x5a7e_0004);
    scenario(seed, 4);
}

#[test]
fn every_state_of_random_pads_saves_and_loads() {
    for (seed, people) in [(11, 2), (12, 3), (13, 4)] {
        let (states, pads) = play(seed, people, true);
        for g in &states {
            round_trip(g);
        }
        plays_on(&states, &pads, states.len() / 3, "random pads");
    }
}
