//! `ntba-web`: NtBA's browser front end.
//!
//! [`NtbaFrontEnd`] implements the web shell's
//! `FrontEnd` for [`ntba::Ntba`]: it draws
//! the court, both teams, the ball, the scoreboard with the game and shot
//! clocks, short effects for baskets, blocks and steals, and the end
//! screen, all through the shell's `Painter`
//! (so every frame can be recorded and checked natively, see [`record`]);
//! and it maps the keyboard to pads for local play on one keyboard (two
//! people, or one against ntba's CPU) and for online play. See
//! `docs/ntba-web.md`.
//!
//! ```
//! use lockstep::DeterministicGame;
//! use ntba::Ntba;
//! use ntba_web::{record::Recorder, Mode, NtbaFrontEnd};
//! use web_shell::front_end::FrontEnd;
//!
//! let mut front = NtbaFrontEnd::new();
//! front.set_mode(Mode::VsCpu(ntba::Level::Normal));
//! let mut game = Ntba::new(1, 2);
//! let mut canvas = Recorder::new(640.0, 360.0);
//! for _ in 0..60 {
//!     // The person holds right; the CPU plays Away.
//!     let pads = front.local_inputs(&game, &["ArrowRight"]);
//!     game.step(&pads);
//!     canvas.ops.clear();
//!     front.draw(&game, &mut canvas);
//! }
//! assert!(canvas.shows("HOME") && canvas.shows("1ST HALF"));
//! ```
#![warn(missing_docs)]

pub mod draw;
pub mod effects;
pub mod keys;
pub mod layout;
pub mod record;
pub mod sound;

use ntba::{Cpu, Level, Ntba, Pad};
use web_shell::front_end::{About, FrontEnd, LocalOption, Painter};
use web_shell::party::PartyRules;

use crate::draw::Labels;

/// What the title page says about NtBA.
pub const ABOUT: About = About {
    tagline: "Arcade 2-on-2 basketball. Play the CPU, a friend on the same keyboard, \
              or anyone in the online lobby.",
    controls: &[
        ("Arrows or WASD", "move"),
        (
            "Space",
            "jump and shoot: hold, let go at the top of the jump",
        ),
        ("X", "pass; on defence, steal"),
        ("Shift", "turbo (it tires you)"),
        ("C", "switch to your team-mate"),
        ("Esc", "pause (local play)"),
        (
            "2 / 1",
            "a friend takes Away on the arrows / the CPU takes it back",
        ),
        ("0", "sound on or off"),
    ],
    how_to_play: &[
        "Two teams of two, Home against Away, over two halves of two minutes.",
        "Shoot from beyond the arc for three points, from inside it for two.",
        "Let go of shoot at the top of your jump: a well-timed release goes in \
         more often, and a defender close by makes it harder.",
        "The shot clock gives you 14 seconds to shoot. Level at the end? \
         Thirty-second overtimes, and the third is sudden death.",
    ],
};
use crate::effects::Effects;

/// Who is at the keyboard.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// One person plays Home with either key set; ntba's CPU plays Away.
    VsCpu(Level),
    /// Two people share the keyboard: Home on WASD, Away on the arrows.
    TwoPlayers,
    /// An online match: the person at this page plays session slot `slot`
    /// with either key set, or an unknown slot. With two people the slot
    /// is the side (0 Home, 1 Away); with three or four the line-up in the
    /// seed says which team the slot plays for ([`NtbaFrontEnd::labels_for`]).
    Online(Option<u8>),
    /// A recorded match played back: nobody here plays.
    Replay,
    /// An online match watched live: nobody here plays.
    Watching,
}

impl Default for Mode {
    fn default() -> Self {
        Mode::VsCpu(Level::Normal)
    }
}

/// The choices offered before local play (the first of each is the default).
pub const LOCAL_OPTIONS: &[LocalOption] = &[
    LocalOption {
        label: "Opponent",
        choices: &["CPU", "A friend on this keyboard"],
    },
    LocalOption {
        label: "CPU level",
        choices: &["Normal", "Easy", "Hard"],
    },
];

/// The party panel's match lengths, in [`ntba::MatchLength::ALL`]'s order.
const LENGTH_LABELS: [&str; 2] = [
    ntba::MatchLength::ALL[0].label(),
    ntba::MatchLength::ALL[1].label(),
];

