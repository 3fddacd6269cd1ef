//! The touch overlay: an on-screen stick and buttons, read as a virtual
//! gamepad for the page's first person.
//!
//! The overlay has two kinds of zone. A finger that comes down in the stick
//! zone holds the stick: its offset from where it came down gives the
//! directions, once past [`DEAD_ZONE`] along an axis (and not much smaller
//! than the offset along the other, so a slight drift is not a diagonal).
//! A finger that comes down on one of the game's buttons holds that button
//! until it lifts, wherever it slides. Fingers are independent: one can
//! steer while another shoots. A finger that lifts or is cancelled (the
//! browser took the touch over, say) lets go of what it held.
//!
//! Which buttons there are is the game's business
//! ([`FrontEnd::touch_buttons`](crate::front_end::FrontEnd::touch_buttons));
//! the overlay only knows their place in that list. The shell turns what is
//! held into keys as for a gamepad
//! ([`FrontEnd::pad_key`](crate::front_end::FrontEnd::pad_key)), so the
//! input byte is the key's.

use crate::pad::Button;

/// How far (CSS px) a finger on the stick must move from where it came
/// down, along an axis, before that direction counts.
pub const DEAD_ZONE: f64 = 16.0;

/// The most fingers followed at once; a touch beyond them is ignored
/// until one lifts.
pub const MAX_FINGERS: usize = 10;

/// The most buttons an overlay shows; a game that names more has the rest
/// left off.
pub const MAX_BUTTONS: usize = 8;

/// What a touch reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// A finger came down.
    Start,
    /// A finger moved.
    Move,
    /// A finger lifted.
    End,
    /// The browser cancelled the touch.
    Cancel,
}

/// Where on the overlay a finger came down.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Zone {
    /// The stick's area.
    Stick,
    /// The button at this place in the game's list.
    Button(usize),
    /// Anywhere else on the overlay (nothing to hold).
    None,
}

impl Zone {
    /// The zone of the nearest `data-touch` attribute around where a
    /// finger came down: `stick` (the page's stick), a button's place in
    /// the game's list (as [`touch_buttons`](crate::shell::page::touch_buttons)
    /// writes it), or, for no attribute or anything else, no zone.
    pub fn from_attr(attr: Option<&str>) -> Zone {
        match attr {
            Some("stick") => Zone::Stick,
            Some(n) => n.parse().map_or(Zone::None, Zone::Button),
            None => Zone::None,
        }
    }
}

/// One finger's change, as the browser reports it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Touch {
    /// The browser's identifier of the finger, stable while it touches.
    pub id: i32,
    /// What happened.
    pub phase: Phase,
    /// Where the finger came down (read for [`Phase::Start`] only).
    pub zone: Zone,
    /// The position relative to the overlay's top left, in CSS px.
    pub x: f64,
    /// See `x`; down is positive.
    pub y: f64,
}

