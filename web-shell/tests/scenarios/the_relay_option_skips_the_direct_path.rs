//! A page opened with `?relay=1` makes no peer connection for its match:
//! both sides go to the relay at once (long before the relay deadline),
//! and the match runs over it.

use crate::common;

use common::World;
use web_shell::screens::Screen;
use web_shell::shell::room::RELAY_AFTER;

#[test]
fn the_relay_option_skips_the_direct_path() {
    let mut w = World::lobby("?relay=1", &["Ed", "Flo"]);
    let accepted = w.now;
    w.challenge_accepted(0, 1);
    w.until(RELAY_AFTER.0 - 1, "both run the match", |w| {
        (0..2).all(|p| w.screen(p) == Screen::Match)
    });
    assert!(w.now.0 - accepted.0 < RELAY_AFTER.0);
    assert_eq!(w.relays_opened, 2);
    w.until(2_000, "ticks confirmed", |w| {
        (0..2).all(|p| w.pages[p].shell.match_view().tick > Some(30))
    });
    for p in 0..2 {
        assert_eq!(w.pages[p].shell.match_view().path, Some("relayed"));
    }
}
