//! Two arcade pages over one simulated link: they start in the arena, agree
//! on Battleship in the middle of it, play Battleship to the end, stay on
//! the hub with its result, agree on the arena again, and the guest leaves.
//! All of it over the one link the room gave them.
use crate::common;

use common::{started_pair, Page};
use lockstep::Millis;
use netsim::LinkConfig;

/// Battleship: Space held two frames, then the right arrow, on this
/// page's turn.
fn sweep(frame: u32, p: &mut Page) {
    let my_turn = p.ships.borrow().my_turn;
    p.held = match frame % 8 {
        0 | 1 if my_turn => vec!["Space"],
        4 | 5 => vec!["ArrowRight"],
        _ => vec![],
    };
}

#[test]
fn arena_then_battleship_to_the_end_then_arena_again() {
    let link = LinkConfig {
        latency: Millis(30),
        jitter: Millis(5),
        loss_percent: 5,
        ..LinkConfig::default()
    };
    let mut p = started_pair(link, 12);

    // The arena first, on both pages.
    p.run(2_000, |_, _, _| {});
    assert_eq!(p.host.hub.playing(), Some((0, 0)));
    assert_eq!(p.guest.hub.playing(), Some((0, 0)));
    assert_eq!(p.guest.arena.borrow().role, Some("guest"));
    assert!(
        p.guest.arena.borrow().tick.is_some(),
        "the guest shows the arena"
    );

    // The guest proposes Battleship; the host sees the proposal, agrees.
    p.run(200, |f, _, g| {
        g.held = if f % 4 == 0 { vec!["Digit2"] } else { vec![] }
    });
    assert!(
        p.host.view.headline.contains("proposes Battleship"),
        "{}",
        p.host.view.headline
    );
    assert_eq!(p.host.hub.playing(), Some((0, 0)), "not before both agree");
    p.run(500, |_, h, g| {
        h.held = vec!["Digit2"];
        g.held = vec![];
    });
    assert_eq!(p.host.hub.playing(), Some((1, 1)));
    assert_eq!(p.guest.hub.playing(), Some((1, 1)));
    assert_eq!(
        p.host.arena.borrow().role,
        None,
        "the arena match was let go"
    );

    // Battleship to the end; the result stays, then both are on the hub.
    let mut rounds = 0;
    while p.host.hub.playing().is_some() || p.guest.hub.playing().is_some() {
        p.run(1_000, |f, h, g| {
            sweep(f, h);
            sweep(f, g);
        });
        rounds += 1;
        assert!(rounds < 300, "the game ends");
    }
    let mut results = [p.host.ships.borrow().ended, p.guest.ships.borrow().ended];
    results.sort_unstable();
    assert_eq!(results, [Some("lost"), Some("won")]);
    assert!(
        p.host.ended.is_none() && p.guest.ended.is_none(),
        "still on the hub"
    );
    assert!(p
        .host
        .view
        .headline
        .contains("next game: press 1 Arena, 2 Battleship"));

    // The arena again, under the next generation.
    p.both_hold(500, &["Digit1"]);
    assert_eq!(p.host.hub.playing(), Some((0, 2)));
    assert_eq!(p.guest.hub.playing(), Some((0, 2)));
    p.run(2_000, |_, h, g| {
        h.held = vec!["ArrowUp"];
        g.held = vec!["ArrowUp", "ArrowLeft"];
    });
    assert_eq!(p.guest.arena.borrow().role, Some("guest"));

    // The guest leaves: the match ends for both.
    p.guest_leaves();
}