impl Touch {
    /// A finger's change as the page reads it: the finger's position on
    /// the screen (`client`) less the overlay's top left (`origin`), and
    /// the `data-touch` of the nearest part of the overlay it is on.
    #[must_use]
    pub fn read(
        id: i32,
        phase: Phase,
        part: Option<&str>,
        client: (f64, f64),
        origin: (f64, f64),
    ) -> Touch {
        Touch {
            id,
            phase,
            zone: Zone::from_attr(part),
            x: client.0 - origin.0,
            y: client.1 - origin.1,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Hold {
    /// The stick: where the finger came down and where it is now.
    Stick {
        from: (f64, f64),
        at: (f64, f64),
    },
    Button(usize),
}

/// The fingers on the overlay and what each holds.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Overlay {
    fingers: Vec<(i32, Hold)>,
}

impl Overlay {
    /// Takes one finger's change. Returns `true` if what is held may have
    /// changed. A touch with a position that is not a number is ignored.
    pub fn touch(&mut self, t: Touch) -> bool {
        if !(t.x.is_finite() && t.y.is_finite()) {
            return false;
        }
        let at = (t.x, t.y);
        let slot = self.fingers.iter().position(|(id, _)| *id == t.id);
        match (t.phase, slot) {
            (Phase::Start, Some(i)) => {
                // A finger we think is down comes down again: a lost end.
                // Take the new touch in its place.
                self.fingers.remove(i);
                self.start(t.id, t.zone, at)
            }
            (Phase::Start, None) => self.start(t.id, t.zone, at),
            (Phase::Move, Some(i)) => match &mut self.fingers[i].1 {
                Hold::Stick { at: now, .. } => {
                    *now = at;
                    true
                }
                Hold::Button(_) => false,
            },
            (Phase::End | Phase::Cancel, Some(i)) => {
                self.fingers.remove(i);
                true
            }
            (_, None) => false,
        }
    }

    fn start(&mut self, id: i32, zone: Zone, at: (f64, f64)) -> bool {
        if self.fingers.len() >= MAX_FINGERS {
            return false;
        }
        let hold = match zone {
            // One finger steers; a second one in the stick zone does not.
            Zone::Stick if self.stick().is_none() => Hold::Stick { from: at, at },
            Zone::Button(i) if i < MAX_BUTTONS => Hold::Button(i),
            _ => return false,
        };
        self.fingers.push((id, hold));
        true
    }

    fn stick(&self) -> Option<((f64, f64), (f64, f64))> {
        self.fingers.iter().find_map(|(_, h)| match h {
            Hold::Stick { from, at } => Some((*from, *at)),
            Hold::Button(_) => None,
        })
    }

    /// Lets go of everything (the overlay was hidden).
    pub fn release_all(&mut self) {
        self.fingers.clear();
    }

    /// How many fingers hold something.
    #[must_use]
    pub fn fingers(&self) -> usize {
        self.fingers.len()
    }

    /// The stick's offset from where its finger came down, if a finger
    /// holds it (for drawing the knob).
    #[must_use]
    pub fn stick_offset(&self) -> Option<(f64, f64)> {
        self.stick().map(|(f, a)| (a.0 - f.0, a.1 - f.1))
    }

    /// The places (in the game's list) of the buttons held, in order.
    #[must_use]
    pub fn buttons_held(&self) -> Vec<usize> {
        let mut held: Vec<usize> = self
            .fingers
            .iter()
            .filter_map(|(_, h)| match h {
                Hold::Button(i) => Some(*i),
                Hold::Stick { .. } => None,
            })
            .collect();
        held.sort_unstable();
        held.dedup();
        held
    }

    /// What the overlay holds as gamepad buttons: the stick's directions,
    /// then each held button of `buttons` (the game's list).
    #[must_use]
    pub fn held(&self, buttons: &[Button]) -> Vec<Button> {
        let mut held = Vec::new();
        if let Some((dx, dy)) = self.stick_offset() {
            // A direction counts past the dead zone, unless the other axis
            // is more than twice as far off (then it is that axis alone).
            let counts = |d: f64, other: f64| d.abs() >= DEAD_ZONE && d.abs() * 2.0 >= other.abs();
            if counts(dy, dx) {
                held.push(if dy < 0.0 { Button::Up } else { Button::Down });
            }
            if counts(dx, dy) {
                held.push(if dx < 0.0 {
                    Button::Left
                } else {
                    Button::Right
                });
            }
        }
        for i in self.buttons_held() {
            if let Some(&b) = buttons.get(i) {
                if !held.contains(&b) {
                    held.push(b);
                }
            }
        }
        held
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(id: i32, phase: Phase, zone: Zone, x: f64, y: f64) -> Touch {
        Touch {
            id,
            phase,
            zone,
            x,
            y,
        }
    }

    const BUTTONS: [Button; 2] = [Button::South, Button::West];

    #[test]
    fn the_zone_is_read_from_what_the_page_writes() {
        assert_eq!(Zone::from_attr(Some("stick")), Zone::Stick);
        assert_eq!(Zone::from_attr(Some("3")), Zone::Button(3));
        assert_eq!(Zone::from_attr(Some("-1")), Zone::None);
        assert_eq!(Zone::from_attr(Some("Stick")), Zone::None);
        assert_eq!(Zone::from_attr(None), Zone::None);
        let read = Touch::read(7, Phase::Move, Some("stick"), (110.0, 420.5), (10.0, 400.0));
        assert_eq!(read, t(7, Phase::Move, Zone::Stick, 100.0, 20.5));
    }

    #[test]
    fn the_stick_gives_directions_past_the_dead_zone() {
        let mut o = Overlay::default();
        assert!(o.touch(t(1, Phase::Start, Zone::Stick, 100.0, 300.0)));
        assert!(o.held(&BUTTONS).is_empty());
        // Within the dead zone: nothing.
        o.touch(t(1, Phase::Move, Zone::None, 90.0, 305.0));
        assert!(o.held(&BUTTONS).is_empty());
        // Left, with a little drift down: left alone.
        o.touch(t(1, Phase::Move, Zone::None, 60.0, 310.0));
        assert_eq!(o.held(&BUTTONS), [Button::Left]);
        // Up and right together.
        o.touch(t(1, Phase::Move, Zone::None, 140.0, 260.0));
        assert_eq!(o.held(&BUTTONS), [Button::Up, Button::Right]);
        // Straight down, far.
        o.touch(t(1, Phase::Move, Zone::None, 105.0, 400.0));
        assert_eq!(o.held(&BUTTONS), [Button::Down]);
        assert!(o.touch(t(1, Phase::End, Zone::None, 105.0, 400.0)));
        assert!(o.held(&BUTTONS).is_empty());
        assert_eq!(o.fingers(), 0);
    }

    #[test]
    fn a_button_is_held_until_its_finger_lifts_wherever_it_slides() {
        let mut o = Overlay::default();
        o.touch(t(4, Phase::Start, Zone::Button(1), 300.0, 300.0));
        assert_eq!(o.held(&BUTTONS), [Button::West]);
        assert!(!o.touch(t(4, Phase::Move, Zone::None, 0.0, 0.0)));
        assert_eq!(o.held(&BUTTONS), [Button::West]);
        o.touch(t(4, Phase::Cancel, Zone::None, 0.0, 0.0));
        assert!(o.held(&BUTTONS).is_empty());
    }

    #[test]
    fn fingers_are_independent() {
        let mut o = Overlay::default();
        o.touch(t(1, Phase::Start, Zone::Stick, 100.0, 100.0));
        o.touch(t(2, Phase::Start, Zone::Button(0), 300.0, 100.0));
        o.touch(t(3, Phase::Start, Zone::Button(1), 340.0, 100.0));
        // A second finger in the stick zone does not take the stick over.
        assert!(!o.touch(t(5, Phase::Start, Zone::Stick, 10.0, 10.0)));
        o.touch(t(1, Phase::Move, Zone::None, 200.0, 100.0));
        assert_eq!(
            o.held(&BUTTONS),
            [Button::Right, Button::South, Button::West]
        );
        o.touch(t(2, Phase::End, Zone::None, 0.0, 0.0));
        assert_eq!(o.held(&BUTTONS), [Button::Right, Button::West]);
        // Two fingers on one button: held until both lift.
        o.touch(t(6, Phase::Start, Zone::Button(1), 340.0, 100.0));
        o.touch(t(3, Phase::End, Zone::None, 0.0, 0.0));
        assert_eq!(o.held(&BUTTONS), [Button::Right, Button::West]);
        o.release_all();
        assert!(o.held(&BUTTONS).is_empty());
    }

    #[test]
    fn bad_touches_are_ignored_and_counts_are_bounded() {
        let mut o = Overlay::default();
        // Off the overlay's parts, unknown fingers, positions not numbers,
        // button places past the limit or the game's list.
        assert!(!o.touch(t(1, Phase::Start, Zone::None, 1.0, 1.0)));
        assert!(!o.touch(t(9, Phase::Move, Zone::None, 1.0, 1.0)));
        assert!(!o.touch(t(9, Phase::End, Zone::None, 1.0, 1.0)));
        assert!(!o.touch(t(2, Phase::Start, Zone::Stick, f64::NAN, 1.0)));
        assert!(!o.touch(t(3, Phase::Start, Zone::Button(MAX_BUTTONS), 1.0, 1.0)));
        o.touch(t(4, Phase::Start, Zone::Button(7), 1.0, 1.0));
        assert!(o.held(&BUTTONS).is_empty());
        for id in 10..100 {
            o.touch(t(id, Phase::Start, Zone::Button(0), 1.0, 1.0));
        }
        assert_eq!(o.fingers(), MAX_FINGERS);
        // A start for a finger already down replaces it (its end was lost).
        o.touch(t(10, Phase::Start, Zone::Button(1), 1.0, 1.0));
        assert_eq!(o.fingers(), MAX_FINGERS);
        assert_eq!(o.buttons_held(), [0, 1, 7]);
    }
}
