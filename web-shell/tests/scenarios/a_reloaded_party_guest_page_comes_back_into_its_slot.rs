//! A party of four plays; one guest's page is reloaded mid-match. It kept
//! in the tab's session storage what it needs (the match, its slot and
//! token, the party host's lobby id, how many play), goes back into the
//! lobby under its remembered name, asks the party's host for a way back,
//! and meets every other page in the comeback room the host makes; its
//! fresh session takes its slot back over its new links. All four play on
//! and their logs agree past the rejoin; the reloaded page goes on keeping
//! its record, and none is left once the match is over.

use crate::common;

use common::World;
use web_shell::screens::Screen;
use web_shell::shell::rejoin::RECONNECTING;

#[test]
fn a_reloaded_party_guest_page_comes_back_into_its_slot() {
    let mut w = World::party_playing(4, 0x0e10_ad26);
    let all = [0, 1, 2, 3];
    w.run(1_100);
    let record = w.record(2);
    assert_eq!((record.slot, record.people), (2, 4));
    assert_eq!(record.ask, w.id(0), "the party's host is the one to ask");
    // The host keeps one too, to come back through its guests.
    let hosts = w.record(0);
    assert_eq!((hosts.slot, hosts.people), (0, 4));
    assert!(hosts.entropy.is_some());
    assert_eq!(hosts.ask, w.id(1), "the first guest is asked first");
    assert_eq!(hosts.also, [w.id(2), w.id(3)], "then the others");
    let (old_id, rooms) = (w.id(2), w.rooms_made());

    // The host's first comeback room hangs at the service, so the pages
    // can be seen meanwhile; the next ask gets a room.
    w.pages[0].answers_fetches = false;
    w.reload_as(2, "", common::party_shell(common::ANY_FOUR));
    assert_eq!(w.screen(2), Screen::Lobby, "the page opens on the lobby");
    w.run(1_000);
    assert_ne!(w.id(2), old_id, "back in the lobby under a new id");
    let notices: Vec<String> = w.pages[2]
        .shell
        .lobby_view()
        .map(|v| v.notices.iter().map(|n| n.notice.text()).collect())
        .unwrap_or_default();
    assert!(notices.contains(&RECONNECTING.to_owned()), "{notices:?}");
    for p in [0, 1, 3] {
        let line = w.pages[p].shell.match_view().reconnecting.clone();
        assert!(
            line.as_deref()
                .is_some_and(|l| l.ends_with(" is reconnecting (19 s)")),
            "page {p}: {line:?}"
        );
    }
    w.pages[0].answers_fetches = true;
    w.until(15_000, "the reloaded page is back in the match", |w| {
        w.screen(2) == Screen::Match && w.pages[2].shell.match_view().rejoined.is_some()
    });
    assert_eq!(w.rooms_made(), rooms + 1, "one comeback room");
    assert_eq!(
        w.pages[2].shell.match_view().side,
        Some(2),
        "back in its own slot"
    );
    let back_at = w.pages[2].shell.match_view().rejoined.unwrap();
    w.all_play_on_past(&all, back_at + 120);
    // Still a guest with a token: the record is kept up to date.
    w.run(1_100);
    let again = w.record(2);
    assert_eq!(
        (again.seed, again.token, again.people),
        (record.seed, record.token, 4)
    );
    assert!(again.alive_at > record.alive_at);

    w.leave_and_logs_agree(0, &all, &[1, back_at, back_at + 120]);
    assert_eq!(w.pages[2].session, None, "a match over leaves no record");
}
