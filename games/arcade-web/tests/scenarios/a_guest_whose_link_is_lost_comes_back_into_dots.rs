//! The match link is lost in the middle of dots while both pages stay
//! open. Dots holds each side's place, so neither hub ends the match; the
//! guest's page comes back on a new link with its own hub (the shell
//! starts it again with the rejoin), dots goes on under the same
//! generation with the same confirmed states on both pages, and plays to
//! its end.
use crate::common;

use common::{coming_back, compare_hashes, race_to_the_end, rejoining_pair};
use lockstep::Millis;
use netsim::LinkConfig;
use web_shell::shell::GameSlot;

#[test]
fn the_guest_comes_back_into_dots_on_its_own_hub() {
    let link = LinkConfig {
        latency: Millis(30),
        jitter: Millis(8),
        loss_percent: 2,
        ..LinkConfig::default()
    };
    let mut p = rejoining_pair(link, 52, 2);
    p.run(3_000, |f, h, g| {
        common::steer(f, h, 0);
        common::steer(f, g, 1);
    });
    assert_eq!(p.guest.hub.playing(), Some((2, 0)));
    let before = p.guest.view.tick.expect("dots runs");

    p.lose_link();
    p.run(3_000, |_, h, g| {
        h.held = vec!["Digit1"]; // a proposal while the other is away
        g.held = vec![];
    });
    for page in [&p.host, &p.guest] {
        assert!(page.ended.is_none(), "the match is held on both pages");
        assert_eq!(page.hub.playing(), Some((2, 0)), "dots still runs");
    }
    let id = p
        .guest
        .hub
        .match_identity()
        .expect("the guest keeps its identity");
    assert_eq!(id.side, 1);

    assert!(p.relink(link, 53, 6, coming_back(id)));
    p.both_hold(2_000, &[]);
    assert_eq!(p.guest.hub.playing(), Some((2, 0)), "dots, same generation");
    assert_eq!(p.host.hub.playing(), Some((2, 0)));
    assert!(
        p.guest.view.rejoined.is_some(),
        "the fresh session caught up"
    );
    assert!(
        p.guest.view.headline.contains("proposes Arena"),
        "the host's proposal reached the guest's fresh hub: {}",
        p.guest.view.headline
    );

    race_to_the_end(&mut p);
    let (common, differ) = compare_hashes(&p.host, &p.guest, 0, before);
    assert!(common > 100, "both pages showed many ticks: {common}");
    assert!(differ.is_empty(), "hashes differ at ticks {differ:?}");
    // One result on both pages (the guest's line also shows the host's
    // proposal, still waiting for an answer).
    let result = |h: &str| h.split(" · ").next().unwrap_or_default().to_owned();
    assert_eq!(
        result(&p.host.view.headline),
        result(&p.guest.view.headline)
    );
    assert!(
        p.host.view.headline.contains("wins"),
        "{}",
        p.host.view.headline
    );
}
