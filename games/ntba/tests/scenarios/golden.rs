//! The golden hash (the build id) and the sensitivity of the state hash.

use lockstep::DeterministicGame;
use ntba::{
    combine, golden_hash, match_hash, people_hash, people_script_hash, play_golden_matches,
    play_people_script, rules_hash, script_hash, script_pad, Event, Ntba, Pad, GOLDEN_HASH,
    GOLDEN_SEED, GOLDEN_TICKS, MATCH_HASH, PEOPLE3_HASH, PEOPLE4_HASH, PEOPLE_HASH, RULES_HASH,
    SCRIPT_HASH, SUDDEN_DEATH_PERIOD,
};

#[test]
fn golden_hash_is_the_build_id() {
    let script = script_hash(GOLDEN_TICKS);
    let matches = match_hash();
    let rules = rules_hash();
    let people = people_hash();
    assert_eq!(
        (script, matches, rules, people),
        (SCRIPT_HASH, MATCH_HASH, RULES_HASH, PEOPLE_HASH),
        "simulation behaviour changed: SCRIPT_HASH is now {script:#018x}, MATCH_HASH \
         {matches:#018x}, RULES_HASH {rules:#018x}, PEOPLE_HASH {people:#018x}, GOLDEN_HASH \
         {:#018x}; if that is intended, update the five constants in their own commit \
         (peers on the old build will refuse to play)",
        combine(script, matches, rules, people)
    );
    assert_eq!(
        combine(SCRIPT_HASH, MATCH_HASH, RULES_HASH, PEOPLE_HASH),
        GOLDEN_HASH
    );
    assert_eq!(golden_hash(), GOLDEN_HASH);
    assert_eq!(<Ntba as DeterministicGame>::BUILD_ID, GOLDEN_HASH);
}

#[test]
fn the_people_hash_folds_the_three_and_the_four_person_scripts() {
    let three = people_script_hash(3, GOLDEN_TICKS);
    let four = people_script_hash(4, GOLDEN_TICKS);
    assert_eq!(
        (three, four),
        (PEOPLE3_HASH, PEOPLE4_HASH),
        "three- or four-person behaviour changed: PEOPLE3_HASH is now {three:#018x}, \
         PEOPLE4_HASH {four:#018x}; see golden_hash_is_the_build_id for the others"
    );
    let mut h = lockstep::Fnv1a::new();
    h.write_u64(PEOPLE3_HASH);
    h.write_u64(PEOPLE4_HASH);
    assert_eq!(h.finish(), PEOPLE_HASH);
    assert_ne!(three, four);
}

#[test]
fn every_constant_is_in_the_rules_hash() {
    // A tuning constant added to consts.rs must be hashed by rules_hash too.
    let consts = include_str!("../../src/consts.rs");
    let script = include_str!("../../src/script.rs");
    let body = &script[script
        .find("pub fn rules_hash")
        .expect("rules_hash is in script.rs")..];
    let body = &body[..body.find("\n}\n").expect("rules_hash ends")];
    let mut names = 0;
    for line in consts.lines() {
        let Some(rest) = line.strip_prefix("pub const ") else {
            continue;
        };
        let name = rest.split(':').next().unwrap_or_default().trim();
        names += 1;
        let listed = body
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .any(|w| w == name);
        assert!(listed, "{name} (consts.rs) is not hashed by rules_hash");
    }
    assert!(names >= 30, "found only {names} constants");
}

#[test]
fn the_golden_hash_folds_every_tick() {
    // A state that differs at one tick and converges again later must still
    // change the script hash: fold the same hashes with one of them changed.
    let mut g = Ntba::new(GOLDEN_SEED, 2);
    let mut hashes = Vec::new();
    for t in 0..GOLDEN_TICKS {
        g.step(&[script_pad(t, 0), script_pad(t, 1)]);
        hashes.push(g.state_hash());
    }
    let fold = |hs: &[u64]| {
        let mut h = lockstep::Fnv1a::new();
        for v in hs {
            h.write_u64(*v);
        }
        h.finish()
    };
    assert_eq!(fold(&hashes), SCRIPT_HASH);
    hashes[1_000] ^= 1;
    assert_ne!(fold(&hashes), SCRIPT_HASH);
    // And a shorter replay is a different value (the fold is not the last
    // state's hash).
    assert_ne!(script_hash(GOLDEN_TICKS - 1), SCRIPT_HASH);
}

