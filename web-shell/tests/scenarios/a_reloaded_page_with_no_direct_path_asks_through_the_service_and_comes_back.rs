//! Two pages with no direct path between them play over the relay; the
//! guest's page is reloaded mid-match. Its lobby mesh link to the host
//! cannot form, so it asks the host's page for its way back through the
//! service, hears of the comeback room the same way, and its new match
//! link, finding no direct path either, goes over that room's relay. The
//! match plays on and ends in sync.

use crate::common;

use common::World;
use web_shell::screens::Screen;

#[test]
fn a_reloaded_page_with_no_direct_path_asks_through_the_service_and_comes_back() {
    let mut w = World::lobby_walled("", &["Ada", "Bo"], &[(0, 1)]);
    w.challenge_accepted(0, 1);
    w.until_both_play(15_000, 60);
    assert_eq!(w.pages[1].shell.match_view().path, Some("relayed"));
    w.run(1_100);
    assert!(w.pages[1].session.is_some(), "the guest keeps a record");
    let relays = w.relays_opened;

    w.reload(1, "");
    assert_eq!(w.screen(1), Screen::Lobby, "the page opens on the lobby");
    w.until(15_000, "the reloaded page is back in the match", |w| {
        w.screen(1) == Screen::Match && w.pages[1].shell.match_view().rejoined.is_some()
    });
    assert_eq!(w.link_shown(1, 0), Some("via the service"));
    let asked: Vec<&str> = w
        .lobby_relayed
        .iter()
        .filter(|(from, to, _)| (*from, *to) == (1, 0))
        .map(|(_, _, k)| k.as_str())
        .collect();
    assert!(asked.contains(&"rejoin"), "{asked:?}");
    assert!(w
        .lobby_relayed
        .iter()
        .any(|(from, to, k)| (*from, *to) == (0, 1) && k == "rejoin-room"));
    assert_eq!(w.pages[1].shell.match_view().path, Some("relayed"));
    assert!(w.relays_opened > relays, "the new link went over a relay");
    let back_at = w.pages[1].shell.match_view().rejoined.unwrap();
    w.until(5_000, "both play on", |w| {
        (0..2).all(|p| w.pages[p].shell.match_view().tick > Some(back_at + 60))
    });
    assert_eq!(w.pages[0].shell.match_view().reconnecting, None);

    w.leave_and_logs_agree(0, &[0, 1], &[1, back_at, back_at + 60]);
}
