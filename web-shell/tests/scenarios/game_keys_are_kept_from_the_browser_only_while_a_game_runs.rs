//! The keyboard policy: while a game runs, its keys are kept from the
//! browser (no scrolling on the arrows, no quick find), but never a key
//! typed into a text field, never one with a modifier (Ctrl+F stays the
//! browser's), and never outside a game; a press typed into a field does
//! not move the game.

use lockstep::Millis;
use web_shell::front_end::Painter;
use web_shell::shell::{Action, Input, Shell};

use crate::common;

/// Records the test game's dots, which show where the game is.
#[derive(Default)]
struct Dots(Vec<(f64, f64)>);

impl Painter for Dots {
    fn size(&self) -> (f64, f64) {
        (320.0, 180.0)
    }
    fn clear(&mut self, _: &str) {}
    fn rect(&mut self, _: f64, _: f64, _: f64, _: f64, _: &str) {}
    fn circle(&mut self, x: f64, y: f64, _: f64, _: &str) {
        self.0.push((x, y));
    }
    fn text(&mut self, _: f64, _: f64, _: &str, _: &str) {}
}

fn frames(shell: &mut Shell, clock: &mut f64, n: u32) {
    for _ in 0..n {
        *clock += 1000.0 / 60.0;
        shell.handle(Millis(*clock as u64), Input::Frame { clock: *clock });
        while shell.poll_output().is_some() {}
    }
}

fn dots(shell: &mut Shell) -> Vec<(f64, f64)> {
    let mut d = Dots::default();
    shell.paint(&mut d);
    d.0
}

#[test]
fn game_keys_are_kept_from_the_browser_only_while_a_game_runs() {
    let mut shell = common::shell("", 7);
    let key =
        |s: &Shell, code, down, typing, modifier| s.captures_key(code, down, typing, modifier);
    // On the title screen the arrows scroll as usual.
    assert!(!key(&shell, "ArrowDown", true, false, false));
    shell.handle(Millis(0), Input::Action(Action::ChooseLocal(vec![0])));
    while shell.poll_output().is_some() {}
    // In a game: the game's keys, pressed and released, are kept...
    assert!(key(&shell, "ArrowDown", true, false, false));
    assert!(key(&shell, "ArrowDown", false, false, false));
    // ...but not other keys, not with a modifier, not while typing.
    assert!(!key(&shell, "KeyQ", true, false, false));
    assert!(!key(&shell, "KeyA", true, false, true));
    assert!(!key(&shell, "ArrowDown", true, true, false));
    assert!(!key(&shell, "ArrowDown", false, true, false));

    // A press typed into a field does not move the game; a real one does.
    let mut clock = 0.0;
    frames(&mut shell, &mut clock, 2);
    let start = dots(&mut shell);
    let press = |shell: &mut Shell, typing| {
        shell.handle(
            Millis(0),
            Input::Key {
                code: "ArrowRight".into(),
                down: true,
                typing,
            },
        );
    };
    press(&mut shell, true);
    frames(&mut shell, &mut clock, 10);
    assert_eq!(dots(&mut shell), start, "typing is not playing");
    press(&mut shell, false);
    frames(&mut shell, &mut clock, 10);
    assert_ne!(dots(&mut shell), start, "the dot moved");
}
