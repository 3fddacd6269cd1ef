//! Rules tests: they set up exact situations inside the state, then play
//! them out through the public tick with pads.

use crate::consts::*;
use crate::math::{dist, Len, V2};
use crate::pad::Pad;
use crate::rng::Rng;
use crate::sim::{attack_hoop_in, team, BallMode, Ntba};
use crate::view::{Event, Phase};
use crate::view_lengths::units;
use lockstep::DeterministicGame;

/// One metre.
const M: Len = Len::ONE;

/// A fresh match with the ball held by `p` at `pos`, everyone else parked
/// far away at the other end, and the PRNG reseeded with `rng`.
fn holding(p: u8, pos: V2, rng: u64) -> Ntba {
    holding_in(0, p, pos, rng)
}

/// As [`holding`], in `period` (the ends depend on it): everyone else is
/// parked at the end `p`'s team defends.
fn holding_in(period: u8, p: u8, pos: V2, rng: u64) -> Ntba {
    let mut g = Ntba::new(1, 2);
    g.period = period;
    let far_x = if attack_hoop_in(period, team(p)).x > COURT_LENGTH / 2 {
        3 * M
    } else {
        COURT_LENGTH - 3 * M
    };
    for q in 0..4u8 {
        g.players[q as usize].pos = V2::new(far_x, M + i32::from(q) * 3 * M);
    }
    g.players[p as usize].pos = pos;
    g.give_ball(p);
    g.rng = Rng::new(rng);
    g
}

fn step_n(g: &mut Ntba, pads: [Pad; 2], n: u32) -> Vec<Event> {
    let mut ev = Vec::new();
    for _ in 0..n {
        g.step(&pads);
        ev.extend_from_slice(g.events());
    }
    ev
}

/// Holds shoot for `hold` ticks with team `side`, releases, and plays until
/// the shot is decided; returns every event.
fn shoot(g: &mut Ntba, side: u8, hold: u32) -> Vec<Event> {
    let mut pads = [Pad::NONE; 2];
    pads[side as usize] = Pad(Pad::SHOOT);
    let mut ev = step_n(g, pads, hold);
    ev.extend(step_n(g, [Pad::NONE; 2], 120));
    ev
}

/// The spot `metres_tenths` in front of the hoop `side` attacks in the
/// first half.
fn hoop_offset(side: u8, metres_tenths: i32) -> V2 {
    hoop_offset_in(0, side, metres_tenths)
}

/// The spot `metres_tenths` in front of the hoop `side` attacks in `period`.
fn hoop_offset_in(period: u8, side: u8, metres_tenths: i32) -> V2 {
    let h = attack_hoop_in(period, side);
    let into = if h.x > COURT_LENGTH / 2 { -1 } else { 1 };
    V2::new(h.x + into * metres_tenths * M / 10, h.y)
}

#[test]
fn shots_are_worth_two_inside_the_arc_and_three_beyond() {
    for (tenths, points) in [(30, 2u8), (60, 2), (80, 3), (70, 3)] {
        let mut made = false;
        for seed in 0..40 {
            let mut g = holding(0, hoop_offset(0, tenths), seed);
            let ev = shoot(&mut g, 0, u32::from(JUMP_APEX));
            let shot = ev.iter().find_map(|e| match e {
                Event::Shot { points, .. } => Some(*points),
                _ => None,
            });
            assert_eq!(shot, Some(points), "shot from {tenths} dm");
            if ev
                .iter()
                .any(|e| matches!(e, Event::Score { side: 0, points: p, .. } if *p == points))
            {
                assert_eq!(g.score(), [u16::from(points), 0]);
                made = true;
                break;
            }
            assert_eq!(g.score(), [0, 0]);
        }
        assert!(made, "no make from {tenths} dm in 40 tries");
    }
}

#[test]
fn success_falls_with_distance_defence_and_bad_timing() {
    let g = holding(0, hoop_offset(0, 30), 0);
    let near = g.shot_odds(0, 3 * M, JUMP_APEX);
    let far = g.shot_odds(0, 8 * M, JUMP_APEX);
    let late = g.shot_odds(0, 3 * M, JUMP_TICKS - 1);
    assert!(near > far, "{near} > {far}");
    assert!(near > late, "{near} > {late}");
    let mut d = g.clone();
    d.players[2].pos = d.players[0].pos + V2::new(M / 2 + PLAYER_RADIUS, Len::ZERO);
    let guarded = d.shot_odds(0, 3 * M, JUMP_APEX);
    assert!(guarded < near, "{guarded} < {near}");
    // Odds are what the PRNG rolls against: over many shots from the same
    // spot, some go in and some miss.
    let (mut makes, mut misses) = (0, 0);
    for seed in 0..60 {
        let mut g = holding(0, hoop_offset(0, 50), seed);
        let ev = shoot(&mut g, 0, u32::from(JUMP_APEX));
        if ev.iter().any(|e| matches!(e, Event::Score { .. })) {
            makes += 1;
        }
        if ev.iter().any(|e| matches!(e, Event::Miss { .. })) {
            misses += 1;
        }
    }
    assert!(makes > 5 && misses > 5, "makes {makes} misses {misses}");
}

