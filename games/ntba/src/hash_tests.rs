//! The state hash covers every field: each field of the game, of every
//! player, of the ball and of both teams' statistics is changed in turn, and
//! each change must change `state_hash`.
//!
//! The structs are destructured below without `..`, so a field added to
//! `Ntba`, `Player`, `Ball` or `TeamStats` stops this file compiling until it
//! gets a line here (and, for the test to pass, a place in `hash_into`).

use crate::math::{Len, V2};
use crate::pad::Pad;
use crate::rng::Rng;
use crate::script::{people_script_pad, script_pad, GOLDEN_SEED, PEOPLE4_LINEUP};
use crate::sim::{Ball, BallMode, Ntba, Player};
use crate::view::{Action, Event, Phase, TeamStats};
use lockstep::DeterministicGame;

pub(crate) type Change = (String, Box<dyn Fn(&mut Ntba)>);
/// A team statistic's name and where it lives.
type StatField = (&'static str, fn(&mut TeamStats) -> &mut u16);

/// A mid-match state with one event recorded in the tick.
pub(crate) fn base() -> Ntba {
    let mut g = Ntba::new(GOLDEN_SEED, 2);
    for t in 0..1_234 {
        g.step(&[script_pad(t, 0), script_pad(t, 1)]);
    }
    g.events[0] = Event::Pass { from: 0, to: 1 };
    g.n_events = 1;
    g
}

fn other_phase(p: Phase) -> Phase {
    if p == Phase::Play {
        Phase::Dead
    } else {
        Phase::Play
    }
}

fn other_action(a: Action) -> Action {
    if a == Action::Idle {
        Action::Run
    } else {
        Action::Idle
    }
}

fn other_mode(m: BallMode) -> BallMode {
    if m == BallMode::Loose {
        BallMode::Held
    } else {
        BallMode::Loose
    }
}

fn other_side(s: Option<u8>) -> Option<u8> {
    match s {
        Some(0) => Some(1),
        _ => Some(0),
    }
}

fn nudge(v: V2, axis: u8) -> V2 {
    if axis == 0 {
        V2::new(v.x.wrapping_add(Len::DELTA), v.y)
    } else {
        V2::new(v.x, v.y.wrapping_add(Len::DELTA))
    }
}

pub(crate) fn changes() -> Vec<Change> {
    let mut c: Vec<Change> = Vec::new();
    let mut add = |name: String, f: Box<dyn Fn(&mut Ntba)>| c.push((name, f));

    let b = base();
    let Ntba {
        seed: _,
        rng: _,
        tick: _,
        players: _,
        ball: _,
        score: _,
        period: _,
        clock: _,
        shot_clock: _,
        possession: _,
        phase: _,
        phase_t: _,
        restart_side: _,
        restart_spot: _,
        first_side: _,
        controlled: _,
        people: _,
        slot_of: _,
        // Read from the seed and never changed: the seed's change covers it.
        length: _,
        prev_pad: _,
        winner: _,
        events: _,
        n_events: _,
        stats: _,
    } = &b;
    add("seed".into(), Box::new(|g| g.seed ^= 1));
    add(
        "rng".into(),
        Box::new(|g| g.rng = Rng::new(g.rng.state() ^ 1)),
    );
    add("tick".into(), Box::new(|g| g.tick = g.tick.wrapping_add(1)));
    for i in 0..2usize {
        add(
            format!("score[{i}]"),
            Box::new(move |g| g.score[i] = g.score[i].wrapping_add(1)),
        );
        add(
            format!("controlled[{i}]"),
            Box::new(move |g| g.controlled[i] ^= 1),
        );
        add(
            format!("prev_pad[{i}]"),
            Box::new(move |g| g.prev_pad[i] = Pad(g.prev_pad[i].0 ^ 0x40)),
        );
    }
    add(
        "people".into(),
        Box::new(|g| g.people = if g.people == 2 { 3 } else { 2 }),
    );
    add(
        "period".into(),
        Box::new(|g| g.period = g.period.wrapping_add(1)),
    );
    add(
        "clock".into(),
        Box::new(|g| g.clock = g.clock.wrapping_add(1)),
    );
    add(
        "shot_clock".into(),
        Box::new(|g| g.shot_clock = g.shot_clock.wrapping_add(1)),
    );
    add(
        "possession".into(),
        Box::new(|g| g.possession = other_side(g.possession)),
    );
    add(
        "possession (none)".into(),
        Box::new(|g| g.possession = None),
    );
    add("phase".into(), Box::new(|g| g.phase = other_phase(g.phase)));
    add(
        "phase_t".into(),
        Box::new(|g| g.phase_t = g.phase_t.wrapping_add(1)),
    );
    add("restart_side".into(), Box::new(|g| g.restart_side ^= 1));
    for axis in 0..2u8 {
        add(
            format!("restart_spot axis {axis}"),
            Box::new(move |g| g.restart_spot = nudge(g.restart_spot, axis)),
        );
    }
    add("first_side".into(), Box::new(|g| g.first_side ^= 1));
    add(
        "winner".into(),
        Box::new(|g| g.winner = other_side(g.winner)),
    );
    add(
        "events[0]".into(),
        Box::new(|g| g.events[0] = Event::Pass { from: 2, to: 3 }),
    );
    add(
        "n_events".into(),
        Box::new(|g| {
            g.events[1] = Event::Miss { player: 0 };
            g.n_events = 2;
        }),
    );

    for p in 0..4usize {
        let Player {
            pos: _,
            vel: _,
            z: _,
            jump_t: _,
            shooting: _,
            facing: _,
            stamina: _,
            steal_cd: _,
            swipe_t: _,
            throw_t: _,
            action: _,
            anim: _,
        } = &b.players[p];
        for axis in 0..2u8 {
            add(
                format!("players[{p}].pos axis {axis}"),
                Box::new(move |g| g.players[p].pos = nudge(g.players[p].pos, axis)),
            );
            add(
                format!("players[{p}].vel axis {axis}"),
                Box::new(move |g| g.players[p].vel = nudge(g.players[p].vel, axis)),
            );
        }
        add(
            format!("players[{p}].z"),
            Box::new(move |g| g.players[p].z += Len::DELTA),
        );
        add(
            format!("players[{p}].jump_t"),
            Box::new(move |g| g.players[p].jump_t ^= 1),
        );
        add(
            format!("players[{p}].shooting"),
            Box::new(move |g| g.players[p].shooting ^= true),
        );
        add(
            format!("players[{p}].facing"),
            Box::new(move |g| g.players[p].facing ^= 1),
        );
        add(
            format!("players[{p}].stamina"),
            Box::new(move |g| g.players[p].stamina ^= 1),
        );
        add(
            format!("players[{p}].steal_cd"),
            Box::new(move |g| g.players[p].steal_cd ^= 1),
        );
        add(
            format!("players[{p}].swipe_t"),
            Box::new(move |g| g.players[p].swipe_t ^= 1),
        );
        add(
            format!("players[{p}].throw_t"),
            Box::new(move |g| g.players[p].throw_t ^= 1),
        );
        add(
            format!("players[{p}].action"),
            Box::new(move |g| g.players[p].action = other_action(g.players[p].action)),
        );
        add(
            format!("players[{p}].anim"),
            Box::new(move |g| g.players[p].anim ^= 1),
        );
    }

    let Ball {
        mode: _,
        owner: _,
        receiver: _,
        pos: _,
        z: _,
        vel: _,
        vz: _,
        from: _,
        from_z: _,
        to: _,
        to_z: _,
        t: _,
        dur: _,
        arc: _,
        points: _,
        made: _,
        tried: _,
        rim: _,
        grab_cd: _,
    } = &b.ball;
    add(
        "ball.mode".into(),
        Box::new(|g| g.ball.mode = other_mode(g.ball.mode)),
    );
    add("ball.owner".into(), Box::new(|g| g.ball.owner ^= 1));
    add("ball.receiver".into(), Box::new(|g| g.ball.receiver ^= 1));
    for axis in 0..2u8 {
        add(
            format!("ball.pos axis {axis}"),
            Box::new(move |g| g.ball.pos = nudge(g.ball.pos, axis)),
        );
        add(
            format!("ball.vel axis {axis}"),
            Box::new(move |g| g.ball.vel = nudge(g.ball.vel, axis)),
        );
        add(
            format!("ball.from axis {axis}"),
            Box::new(move |g| g.ball.from = nudge(g.ball.from, axis)),
        );
        add(
            format!("ball.to axis {axis}"),
            Box::new(move |g| g.ball.to = nudge(g.ball.to, axis)),
        );
    }
    add("ball.z".into(), Box::new(|g| g.ball.z += Len::DELTA));
    add("ball.vz".into(), Box::new(|g| g.ball.vz += Len::DELTA));
    add(
        "ball.from_z".into(),
        Box::new(|g| g.ball.from_z += Len::DELTA),
    );
    add("ball.to_z".into(), Box::new(|g| g.ball.to_z += Len::DELTA));
    add("ball.t".into(), Box::new(|g| g.ball.t ^= 1));
    add("ball.dur".into(), Box::new(|g| g.ball.dur ^= 1));
    add("ball.arc".into(), Box::new(|g| g.ball.arc += Len::DELTA));
    add("ball.points".into(), Box::new(|g| g.ball.points ^= 1));
    add("ball.made".into(), Box::new(|g| g.ball.made ^= true));
    add("ball.tried".into(), Box::new(|g| g.ball.tried ^= 1));
    add("ball.rim".into(), Box::new(|g| g.ball.rim ^= true));
    add("ball.grab_cd".into(), Box::new(|g| g.ball.grab_cd ^= 1));

    for s in 0..2usize {
        let TeamStats {
            shots: _,
            made: _,
            threes: _,
            threes_made: _,
            steals: _,
            blocks: _,
            rebounds: _,
            offensive_rebounds: _,
            turnovers: _,
        } = &b.stats[s];
        let fields: [StatField; 9] = [
            ("shots", |t| &mut t.shots),
            ("made", |t| &mut t.made),
            ("threes", |t| &mut t.threes),
            ("threes_made", |t| &mut t.threes_made),
            ("steals", |t| &mut t.steals),
            ("blocks", |t| &mut t.blocks),
            ("rebounds", |t| &mut t.rebounds),
            ("offensive_rebounds", |t| &mut t.offensive_rebounds),
            ("turnovers", |t| &mut t.turnovers),
        ];
        for (name, field) in fields {
            add(
                format!("stats[{s}].{name}"),
                Box::new(move |g| *field(&mut g.stats[s]) ^= 1),
            );
        }
    }
    c
}

/// A mid-match state for four people on the teams of the golden script.
pub(crate) fn people_base() -> Ntba {
    let mut g = Ntba::new(PEOPLE4_LINEUP.seed(GOLDEN_SEED), 4);
    let sides = [0u8, 1, 1, 0];
    for t in 0..1_234 {
        let pads: Vec<Pad> = (0..4u8)
            .map(|s| people_script_pad(t, s, sides[s as usize]))
            .collect();
        g.step(&pads);
    }
    g.events[0] = Event::Pass { from: 0, to: 1 };
    g.n_events = 1;
    g
}

/// The fields only three or four people use (two people leave them alone,
/// so they are hashed only then).
pub(crate) fn people_changes() -> Vec<Change> {
    let mut c: Vec<Change> = Vec::new();
    for i in 0..4usize {
        c.push((
            format!("slot_of[{i}]"),
            Box::new(move |g: &mut Ntba| g.slot_of[i] ^= 1),
        ));
    }
    for i in 0..4usize {
        c.push((
            format!("prev_pad[{i}]"),
            Box::new(move |g: &mut Ntba| g.prev_pad[i] = Pad(g.prev_pad[i].0 ^ 0x40)),
        ));
    }
    c
}

fn assert_every_change_changes_the_hash(b: &Ntba, all: &[Change]) {
    let h = b.state_hash();
    for (name, change) in all {
        let mut g = b.clone();
        change(&mut g);
        assert_ne!(&g, b, "changing {name} changed nothing (fix the test)");
        assert_ne!(
            g.state_hash(),
            h,
            "changing {name} leaves state_hash unchanged"
        );
    }
}

#[test]
fn every_field_changes_the_state_hash() {
    let all = changes();
    assert!(all.len() > 100, "{} changes", all.len());
    assert_every_change_changes_the_hash(&base(), &all);
}

#[test]
fn every_field_changes_the_state_hash_with_four_people() {
    let b = people_base();
    assert_eq!(b.people, 4);
    assert_every_change_changes_the_hash(&b, &changes());
    assert_every_change_changes_the_hash(&b, &people_changes());
}

#[test]
fn events_past_the_tick_s_count_are_not_state() {
    // Slots beyond `n_events` are leftovers that nothing reads: they are
    // rightly outside the hash.
    let b = base();
    let mut g = b.clone();
    g.events[5] = Event::Miss { player: 3 };
    assert_eq!(g.state_hash(), b.state_hash());
}
