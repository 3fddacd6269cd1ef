//! A friend who comes by the link while the inviter plays a match hears
//! that the inviter is busy, and no challenge disturbs the match.

use crate::common;

use common::World;
use web_shell::screens::Screen;
use web_shell::shell::Action;

#[test]
fn an_inviter_busy_in_a_match_turns_the_friend_away() {
    let mut w = World::lobby("", &["Ada", "Bo"]);
    w.action(0, Action::CopyInvite);
    let link = w.pages[0].copied.last().cloned().unwrap();
    w.challenge_accepted(0, 1);
    w.until_both_play(10_000, 10);

    let cy = w.open(link.strip_prefix("http://service.test/").unwrap());
    w.action(cy, Action::Join("Cy".into()));
    w.until(5_000, "Cy hears Ada is busy", |w| {
        w.pages[cy].shell.invite_note().map(|n| n.state) == Some("busy")
    });
    assert_eq!(w.screen(0), Screen::Match, "the match goes on");
    assert_eq!(w.screen(1), Screen::Match);
    assert!(w.pages[cy].shell.lobby_view().unwrap().prompts.is_empty());
}
