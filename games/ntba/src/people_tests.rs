//! Rules for three and four people: each pad slot drives one court player,
//! always the same; the AI plays the court player nobody drives; passing to
//! an AI team-mate lets it play on, and its team-mate's person can call for
//! the ball or for a shot.

use crate::consts::*;
use crate::lineup::{Lineup, LineupError};
use crate::math::{Len, V2};
use crate::pad::Pad;
use crate::sim::Ntba;
use crate::view::Event;
use lockstep::DeterministicGame;

/// `seed` carrying the line-up in which slot `i` plays for `teams[i]`.
fn seed_with_teams(seed: u64, teams: &[u8]) -> u64 {
    Lineup::new(teams).expect("a valid line-up").seed(seed)
}

/// One metre.
const M: Len = Len::ONE;

/// A match for `people` from `seed` with every court player standing still
/// at its own spot in the middle third of the court, away from each other,
/// and the ball held by `holder`.
fn spread(seed: u64, people: u8, holder: u8) -> Ntba {
    let mut g = Ntba::new(seed, people);
    for q in 0..4u8 {
        let x = COURT_LENGTH / 2 + (i32::from(q % 2) * 2 - 1) * 3 * M;
        let y = 2 * M + i32::from(q) * 3 * M;
        g.players[q as usize].pos = V2::new(x, y);
        g.players[q as usize].vel = V2::ZERO;
    }
    g.give_ball(holder);
    g
}

/// Steps with `pads` `n` times and returns every event.
fn step_n(g: &mut Ntba, pads: &[Pad], n: u32) -> Vec<Event> {
    let mut ev = Vec::new();
    for _ in 0..n {
        g.step(pads);
        ev.extend_from_slice(g.events());
    }
    ev
}

#[test]
fn the_seed_places_the_slots_on_their_teams() {
    // Slots 1 and 2 Home, 0 and 3 Away: Home's first slot drives player 0.
    let g = Ntba::new(seed_with_teams(9, &[1, 0, 0, 1]), 4);
    let map: Vec<_> = (0..4u8).map(|s| g.player_of_slot(s)).collect();
    assert_eq!(map, [Some(2), Some(0), Some(1), Some(3)]);
    for p in 0..4u8 {
        assert_eq!(g.player_of_slot(g.pad_slot(p).unwrap()), Some(p));
    }
    // Without the marker, or with three people on a team (a seed no
    // `Lineup` writes, which `Lineup::for_match` refuses), the slots
    // alternate Home, Away, Home; the AI plays the fourth court player.
    let crowded = (9 & !(0xff << 56)) | 0xa << 60 | 0b1000 << 56;
    assert_eq!(
        Lineup::for_match(crowded, 3),
        Err(LineupError::Crowded { side: 0 })
    );
    for seed in [9, crowded] {
        let g = Ntba::new(seed, 3);
        let map: Vec<_> = (0..4u8).map(|s| g.player_of_slot(s)).collect();
        assert_eq!(map, [Some(0), Some(2), Some(1), None]);
        assert_eq!(g.pad_slot(3), None);
        assert!(!g.player(3).controlled);
    }
    // Three people placed by the seed: two Away, one Home.
    let g = Ntba::new(seed_with_teams(9, &[1, 0, 1]), 3);
    let map: Vec<_> = (0..3u8).map(|s| g.player_of_slot(s)).collect();
    assert_eq!(map, [Some(2), Some(0), Some(3)]);
    assert_eq!(g.pad_slot(1), None, "Home's second player is the AI's");
    // The teams are only a line-up: the rest of the seed makes the match.
    let a = Ntba::new(seed_with_teams(9, &[1, 0, 1, 0]), 2);
    assert_eq!((a.people(), a.player_of_slot(0)), (2, Some(0)));
    assert_eq!(a.player_of_slot(2), None);
}