/// NtBA's front end: who is at the keyboard, the CPU player, the effects
/// in progress and the sound.
#[derive(Debug, Default)]
pub struct NtbaFrontEnd {
    mode: Mode,
    /// The CPU's level when it plays (kept while a friend plays Away).
    level: Level,
    /// Sound off (toggled with 0).
    muted: bool,
    /// Whether the mute key was held at the last sample (to act on the
    /// press only).
    mute_held: bool,
    #[cfg(target_arch = "wasm32")]
    synth: web_shell::sound::Synth,
    cpu: Option<Cpu>,
    fx: Effects,
    /// Gamepads connected: the help lines show the pad's buttons.
    pads: usize,
}

impl NtbaFrontEnd {
    /// A front end for one person against the CPU at the Normal level
    /// (until [`start_local`](FrontEnd::start_local) or
    /// [`set_mode`](Self::set_mode) says otherwise).
    #[must_use]
    pub fn new() -> NtbaFrontEnd {
        NtbaFrontEnd::default()
    }

    /// Sets who is at the keyboard, and forgets the effects and the CPU of
    /// the previous match.
    pub fn set_mode(&mut self, mode: Mode) {
        self.mode = mode;
        if let Mode::VsCpu(level) = mode {
            self.level = level;
        }
        self.cpu = None;
        self.fx.reset();
    }

    /// Who is at the keyboard.
    #[must_use]
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The mode for the indices picked among [`LOCAL_OPTIONS`].
    #[must_use]
    pub fn mode_for_choices(choices: &[usize]) -> Mode {
        let pick = |i: usize| choices.get(i).copied().unwrap_or(0);
        if pick(0) == 1 {
            return Mode::TwoPlayers;
        }
        Mode::VsCpu(match pick(1) {
            1 => Level::Easy,
            2 => Level::Hard,
            _ => Level::Normal,
        })
    }

    /// The scoreboard words, pointer labels and help lines for the mode.
    /// Online, the slot is taken for the side, as in a two-person match;
    /// [`labels_for`](Self::labels_for) knows the line-up.
    #[must_use]
    pub fn labels(&self) -> Labels {
        self.labels_in(self.mode)
    }

    /// The labels for drawing `game`: online with three or four people,
    /// "YOU" goes on the team the game's line-up gives this page's slot.
    #[must_use]
    pub fn labels_for(&self, game: &Ntba) -> Labels {
        match self.mode {
            Mode::Online(Some(slot)) if game.people() > 2 => {
                let team = game.player_of_slot(slot).map_or(slot & 1, |p| p / 2);
                self.labels_in(Mode::Online(Some(team)))
            }
            mode => self.labels_in(mode),
        }
    }

    fn labels_in(&self, mode: Mode) -> Labels {
        match mode {
            Mode::VsCpu(level) => Labels {
                who: [
                    "YOU",
                    match level {
                        Level::Easy => "CPU · EASY",
                        Level::Normal => "CPU · NORMAL",
                        Level::Hard => "CPU · HARD",
                    },
                ],
                pointer: [Some("YOU"), Some("")],
                help: if self.pads > 0 {
                    vec![keys::HELP_PAD, keys::HELP_SOLO[1]]
                } else {
                    keys::HELP_SOLO.to_vec()
                },
            },
            Mode::TwoPlayers => Labels {
                who: ["P1", "P2"],
                pointer: [Some("P1"), Some("P2")],
                help: if self.pads > 0 {
                    keys::HELP_PADS_TWO_PLAYERS.to_vec()
                } else {
                    keys::HELP_TWO_PLAYERS.to_vec()
                },
            },
            Mode::Online(side) => {
                let mut who = ["", ""];
                let mut pointer = [Some(""), Some("")];
                if let Some(s) = side {
                    who[usize::from(s & 1)] = "YOU";
                    pointer[usize::from(s & 1)] = Some("YOU");
                }
                Labels {
                    who,
                    pointer,
                    help: vec![if self.pads > 0 {
                        keys::HELP_PAD
                    } else {
                        keys::HELP_ONLINE
                    }],
                }
            }
            Mode::Replay => Labels {
                who: ["", ""],
                pointer: [Some(""), Some("")],
                help: vec![keys::HELP_REPLAY],
            },
            Mode::Watching => Labels {
                who: ["", ""],
                pointer: [Some(""), Some("")],
                help: vec![keys::HELP_WATCHING],
            },
        }
    }

