//! A party of three where one pair of players never gets a direct path:
//! that pair gives up on it after the party's relay deadline and links through the
//! member room's relay for that pair, while the host's links to both stay
//! direct. The match plays on every page, each page says whether any of
//! its links is relayed, and the three input logs agree.

use crate::common;

use common::World;
use web_shell::shell::members::PARTY_RELAY_AFTER;
use web_shell::shell::PlayerAction;

#[test]
fn a_party_pair_with_no_direct_path_plays_over_its_relay() {
    let mut w = World::party_lobby(&["Ada", "Bo", "Cy"], common::ANY_FOUR, 0x4e1a);
    // The lobby's own mesh is up; from now on pages 1 and 2 find no path.
    w.no_direct_pairs.push((1, 2));
    w.party_invited(&[1, 2]);
    let started = w.now;
    w.press(1, PlayerAction::PartyAccept, 0);
    w.press(2, PlayerAction::PartyAccept, 0);

    w.until(20_000, "the three play", |w| w.all_play(&[0, 1, 2], 90));
    assert!(
        w.now.0 - started.0 > PARTY_RELAY_AFTER.0,
        "the pair waited for its direct path first"
    );
    assert_eq!(w.relays_opened, 2, "one relay, a socket from each end");
    assert!(w.party_linked(0, 1) && w.party_linked(0, 2));
    assert!(w.party_linked(1, 2), "the relayed pair is linked");
    let paths: Vec<Option<&str>> = (0..3).map(|p| w.pages[p].shell.match_view().path).collect();
    assert_eq!(paths, [Some("direct"), Some("relayed"), Some("relayed")]);

    w.leave_and_logs_agree(0, &[0, 1, 2], &[30, 90]);
}
