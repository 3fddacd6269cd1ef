//! A gamepad plays as the keys its game says each button stands for: in
//! local play each pad for its own person, online every pad for the one
//! person at the page. Start pauses local play once per press, and the
//! title page lists the pad's buttons while a pad is connected.

use crate::common;

use std::cell::RefCell;
use std::rc::Rc;

use lockstep::Millis;
use web_shell::front_end::{FrontEnd, Painter};
use web_shell::pad::{Button, Reading};
use web_shell::shell::{lockstep_slot, Action, Input, Output, Shell, ShellConfig};
use web_shell::testing::{TestDots, TestDotsFrontEnd};

/// The test game's front end (its first person's pad stands for the
/// arrows, the second's for W A S D), with the title's pad lines, keeping
/// every input it made, by player.
struct Padded(Rc<RefCell<Vec<Vec<u8>>>>);

fn test_game() -> TestDotsFrontEnd {
    TestDotsFrontEnd::default()
}

impl FrontEnd for Padded {
    type Game = TestDots;
    fn name(&self) -> &'static str {
        "Padded"
    }
    fn draw(&mut self, _: &TestDots, _: &mut dyn Painter) {}
    fn input(&self, held: &[&str], player: u8) -> u8 {
        test_game().input(held, player)
    }
    fn local_inputs(&mut self, _: &TestDots, held: &[&str]) -> Vec<u8> {
        let inputs = vec![self.input(held, 0), self.input(held, 1)];
        self.0.borrow_mut().push(inputs.clone());
        inputs
    }
    fn is_game_key(&self, code: &str) -> bool {
        test_game().is_game_key(code)
    }
    fn pad_key(&self, person: u8, button: Button) -> Option<&'static str> {
        test_game().pad_key(person, button)
    }
    fn pad_controls(&self) -> &'static [(&'static str, &'static str)] {
        &[("Pad: d-pad", "move")]
    }
}

fn pad(index: u32, held: &[Button]) -> Reading {
    Reading::pressing(index, held)
}

struct Page {
    shell: Shell,
    now: Millis,
    inputs: Rc<RefCell<Vec<Vec<u8>>>>,
    /// Every title-page patch list the shell asked for, as debug text.
    pages: Vec<String>,
}

impl Page {
    fn new() -> Page {
        let inputs = Rc::new(RefCell::new(Vec::new()));
        let shell = Shell::with_game(
            lockstep_slot(Padded(Rc::clone(&inputs))),
            ShellConfig::from_page(&common::facts("")),
            common::random(5),
        );
        let mut p = Page {
            shell,
            now: Millis(0),
            inputs,
            pages: Vec::new(),
        };
        p.drain();
        p
    }
    fn drain(&mut self) {
        while let Some(o) = self.shell.poll_output() {
            if let Output::Page(patches) = o {
                self.pages.push(format!("{patches:?}"));
            }
        }
    }
    fn feed(&mut self, input: Input) {
        self.shell.handle(self.now, input);
        self.drain();
    }
    /// One 60 Hz frame with these pads connected.
    fn frame(&mut self, pads: Vec<Reading>) {
        self.now = self.now + Millis(17);
        self.feed(Input::Pads(pads));
        self.feed(Input::Frame {
            clock: self.now.0 as f64,
        });
    }
    fn last_inputs(&self) -> Vec<u8> {
        self.inputs.borrow().last().cloned().unwrap_or_default()
    }
}

#[test]
fn each_pad_plays_for_its_own_person_in_local_play() {
    let mut p = Page::new();
    p.feed(Input::Action(Action::ChooseLocal(vec![])));
    p.frame(vec![pad(0, &[Button::Right]), pad(1, &[Button::Up])]);
    p.frame(vec![pad(0, &[Button::Right]), pad(1, &[Button::Up])]);
    // Right is bit 1 of the first person's input, W bit 2 of the second's.
    assert_eq!(p.last_inputs(), [2, 4]);
    // The left stick counts as the d-pad.
    let mut stick = pad(0, &[]);
    stick.axes = vec![-1.0, 0.0, 0.0, 0.0];
    p.frame(vec![stick]);
    p.frame(vec![]);
    let inputs = p.inputs.borrow().clone();
    assert!(
        inputs.contains(&vec![1, 0]),
        "the stick went left: {inputs:?}"
    );
    assert_eq!(p.last_inputs(), [0, 0], "an unplugged pad holds nothing");
    // Keys and pads together.
    p.feed(Input::Key {
        code: "KeyS".into(),
        down: true,
        typing: false,
    });
    p.frame(vec![pad(0, &[Button::Up])]);
    assert_eq!(p.last_inputs(), [4, 8]);
}

#[test]
fn start_pauses_once_per_press_and_the_title_lists_the_pad() {
    let mut p = Page::new();
    assert!(!p.pages.iter().any(|x| x.contains("Pad: d-pad")));
    p.frame(vec![pad(0, &[])]);
    assert!(
        p.pages.last().is_some_and(|x| x.contains("Pad: d-pad")),
        "the pad's lines appear on the title once a pad is connected"
    );
    p.frame(vec![]);
    assert!(
        p.pages.last().is_some_and(|x| !x.contains("Pad: d-pad")),
        "and go when it is unplugged"
    );
    p.feed(Input::Action(Action::ChooseLocal(vec![])));
    p.frame(vec![pad(0, &[Button::Start])]);
    assert!(p.shell.local_view().paused);
    // Held down: still paused, not toggled each frame.
    for _ in 0..5 {
        p.frame(vec![pad(0, &[Button::Start])]);
    }
    assert!(p.shell.local_view().paused);
    p.frame(vec![pad(0, &[])]);
    p.frame(vec![pad(0, &[Button::Start])]);
    assert!(!p.shell.local_view().paused);
    // Start is the page's, not the game's: it never reaches an input.
    assert!(p.inputs.borrow().iter().all(|i| i == &vec![0, 0]));
}

#[test]
fn online_every_pad_drives_the_one_person_at_the_page() {
    let mut w = common::World::lobby("", &["Ada", "Bo"]);
    w.challenge_accepted(0, 1);
    w.until_both_play(20_000, 10);
    // Bo has two pads: the second one's Up counts as Bo's too (online the
    // test game's first person plays the arrows: Right is bit 1, Up bit 2).
    w.input(
        1,
        Input::Pads(vec![pad(0, &[Button::Right]), pad(4, &[Button::Up])]),
    );
    w.run(200);
    assert_eq!(w.pages[1].shell.match_view().input.as_deref(), Some("06"));
    assert_eq!(w.pages[0].shell.match_view().input.as_deref(), Some("00"));
    w.input(1, Input::Pads(vec![]));
    w.run(200);
    assert_eq!(w.pages[1].shell.match_view().input.as_deref(), Some("00"));
}
