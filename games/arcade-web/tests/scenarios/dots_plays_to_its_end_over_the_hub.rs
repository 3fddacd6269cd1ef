//! A lock-step game behind the hub: the two pages agree on dots in the
//! middle of the arena, each steers its dot to the coin from what its page
//! shows, and the match comes to dots' own end (first to ten) with the same
//! result and the same confirmed hash on both pages, over the link the
//! arena used.
use crate::common;

use common::{race_to_the_end, started_pair};
use dots_web::FIRST_TO;
use lockstep::Millis;
use netsim::LinkConfig;

#[test]
fn dots_after_the_arena_ends_on_one_result() {
    let link = LinkConfig {
        latency: Millis(40),
        jitter: Millis(10),
        loss_percent: 5,
        ..LinkConfig::default()
    };
    let mut p = started_pair(link, 31);
    p.run(1_000, |_, _, _| {});
    assert_eq!(p.host.hub.playing(), Some((0, 0)), "the arena first");

    // Both propose dots (the third game).
    p.both_hold(600, &["Digit3"]);
    assert_eq!(p.host.hub.playing(), Some((2, 1)));
    assert_eq!(p.guest.hub.playing(), Some((2, 1)));
    p.both_hold(200, &[]);
    for (page, side) in [(&p.host, 0), (&p.guest, 1)] {
        assert!(
            !page.view.headline.contains("Amber"),
            "none of the arena's words: {}",
            page.view.headline
        );
        assert_eq!(page.view.side, Some(side));
        assert!(page
            .view
            .summary
            .as_deref()
            .is_some_and(|s| s.contains("coin")));
    }

    // Both race for the coin until dots says the match is decided.
    race_to_the_end(&mut p);
    let (h, g) = (&p.host.view, &p.guest.view);
    assert_eq!(h.headline, g.headline, "one result on both pages");
    assert!(
        h.headline.contains(&format!("wins {FIRST_TO}-")),
        "{}",
        h.headline
    );
    assert_eq!(p.host.ended, None, "the hub stays open for the next game");
    // Once both confirmed the same tick, their hashes agree.
    p.both_hold(1_000, &[]);
    assert_eq!(p.host.view.tick, p.guest.view.tick);
    assert_eq!(p.host.view.hash, p.guest.view.hash);
}
