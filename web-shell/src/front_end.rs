//! How a game plugs into the shell.
//!
//! The shell knows nothing of any particular game. A game's browser crate
//! implements [`FrontEnd`]: its name and build id (shown on the title screen
//! and compared by peers), how it draws a state on a canvas (through the
//! small [`Painter`] interface, so drawing code is testable natively), how
//! the held keys map to one input, and the options of local play.

use lockstep::DeterministicGame;

/// The drawing operations the shell offers a game (implemented over a
/// `CanvasRenderingContext2d` in the browser). Coordinates are canvas pixels;
/// colours are CSS colour strings.
pub trait Painter {
    /// Canvas size in pixels (width, height).
    fn size(&self) -> (f64, f64);
    /// Fills the whole canvas.
    fn clear(&mut self, colour: &str);
    /// Fills a rectangle.
    fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, colour: &str);
    /// Fills a circle.
    fn circle(&mut self, x: f64, y: f64, r: f64, colour: &str);
    /// Draws a line of text (inserted as text, never markup).
    fn text(&mut self, x: f64, y: f64, text: &str, colour: &str);

    // The methods below have default implementations so that a minimal
    // painter (four methods) still works; the canvas painter implements
    // them all.

    /// Strokes a straight line `width` pixels wide with round ends. By
    /// default it is approximated by circles along the line.
    fn line(&mut self, x0: f64, y0: f64, x1: f64, y1: f64, width: f64, colour: &str) {
        let r = (width / 2.0).max(0.5);
        let len = (x1 - x0).hypot(y1 - y0);
        let steps = (len / r).ceil().clamp(1.0, 256.0);
        for i in 0..=(steps as u32) {
            let t = f64::from(i) / steps;
            self.circle(x0 + (x1 - x0) * t, y0 + (y1 - y0) * t, r, colour);
        }
    }

    /// Fills an axis-aligned ellipse. By default, a circle of the mean
    /// radius.
    fn ellipse(&mut self, x: f64, y: f64, rx: f64, ry: f64, colour: &str) {
        self.circle(x, y, (rx + ry) / 2.0, colour);
    }

    /// Strokes part of an axis-aligned ellipse, from angle `start` to `end`
    /// (radians, clockwise on screen from the +x axis, as on a canvas). A
    /// full outline is `0.0..TAU`. By default approximated by circles.
    #[allow(clippy::too_many_arguments)]
    fn arc(
        &mut self,
        x: f64,
        y: f64,
        rx: f64,
        ry: f64,
        start: f64,
        end: f64,
        width: f64,
        colour: &str,
    ) {
        let r = (width / 2.0).max(0.5);
        let steps = ((end - start).abs() * rx.max(ry) / r)
            .ceil()
            .clamp(1.0, 256.0);
        for i in 0..=(steps as u32) {
            let a = start + (end - start) * f64::from(i) / steps;
            self.circle(x + rx * a.cos(), y + ry * a.sin(), r, colour);
        }
    }

    /// Fills a polygon. By default, a circle at the centre of the points
    /// as large as their mean distance from it.
    fn polygon(&mut self, points: &[(f64, f64)], colour: &str) {
        if points.is_empty() {
            return;
        }
        let n = points.len() as f64;
        let cx = points.iter().map(|p| p.0).sum::<f64>() / n;
        let cy = points.iter().map(|p| p.1).sum::<f64>() / n;
        let r = points
            .iter()
            .map(|p| (p.0 - cx).hypot(p.1 - cy))
            .sum::<f64>()
            / n;
        self.circle(cx, cy, r, colour);
    }

    /// Sets the opacity (0.0 transparent to 1.0 opaque) of everything drawn
    /// afterwards, until set again. Ignored by default.
    fn set_alpha(&mut self, _alpha: f64) {}

    /// Sets the text size (pixels), weight and horizontal anchoring of
    /// [`text`](Self::text) calls afterwards, until set again. `y` stays
    /// the baseline. Ignored by default.
    fn set_font(&mut self, _size: f64, _bold: bool, _align: Align) {}
}

/// Where [`Painter::text`] anchors its `x`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Align {
    /// `x` is the left end of the text.
    #[default]
    Left,
    /// `x` is the middle of the text.
    Center,
    /// `x` is the right end of the text.
    Right,
}