#[test]
fn the_other_team_inbounds_after_a_score() {
    for seed in 0..40 {
        let mut g = holding(0, hoop_offset(0, 10), seed);
        // Jump, release on the apex, then play on tick by tick until the
        // next inbound (or give up on this seed after a miss).
        let mut pads = [Pad(Pad::SHOOT), Pad::NONE];
        let mut scored = false;
        let mut inbound = None;
        for t in 0..400u32 {
            if t == u32::from(JUMP_APEX) {
                pads = [Pad::NONE; 2];
            }
            g.step(&pads);
            for e in g.events() {
                match e {
                    Event::Score { side: 0, .. } => scored = true,
                    Event::Inbound { side, player } if scored => inbound = Some((*side, *player)),
                    _ => {}
                }
            }
            if inbound.is_some() || g.events().contains(&Event::Miss { player: 0 }) {
                break;
            }
        }
        let Some((side, player)) = inbound else {
            assert!(!scored, "seed {seed}: a basket and no inbound in 400 ticks");
            continue;
        };
        // On the inbound tick: Away has the ball in the inbounder's hands,
        // from the baseline under the hoop Home attacked (the right end),
        // with a full shot clock (Home had used some of its own).
        assert_eq!(side, 1);
        assert_eq!(g.possession(), Some(1));
        assert_eq!(g.ball().state, crate::BallState::Held(player));
        assert_eq!(team(player), 1);
        assert!(g.player(player).x > COURT_LENGTH - 3 * M);
        assert_eq!(g.clocks().phase, Phase::Play);
        assert_eq!(g.shot_clock, SHOT_CLOCK_TICKS);
        assert_eq!(g.clocks().shot_clock, Some(SHOT_CLOCK_TICKS));
        return;
    }
    panic!("no basket in 40 tries");
}

#[test]
fn shot_clock_violation_turns_the_ball_over() {
    let mut g = holding(0, V2::new(COURT_LENGTH / 2, HOOP_Y), 3);
    let mut ev = Vec::new();
    let mut ticks = 0u32;
    while !ev
        .iter()
        .any(|e| matches!(e, Event::ShotClockViolation { .. }))
    {
        // Keep the defenders from stealing: this test is about the clock.
        for q in 2..4 {
            g.players[q].steal_cd = 10;
        }
        g.step(&[Pad::NONE; 2]);
        ev.extend_from_slice(g.events());
        ticks += 1;
        assert!(
            ticks <= u32::from(SHOT_CLOCK_TICKS),
            "no violation after {ticks}"
        );
    }
    assert_eq!(ticks, u32::from(SHOT_CLOCK_TICKS));
    assert!(ev.contains(&Event::ShotClockViolation { side: 0 }));
    assert_eq!(g.clocks().phase, Phase::Dead);
    let ev = step_n(&mut g, [Pad::NONE; 2], u32::from(AFTER_TURNOVER_TICKS));
    assert!(ev
        .iter()
        .any(|e| matches!(e, Event::Inbound { side: 1, .. })));
    assert_eq!(g.possession(), Some(1));
    assert_eq!(g.shot_clock, SHOT_CLOCK_TICKS);
}

#[test]
fn game_clock_runs_only_in_play_and_halves_end() {
    let mut g = Ntba::new(5, 2);
    assert_eq!(g.clocks().game_clock, HALF_TICKS);
    let mut play_ticks = 0u32;
    let mut ended = None;
    for _ in 0..(HALF_TICKS * 2) {
        let before = g.phase;
        g.step(&[Pad::NONE; 2]);
        if before == Phase::Play {
            play_ticks += 1;
        }
        if let Some(Event::PeriodEnd { period }) = g
            .events()
            .iter()
            .find(|e| matches!(e, Event::PeriodEnd { .. }))
        {
            ended = Some(*period);
            break;
        }
        assert_eq!(g.clock, HALF_TICKS - play_ticks, "clock moved outside play");
    }
    assert_eq!(ended, Some(0));
    assert_eq!(play_ticks, HALF_TICKS);
    assert_eq!(g.phase, Phase::Break);
    step_n(&mut g, [Pad::NONE; 2], u32::from(BREAK_TICKS));
    assert_eq!(g.clocks().period, 1);
    assert_eq!(g.clocks().game_clock, HALF_TICKS);
    // The second half starts with the other team.
    assert_eq!(g.possession(), Some(1 - g.first_side));
}

