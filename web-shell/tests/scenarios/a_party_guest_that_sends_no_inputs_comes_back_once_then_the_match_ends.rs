//! A party of three plays a game whose held slots play on; one guest's
//! page keeps its links but never sends its inputs (a faulty page). The
//! host drops it after the silence timeout and benches its slot; the
//! page, hearing nothing more from the host on a link still open, comes
//! back once with a fresh session, which sends no inputs either: benched
//! again, it does not come back a second time, and the match ends when
//! the window runs out, as for any player who did not come back.

use crate::common;

use common::World;
use web_shell::screens::Screen;
use web_shell::shell::PlayerAction;

#[test]
fn a_party_guest_that_sends_no_inputs_comes_back_once_then_the_match_ends() {
    let shells = common::held_party_shells(3, common::ANY_FOUR, 0x0f1e_2026, Some(2));
    let mut w = World::party_lobby_of(&["Ada", "Bo", "Cy"], shells);
    w.party_invited(&[1, 2]);
    for p in 1..3 {
        w.press(p, PlayerAction::PartyAccept, 0);
    }
    let rooms_before = w.rooms_made();
    w.until(10_000, "the host benches the slot", |w| {
        w.pages[0].shell.match_view().benched == Some(2)
    });
    w.until(15_000, "the faulty page came back once", |w| {
        w.pages[2].shell.match_view().rejoined.is_some()
    });
    let started = w.now;
    w.until(60_000, "the host's match ends", |w| {
        matches!(w.screen(0), Screen::Result { .. })
    });
    let waited = w.now.0 - started.0;
    assert!(
        (20_000..40_000).contains(&waited),
        "ended {waited} ms after the comeback"
    );
    assert_eq!(w.rooms_made(), rooms_before + 1, "one comeback room");
}
