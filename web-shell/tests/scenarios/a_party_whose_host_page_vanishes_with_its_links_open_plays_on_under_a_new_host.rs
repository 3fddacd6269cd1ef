//! A party of three plays a game that goes on without a player who left.
//! Ada's page, the party host's, stops for good without closing anything
//! (a tab killed by the browser: its connections look open to the others
//! for many seconds after it went). Bo and Cy hear the host fall silent on
//! links still open while they still hear each other: each takes the
//! host's page for the one away, keeps its session and its links (no
//! comeback room, no fresh session), and once Ada's window is over Bo
//! hosts the match and the two play on in step to an end their logs
//! agree on.

use crate::common;

use common::World;
use web_shell::screens::Screen;
use web_shell::shell::rejoin::REJOIN_WINDOW;
use web_shell::testing::PlaysOnDots;

#[test]
fn a_party_whose_host_page_vanishes_with_its_links_open_plays_on_under_a_new_host() {
    let shells = common::party_shells_as::<PlaysOnDots>(3, common::ANY_FOUR, 0x7a11_2026, None);
    let mut w = World::party_lobby_of(&["Ada", "Bo", "Cy"], shells);
    w.party_plays(3);
    let stayed = [1, 2];
    w.run(1_100);
    let rooms = w.rooms_made();
    let tick = |w: &World, p: usize| w.pages[p].shell.match_view().tick.unwrap_or(0);
    let before = tick(&w, 1).min(tick(&w, 2));

    // Ada's page never runs again; its links stay open, silent.
    w.pages[0].blocked = true;
    w.run(8_000);
    for &p in &stayed {
        let v = w.pages[p].shell.match_view();
        assert!(v.host_held, "page {p} holds the host's place");
        assert_eq!(v.rejoined, None, "page {p} kept its session");
        assert_eq!(w.screen(p), Screen::Match, "page {p}");
    }
    assert_eq!(w.rooms_made(), rooms, "nobody came back through a room");

    let over = w.now + REJOIN_WINDOW + common::LEFT_SETTLES;
    w.run(over.0.saturating_sub(w.now.0));
    let after: Vec<u32> = stayed.iter().map(|&p| tick(&w, p)).collect();
    for &p in &stayed {
        let v = w.pages[p].shell.match_view();
        assert_eq!(v.state, Some("running"), "page {p} is still in the match");
        assert_eq!(v.host, Some(1), "page {p}: Bo hosts now");
        assert_eq!(v.rejoined, None, "page {p} never made a fresh session");
    }
    assert_eq!(w.rooms_made(), rooms, "still no comeback room");
    w.run(3_000);
    for (i, &p) in stayed.iter().enumerate() {
        assert!(tick(&w, p) > after[i] + 120, "page {p} plays on");
    }
    let last = tick(&w, 1).min(tick(&w, 2));
    w.leave_and_logs_agree(2, &stayed, &[before, after[0].min(after[1]), last]);
}