#[test]
fn a_tie_goes_to_overtime_and_a_lead_ends_the_match() {
    let mut g = Ntba::new(5, 2);
    g.period = 1;
    g.clock = 3;
    g.score = [10, 10];
    let ev = step_n(&mut g, [Pad::NONE; 2], 3 + u32::from(BREAK_TICKS) + 1);
    assert!(ev.contains(&Event::PeriodEnd { period: 1 }));
    assert_eq!(g.clocks().period, 2, "overtime");
    assert!(!g.is_over());
    assert!(g.clocks().game_clock <= OVERTIME_TICKS && g.clocks().game_clock > OVERTIME_TICKS - 5);
    g.clock = 2;
    g.score = [12, 10];
    let ev = step_n(&mut g, [Pad::NONE; 2], 5);
    assert!(ev.contains(&Event::GameOver { winner: 0 }));
    assert!(g.is_over());
    assert_eq!(g.winner(), Some(0));
    // Nothing moves the score after the end.
    step_n(&mut g, [Pad(0x7f), Pad::ABSENT], 200);
    assert_eq!(g.score(), [12, 10]);
    assert!(g.is_over());
}

#[test]
fn from_the_third_overtime_the_next_basket_wins() {
    for seed in 0..40 {
        let mut g = holding_in(
            SUDDEN_DEATH_PERIOD,
            2,
            hoop_offset_in(SUDDEN_DEATH_PERIOD, 1, 10),
            seed,
        );
        g.score = [20, 20];
        g.clock = OVERTIME_TICKS;
        let ev = shoot(&mut g, 1, u32::from(JUMP_APEX));
        if ev.iter().any(|e| matches!(e, Event::Score { .. })) {
            assert!(ev.contains(&Event::GameOver { winner: 1 }));
            assert_eq!(g.winner(), Some(1));
            return;
        }
    }
    panic!("no basket in 40 tries");
}

#[test]
fn a_match_with_idle_pads_ends_with_a_winner() {
    // Nobody presses anything, nobody scores: the halves and every overtime
    // end 0-0, and the scoreless sudden-death period ends the match on the
    // tiebreak. The period never passes the sudden-death one.
    for seed in [1u64, 2, 3] {
        let mut g = Ntba::new(seed, 2);
        while !g.is_over() {
            g.step(&[Pad::NONE; 2]);
            assert!(g.clocks().period <= SUDDEN_DEATH_PERIOD);
            assert!(
                g.tick() < 30_000,
                "seed {seed}: still going at {:?}",
                g.clocks()
            );
        }
        assert_eq!(g.score(), [0, 0]);
        assert_eq!(g.clocks().period, SUDDEN_DEATH_PERIOD);
        assert!(g.winner().is_some());
    }
}

/// A tied match a few ticks before the end of the sudden-death period.
fn tied_at_the_last_buzzer(seed: u64) -> Ntba {
    let mut g = Ntba::new(seed, 2);
    g.period = SUDDEN_DEATH_PERIOD;
    g.clock = 3;
    g.score = [20, 20];
    g
}

#[test]
fn the_tiebreak_counts_made_shots_then_turnovers_then_a_coin() {
    // More shots made wins (fewer threes among them, for the same score).
    let mut g = tied_at_the_last_buzzer(5);
    g.stats[0].made = 9;
    g.stats[1].made = 10;
    g.stats[1].turnovers = 30;
    let ev = step_n(&mut g, [Pad::NONE; 2], 10);
    assert!(ev.contains(&Event::PeriodEnd {
        period: SUDDEN_DEATH_PERIOD
    }));
    assert!(ev.contains(&Event::GameOver { winner: 1 }), "{ev:?}");
    assert_eq!(g.winner(), Some(1));
    // Equal makes: fewer turnovers wins.
    let mut g = tied_at_the_last_buzzer(5);
    g.stats[0].made = 10;
    g.stats[1].made = 10;
    g.stats[0].turnovers = 7;
    g.stats[1].turnovers = 6;
    step_n(&mut g, [Pad::NONE; 2], 10);
    assert_eq!(g.winner(), Some(1));
    g = tied_at_the_last_buzzer(5);
    g.stats[0].turnovers = 5;
    g.stats[1].turnovers = 6;
    step_n(&mut g, [Pad::NONE; 2], 10);
    assert_eq!(g.winner(), Some(0));
    // All equal: the seeded coin, which lands both ways over a few seeds
    // and the same way for the same seed.
    let mut wins = [0; 2];
    for seed in 0..20 {
        let mut a = tied_at_the_last_buzzer(seed);
        let mut b = tied_at_the_last_buzzer(seed);
        step_n(&mut a, [Pad::NONE; 2], 10);
        step_n(&mut b, [Pad::NONE; 2], 10);
        let w = a.winner().expect("the coin decides");
        assert_eq!(b.winner(), Some(w));
        wins[w as usize] += 1;
    }
    assert!(wins[0] > 0 && wins[1] > 0, "{wins:?}");
}

