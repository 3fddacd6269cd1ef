//! A party of four plays; the challenger's tab is closed for good, and
//! 1 s later Cy's page (a guest) is reloaded. Cy's record names the
//! host's old lobby id, gone from the roster, and the other guests' ids:
//! Cy asks them and shows "Reconnecting…" instead of giving up at once.
//! Bo, the lowest guest still reaching the others, keeps the comeback
//! room: Cy's fresh session is linked to the other guests and waits for a
//! host to take it back. The host never comes back: the others' match
//! ends when its 20 s run out, and Cy's page says then, plainly, that it
//! could not get back in time.

use crate::common;

use common::World;
use web_shell::screens::Screen;
use web_shell::shell::rejoin::{RECONNECTING, REJOIN_WINDOW, TOO_LATE};

#[test]
fn a_guest_page_reloaded_after_the_party_host_left_gives_up_at_the_windows_end() {
    let mut w = World::party_playing(4, 0x90e5_2026);
    w.run(1_100);

    w.close_tab(0);
    let gone_at = w.now;
    w.run(1_000);
    w.reload_as(2, "", common::party_shell(common::ANY_FOUR));
    w.run(200);
    assert_eq!(w.notices(2), vec![RECONNECTING.to_owned()], "in the lobby");
    w.until(10_000, "Cy's page is linked to the other guests", |w| {
        w.screen(2) == Screen::Match
    });
    // Its fresh session waits for a host to take it back meanwhile.
    let view = w.pages[2].shell.match_view();
    assert_eq!(view.status, RECONNECTING, "Cy waits");
    assert_eq!(view.rejoined, None);
    w.until(REJOIN_WINDOW.0 + 10_000, "Cy gives up", |w| {
        matches!(w.screen(2), Screen::Result { .. })
    });
    let waited = w.now.0 - gone_at.0;
    assert!(waited >= REJOIN_WINDOW.0, "Cy gave up after {waited} ms");
    eprintln!("Cy gave up {waited} ms after the host left");
    assert_eq!(
        w.screen(2),
        Screen::Result {
            message: TOO_LATE.to_owned(),
            online: true
        }
    );
    for p in [1, 3] {
        assert!(
            matches!(w.screen(p), Screen::Result { .. }),
            "page {p}: {:?}",
            w.screen(p)
        );
    }
}
