//! A party of three plays; one guest's links drop and it comes back. The
//! host's page hears its new link to the returning page open late (as a
//! browser may, a moment after the link carries data): what came on it
//! first (the returning page's name, its fresh session's claim to the
//! slot) is kept and handed over, in order, once the link is the
//! match's, so the guest is taken back and named while it is away.

use crate::common;

use common::World;
use web_shell::screens::Screen;
use web_shell::shell::PlayerAction;

#[test]
fn a_party_page_that_stayed_hears_what_came_before_its_new_link_opened() {
    let mut w = World::party_lobby(&["Ada", "Bo", "Cy"], common::ANY_FOUR, 0x0e1a_2026);
    w.party_invited(&[1, 2]);
    for p in 1..3 {
        w.press(p, PlayerAction::PartyAccept, 0);
    }
    let all = [0, 1, 2];
    w.until(10_000, "the three play", |w| w.all_play(&all, 90));

    w.hold_opens_of = Some(0);
    w.cut_party_links(2);
    w.until(10_000, "the returning page's new links are open", |w| {
        w.party_linked(2, 0) && w.party_linked(2, 1)
    });
    w.run(1_000);
    w.release_opens();
    w.until(5_000, "the guest is back in the match", |w| {
        w.pages[2].shell.match_view().rejoined.is_some()
    });
    let back_at = w.pages[2].shell.match_view().rejoined.unwrap();
    w.until(10_000, "all three play on past the rejoin", |w| {
        all.iter()
            .all(|&p| w.pages[p].shell.match_view().tick > Some(back_at + 60))
    });
    for p in all {
        assert_eq!(w.screen(p), Screen::Match, "page {p}");
        assert_eq!(w.pages[p].shell.match_view().held, None, "page {p}");
    }
}