#[test]
fn a_pad_moves_only_its_own_court_player() {
    let seed = seed_with_teams(5, &[1, 0, 0, 1]);
    let still = {
        let mut g = spread(seed, 4, 0);
        step_n(&mut g, &[Pad::NONE; 4], 20);
        g
    };
    // With four people nobody is played by the AI: idle pads, idle court.
    for p in 0..4 {
        assert_eq!(still.players[p].vel, V2::ZERO, "player {p} moved alone");
    }
    for slot in 0..4u8 {
        let mut g = spread(seed, 4, 0);
        let own = g.player_of_slot(slot).unwrap();
        let mut pads = [Pad::NONE; 4];
        pads[slot as usize] = Pad(Pad::DOWN | Pad::RIGHT | Pad::SWITCH);
        step_n(&mut g, &pads, 20);
        for p in 0..4u8 {
            let moved = g.players[p as usize].pos != still.players[p as usize].pos;
            assert_eq!(moved, p == own, "slot {slot}: player {p} moved: {moved}");
        }
        // Switch does nothing with more than two people.
        assert_eq!(g.player_of_slot(slot), Some(own));
    }
}

#[test]
fn the_court_player_nobody_drives_is_played_by_the_ai() {
    // Three people: player 3 (Away) has no pad. Home holds the ball and
    // nobody presses anything; the AI takes player 3 to defend while the
    // person-driven players stand.
    let mut three = spread(4, 3, 0);
    let mut four = spread(4, 4, 0);
    let start = three.players[3].pos;
    step_n(&mut three, &[Pad::NONE; 3], 40);
    step_n(&mut four, &[Pad::NONE; 4], 40);
    assert_eq!(
        four.players[3].pos, start,
        "a person's idle court player stays"
    );
    assert_ne!(three.players[3].pos, start, "the AI moves its court player");
    // It guards the Home player its team-mate is not on, between that
    // player and the hoop Away defends.
    let hoop = three.defend_hoop(1);
    let man = three.players[1].pos;
    let guard = three.players[3].pos;
    assert!(
        crate::math::dist(guard, hoop) < crate::math::dist(man, hoop),
        "the AI defender is goal-side"
    );
    assert!(crate::math::dist(guard, man) < 3 * M);
    for p in 0..3 {
        assert_eq!(three.players[p].pos, four.players[p].pos);
    }
}

#[test]
fn a_pass_to_the_ai_team_mate_lets_it_play_on() {
    // Three people; Away's person (slot 1) drives player 2, the AI plays
    // player 3. Home's players stand still (their people press nothing).
    let mut g = spread(6, 3, 2);
    let ev = step_n(&mut g, &[Pad::NONE, Pad(Pad::ACTION), Pad::NONE], 1);
    assert!(ev.contains(&Event::Pass { from: 2, to: 3 }), "{ev:?}");
    let ev = step_n(&mut g, &[Pad::NONE; 3], 60);
    assert_eq!(g.holder(), Some(3), "{ev:?}");
    assert_eq!(g.player_of_slot(1), Some(2), "the person keeps its player");
    assert!(g.player(3).has_ball && !g.player(3).controlled);
    // The AI drives to the hoop and shoots on its own.
    let hoop = g.attack_hoop(1);
    let before = crate::math::dist(g.players[3].pos, hoop);
    let mut shot = None;
    for _ in 0..600 {
        g.step(&[Pad::NONE; 3]);
        if let Some(e) = g.events().iter().find(|e| matches!(e, Event::Shot { .. })) {
            shot = Some((*e, crate::math::dist(g.players[3].pos, hoop)));
            break;
        }
    }
    let (e, at) = shot.expect("the AI shoots within ten seconds");
    assert!(matches!(e, Event::Shot { player: 3, .. }), "{e:?}");
    assert!(
        at < before,
        "it shot from nearer the hoop ({at} < {before})"
    );
}

