//! A game for two (no parties) is watched as any other: its page runs a
//! spectator's session, so the roster offers Watch next to its players in
//! a match, and a lobby player who presses it sees the match.

use crate::common;

use common::World;
use web_shell::screens::Screen;
use web_shell::shell::PlayerAction;

#[test]
fn a_match_of_a_game_for_two_is_watched_too() {
    // The shell's test game takes no parties.
    let mut w = World::lobby("", &["Ada", "Bo", "Cy"]);
    w.challenge_accepted(0, 1);
    w.until_both_play(5_000, 60);
    w.until(2_000, "Cy may watch the two", |w| {
        let roster = w.pages[2].shell.lobby_view().unwrap().roster;
        roster.iter().filter(|r| r.can_watch).count() == 2
    });
    w.press(2, PlayerAction::Watch, 0);
    w.until(10_000, "Cy watches", |w| {
        w.screen(2) == Screen::Match && w.pages[2].shell.match_view().tick > Some(120)
    });
    w.until(3_000, "both players count one watching", |w| {
        (0..2).all(|p| w.pages[p].shell.match_view().watching == 1)
    });
}
