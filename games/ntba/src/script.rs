//! The replays behind the golden hash (the build id): a fixed synthetic
//! input script of one minute, and two whole matches that reach the rules a
//! minute never does (overtime, the sudden-death period and its tiebreak).
//!
//! Each replay folds the state hash of **every** tick into one FNV-1a value,
//! so a change that shows only in the middle of a replay (and converges
//! again by its end) still changes the result.

use crate::ai::Cpu;
use crate::consts::*;
use crate::lineup::Lineup;
use crate::math::{Len, V2};
use crate::pad::Pad;
use crate::sim::Ntba;
use crate::view_lengths::UNITS_PER_METER;
use lockstep::{DeterministicGame, Fnv1a};

/// Seed of the golden script replay.
pub const GOLDEN_SEED: u64 = 0x4e74_4241_2026;
/// Ticks in the golden script replay (one minute of play).
pub const GOLDEN_TICKS: u32 = 3_600;
/// Seed of the golden CPU-against-CPU match (chosen because it is tied after
/// the second half and goes to overtime, through two of them, crossing half
/// time and the change of ends on the way; a test checks that it still
/// does).
pub const MATCH_SEED: u64 = 60;
/// Seed of the golden idle match: nobody presses anything, nobody scores, so
/// it runs through every overtime and ends on the tiebreak.
pub const IDLE_SEED: u64 = 0x1d1e;
/// Most ticks either golden match may take; both end long before (a
/// match that did not would change the hash, and a test catches it).
pub const MATCH_TICK_CAP: u32 = 40_000;

/// Ticks of the script in which neither team shoots or passes, so that the
/// team holding the ball runs out its shot clock.
const STALL: core::ops::Range<u32> = 2_150..3_100;

