//! A pad slot that plays `Pad::ABSENT` for a whole match (nobody is at
//! that pad): the built-in AI plays its court players, so that team runs,
//! shoots and scores against a CPU, no person is shown on them, and a
//! saved state taken while it lasts loads back and plays on exactly. With
//! two people the AI plays the whole team (ball handler and team-mate);
//! with three, the person's court player beside the AI's own, so both of
//! that team's players are the AI's. Several seeds, either team. The
//! CPUs on the other slots never send `Pad::ABSENT` themselves.

use lockstep::DeterministicGame;
use ntba::{Cpu, Event, Ntba, Pad, MATCH_TICK_CAP};

/// What the AI's team did in one match.
#[derive(Debug, Default)]
struct Played {
    moved: u32,
    shots: u32,
    baskets: u32,
}

/// Plays a whole match of `people` from `seed`, slot `absent` at
/// `Pad::ABSENT` and every other slot a CPU; checks on the way that no
/// person is shown on `team`'s court players and that a state saved
/// half-way plays on exactly as the match.
fn play(seed: u64, people: u8, absent: u8, team: u8) -> (Played, Ntba) {
    let mut g = Ntba::new(seed, people);
    let mut cpus: Vec<Cpu> = (0..u64::from(people))
        .map(|s| Cpu::new(seed * 7 + s))
        .collect();
    let mut played = Played::default();
    let mut copy: Option<(Ntba, Vec<Vec<Pad>>)> = None;
    let ai = [team * 2, team * 2 + 1];
    let mut last = ai.map(|p| g.player(p));
    while !g.is_over() && g.tick() < MATCH_TICK_CAP {
        let pads: Vec<Pad> = (0..people)
            .map(|s| {
                if s == absent {
                    Pad::ABSENT
                } else {
                    let pad = cpus[usize::from(s)].pad_for_slot(&g, s);
                    // The CPU, like a person's keys, never sends it.
                    assert!(
                        !pad.is_absent(),
                        "tick {}: the CPU sent Pad::ABSENT",
                        g.tick()
                    );
                    pad
                }
            })
            .collect();
        g.step(&pads);
        if let Some((_, later)) = copy.as_mut() {
            later.push(pads);
        } else if g.tick() == 3_000 {
            let loaded = Ntba::load(&g.save().expect("NtBA saves")).expect("loads back");
            assert_eq!(loaded.state_hash(), g.state_hash());
            copy = Some((loaded, Vec::new()));
        }
        let now = ai.map(|p| g.player(p));
        for (p, v) in ai.iter().zip(&now) {
            assert!(
                !v.controlled,
                "tick {}: player {p} shown as a person's",
                g.tick()
            );
            assert_eq!(g.pad_slot(*p), None);
        }
        if now.iter().zip(&last).any(|(a, b)| (a.x, a.y) != (b.x, b.y)) {
            played.moved += 1;
        }
        last = now;
        for e in g.events() {
            match *e {
                Event::Shot { player, .. } if player / 2 == team => played.shots += 1,
                Event::Score { player, .. } if player / 2 == team => played.baskets += 1,
                _ => {}
            }
        }
    }
    let (mut loaded, later) = copy.expect("the match ran past tick 3000");
    for pads in &later {
        loaded.step(pads);
    }
    assert_eq!(
        loaded.state_hash(),
        g.state_hash(),
        "the saved state plays on exactly"
    );
    (played, g)
}

#[test]
fn the_ai_plays_a_pad_slot_nobody_is_at() {
    for seed in [1u64, 2, 3] {
        // Two people: the slot's whole team.
        for absent in [0u8, 1] {
            let (p, g) = play(seed, 2, absent, absent);
            let what = format!("two people, seed {seed}, slot {absent} away");
            eprintln!("{what}: {p:?}, score {:?}", g.score());
            assert!(g.is_over(), "{what}: the match never ended");
            assert!(p.moved > g.tick() / 2, "{what}: moved on {} ticks", p.moved);
            assert!(p.shots >= 10, "{what}: {} shots", p.shots);
            assert!(p.baskets >= 5, "{what}: {} baskets", p.baskets);
        }
        // Three people on the default line-up (slots 0 and 2 Home, slot 1
        // Away beside the AI's court player 3): Away is all the AI's.
        let (p, g) = play(seed, 3, 1, 1);
        let what = format!("three people, seed {seed}, slot 1 away");
        eprintln!("{what}: {p:?}, score {:?}", g.score());
        assert!(g.is_over(), "{what}: the match never ended");
        assert!(p.shots >= 10, "{what}: {} shots", p.shots);
        assert!(p.baskets >= 5, "{what}: {} baskets", p.baskets);
    }
}
