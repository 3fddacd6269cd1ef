//! Escape pauses local play and goes on again, as does the Pause button;
//! an Escape typed into a text field, or held down (the key repeats), does
//! not toggle it, and a finished game has nothing to pause.

use crate::common;

use common::World;
use web_shell::canvas::DrawOp;
use web_shell::screens::Screen;
use web_shell::shell::{Action, Input, Shell, PAUSE_KEY};

/// The test game writes its tick on the canvas.
fn tick_drawn(shell: &mut Shell) -> u32 {
    shell
        .drawing(640.0, 1.0)
        .ops
        .iter()
        .find_map(|op| match op {
            DrawOp::FillText(_, _, t) => t.strip_prefix("tick ")?.parse().ok(),
            _ => None,
        })
        .expect("the test game draws its tick")
}

fn key(w: &mut World, down: bool, typing: bool) {
    w.input(
        0,
        Input::Key {
            code: PAUSE_KEY.to_owned(),
            down,
            typing,
        },
    );
}

#[test]
fn escape_pauses_local_play_and_goes_on() {
    let mut w = World::new(1, "");
    w.action(0, Action::ChooseLocal(vec![]));
    assert_eq!(w.screen(0), Screen::LocalPlay);
    w.run(500);
    key(&mut w, true, false);
    assert!(w.pages[0].shell.local_view().paused);
    // The key repeats while held: still paused.
    key(&mut w, true, false);
    key(&mut w, false, false);
    assert!(w.pages[0].shell.local_view().paused);
    let at = tick_drawn(&mut w.pages[0].shell);
    w.run(1_000);
    assert_eq!(tick_drawn(&mut w.pages[0].shell), at, "nothing moves");
    // Escape in a text field is the field's.
    key(&mut w, true, true);
    key(&mut w, false, true);
    assert!(w.pages[0].shell.local_view().paused);
    // Escape again goes on.
    key(&mut w, true, false);
    key(&mut w, false, false);
    assert!(!w.pages[0].shell.local_view().paused);
    w.run(500);
    assert!(tick_drawn(&mut w.pages[0].shell) > at, "the game goes on");
    // The button does the same.
    w.action(0, Action::Pause);
    assert!(w.pages[0].shell.local_view().paused);
    w.action(0, Action::Pause);
    assert!(!w.pages[0].shell.local_view().paused);
    // Leaving a paused game forgets the pause.
    w.action(0, Action::Pause);
    w.action(0, Action::Back);
    assert!(!w.pages[0].shell.local_view().paused);
}
