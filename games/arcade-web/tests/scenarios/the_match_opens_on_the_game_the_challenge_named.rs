//! The game a challenge named is the one the match opens on: the host's
//! hub starts it at once and its first `Play` names it, so the guest's hub
//! opens on it too, with no game played before it.
use crate::common;

use common::{Page, Pair};
use lockstep::{Millis, SessionConfig};
use netsim::LinkConfig;
use web_shell::shell::GameSlot;

fn pair_opening_on(game: usize) -> Pair {
    Pair::opening(
        LinkConfig::default(),
        5,
        Some(game),
        SessionConfig::host(9, 6),
        SessionConfig::guest(),
    )
}

#[test]
fn the_hub_names_its_games_in_order() {
    let (a, _) = netsim::pair(LinkConfig::default(), 1);
    let page = Page::new(a, 1);
    assert_eq!(page.hub.games(), ["Arena", "Battleship", "Dots"]);
}

#[test]
fn a_challenge_to_dots_opens_on_dots_on_both_pages() {
    let mut p = pair_opening_on(2);
    assert_eq!(p.host.hub.playing(), None, "nothing runs before a frame");
    p.host.frame(p.now);
    assert_eq!(p.host.hub.playing(), Some((2, 0)), "the host starts dots");
    p.run(1_000, |_, _, _| {});
    assert_eq!(p.guest.hub.playing(), Some((2, 0)), "the guest follows");
    for page in [&p.host, &p.guest] {
        let summary = page.view.summary.as_deref().unwrap_or_default();
        assert!(summary.contains("coin"), "dots is shown: {summary}");
    }
    assert_eq!(p.host.arena.borrow().tick, None, "no arena ran before dots");
}

#[test]
fn a_game_out_of_the_list_opens_on_the_first() {
    let mut p = pair_opening_on(9);
    p.host.frame(p.now);
    assert_eq!(p.host.hub.playing(), Some((0, 0)));
}

// The page's own hub only checks that a match can be made (its worker
// plays it) and drops it at once: no game may start there, the arena's
// host least of all.
#[test]
fn a_host_hub_made_and_dropped_before_its_first_frame_starts_no_game() {
    let (a, _) = netsim::pair(LinkConfig::default(), 1);
    let mut page = Page::new(a, 1);
    assert!(page
        .hub
        .start_match(SessionConfig::host(9, 6), Millis(0), 1));
    assert_eq!(page.hub.playing(), None);
    page.hub.drop_match();
    assert_eq!(page.hub.poll_match_transmit(), None, "nothing to send");
}
