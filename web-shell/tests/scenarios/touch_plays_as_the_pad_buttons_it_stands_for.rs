//! The touch overlay is a virtual pad for the page's first person: its
//! stick and buttons hold the keys the game names for those pad buttons,
//! so the input is the keys'. It shows by itself on a touch device, is
//! forced on or off with `?touch=`, and only while a game runs.

use crate::common;

use std::cell::RefCell;
use std::rc::Rc;

use lockstep::Millis;
use web_shell::front_end::{FrontEnd, Painter};
use web_shell::pad::Button;
use web_shell::shell::page::Patch;
use web_shell::shell::{lockstep_slot, Action, Input, Output, PageFacts, Shell, ShellConfig};
use web_shell::testing::TestDots;
use web_shell::touch::{Phase, Touch, Zone};

/// The test game with a pad and one touch button: the first person plays
/// the arrows (the pad's bottom button is Up), the second W A S D. It
/// keeps every input it made, by player.
struct Touchy(Rc<RefCell<Vec<Vec<u8>>>>);

const KEYS: [[&str; 4]; 2] = [
    ["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown"],
    ["KeyA", "KeyD", "KeyW", "KeyS"],
];

impl FrontEnd for Touchy {
    type Game = TestDots;
    fn name(&self) -> &'static str {
        "Touchy"
    }
    fn draw(&mut self, _: &TestDots, _: &mut dyn Painter) {}
    fn input(&self, held: &[&str], player: u8) -> u8 {
        KEYS[usize::from(player.min(1))]
            .iter()
            .enumerate()
            .filter(|(_, k)| held.contains(k))
            .fold(0, |acc, (bit, _)| acc | (1 << bit))
    }
    fn local_inputs(&mut self, _: &TestDots, held: &[&str]) -> Vec<u8> {
        let inputs = vec![self.input(held, 0), self.input(held, 1)];
        self.0.borrow_mut().push(inputs.clone());
        inputs
    }
    fn is_game_key(&self, code: &str) -> bool {
        KEYS.iter().flatten().any(|k| *k == code)
    }
    fn pad_key(&self, person: u8, button: Button) -> Option<&'static str> {
        let keys = KEYS[usize::from(person.min(1))];
        match button {
            Button::Left => Some(keys[0]),
            Button::Right => Some(keys[1]),
            Button::Up | Button::South => Some(keys[2]),
            Button::Down => Some(keys[3]),
            _ => None,
        }
    }
    fn touch_buttons(&self) -> &'static [(Button, &'static str)] {
        &[(Button::West, "Nothing"), (Button::South, "Jump")]
    }
}

struct Page {
    shell: Shell,
    now: Millis,
    inputs: Rc<RefCell<Vec<Vec<u8>>>>,
    patches: Vec<Patch>,
}

impl Page {
    fn new(search: &str, touch_device: bool) -> Page {
        let inputs = Rc::new(RefCell::new(Vec::new()));
        let facts = PageFacts {
            touch_device,
            ..common::facts(search)
        };
        let shell = Shell::with_game(
            lockstep_slot(Touchy(Rc::clone(&inputs))),
            ShellConfig::from_page(&facts),
            common::random(5),
        );
        let mut p = Page {
            shell,
            now: Millis(0),
            inputs,
            patches: Vec::new(),
        };
        p.drain();
        p
    }
    fn drain(&mut self) {
        while let Some(o) = self.shell.poll_output() {
            if let Output::Page(patches) = o {
                self.patches.extend(patches);
            }
        }
    }
    fn feed(&mut self, input: Input) {
        self.shell.handle(self.now, input);
        self.drain();
    }
    fn frame(&mut self) {
        self.now = self.now + Millis(17);
        self.feed(Input::Frame {
            clock: self.now.0 as f64,
        });
    }
    fn touch(&mut self, id: i32, phase: Phase, zone: Zone, x: f64, y: f64) {
        self.feed(Input::Touch(vec![Touch {
            id,
            phase,
            zone,
            x,
            y,
        }]));
    }
    /// Whether the page last showed the overlay.
    fn overlay_shown(&self) -> bool {
        self.patches
            .iter()
            .rev()
            .find_map(|p| match p {
                Patch::Shown("touch", shown) => Some(*shown),
                _ => None,
            })
            .unwrap_or(false)
    }
    fn last_inputs(&self) -> Vec<u8> {
        self.inputs.borrow().last().cloned().unwrap_or_default()
    }
}

#[test]
fn the_overlay_shows_on_touch_devices_while_a_game_runs_unless_told_otherwise() {
    for (search, device, shown) in [
        ("", true, true),
        ("", false, false),
        ("?touch=1", false, true),
        ("?touch=0", true, false),
        // A bad value is ignored: the device decides.
        ("?touch=yes", true, true),
        ("?touch=yes", false, false),
    ] {
        let mut p = Page::new(search, device);
        // The buttons carry the game's labels; the title shows no overlay.
        assert!(p
            .patches
            .iter()
            .any(|x| matches!(x, Patch::Children("touch-buttons", b) if b.len() == 2)));
        assert!(!p.overlay_shown(), "{search} {device}: not on the title");
        p.feed(Input::Action(Action::ChooseLocal(vec![])));
        assert_eq!(p.overlay_shown(), shown, "{search} {device}: in a game");
        assert_eq!(p.shell.touch_shown(), shown);
        p.feed(Input::Action(Action::Back));
        assert!(!p.overlay_shown(), "{search} {device}: back on the title");
    }
}

