//! Court geometry and tuning constants.
//!
//! Lengths are fixed-point metres ([`Len`]); times are in ticks (60 per
//! second); odds are per mille. Renderers read the lengths in view units
//! (`crate::view_lengths`).

use crate::math::{m, Len};

/// Simulation ticks per second.
pub const TICKS_PER_SECOND: u32 = 60;

/// Court length (x, baseline to baseline): 24 m.
pub const COURT_LENGTH: Len = m!(24);
/// Court width (y, sideline to sideline): 14 m.
pub const COURT_WIDTH: Len = m!(14);
/// Distance from a baseline to the centre of its hoop: 1.6 m.
pub const HOOP_INSET: Len = m!(1.6);
/// x of the left hoop (Home defends it and Away attacks it in the first
/// half; the teams change ends at half time).
pub const HOOP_LEFT_X: Len = HOOP_INSET;
/// x of the right hoop (Home attacks it and Away defends it in the first
/// half; the teams change ends at half time).
pub const HOOP_RIGHT_X: Len = COURT_LENGTH.strict_sub(HOOP_INSET);
/// y of both hoops (mid-court).
pub const HOOP_Y: Len = COURT_WIDTH.strict_div_int(2);
/// Height of the rim: 3.05 m.
pub const RIM_HEIGHT: Len = m!(3.05);
/// Rim radius (for drawing and for where misses bounce): 0.23 m.
pub const RIM_RADIUS: Len = m!(0.23);
/// Shots whose shooter stands at least this far from the hoop score 3: 6.75 m.
pub const THREE_POINT_RADIUS: Len = m!(6.75);
/// Shots from closer than this are dunks or lay-ups: 1.8 m.
pub const DUNK_RANGE: Len = m!(1.8);
/// Player body radius: players never overlap closer than twice this: 0.4 m.
pub const PLAYER_RADIUS: Len = m!(0.4);

/// Length of a half: two minutes.
pub const HALF_TICKS: u32 = 2 * 60 * TICKS_PER_SECOND;
/// Length of an overtime period: thirty seconds.
pub const OVERTIME_TICKS: u32 = 30 * TICKS_PER_SECOND;
/// The last period (the third overtime; periods count from 0): in it the
/// next basket wins, and if nobody scores the tiebreak decides (more shots
/// made, then fewer turnovers, then a coin from the game's PRNG). No match
/// goes beyond it.
pub const SUDDEN_DEATH_PERIOD: u8 = 4;
/// The shot clock: fourteen seconds to shoot.
pub const SHOT_CLOCK_TICKS: u16 = 14 * TICKS_PER_SECOND as u16;

/// Pause after a basket before the inbound.
pub const AFTER_SCORE_TICKS: u16 = 60;
/// Pause after a turnover (out of bounds, shot clock) before the inbound.
pub const AFTER_TURNOVER_TICKS: u16 = 40;
/// Pause between periods.
pub const BREAK_TICKS: u16 = 120;

/// Length of a jump in ticks; the apex is at half of it.
pub const JUMP_TICKS: u8 = 40;
/// The jump's apex tick, the perfect moment to release a shot.
pub const JUMP_APEX: u8 = JUMP_TICKS / 2;
/// Height of a jump at its apex: 0.9 m.
pub const JUMP_HEIGHT: Len = m!(0.9);

/// Running speed per tick: 5.4 m/s.
pub const RUN_SPEED: Len = m!(0.09);
/// Running speed with turbo: 7.8 m/s.
pub const TURBO_SPEED: Len = m!(0.13);
/// Speed of a dribbling player (a little slower).
pub const DRIBBLE_SPEED: Len = m!(0.085);
/// Full stamina: four seconds of turbo.
pub const STAMINA_MAX: u16 = 240;

/// How far a player reaches above their feet: 2.5 m.
pub const REACH: Len = m!(2.5);
/// Horizontal distance within which a player can grab a loose ball.
pub const GRAB_RADIUS: Len = m!(0.75);
/// Horizontal distance within which a steal swipe can reach the ball handler.
pub const STEAL_RADIUS: Len = m!(1.2);
/// Ticks between two steal swipes of one player.
pub const STEAL_COOLDOWN: u8 = 40;
/// Gravity on a loose ball, per tick per tick: 9.8 m/s² is 0.00272 m per
/// tick² at 60 ticks a second (11 steps of 1/4096 m).
pub const GRAVITY: Len = m!(0.00272);

/// Chance (per mille) that a steal swipe in reach strips a standing ball
/// handler.
pub const STEAL_ODDS_STILL: u32 = 300;
/// Chance (per mille) that a swipe strips a moving ball handler.
pub const STEAL_ODDS_MOVING: u32 = 200;
/// Chance (per mille) that a swipe strips a ball handler in the air.
pub const STEAL_ODDS_AIRBORNE: u32 = 80;
/// Chance (per mille) that a jumping defender in reach blocks a shot (one
/// roll per defender per shot).
pub const BLOCK_ODDS: u32 = 300;
/// Chance (per mille) that an opponent in the passing lane intercepts (one
/// roll per opponent per pass).
pub const INTERCEPT_ODDS: u32 = 300;
