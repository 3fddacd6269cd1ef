//! A party of four plays; the link between two guests fails while both
//! still reach the host (their path to each other went). Each of the two
//! asks the host, over its party link, to mend it; the host makes a
//! comeback room and tells the players its code; there the two link
//! again (the others keep what they have, nobody comes back with a fresh
//! session), each session hears the other's again on the new link, and
//! all four play on with logs that agree.

use crate::common;

use common::World;
use web_shell::screens::Screen;

#[test]
fn a_lost_link_between_two_party_guests_is_made_again() {
    let mut w = World::party_playing(4, 0x3e4d_2026);
    let all = [0, 1, 2, 3];
    let rooms_before = w.rooms_made();

    w.cut_party_link(1, 2);
    w.until(10_000, "the two guests are linked again", |w| {
        w.party_linked(1, 2) && w.party_linked(2, 1)
    });
    assert_eq!(w.rooms_made(), rooms_before + 1, "one comeback room");
    let mended_at = all
        .iter()
        .filter_map(|&p| w.pages[p].shell.match_view().tick)
        .max()
        .unwrap_or(0);
    w.until(10_000, "all four play on past the mend", |w| {
        all.iter()
            .all(|&p| w.pages[p].shell.match_view().tick > Some(mended_at + 120))
    });
    for p in all {
        let v = w.pages[p].shell.match_view();
        assert_eq!(v.reconnecting, None, "page {p}: nobody is away");
        assert_eq!(v.held, None, "page {p}");
        assert_eq!(v.rejoined, None, "page {p}: no fresh session");
        assert_eq!(w.screen(p), Screen::Match, "page {p}");
    }
    // The comeback room is over.
    w.run(100);
    assert!(w.member_rooms.values().filter(|r| r.is_finished()).count() >= 1);

    w.leave_and_logs_agree(0, &all, &[1, mended_at / 2, mended_at, mended_at + 120]);
}
