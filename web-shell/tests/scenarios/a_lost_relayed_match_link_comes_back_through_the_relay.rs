//! A match played through the relay (`?relay=1`) loses its link: the way
//! back goes through the relay too (a fresh room, its ticket, a new relay
//! socket on each side), and the guest's fresh session takes its slot back.

use crate::common;

use common::World;

#[test]
fn a_lost_relayed_match_link_comes_back_through_the_relay() {
    let mut w = World::lobby("?relay=1", &["Ed", "Flo"]);
    w.challenge_accepted(0, 1);
    w.until_both_play(5_000, 60);
    assert_eq!(w.relays_opened, 2);
    w.cut_match_link(1);
    w.until(5_000, "the guest is back in the match", |w| {
        w.pages[1].shell.match_view().rejoined.is_some()
    });
    assert_eq!(w.relays_opened, 4, "both sides opened a new relay socket");
    let back_at = w.pages[1].shell.match_view().rejoined.unwrap();
    w.until(5_000, "both play on", |w| {
        (0..2).all(|p| w.pages[p].shell.match_view().tick > Some(back_at + 60))
    });
    for p in 0..2 {
        assert_eq!(w.pages[p].shell.match_view().path, Some("relayed"));
    }
}
