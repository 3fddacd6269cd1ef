//! Keyboard mapping: held `KeyboardEvent.code` values to a [`Pad`].
//!
//! Two people share one keyboard in local play: Home on the left half
//! (WASD and the letters beside it), Away on the right half (the arrows and
//! the keys left of them). A person playing alone (against the CPU, or
//! online) may use either set, plus Space, X, Shift and C.

use ntba::Pad;

/// The keys of one player, by button. Several keys may serve one button.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyMap {
    /// Move up the screen.
    pub up: &'static [&'static str],
    /// Move down the screen.
    pub down: &'static [&'static str],
    /// Move left.
    pub left: &'static [&'static str],
    /// Move right.
    pub right: &'static [&'static str],
    /// Hold to jump, release to shoot.
    pub shoot: &'static [&'static str],
    /// Pass (offence) or steal (defence).
    pub action: &'static [&'static str],
    /// Run faster while stamina lasts.
    pub turbo: &'static [&'static str],
    /// Control the other player (on defence).
    pub switch: &'static [&'static str],
}

/// Home's keys when two people share the keyboard.
pub const HOME_KEYS: KeyMap = KeyMap {
    up: &["KeyW"],
    down: &["KeyS"],
    left: &["KeyA"],
    right: &["KeyD"],
    shoot: &["KeyF"],
    action: &["KeyG"],
    turbo: &["KeyH"],
    switch: &["KeyR"],
};

/// Away's keys when two people share the keyboard.
pub const AWAY_KEYS: KeyMap = KeyMap {
    up: &["ArrowUp"],
    down: &["ArrowDown"],
    left: &["ArrowLeft"],
    right: &["ArrowRight"],
    shoot: &["Period"],
    action: &["Comma"],
    turbo: &["Slash"],
    switch: &["KeyM"],
};

/// Extra keys for a person playing alone (on top of both sets above).
pub const SOLO_EXTRA_KEYS: KeyMap = KeyMap {
    up: &[],
    down: &[],
    left: &[],
    right: &[],
    shoot: &["Space"],
    action: &["KeyX"],
    turbo: &["ShiftLeft", "ShiftRight"],
    switch: &["KeyC"],
};

impl KeyMap {
    /// The pad for the keys held. Opposite directions held together are
    /// released ([`Pad::settled`]): they cancel in the simulation anyway,
    /// and so no keys ever make [`Pad::ABSENT`], the value that hands the
    /// pad slot to the AI.
    #[must_use]
    pub fn pad(&self, held: &[&str]) -> Pad {
        let any = |keys: &[&str]| keys.iter().any(|k| held.contains(k));
        let bits = [
            (self.up, Pad::UP),
            (self.down, Pad::DOWN),
            (self.left, Pad::LEFT),
            (self.right, Pad::RIGHT),
            (self.shoot, Pad::SHOOT),
            (self.action, Pad::ACTION),
            (self.turbo, Pad::TURBO),
            (self.switch, Pad::SWITCH),
        ];
        Pad(bits
            .iter()
            .filter(|(keys, _)| any(keys))
            .fold(0, |acc, (_, bit)| acc | bit))
        .settled()
    }

    fn all(&self) -> impl Iterator<Item = &'static str> {
        [
            self.up,
            self.down,
            self.left,
            self.right,
            self.shoot,
            self.action,
            self.turbo,
            self.switch,
        ]
        .into_iter()
        .flatten()
        .copied()
    }
}

/// The pad of a person playing alone: either key set, plus the extra keys
/// (opposite directions from the two sets together released, as
/// [`KeyMap::pad`] does: never [`Pad::ABSENT`]).
#[must_use]
pub fn solo_pad(held: &[&str]) -> Pad {
    Pad(HOME_KEYS.pad(held).0 | AWAY_KEYS.pad(held).0 | SOLO_EXTRA_KEYS.pad(held).0).settled()
}

/// Whether the game uses this key (a page should then stop the browser's
/// own use of it, such as scrolling on the arrows and Space, or quick find
/// on `/`).
#[must_use]
pub fn is_game_key(code: &str) -> bool {
    HOME_KEYS
        .all()
        .chain(AWAY_KEYS.all())
        .chain(SOLO_EXTRA_KEYS.all())
        .any(|k| k == code)
}