#[test]
fn a_game_without_pad_keys_gets_no_overlay() {
    struct Keys;
    impl FrontEnd for Keys {
        type Game = TestDots;
        fn name(&self) -> &'static str {
            "Keys"
        }
        fn draw(&mut self, _: &TestDots, _: &mut dyn Painter) {}
        fn input(&self, _: &[&str], _: u8) -> u8 {
            0
        }
        fn is_game_key(&self, _: &str) -> bool {
            false
        }
    }
    let facts = PageFacts {
        touch_device: true,
        ..common::facts("?touch=1")
    };
    let mut shell = Shell::with_game(
        lockstep_slot(Keys),
        ShellConfig::from_page(&facts),
        common::random(5),
    );
    shell.handle(Millis(0), Input::Action(Action::ChooseLocal(vec![])));
    assert!(!shell.touch_shown());
}

#[test]
fn the_stick_and_buttons_hold_the_first_persons_keys_in_local_play() {
    let mut p = Page::new("", true);
    // Before a game runs, touches are not taken.
    p.touch(1, Phase::Start, Zone::Button(1), 300.0, 300.0);
    assert!(p.shell.touch_held().is_empty());
    p.feed(Input::Action(Action::ChooseLocal(vec![])));
    p.frame();
    // The stick dragged left: the first person's Left, nobody else's.
    p.touch(2, Phase::Start, Zone::Stick, 100.0, 300.0);
    p.touch(2, Phase::Move, Zone::None, 40.0, 300.0);
    p.frame();
    assert_eq!(p.last_inputs(), [1, 0]);
    assert!(p
        .patches
        .contains(&Patch::Attr("touch", "data-stick", Some("left".into()))));
    // A second finger on Jump (the pad's bottom button, Up for this game).
    p.touch(3, Phase::Start, Zone::Button(1), 300.0, 300.0);
    p.frame();
    assert_eq!(p.last_inputs(), [1 | 4, 0]);
    assert!(p
        .patches
        .contains(&Patch::Attr("touch", "data-held", Some("1".into()))));
    // A button the game maps to no key holds nothing.
    p.touch(4, Phase::Start, Zone::Button(0), 260.0, 300.0);
    p.frame();
    assert_eq!(p.last_inputs(), [1 | 4, 0]);
    // Lifting and cancelling let go; keys still count alongside.
    p.touch(2, Phase::End, Zone::None, 40.0, 300.0);
    p.touch(3, Phase::Cancel, Zone::None, 0.0, 0.0);
    p.touch(4, Phase::End, Zone::None, 0.0, 0.0);
    p.feed(Input::Key {
        code: "KeyS".into(),
        down: true,
        typing: false,
    });
    p.frame();
    assert_eq!(p.last_inputs(), [0, 8]);
    // Leaving the game lets go of every finger still down.
    p.touch(5, Phase::Start, Zone::Stick, 100.0, 300.0);
    p.touch(5, Phase::Move, Zone::None, 100.0, 200.0);
    assert_eq!(p.shell.touch_held(), [Button::Up]);
    p.feed(Input::Action(Action::Back));
    assert!(p.shell.touch_held().is_empty());
}

#[test]
fn online_the_overlay_sends_the_byte_its_keys_send() {
    let mut w = common::World::lobby("?touch=1", &["Ada", "Bo"]);
    w.challenge_accepted(0, 1);
    w.until_both_play(20_000, 10);
    // The test game plays the arrows online; Right is bit 1, Up bit 2.
    w.input(
        1,
        Input::Key {
            code: "ArrowRight".into(),
            down: true,
            typing: false,
        },
    );
    w.run(200);
    let by_key = w.pages[1].shell.match_view().input.clone();
    assert_eq!(by_key.as_deref(), Some("02"));
    w.input(
        1,
        Input::Key {
            code: "ArrowRight".into(),
            down: false,
            typing: false,
        },
    );
    w.run(200);
    assert_eq!(w.pages[1].shell.match_view().input.as_deref(), Some("00"));
    let touch = |phase, x| {
        Input::Touch(vec![Touch {
            id: 7,
            phase,
            zone: Zone::Stick,
            x,
            y: 300.0,
        }])
    };
    w.input(1, touch(Phase::Start, 100.0));
    w.input(1, touch(Phase::Move, 160.0));
    w.run(200);
    assert_eq!(w.pages[1].shell.match_view().input, by_key);
    assert_eq!(w.pages[0].shell.match_view().input.as_deref(), Some("00"));
    w.input(1, touch(Phase::End, 160.0));
    w.run(200);
    assert_eq!(w.pages[1].shell.match_view().input.as_deref(), Some("00"));
}