#[test]
fn a_ball_leaving_the_court_goes_to_the_other_team() {
    let mut g = holding(0, V2::new(COURT_LENGTH / 2, M), 4);
    g.ball.mode = BallMode::Loose;
    g.ball.owner = 0;
    g.ball.pos = V2::new(COURT_LENGTH / 2, M / 2);
    g.ball.z = M;
    g.ball.vel = V2::new(Len::ZERO, -M / 10);
    g.ball.grab_cd = 30;
    g.possession = Some(0);
    let ev = step_n(&mut g, [Pad::NONE; 2], 20);
    assert!(ev.contains(&Event::OutOfBounds { side: 1 }), "{ev:?}");
    let ev = step_n(&mut g, [Pad::NONE; 2], u32::from(AFTER_TURNOVER_TICKS));
    let who = ev.iter().find_map(|e| match e {
        Event::Inbound { side: 1, player } => Some(*player),
        _ => None,
    });
    let who = who.expect("Away inbounds");
    // From the sideline where the ball went out.
    let p = g.players[who as usize].pos;
    assert_eq!(p.y, PLAYER_RADIUS);
    assert!((p.x - COURT_LENGTH / 2).abs() < M);
    assert_eq!(g.possession(), Some(1));
}

#[test]
fn steals_succeed_sometimes_and_only_within_reach() {
    let mut won = 0;
    for seed in 0..40 {
        let mut g = holding(0, V2::new(COURT_LENGTH / 2, HOOP_Y), seed);
        g.players[2].pos = g.players[0].pos + V2::new(M, Len::ZERO);
        g.controlled[1] = 0;
        let ev = step_n(&mut g, [Pad::NONE, Pad(Pad::ACTION)], 1);
        if ev
            .iter()
            .any(|e| matches!(e, Event::Steal { player: 2, from: 0 }))
        {
            won += 1;
            assert_eq!(g.possession(), Some(1));
            assert_eq!(g.ball().state, crate::BallState::Held(2));
            assert_eq!(g.controlled(1), 2);
        }
    }
    assert!(won > 3 && won < 37, "{won} steals of 40");
    for seed in 0..40 {
        let mut g = holding(0, V2::new(COURT_LENGTH / 2, HOOP_Y), seed);
        g.players[2].pos = g.players[0].pos + V2::new(2 * M, Len::ZERO);
        g.controlled[1] = 0;
        let ev = step_n(&mut g, [Pad::NONE, Pad(Pad::ACTION)], 1);
        assert!(!ev.iter().any(|e| matches!(e, Event::Steal { .. })));
    }
}

#[test]
fn a_jumping_defender_can_block_and_a_grounded_one_cannot() {
    let mut blocks = 0;
    for seed in 0..60 {
        let mut g = holding(0, hoop_offset(0, 50), seed);
        // The defender stands between the shooter and the hoop.
        g.players[2].pos = g.players[0].pos + V2::new(7 * M / 10, Len::ZERO);
        g.controlled[1] = 0;
        let mut ev = step_n(&mut g, [Pad(Pad::SHOOT), Pad(Pad::SHOOT)], 1);
        ev.extend(step_n(
            &mut g,
            [Pad(Pad::SHOOT), Pad::NONE],
            u32::from(JUMP_APEX) - 1,
        ));
        ev.extend(step_n(&mut g, [Pad::NONE; 2], 100));
        if ev.iter().any(|e| {
            matches!(
                e,
                Event::Block {
                    player: 2,
                    shooter: 0
                }
            )
        }) {
            blocks += 1;
            assert!(!ev.iter().any(|e| matches!(e, Event::Score { .. })));
        }
    }
    assert!(blocks > 0, "no block in 60 tries");
    for seed in 0..30 {
        let mut g = holding(0, hoop_offset(0, 50), seed);
        g.players[2].pos = g.players[0].pos + V2::new(7 * M / 10, Len::ZERO);
        g.controlled[1] = 0;
        let ev = shoot(&mut g, 0, u32::from(JUMP_APEX));
        assert!(!ev.iter().any(|e| matches!(e, Event::Block { .. })));
    }
}

#[test]
fn a_miss_comes_off_the_rim_and_is_rebounded() {
    let (mut misses, mut rebounds) = (0, 0);
    for seed in 0..40 {
        let mut g = holding(0, hoop_offset(0, 60), seed);
        // A team-mate and a defender wait near the hoop.
        g.players[1].pos = hoop_offset(0, 15) + V2::new(Len::ZERO, M);
        g.players[3].pos = hoop_offset(0, 15) + V2::new(Len::ZERO, -M);
        let ev = shoot(&mut g, 0, 3);
        if ev.iter().any(|e| matches!(e, Event::Miss { player: 0 })) {
            misses += 1;
            let mut ev = ev;
            ev.extend(step_n(&mut g, [Pad::NONE; 2], 300));
            let first = ev
                .iter()
                .find(|e| matches!(e, Event::Rebound { .. } | Event::OutOfBounds { .. }));
            if matches!(first, Some(Event::Rebound { off_rim: true, .. })) {
                rebounds += 1;
            }
        }
    }
    assert!(misses > 5, "{misses} misses");
    assert!(
        rebounds * 2 > misses,
        "{rebounds} rebounds of {misses} misses"
    );
}