/// The on-screen help lines for two players sharing the keyboard.
pub const HELP_TWO_PLAYERS: [&str; 2] = [
    "HOME  WASD move · F shoot (hold, let go at the top) · G pass/steal · H turbo · R switch",
    "AWAY  arrows move · . shoot · , pass/steal · / turbo · M switch  —  1: the CPU takes Away",
];

/// The on-screen help lines for one person against the CPU.
pub const HELP_SOLO: [&str; 2] = [
    "Arrows/WASD move · Space shoot (hold, let go at the top) · X pass/steal · Shift turbo · C switch",
    "A friend wants to play? Press 2: they take Away on the arrows, you keep Home on WASD + F G H R",
];

/// The on-screen help line for one person online.
pub const HELP_ONLINE: &str =
    "Arrows/WASD move · Space shoot (hold, let go at the top) · X pass/steal · Shift turbo · C switch";

/// The key each gamepad button stands for, by person: the first pad plays
/// Home's keys, the second Away's. D-pad or left stick move; A (the bottom
/// face button) shoots, X or B pass or steal, a right shoulder or trigger
/// is turbo, Y or the left shoulder switches.
#[must_use]
pub fn pad_key(person: u8, button: web_shell::pad::Button) -> Option<&'static str> {
    use web_shell::pad::Button;
    let keys = if person == 0 { &HOME_KEYS } else { &AWAY_KEYS };
    let pick = |k: &'static [&'static str]| k.first().copied();
    match button {
        Button::Up => pick(keys.up),
        Button::Down => pick(keys.down),
        Button::Left => pick(keys.left),
        Button::Right => pick(keys.right),
        Button::South => pick(keys.shoot),
        Button::West | Button::East => pick(keys.action),
        Button::RightShoulder | Button::RightTrigger => pick(keys.turbo),
        Button::North | Button::LeftShoulder => pick(keys.switch),
        Button::LeftTrigger | Button::Select | Button::Start => None,
    }
}

/// The touch overlay's buttons: each a pad button, so it plays as the key
/// [`pad_key`] names for it (Shoot is the bottom face button, and so on).
pub const TOUCH_BUTTONS: &[(web_shell::pad::Button, &str)] = &[
    (web_shell::pad::Button::West, "Pass"),
    (web_shell::pad::Button::North, "Switch"),
    (web_shell::pad::Button::RightShoulder, "Turbo"),
    (web_shell::pad::Button::South, "Shoot"),
];

/// The title page's lines about a pad.
pub const PAD_CONTROLS: &[(&str, &str)] = &[
    ("Pad: d-pad or stick", "move"),
    ("Pad: A / cross", "jump and shoot: hold, let go at the top"),
    ("Pad: X or B", "pass; on defence, steal"),
    ("Pad: RB or RT", "turbo"),
    ("Pad: Y or LB", "switch to your team-mate"),
    ("Pad: Start", "pause (local play)"),
];

/// The on-screen help line for a person with a pad.
pub const HELP_PAD: &str =
    "Pad: stick move · A shoot (hold, let go at the top) · X/B pass/steal · RB turbo · Y switch";

/// The on-screen help lines for two people with pads (Home on the first).
pub const HELP_PADS_TWO_PLAYERS: [&str; 2] = [
    "HOME  first pad: stick move · A shoot · X/B pass/steal · RB turbo · Y switch",
    "AWAY  second pad (or the arrows): the same buttons  —  1: the CPU takes Away",
];

/// The help line while a recorded match plays back.
pub const HELP_REPLAY: &str =
    "A recorded match · play, pause, speed and the timeline are under the court";

/// The help line while an online match is watched live.
pub const HELP_WATCHING: &str = "Watching live · Leave takes you back to the lobby";

/// Keys that turn sound off and on.
pub const MUTE_KEYS: &[&str] = &["Digit0", "Numpad0"];

