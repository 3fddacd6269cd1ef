//! A party of three plays a game that goes on without a player who left.
//! Ada's tab, the party host's, is closed for good, and once Ada's window
//! is over Bo's page hosts the match. Ada's page is then opened again
//! with a record that still reads as fresh (a page reopened in the moment
//! around the move, its record's time just within the window): it asks
//! the guests' pages, Bo's makes a comeback room as it does for anyone
//! who asks, and Bo's session refuses Ada's fresh one, whose slot is no
//! longer held. Ada's page says plainly that the match went on without
//! it, at once; Bo and Cy play on.

use crate::common;

use common::World;
use web_shell::screens::Screen;
use web_shell::shell::rejoin::{RejoinRecord, REJOIN_WINDOW, WENT_ON};
use web_shell::shell::Shell;
use web_shell::testing::PlaysOnDots;

#[test]
fn an_old_host_page_asking_just_after_the_host_moved_is_told_the_match_went_on() {
    let shells = common::party_shells_as::<PlaysOnDots>(3, common::ANY_FOUR, 0x01d0_2026, None);
    let mut w = World::party_lobby_of(&["Ada", "Bo", "Cy"], shells);
    w.party_plays(3);
    let stayed = [1, 2];
    w.run(1_100);
    let ada_record = w.pages[0].session.clone().expect("the host keeps a record");

    w.close_tab(0);
    let over = w.now + REJOIN_WINDOW + common::LEFT_SETTLES;
    w.run(over.0.saturating_sub(w.now.0));
    assert_eq!(w.pages[1].shell.match_view().host, Some(1), "Bo hosts");

    // Ada's record, as fresh as Cy's is now.
    let mut record = RejoinRecord::from_storage(&ada_record).unwrap();
    let cys = w.record(2);
    record.alive_at = cys.alive_at;
    let text = record.to_storage();
    let rooms = w.rooms_made();
    w.reload_as(0, "", move |mut cfg, random| {
        cfg.rejoin_record = Some(text);
        Shell::new(
            common::PartyDotsAs::<PlaysOnDots>::new(common::ANY_FOUR),
            cfg,
            random,
        )
    });
    w.until(5_000, "Ada's page is refused", |w| {
        matches!(w.screen(0), Screen::Result { .. })
    });
    assert_eq!(
        w.screen(0),
        Screen::Result {
            message: WENT_ON.to_owned(),
            online: true
        }
    );
    assert_eq!(
        w.rooms_made(),
        rooms + 1,
        "Bo's page made the room it asked for"
    );
    assert_eq!(w.pages[0].session, None, "no record is left to try again");
    let before: Vec<u32> = stayed
        .iter()
        .map(|&p| w.pages[p].shell.match_view().tick.unwrap_or(0))
        .collect();
    w.all_play_on_past(&stayed, before[0].max(before[1]) + 120);
    for &p in &stayed {
        let v = w.pages[p].shell.match_view();
        assert_eq!((v.host, v.held), (Some(1), None), "page {p}");
    }
}