    /// Whether sound is off.
    #[must_use]
    pub fn muted(&self) -> bool {
        self.muted
    }

    /// Turns sound off or on.
    pub fn set_muted(&mut self, muted: bool) {
        self.muted = muted;
    }

    /// Acts on the keys that are not the game's: 0 toggles sound (on the
    /// press).
    fn page_keys(&mut self, held: &[&str]) {
        let down = keys::MUTE_KEYS.iter().any(|k| held.contains(k));
        if down && !self.mute_held {
            self.muted = !self.muted;
        }
        self.mute_held = down;
    }

    /// The effects tracker as of the last draw (for tests and tools).
    #[must_use]
    pub fn effects(&self) -> &Effects {
        &self.fx
    }
}

/// The page's entry point in wasm32: the web shell with NtBA as its game.
/// Build the page with `WEB_CRATE=ntba-web scripts/build-web.sh`.
///
/// # Errors
///
/// When the page lacks a window or document, or a timer cannot be set.
#[cfg(all(target_arch = "wasm32", feature = "page"))]
#[wasm_bindgen::prelude::wasm_bindgen(start)]
pub fn start() -> Result<(), wasm_bindgen::JsValue> {
    web_shell::run(NtbaFrontEnd::new())
}

/// NtBA's slot for a page that carries it among other games (the arcade
/// page's hub): the shell's lock-step slot over [`NtbaFrontEnd`].
#[must_use]
pub fn page_slot() -> Box<dyn web_shell::shell::GameSlot> {
    web_shell::shell::lockstep_slot(NtbaFrontEnd::new())
}

impl FrontEnd for NtbaFrontEnd {
    type Game = Ntba;

