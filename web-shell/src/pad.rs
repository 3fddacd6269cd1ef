//! Gamepads: which pad belongs to which person, and which of a pad's
//! buttons are held, read from what the browser's Gamepad API reports each
//! frame.
//!
//! The shell stays game-agnostic: a game says, per person and per
//! [`Button`], which keyboard key the button stands for
//! ([`FrontEnd::pad_key`](crate::front_end::FrontEnd::pad_key)), and the
//! shell adds those keys to the ones held on the keyboard. A game that can
//! be played with its keys can so be played with a pad, and the input
//! byte the session sends is the same as for the key.
//!
//! Pads take people in the order they are connected: the first pad is
//! person 0 (the left half of the keyboard in a local two-player game), the
//! second person 1. A pad that is unplugged frees its person; the next pad
//! plugged in takes the lowest free one. Online, every pad drives the one
//! person at this page.

use crate::js::JsRead;

/// A button of the standard gamepad layout (the Gamepad API's "standard"
/// mapping: the face buttons named by where they sit).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Button {
    /// The d-pad's up, or the left stick pushed up.
    Up,
    /// The d-pad's down, or the left stick pushed down.
    Down,
    /// The d-pad's left, or the left stick pushed left.
    Left,
    /// The d-pad's right, or the left stick pushed right.
    Right,
    /// The bottom face button (A on Xbox pads, cross on PlayStation ones).
    South,
    /// The right face button (B, circle).
    East,
    /// The left face button (X, square).
    West,
    /// The top face button (Y, triangle).
    North,
    /// The left shoulder button.
    LeftShoulder,
    /// The right shoulder button.
    RightShoulder,
    /// The left trigger.
    LeftTrigger,
    /// The right trigger.
    RightTrigger,
    /// The small left centre button (Back, Select, Share).
    Select,
    /// The small right centre button (Start, Options).
    Start,
}

impl Button {
    /// Every button, in the order of the standard mapping's indices.
    pub const ALL: [Button; 14] = [
        Button::South,
        Button::East,
        Button::West,
        Button::North,
        Button::LeftShoulder,
        Button::RightShoulder,
        Button::LeftTrigger,
        Button::RightTrigger,
        Button::Select,
        Button::Start,
        Button::Up,
        Button::Down,
        Button::Left,
        Button::Right,
    ];

    /// The index of this button in a standard-mapping pad's `buttons`.
    #[must_use]
    pub fn standard_index(self) -> usize {
        match self {
            Button::South => 0,
            Button::East => 1,
            Button::West => 2,
            Button::North => 3,
            Button::LeftShoulder => 4,
            Button::RightShoulder => 5,
            Button::LeftTrigger => 6,
            Button::RightTrigger => 7,
            Button::Select => 8,
            Button::Start => 9,
            Button::Up => 12,
            Button::Down => 13,
            Button::Left => 14,
            Button::Right => 15,
        }
    }
}

/// How far a stick must be pushed along an axis to count as a direction
/// (the axis runs from -1 to 1).
pub const STICK_THRESHOLD: f64 = 0.5;

/// At most this many buttons and axes of one pad are read; a larger report
/// is cut (the standard layout has 17 buttons and 4 axes).
pub const MAX_CONTROLS: usize = 32;

/// The most pads the shell follows at once (people at one keyboard).
pub const MAX_PADS: usize = 4;

/// One pad as the browser reports it in a frame.
#[derive(Debug, Clone, PartialEq)]
pub struct Reading {
    /// The pad's `index`: stable while it stays connected.
    pub index: u32,
    /// `mapping == "standard"`: the buttons are in the standard layout. A
    /// pad without it is read by its first four buttons and its first
    /// stick only, which most pads put where the standard layout does.
    pub standard: bool,
    /// `buttons[i].pressed`.
    pub pressed: Vec<bool>,
    /// `axes[i]`, from -1 to 1.
    pub axes: Vec<f64>,
}

/// The pads connected, from `navigator.getGamepads()` (none without the
/// API). Whatever object the browser (or a test's stand-in) hands over is
/// taken as it is: a gap in the list or a pad that says it is not
/// connected is skipped, a missing index is 0, a missing button is up and
/// a missing axis at rest; the shell bounds the counts.
pub fn readings<V: JsRead>(navigator: &V) -> Vec<Reading> {
    let pads = navigator.call("getGamepads", None).items();
    pads.iter()
        .filter(|p| p.is_object() && p.get("connected").boolean() != Some(false))
        .map(|p| Reading {
            // Saturating, and 0 for NaN.
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            index: p.get("index").number().unwrap_or(0.0) as u32,
            standard: p.get("mapping").text().as_deref() == Some("standard"),
            pressed: p
                .get("buttons")
                .items()
                .iter()
                .map(|b| b.get("pressed").boolean() == Some(true))
                .collect(),
            axes: p
                .get("axes")
                .items()
                .iter()
                .map(|a| a.number().unwrap_or(0.0))
                .collect(),
        })
        .collect()
}

