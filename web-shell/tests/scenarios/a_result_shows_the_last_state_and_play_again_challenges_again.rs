//! After an online match the result screen keeps the match's last
//! confirmed state on the court (the game draws it as its result), offers
//! Play again, which goes back to the lobby with a new challenge to the
//! same player, and Back to the lobby, which forgets the picture. In local
//! play, Play again starts the game over.

use crate::common;

use common::World;
use lockstep::Millis;
use web_shell::canvas::DrawOp;
use web_shell::screens::Screen;
use web_shell::shell::{Action, Input, Output, PlayerAction, Shell};

/// The test game writes its tick on the canvas: the tick drawn, if any.
fn tick_drawn(shell: &mut Shell) -> Option<u32> {
    shell
        .drawing(640.0, 1.0)
        .ops
        .iter()
        .find_map(|op| match op {
            DrawOp::FillText(_, _, t) => t.strip_prefix("tick ")?.parse().ok(),
            _ => None,
        })
}

#[test]
fn a_result_shows_the_last_state_and_play_again_challenges_again() {
    let mut w = World::lobby("", &["Ada", "Bo"]);
    w.challenge_accepted(0, 1);
    w.until(5_000, "both run the match", |w| {
        (0..2).all(|p| w.pages[p].shell.match_view().tick > Some(90))
    });
    w.action(1, Action::Leave);
    w.until(2_000, "both show a result", |w| {
        (0..2).all(|p| matches!(w.screen(p), Screen::Result { .. }))
    });
    for p in 0..2 {
        let v = w.pages[p].shell.screen_view();
        assert!(v.court(), "the court stays under the result");
        let confirmed = w.pages[p].shell.match_view().tick.unwrap();
        assert_eq!(
            tick_drawn(&mut w.pages[p].shell),
            Some(confirmed),
            "the last confirmed state is drawn"
        );
    }

    // Each frame paints the result again, so a window resized on the
    // result screen shows it at its new size.
    for p in 0..2 {
        let now = w.now + Millis(100);
        let shell = &mut w.pages[p].shell;
        shell.handle(
            now,
            Input::Frame {
                clock: now.0 as f64,
            },
        );
        let mut painted = false;
        while let Some(out) = shell.poll_output() {
            painted |= out == Output::Paint;
        }
        assert!(painted, "a frame on the result screen paints it");
    }

    // Bo goes back to the lobby: the picture is gone.
    w.action(1, Action::Continue);
    assert_eq!(w.screen(1), Screen::Lobby);
    assert!(!w.pages[1].shell.screen_view().court());
    assert_eq!(tick_drawn(&mut w.pages[1].shell), None);

    // Ada plays again: back in the lobby with a new challenge to Bo.
    w.run(300);
    w.action(0, Action::PlayAgain);
    assert_eq!(w.screen(0), Screen::Lobby);
    w.until(2_000, "Bo is challenged again", |w| {
        w.pages[1]
            .shell
            .lobby_view()
            .is_some_and(|v| v.roster[0].challenged_us)
    });
    // The prompt counts the time left to answer down.
    let left = |w: &World| w.pages[1].shell.lobby_view().unwrap().prompts[0].seconds_left;
    let first = left(&w);
    assert!((29..=30).contains(&first), "{first}");
    w.run(2_000);
    assert_eq!(left(&w), first - 2);
    w.press(1, PlayerAction::Accept, 0);
    assert!(w.pages[1].shell.lobby_view().unwrap().prompts.is_empty());
    w.until(5_000, "the second match runs", |w| {
        (0..2)
            .all(|p| w.screen(p) == Screen::Match && w.pages[p].shell.match_view().tick > Some(10))
    });
}

#[test]
fn play_again_starts_a_local_game_over() {
    let mut w = World::new(1, "");
    w.action(0, Action::ChooseLocal(vec![]));
    assert_eq!(w.screen(0), Screen::LocalPlay);
    w.run(2_000);
    let before = tick_drawn(&mut w.pages[0].shell).expect("a tick drawn");
    assert!(before > 60, "{before}");
    w.action(0, Action::PlayAgain);
    assert_eq!(w.screen(0), Screen::LocalPlay);
    assert_eq!(tick_drawn(&mut w.pages[0].shell), Some(0), "a new game");
    w.run(500);
    assert!(tick_drawn(&mut w.pages[0].shell).is_some_and(|t| t > 0 && t < before));
}
