//! `dots-web`: the [`dots`] example game in the browser.
//!
//! This is what a game author writes to put a `DeterministicGame` on the
//! page: one [`FrontEnd`] that draws the state, maps held keys to an input
//! and says when the game is over. The shell brings the rest (title,
//! lobby, chat, challenges, the match over WebRTC with rollback, the
//! result screen, replays). The rule that ends a match, first to
//! [`FIRST_TO`] coins, is read from the confirmed state, so both pages
//! agree on it without a message.
#![warn(missing_docs)]

use dots::{Dots, DOWN, HEIGHT, LEFT, RIGHT, UP, WIDTH};
use web_shell::front_end::{About, Align, FrontEnd, LocalOption, Painter};
use web_shell::pad::Button;
use web_shell::party::PartyRules;

/// Coins that win a match.
pub const FIRST_TO: u32 = 10;

/// Keys of the person on the left of a shared keyboard (up, down, left,
/// right), and of the person on the right. Online, either set steers.
const KEYS: [[&str; 4]; 2] = [
    ["KeyW", "KeyS", "KeyA", "KeyD"],
    ["ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight"],
];
/// The input bit of each key in a row of [`KEYS`].
const BITS: [u8; 4] = [UP, DOWN, LEFT, RIGHT];
/// Each side's colour and the name the page gives it.
const SIDES: [(&str, &str); 8] = [
    ("Orange", "#f4a261"),
    ("Teal", "#2a9d8f"),
    ("Red", "#e76f51"),
    ("Green", "#8ab17d"),
    ("Violet", "#9b72cf"),
    ("Sky", "#5fa8d3"),
    ("Rose", "#e07a9b"),
    ("Sand", "#c9b37e"),
];
const BACKGROUND: &str = "#15161c";
const GRID: &str = "#23252e";
const COIN: &str = "#ffd166";

const ABOUT: About = About {
    tagline: "Dots: race the other dots to the coin. First to ten wins.",
    controls: &[
        ("W A S D or arrow keys", "move (diagonals too)"),
        ("Local: W A S D and arrows", "one set each"),
    ],
    how_to_play: &[
        "A coin sits somewhere on the grid; the first dot to reach it scores.",
        "The grid wraps around: leave on one side, come back on the other.",
        "The first to ten coins wins the match.",
    ],
};

/// A party's rules: two to four people, no teams.
const PARTY: PartyRules = PartyRules {
    max_people: 4,
    sides: 0,
    per_side: 4,
    lengths: &[],
};

const OPPONENTS: &[LocalOption] = &[LocalOption {
    label: "Opponent",
    choices: &["CPU", "Second player"],
}];

/// The front end. Local play is against a CPU that heads for the coin, or
/// two people on one keyboard.
#[derive(Debug, Clone, Default)]
pub struct DotsFrontEnd {
    /// Player 1 is a second person, not the CPU.
    second_person: bool,
}

impl DotsFrontEnd {
    /// A front end that starts local play against the CPU.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }
}

/// The input that moves `(x, y)` one step nearer to `to` on the wrapping
/// grid, along both axes at once (the shorter way round; right and down
/// on a tie).
#[must_use]
pub fn towards(from: (u8, u8), to: (u8, u8)) -> u8 {
    fn axis(from: u8, to: u8, size: u8, plus: u8, minus: u8) -> u8 {
        let ahead = (to + size - from) % size;
        match ahead {
            0 => 0,
            a if a <= size / 2 => plus,
            _ => minus,
        }
    }
    axis(from.0, to.0, WIDTH, RIGHT, LEFT) | axis(from.1, to.1, HEIGHT, DOWN, UP)
}

fn keys_input(row: &[&str; 4], held: &[&str]) -> u8 {
    row.iter()
        .zip(BITS)
        .filter(|(k, _)| held.contains(k))
        .fold(0, |acc, (_, bit)| acc | bit)
}

fn side(i: usize) -> (&'static str, &'static str) {
    SIDES[i % SIDES.len()]
}

impl FrontEnd for DotsFrontEnd {
    type Game = Dots;