#[test]
fn players_are_pinned_inside_the_court_and_never_overlap() {
    let mut g = Ntba::new(11, 2);
    // Everyone runs into the top-left corner with turbo for five seconds.
    for q in 0..4 {
        g.players[q].pos = V2::new(2 * M + q as i32 * M, 2 * M);
    }
    let pad = Pad(Pad::UP | Pad::LEFT | Pad::TURBO);
    for _ in 0..300 {
        g.step(&[pad, pad]);
        for a in 0..4u8 {
            let p = g.players[a as usize].pos;
            assert!(p.x >= PLAYER_RADIUS && p.x <= COURT_LENGTH - PLAYER_RADIUS);
            assert!(p.y >= PLAYER_RADIUS && p.y <= COURT_WIDTH - PLAYER_RADIUS);
            for b in (a + 1)..4 {
                let q = g.players[b as usize].pos;
                let d = dist(p, q);
                assert!(d >= 2 * PLAYER_RADIUS * 9 / 10, "{a} and {b} overlap: {d}");
            }
        }
    }
}

#[test]
fn a_pass_reaches_an_open_team_mate() {
    let mut g = holding(0, V2::new(COURT_LENGTH / 2, 4 * M), 8);
    g.players[1].pos = V2::new(COURT_LENGTH / 2 + 4 * M, 8 * M);
    let ev = step_n(&mut g, [Pad(Pad::ACTION), Pad::NONE], 1);
    assert!(ev.contains(&Event::Pass { from: 0, to: 1 }));
    assert_eq!(g.controlled(0), 1, "control follows the ball");
    step_n(&mut g, [Pad::NONE; 2], 40);
    assert_eq!(g.ball().state, crate::BallState::Held(1));
    assert_eq!(g.possession(), Some(0));
}

#[test]
fn switch_changes_the_controlled_defender_only_without_the_ball() {
    let mut g = holding(0, V2::new(COURT_LENGTH / 2, 4 * M), 8);
    let before = g.controlled(1);
    g.step(&[Pad(Pad::SWITCH), Pad(Pad::SWITCH)]);
    assert_eq!(g.controlled(0), 0, "the ball handler stays under control");
    assert_ne!(g.controlled(1), before);
    // A held button switches once, not every tick.
    g.step(&[Pad::NONE, Pad(Pad::SWITCH)]);
    assert_ne!(g.controlled(1), before);
}

#[test]
fn the_shot_event_reports_release_timing_and_dunks() {
    // The press starts the jump (jump tick 1); letting go after holding
    // for JUMP_APEX - 1 ticks releases on the apex tick.
    let mut g = holding(0, hoop_offset(0, 10), 1);
    let ev = shoot(&mut g, 0, u32::from(JUMP_APEX) - 1);
    let shot = ev.iter().find(|e| matches!(e, Event::Shot { .. }));
    assert_eq!(
        shot,
        Some(&Event::Shot {
            player: 0,
            points: 2,
            release: JUMP_APEX,
            dunk: true
        })
    );
    let mut g = holding(0, hoop_offset(0, 50), 1);
    let ev = shoot(&mut g, 0, 5);
    let shot = ev.iter().find(|e| matches!(e, Event::Shot { .. }));
    assert_eq!(
        shot,
        Some(&Event::Shot {
            player: 0,
            points: 2,
            release: 6,
            dunk: false
        })
    );
}

#[test]
fn a_ball_in_flight_at_the_buzzer_only_drops() {
    // A pass thrown on the last tick of a half: the ball goes dead where it
    // is and falls; it must not keep the steep first step of its flight.
    let mut g = holding(0, V2::new(COURT_LENGTH / 2, 4 * M), 8);
    g.players[1].pos = V2::new(COURT_LENGTH / 2 + M, 5 * M);
    g.clock = 1;
    let ev = step_n(&mut g, [Pad(Pad::ACTION), Pad::NONE], 1);
    assert!(ev.contains(&Event::PeriodEnd { period: 0 }), "{ev:?}");
    let top = g.ball().z;
    for _ in 0..200 {
        g.step(&[Pad::NONE; 2]);
        assert!(g.ball().z <= top, "the dead ball rose to {}", g.ball().z);
    }
}

#[test]
fn three_points_start_exactly_at_six_point_seven_five_metres() {
    // Feet exactly 6.75 m from the hoop (along the court's axis, so the
    // distance is exact): three points; one step (1/4096 m) closer: two.
    for (offset, points) in [
        (THREE_POINT_RADIUS, 3u8),
        (THREE_POINT_RADIUS - Len::DELTA, 2),
    ] {
        let h = attack_hoop_in(0, 0);
        let spot = V2::new(h.x - offset, h.y);
        assert_eq!(dist(spot, h), offset);
        let mut g = holding(0, spot, 1);
        let ev = shoot(&mut g, 0, u32::from(JUMP_APEX));
        let shot = ev.iter().find_map(|e| match e {
            Event::Shot { points, .. } => Some(*points),
            _ => None,
        });
        assert_eq!(shot, Some(points), "{offset} m from the hoop");
        assert_eq!(g.stats()[0].threes, u16::from(points == 3));
    }
}

