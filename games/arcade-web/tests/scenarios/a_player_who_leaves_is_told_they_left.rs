//! A player who leaves in the middle of a game is told that they left,
//! whatever the link does next: the other page may close it at once on the
//! hub's goodbye, and the other player may leave at the same moment.
use crate::common;

use common::{started_pair, Pair};
use lockstep::{Millis, Outcome};
use netsim::LinkConfig;
use web_shell::play;
use web_shell::shell::GameSlot;

fn playing_the_arena() -> Pair {
    let link = LinkConfig {
        latency: Millis(30),
        jitter: Millis(5),
        ..LinkConfig::default()
    };
    let mut p = started_pair(link, 5);
    p.run(2_000, |_, _, _| {});
    assert_eq!(p.guest.hub.playing(), Some((0, 0)), "the arena runs");
    p
}

fn assert_left(p: &Pair) {
    let end = p
        .guest
        .ended
        .as_ref()
        .expect("the leaving page's match ended");
    assert_eq!(end.outcome, Outcome::LocalQuit);
    assert_eq!(end.message, play::outcome_message(&Outcome::LocalQuit));
}

#[test]
fn the_link_is_lost_right_after_leaving() {
    let mut p = playing_the_arena();
    let now = p.now;
    p.guest.hub.quit_match(now);
    p.guest.hub.match_link_lost(now);
    p.run(500, |_, _, _| {});
    assert_left(&p);
}

#[test]
fn the_link_is_lost_after_the_goodbye_went_out() {
    let mut p = playing_the_arena();
    let now = p.now;
    p.guest.hub.quit_match(now);
    // One frame sends the goodbyes; then the other side closes the link.
    p.guest.frame(now);
    p.guest.hub.match_link_lost(Millis(now.0 + 16));
    p.run(500, |_, _, _| {});
    assert_left(&p);
}

#[test]
fn both_players_leave_at_the_same_moment() {
    let mut p = playing_the_arena();
    let now = p.now;
    p.guest.hub.quit_match(now);
    p.host.hub.quit_match(now);
    p.run(1_000, |_, _, _| {});
    assert_left(&p);
    let host = p.host.ended.as_ref().expect("the host's match ended");
    assert_eq!(host.outcome, Outcome::LocalQuit);
}
