//! The simulation's lengths in view units, for renderers.
//!
//! Inside the simulation a length is a fixed-point number of metres with 12
//! fractional bits (`fixed::types::I20F12`). A renderer gets the same value
//! as a plain `i32` of 1/4096 metre, the fixed-point number's raw bits, so
//! the conversion is exact: divide by [`UNITS_PER_METER`] for metres. The
//! views ([`PlayerView`](crate::PlayerView), [`BallView`](crate::BallView),
//! [`Ntba::attacked_hoop`](crate::Ntba::attacked_hoop)) use the same units.

use crate::consts;
use crate::math::Len;

/// A simulation length in view units (its raw bits).
pub(crate) const fn units(l: Len) -> i32 {
    l.to_bits()
}

/// View units per metre: 4096.
pub const UNITS_PER_METER: i32 = units(Len::ONE);
/// Court length (x, baseline to baseline): 24 m.
pub const COURT_LENGTH: i32 = units(consts::COURT_LENGTH);
/// Court width (y, sideline to sideline): 14 m.
pub const COURT_WIDTH: i32 = units(consts::COURT_WIDTH);
/// Distance from a baseline to the centre of its hoop: 1.6 m.
pub const HOOP_INSET: i32 = units(consts::HOOP_INSET);
/// x of the left hoop (Home defends it and Away attacks it in the first
/// half; the teams change ends at half time).
pub const HOOP_LEFT_X: i32 = units(consts::HOOP_LEFT_X);
/// x of the right hoop (Home attacks it and Away defends it in the first
/// half; the teams change ends at half time).
pub const HOOP_RIGHT_X: i32 = units(consts::HOOP_RIGHT_X);
/// y of both hoops (mid-court).
pub const HOOP_Y: i32 = units(consts::HOOP_Y);
/// Height of the rim: 3.05 m.
pub const RIM_HEIGHT: i32 = units(consts::RIM_HEIGHT);
/// Rim radius: 0.23 m.
pub const RIM_RADIUS: i32 = units(consts::RIM_RADIUS);
/// Shots whose shooter stands at least this far from the hoop score 3:
/// 6.75 m.
pub const THREE_POINT_RADIUS: i32 = units(consts::THREE_POINT_RADIUS);
/// Shots from closer than this are dunks or lay-ups: 1.8 m.
pub const DUNK_RANGE: i32 = units(consts::DUNK_RANGE);
/// Player body radius (bodies never overlap closer than twice this): 0.4 m.
pub const PLAYER_RADIUS: i32 = units(consts::PLAYER_RADIUS);
/// Height of a jump at its apex: 0.9 m.
pub const JUMP_HEIGHT: i32 = units(consts::JUMP_HEIGHT);
/// Running speed per tick: 5.4 m/s.
pub const RUN_SPEED: i32 = units(consts::RUN_SPEED);
/// Running speed per tick with turbo: 7.8 m/s.
pub const TURBO_SPEED: i32 = units(consts::TURBO_SPEED);
/// Speed per tick of a dribbling player.
pub const DRIBBLE_SPEED: i32 = units(consts::DRIBBLE_SPEED);
/// How far a player reaches above their feet: 2.5 m.
pub const REACH: i32 = units(consts::REACH);
/// Horizontal distance within which a player can grab a loose ball: 0.75 m.
pub const GRAB_RADIUS: i32 = units(consts::GRAB_RADIUS);
/// Horizontal distance within which a steal swipe reaches the ball
/// handler: 1.2 m.
pub const STEAL_RADIUS: i32 = units(consts::STEAL_RADIUS);
/// Gravity on a loose ball, per tick per tick (about 9.8 m/s²).
pub const GRAVITY: i32 = units(consts::GRAVITY);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn view_units_are_the_raw_bits() {
        assert_eq!(UNITS_PER_METER, 4096);
        assert_eq!(COURT_LENGTH, 24 * UNITS_PER_METER);
        assert_eq!(HOOP_Y, 7 * UNITS_PER_METER);
        assert_eq!(Len::from_bits(RIM_HEIGHT), consts::RIM_HEIGHT);
    }
}