#[test]
fn a_shot_in_the_air_at_the_buzzer_counts() {
    // Second half, Home one point down, the clock runs out while the shot
    // flies: if it goes in, the basket counts and wins the match.
    let mut makes = 0;
    for seed in 0..40 {
        let mut g = holding_in(1, 0, hoop_offset_in(1, 0, 40), seed);
        g.score = [10, 11];
        // The jump takes JUMP_APEX ticks of the clock; the flight (over 30
        // ticks from 4 m) outlasts the rest.
        g.clock = u32::from(JUMP_APEX) + 5;
        let mut pads = [Pad(Pad::SHOOT), Pad::NONE];
        let mut expired_in_flight = false;
        let mut ev = Vec::new();
        for t in 0..200u32 {
            if t == u32::from(JUMP_APEX) {
                pads = [Pad::NONE; 2];
            }
            g.step(&pads);
            if g.clock == 0 && matches!(g.ball().state, crate::BallState::Shot { .. }) {
                expired_in_flight = true;
                assert_eq!(
                    g.clocks().phase,
                    Phase::Play,
                    "play goes on until the shot lands"
                );
            }
            ev.extend_from_slice(g.events());
        }
        assert!(
            expired_in_flight,
            "seed {seed}: the clock did not expire mid-flight"
        );
        assert!(g.is_over());
        if ev.iter().any(|e| matches!(e, Event::Score { side: 0, .. })) {
            makes += 1;
            assert_eq!(g.score(), [12, 11]);
            assert_eq!(g.winner(), Some(0));
            let score_at = ev.iter().position(|e| matches!(e, Event::Score { .. }));
            let end_at = ev
                .iter()
                .position(|e| matches!(e, Event::PeriodEnd { period: 1 }));
            assert!(score_at < end_at, "{ev:?}");
        } else {
            assert_eq!(g.score(), [10, 11]);
            assert_eq!(g.winner(), Some(1));
        }
    }
    assert!(makes > 3, "{makes} buzzer beaters in 40");
}

#[test]
fn the_shot_clock_stops_during_a_shot_and_resets_on_a_rim_rebound() {
    let mut offensive = 0;
    for seed in 0..60 {
        let mut g = holding(0, hoop_offset(0, 60), seed);
        // Home's team-mate waits near the hoop; Away is far away.
        g.players[1].pos = hoop_offset(0, 15) + V2::new(Len::ZERO, M);
        let mut pads = [Pad(Pad::SHOOT), Pad::NONE];
        let mut at_release = None;
        for t in 0..400u32 {
            if t == u32::from(JUMP_APEX) {
                pads = [Pad::NONE; 2];
            }
            g.step(&pads);
            let in_flight = matches!(g.ball().state, crate::BallState::Shot { .. });
            if g.events().iter().any(|e| matches!(e, Event::Shot { .. })) {
                // Home used some of its shot clock dribbling and jumping.
                assert!(g.shot_clock < SHOT_CLOCK_TICKS);
                at_release = Some(g.shot_clock);
            } else if in_flight {
                assert_eq!(
                    Some(g.shot_clock),
                    at_release,
                    "the shot clock ran during a shot"
                );
            }
            if let Some(Event::Rebound { player, off_rim }) = g
                .events()
                .iter()
                .find(|e| matches!(e, Event::Rebound { .. }))
            {
                assert!(off_rim);
                // Reset when the ball was grabbed, then this tick's run of
                // the clocks took one tick off.
                assert_eq!(
                    g.shot_clock,
                    SHOT_CLOCK_TICKS - 1,
                    "seed {seed}: not reset on the rebound"
                );
                if team(*player) == 0 {
                    offensive += 1;
                }
                break;
            }
            if g.events().iter().any(|e| {
                matches!(
                    e,
                    Event::Score { .. } | Event::OutOfBounds { .. } | Event::Block { .. }
                )
            }) {
                break;
            }
        }
        assert!(at_release.is_some(), "seed {seed}: no shot");
    }
    // The reset matters most for the shooting team, which keeps possession.
    assert!(offensive > 3, "{offensive} offensive rebounds");
}

