//! `dots`: the smallest useful [`DeterministicGame`].
//!
//! Every player steers a dot on a 32 × 18 grid whose edges wrap around. One
//! coin sits on the grid; the first dot to reach it scores a point and the
//! coin jumps to a new cell picked by the game's seeded PRNG. An input is one
//! byte of direction bits ([`UP`], [`DOWN`], [`LEFT`], [`RIGHT`]); a dot moves
//! one cell per tick along each pressed axis.
//!
//! It exists to show what a game needs for netplay (integer state, one seeded
//! PRNG, a hash over canonical bytes, a pinned build id) and to give the
//! examples, the benchmarks and `docs/writing-a-game.md` something real to
//! run. The game code is the part between the two `---` comments, well under
//! 60 lines; the optional named parts a desync reports come after it.
//!
//! ```
//! use dots::{Dots, RIGHT, DOWN};
//! use lockstep::DeterministicGame;
//!
//! let mut game = Dots::new(7, 2);
//! game.step(&[RIGHT, DOWN | RIGHT]);
//! assert_eq!(game.players()[0].x, 1);
//! // Same seed and inputs: same hash, on every machine.
//! let mut again = Dots::new(7, 2);
//! again.step(&[RIGHT, DOWN | RIGHT]);
//! assert_eq!(game.state_hash(), again.state_hash());
//! ```
#![warn(missing_docs)]

use lockstep::{DeterministicGame, Fnv1a, StatePart};

// --- game code ---

/// Grid width in cells.
pub const WIDTH: u8 = 32;
/// Grid height in cells.
pub const HEIGHT: u8 = 18;
/// Input bit: move up.
pub const UP: u8 = 1;
/// Input bit: move down.
pub const DOWN: u8 = 2;
/// Input bit: move left.
pub const LEFT: u8 = 4;
/// Input bit: move right.
pub const RIGHT: u8 = 8;

/// One player's dot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Player {
    /// Column, `0..WIDTH`.
    pub x: u8,
    /// Row, `0..HEIGHT`.
    pub y: u8,
    /// Coins collected.
    pub score: u32,
}

/// The whole game state: integers only, so it is exactly reproducible.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dots {
    rng: u64,
    players: Vec<Player>,
}

impl Dots {
    /// The coin's cell `(x, y)`, read from the state of the game's one PRNG.
    pub fn coin(&self) -> (u8, u8) {
        let r = self.rng >> 32;
        ((r % 32) as u8, (r / 32 % 18) as u8)
    }
}

/// One step along an axis of `size` cells, wrapping at the edges.
fn wrap(v: u8, plus: bool, minus: bool, size: u8) -> u8 {
    (v + size + u8::from(plus) - u8::from(minus)) % size
}

impl DeterministicGame for Dots {
    type Input = u8;
    const BUILD_ID: u64 = 0xba19_58f8_3bef_3587;

    fn new(seed: u64, players: u8) -> Self {
        // Dots start spread along the middle row.
        let (n, y) = (u16::from(players.max(1)), HEIGHT / 2);
        let xs = (0..n).map(|i| (i * u16::from(WIDTH) / n) as u8);
        let players = xs.map(|x| Player { x, y, score: 0 }).collect();
        Dots { rng: seed, players }
    }

    fn step(&mut self, inputs: &[u8]) {
        for (p, &pad) in self.players.iter_mut().zip(inputs) {
            p.x = wrap(p.x, pad & RIGHT != 0, pad & LEFT != 0, WIDTH);
            p.y = wrap(p.y, pad & DOWN != 0, pad & UP != 0, HEIGHT);
        }
        // The lowest-numbered player on the coin takes it.
        let coin = self.coin();
        if let Some(p) = self.players.iter_mut().find(|p| (p.x, p.y) == coin) {
            p.score += 1;
            // The PRNG, a 64-bit linear congruential generator (Knuth's MMIX
            // constants), moves on: the coin jumps to a new cell.
            self.rng = self.rng.wrapping_mul(6_364_136_223_846_793_005);
            self.rng = self.rng.wrapping_add(1_442_695_040_888_963_407);
        }
    }