    fn name(&self) -> &'static str {
        "NtBA"
    }

    fn about(&self) -> About {
        ABOUT
    }

    fn pad_key(&self, person: u8, button: web_shell::pad::Button) -> Option<&'static str> {
        keys::pad_key(person, button)
    }

    fn pad_controls(&self) -> &'static [(&'static str, &'static str)] {
        keys::PAD_CONTROLS
    }

    fn touch_buttons(&self) -> &'static [(web_shell::pad::Button, &'static str)] {
        keys::TOUCH_BUTTONS
    }

    fn pads_connected(&mut self, count: usize) {
        self.pads = count;
    }

    fn draw(&mut self, game: &Ntba, painter: &mut dyn Painter) {
        self.fx.observe(game);
        #[cfg(target_arch = "wasm32")]
        if !self.muted {
            for &cue in self.fx.cues() {
                self.synth.play(cue.tones());
            }
        }
        draw::frame(painter, game, &self.fx, &self.labels_for(game));
    }

    /// The court as the match left it, under the final score and the box
    /// score (no sound: the match is over).
    fn draw_result(&mut self, game: &Ntba, painter: &mut dyn Painter) {
        draw::result(painter, game, &self.fx, &self.labels_for(game));
    }

    /// Player 0 is Home on the left of the keyboard, player 1 Away on the
    /// right (see [`keys`]).
    fn input(&self, held: &[&str], player: u8) -> Pad {
        if player == 0 {
            keys::HOME_KEYS.pad(held)
        } else {
            keys::AWAY_KEYS.pad(held)
        }
    }

    /// The keys of both key sets and the solo extras, and the page's own
    /// keys (sound, handing Away over).
    fn is_game_key(&self, code: &str) -> bool {
        keys::is_game_key(code)
            || [keys::MUTE_KEYS, keys::TWO_PLAYER_KEYS, keys::CPU_KEYS]
                .iter()
                .any(|set| set.contains(&code))
    }

    fn side_name(&self, side: u8) -> String {
        if side == 0 { "Home" } else { "Away" }.to_owned()
    }

    /// The team of the court player the slot drives (in a party of three
    /// or four, the line-up in the seed decides it).
    fn slot_name(&self, game: &Ntba, slot: u8) -> String {
        let team = game
            .player_of_slot(slot)
            .map_or(slot.min(1), |p| game.player(p).side);
        self.side_name(team)
    }

    /// Two to four people, on two teams of at most two (the CPU plays
    /// every court player nobody does), and a full or a short match.
    fn party(&self) -> PartyRules {
        PartyRules {
            max_people: 4,
            sides: 2,
            per_side: 2,
            lengths: &LENGTH_LABELS,
        }
    }

    /// Three or four people: the line-up and the match length ride in the
    /// seed ([`ntba::Lineup::seed`], [`ntba::MatchLength::seed`]). Two
    /// people play one team each, the host's slot Home, as every
    /// two-person match does, so they must be on different sides; the seed
    /// is then unchanged and the match has the full length (a two-person
    /// seed carries no length).
    fn party_seed(&self, seed: u64, sides: &[u8], length: usize) -> Option<u64> {
        let length = ntba::MatchLength::ALL
            .get(length)
            .copied()
            .unwrap_or_default();
        match sides {
            [a, b] => (a != b && *a < 2 && *b < 2).then_some(seed),
            _ => ntba::Lineup::new(sides)
                .ok()
                .map(|l| length.seed(l.seed(seed))),
        }
    }

    fn local_options(&self) -> &'static [LocalOption] {
        LOCAL_OPTIONS
    }

    fn start_local(&mut self, choices: &[usize]) {
        self.set_mode(Self::mode_for_choices(choices));
    }

    /// Also hands Away over mid-match: 2 gives it to a second person on
    /// the arrows, 1 back to the CPU (the match and its effects go on).
    fn local_inputs(&mut self, game: &Ntba, held: &[&str]) -> Vec<Pad> {
        self.page_keys(held);
        let pressed = |keys: &[&str]| keys.iter().any(|k| held.contains(k));
        match self.mode {
            Mode::VsCpu(_) if pressed(keys::TWO_PLAYER_KEYS) => {
                self.mode = Mode::TwoPlayers;
                self.cpu = None;
            }
            Mode::TwoPlayers if pressed(keys::CPU_KEYS) => {
                self.mode = Mode::VsCpu(self.level);
            }
            _ => {}
        }
        match self.mode {
            Mode::TwoPlayers => vec![self.input(held, 0), self.input(held, 1)],
            Mode::VsCpu(level) => {
                let cpu = self
                    .cpu
                    .get_or_insert_with(|| Cpu::with_level(game.seed(), level));
                vec![keys::solo_pad(held), cpu.pad(game, 1)]
            }
            // Online pads do not come through here; a local game started
            // without start_local plays against the CPU.
            Mode::Online(_) | Mode::Replay | Mode::Watching => {
                self.set_mode(Mode::VsCpu(Level::Normal));
                self.local_inputs(game, held)
            }
        }
    }

    fn start_online(&mut self, side: u8) {
        self.set_mode(Mode::Online(Some(side)));
    }

    fn start_replay(&mut self) {
        self.set_mode(Mode::Replay);
    }

    fn start_watching(&mut self) {
        self.set_mode(Mode::Watching);
    }

    fn summary(&self, game: &Ntba) -> Option<String> {
        let [home, away] = game.score();
        Some(format!("HOME {home} - {away} AWAY"))
    }

    fn result(&self, game: &Ntba) -> Option<String> {
        let winner = game.winner()?;
        let [home, away] = game.score();
        let who = if winner == 0 { "Home" } else { "Away" };
        // A match still level after the sudden-death period is decided by
        // the tiebreak (made shots, turnovers, a coin): say so.
        let how = if home == away { " on the tiebreak" } else { "" };
        Some(format!("{who} wins {home}-{away}{how}."))
    }

    /// When, as the scoreboard read, and which parts differ: "The two games
    /// went out of sync at 1:23 in the first half: the ball and Away player
    /// 2 differ."
    fn desync_message(&self, game_at_tick: &Ntba, differing: &[&str]) -> String {
        ntba::desync_message(game_at_tick, differing)
    }

    fn describe_part(&self, game: &Ntba, name: &str) -> Option<String> {
        game.describe_part(name)
    }

    fn online_input(&mut self, held: &[&str]) -> Pad {
        self.page_keys(held);
        if !matches!(self.mode, Mode::Online(_)) {
            self.set_mode(Mode::Online(None));
        }
        keys::solo_pad(held)
    }
}