impl Reading {
    /// A standard-layout pad at rest but for the buttons `held` (for
    /// tests and tools that stand in for a pad).
    #[must_use]
    pub fn pressing(index: u32, held: &[Button]) -> Reading {
        let mut pressed = vec![false; 17];
        for b in held {
            pressed[b.standard_index()] = true;
        }
        Reading {
            index,
            standard: true,
            pressed,
            axes: vec![0.0; 4],
        }
    }

    /// The buttons held on this pad.
    #[must_use]
    pub fn held(&self) -> Vec<Button> {
        let pressed = |i: usize| self.pressed.get(i).copied().unwrap_or(false);
        let axis = |i: usize| {
            let v = self.axes.get(i).copied().unwrap_or(0.0);
            if v.is_finite() {
                v
            } else {
                0.0
            }
        };
        let stick = [
            (Button::Up, axis(1) <= -STICK_THRESHOLD),
            (Button::Down, axis(1) >= STICK_THRESHOLD),
            (Button::Left, axis(0) <= -STICK_THRESHOLD),
            (Button::Right, axis(0) >= STICK_THRESHOLD),
        ];
        Button::ALL
            .into_iter()
            .filter(|&b| {
                let on_stick = stick.iter().any(|&(s, on)| s == b && on);
                let index = b.standard_index();
                let readable = self.standard || index < 4;
                on_stick || (readable && pressed(index))
            })
            .collect()
    }
}

/// The pads connected and the person each one plays for.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Pads {
    /// `(person, reading)`, one per connected pad, by person.
    pads: Vec<(u8, Reading)>,
}

impl Pads {
    /// Takes this frame's readings (the pads connected now). Returns
    /// `true` if a pad came or went.
    pub fn update(&mut self, readings: Vec<Reading>) -> bool {
        let mut readings = readings;
        readings.truncate(MAX_PADS * 4);
        for r in &mut readings {
            r.pressed.truncate(MAX_CONTROLS);
            r.axes.truncate(MAX_CONTROLS);
        }
        let before: Vec<u32> = self.pads.iter().map(|(_, r)| r.index).collect();
        // Pads still here keep their person and take their new reading.
        self.pads
            .retain(|(_, r)| readings.iter().any(|n| n.index == r.index));
        for reading in readings {
            if let Some(slot) = self.pads.iter_mut().find(|(_, r)| r.index == reading.index) {
                slot.1 = reading;
            } else if self.pads.len() < MAX_PADS {
                // A new pad takes the lowest person nobody's pad holds.
                let person = (0..)
                    .find(|p| self.pads.iter().all(|(q, _)| q != p))
                    .unwrap_or(0);
                self.pads.push((person, reading));
            }
        }
        self.pads.sort_by_key(|(p, _)| *p);
        let after: Vec<u32> = self.pads.iter().map(|(_, r)| r.index).collect();
        let mut b = before;
        let mut a = after;
        b.sort_unstable();
        a.sort_unstable();
        a != b
    }

    /// How many pads are connected.
    #[must_use]
    pub fn count(&self) -> usize {
        self.pads.len()
    }

    /// The person each connected pad plays for, by person.
    #[must_use]
    pub fn people(&self) -> Vec<u8> {
        self.pads.iter().map(|(p, _)| *p).collect()
    }