#[test]
fn a_person_calls_for_the_ball_or_a_shot_from_the_ai_team_mate() {
    // Player 3 (the AI's) holds the ball; Away's person presses pass: the
    // ball comes to the person's player 2, who does not swipe or jump.
    let mut g = spread(7, 3, 3);
    let ev = step_n(&mut g, &[Pad::NONE, Pad(Pad::ACTION), Pad::NONE], 1);
    assert!(ev.contains(&Event::Pass { from: 3, to: 2 }), "{ev:?}");
    step_n(&mut g, &[Pad::NONE; 3], 60);
    assert_eq!(g.holder(), Some(2));
    // Passed back, then the person presses shoot: the AI goes up to shoot
    // and the person's player stays on the ground.
    step_n(&mut g, &[Pad::NONE, Pad(Pad::ACTION), Pad::NONE], 1);
    step_n(&mut g, &[Pad::NONE; 3], 60);
    assert_eq!(g.holder(), Some(3));
    g.step(&[Pad::NONE, Pad(Pad::SHOOT), Pad::NONE]);
    assert!(g.players[3].shooting, "the AI goes up for the shot");
    assert_eq!(g.players[2].jump_t, 0, "the person's player stays down");
    let ev = step_n(&mut g, &[Pad::NONE, Pad(Pad::SHOOT), Pad::NONE], 30);
    assert!(
        ev.iter()
            .any(|e| matches!(e, Event::Shot { player: 3, release, .. } if *release <= JUMP_APEX)),
        "the AI lets go at the top of its jump: {ev:?}"
    );
}

#[test]
fn a_person_with_the_ball_plays_as_with_two() {
    // Four people: Home's slot 0 shoots with player 0 from under the hoop
    // like a team pad would; the other slots are not involved.
    let mut g = spread(8, 4, 0);
    let hoop = g.attack_hoop(0);
    let into = if hoop.x > COURT_LENGTH / 2 { -1 } else { 1 };
    g.players[0].pos = V2::new(hoop.x + into * M, hoop.y);
    let mut pads = [Pad::NONE; 4];
    pads[0] = Pad(Pad::SHOOT);
    let mut ev = step_n(&mut g, &pads, u32::from(JUMP_APEX));
    ev.extend(step_n(&mut g, &[Pad::NONE; 4], 120));
    assert!(
        ev.iter()
            .any(|e| matches!(e, Event::Shot { player: 0, .. })),
        "{ev:?}"
    );
    assert!(g.stats()[0].shots >= 1);
}

#[test]
fn a_bad_lineup_is_refused_with_its_reason() {
    assert_eq!(Lineup::new(&[0, 1]), Err(LineupError::People(2)));
    assert_eq!(Lineup::new(&[0, 1, 0, 1, 0]), Err(LineupError::People(5)));
    assert_eq!(
        Lineup::new(&[0, 2, 1]),
        Err(LineupError::Side { slot: 1, side: 2 })
    );
    assert_eq!(
        Lineup::new(&[1, 0, 1, 1]),
        Err(LineupError::Crowded { side: 1 })
    );
    assert_eq!(
        "HHH".parse::<Lineup>(),
        Err(LineupError::Crowded { side: 0 })
    );
    assert_eq!("HA".parse::<Lineup>(), Err(LineupError::People(2)));
    assert_eq!("".parse::<Lineup>(), Err(LineupError::People(0)));
    assert_eq!(
        "HAxA".parse::<Lineup>(),
        Err(LineupError::Letter { at: 2, found: 'x' })
    );
    // Counted in characters, not bytes: no slicing inside a character.
    assert_eq!(
        "HÄAH".parse::<Lineup>(),
        Err(LineupError::Letter { at: 1, found: 'Ä' })
    );
    assert_eq!(Lineup::alternating(5), Err(LineupError::People(5)));
    for players in [0u8, 1, 5, 8, 255] {
        assert_eq!(
            Lineup::for_match(1, players),
            Err(LineupError::Players(players))
        );
    }
    // Every reason reads as a sentence that names the problem.
    let said = LineupError::Crowded { side: 1 }.to_string();
    assert!(said.contains("Away") && said.contains("two"), "{said}");
    let said = LineupError::Letter { at: 2, found: 'x' }.to_string();
    assert!(
        said.contains("character 3") && said.contains("'x'"),
        "{said}"
    );
}

