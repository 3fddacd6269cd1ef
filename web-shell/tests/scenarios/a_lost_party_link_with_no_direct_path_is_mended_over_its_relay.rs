//! A party of four plays over direct links; then the path between two
//! guests goes (their links to the host stay), and no direct path forms
//! between them again. The comeback room that mends their link tries the
//! direct path first; after the party's relay deadline both ends switch
//! to that pair's relay, both sessions hear each other again over it
//! (nobody comes back with a fresh session), the two pages say their
//! path is relayed, the others that it is direct, and all four input
//! logs agree past the mend.

use crate::common;

use common::World;
use web_shell::screens::Screen;
use web_shell::shell::members::PARTY_RELAY_AFTER;

#[test]
fn a_lost_party_link_with_no_direct_path_is_mended_over_its_relay() {
    let mut w = World::party_playing(4, 0x3e4d_2e1a);
    let all = [0, 1, 2, 3];
    assert_eq!(w.relays_opened, 0, "all direct");
    let rooms = w.rooms_made();

    w.no_direct_pairs.push((1, 2));
    w.cut_party_link(1, 2);
    let cut = w.now;
    w.until(15_000, "the two guests are linked again", |w| {
        w.party_linked(1, 2) && w.party_linked(2, 1)
    });
    assert!(
        w.now.0 - cut.0 > PARTY_RELAY_AFTER.0,
        "the direct path came first"
    );
    assert_eq!(w.rooms_made(), rooms + 1, "one comeback room");
    assert_eq!(w.relays_opened, 2, "one relay, a socket from each end");
    let mended_at = all
        .iter()
        .filter_map(|&p| w.pages[p].shell.match_view().tick)
        .max()
        .unwrap_or(0);
    w.until(10_000, "all four play on past the mend", |w| {
        all.iter()
            .all(|&p| w.pages[p].shell.match_view().tick > Some(mended_at + 120))
    });
    let paths: Vec<Option<&str>> = all
        .iter()
        .map(|&p| w.pages[p].shell.match_view().path)
        .collect();
    assert_eq!(
        paths,
        [
            Some("direct"),
            Some("relayed"),
            Some("relayed"),
            Some("direct")
        ]
    );
    for p in all {
        let v = w.pages[p].shell.match_view();
        assert_eq!(v.reconnecting, None, "page {p}: nobody is away");
        assert_eq!(v.rejoined, None, "page {p}: no fresh session");
        assert_eq!(w.screen(p), Screen::Match, "page {p}");
    }

    w.leave_and_logs_agree(0, &all, &[1, mended_at, mended_at + 120]);
}
