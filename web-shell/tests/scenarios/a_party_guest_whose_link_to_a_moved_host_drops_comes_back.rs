//! A party of three plays a game that goes on without a player who left.
//! Ada's tab, the party host's, is closed for good, and once Ada's window
//! is over Bo's page hosts the match. Then the link between Cy's page and
//! Bo's fails (their other links are gone with Ada): Cy's page comes back
//! as a guest does whose link to the host is lost, asking Bo's page, and
//! is back in its slot through the comeback room Bo's page makes. The two
//! play on and their logs agree past the return.

use crate::common;

use common::World;
use web_shell::shell::rejoin::REJOIN_WINDOW;
use web_shell::testing::PlaysOnDots;

#[test]
fn a_party_guest_whose_link_to_a_moved_host_drops_comes_back() {
    let shells = common::party_shells_as::<PlaysOnDots>(3, common::ANY_FOUR, 0x11a7_2026, None);
    let mut w = World::party_lobby_of(&["Ada", "Bo", "Cy"], shells);
    w.party_plays(3);
    let stayed = [1, 2];

    w.close_tab(0);
    let over = w.now + REJOIN_WINDOW + common::LEFT_SETTLES;
    w.run(over.0.saturating_sub(w.now.0));
    for &p in &stayed {
        assert_eq!(w.pages[p].shell.match_view().host, Some(1), "page {p}");
    }
    let moved_at = w.pages[1].shell.match_view().tick.unwrap_or(0);

    let rooms = w.rooms_made();
    w.cut_party_link(2, 1);
    w.until(15_000, "Cy's page is back in the match", |w| {
        w.pages[2].shell.match_view().rejoined.is_some()
    });
    assert_eq!(w.rooms_made(), rooms + 1, "one comeback room, Bo's");
    let v = w.pages[2].shell.match_view();
    assert_eq!(
        (v.side, v.host),
        (Some(2), Some(1)),
        "Cy in its slot, Bo hosts"
    );
    let back_at = v.rejoined.unwrap();
    w.all_play_on_past(&stayed, back_at + 120);
    assert_eq!(w.pages[1].shell.match_view().held, None, "nobody is held");
    w.leave_and_logs_agree(1, &stayed, &[moved_at, back_at, back_at + 120]);
}
