//! A match of two that a lobby player watches: the guest's page is
//! reloaded in the middle of it and comes back into its slot. The
//! spectator, linked to the host alone, watches on the whole time (its
//! watch neither ends nor stalls for good), the host still counts it, and
//! when the host leaves, the three pages' logs agree on the ticks the
//! spectator confirmed, the part after the reload included.

use crate::common;

use common::World;
use web_shell::screens::Screen;
use web_shell::shell::{Action, PlayerAction};

#[test]
fn a_spectator_watches_on_while_a_guest_reloads() {
    let mut w = World::lobby("", &["Ada", "Bo", "Cy"]);
    w.challenge_accepted(0, 1);
    w.until_both_play(5_000, 60);
    w.press(2, PlayerAction::Watch, 0);
    w.until(10_000, "Cy watches", |w| {
        w.screen(2) == Screen::Match && w.pages[2].shell.match_view().tick > Some(120)
    });
    w.run(1_100);

    w.reload(1, "");
    w.until(15_000, "Bo is back in the match", |w| {
        w.screen(1) == Screen::Match && w.pages[1].shell.match_view().rejoined.is_some()
    });
    let back_at = w.pages[1].shell.match_view().rejoined.unwrap();
    assert_eq!(w.screen(2), Screen::Match, "Cy never stopped watching");
    w.until(5_000, "Cy watches past Bo's return", |w| {
        w.pages[2].shell.match_view().tick > Some(back_at + 60)
    });
    assert_eq!(w.pages[0].shell.match_view().watching, 1, "Ada counts Cy");

    w.action(0, Action::Leave);
    w.until(5_000, "every page shows a result", |w| {
        (0..3).all(|p| matches!(w.screen(p), Screen::Result { .. }))
    });
    let last = w.pages[2]
        .shell
        .match_view()
        .tick
        .expect("the spectator confirmed ticks");
    assert!(last > back_at + 60);
    let host = w.pages[0].shell.log_hash_at(last);
    assert!(host.is_some(), "the host's log reaches tick {last}");
    for p in [1, 2] {
        assert_eq!(
            w.pages[p].shell.log_hash_at(last),
            host,
            "page {p} at tick {last}"
        );
    }
}
