//! The mesh formed, then the guest's page can no longer make a direct
//! path: after the relay deadline both pages ask their room for a relay
//! ticket, meet on the relay, and play the match over it; both say
//! "relayed" and agree on every tick both confirmed.

use crate::common;

use common::World;
use web_shell::screens::Screen;
use web_shell::shell::room::RELAY_AFTER;
use web_shell::shell::Action;

#[test]
fn no_direct_path_plays_the_match_through_the_relay() {
    let mut w = World::lobby("", &["Cy", "Di"]);
    w.pages[1].no_direct_path = true;

    // The challenge crosses at once: no virtual time passes before the
    // answer.
    let accepted = w.now;
    w.challenge_accepted(0, 1);
    w.until_both_play(10_000, 60);
    assert!(
        w.now.0 - accepted.0 >= RELAY_AFTER.0,
        "the direct path had its time first"
    );
    assert_eq!(w.relays_opened, 2, "one relay socket per side");
    for p in 0..2 {
        let v = w.pages[p].shell.match_view();
        assert_eq!(v.path, Some("relayed"));
        assert!(v.status.contains("· ping "), "{}", v.status);
        assert!(v.status.ends_with(" (relayed)"), "{}", v.status);
    }
    w.action(0, Action::Leave);
    w.until(2_000, "both show a result", |w| {
        (0..2).all(|p| matches!(w.screen(p), Screen::Result { .. }))
    });
    let common = 60;
    assert!(w.pages[0].shell.log_hash_at(common).is_some());
    assert_eq!(
        w.pages[0].shell.log_hash_at(common),
        w.pages[1].shell.log_hash_at(common)
    );
}
