//! The host's page of a match of two is reloaded mid-match: it kept what
//! its fresh session needs in the tab's session storage (the match, its
//! own token and the bits its tokens come from, the guest's lobby id and
//! name), goes back into the lobby under its remembered name and asks the
//! guest's page for a way back. The guest's page, which holds the match
//! meanwhile, makes the room; over the new link the host's fresh session
//! is taken back by the guest's and is the host again. The match plays on
//! and ends in sync, and the guest can still come back after that.

use crate::common;

use common::World;
use web_shell::screens::Screen;
use web_shell::shell::rejoin::RECONNECTING;
use web_shell::shell::Action;

#[test]
fn a_reloaded_host_page_comes_back_into_its_match() {
    let mut w = World::lobby("", &["Ada", "Bo"]);
    w.challenge_accepted(0, 1);
    w.until_both_play(5_000, 60);
    w.run(1_100);
    let record = w.record(0);
    assert_eq!(record.slot, 0);
    assert!(record.entropy.is_some(), "the host keeps its entropy");
    assert_eq!(record.ask, w.id(1), "it asks its guest");
    let (old_id, rooms) = (w.id(0), w.rooms_made());
    let ada = w.pages[1]
        .shell
        .lobby()
        .unwrap()
        .player(&old_id)
        .unwrap()
        .nick
        .clone();

    // The guest's first room for the way back hangs at the service, so
    // both pages can be seen meanwhile; the next ask gets a room.
    w.pages[1].answers_fetches = false;
    w.reload(0, "");
    assert_eq!(w.screen(0), Screen::Lobby, "the page opens on the lobby");
    w.run(1_000);
    assert_ne!(w.id(0), old_id, "back in the lobby under a new id");
    assert!(w.pages[0]
        .shell
        .lobby_view()
        .is_some_and(|v| v.notices.iter().any(|n| n.notice.text() == RECONNECTING)));
    let line = w.pages[1].shell.match_view().reconnecting.clone();
    assert!(
        line.as_deref()
            .is_some_and(|l| l.starts_with(&format!("{ada} is reconnecting ("))),
        "{line:?}"
    );
    w.pages[1].answers_fetches = true;
    w.until(15_000, "the host's page is back in the match", |w| {
        w.screen(0) == Screen::Match && w.pages[0].shell.match_view().rejoined.is_some()
    });
    assert_eq!(w.rooms_made(), rooms + 1, "the guest's page made one room");
    let back_at = w.pages[0].shell.match_view().rejoined.unwrap();
    w.until(5_000, "both play on", |w| {
        (0..2).all(|p| w.pages[p].shell.match_view().tick > Some(back_at + 60))
    });
    for p in 0..2 {
        assert_eq!(w.pages[p].shell.match_view().reconnecting, None, "page {p}");
    }
    assert_eq!(
        w.pages[0].shell.match_view().side,
        Some(0),
        "still the host"
    );
    // The record is written again by the fresh session, with the same
    // token; the guest's names the host's new lobby id.
    w.run(1_100);
    let again = w.record(0);
    assert_eq!((again.seed, again.token), (record.seed, record.token));
    assert_eq!(again.entropy, record.entropy);
    let guest = w.record(1);
    assert_eq!(guest.ask, w.id(0));

    // The guest's page reloads too: the host that came back takes it back.
    w.reload(1, "");
    w.until(15_000, "the guest's page is back in the match", |w| {
        w.screen(1) == Screen::Match && w.pages[1].shell.match_view().rejoined.is_some()
    });
    let guest_back = w.pages[1].shell.match_view().rejoined.unwrap();
    w.until(5_000, "both play on again", |w| {
        (0..2).all(|p| w.pages[p].shell.match_view().tick > Some(guest_back + 60))
    });

    w.action(1, Action::Leave);
    w.until(2_000, "both show a result", |w| {
        (0..2).all(|p| matches!(w.screen(p), Screen::Result { .. }))
    });
    for tick in [1, back_at, guest_back, guest_back + 60] {
        let (ha, hb) = (
            w.pages[0].shell.log_hash_at(tick),
            w.pages[1].shell.log_hash_at(tick),
        );
        assert!(ha.is_some(), "tick {tick}");
        assert_eq!(ha, hb, "tick {tick}");
    }
}