#[test]
fn a_lineup_goes_through_its_text_and_the_seed_unchanged() {
    // Every line-up there is: 3 or 4 people, every team bit pattern.
    let mut valid = 0;
    for people in [3u8, 4] {
        for bits in 0..1u8 << people {
            let teams: Vec<u8> = (0..people).map(|s| bits >> s & 1).collect();
            let Ok(lineup) = Lineup::new(&teams) else {
                continue;
            };
            valid += 1;
            let text = lineup.to_string();
            assert_eq!(text.parse::<Lineup>(), Ok(lineup), "{text}");
            assert_eq!(text.to_lowercase().parse::<Lineup>(), Ok(lineup));
            for seed in [0, 7, u64::MAX, 0x0123_4567_89ab_cdef] {
                let carried = lineup.seed(seed);
                assert_eq!(carried << 8, seed << 8, "the low 56 bits are kept");
                assert_eq!(Lineup::for_match(carried, people), Ok(Some(lineup)));
                assert_eq!(Lineup::for_match(carried, 2), Ok(None));
                // The game plays exactly the line-up: each slot its court
                // player on its team, the one left over by the AI.
                let g = Ntba::new(carried, people);
                for slot in 0..people {
                    let p = lineup.court_player(slot).expect("a slot of the line-up");
                    assert_eq!(p / 2, lineup.side(slot).expect("a side"), "{text}");
                    assert_eq!(g.player_of_slot(slot), Some(p), "{text} slot {slot}");
                    assert_eq!(lineup.slot_of(p), Some(slot));
                }
                let by_ai = (0..4u8).filter(|&p| g.pad_slot(p).is_none()).count();
                assert_eq!(by_ai, usize::from(4 - people), "{text}");
                assert_eq!(lineup.court_player(people), None);
            }
        }
    }
    // Four people: two on each team (6 ways); three: two and one (6 ways).
    assert_eq!(valid, 12);
    // A seed without a line-up is played with the default one.
    assert_eq!(
        Lineup::for_match(5, 3),
        Ok(Some("HAH".parse().expect("HAH")))
    );
    assert_eq!(Lineup::for_match(5, 4), Lineup::alternating(4).map(Some));
}

/// A short match (three or four people, the length in the seed) has halves
/// of thirty seconds and overtimes of fifteen, and an idle one is decided
/// within its periods; the same seed without the length plays the full
/// halves.
#[test]
fn a_short_match_plays_short_periods_to_its_end() {
    use crate::MatchLength;
    let lineup = seed_with_teams(0x5eed, &[0, 1, 1, 0]);
    let short = MatchLength::Short.seed(lineup);
    assert_eq!(Ntba::new(lineup, 4).clocks().game_clock, HALF_TICKS);
    let mut g = Ntba::new(short, 4);
    assert_eq!(g.length(), MatchLength::Short);
    // The clock each period starts with, and the tick the match ends.
    let mut starts = vec![g.clocks().game_clock];
    let mut period = g.clocks().period;
    let mut play_ticks = 0u32;
    let mut end = None;
    for tick in 1..=40_000u32 {
        let running = g.clocks().phase == crate::Phase::Play && g.clocks().game_clock > 0;
        g.step(&[Pad::NONE; 4]);
        if running {
            play_ticks += 1;
        }
        if g.clocks().period != period {
            period = g.clocks().period;
            starts.push(g.clocks().game_clock);
        }
        if g.winner().is_some() {
            end = Some(tick);
            break;
        }
    }
    let end = end.expect("the short match ends");
    let (half, ot) = (30 * TICKS_PER_SECOND, 15 * TICKS_PER_SECOND);
    assert_eq!(&starts[..2], [half, half]);
    assert!(starts[2..].iter().all(|&s| s == ot), "{starts:?}");
    // Every period ran its whole clock (an idle match scores nothing).
    let periods = u32::try_from(starts.len()).unwrap();
    assert_eq!(play_ticks, 2 * half + (periods - 2) * ot);
    // Shorter than one full half.
    assert!(end < HALF_TICKS * 2, "ended at tick {end}");
}