/// What the title page says about a game before anyone plays it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct About {
    /// What the game is, in one line ("Arcade 2-on-2 basketball...").
    pub tagline: &'static str,
    /// The controls: the keys, and what they do.
    pub controls: &'static [(&'static str, &'static str)],
    /// How to play, a few short lines.
    pub how_to_play: &'static [&'static str],
}

/// One choice offered before a local game (for example "Players: 1 or 2").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalOption {
    /// Shown to the player.
    pub label: &'static str,
    /// The possible values, the first being the default.
    pub choices: &'static [&'static str],
}

/// A game's browser front end: everything the shell needs to know that
/// differs from one game to the next.
///
/// Methods that may change presentation state (effects in progress, who is
/// at the keyboard, a CPU player) take `&mut self`; the shell owns the front
/// end and calls it from one place at a time, so an implementor keeps its
/// state in plain fields.
pub trait FrontEnd {
    /// The simulation.
    type Game: DeterministicGame;

    /// The game's name, for the title screen.
    fn name(&self) -> &'static str;

    /// What the title page says about the game: what it is, its controls
    /// and how to play. Empty by default (the title shows the name only).
    fn about(&self) -> About {
        About::default()
    }

    /// The build id peers compare; by default the simulation's golden hash.
    fn build_id(&self) -> u64 {
        <Self::Game as DeterministicGame>::BUILD_ID
    }

    /// Draws `game` (rendering may use floats; the state does not).
    fn draw(&mut self, game: &Self::Game, painter: &mut dyn Painter);

    /// The input of local player `player` given the keys held right now
    /// (`KeyboardEvent.code` values such as `"ArrowLeft"` or `"KeyW"`).
    fn input(&self, held: &[&str], player: u8) -> <Self::Game as DeterministicGame>::Input;

    /// Whether the key with this `KeyboardEvent.code` belongs to the game:
    /// while a game runs, the page then keeps the browser from acting on it
    /// (scrolling on the arrows and Space, quick find on `/`).
    fn is_game_key(&self, code: &str) -> bool;

