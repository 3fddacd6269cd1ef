//! A small game for tests, never a page's: each player moves a dot on a
//! 16 x 9 grid, one step every sixth tick, and a match never ends. It
//! exists so the shell's own tests (and tests of crates built on it) can
//! drive screens, matches and replays without a real game. It is compiled
//! only into this crate's unit tests and under the feature `testing`, which
//! the crate's integration tests turn on (a dev-dependency of the crate on
//! itself) and no page does.

use crate::front_end::{FrontEnd, LocalOption, Painter};
use lockstep::{DeterministicGame, Fnv1a};

/// The test game's simulation: dot positions on a grid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestDots {
    /// (x, y) per player, in grid cells.
    pub dots: Vec<(u8, u8)>,
    /// Ticks simulated.
    pub tick: u32,
}

/// Grid width in cells.
pub const W: u8 = 16;
/// Grid height in cells.
pub const H: u8 = 9;

impl DeterministicGame for TestDots {
    /// Bits: 1 left, 2 right, 4 up, 8 down.
    type Input = u8;
    const BUILD_ID: u64 = 0xD075_0001;

    fn new(seed: u64, players: u8) -> Self {
        let dots = (0..players)
            .map(|p| ((seed as u8).wrapping_add(p * 5) % W, p * 2 % H))
            .collect();
        TestDots { dots, tick: 0 }
    }

    fn step(&mut self, inputs: &[u8]) {
        self.tick = self.tick.wrapping_add(1);
        if !self.tick.is_multiple_of(6) {
            return;
        }
        for (dot, &i) in self.dots.iter_mut().zip(inputs) {
            if i & 1 != 0 && dot.0 > 0 {
                dot.0 -= 1;
            }
            if i & 2 != 0 && dot.0 + 1 < W {
                dot.0 += 1;
            }
            if i & 4 != 0 && dot.1 > 0 {
                dot.1 -= 1;
            }
            if i & 8 != 0 && dot.1 + 1 < H {
                dot.1 += 1;
            }
        }
    }

    fn state_hash(&self) -> u64 {
        let mut h = Fnv1a::new();
        h.write_u32(self.tick);
        for &(x, y) in &self.dots {
            h.write_u8(x);
            h.write_u8(y);
        }
        h.finish()
    }
}

/// The test game's front end.
#[derive(Debug, Clone, Copy)]
pub struct TestDotsFrontEnd {
    /// Players in local play (the "Players" choice).
    players: u8,
}

impl Default for TestDotsFrontEnd {
    fn default() -> Self {
        TestDotsFrontEnd { players: 2 }
    }
}

/// Player 0's keys (left, right, up, down), then player 1's.
const KEYS: [[&str; 4]; 2] = [
    ["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown"],
    ["KeyA", "KeyD", "KeyW", "KeyS"],
];
/// What the dots are called, by side (their colours).
const SIDE_NAMES: [&str; 4] = ["Orange", "Teal", "Red", "Green"];

const COLOURS: [&str; 4] = ["#f4a261", "#2a9d8f", "#e76f51", "#8ab17d"];

impl FrontEnd for TestDotsFrontEnd {
    type Game = TestDots;

