//! Two arcade pages over one simulated link: they start in the arena, agree
//! on Battleship in the middle of it, play Battleship to the end, stay on
//! the hub with its result, agree on the arena again, and the guest leaves.
//! All of it over the one link the room gave them.
use std::cell::RefCell;
use std::rc::Rc;

use arcade_web::hub::HubSlot;
use arena_web::slot::{ArenaSlot, HostRunner, InlineHost, Probe as ArenaProbe};
use battleship_web::slot::{BattleshipSlot, Probe as ShipsProbe};
use lockstep::{Millis, Outcome, SessionConfig, Transport};
use netsim::{LinkConfig, SimEndpoint};
use web_shell::shell::driver::MatchEnd;
use web_shell::shell::view::MatchView;
use web_shell::shell::GameSlot;

struct Page {
    hub: HubSlot,
    arena: Rc<RefCell<ArenaProbe>>,
    ships: Rc<RefCell<ShipsProbe>>,
    link: SimEndpoint,
    view: MatchView,
    held: Vec<&'static str>,
    ended: Option<MatchEnd>,
}

impl Page {
    fn new(link: SimEndpoint, seed: u64) -> Page {
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
        ];
        Page {
            hub: HubSlot::new(games),
            arena,
            ships,
            link,
            view: MatchView::default(),
            held: Vec::new(),
            ended: None,
        }
    }

    fn frame(&mut self, now: Millis) {
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

struct Pair {
    now: Millis,
    host: Page,
    guest: Page,
    frame: u32,
}

impl Pair {
    fn run(&mut self, ms: u64, mut keys: impl FnMut(u32, &mut Page, &mut Page)) {
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
    let (a, b) = netsim::pair(link, 12);
    let mut p = Pair {
        now: Millis(0),
        host: Page::new(a, 1),
        guest: Page::new(b, 2),
        frame: 0,
    };
    assert!(p.host.hub.start_match(SessionConfig::host(77, 6), p.now, 4));
    assert!(p.guest.hub.start_match(SessionConfig::guest(), p.now, 4));

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
    p.run(500, |_, h, g| {
        h.held = vec!["Digit1"];
        g.held = vec!["Digit1"];
    });
    assert_eq!(p.host.hub.playing(), Some((0, 2)));
    assert_eq!(p.guest.hub.playing(), Some((0, 2)));
    p.run(2_000, |_, h, g| {
        h.held = vec!["ArrowUp"];
        g.held = vec!["ArrowUp", "ArrowLeft"];
    });
    assert_eq!(p.guest.arena.borrow().role, Some("guest"));

    // The guest leaves: the match ends for both.
    let now = p.now;
    p.guest.hub.quit_match(now);
    p.run(1_500, |_, _, _| {});
    assert_eq!(
        p.guest.ended.as_ref().map(|e| &e.outcome),
        Some(&Outcome::LocalQuit)
    );
    assert_eq!(
        p.host.ended.as_ref().map(|e| &e.outcome),
        Some(&Outcome::RemoteQuit)
    );
}