/// Keys that hand Away to a second person during local play.
pub const TWO_PLAYER_KEYS: &[&str] = &["Digit2", "Numpad2"];
/// Keys that hand Away back to the CPU during local play.
pub const CPU_KEYS: &[&str] = &["Digit1", "Numpad1"];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_key_sets_do_not_overlap() {
        for k in HOME_KEYS.all() {
            assert!(!AWAY_KEYS.all().any(|a| a == k), "{k} in both sets");
            assert!(!SOLO_EXTRA_KEYS.all().any(|a| a == k), "{k} in solo extras");
        }
        for k in AWAY_KEYS.all() {
            assert!(!SOLO_EXTRA_KEYS.all().any(|a| a == k), "{k} in solo extras");
        }
    }

    #[test]
    fn keys_map_to_pad_bits() {
        assert_eq!(HOME_KEYS.pad(&[]), Pad::NONE);
        assert_eq!(HOME_KEYS.pad(&["KeyW", "KeyD"]), Pad(Pad::UP | Pad::RIGHT));
        assert_eq!(
            HOME_KEYS.pad(&["KeyF", "KeyG", "KeyH", "KeyR"]),
            Pad(Pad::SHOOT | Pad::ACTION | Pad::TURBO | Pad::SWITCH)
        );
        // Away's keys do nothing for Home, and the other way round.
        assert_eq!(HOME_KEYS.pad(&["ArrowUp", "Period"]), Pad::NONE);
        assert_eq!(AWAY_KEYS.pad(&["KeyW", "KeyF"]), Pad::NONE);
        assert_eq!(
            AWAY_KEYS.pad(&["ArrowLeft", "ArrowDown", "Period", "Comma", "Slash", "KeyM"]),
            Pad(!(Pad::UP | Pad::RIGHT))
        );
        // Alone, everything works.
        assert_eq!(
            solo_pad(&["ArrowUp", "KeyA", "Space", "KeyX", "ShiftRight", "KeyC"]),
            Pad(Pad::UP | Pad::LEFT | Pad::SHOOT | Pad::ACTION | Pad::TURBO | Pad::SWITCH)
        );
        assert!(is_game_key("Space") && is_game_key("Slash") && is_game_key("ArrowUp"));
        assert!(!is_game_key("KeyZ") && !is_game_key("Tab") && !is_game_key("Enter"));
    }

    /// Every direction key of both sets, held in every combination (each
    /// with no other key and with every button of both sets and the solo
    /// extras): no key set and no solo pad ever makes [`Pad::ABSENT`],
    /// and opposite directions held together cancel.
    #[test]
    fn no_keys_held_make_the_absent_pad() {
        let dirs: Vec<&str> = [HOME_KEYS, AWAY_KEYS]
            .iter()
            .flat_map(|k| [k.up, k.down, k.left, k.right])
            .flatten()
            .copied()
            .collect();
        let buttons: Vec<&str> = [HOME_KEYS, AWAY_KEYS, SOLO_EXTRA_KEYS]
            .iter()
            .flat_map(|k| [k.shoot, k.action, k.turbo, k.switch])
            .flatten()
            .copied()
            .collect();
        assert_eq!(dirs.len(), 8);
        for mask in 0..1u32 << dirs.len() {
            let mut held: Vec<&str> = (0..dirs.len())
                .filter(|&i| mask & 1 << i != 0)
                .map(|i| dirs[i])
                .collect();
            for with_buttons in [false, true] {
                if with_buttons {
                    held.extend(&buttons);
                }
                for pad in [HOME_KEYS.pad(&held), AWAY_KEYS.pad(&held), solo_pad(&held)] {
                    assert!(!pad.is_absent(), "{held:?}");
                    assert!(!pad.has(Pad::UP | Pad::DOWN), "{held:?}");
                    assert!(!pad.has(Pad::LEFT | Pad::RIGHT), "{held:?}");
                }
            }
        }
        // Every gamepad button at once, for either person, plays keys.
        let all = web_shell::pad::Button::ALL;
        for person in [0, 1] {
            let held: Vec<&str> = all.iter().filter_map(|&b| pad_key(person, b)).collect();
            let map = if person == 0 { HOME_KEYS } else { AWAY_KEYS };
            for pad in [map.pad(&held), solo_pad(&held)] {
                assert!(!pad.is_absent(), "person {person}: {held:?}");
                assert_eq!(pad.0 & 0x0F, 0, "person {person}: both pairs cancel");
            }
        }
    }

    #[test]
    fn each_touch_button_plays_its_own_action_for_the_first_person() {
        let bit = |label: &str| {
            let (button, _) = TOUCH_BUTTONS.iter().find(|(_, l)| *l == label).unwrap();
            solo_pad(&[pad_key(0, *button).unwrap()])
        };
        assert_eq!(bit("Shoot"), Pad(Pad::SHOOT));
        assert_eq!(bit("Pass"), Pad(Pad::ACTION));
        assert_eq!(bit("Turbo"), Pad(Pad::TURBO));
        assert_eq!(bit("Switch"), Pad(Pad::SWITCH));
        assert!(TOUCH_BUTTONS.len() <= web_shell::touch::MAX_BUTTONS);
    }
}
