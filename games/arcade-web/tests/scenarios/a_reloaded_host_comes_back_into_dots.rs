//! The host's page reloads in the middle of dots, the second game of the
//! match. Its fresh page comes back the way the shell brings it back: a
//! fresh hub started with the host's settings and its own token
//! (`back_as_host`), the guest's hub handed the new link. The guest's hub
//! says which game runs under which generation; the host's fresh hub
//! starts dots there, its session is taken back by the guest's, both pages
//! show the same confirmed states from then on, dots plays to its end, and
//! the next game starts afresh on both pages, the host choosing it again.
use crate::common;

use common::{compare_hashes, host_coming_back, race_to_the_end, rejoining_pair};
use lockstep::Millis;
use netsim::LinkConfig;
use web_shell::shell::GameSlot;

#[test]
fn a_reloaded_host_is_back_in_dots_under_the_same_generation() {
    let link = LinkConfig {
        latency: Millis(40),
        jitter: Millis(10),
        loss_percent: 3,
        ..LinkConfig::default()
    };
    // The arena first, then dots under generation 1.
    let mut p = rejoining_pair(link, 43, 0);
    p.run(1_000, |_, _, _| {});
    p.both_hold(600, &["Digit3"]);
    assert_eq!(p.host.hub.playing(), Some((2, 1)));
    p.run(3_000, |f, h, g| {
        common::steer(f, h, 0);
        common::steer(f, g, 1);
    });
    let before = p.guest.view.tick.expect("dots runs");
    assert!(before > 60, "dots ran a while: {before} ticks");
    assert!(p.host.hub.host_rejoins(), "the hub takes its host back");

    // What the host's page keeps to come back with.
    let id = p
        .host
        .hub
        .match_identity()
        .expect("the host's dots has one");
    assert_eq!(id.side, 0);

    // The page reloads. The guest's hub holds the match; dots waits.
    p.reload_host(4);
    p.run(2_500, |_, _, g| g.held = vec![]);
    assert!(p.guest.ended.is_none(), "the guest's match is held");
    assert_eq!(p.guest.hub.playing(), Some((2, 1)));
    assert!(p.guest.view.held.is_some(), "the guest shows the host held");

    // A new link: the host's fresh hub comes back, the guest relinks.
    assert!(
        p.relink_host(link, 44, 5, host_coming_back(id)),
        "the guest takes it"
    );
    p.both_hold(2_000, &[]);
    assert_eq!(p.host.hub.playing(), Some((2, 1)), "dots, same generation");
    assert!(
        p.host.view.rejoined.is_some(),
        "the fresh session caught up"
    );
    assert_eq!(p.guest.hub.match_tag(), Some(5));
    assert!(p.guest.view.held.is_none(), "nothing held any more");
    let back = p.host.hub.match_identity().expect("an identity again");
    assert_eq!(back, id, "the same slot, match and token");

    // Both pages play on and show the same confirmed states.
    race_to_the_end(&mut p);
    let (common, differ) = compare_hashes(&p.host, &p.guest, 1, before);
    assert!(common > 100, "both pages showed many ticks: {common}");
    assert!(differ.is_empty(), "hashes differ at ticks {differ:?}");
    assert_eq!(p.host.view.headline, p.guest.view.headline);

    // The next game starts with a fresh handshake, the host's hub as
    // host again.
    p.both_hold(600, &["Digit3"]);
    p.both_hold(1_500, &[]);
    assert_eq!(p.host.hub.playing(), Some((2, 2)));
    assert_eq!(p.guest.hub.playing(), Some((2, 2)));
    assert!(p.host.view.tick.is_some_and(|t| t > 30), "dots runs again");
    assert_eq!(p.host.view.rejoined, None, "not a rejoin");
    p.guest_leaves();
}
