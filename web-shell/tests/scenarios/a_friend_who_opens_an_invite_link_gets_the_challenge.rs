//! A player copies an invite link; a friend who opens it lands on the
//! lobby's name prompt, which says what the link will do, and once named
//! receives the inviter's challenge directly (no looking for the name in
//! the roster), answered as any other. Nothing goes to the lobby before
//! the friend gives a name.

use crate::common;

use common::World;
use web_shell::screens::Screen;
use web_shell::shell::{Action, PlayerAction};

fn note(w: &World, p: usize) -> Option<&'static str> {
    w.pages[p].shell.invite_note().map(|n| n.state)
}

#[test]
fn a_friend_who_opens_an_invite_link_gets_the_challenge() {
    let mut w = World::lobby("", &["Ada", "Bo"]);
    let ada = w.id(0);
    assert_eq!(w.pages[0].shell.invite_url(), None, "no link before asked");
    w.action(0, Action::CopyInvite);
    let link = w.pages[0]
        .copied
        .last()
        .cloned()
        .expect("the link was copied");
    assert_eq!(
        w.pages[0].shell.invite_url().as_deref(),
        Some(link.as_str())
    );
    let search = link
        .strip_prefix("http://service.test/")
        .expect("the link is this page's address");
    assert!(
        search.starts_with(&format!("?invite={}.", ada.as_str())),
        "{link}"
    );
    // The service said Ada is in lobby 0: the link names it.
    assert!(search.ends_with(".0"), "{link}");
    // Pressing again copies the same link while it is valid.
    w.action(0, Action::CopyInvite);
    assert_eq!(w.pages[0].copied, vec![link.clone(), link.clone()]);

    // The friend opens it: the name prompt, with the note, and no lobby
    // connection until a name is given.
    let cy = w.open(search);
    assert_eq!(w.screen(cy), Screen::Lobby);
    assert!(w.pages[cy].shell.screen_view().name_row);
    assert_eq!(note(&w, cy), Some("joining"));
    w.run(3_000);
    assert!(w.pages[cy].shell.lobby().is_none());
    assert!(
        w.pages[0].shell.lobby_view().unwrap().roster.len() == 1,
        "the friend is not in the lobby before naming itself"
    );

    w.action(cy, Action::Join("Cy".into()));
    w.run(500);
    assert!(
        w.lobby_asks.contains(&(cy, Some("0".to_owned()))),
        "the friend asks the service for the inviter's lobby: {:?}",
        w.lobby_asks
    );
    assert!(
        w.lobby_asks
            .iter()
            .all(|(p, ask)| *p == cy || ask.is_none()),
        "pages opened without an invite let the service place them"
    );
    w.until(5_000, "Cy sees Ada's challenge", |w| {
        w.pages[cy]
            .shell
            .lobby_view()
            .is_some_and(|v| v.prompts.iter().any(|p| p.id == ada))
    });
    assert_eq!(note(&w, cy), Some("challenged"));
    // The note names the inviter as the roster shows them.
    let shown = w.pages[cy].shell.lobby_view().unwrap().roster[0]
        .display
        .clone();
    let text = w.pages[cy].shell.invite_note().unwrap().text();
    assert_eq!(
        text,
        format!("{shown} challenges you, as the invite promised: answer above.")
    );
    let cy_id = w.id(cy);
    let on_ada = w.pages[0].shell.lobby_view().unwrap();
    let entry = on_ada.roster.iter().find(|r| r.id == cy_id).unwrap();
    assert_eq!(entry.our_challenge, Some("waiting for an answer"));
    // Ada is told why her page challenged someone by itself.
    assert!(on_ada
        .notices
        .iter()
        .any(|n| n.notice == web_shell::lobby::LobbyNotice::InviteArrived(entry.display.clone())));
    // Bo, who did not come by the link, was not challenged.
    assert!(w.pages[1].shell.lobby_view().unwrap().prompts.is_empty());

    // Answered as any challenge: the two play.
    w.input(
        cy,
        web_shell::shell::Input::Action(Action::Player(
            PlayerAction::Accept,
            ada.as_str().to_owned(),
        )),
    );
    w.until(10_000, "Ada and Cy play", |w| {
        w.screen(0) == Screen::Match && w.screen(cy) == Screen::Match
    });
    assert_eq!(note(&w, cy), None, "the answered invite says no more");
}
