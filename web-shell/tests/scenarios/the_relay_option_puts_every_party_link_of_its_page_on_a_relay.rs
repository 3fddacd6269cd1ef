//! A party page opened with `?relay=1` makes no peer connection for its
//! party: each of its pairs goes to the relay as soon as it is made, the
//! other end follows on hearing it, and the match starts long before the
//! relay deadline. The pair without that page stays direct.

use crate::common;

use common::{facts, random, PartyDots, World};
use web_shell::shell::room::RELAY_AFTER;
use web_shell::shell::{PlayerAction, Shell, ShellConfig};

#[test]
fn the_relay_option_puts_every_party_link_of_its_page_on_a_relay() {
    let shells = ["", "", "?relay=1"]
        .iter()
        .enumerate()
        .map(|(i, search)| {
            Shell::new(
                PartyDots::new(common::ANY_FOUR),
                ShellConfig::from_page(&facts(search)),
                random(0x7e1a * (i as u64 + 1)),
            )
        })
        .collect();
    let mut w = World::party_lobby_of(&["Ada", "Bo", "Cy"], shells);
    w.party_invited(&[1, 2]);
    let started = w.now;
    w.press(1, PlayerAction::PartyAccept, 0);
    w.press(2, PlayerAction::PartyAccept, 0);

    w.until(RELAY_AFTER.0 - 1, "the three play", |w| {
        w.all_play(&[0, 1, 2], 0)
    });
    assert!(w.now.0 - started.0 < RELAY_AFTER.0);
    assert_eq!(w.relays_opened, 4, "page 2's two pairs, both ends each");
    assert!(w.party_linked(0, 1) && w.party_linked(0, 2) && w.party_linked(1, 2));
    w.until(3_000, "ticks confirmed", |w| w.all_play(&[0, 1, 2], 60));
    assert_eq!(w.pages[2].shell.match_view().path, Some("relayed"));

    w.leave_and_logs_agree(1, &[0, 1, 2], &[60]);
}
