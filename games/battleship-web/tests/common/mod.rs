//! A Battleship page as the shell drives it, over a simulated link: each
//! person sweeps the other board with the keys (Space, then the right
//! arrow) on their turn.
#![allow(dead_code)]

use std::cell::RefCell;
use std::rc::Rc;

use battleship_web::slot::{BattleshipSlot, Probe};
use lockstep::{Millis, Transport};
use web_shell::shell::driver::MatchEnd;
use web_shell::shell::view::MatchView;
use web_shell::shell::GameSlot;

/// One page: its slot, what it shows, its end of the link.
pub struct Page {
    pub slot: BattleshipSlot,
    pub probe: Rc<RefCell<Probe>>,
    pub link: netsim::SimEndpoint,
    pub view: MatchView,
    /// How the match ended, once it did.
    pub ended: Option<MatchEnd>,
    frame: u32,
    link_lost: bool,
}

impl Page {
    pub fn new(seed: u64, link: netsim::SimEndpoint) -> Page {
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
            link_lost: false,
        }
    }

    pub fn frame(&mut self, now: Millis) {
        if self.ended.is_some() {
            return;
        }
        while let Some((ch, b)) = self.link.recv() {
            self.slot.match_datagram(now, ch, &b);
        }
        if self.link.state().is_terminal() && !self.link_lost {
            self.link_lost = true;
            self.slot.match_link_lost(now);
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
            // As the shell does: the last datagrams went out above, then
            // the page lets the link go.
            self.link.close();
            self.ended = Some(end);
            self.slot.drop_match();
        }
    }
}
