//! The host's hub goes on over a new link only when the game it plays can
//! take a player back. While Battleship runs, or between games, it says
//! no (the shell then tells the guest there is no way back), and the match
//! it plays is left as it was; a guest's hub relinks only while its host
//! is away (see a_reloaded_host_comes_back_into_dots.rs).
use crate::common;

use common::{race_to_the_end, rejoining_pair};
use lockstep::Millis;
use netsim::LinkConfig;
use web_shell::shell::GameSlot;

fn link() -> LinkConfig {
    LinkConfig {
        latency: Millis(30),
        jitter: Millis(5),
        ..LinkConfig::default()
    }
}

#[test]
fn not_while_battleship_runs() {
    let mut p = rejoining_pair(link(), 71, 1);
    p.run(1_000, |_, _, _| {});
    assert_eq!(p.host.hub.playing(), Some((1, 0)));
    let now = p.now;
    assert!(!p.host.hub.match_relink(now, 9), "refused");
    assert_eq!(p.host.hub.match_tag(), Some(4), "still the first link");
    // Battleship goes on over the link it had, and nothing was sent again.
    p.run(1_000, |_, _, _| {});
    assert_eq!(p.guest.hub.playing(), Some((1, 0)));
    assert!(p.host.ended.is_none() && p.guest.ended.is_none());
}

#[test]
fn not_between_games() {
    let mut p = rejoining_pair(link(), 72, 2);
    race_to_the_end(&mut p);
    let now = p.now;
    assert!(!p.host.hub.match_relink(now, 9), "refused");
    assert_eq!(p.host.hub.match_tag(), Some(4));
    // The next game is still agreed as usual.
    p.both_hold(600, &["Digit2"]);
    assert_eq!(p.host.hub.playing(), Some((1, 1)));
    assert_eq!(p.guest.hub.playing(), Some((1, 1)));
}

#[test]
fn never_on_the_guest() {
    let mut p = rejoining_pair(link(), 73, 2);
    p.run(1_000, |_, _, _| {});
    assert_eq!(p.guest.hub.playing(), Some((2, 0)), "dots runs");
    let now = p.now;
    assert!(!p.guest.hub.match_relink(now, 9));
    assert_eq!(p.guest.hub.match_tag(), Some(4));
}