/// The scripted pad of team `side` at tick `t`. Pure integer arithmetic on
/// `t` and `side`, the same everywhere, whatever the game does.
///
/// Each team mostly runs towards the hoop it attacks (a fifth of the time
/// back towards its own), drifting up or down in 20-tick stretches; holds
/// shoot for 19 ticks every 95 (a release on the apex of the jump when it
/// has the ball, a jump at whatever is in the air when it has not); presses
/// pass/steal every 105 ticks, turbo a third of the time and switch every
/// 131 ticks. From tick 2,150 to 3,100 nobody shoots or passes, long enough
/// for a shot-clock violation. Within [`GOLDEN_TICKS`] from [`GOLDEN_SEED`]
/// this gives baskets, misses and rebounds, passes, a steal, a block, balls
/// out of bounds and a shot-clock violation (`tests/scenarios/golden.rs` requires each
/// of them).
#[must_use]
pub fn script_pad(t: u32, side: u8) -> Pad {
    let s = u32::from(side & 1);
    let mut x = (u64::from(t / 20) << 1 | u64::from(s)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    x ^= x >> 29;
    // Home attacks the right hoop, Away the left one: the first half's
    // ends, the only half the script's minute reaches.
    let (forward, back) = if s == 0 {
        (Pad::RIGHT, Pad::LEFT)
    } else {
        (Pad::LEFT, Pad::RIGHT)
    };
    let drift = [0, Pad::UP, Pad::DOWN, 0][(x & 3) as usize];
    let mut b = drift | if (x >> 8) % 5 == 0 { back } else { forward };
    let stall = STALL.contains(&t);
    if !stall && (t + s * 37) % 95 < 19 {
        b |= Pad::SHOOT;
    }
    if !stall && (t + s * 13).is_multiple_of(105) {
        b |= Pad::ACTION;
    }
    if (t / 45 + s).is_multiple_of(3) {
        b |= Pad::TURBO;
    }
    if (t + s * 29).is_multiple_of(131) {
        b |= Pad::SWITCH;
    }
    Pad(b)
}

/// Replays the script for `ticks` ticks from [`GOLDEN_SEED`] and returns the
/// FNV-1a fold of the state hash after every tick. With [`GOLDEN_TICKS`]
/// this is [`SCRIPT_HASH`](crate::SCRIPT_HASH).
#[must_use]
pub fn script_hash(ticks: u32) -> u64 {
    let mut g = Ntba::new(GOLDEN_SEED, 2);
    let mut h = Fnv1a::new();
    for t in 0..ticks {
        g.step(&[script_pad(t, 0), script_pad(t, 1)]);
        h.write_u64(g.state_hash());
    }
    h.finish()
}

/// The line-up of the four-person golden script: slots 0 and 3 play for
/// Home, 1 and 2 for Away (`"HAAH"`: slot 3 drives player 1 and slot 1
/// player 2).
pub const PEOPLE4_LINEUP: Lineup = match Lineup::new(&[0, 1, 1, 0]) {
    Ok(lineup) => lineup,
    // Evaluated at compile time: a bad line-up here does not build.
    Err(_) => panic!("the four-person golden line-up is not a line-up"),
};

/// The scripted pad of pad slot `slot`, playing for `side`, in a match for
/// three or four people at tick `t`: [`script_pad`] of its team, shifted by
/// 17 ticks per slot so that team-mates do not press alike, and without
/// switch (which only matters with two people).
#[must_use]
pub fn people_script_pad(t: u32, slot: u8, side: u8) -> Pad {
    let p = script_pad(t.wrapping_add(u32::from(slot) * 17), side);
    Pad(p.0 & !Pad::SWITCH)
}

/// Replays the people script for `ticks` ticks with `people` people (3 or
/// 4) from [`GOLDEN_SEED`] and returns the fold of every tick's state hash.
/// Three people get the default line-up (slots 0 and 2 Home, slot 1 Away,
/// player 3 played by the AI), four the line-up [`PEOPLE4_LINEUP`].
#[must_use]
pub fn people_script_hash(people: u8, ticks: u32) -> u64 {
    let mut h = Fnv1a::new();
    play_people_script(people, ticks, |g| h.write_u64(g.state_hash()));
    h.finish()
}

/// Plays the people script (see [`people_script_hash`]) and calls `visit`
/// with the game after every tick.
pub fn play_people_script(people: u8, ticks: u32, mut visit: impl FnMut(&Ntba)) {
    let seed = if people == 4 {
        PEOPLE4_LINEUP.seed(GOLDEN_SEED)
    } else {
        GOLDEN_SEED
    };
    let mut g = Ntba::new(seed, people);
    let sides: Vec<u8> = (0..people)
        .map(|s| g.player_of_slot(s).map_or(0, |p| p / 2))
        .collect();
    let mut pads = vec![Pad::NONE; usize::from(people)];
    for t in 0..ticks {
        for (s, pad) in pads.iter_mut().enumerate() {
            *pad = people_script_pad(t, s as u8, sides[s]);
        }
        g.step(&pads);
        visit(&g);
    }
}

/// The three- and four-person scripts, each for [`GOLDEN_TICKS`]
/// ([`PEOPLE3_HASH`](crate::PEOPLE3_HASH) and
/// [`PEOPLE4_HASH`](crate::PEOPLE4_HASH)), folded together. This is
/// [`PEOPLE_HASH`](crate::PEOPLE_HASH).
#[must_use]
pub fn people_hash() -> u64 {
    let mut h = Fnv1a::new();
    h.write_u64(people_script_hash(3, GOLDEN_TICKS));
    h.write_u64(people_script_hash(4, GOLDEN_TICKS));
    h.finish()
}

/// Plays the two golden matches to their end (or [`MATCH_TICK_CAP`]):
/// CPU against CPU from [`MATCH_SEED`], then idle pads from [`IDLE_SEED`].
/// Calls `visit` with the game after every tick and returns the FNV-1a fold
/// of every tick's state hash, both matches in turn. This is
/// [`MATCH_HASH`](crate::MATCH_HASH).
///
/// The CPU players are outside the simulation, so a change to them changes
/// this hash too although the simulation is the same: the build id is then
/// changed more often than strictly needed, never less.
pub fn play_golden_matches(mut visit: impl FnMut(&Ntba)) -> u64 {
    let mut h = Fnv1a::new();
    let mut g = Ntba::new(MATCH_SEED, 2);
    let (mut home, mut away) = (Cpu::new(MATCH_SEED * 2 + 1), Cpu::new(MATCH_SEED * 2 + 2));
    while !g.is_over() && g.tick() < MATCH_TICK_CAP {
        let pads = [home.pad(&g, 0), away.pad(&g, 1)];
        g.step(&pads);
        h.write_u64(g.state_hash());
        visit(&g);
    }
    let mut g = Ntba::new(IDLE_SEED, 2);
    while !g.is_over() && g.tick() < MATCH_TICK_CAP {
        g.step(&[Pad::NONE; 2]);
        h.write_u64(g.state_hash());
        visit(&g);
    }
    h.finish()
}

/// [`play_golden_matches`] without a visitor.
#[must_use]
pub fn match_hash() -> u64 {
    play_golden_matches(|_| ())
}

/// A fingerprint of the rules' numbers: every constant of the crate (court,
/// clocks, speeds, reaches, the per-mille odds of steals, blocks and
/// interceptions) and the whole shot-odds table (distance 0 to 12 m in
/// 10 cm steps, every jump tick, a defender at four distances, on the ground
/// and in the air). This is [`RULES_HASH`](crate::RULES_HASH).
///
/// The replays catch changed logic wherever play reaches it, but a tuning
/// number can change behaviour too rarely for them to notice: odds of 200
/// per mille becoming 199 only matter on the rolls that land exactly on 199.
/// Those numbers are hashed here directly. A test checks that every
/// constant of `consts.rs` appears in this list.
#[must_use]
pub fn rules_hash() -> u64 {
    let mut h = Fnv1a::new();
    // Lengths as their fixed-point raw bits, after the number of steps in
    // a metre.
    h.write_i32(UNITS_PER_METER);
    for v in [
        COURT_LENGTH,
        COURT_WIDTH,
        HOOP_INSET,
        HOOP_LEFT_X,
        HOOP_RIGHT_X,
        HOOP_Y,
        RIM_HEIGHT,
        RIM_RADIUS,
        THREE_POINT_RADIUS,
        DUNK_RANGE,
        PLAYER_RADIUS,
        JUMP_HEIGHT,
        RUN_SPEED,
        TURBO_SPEED,
        DRIBBLE_SPEED,
        REACH,
        GRAB_RADIUS,
        STEAL_RADIUS,
        GRAVITY,
    ] {
        h.write_i32(v.to_bits());
    }
    for v in [
        TICKS_PER_SECOND,
        HALF_TICKS,
        OVERTIME_TICKS,
        STEAL_ODDS_STILL,
        STEAL_ODDS_MOVING,
        STEAL_ODDS_AIRBORNE,
        BLOCK_ODDS,
        INTERCEPT_ODDS,
    ] {
        h.write_u32(v);
    }
    for v in [
        SHOT_CLOCK_TICKS,
        AFTER_SCORE_TICKS,
        AFTER_TURNOVER_TICKS,
        BREAK_TICKS,
        STAMINA_MAX,
    ] {
        h.write_u16(v);
    }
    for v in [SUDDEN_DEATH_PERIOD, JUMP_TICKS, JUMP_APEX, STEAL_COOLDOWN] {
        h.write_u8(v);
    }
    // The shot-odds table: Home's player 0 shoots; Away's player 2 guards
    // at each distance, player 3 is far away.
    let mut g = Ntba::new(GOLDEN_SEED, 2);
    let m = Len::ONE;
    let me = V2::new(COURT_LENGTH / 2, COURT_WIDTH / 2);
    g.players[0].pos = me;
    g.players[3].pos = V2::new(m * 2, m * 2);
    for guard_tenths in [5, 12, 20, 30] {
        g.players[2].pos = V2::new(me.x + m * guard_tenths / 10, me.y);
        for jump in [0u8, 10] {
            g.players[2].jump_t = jump;
            for d_tenths in 0..=120 {
                for t in 0..=JUMP_TICKS {
                    h.write_u32(g.shot_odds(0, m * d_tenths / 10, t));
                }
            }
        }
    }
    h.finish()
}

/// The build id made of the four parts: FNV-1a over them, little endian,
/// in this order.
#[must_use]
pub fn combine(script: u64, matches: u64, rules: u64, people: u64) -> u64 {
    let mut h = Fnv1a::new();
    h.write_u64(script);
    h.write_u64(matches);
    h.write_u64(rules);
    h.write_u64(people);
    h.finish()
}

/// Replays everything and returns the golden hash:
/// `combine(script_hash(GOLDEN_TICKS), match_hash(), rules_hash(),
/// people_hash())`. It must equal [`GOLDEN_HASH`](crate::GOLDEN_HASH), the
/// build id.
#[must_use]
pub fn golden_hash() -> u64 {
    combine(
        script_hash(GOLDEN_TICKS),
        match_hash(),
        rules_hash(),
        people_hash(),
    )
}

/// Plays `ticks` ticks of the script from `seed`, starting a fresh match
/// every [`GOLDEN_TICKS`] ticks so that every tick is live play (a finished
/// match ticks much faster). Returns a hash of the last match. This is the
/// loop the native and wasm benchmarks time.
#[must_use]
pub fn script_run(seed: u64, ticks: u32) -> u64 {
    let mut g = Ntba::new(seed, 2);
    let mut acc = 0u64;
    for i in 0..ticks {
        let t = i % GOLDEN_TICKS;
        if t == 0 && i > 0 {
            acc ^= g.state_hash();
            g = Ntba::new(seed.wrapping_add(u64::from(i)), 2);
        }
        g.step(&[script_pad(t, 0), script_pad(t, 1)]);
    }
    acc ^ g.state_hash()
}
