//! A party of four plays; the challenger's page (the match's host) is
//! reloaded, and 1 s later, while it is still away, Cy's page (a guest)
//! is reloaded too. Cy's record names the host's old lobby id, gone from
//! the roster, and the other guests' ids: Cy asks them, shows
//! "Reconnecting…" and does not give up. Bo, the lowest guest still
//! reaching the others, keeps the comeback room for both; the engine
//! takes the host back first (its acting guest does not wait for Cy's old
//! session), then the returned host takes Cy back. All four play on and
//! their logs agree.

use crate::common;

use common::World;
use web_shell::shell::rejoin::RECONNECTING;

#[test]
fn a_guest_page_reloaded_while_the_party_host_is_away_comes_back() {
    let mut w = World::party_playing(4, 0x6e57_2026);
    let all = [0, 1, 2, 3];
    w.run(1_100);
    let record = w.record(2);
    assert_eq!((record.slot, record.people), (2, 4));
    assert_eq!(record.ask, w.id(0));
    assert_eq!(record.also, vec![w.id(1), w.id(3)], "the other guests");

    // The host's page is slow to load: it is away when Cy's reloads.
    w.reload_as(0, "", common::party_shell(common::ANY_FOUR));
    w.pages[0].blocked = true;
    w.run(1_000);
    w.reload_as(2, "", common::party_shell(common::ANY_FOUR));
    w.run(1_000);
    let notices: Vec<String> = w.pages[2]
        .shell
        .lobby_view()
        .map(|v| v.notices.iter().map(|n| n.notice.text()).collect())
        .unwrap_or_default();
    assert_eq!(
        notices,
        vec![RECONNECTING.to_owned()],
        "Cy does not give up"
    );
    w.unblock(0);
    w.back_and_logs_agree(&[0, 2], &all, 1, |w| {
        assert_eq!(
            w.pages[0].shell.match_view().side,
            Some(0),
            "the host again"
        );
    });
}