    fn name(&self) -> &'static str {
        "Dots"
    }

    fn about(&self) -> About {
        ABOUT
    }

    fn draw(&mut self, game: &Dots, p: &mut dyn Painter) {
        let (w, h) = p.size();
        p.clear(BACKGROUND);
        // The score band takes the top tenth; the grid fills the rest.
        let band = (h * 0.1).max(16.0);
        let cell = (w / f64::from(WIDTH)).min((h - band) / f64::from(HEIGHT));
        let left = (w - cell * f64::from(WIDTH)) / 2.0;
        let top = band;
        for x in 0..=WIDTH {
            let gx = left + f64::from(x) * cell;
            p.line(gx, top, gx, top + cell * f64::from(HEIGHT), 1.0, GRID);
        }
        for y in 0..=HEIGHT {
            let gy = top + f64::from(y) * cell;
            p.line(left, gy, left + cell * f64::from(WIDTH), gy, 1.0, GRID);
        }
        let centre = |(x, y): (u8, u8)| {
            (
                left + (f64::from(x) + 0.5) * cell,
                top + (f64::from(y) + 0.5) * cell,
            )
        };
        let (cx, cy) = centre(game.coin());
        p.circle(cx, cy, cell * 0.3, COIN);
        for (i, d) in game.players().iter().enumerate() {
            let (x, y) = centre((d.x, d.y));
            p.circle(x, y, cell * 0.42, side(i).1);
        }
        p.set_font(band * 0.55, true, Align::Center);
        let n = game.players().len().max(1) as f64;
        for (i, d) in game.players().iter().enumerate() {
            let (name, colour) = side(i);
            let x = w * (i as f64 + 0.5) / n;
            p.text(x, band * 0.72, &format!("{name} {}", d.score), colour);
        }
        p.set_font(band * 0.4, false, Align::Left);
    }

    fn input(&self, held: &[&str], player: u8) -> u8 {
        keys_input(&KEYS[usize::from(player.min(1))], held)
    }

    fn online_input(&mut self, held: &[&str]) -> u8 {
        keys_input(&KEYS[0], held) | keys_input(&KEYS[1], held)
    }

    fn is_game_key(&self, code: &str) -> bool {
        KEYS.iter().flatten().any(|k| *k == code)
    }

    /// The first pad plays the left keys, the second the arrows: the
    /// d-pad or stick moves the dot.
    fn pad_key(&self, person: u8, button: Button) -> Option<&'static str> {
        let row = &KEYS[usize::from(person.min(1))];
        let at = match button {
            Button::Up => 0,
            Button::Down => 1,
            Button::Left => 2,
            Button::Right => 3,
            _ => return None,
        };
        Some(row[at])
    }

    fn pad_controls(&self) -> &'static [(&'static str, &'static str)] {
        &[("Pad: d-pad or stick", "move")]
    }

    /// Up to four people in a party, each for themselves: every dot races
    /// every other.
    fn party(&self) -> PartyRules {
        PARTY
    }

    fn side_name(&self, side_no: u8) -> String {
        side(usize::from(side_no)).0.to_owned()
    }

    fn local_options(&self) -> &'static [LocalOption] {
        OPPONENTS
    }

    fn start_local(&mut self, choices: &[usize]) {
        self.second_person = choices.first() == Some(&1);
    }

    fn local_inputs(&mut self, game: &Dots, held: &[&str]) -> Vec<u8> {
        let cpu = || {
            let d = game.players()[1];
            towards((d.x, d.y), game.coin())
        };
        if self.second_person {
            vec![self.input(held, 0), self.input(held, 1)]
        } else {
            // Alone at the keyboard, either set of keys steers.
            vec![self.online_input(held), cpu()]
        }
    }

    /// Each dot's score and cell, then the coin's cell: what a test or
    /// tool needs to follow the game from the page's `data-summary`.
    fn summary(&self, game: &Dots) -> Option<String> {
        let mut parts: Vec<String> = game
            .players()
            .iter()
            .enumerate()
            .map(|(i, d)| format!("{} {} @{},{}", side(i).0, d.score, d.x, d.y))
            .collect();
        let (cx, cy) = game.coin();
        parts.push(format!("coin {cx},{cy}"));
        Some(parts.join(" · "))
    }

    fn score(&self, game: &Dots) -> Option<String> {
        let scores: Vec<String> = game
            .players()
            .iter()
            .enumerate()
            .map(|(i, d)| format!("{} {}", side(i).0, d.score))
            .collect();
        Some(scores.join(" · "))
    }

    fn result(&self, game: &Dots) -> Option<String> {
        let players = game.players();
        let (winner, best) = players
            .iter()
            .enumerate()
            .find(|(_, d)| d.score >= FIRST_TO)?;
        let others: Vec<String> = players
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != winner)
            .map(|(_, d)| d.score.to_string())
            .collect();
        Some(format!(
            "{} wins {}-{}.",
            side(winner).0,
            best.score,
            others.join("-")
        ))
    }
}

/// The game's slot for a page that carries it among other games.
#[must_use]
pub fn page_slot() -> Box<dyn web_shell::shell::GameSlot> {
    web_shell::shell::lockstep_slot(DotsFrontEnd::new())
}

/// The page's entry point when dots is the page's only game.
///
/// # Errors
///
/// When the page lacks a window or document, or a timer cannot be set.
#[cfg(all(target_arch = "wasm32", feature = "page"))]
#[wasm_bindgen::prelude::wasm_bindgen(start)]
pub fn start() -> Result<(), wasm_bindgen::JsValue> {
    web_shell::run(DotsFrontEnd::new())
}

/// Reads a dot's cell and the coin's cell back from
/// [`summary`](FrontEnd::summary)'s words, for tests and tools that steer
/// a dot from the page: `(dot, coin)`, or `None` if `side` is not there.
#[must_use]
pub fn cells_in_summary(summary: &str, side_no: u8) -> Option<((u8, u8), (u8, u8))> {
    fn cell(s: &str) -> Option<(u8, u8)> {
        let (x, y) = s.split_once(',')?;
        Some((x.parse().ok()?, y.parse().ok()?))
    }
    let parts: Vec<&str> = summary.split(" · ").collect();
    let dot = parts.get(usize::from(side_no))?.split_once('@')?.1;
    let coin = parts.last()?.strip_prefix("coin ")?;
    Some((cell(dot)?, cell(coin)?))
}