    fn name(&self) -> &'static str {
        "Test dots"
    }

    fn draw(&mut self, game: &TestDots, p: &mut dyn Painter) {
        let (w, h) = p.size();
        p.clear("#1d1d24");
        let cell = (w / f64::from(W)).min(h / f64::from(H));
        for (i, &(x, y)) in game.dots.iter().enumerate() {
            let cx = (f64::from(x) + 0.5) * cell;
            let cy = (f64::from(y) + 0.5) * cell;
            p.circle(cx, cy, cell * 0.4, COLOURS[i % COLOURS.len()]);
        }
        p.text(8.0, h - 8.0, &format!("tick {}", game.tick), "#cccccc");
    }

    fn input(&self, held: &[&str], player: u8) -> u8 {
        KEYS[usize::from(player.min(1))]
            .iter()
            .enumerate()
            .filter(|(_, k)| held.contains(k))
            .fold(0u8, |acc, (bit, _)| acc | (1 << bit))
    }

    fn local_options(&self) -> &'static [LocalOption] {
        &[LocalOption {
            label: "Players",
            choices: &["2", "1"],
        }]
    }

    fn start_local(&mut self, choices: &[usize]) {
        self.players = if choices.first() == Some(&1) { 1 } else { 2 };
    }

    fn local_players(&self) -> u8 {
        self.players
    }

    fn is_game_key(&self, code: &str) -> bool {
        KEYS.iter().flatten().any(|k| *k == code)
    }

    fn side_name(&self, side: u8) -> String {
        SIDE_NAMES[usize::from(side) % SIDE_NAMES.len()].to_owned()
    }

    /// The first person's pad stands for the arrows, the second's for
    /// W A S D.
    fn pad_key(&self, person: u8, button: crate::pad::Button) -> Option<&'static str> {
        use crate::pad::Button;
        let keys = KEYS[usize::from(person.min(1))];
        match button {
            Button::Left => Some(keys[0]),
            Button::Right => Some(keys[1]),
            Button::Up => Some(keys[2]),
            Button::Down => Some(keys[3]),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Recorder(Vec<String>);
    impl Painter for Recorder {
        fn size(&self) -> (f64, f64) {
            (320.0, 180.0)
        }
        fn clear(&mut self, c: &str) {
            self.0.push(format!("clear {c}"));
        }
        fn rect(&mut self, _: f64, _: f64, _: f64, _: f64, c: &str) {
            self.0.push(format!("rect {c}"));
        }
        fn circle(&mut self, x: f64, y: f64, _: f64, c: &str) {
            self.0.push(format!("circle {x} {y} {c}"));
        }
        fn text(&mut self, _: f64, _: f64, t: &str, _: &str) {
            self.0.push(format!("text {t}"));
        }
    }

    #[test]
    fn keys_map_to_inputs_and_dots_move_deterministically() {
        let mut fe = TestDotsFrontEnd::default();
        assert_eq!(fe.input(&["ArrowRight", "KeyW"], 0), 2);
        assert_eq!(fe.input(&["ArrowRight", "KeyW"], 1), 4);
        let mut a = TestDots::new(3, 2);
        let mut b = a.clone();
        for t in 0..120u8 {
            let inputs = [t % 16, (t / 3) % 16];
            a.step(&inputs);
            b.step(&inputs);
        }
        assert_eq!(a.state_hash(), b.state_hash());
        assert_eq!(a, b);
        let mut r = Recorder::default();
        fe.draw(&a, &mut r);
        assert_eq!(r.0.iter().filter(|s| s.starts_with("circle")).count(), 2);
        assert_eq!(r.0.last().unwrap(), "text tick 120");
        assert_eq!(fe.build_id(), TestDots::BUILD_ID);
    }

    #[test]
    fn the_players_choice_sets_the_local_player_count() {
        let mut fe = TestDotsFrontEnd::default();
        let game = TestDots::new(1, 2);
        assert_eq!(fe.local_inputs(&game, &["KeyA"]).len(), 2);
        fe.start_local(&[1]);
        assert_eq!(fe.local_players(), 1);
        assert_eq!(fe.local_inputs(&game, &["ArrowLeft"]), vec![1]);
        fe.start_local(&[]);
        assert_eq!(fe.local_players(), 2);
        assert!(fe.is_game_key("ArrowUp") && fe.is_game_key("KeyW"));
        assert!(!fe.is_game_key("KeyQ") && !fe.is_game_key("Space"));
        assert_eq!(fe.side_name(0), "Orange");
    }
}

/// [`TestDots`] in a match whose held slots play on (as NtBA's do): a
/// dropped player's slot is benched and plays the neutral input until
/// the player is back, and the others do not wait for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeldDots(pub TestDots);

impl DeterministicGame for HeldDots {
    type Input = u8;
    const BUILD_ID: u64 = 0xD075_0002;

    fn new(seed: u64, players: u8) -> Self {
        HeldDots(TestDots::new(seed, players))
    }

    fn step(&mut self, inputs: &[u8]) {
        self.0.step(inputs);
    }

    fn state_hash(&self) -> u64 {
        self.0.state_hash()
    }

    fn plays_on_while_held(players: u8) -> bool {
        players >= 2
    }
}

/// [`TestDots`] as a drop-in party game plays (the arcade's dots does
/// the same): with three players or more a dropped player's slot stands
/// still while it is held, and once it is gone for good the others play
/// on if at least two are left.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlaysOnDots(pub TestDots);

impl DeterministicGame for PlaysOnDots {
    type Input = u8;
    const BUILD_ID: u64 = 0xD075_0003;

    fn new(seed: u64, players: u8) -> Self {
        PlaysOnDots(TestDots::new(seed, players))
    }

    fn step(&mut self, inputs: &[u8]) {
        self.0.step(inputs);
    }

    fn state_hash(&self) -> u64 {
        self.0.state_hash()
    }

    fn plays_on_while_held(players: u8) -> bool {
        players >= 3
    }

    fn plays_on_after_leave(remaining: u8) -> bool {
        remaining >= 2
    }
}

impl AsRef<TestDots> for HeldDots {
    fn as_ref(&self) -> &TestDots {
        &self.0
    }
}

impl AsRef<TestDots> for PlaysOnDots {
    fn as_ref(&self) -> &TestDots {
        &self.0
    }
}
