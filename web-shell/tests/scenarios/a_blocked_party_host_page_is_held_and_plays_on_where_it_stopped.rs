//! A party of three plays; the host's page is blocked for 8 s while its
//! links stay open (a stuck main thread). Each guest hears the host fall
//! silent while it still hears the other guest, so it takes the host's
//! page for the one away: it keeps its session and links and holds the
//! host's place (it does not tear its links down to come back on new
//! ones). Once free, the host's page speaks again on the same links: the
//! guests' sessions take it back where it stopped, nobody makes a fresh
//! session or a new link, and all three play on in step.

use crate::common;

use common::World;

#[test]
fn a_blocked_party_host_page_is_held_and_plays_on_where_it_stopped() {
    let mut w = World::party_lobby(&["Ada", "Bo", "Cy"], common::ANY_FOUR, 0xb10c_0057);
    w.party_plays(3);
    let all = [0, 1, 2];
    let rooms = w.rooms_made();

    w.pages[0].blocked = true;
    w.run(8_000);
    for p in [1, 2] {
        let v = w.pages[p].shell.match_view();
        assert!(v.host_held, "page {p} holds the host's place");
        assert!(
            w.party_linked(p, 3 - p),
            "page {p} keeps its link to the other guest"
        );
    }
    assert_eq!(
        w.rooms_made(),
        rooms,
        "no room while the host's page is stuck"
    );

    w.unblock(0);
    let free_at = w.pages[1].shell.match_view().tick.unwrap_or(0);
    w.all_play_on_past(&all, free_at + 120);
    for p in all {
        let v = w.pages[p].shell.match_view();
        assert_eq!(
            (v.held, v.host_held),
            (None, false),
            "page {p} holds nobody"
        );
        assert_eq!(v.rejoined, None, "page {p} kept its session");
    }
    // The guests asked the host's page for a way back in case their
    // links alone had failed; once free it made the one room it makes for
    // such asks, which nobody needed.
    assert!(w.rooms_made() <= rooms + 1, "one room at most");
    w.leave_and_logs_agree(0, &all, &[1, free_at, free_at + 120]);
}