    fn state_hash(&self) -> u64 {
        // Every field, in a fixed order, at explicit widths.
        let mut h = Fnv1a::new();
        h.write_u64(self.rng);
        for p in &self.players {
            h.write_bytes(&[p.x, p.y]);
            h.write_u32(p.score);
        }
        h.finish()
    }

    // --- end of game code ---
    // Optional extras, beyond what netplay needs:

    /// Named parts let a desync say what diverged ([`Dots::parts`]).
    fn state_parts(&self) -> Vec<StatePart> {
        self.parts()
    }

    /// A player coming back gets the state instead of the whole match to
    /// replay ([`Dots::to_bytes`]).
    fn save(&self) -> Option<Vec<u8>> {
        Some(self.to_bytes())
    }

    fn load(bytes: &[u8]) -> Option<Self> {
        Dots::from_bytes(bytes)
    }

    /// A race for coins among three or four is still a race while one dot
    /// stands still: the others play on while a dropped player's place
    /// is held (its dot waits where it was until the player is back). A
    /// duel waits instead: one dot alone would collect every coin.
    fn plays_on_while_held(players: u8) -> bool {
        players >= 3
    }

    /// For the same reason, a player who left for good ends the match
    /// only when one dot would be left to play.
    fn plays_on_after_leave(remaining: u8) -> bool {
        remaining >= 2
    }
}

/// The most dots a saved state holds (the engine's most players).
const MAX_SAVED_DOTS: usize = 8;

impl Dots {
    /// The state as bytes: the PRNG (8 bytes, little-endian), the number
    /// of dots (one byte), then each dot's column and row (one byte each)
    /// and score (4 bytes, little-endian).
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(9 + 6 * self.players.len());
        out.extend_from_slice(&self.rng.to_le_bytes());
        // Cannot truncate: `new` makes at most 255 dots.
        out.push(self.players.len() as u8);
        for p in &self.players {
            out.extend_from_slice(&[p.x, p.y]);
            out.extend_from_slice(&p.score.to_le_bytes());
        }
        out
    }

    /// Reads [`to_bytes`](Self::to_bytes)'s layout back, strictly: `None`
    /// unless the bytes are exactly one state of 1 to 8 dots, each on the
    /// grid.
    #[must_use]
    pub fn from_bytes(bytes: &[u8]) -> Option<Self> {
        let (rng, rest) = bytes.split_first_chunk::<8>()?;
        let (&count, mut rest) = rest.split_first()?;
        let count = usize::from(count);
        if !(1..=MAX_SAVED_DOTS).contains(&count) || rest.len() != 6 * count {
            return None;
        }
        let mut players = Vec::with_capacity(count);
        while let Some((dot, more)) = rest.split_first_chunk::<6>() {
            let [x, y, s0, s1, s2, s3] = *dot;
            if x >= WIDTH || y >= HEIGHT {
                return None;
            }
            let score = u32::from_le_bytes([s0, s1, s2, s3]);
            players.push(Player { x, y, score });
            rest = more;
        }
        Some(Dots {
            rng: u64::from_le_bytes(*rng),
            players,
        })
    }
}

/// The names of the first eight players' dots, as a desync names them.
pub const PLAYER_NAMES: [&str; 8] = [
    "player 1", "player 2", "player 3", "player 4", "player 5", "player 6", "player 7", "player 8",
];

impl Dots {
    /// The state's named parts, hashed like `state_hash` (what
    /// [`DeterministicGame::state_parts`] gives the engine, so that a
    /// desync says what diverged): "the coin", then "player 1" … "player
    /// 8" (dots past the eighth are not named).
    #[must_use]
    pub fn parts(&self) -> Vec<StatePart> {
        let coin = StatePart::hashed("the coin", |h| h.write_u64(self.rng));
        let dots = self.players.iter().zip(PLAYER_NAMES).map(|(p, name)| {
            StatePart::hashed(name, |h| {
                h.write_bytes(&[p.x, p.y]);
                h.write_u32(p.score);
            })
        });
        core::iter::once(coin).chain(dots).collect()
    }

