//! The party host's page is reloaded just after a guest's own reload, so
//! its record still names that guest's old page: the host's page asks the
//! other guest, which does not keep the room for it (the first guest, a
//! lower place, does) and passes the ask on over their party link. The
//! first guest makes the room, and the host is back.

use crate::common;

use common::World;
use web_shell::id::PeerId;
use web_shell::screens::Screen;
use web_shell::shell::PlayerAction;

#[test]
fn a_party_host_asking_an_old_page_comes_back_through_another_guest() {
    let mut w = World::party_lobby(&["Ada", "Bo", "Cy"], common::ANY_FOUR, 0x01d0_2026);
    w.party_invited(&[1, 2]);
    for p in 1..3 {
        w.press(p, PlayerAction::PartyAccept, 0);
    }
    let all = [0, 1, 2];
    w.until(10_000, "the three play", |w| w.all_play(&all, 90));
    w.run(1_100);
    let mut record = w.record(0);
    assert_eq!(record.ask, w.id(1));
    assert_eq!(record.also, [w.id(2)]);
    // Bo's old page, gone from the lobby.
    record.ask = PeerId::parse("OldBoPage123").expect("a lobby id");
    w.pages[0].session = Some(record.to_storage());

    w.reload_as(0, "", common::party_shell(common::ANY_FOUR));
    w.until(15_000, "the host's page is back in the match", |w| {
        w.screen(0) == Screen::Match && w.pages[0].shell.match_view().rejoined.is_some()
    });
    assert_eq!(w.pages[0].shell.match_view().side, Some(0));
    let back_at = w.pages[0].shell.match_view().rejoined.unwrap();
    w.until(10_000, "all three play on past the return", |w| {
        all.iter()
            .all(|&p| w.pages[p].shell.match_view().tick > Some(back_at + 120))
    });
    w.leave_and_logs_agree(1, &all, &[1, back_at, back_at + 120]);
}
