//! A party page opened with `?relay=1` plays over relays; mid-match every
//! link of it fails, and in the comeback room it makes no peer connection
//! either: each of its new links goes to the relay as soon as it is to be
//! made, the other pages following on its word (they have direct paths,
//! and would have linked directly otherwise). Its fresh session takes its
//! slot back over them, and the three input logs agree.

use crate::common;

use common::{facts, random, PartyDots, World};
use web_shell::screens::Screen;
use web_shell::shell::members::PARTY_RELAY_AFTER;
use web_shell::shell::{PlayerAction, Shell, ShellConfig};

#[test]
fn the_relay_option_puts_a_returning_party_pages_links_on_relays() {
    let shells = ["", "", "?relay=1"]
        .iter()
        .enumerate()
        .map(|(i, search)| {
            Shell::new(
                PartyDots::new(common::ANY_FOUR),
                ShellConfig::from_page(&facts(search)),
                random(0x7e1b * (i as u64 + 1)),
            )
        })
        .collect();
    let mut w = World::party_lobby_of(&["Ada", "Bo", "Cy"], shells);
    w.party_invited(&[1, 2]);
    w.press(1, PlayerAction::PartyAccept, 0);
    w.press(2, PlayerAction::PartyAccept, 0);
    let all = [0, 1, 2];
    w.until(10_000, "the three play", |w| w.all_play(&all, 90));
    assert_eq!(w.relays_opened, 4, "Cy's two pairs, both ends each");

    w.cut_party_links(2);
    let cut = w.now;
    w.until(20_000, "Cy is back in the match", |w| {
        w.screen(2) == Screen::Match && w.pages[2].shell.match_view().rejoined.is_some()
    });
    assert_eq!(w.relays_opened, 8, "a new relay for each of Cy's pairs");
    assert!(
        w.now.0 - cut.0 < PARTY_RELAY_AFTER.0,
        "no relay deadline was waited for"
    );
    for (p, q) in [(0, 1), (0, 2), (1, 2)] {
        assert!(w.party_linked(p, q) && w.party_linked(q, p), "{p} and {q}");
    }
    assert_eq!(w.pages[2].shell.match_view().path, Some("relayed"));
    let back_at = w.pages[2].shell.match_view().rejoined.unwrap();
    w.until(10_000, "all three play on past the return", |w| {
        all.iter()
            .all(|&p| w.pages[p].shell.match_view().tick > Some(back_at + 120))
    });

    w.leave_and_logs_agree(1, &all, &[1, back_at, back_at + 120]);
}
