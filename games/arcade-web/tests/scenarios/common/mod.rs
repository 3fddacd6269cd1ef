//! Two arcade pages over one simulated link, driven frame by frame the way
//! the shell drives a slot: datagrams in, a frame, datagrams out, and the
//! match dropped once it reports its end.
#![allow(dead_code)] // each test file uses a different part of this module
use std::cell::RefCell;
use std::rc::Rc;

use arcade_web::hub::HubSlot;
use arena_web::slot::{ArenaSlot, HostRunner, InlineHost, Probe as ArenaProbe};
use battleship_web::slot::{BattleshipSlot, Probe as ShipsProbe};
use lockstep::{Millis, SessionConfig, Transport};
use netsim::{LinkConfig, SimEndpoint};
use web_shell::shell::driver::MatchEnd;
use web_shell::shell::view::MatchView;
use web_shell::shell::GameSlot;

pub struct Page {
    pub hub: HubSlot,
    pub arena: Rc<RefCell<ArenaProbe>>,
    pub ships: Rc<RefCell<ShipsProbe>>,
    pub link: SimEndpoint,
    pub view: MatchView,
    pub held: Vec<&'static str>,
    pub ended: Option<MatchEnd>,
}

/// A hub over the arena (its host in-process), Battleship (fleets from
/// `seed`) and dots, with the probes of the first two.
pub fn hub(seed: u64) -> (HubSlot, Rc<RefCell<ArenaProbe>>, Rc<RefCell<ShipsProbe>>) {
    let arena = Rc::new(RefCell::new(ArenaProbe::default()));
    let ships = Rc::new(RefCell::new(ShipsProbe::default()));
    let make: arena_web::slot::MakeRunner =
        Box::new(|| Some(Box::new(InlineHost::default()) as Box<dyn HostRunner>));
    let mut s = seed;
    let random = Box::new(move || {
        s = s.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        s
    });
    let games: Vec<Box<dyn GameSlot>> = vec![
        Box::new(ArenaSlot::new(make, Rc::clone(&arena))),
        Box::new(BattleshipSlot::new(random, Rc::clone(&ships))),
        dots_web::page_slot(),
    ];
    (HubSlot::new(games), arena, ships)
}

impl Page {
    pub fn new(link: SimEndpoint, seed: u64) -> Page {
        let (hub, arena, ships) = hub(seed);
        Page {
            hub,
            arena,
            ships,
            link,
            view: MatchView::default(),
            held: Vec::new(),
            ended: None,
        }
    }

    pub fn frame(&mut self, now: Millis) {
        if self.ended.is_some() {
            return;
        }
        while let Some((ch, b)) = self.link.recv() {
            self.hub.match_datagram(now, ch, &b);
        }
        let held = self.held.clone();
        let report = self.hub.match_frame(now, &held, &mut self.view);
        while let Some((ch, b)) = self.hub.poll_match_transmit() {
            let _ = self.link.send(ch, &b);
        }
        if let Some(end) = report.ended {
            self.hub.drop_match();
            self.ended = Some(end);
        }
    }
}

pub struct Pair {
    pub now: Millis,
    pub host: Page,
    pub guest: Page,
    pub frame: u32,
}

impl Pair {
    pub fn run(&mut self, ms: u64, mut keys: impl FnMut(u32, &mut Page, &mut Page)) {
        let end = self.now.0 + ms;
        while self.now.0 < end {
            self.now = Millis(self.now.0 + 16);
            self.frame += 1;
            keys(self.frame, &mut self.host, &mut self.guest);
            self.host.link.advance_to(self.now);
            self.host.frame(self.now);
            self.guest.frame(self.now);
        }
    }
}

/// A host and a guest page over one link, both started on the hub.
pub fn started_pair(link: LinkConfig, seed: u64) -> Pair {
    let (a, b) = netsim::pair(link, seed);
    let mut p = Pair {
        now: Millis(0),
        host: Page::new(a, 1),
        guest: Page::new(b, 2),
        frame: 0,
    };
    assert!(p.host.hub.start_match(SessionConfig::host(77, 6), p.now, 4));
    assert!(p.guest.hub.start_match(SessionConfig::guest(), p.now, 4));
    p
}
