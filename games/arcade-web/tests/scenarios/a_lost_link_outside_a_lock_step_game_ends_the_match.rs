//! A lost link ends the match for both pages at once, with nothing held,
//! when the hub plays no game that can take a player back: while
//! Battleship or the arena runs, and between games. Neither page has an
//! identity to come back with.
use crate::common;

use common::{race_to_the_end, rejoining_pair, Pair};
use lockstep::{Millis, Outcome};
use netsim::LinkConfig;
use web_shell::shell::GameSlot;

fn link() -> LinkConfig {
    LinkConfig {
        latency: Millis(30),
        jitter: Millis(5),
        ..LinkConfig::default()
    }
}

/// The link is lost now: both pages' matches end within a few frames, as
/// a lost link.
fn lost_ends_both(p: &mut Pair) {
    for page in [&p.host, &p.guest] {
        assert_eq!(page.hub.match_identity(), None, "nothing to come back to");
    }
    p.lose_link();
    p.run(100, |_, _, _| {});
    for page in [&p.host, &p.guest] {
        let end = page.ended.as_ref().expect("the match ended");
        assert_eq!(end.outcome, Outcome::TransportLost);
    }
}

#[test]
fn during_battleship() {
    let mut p = rejoining_pair(link(), 61, 1);
    p.run(1_000, |_, _, _| {});
    assert_eq!(p.guest.hub.playing(), Some((1, 0)), "Battleship runs");
    lost_ends_both(&mut p);
}

#[test]
fn during_the_arena() {
    let mut p = rejoining_pair(link(), 62, 0);
    p.run(1_500, |_, _, _| {});
    assert_eq!(p.guest.hub.playing(), Some((0, 0)), "the arena runs");
    lost_ends_both(&mut p);
}

#[test]
fn between_games() {
    let mut p = rejoining_pair(link(), 63, 2);
    race_to_the_end(&mut p);
    assert!(
        p.guest.view.headline.contains("next game"),
        "on the hub between games: {}",
        p.guest.view.headline
    );
    lost_ends_both(&mut p);
}