    /// Every player's dot, in player order.
    #[must_use]
    pub fn players(&self) -> &[Player] {
        &self.players
    }
}

/// Number of ticks in the golden script.
pub const GOLDEN_TICKS: u32 = 3600;
/// Seed of the golden script.
pub const GOLDEN_SEED: u64 = 0xD075;

/// A fixed, reproducible input for `player` at `tick`: a bot that keeps a
/// direction for a while, then turns. The golden script uses it, and the
/// examples use it as their players' pads.
#[must_use]
pub fn scripted_input(tick: u32, player: u8) -> u8 {
    let phase = (tick / 23 + u32::from(player) * 5) % 8;
    [
        UP,
        UP | RIGHT,
        RIGHT,
        DOWN | RIGHT,
        DOWN,
        DOWN | LEFT,
        LEFT,
        0,
    ][phase as usize]
}

/// The hash after replaying the golden script: two players, seed
/// [`GOLDEN_SEED`], [`scripted_input`] for [`GOLDEN_TICKS`] ticks.
/// [`Dots::BUILD_ID`](DeterministicGame::BUILD_ID) pins it.
#[must_use]
pub fn golden_hash() -> u64 {
    let mut game = Dots::new(GOLDEN_SEED, 2);
    for tick in 0..GOLDEN_TICKS {
        game.step(&[scripted_input(tick, 0), scripted_input(tick, 1)]);
    }
    game.state_hash()
}

#[cfg(test)]
mod tests {
    use super::*;
    use lockstep::parts::differing_parts;

    /// A saved state loads to the same state; anything else is refused.
    #[test]
    fn a_saved_state_loads_exactly_and_strictly() {
        let mut g = Dots::new(GOLDEN_SEED, 3);
        for tick in 0..700 {
            g.step(&[0, 1, 2].map(|p| scripted_input(tick, p)));
        }
        let bytes = g.save().expect("dots saves its state");
        assert_eq!(bytes.len(), 9 + 3 * 6);
        let back = Dots::load(&bytes).expect("its own bytes load");
        assert_eq!(back, g);
        assert_eq!(back.state_hash(), g.state_hash());
        let mut longer = bytes.clone();
        longer.push(0);
        let mut off_grid = bytes.clone();
        off_grid[9] = WIDTH;
        let mut none = bytes[..9].to_vec();
        none.push(0);
        let mut nine = bytes[..8].to_vec();
        nine.push(9);
        nine.extend(core::iter::repeat_n(0, 9 * 6));
        for bad in [
            &bytes[..bytes.len() - 1],
            &longer,
            &off_grid,
            &none,
            &nine,
            &[][..],
        ] {
            assert_eq!(Dots::load(bad), None, "{bad:?}");
        }
    }

    /// A changed field of one part names that part, and only it.
    #[test]
    fn a_desync_in_each_part_is_named() {
        let mut base = Dots::new(GOLDEN_SEED, 3);
        for tick in 0..500 {
            base.step(&[0, 1, 2].map(|p| scripted_input(tick, p)));
        }
        let before = base.state_parts();
        let names: Vec<&str> = before.iter().map(|p| p.name).collect();
        assert_eq!(names, ["the coin", "player 1", "player 2", "player 3"]);
        type Change = (&'static str, fn(&mut Dots));
        let changes: [Change; 4] = [
            ("the coin", |g| g.rng ^= 1),
            ("player 1", |g| g.players[0].x ^= 1),
            ("player 2", |g| g.players[1].score += 1),
            ("player 3", |g| g.players[2].y ^= 1),
        ];
        for (part, change) in changes {
            let mut g = base.clone();
            change(&mut g);
            assert_ne!(g.state_hash(), base.state_hash(), "{part}");
            let after: Vec<u64> = g.state_parts().iter().map(|p| p.hash).collect();
            assert_eq!(differing_parts(&before, &after), vec![part]);
        }
    }
}