#[test]
fn a_defender_in_the_passing_lane_intercepts_sometimes() {
    let (mut picks, mut through) = (0, 0);
    for seed in 0..60 {
        let mut g = holding(0, V2::new(COURT_LENGTH / 2 - 4 * M, HOOP_Y), seed);
        g.players[1].pos = V2::new(COURT_LENGTH / 2 + 4 * M, HOOP_Y);
        // Away's controlled defender stands still in the middle of the lane.
        g.players[2].pos = V2::new(COURT_LENGTH / 2, HOOP_Y + M / 4);
        g.controlled[1] = 0;
        let mut ev = step_n(&mut g, [Pad(Pad::ACTION), Pad::NONE], 1);
        assert!(ev.contains(&Event::Pass { from: 0, to: 1 }));
        ev.extend(step_n(&mut g, [Pad::NONE; 2], 40));
        if ev.contains(&Event::Steal { player: 2, from: 0 }) {
            picks += 1;
            assert_eq!(g.possession(), Some(1));
            assert_eq!(g.ball().state, crate::BallState::Held(2));
            assert_eq!(g.stats()[1].steals, 1);
            assert_eq!(g.stats()[0].turnovers, 1);
        } else {
            through += 1;
            assert_eq!(
                g.ball().state,
                crate::BallState::Held(1),
                "seed {seed}: {ev:?}"
            );
            assert_eq!(g.possession(), Some(0));
        }
    }
    // One 30% roll per pass for the one defender in the lane.
    assert!(
        picks > 6 && through > 25,
        "{picks} interceptions, {through} completed"
    );
    // Out of the lane (2 m off the line), never.
    for seed in 0..30 {
        let mut g = holding(0, V2::new(COURT_LENGTH / 2 - 4 * M, HOOP_Y), seed);
        g.players[1].pos = V2::new(COURT_LENGTH / 2 + 4 * M, HOOP_Y);
        g.players[2].pos = V2::new(COURT_LENGTH / 2, HOOP_Y + 2 * M);
        g.controlled[1] = 0;
        let ev = step_n(&mut g, [Pad(Pad::ACTION), Pad::NONE], 41);
        assert!(
            !ev.iter().any(|e| matches!(e, Event::Steal { .. })),
            "{ev:?}"
        );
        assert_eq!(g.ball().state, crate::BallState::Held(1));
    }
}

#[test]
fn a_pass_nobody_catches_rolls_out_and_goes_to_the_other_team() {
    // A pass towards the top sideline; the receiver is taken away while it
    // flies, so it comes down loose, keeps going and leaves the court.
    let mut g = holding(0, V2::new(COURT_LENGTH / 2, 7 * M), 2);
    g.players[1].pos = V2::new(COURT_LENGTH / 2, M);
    let mut ev = step_n(&mut g, [Pad(Pad::ACTION), Pad::NONE], 1);
    assert!(ev.contains(&Event::Pass { from: 0, to: 1 }));
    g.players[1].pos = V2::new(COURT_LENGTH / 2 + 8 * M, 10 * M);
    let mut left_at = None;
    for _ in 0..120 {
        g.step(&[Pad::NONE; 2]);
        ev.extend_from_slice(g.events());
        if g.events().contains(&Event::OutOfBounds { side: 1 }) {
            left_at = Some(g.ball());
            break;
        }
    }
    let ball = left_at.unwrap_or_else(|| panic!("the pass never left the court: {ev:?}"));
    assert!(!ev
        .iter()
        .any(|e| matches!(e, Event::Rebound { .. } | Event::Steal { .. })));
    // It went out over the top sideline, near where it was thrown.
    assert_eq!(ball.y, 0);
    assert!((ball.x - units(COURT_LENGTH / 2)).abs() < units(2 * M));
    assert_eq!(g.stats()[0].turnovers, 1);
    let ev = step_n(&mut g, [Pad::NONE; 2], u32::from(AFTER_TURNOVER_TICKS));
    let who = ev.iter().find_map(|e| match e {
        Event::Inbound { side: 1, player } => Some(*player),
        _ => None,
    });
    let who = who.expect("Away inbounds");
    assert_eq!(g.player(who).y, units(PLAYER_RADIUS));
    assert_eq!(g.possession(), Some(1));
}

#[test]
fn teams_change_ends_at_half_time() {
    // Idle pads through the first half and the break: the first half's ends
    // hold until the second half starts, then each team attacks the other
    // hoop, and the overtimes keep the second half's ends.
    let mut g = Ntba::new(5, 2);
    let right = (units(HOOP_RIGHT_X), units(HOOP_Y));
    let left = (units(HOOP_LEFT_X), units(HOOP_Y));
    assert_eq!((g.attacked_hoop(0), g.attacked_hoop(1)), (right, left));
    assert!(g.attacks_right(0) && !g.attacks_right(1));
    while g.phase != Phase::Break {
        g.step(&[Pad::NONE; 2]);
    }
    assert_eq!(
        g.attacked_hoop(0),
        right,
        "the break still has the old ends"
    );
    assert_eq!(g.snapshot().attacked_hoop(0), right);
    while g.phase == Phase::Break {
        g.step(&[Pad::NONE; 2]);
    }
    assert_eq!(g.clocks().period, 1);
    assert_eq!((g.attacked_hoop(0), g.attacked_hoop(1)), (left, right));
    assert!(!g.attacks_right(0) && g.attacks_right(1));
    assert_eq!(g.snapshot().attacked_hoop(1), right);
    assert!(g.snapshot().attacks_right(1));
    // The second half's inbound: from the baseline behind the hoop the
    // inbounding team now defends, its team-mate further in towards the
    // hoop it now attacks, everyone facing their new attacked hoop.
    let side = g
        .possession()
        .expect("the second half starts with an inbound");
    let crate::BallState::Held(inbounder) = g.ball().state else {
        panic!("the inbounder holds the ball: {:?}", g.ball().state)
    };
    let (hx, _) = g.attacked_hoop(side);
    let baseline = if hx > units(COURT_LENGTH / 2) {
        0
    } else {
        units(COURT_LENGTH)
    };
    assert!((g.player(inbounder).x - baseline).abs() <= units(PLAYER_RADIUS + M / 10));
    let mate = g.player(inbounder ^ 1);
    assert!(
        (mate.x - baseline).abs() > units(3 * M),
        "the team-mate stands in"
    );
    for p in g.players() {
        let (fx, _) = p.facing_vector();
        let toward = g.attacked_hoop(p.side).0 - p.x;
        assert!(
            i64::from(fx) * i64::from(toward) > 0,
            "player {} faces away from the hoop it attacks",
            p.side * 2 + p.slot
        );
    }
    for period in 2..=SUDDEN_DEATH_PERIOD {
        g.period = period;
        assert_eq!((g.attacked_hoop(0), g.attacked_hoop(1)), (left, right));
    }
}