#[test]
fn the_script_exercises_the_game() {
    // The golden replay is only worth something if the script makes things
    // happen: every rule a minute of play can reach.
    let mut g = Ntba::new(GOLDEN_SEED, 2);
    let mut n = std::collections::BTreeMap::<&str, u32>::new();
    for t in 0..GOLDEN_TICKS {
        g.step(&[script_pad(t, 0), script_pad(t, 1)]);
        for e in g.events() {
            let k = match e {
                Event::Shot { .. } => "shot",
                Event::Pass { .. } => "pass",
                Event::Inbound { .. } => "inbound",
                Event::Score { .. } => "basket",
                Event::Miss { .. } => "miss",
                Event::Rebound { .. } => "rebound",
                Event::Steal { .. } => "steal",
                Event::Block { .. } => "block",
                Event::OutOfBounds { .. } => "out of bounds",
                Event::ShotClockViolation { .. } => "shot-clock violation",
                _ => continue,
            };
            *n.entry(k).or_default() += 1;
        }
    }
    let count = |k: &str| n.get(k).copied().unwrap_or(0);
    for (k, min) in [
        ("shot", 5),
        ("pass", 5),
        ("inbound", 2),
        ("basket", 2),
        ("miss", 1),
        ("rebound", 1),
        ("steal", 1),
        ("block", 1),
        ("out of bounds", 1),
        ("shot-clock violation", 1),
    ] {
        assert!(
            count(k) >= min,
            "the script makes {} {k} events, wants at least {min}: {n:?}; \
             reshape ntba::script_pad",
            count(k)
        );
    }
}

#[test]
fn the_people_scripts_exercise_the_game() {
    // Three and four people: baskets, passes and shots by several court
    // players; with three the AI's court player (3) holds the ball and
    // shoots, with four nobody's court player is the AI's and all four
    // shoot.
    for people in [3u8, 4] {
        let mut shooters = [0u32; 4];
        let (mut baskets, mut passes, mut ai_holds) = (0, 0, 0);
        play_people_script(people, GOLDEN_TICKS, |g| {
            for e in g.events() {
                match e {
                    Event::Shot { player, .. } => shooters[usize::from(*player)] += 1,
                    Event::Score { .. } => baskets += 1,
                    Event::Pass { .. } => passes += 1,
                    _ => {}
                }
            }
            if g.players()
                .iter()
                .enumerate()
                .any(|(p, v)| v.has_ball && g.pad_slot(p as u8).is_none())
            {
                ai_holds += 1;
            }
            assert_eq!(g.people(), people);
        });
        assert!(
            baskets >= 2 && passes >= 3,
            "{people}: {baskets} baskets, {passes} passes"
        );
        assert!(
            shooters.iter().filter(|n| **n > 0).count() >= 2,
            "{people} people: shots by {shooters:?}"
        );
        if people == 3 {
            assert!(
                shooters[3] >= 1 && ai_holds > 60,
                "AI: {shooters:?}, {ai_holds}"
            );
        } else {
            assert_eq!(ai_holds, 0);
            assert!(shooters.iter().all(|n| *n > 0), "shots by {shooters:?}");
        }
    }
    // The two scripts differ from each other and from a shorter replay.
    assert_ne!(people_script_hash(3, 600), people_script_hash(4, 600));
    assert_ne!(people_script_hash(4, 599), people_script_hash(4, 600));
}

