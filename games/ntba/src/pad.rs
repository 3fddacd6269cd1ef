//! The pad: one byte per pad slot (a team, or with three or four people a
//! court player) per tick.

use serde::{Deserialize, Serialize};

/// One pad slot's controls for one tick (a team's with two people, one
/// court player's with three or four), one bit per button.
///
/// | bit | mask   | constant        | meaning |
/// | --- | ------ | --------------- | ------- |
/// | 0   | `0x01` | [`Pad::UP`]     | move up the screen (towards y = 0) |
/// | 1   | `0x02` | [`Pad::DOWN`]   | move down the screen (towards y = court width) |
/// | 2   | `0x04` | [`Pad::LEFT`]   | move left on the screen (towards x = 0, the left hoop) |
/// | 3   | `0x08` | [`Pad::RIGHT`]  | move right on the screen (towards x = court length, the right hoop) |
/// | 4   | `0x10` | [`Pad::SHOOT`]  | hold to jump, release to shoot (without the ball: jump to block or rebound; with three or four people, while an AI team-mate holds the ball: tell it to shoot) |
/// | 5   | `0x20` | [`Pad::ACTION`] | on offence pass to the team-mate (with three or four people, while an AI team-mate holds the ball: call for it); on defence swipe for a steal (on the press) |
/// | 6   | `0x40` | [`Pad::TURBO`]  | run faster while stamina lasts |
/// | 7   | `0x80` | [`Pad::SWITCH`] | take control of the other player (on the press; not while your team holds the ball; nothing with three or four people) |
///
/// Directions are the screen's, whichever hoop a team attacks: teams change
/// ends at half time, so Home's "forward" is right in the first half and
/// left from the second (see [`Ntba::attacks_right`](crate::Ntba::attacks_right)).
/// Opposite directions pressed together cancel. [`Pad::default`] is nothing
/// pressed. On the wire it is one byte (serde sees a transparent `u8`).
///
/// One value is reserved: [`Pad::ABSENT`] (`0xFF`, every button with both
/// pairs of opposite directions) means "nobody drives this pad slot": the
/// engine plays it for a slot whose person is away or gone
/// (`DeterministicGame::absent_input`), and the simulation then lets the
/// built-in AI play that slot's court players for the tick. No person's
/// pad produces it: a front end clears opposite directions pressed
/// together ([`Pad::settled`]), which cancel anyway.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Pad(pub u8);

impl Pad {
    /// Up: towards y = 0.
    pub const UP: u8 = 0x01;
    /// Down: towards y = court width.
    pub const DOWN: u8 = 0x02;
    /// Left: towards x = 0.
    pub const LEFT: u8 = 0x04;
    /// Right: towards x = court length.
    pub const RIGHT: u8 = 0x08;
    /// Shoot / jump: hold to jump, release to shoot.
    pub const SHOOT: u8 = 0x10;
    /// Pass (offence) or steal (defence), acting on the press.
    pub const ACTION: u8 = 0x20;
    /// Turbo: faster running that drains stamina.
    pub const TURBO: u8 = 0x40;
    /// Switch the controlled player, acting on the press.
    pub const SWITCH: u8 = 0x80;

    /// Nothing pressed.
    pub const NONE: Pad = Pad(0);

    /// Nobody drives this pad slot: the built-in AI plays its court
    /// players this tick, exactly as it plays a court player no pad slot
    /// drives. Every bit set, so both pairs of opposite directions: a
    /// [`settled`](Self::settled) pad never is this.
    pub const ABSENT: Pad = Pad(0xFF);

    /// True when every bit of `mask` is pressed.
    #[must_use]
    pub const fn has(self, mask: u8) -> bool {
        self.0 & mask == mask
    }

    /// This pad with the bits of `mask` pressed too.
    #[must_use]
    pub const fn with(self, mask: u8) -> Pad {
        Pad(self.0 | mask)
    }

    /// This pad with each pair of opposite directions pressed together
    /// released (they cancel in the simulation anyway), the other buttons
    /// as they are. What a front end sends: never [`Pad::ABSENT`].
    #[must_use]
    pub const fn settled(self) -> Pad {
        let mut b = self.0;
        if b & Self::UP != 0 && b & Self::DOWN != 0 {
            b &= !(Self::UP | Self::DOWN);
        }
        if b & Self::LEFT != 0 && b & Self::RIGHT != 0 {
            b &= !(Self::LEFT | Self::RIGHT);
        }
        Pad(b)
    }

    /// Whether this is [`Pad::ABSENT`]: nobody drives the pad slot.
    #[must_use]
    pub const fn is_absent(self) -> bool {
        self.0 == Self::ABSENT.0
    }

    /// The direction pressed as (dx, dy), each -1, 0 or 1.
    #[must_use]
    pub const fn direction(self) -> (i32, i32) {
        let dx = (self.has(Self::RIGHT) as i32) - (self.has(Self::LEFT) as i32);
        let dy = (self.has(Self::DOWN) as i32) - (self.has(Self::UP) as i32);
        (dx, dy)
    }

    /// The direction bits for (dx, dy) (signs only).
    #[must_use]
    pub const fn from_direction(dx: i32, dy: i32) -> Pad {
        let mut b = 0;
        if dx > 0 {
            b |= Self::RIGHT;
        } else if dx < 0 {
            b |= Self::LEFT;
        }
        if dy > 0 {
            b |= Self::DOWN;
        } else if dy < 0 {
            b |= Self::UP;
        }
        Pad(b)
    }
}

impl From<u8> for Pad {
    fn from(b: u8) -> Self {
        Pad(b)
    }
}

impl From<Pad> for u8 {
    fn from(p: Pad) -> Self {
        p.0
    }
}

#[cfg(test)]
mod tests {
    use super::Pad;

    #[test]
    fn a_settled_pad_is_never_absent_and_moves_the_same_way() {
        for b in 0..=255u8 {
            let p = Pad(b).settled();
            assert!(!p.is_absent(), "{b:#04x}");
            assert_eq!(p.direction(), Pad(b).direction(), "{b:#04x}");
            assert_eq!(p.0 & 0xF0, b & 0xF0, "{b:#04x}: the buttons kept");
            assert_eq!(p.settled(), p);
        }
        assert!(Pad::ABSENT.is_absent() && !Pad::NONE.is_absent());
    }
}
