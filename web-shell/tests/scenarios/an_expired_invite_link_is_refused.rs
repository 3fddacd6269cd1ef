//! An invite code is honoured for 30 minutes from when its page made it;
//! a friend who comes later hears it has expired, and the inviter's page
//! makes a new link on the next press.

use crate::common;

use common::World;
use web_shell::invite::INVITE_TTL;
use web_shell::shell::Action;

#[test]
fn an_expired_invite_link_is_refused() {
    let mut w = World::lobby("", &["Ada"]);
    w.action(0, Action::CopyInvite);
    let old = w.pages[0].copied.last().cloned().unwrap();
    w.now = w.now + INVITE_TTL;
    w.run(1_000);
    assert!(w.online(0), "still in the lobby after the wait");
    assert_eq!(w.pages[0].shell.invite_url(), None, "the link has expired");

    let search = old.strip_prefix("http://service.test/").unwrap();
    let cy = w.open(search);
    w.action(cy, Action::Join("Cy".into()));
    w.until(5_000, "Cy hears the link expired", |w| {
        w.pages[cy].shell.invite_note().map(|n| n.state) == Some("expired")
    });
    let text = w.pages[cy].shell.invite_note().unwrap().text();
    assert!(
        text.starts_with("This invite link has expired. Ask "),
        "{text}"
    );

    w.action(0, Action::CopyInvite);
    assert_ne!(w.pages[0].copied.last(), Some(&old));
}
