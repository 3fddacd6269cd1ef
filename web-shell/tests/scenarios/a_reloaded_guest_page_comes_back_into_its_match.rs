//! The guest's page is reloaded mid-match: it kept what it needs in the
//! tab's session storage (the match, its slot and token, the host's lobby
//! id and name), goes back into the lobby under its remembered name, asks
//! the host's page for a way back, and its fresh session takes its slot
//! back over a new link; the match plays on and ends in sync. A record
//! that is stale (the window ran out, the match is over) or damaged is
//! cleared, with a plain message in the lobby for the first two.

use crate::common;

use common::World;
use lockstep::Millis;
use web_shell::screens::Screen;
use web_shell::shell::rejoin::{HOST_GONE, MATCH_OVER, RECONNECTING, TOO_LATE};
use web_shell::shell::Action;

/// Ada hosts Bo; both play past tick 60, and Bo's page has written its
/// record.
fn playing() -> World {
    let mut w = World::lobby("", &["Ada", "Bo"]);
    w.challenge_accepted(0, 1);
    w.until_both_play(5_000, 60);
    w.run(1_100);
    w
}

#[test]
fn a_reloaded_guest_page_comes_back_into_its_match() {
    let mut w = playing();
    let record = w.record(1);
    assert_eq!(record.slot, 1);
    assert_eq!(record.ask, w.id(0));
    let seen = w.pages[1].shell.lobby().unwrap().player(&w.id(0)).unwrap();
    assert_eq!(record.ask_name, seen.nick, "the name Bo's lobby shows");
    // The host keeps one of its own (see
    // a_reloaded_host_page_comes_back_into_its_match.rs).
    let host = w.record(0);
    assert_eq!((host.slot, host.seed), (0, record.seed));
    assert!(host.entropy.is_some() && record.entropy.is_none());
    let (old_id, rooms) = (w.id(1), w.rooms_made());

    // The host's first room for the way back hangs at the service, so
    // both pages can be seen meanwhile; the next ask gets a room.
    w.pages[0].answers_fetches = false;
    w.reload(1, "");
    assert_eq!(w.screen(1), Screen::Lobby, "the page opens on the lobby");
    w.run(1_000);
    assert_ne!(w.id(1), old_id, "back in the lobby under a new id");
    assert!(w.notices(1).contains(&RECONNECTING.to_owned()));
    let line = w.pages[0].shell.match_view().reconnecting.clone();
    assert!(
        line.as_deref()
            .is_some_and(|l| l.starts_with("Bo is reconnecting (")),
        "{line:?}"
    );
    w.pages[0].answers_fetches = true;
    w.until(15_000, "the reloaded page is back in the match", |w| {
        w.screen(1) == Screen::Match && w.pages[1].shell.match_view().rejoined.is_some()
    });
    assert_eq!(w.rooms_made(), rooms + 1);
    let back_at = w.pages[1].shell.match_view().rejoined.unwrap();
    w.until(5_000, "both play on", |w| {
        (0..2).all(|p| w.pages[p].shell.match_view().tick > Some(back_at + 60))
    });
    assert_eq!(w.pages[0].shell.match_view().reconnecting, None);
    // Still a guest with a token: the record is kept up to date.
    w.run(1_100);
    let again = w.record(1);
    assert_eq!((again.seed, again.token), (record.seed, record.token));
    assert!(again.alive_at > record.alive_at);

    w.action(0, Action::Leave);
    w.until(2_000, "both show a result", |w| {
        (0..2).all(|p| matches!(w.screen(p), Screen::Result { .. }))
    });
    for tick in [1, back_at, back_at + 60] {
        let (ha, hb) = (
            w.pages[0].shell.log_hash_at(tick),
            w.pages[1].shell.log_hash_at(tick),
        );
        assert!(ha.is_some(), "tick {tick}");
        assert_eq!(ha, hb, "tick {tick}");
    }
    assert_eq!(w.pages[1].session, None, "a match over leaves no record");
}

#[test]
fn a_record_whose_window_ran_out_is_cleared_with_a_message() {
    let mut w = playing();
    // The reload takes longer than the window: nothing runs meanwhile.
    w.now = w.now + Millis(25_000);
    w.reload(1, "");
    w.run(200);
    assert_eq!(w.pages[1].session, None);
    assert!(w.notices(1).contains(&TOO_LATE.to_owned()));
    assert_eq!(w.screen(1), Screen::Lobby);
}

#[test]
fn a_match_over_meanwhile_is_cleared_with_a_message() {
    let mut w = playing();
    w.reload(1, "");
    // Ada leaves before Bo's page is back: her page answers that the match
    // is over.
    w.action(0, Action::Leave);
    w.run(2_000);
    assert_eq!(w.pages[1].session, None);
    assert!(
        w.notices(1).contains(&MATCH_OVER.to_owned()),
        "{:?}",
        w.notices(1)
    );
    assert_eq!(w.screen(1), Screen::Lobby);
}

#[test]
fn a_host_gone_from_the_lobby_is_said_plainly() {
    let mut w = playing();
    // Ada's page closes (as a reload of a page with no record would
    // leave it: a new page on the title screen).
    w.pages[0].session = None;
    w.reload(0, "");
    w.reload(1, "");
    w.run(2_000);
    assert_eq!(w.pages[1].session, None);
    assert!(
        w.notices(1).contains(&HOST_GONE.to_owned()),
        "{:?}",
        w.notices(1)
    );
}

#[test]
fn a_damaged_record_is_dropped_and_the_page_opens_as_usual() {
    let mut w = playing();
    w.pages[1].session = Some("{\"seed\":\"nope\"}".to_owned());
    w.reload(1, "");
    assert_eq!(w.pages[1].session, None);
    assert!(
        matches!(w.screen(1), Screen::Title { .. }),
        "{:?}",
        w.screen(1)
    );
}
