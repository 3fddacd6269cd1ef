//! A party of three where one page (Cy's) finds no direct path to either
//! other page: its two pairs play over their relays. Mid-match every link
//! of that page fails (its network changed); it asks the host for a way
//! back, and in the comeback room its new links find no direct path
//! either: after the party's relay deadline each goes through the
//! comeback room's relay for that pair, both ends switching, and the
//! returning page's fresh session takes its slot back over them. All
//! three play on, each page saying its path is relayed, and the three
//! input logs agree past the return.

use crate::common;

use common::World;
use web_shell::screens::Screen;
use web_shell::shell::members::PARTY_RELAY_AFTER;
use web_shell::shell::PlayerAction;

#[test]
fn a_party_player_with_no_direct_path_comes_back_over_relays() {
    let mut w = World::party_lobby(&["Ada", "Bo", "Cy"], common::ANY_FOUR, 0x2e1a_bac2);
    // The lobby's own mesh is up; from now on Cy's page finds no path.
    w.no_direct_pairs.extend([(0, 2), (1, 2)]);
    w.party_invited(&[1, 2]);
    w.press(1, PlayerAction::PartyAccept, 0);
    w.press(2, PlayerAction::PartyAccept, 0);
    let all = [0, 1, 2];
    w.until(20_000, "the three play", |w| w.all_play(&all, 90));
    assert_eq!(w.relays_opened, 4, "Cy's two pairs, both ends each");
    let rooms = w.rooms_made();

    w.cut_party_links(2);
    let cut = w.now;
    w.until(20_000, "Cy is back in the match", |w| {
        w.screen(2) == Screen::Match && w.pages[2].shell.match_view().rejoined.is_some()
    });
    assert!(
        w.now.0 - cut.0 > PARTY_RELAY_AFTER.0,
        "the comeback links waited for a direct path first"
    );
    assert_eq!(w.rooms_made(), rooms + 1, "one comeback room");
    assert_eq!(w.relays_opened, 8, "a new relay for each of Cy's pairs");
    for (p, q) in [(0, 1), (0, 2), (1, 2)] {
        assert!(w.party_linked(p, q) && w.party_linked(q, p), "{p} and {q}");
    }
    assert_eq!(
        w.pages[2].shell.match_view().side,
        Some(2),
        "back in its own slot"
    );
    let back_at = w.pages[2].shell.match_view().rejoined.unwrap();
    w.until(10_000, "all three play on past the return", |w| {
        all.iter()
            .all(|&p| w.pages[p].shell.match_view().tick > Some(back_at + 120))
    });
    for p in all {
        let v = w.pages[p].shell.match_view();
        assert_eq!(v.reconnecting, None, "page {p}");
        assert_eq!(v.path, Some("relayed"), "page {p}: a link of it is relayed");
    }

    w.leave_and_logs_agree(0, &all, &[1, back_at, back_at + 120]);
}
