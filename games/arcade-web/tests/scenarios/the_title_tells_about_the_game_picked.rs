//! The arcade's title says what the game picked is and how to play it (its
//! own tagline, keys and rules), then how the hub goes on: the game
//! remembered from the last visit at start-up, and each game as the
//! player picks it.
use crate::common;

use lockstep::Millis;
use web_shell::shell::page::Patch;
use web_shell::shell::{Action, GameSlot, Input, Output, PageFacts, Shell, ShellConfig};

fn facts() -> PageFacts {
    PageFacts {
        origin: "http://service.test".into(),
        has_webrtc: true,
        has_random: true,
        ..PageFacts::default()
    }
}

/// The last tagline and key table the shell wrote since the last call.
fn about_written(shell: &mut Shell) -> Option<(String, String)> {
    let mut about = None;
    while let Some(out) = shell.poll_output() {
        let Output::Page(patches) = out else { continue };
        let tagline = patches.iter().find_map(|p| match p {
            Patch::Text("tagline", t) => Some(t.clone()),
            _ => None,
        });
        let keys = patches.iter().find_map(|p| match p {
            Patch::Children("controls", rows) => Some(format!("{rows:?}")),
            _ => None,
        });
        if let (Some(t), Some(k)) = (tagline, keys) {
            about = Some((t, k));
        }
    }
    about
}

#[test]
fn the_title_tells_about_the_game_remembered_then_the_one_picked() {
    let (hub, _, _) = common::hub(1);
    let tagline = |g: usize| {
        let (mut hub, _, _) = common::hub(1);
        hub.pick(g);
        hub.about().tagline
    };
    let (arena, dots) = (tagline(0), tagline(2));
    assert_ne!(arena, dots, "each game has its own words");

    let mut cfg = ShellConfig::from_page(&facts());
    cfg.stored_game = Some("Dots".to_owned());
    let mut shell = Shell::with_game(Box::new(hub), cfg, Box::new(|_: &mut [u8]| true));
    let (said, keys) = about_written(&mut shell).expect("the title tells about a game");
    assert_eq!(said, dots, "the game remembered");
    assert!(keys.contains("1, 2, 3"), "and the hub's keys: {keys}");

    shell.handle(Millis(10), Input::Action(Action::ChooseGame(0)));
    let (said, _) = about_written(&mut shell).expect("the title tells about the game picked");
    assert_eq!(said, arena);
}

/// The options the shell last showed and hid, by element id.
fn options_written(shell: &mut Shell) -> Vec<(&'static str, bool)> {
    let mut shown = Vec::new();
    while let Some(out) = shell.poll_output() {
        let Output::Page(patches) = out else { continue };
        for p in patches {
            if let Patch::Shown(id, s) = p {
                if id.starts_with("local-optw-") {
                    shown.retain(|(i, _)| *i != id);
                    shown.push((id, s));
                }
            }
        }
    }
    shown
}

#[test]
fn the_title_offers_only_the_choices_of_the_game_picked() {
    let (hub, _, _) = common::hub(1);
    // The choice of game, then each game's own choices in order.
    let labels: Vec<&str> = hub.local_options().iter().map(|o| o.label).collect();
    let dots = labels
        .iter()
        .position(|l| l.starts_with("Dots: "))
        .expect("dots has choices of its own");
    let mut cfg = ShellConfig::from_page(&facts());
    cfg.stored_game = Some("Dots".to_owned());
    let mut shell = Shell::with_game(Box::new(hub), cfg, Box::new(|_: &mut [u8]| true));
    let shown = options_written(&mut shell);
    assert_eq!(shown.len(), labels.len(), "every option is shown or hidden");
    for (i, (_, s)) in shown.iter().enumerate() {
        assert_eq!(
            *s,
            i == 0 || i == dots,
            "option {i} ({}) with dots picked",
            labels[i]
        );
    }
    // The arena has no choices of its own: only the game's is shown.
    shell.handle(Millis(10), Input::Action(Action::ChooseGame(0)));
    let shown = options_written(&mut shell);
    assert!(
        shown.iter().all(|(id, s)| *s == (*id == "local-optw-0")),
        "{shown:?}"
    );
}

#[test]
fn a_pick_out_of_the_list_changes_nothing() {
    let (mut hub, _, _) = common::hub(1);
    hub.pick(2);
    let before = hub.about();
    hub.pick(7);
    assert_eq!(hub.about(), before);
    assert!(
        before.how_to_play.len() > 2,
        "the game's rules and the hub's"
    );
}
