//! A lock-step game behind the hub: the two pages agree on dots in the
//! middle of the arena, each steers its dot to the coin from what its page
//! shows, and the match comes to dots' own end (first to ten) with the same
//! result and the same confirmed hash on both pages, over the link the
//! arena used.
use crate::common;

use common::{started_pair, Page};
use dots_web::{cells_in_summary, towards, FIRST_TO};
use lockstep::Millis;
use netsim::LinkConfig;

/// The keys that move this page's dot (side 0 on the host, 1 on the
/// guest) one cell towards the coin it sees, pressed for one frame in
/// twelve: the match runs with an input delay, so a key held until the dot
/// is seen on the coin would carry it past.
fn steer(frame: u32, p: &mut Page, side: u8) {
    let cells = p
        .view
        .summary
        .as_deref()
        .and_then(|s| cells_in_summary(s, side));
    p.held = match cells {
        Some((dot, coin)) if frame.is_multiple_of(12) => {
            // One axis at a time: across first, then up or down.
            let pad = towards(dot, coin);
            let across = pad & (dots::LEFT | dots::RIGHT);
            let pad = if across != 0 { across } else { pad };
            [
                (dots::UP, "ArrowUp"),
                (dots::DOWN, "ArrowDown"),
                (dots::LEFT, "ArrowLeft"),
                (dots::RIGHT, "ArrowRight"),
            ]
            .into_iter()
            .filter(|(bit, _)| pad & bit != 0)
            .map(|(_, key)| key)
            .collect()
        }
        _ => vec![],
    };
}

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
    p.run(600, |_, h, g| {
        h.held = vec!["Digit3"];
        g.held = vec!["Digit3"];
    });
    assert_eq!(p.host.hub.playing(), Some((2, 1)));
    assert_eq!(p.guest.hub.playing(), Some((2, 1)));
    p.run(200, |_, h, g| {
        h.held = vec![];
        g.held = vec![];
    });
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
    let mut ms = 0;
    while p.host.hub.playing().is_some() || p.guest.hub.playing().is_some() {
        p.run(100, |f, h, g| {
            steer(f, h, 0);
            steer(f, g, 1);
        });
        ms += 100;
        assert!(
            ms < 240_000,
            "no result after four minutes of racing: {:?}",
            p.host.view.summary
        );
    }
    let (h, g) = (&p.host.view, &p.guest.view);
    assert_eq!(h.headline, g.headline, "one result on both pages");
    assert!(
        h.headline.contains(&format!("wins {FIRST_TO}-")),
        "{}",
        h.headline
    );
    assert_eq!(p.host.ended, None, "the hub stays open for the next game");
    // Once both confirmed the same tick, their hashes agree.
    p.run(1_000, |_, h, g| {
        h.held = vec![];
        g.held = vec![];
    });
    assert_eq!(p.host.view.tick, p.guest.view.tick);
    assert_eq!(p.host.view.hash, p.guest.view.hash);
}
