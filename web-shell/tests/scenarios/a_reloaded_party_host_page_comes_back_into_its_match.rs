//! A party of four plays; the challenger's page (the match's host) is
//! reloaded mid-match. It kept in the tab's session storage what it needs
//! (the match, its token and entropy, its guests' lobby ids), goes back
//! into the lobby under its remembered name and asks its guests for a way
//! back. The guests kept their session and their links to each other,
//! and count the host down meanwhile; the lowest of them makes the
//! comeback room and tells the others, and the host's fresh session is
//! the host again over its new links. All four play on and their logs
//! agree past the return; a guest that then reloads comes back through
//! the returned host.

use crate::common;

use common::World;
use web_shell::screens::Screen;
use web_shell::shell::rejoin::RECONNECTING;

#[test]
fn a_reloaded_party_host_page_comes_back_into_its_match() {
    let mut w = World::party_playing(4, 0x4057_2026);
    let all = [0, 1, 2, 3];
    w.run(1_100);
    let record = w.record(0);
    assert_eq!((record.slot, record.people), (0, 4));
    let (old_id, rooms) = (w.id(0), w.rooms_made());
    let links_before = w.peers_created;

    // The guests' first comeback room hangs at the service, so that the
    // pages can be seen meanwhile; the next ask gets a room.
    for p in 1..4 {
        w.pages[p].answers_fetches = false;
    }
    w.reload_as(0, "", common::party_shell(common::ANY_FOUR));
    assert_eq!(w.screen(0), Screen::Lobby, "the page opens on the lobby");
    w.run(1_000);
    let notices: Vec<String> = w.pages[0]
        .shell
        .lobby_view()
        .map(|v| v.notices.iter().map(|n| n.notice.text()).collect())
        .unwrap_or_default();
    assert!(notices.contains(&RECONNECTING.to_owned()), "{notices:?}");
    for p in 1..4 {
        let line = w.pages[p].shell.match_view().reconnecting.clone();
        assert!(
            line.as_deref()
                .is_some_and(|l| l.contains(" is reconnecting (")),
            "page {p}: {line:?}"
        );
    }
    // Di's page is busy for a moment as the room opens: the host's fresh
    // session waits for its link to Di, and meanwhile Bo and Cy hold the
    // host's place with their new links to it open. They do not take the
    // returning host for a silent one.
    w.pages[3].blocked = true;
    for p in 1..4 {
        w.pages[p].answers_fetches = true;
    }
    w.until(15_000, "Bo's new link to the host is open", |w| {
        w.party_linked(1, 0)
    });
    w.run(1_000);
    w.unblock(3);
    w.until(15_000, "the host's page is back in the match", |w| {
        w.screen(0) == Screen::Match && w.pages[0].shell.match_view().rejoined.is_some()
    });
    assert_ne!(w.id(0), old_id, "back in the lobby under a new id");
    assert_eq!(w.rooms_made(), rooms + 1, "one comeback room, a guest's");
    // Both ends of a new lobby link to each of the three (the reloaded
    // page is new to the lobby) and of a new party link to each guest:
    // none between the guests.
    assert_eq!(
        w.peers_created - links_before,
        2 * (3 + 3),
        "a new link from the host to each guest, none between the guests"
    );
    assert_eq!(
        w.pages[0].shell.match_view().side,
        Some(0),
        "the host again"
    );
    let back_at = w.pages[0].shell.match_view().rejoined.unwrap();
    w.all_play_on_past(&all, back_at + 120);
    // The returned host keeps its record up to date, asking its guests'
    // current pages.
    w.run(1_100);
    let again = w.record(0);
    assert_eq!(
        (again.seed, again.token, again.slot),
        (record.seed, record.token, 0)
    );
    assert_eq!(again.ask, w.id(1));

    // A guest reloads afterwards: the returned host takes it back.
    w.reload_as(2, "", common::party_shell(common::ANY_FOUR));
    w.until(15_000, "the reloaded guest is back", |w| {
        w.screen(2) == Screen::Match && w.pages[2].shell.match_view().rejoined.is_some()
    });
    let guest_back = w.pages[2].shell.match_view().rejoined.unwrap();
    w.until(10_000, "all four play on past the guest's return", |w| {
        all.iter()
            .all(|&p| w.pages[p].shell.match_view().tick > Some(guest_back + 120))
    });
    w.leave_and_logs_agree(1, &all, &[1, back_at, back_at + 120, guest_back + 120]);
}
