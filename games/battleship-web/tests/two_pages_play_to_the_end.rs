//! Two Battleship pages play a whole game over a lossy simulated link the
//! way the shell drives them: each person sweeps the other board with the
//! keys (Space, then the right arrow). One page wins, the other loses, the
//! result stays up for the hold time, then both matches end by themselves;
//! and neither page ever learned a cell of the other's fleet it had not
//! hit.
use std::cell::RefCell;
use std::rc::Rc;

use battleship_web::slot::{BattleshipSlot, Probe};
use lockstep::{Millis, SessionConfig, Transport};
use netsim::LinkConfig;
use web_shell::shell::view::MatchView;
use web_shell::shell::GameSlot;

struct Page {
    slot: BattleshipSlot,
    probe: Rc<RefCell<Probe>>,
    link: netsim::SimEndpoint,
    view: MatchView,
    ended: Option<String>,
    frame: u32,
}

impl Page {
    fn new(seed: u64, link: netsim::SimEndpoint) -> Page {
        let probe = Rc::new(RefCell::new(Probe::default()));
        let mut s = seed;
        let random = Box::new(move || {
            s = s.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            s
        });
        Page {
            slot: BattleshipSlot::new(random, Rc::clone(&probe)),
            probe,
            link,
            view: MatchView::default(),
            ended: None,
            frame: 0,
        }
    }

    fn frame(&mut self, now: Millis) {
        if self.ended.is_some() {
            return;
        }
        while let Some((ch, b)) = self.link.recv() {
            self.slot.match_datagram(now, ch, &b);
        }
        self.frame += 1;
        // Space held two frames, then the right arrow two frames, and so
        // on: one shot and one step along the board every eight frames.
        let held: &[&str] = match self.frame % 8 {
            0 | 1 => &["Space"],
            4 | 5 => &["ArrowRight"],
            _ => &[],
        };
        let my_turn = self.probe.borrow().my_turn;
        let held = if my_turn || self.frame % 8 >= 4 {
            held
        } else {
            // Wait for the turn with the cursor where it is.
            &[]
        };
        let report = self.slot.match_frame(now, held, &mut self.view);
        while let Some((ch, b)) = self.slot.poll_match_transmit() {
            let _ = self.link.send(ch, &b);
        }
        if let Some(end) = report.ended {
            self.ended = Some(end.message);
            self.slot.drop_match();
        }
    }
}

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
    let messages = [host.ended.unwrap(), guest.ended.unwrap()];
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
