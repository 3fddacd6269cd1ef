//! An invite link names the inviter's lobby connection: once the inviter
//! has left the lobby, or come back with a new id, a friend who opens the
//! old link is told it is out of date as soon as the roster is known, and
//! the inviter's page offers a new link rather than the old one.

use crate::common;

use common::World;
use web_shell::shell::Action;

#[test]
fn a_stale_invite_link_says_so() {
    let mut w = World::lobby("", &["Ada", "Bo"]);
    w.action(0, Action::CopyInvite);
    let old = w.pages[0].copied.last().cloned().unwrap();
    // Ada leaves the lobby and comes back: a new id.
    w.action(0, Action::Back);
    w.join(0, "Ada");
    w.until(5_000, "the mesh forms again", World::mesh_formed);
    assert_eq!(w.pages[0].shell.invite_url(), None, "the old link is gone");

    let search = old.strip_prefix("http://service.test/").unwrap();
    let cy = w.open(search);
    w.action(cy, Action::Join("Cy".into()));
    w.until(3_000, "Cy is told the link is stale", |w| {
        w.pages[cy].shell.invite_note().map(|n| n.state) == Some("stale")
    });
    let text = w.pages[cy].shell.invite_note().unwrap().text();
    assert!(text.contains("out of date"), "{text}");
    // Cy is in the lobby all the same, and nobody was challenged.
    w.until(5_000, "Cy's mesh forms", World::mesh_formed);
    for p in 0..3 {
        let v = w.pages[p].shell.lobby_view().unwrap();
        assert!(v.prompts.is_empty() && v.roster.iter().all(|r| r.our_challenge.is_none()));
    }

    // A new link works again, and differs from the old one.
    w.action(0, Action::CopyInvite);
    let new = w.pages[0].copied.last().cloned().unwrap();
    assert_ne!(new, old);
}
