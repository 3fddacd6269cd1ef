//! The guest's page reloads in the middle of dots, the second game of the
//! match. Its fresh page comes back the way the shell brings it back: a
//! fresh hub started with the rejoin its old page kept (the slot and the
//! token of the game's identity), the host's hub handed the new link. The
//! host's hub says which game runs under which generation; the guest's
//! fresh hub starts dots there, its session catches up, both pages show
//! the same confirmed states from then on, dots plays to its end, and the
//! next game starts afresh (no rejoin) on both pages.
use crate::common;

use common::{coming_back, compare_hashes, race_to_the_end, rejoining_pair};
use lockstep::Millis;
use netsim::LinkConfig;
use web_shell::shell::GameSlot;

#[test]
fn a_reloaded_guest_is_back_in_dots_under_the_same_generation() {
    let link = LinkConfig {
        latency: Millis(40),
        jitter: Millis(10),
        loss_percent: 3,
        ..LinkConfig::default()
    };
    // The arena first, then dots under generation 1.
    let mut p = rejoining_pair(link, 41, 0);
    p.run(1_000, |_, _, _| {});
    p.both_hold(600, &["Digit3"]);
    assert_eq!(p.host.hub.playing(), Some((2, 1)));
    assert_eq!(p.guest.hub.playing(), Some((2, 1)));
    p.run(3_000, |f, h, g| {
        common::steer(f, h, 0);
        common::steer(f, g, 1);
    });
    let before = p.host.view.tick.expect("dots runs");
    assert!(before > 60, "dots ran a while: {before} ticks");

    // What the guest's page keeps to come back with.
    let id = p
        .guest
        .hub
        .match_identity()
        .expect("the guest's dots has an identity");
    let host_id = p
        .host
        .hub
        .match_identity()
        .expect("the host's dots has one");
    assert_eq!((id.side, host_id.side), (1, 0));
    assert_eq!(id.match_id, host_id.match_id, "one match");

    // The page reloads. The host's hub holds the match; dots waits.
    p.reload_guest(3);
    p.run(2_500, |_, h, _| h.held = vec![]);
    assert!(p.host.ended.is_none(), "the host's match is held");
    assert_eq!(p.host.hub.playing(), Some((2, 1)));
    assert!(p.host.view.held.is_some(), "the host shows the slot held");
    assert_eq!(
        p.host.hub.match_identity(),
        Some(host_id),
        "still asked for"
    );

    // A new link: the guest's fresh hub with the rejoin, the host relinks.
    assert!(p.relink(link, 42, 5, coming_back(id)), "the host takes it");
    p.both_hold(2_000, &[]);
    assert_eq!(p.guest.hub.playing(), Some((2, 1)), "dots, same generation");
    assert!(
        p.guest.view.rejoined.is_some(),
        "the fresh session caught up"
    );
    assert_eq!(p.guest.hub.match_tag(), Some(5));
    assert_eq!(p.host.hub.match_tag(), Some(5));
    assert!(p.host.view.held.is_none(), "nothing held any more");
    let back = p.guest.hub.match_identity().expect("an identity again");
    assert_eq!(back, id, "the same slot, match and token");

    // Both pages play on and show the same confirmed states.
    race_to_the_end(&mut p);
    let (common, differ) = compare_hashes(&p.host, &p.guest, 1, before);
    assert!(common > 100, "both pages showed many ticks: {common}");
    assert!(differ.is_empty(), "hashes differ at ticks {differ:?}");
    let (h, g) = (&p.host.view, &p.guest.view);
    assert_eq!(h.headline, g.headline, "one result on both pages");
    assert!(h.headline.contains("wins"), "{}", h.headline);

    // The next game starts with a fresh handshake on both pages.
    p.both_hold(600, &["Digit3"]);
    p.both_hold(1_500, &[]);
    assert_eq!(p.host.hub.playing(), Some((2, 2)));
    assert_eq!(p.guest.hub.playing(), Some((2, 2)));
    assert!(p.guest.view.tick.is_some_and(|t| t > 30), "dots runs again");
    assert_eq!(p.guest.view.rejoined, None, "not a rejoin");

    // And the match ends when the guest leaves.
    p.guest_leaves();
}