    /// The keys the pads stand for: for each connected pad, each button
    /// held, the key `key_of(person, button)` names. Online, pass a
    /// `key_of` that ignores the person: every pad drives the one person
    /// at the page.
    #[must_use]
    pub fn keys(&self, key_of: impl Fn(u8, Button) -> Option<&'static str>) -> Vec<&'static str> {
        let mut keys = Vec::new();
        for (person, reading) in &self.pads {
            for b in reading.held() {
                if let Some(k) = key_of(*person, b) {
                    if !keys.contains(&k) {
                        keys.push(k);
                    }
                }
            }
        }
        keys
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::js::Stand;
    use serde_json::json;

    #[test]
    fn pads_are_read_as_the_browser_lists_them() {
        let nav = Stand(json!({"getGamepads": {"": [
            null,
            {"index": 1, "mapping": "standard", "connected": true,
             "buttons": [{"pressed": true}, {}, {"pressed": "yes"}], "axes": [0.5, "x"]},
            {"index": 2, "connected": false, "buttons": [], "axes": []},
            {"index": -3, "mapping": "", "buttons": "none"},
            {"index": 1e12}
        ]}}));
        let read = readings(&nav);
        assert_eq!(read.len(), 3);
        assert_eq!(
            read[0],
            Reading {
                index: 1,
                standard: true,
                pressed: vec![true, false, false],
                axes: vec![0.5, 0.0]
            }
        );
        assert_eq!((read[1].index, read[1].standard), (0, false));
        assert!(read[1].pressed.is_empty() && read[1].axes.is_empty());
        assert_eq!(read[2].index, u32::MAX);
        assert!(readings(&Stand(json!({}))).is_empty());
        assert!(readings(&Stand(json!({"getGamepads": {"": {"0": {}}}}))).is_empty());
    }

    fn pad(index: u32, held: &[Button]) -> Reading {
        Reading::pressing(index, held)
    }

    #[test]
    fn buttons_and_the_left_stick_read_as_held_buttons() {
        let mut r = pad(0, &[Button::South, Button::Right]);
        assert_eq!(r.held(), [Button::South, Button::Right]);
        r.axes = vec![-0.9, 0.6, 0.0, 0.0];
        assert_eq!(
            r.held(),
            [Button::South, Button::Down, Button::Left, Button::Right]
        );
        // A stick resting near the middle is not a direction; nor is NaN.
        r.axes = vec![0.3, f64::NAN];
        r.pressed = vec![false; 17];
        assert!(r.held().is_empty());
    }

    #[test]
    fn a_pad_without_the_standard_layout_gives_its_face_buttons_and_stick_only() {
        let mut r = pad(0, &[Button::West, Button::Start, Button::Up]);
        r.standard = false;
        r.axes = vec![1.0, 0.0];
        assert_eq!(r.held(), [Button::West, Button::Right]);
    }

    #[test]
    fn pads_take_people_in_order_and_a_new_pad_takes_the_freed_place() {
        let mut pads = Pads::default();
        assert!(pads.update(vec![pad(3, &[]), pad(7, &[])]));
        assert_eq!(pads.people(), [0, 1]);
        assert!(!pads.update(vec![pad(3, &[]), pad(7, &[Button::South])]));
        // Person 0's pad is unplugged: person 1 keeps their pad.
        assert!(pads.update(vec![pad(7, &[])]));
        assert_eq!(pads.people(), [1]);
        // The next pad plugged in plays for person 0 again.
        assert!(pads.update(vec![pad(9, &[Button::North]), pad(7, &[])]));
        assert_eq!(pads.people(), [0, 1]);
        let keys = pads.keys(|person, b| match (person, b) {
            (0, Button::North) => Some("KeyR"),
            _ => None,
        });
        assert_eq!(keys, ["KeyR"]);
    }

    #[test]
    fn held_buttons_become_the_keys_the_game_names_per_person() {
        let mut pads = Pads::default();
        pads.update(vec![
            pad(0, &[Button::Up, Button::South]),
            pad(1, &[Button::Up]),
        ]);
        let keys = pads.keys(|person, b| match (person, b) {
            (0, Button::Up) => Some("KeyW"),
            (0, Button::South) => Some("KeyF"),
            (1, Button::Up) => Some("ArrowUp"),
            _ => None,
        });
        assert_eq!(keys, ["KeyF", "KeyW", "ArrowUp"]);
        // Online every pad is the page's person: one key, once.
        assert_eq!(
            pads.keys(|_, b| (b == Button::Up).then_some("KeyW")),
            ["KeyW"]
        );
    }

    #[test]
    fn an_oversized_report_is_cut_never_trusted() {
        let mut pads = Pads::default();
        let big = Reading {
            index: 1,
            standard: true,
            pressed: vec![true; 10_000],
            axes: vec![0.0; 10_000],
        };
        pads.update(
            (0..100)
                .map(|i| Reading {
                    index: i,
                    ..big.clone()
                })
                .collect(),
        );
        assert_eq!(pads.count(), MAX_PADS);
        assert!(pads
            .pads
            .iter()
            .all(|(_, r)| r.pressed.len() <= MAX_CONTROLS));
    }
}
