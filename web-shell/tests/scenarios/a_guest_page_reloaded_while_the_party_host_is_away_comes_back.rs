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
use web_shell::screens::Screen;
use web_shell::shell::rejoin::{RejoinRecord, RECONNECTING};
use web_shell::shell::PlayerAction;

#[test]
fn a_guest_page_reloaded_while_the_party_host_is_away_comes_back() {
    let mut w = World::party_lobby(&["Ada", "Bo", "Cy", "Di"], common::ANY_FOUR, 0x6e57_2026);
    w.party_invited(&[1, 2, 3]);
    for p in 1..4 {
        w.press(p, PlayerAction::PartyAccept, 0);
    }
    let all = [0, 1, 2, 3];
    w.until(10_000, "the four play", |w| w.all_play(&all, 90));
    w.run(1_100);
    let record = RejoinRecord::from_storage(w.pages[2].session.as_deref().expect("a record"))
        .expect("Cy's record reads back");
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
    w.until(
        15_000,
        "the host's page and Cy's are back in the match",
        |w| {
            [0, 2].iter().all(|&p| {
                w.screen(p) == Screen::Match && w.pages[p].shell.match_view().rejoined.is_some()
            })
        },
    );
    assert_eq!(
        w.pages[0].shell.match_view().side,
        Some(0),
        "the host again"
    );
    let back_at = [0, 2]
        .iter()
        .map(|&p| w.pages[p].shell.match_view().rejoined.unwrap())
        .max()
        .unwrap();
    w.all_play_on_past(&all, back_at + 120);
    w.leave_and_logs_agree(1, &all, &[1, back_at, back_at + 120]);
}
