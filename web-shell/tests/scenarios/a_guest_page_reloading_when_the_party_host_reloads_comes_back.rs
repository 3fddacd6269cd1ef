//! The reverse order of a guest reloaded while the party's host is away:
//! Cy's page (a guest) is reloaded first and is slow to load; 1 s later,
//! while Cy is still reconnecting, the challenger's page (the match's
//! host) is reloaded too, and is slow as well. Cy's record names the
//! host's lobby id from before the host's reload, gone from the roster by
//! the time Cy asks, and the other guests: Cy asks them, Bo (the lowest
//! guest still reaching the others) takes it in, and once the host's page
//! is back through Bo's room the returned host takes Cy back. All four
//! play on and their logs agree.

use crate::common;

use common::World;

#[test]
fn a_guest_page_reloading_when_the_party_host_reloads_comes_back() {
    let mut w = World::party_playing(4, 0x7e0e_2026);
    let all = [0, 1, 2, 3];
    w.run(1_100);
    let host_before = w.id(0);

    w.reload_as(2, "", common::party_shell(common::ANY_FOUR));
    w.pages[2].blocked = true;
    w.run(1_000);
    w.reload_as(0, "", common::party_shell(common::ANY_FOUR));
    w.pages[0].blocked = true;
    w.run(300);
    w.unblock(2);
    w.run(1_000);
    w.unblock(0);
    w.back_and_logs_agree(&[0, 2], &all, 1, |w| {
        assert_ne!(w.id(0), host_before, "the host's page has a new lobby id");
        assert_eq!(
            w.pages[0].shell.match_view().side,
            Some(0),
            "the host again"
        );
    });
}