#[test]
fn the_golden_matches_reach_overtime_and_the_tiebreak() {
    // The CPU match goes to overtime and ends with a winner by score; the
    // idle match goes through every period, scoreless, and the tiebreak
    // decides it. Both end before the cap.
    let mut ends = Vec::new();
    let mut periods = Vec::new();
    play_golden_matches(|g| {
        for e in g.events() {
            match e {
                Event::PeriodEnd { period } => periods.push(*period),
                Event::GameOver { winner } => {
                    ends.push((*winner, g.score(), g.clocks().period));
                }
                _ => {}
            }
        }
    });
    assert_eq!(ends.len(), 2, "both golden matches end: {ends:?}");
    let (_, score, period) = ends[0];
    assert!(period >= 2, "the CPU match goes to overtime: {ends:?}");
    assert_ne!(score[0], score[1]);
    let (_, score, period) = ends[1];
    assert_eq!(score, [0, 0], "nobody scores with idle pads");
    assert_eq!(period, SUDDEN_DEATH_PERIOD);
    assert_eq!(
        periods
            .iter()
            .filter(|p| **p == SUDDEN_DEATH_PERIOD)
            .count(),
        1
    );
}

#[test]
fn a_changed_input_changes_the_hash_at_that_tick() {
    // Run the reference once, keeping the hash after every tick.
    let mut reference = Ntba::new(GOLDEN_SEED, 2);
    let mut hashes = Vec::new();
    for t in 0..GOLDEN_TICKS {
        reference.step(&[script_pad(t, 0), script_pad(t, 1)]);
        hashes.push(reference.state_hash());
    }
    // Flip one bit of one team's pad at a tick; the hash after exactly that
    // tick must differ (the state may converge again later, so compare here).
    for (tick, side, bit) in [
        (0u32, 0usize, 0u8),
        (1, 1, 3),
        (250, 0, 4),
        (777, 1, 5),
        (1800, 0, 7),
        (3599, 1, 6),
    ] {
        let mut g = Ntba::new(GOLDEN_SEED, 2);
        for t in 0..=tick {
            let mut pads = [script_pad(t, 0), script_pad(t, 1)];
            if t == tick {
                pads[side] = Pad(pads[side].0 ^ (1 << bit));
            }
            g.step(&pads);
            if t < tick {
                assert_eq!(g.state_hash(), hashes[t as usize]);
            }
        }
        assert_ne!(
            g.state_hash(),
            hashes[tick as usize],
            "flipping bit {bit} of side {side} at tick {tick} left the hash unchanged"
        );
    }
}

#[test]
fn different_seeds_give_different_matches() {
    let a = Ntba::new(1, 2).state_hash();
    let b = Ntba::new(2, 2).state_hash();
    assert_ne!(a, b);
    // Same seed, same state.
    assert_eq!(Ntba::new(1, 2).state_hash(), a);
}

#[test]
fn a_pad_is_one_byte_on_the_wire() {
    let bytes = postcard::to_allocvec(&Pad(0xa5)).expect("encodes");
    assert_eq!(bytes, vec![0xa5]);
    let back: Pad = postcard::from_bytes(&bytes).expect("decodes");
    assert_eq!(back, Pad(0xa5));
}

#[test]
fn missing_or_extra_inputs_do_not_panic() {
    let mut g = Ntba::new(3, 2);
    g.step(&[]);
    g.step(&[Pad(0xff)]);
    g.step(&[Pad(1), Pad(2), Pad(3)]);
    assert_eq!(g.tick(), 3);
}

#[test]
fn a_restored_state_continues_exactly_like_the_original() {
    // Save (clone) mid-match, play on, put the copy back, play the same
    // pads again: the same hashes tick by tick (what rollback and rejoin
    // will rely on).
    let mut g = Ntba::new(GOLDEN_SEED, 2);
    for t in 0..1_500 {
        g.step(&[script_pad(t, 0), script_pad(t, 1)]);
    }
    let saved = g.clone();
    let mut first = Vec::new();
    for t in 1_500..2_500 {
        g.step(&[script_pad(t, 0), script_pad(t, 1)]);
        first.push(g.state_hash());
    }
    g = saved;
    for (i, t) in (1_500..2_500).enumerate() {
        g.step(&[script_pad(t, 0), script_pad(t, 1)]);
        assert_eq!(g.state_hash(), first[i], "tick {t}");
    }
}
