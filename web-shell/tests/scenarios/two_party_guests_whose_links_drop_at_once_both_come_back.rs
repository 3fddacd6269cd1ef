//! A party of four plays; every link of two guests fails at once. Both
//! pages ask the host for a way back; the host's one comeback room takes
//! both (they link to each other there too, or the second, finding the
//! first gone from the room, comes back through a room of its own in
//! which the first is one that stayed). Both are back in their slots, and
//! all four play on in sync.

use crate::common;

use common::World;
use web_shell::screens::Screen;

#[test]
fn two_party_guests_whose_links_drop_at_once_both_come_back() {
    let mut w = World::party_playing(4, 0x2bac_2026);
    let all = [0, 1, 2, 3];

    let rooms = w.rooms_made();
    w.cut_party_links(1);
    w.cut_party_links(3);
    w.until(19_000, "both guests are back in the match", |w| {
        [1, 3]
            .iter()
            .all(|&p| w.pages[p].shell.match_view().rejoined.is_some())
    });
    let made = w.rooms_made() - rooms;
    assert!((1..=2).contains(&made), "{made} comeback rooms");
    let back_at = [1, 3]
        .iter()
        .filter_map(|&p| w.pages[p].shell.match_view().rejoined)
        .max()
        .unwrap();
    w.until(10_000, "all four play on past the rejoins", |w| {
        all.iter()
            .all(|&p| w.pages[p].shell.match_view().tick > Some(back_at + 120))
    });
    for p in all {
        let v = w.pages[p].shell.match_view();
        assert_eq!(v.reconnecting, None, "page {p}");
        assert_eq!(v.side, Some(p as u8), "page {p} plays its own slot");
        assert_eq!(w.screen(p), Screen::Match, "page {p}");
    }
    w.leave_and_logs_agree(0, &all, &[1, back_at, back_at + 120]);
}
