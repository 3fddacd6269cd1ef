//! A party of four plays; the challenger's page (the match's host) is
//! reloaded, and 1 s later Cy's page (a guest) too, both slow to load,
//! Cy's the slower. The host's page is back on new links to the guests
//! first, through Bo's room; its fresh session waits while Bo, acting
//! for the absent host, waits for what Cy's old session held of the
//! host's inputs. Cy's record names the host's old lobby id, gone; Cy
//! asks the other guests; Bo
//! makes a room for it, which the host's page joins too (it is linked to
//! Bo), so Cy links to all three. Cy's fresh session tells Bo its old
//! one is gone, the host is taken back, and the returned host takes Cy
//! back. All four play on and their logs agree.

use crate::common;

use common::World;

#[test]
fn a_guest_page_reloaded_while_the_party_hosts_match_is_returning_comes_back() {
    let mut w = World::party_playing(4, 0x6e57_2026);
    let all = [0, 1, 2, 3];
    w.run(1_100);
    let record = w.record(2);
    assert_eq!((record.slot, record.people), (2, 4));
    assert_eq!(record.ask, w.id(0));
    assert_eq!(record.also, vec![w.id(1), w.id(3)], "the other guests");

    // Both pages are slow to load, Cy's the slower: the host's page is
    // back on new links first, and its fresh session waits while Bo waits
    // for what Cy's old session held of the host's inputs.
    w.reload_as(0, "", common::party_shell(common::ANY_FOUR));
    w.pages[0].blocked = true;
    w.run(1_000);
    w.reload_as(2, "", common::party_shell(common::ANY_FOUR));
    w.pages[2].blocked = true;
    w.run(200);
    w.unblock(0);
    w.run(500);
    assert!(w.party_linked(1, 0), "the host's page is linked again");
    assert_eq!(w.pages[0].shell.match_view().rejoined, None);
    w.unblock(2);
    w.back_and_logs_agree(&[0, 2], &all, 1, |w| {
        assert_eq!(
            w.pages[0].shell.match_view().side,
            Some(0),
            "the host again"
        );
    });
}