    /// The key a gamepad's `button` stands for when the pad plays for
    /// `person` (0 is the first person at the page: in local play the one
    /// on player 0's keys, online the only one). The shell adds it to the
    /// keys held, so a pad plays exactly as those keys do. `None` (the
    /// default for every button) leaves pads out.
    fn pad_key(&self, _person: u8, _button: crate::pad::Button) -> Option<&'static str> {
        None
    }

    /// The buttons of the on-screen touch overlay, in order, each with the
    /// label shown on it (a word or two). The overlay is a virtual pad for
    /// the page's first person (person 0 of [`pad_key`](Self::pad_key)):
    /// its stick holds the directions and each of these buttons the
    /// [`Button`](crate::pad::Button) named, so the keys are the pad's. By
    /// default none: the overlay shows only the stick, and only for a game
    /// whose pad moves ([`pad_key`](Self::pad_key) names a key for the
    /// directions); a game without pad keys gets no overlay.
    fn touch_buttons(&self) -> &'static [(crate::pad::Button, &'static str)] {
        &[]
    }

    /// The title page's lines about the pad's buttons (shown while a pad
    /// is connected), like [`About::controls`]. None by default.
    fn pad_controls(&self) -> &'static [(&'static str, &'static str)] {
        &[]
    }

    /// `count` gamepads are now connected (a front end that draws its own
    /// help lines may show the pad's buttons instead of the keys).
    /// Ignored by default.
    fn pads_connected(&mut self, _count: usize) {}

    /// The name of `side` (0 is the host, 1 the guest) in the words of the
    /// game, for the match's status line. By default "Player 1", "Player 2".
    fn side_name(&self, side: u8) -> String {
        format!("Player {}", u16::from(side) + 1)
    }

    /// The name of what the player in session slot `slot` plays in
    /// `game`, for the match's status line: in a game of teams, the team
    /// the match's line-up put that slot on. By default
    /// [`side_name`](Self::side_name) of the slot.
    fn slot_name(&self, _game: &Self::Game, slot: u8) -> String {
        self.side_name(slot)
    }

    /// What the game allows in a party (a challenge to several players):
    /// the most people in a match, how many sides they split into and the
    /// most on one side. By default a game for two, without parties.
    fn party(&self) -> crate::party::PartyRules {
        crate::party::PartyRules::PAIR
    }

    /// The seed of a party's match from the session's `seed`, the side of
    /// each session slot (`sides[slot]`, the host's slot 0 first) and the
    /// match length the challenger picked (an index into
    /// [`PartyRules::lengths`](crate::party::PartyRules::lengths), 0 when
    /// the game offers none), for a game whose simulation learns its
    /// arrangement from the seed; `None` when this game cannot play that
    /// arrangement. The seed is what the session's handshake agrees on, so
    /// every page plays what the host's seed says. By default the seed
    /// unchanged for a game without sides (every slot on side 0), `None`
    /// otherwise.
    fn party_seed(&self, seed: u64, sides: &[u8], _length: usize) -> Option<u64> {
        let rules = self.party();
        (rules.sides == 0 && rules.takes(sides)).then_some(seed)
    }

    /// The choices offered before local play.
    fn local_options(&self) -> &'static [LocalOption] {
        &[]
    }

    /// Local play is starting with these choices: for each of
    /// [`local_options`](Self::local_options), the index of the value picked
    /// (a missing entry means the default, 0). Ignored by default.
    fn start_local(&mut self, _choices: &[usize]) {}

    /// How many players the local game has, given the choices last passed
    /// to [`start_local`](Self::start_local). 2 by default.
    fn local_players(&self) -> u8 {
        2
    }

    /// The inputs of every player for one tick of local play, given the keys
    /// held and the game about to be stepped (so a front end can let a CPU
    /// drive a side). By default each of the
    /// [`local_players`](Self::local_players) from [`input`](Self::input).
    fn local_inputs(
        &mut self,
        _game: &Self::Game,
        held: &[&str],
    ) -> Vec<<Self::Game as DeterministicGame>::Input> {
        (0..self.local_players())
            .map(|p| self.input(held, p))
            .collect()
    }

    /// The input of the one person at this page in an online match. By
    /// default player 0's keys.
    fn online_input(&mut self, held: &[&str]) -> <Self::Game as DeterministicGame>::Input {
        self.input(held, 0)
    }

    /// An online match has started and this page plays `side` (0 is the
    /// host). Ignored by default.
    fn start_online(&mut self, _side: u8) {}

    /// An online match is being watched from this page: nobody here
    /// plays either side. By default as [`start_replay`](Self::start_replay).
    fn start_watching(&mut self) {
        self.start_replay();
    }

    /// A recorded match is about to be played back: nobody at this page
    /// plays either side. A front end that labels who plays what ("YOU",
    /// "CPU") forgets it here. Ignored by default.
    fn start_replay(&mut self) {}

    /// A short line about the state (for example the score), exposed on the
    /// page as `data-summary` for tests and tools. `None` by default.
    fn summary(&self, _game: &Self::Game) -> Option<String> {
        None
    }

    /// The score of `game` as the game words it, or `None` for a game
    /// without one. A replay offers a jump to each tick where it changes.
    /// By default the [`summary`](Self::summary): a game whose summary is
    /// its score needs nothing more.
    fn score(&self, game: &Self::Game) -> Option<String> {
        self.summary(game)
    }

    /// Draws the last state of an online match under its result screen
    /// (the final score and whatever the game tells of the match, such as a
    /// box score), whether the game came to its end or the match stopped
    /// early. By default the same picture as [`draw`](Self::draw).
    fn draw_result(&mut self, game: &Self::Game, painter: &mut dyn Painter) {
        self.draw(game, painter);
    }

    /// The result once the game itself is over (for example "Home wins
    /// 31-28."), or `None` while it goes on (the default: a game that never
    /// ends by itself). The shell shows it as the result of a local game or
    /// an online match.
    fn result(&self, _game: &Self::Game) -> Option<String> {
        None
    }

    /// What the result screen says when the two games went out of sync:
    /// `game_at_tick` is this page's game at the first diverging tick (so
    /// the message can say when, in the game's words), `differing` the
    /// names of the state parts whose hashes differ
    /// ([`DeterministicGame::state_parts`]; empty when the game describes
    /// none or the peer's part hashes never came). By default the same
    /// sentence for every desync, naming nothing.
    fn desync_message(&self, _game_at_tick: &Self::Game, _differing: &[&str]) -> String {
        crate::play::DESYNC_MESSAGE.to_owned()
    }

    /// The value of the state part `name` of `game` in words a developer
    /// reads, written into the desync report beside the part's hash; `None`
    /// (the default) where the game does not print it.
    fn describe_part(&self, _game: &Self::Game, _name: &str) -> Option<String> {
        None
    }
}