#[test]
fn a_second_half_basket_goes_in_the_other_hoop_for_the_shooters_team() {
    // In the second half Home scores in the left hoop and Away in the right
    // one; the basket counts for the shooter's team and the other team
    // inbounds from under the hoop scored on.
    for side in 0..2u8 {
        let shooter = side * 2;
        let mut scored = false;
        for seed in 0..40 {
            let mut g = holding_in(1, shooter, hoop_offset_in(1, side, 10), seed);
            g.clock = HALF_TICKS;
            let mut pads = [Pad::NONE; 2];
            pads[side as usize] = Pad(Pad::SHOOT);
            let mut inbound = None;
            for t in 0..400u32 {
                if t == u32::from(JUMP_APEX) {
                    pads = [Pad::NONE; 2];
                }
                g.step(&pads);
                for e in g.events() {
                    match *e {
                        Event::Shot { points, dunk, .. } => {
                            assert_eq!((points, dunk), (2, true), "a lay-up at the new hoop");
                        }
                        Event::Score {
                            side: s, points, ..
                        } => {
                            assert_eq!(s, side);
                            let mut want = [0, 0];
                            want[side as usize] = u16::from(points);
                            assert_eq!(g.score(), want);
                            // The ball drops through the hoop this team
                            // attacks in the second half.
                            let hoop = attack_hoop_in(1, side);
                            assert_eq!((g.ball.pos.x, g.ball.pos.y), (hoop.x, hoop.y));
                            assert_ne!(hoop, attack_hoop_in(0, side));
                            scored = true;
                        }
                        Event::Inbound { side: s, player } if scored => inbound = Some((s, player)),
                        _ => {}
                    }
                }
                if inbound.is_some() || g.events().contains(&Event::Miss { player: shooter }) {
                    break;
                }
            }
            if let Some((s, player)) = inbound {
                assert_eq!(s, 1 - side);
                let hoop = attack_hoop_in(1, side);
                assert!(
                    (g.players[player as usize].pos.x - hoop.x).abs() < 2 * M,
                    "inbound from under the hoop scored on"
                );
                break;
            }
            assert!(!scored, "a basket and no inbound");
        }
        assert!(scored, "side {side}: no second-half basket in 40 tries");
    }
}

#[test]
fn shot_distance_is_measured_to_the_hoop_attacked_in_the_period() {
    // Five metres in front of the left hoop: a two in the second half (Home
    // attacks it), a long three at the right hoop in the first.
    let spot = V2::new(HOOP_LEFT_X + 5 * M, HOOP_Y);
    for (period, points) in [(0u8, 3u8), (1, 2), (2, 2)] {
        let mut g = holding_in(period, 0, spot, 3);
        g.clock = OVERTIME_TICKS;
        let mut pads = [Pad(Pad::SHOOT), Pad::NONE];
        let mut shot = None;
        for t in 0..40u32 {
            if t == u32::from(JUMP_APEX) {
                pads = [Pad::NONE; 2];
            }
            g.step(&pads);
            if let Some(p) = g.events().iter().find_map(|e| match e {
                Event::Shot { points, .. } => Some(*points),
                _ => None,
            }) {
                shot = Some(p);
                // The ball flies at the hoop attacked in this period.
                let hoop = attack_hoop_in(period, 0);
                assert!(
                    dist(g.ball.to, hoop) <= RIM_RADIUS + M / 5,
                    "period {period}"
                );
                break;
            }
        }
        assert_eq!(shot, Some(points), "period {period}");
    }
}

#[test]
fn the_team_mate_ai_goes_to_the_hoop_attacked_in_the_period() {
    // Home holds the ball at mid-court; its team-mate (not under control)
    // runs to a spot around the hoop Home attacks: right in the first half,
    // left from the second.
    for period in [0u8, 1, 3] {
        let mut g = holding_in(period, 0, V2::new(COURT_LENGTH / 2, 2 * M), 4);
        g.players[1].pos = V2::new(COURT_LENGTH / 2, 11 * M);
        g.clock = OVERTIME_TICKS;
        step_n(&mut g, [Pad::NONE; 2], 150);
        let hx = attack_hoop_in(period, 0).x;
        let mate = g.players[1].pos;
        assert!(
            (mate.x - hx).abs() < 9 * M,
            "period {period}: the team-mate is at x {} m",
            mate.x
        );
    }
}
