//! Two Battleship pages play a whole game over a lossy simulated link the
//! way the shell drives them: each person sweeps the other board with the
//! keys (Space, then the right arrow). One page wins, the other loses, the
//! result stays up for the hold time, then both matches end by themselves;
//! and neither page ever learned a cell of the other's fleet it had not
//! hit.
mod common;

use battleship_web::slot::Probe;
use common::Page;
use lockstep::{Millis, SessionConfig};
use netsim::LinkConfig;
use web_shell::shell::GameSlot;

#[test]
fn a_game_to_the_end_reveals_only_hit_cells() {
    let link = LinkConfig {
        latency: Millis(40),
        jitter: Millis(10),
        loss_percent: 10,
        ..LinkConfig::default()
    };
    let (a, b) = netsim::pair(link, 3);
    let mut host = Page::new(1, a);
    let mut guest = Page::new(2, b);
    assert!(host
        .slot
        .start_match(SessionConfig::host(9, 6), Millis(0), 1));
    assert!(guest.slot.start_match(SessionConfig::guest(), Millis(0), 1));
    let mut now = Millis(0);
    let mut last = (Probe::default(), Probe::default());
    while (host.ended.is_none() || guest.ended.is_none()) && now.0 < 600_000 {
        now = Millis(now.0 + 16);
        host.link.advance_to(now);
        host.frame(now);
        guest.frame(now);
        if host.ended.is_none() {
            last.0 = host.probe.borrow().clone();
        }
        if guest.ended.is_none() {
            last.1 = guest.probe.borrow().clone();
        }
    }
    let (h, g) = last;
    let mut results = [h.ended, g.ended];
    results.sort_unstable();
    assert_eq!(results, [Some("lost"), Some("won")]);
    let messages = [host.ended.unwrap().message, guest.ended.unwrap().message];
    assert!(messages.contains(&"You sank the whole fleet: you won!".to_owned()));
    assert!(messages.contains(&"Your fleet was sunk: you lost.".to_owned()));
    for (me, other) in [(&h, &g), (&g, &h)] {
        for k in &me.known {
            let cell = [k[0], k[1]];
            assert!(other.shot_at.contains(&cell), "known only by firing at it");
            assert_eq!(
                k[2] != 1,
                other.fleet.contains(&cell),
                "a hit is a ship cell, a miss is water"
            );
        }
    }
}
