//! A link with the inviter's real id but a code its page never made is
//! refused by that page, and the friend's page says so plainly; a link that
//! is cut short or garbled is told apart at once, on the name prompt, and
//! sends nothing to anyone.

use crate::common;

use common::World;
use web_shell::shell::Action;

#[test]
fn a_forged_or_damaged_invite_link_says_so() {
    let mut w = World::lobby("", &["Ada"]);
    w.action(0, Action::CopyInvite);
    let ada = w.id(0);

    let forged = w.open(&format!("?invite={}.AAAAAAAAAAAA", ada.as_str()));
    assert_eq!(
        w.pages[forged].shell.invite_note().map(|n| n.state),
        Some("joining"),
        "a well-formed link cannot be judged before the inviter answers"
    );
    w.action(forged, Action::Join("Mallory".into()));
    w.until(5_000, "the forged link is refused", |w| {
        w.pages[forged].shell.invite_note().map(|n| n.state) == Some("forged")
    });
    let text = w.pages[forged].shell.invite_note().unwrap().text();
    assert!(text.contains("did not make this invite link"), "{text}");
    let v = w.pages[0].shell.lobby_view().unwrap();
    assert!(v.roster.iter().all(|r| r.our_challenge.is_none()));

    let damaged = w.open(&format!("?invite={}.AAAA", ada.as_str()));
    let note = w.pages[damaged].shell.invite_note().unwrap();
    assert_eq!(note.state, "damaged");
    assert!(note.text().contains("damaged or incomplete"));
    w.action(damaged, Action::Join("Dan".into()));
    w.run(3_000);
    assert_eq!(
        w.pages[damaged].shell.invite_note().map(|n| n.state),
        Some("damaged")
    );
    assert!(w.pages[damaged].shell.lobby().unwrap().arrival().is_none());
}
