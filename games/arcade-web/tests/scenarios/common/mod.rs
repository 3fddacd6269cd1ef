//! Two arcade pages over one simulated link, driven frame by frame the way
//! the shell drives a slot: datagrams in, a frame, datagrams out, and the
//! match dropped once it reports its end. The link can be lost, and a
//! page reloaded, and a new link made between the pages, the way the
//! shell's comeback does it (web-shell `shell/rejoin.rs`), in virtual time.
#![allow(dead_code)] // each test file uses a different part of this module
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use arcade_web::hub::HubSlot;
use arena_web::slot::{ArenaSlot, HostRunner, InlineHost, Probe as ArenaProbe};
use battleship_web::slot::{BattleshipSlot, Probe as ShipsProbe};
use dots_web::{cells_in_summary, towards};
use lockstep::{Millis, Outcome, SessionConfig, Transport};
use netsim::{LinkConfig, SimEndpoint};
use web_shell::shell::driver::MatchEnd;
use web_shell::shell::game::MatchIdentity;
use web_shell::shell::rejoin::REJOIN_WINDOW;
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
    /// The confirmed state hash the page showed after each confirmed
    /// tick it showed, by the generation of the game and the tick.
    pub hashes: BTreeMap<(u8, u32), u64>,
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
            hashes: BTreeMap::new(),
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
        if let (Some((_, generation)), Some(tick), Some(hash)) =
            (self.hub.playing(), self.view.tick, self.view.hash)
        {
            self.hashes.insert((generation, tick), hash);
        }
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
    /// A host page and a guest page over one link with `link`'s settings,
    /// their matches made with `host` and `guest`; the host's hub opened on
    /// `game` (its first game by default). Nothing has run yet.
    pub fn opening(
        link: LinkConfig,
        seed: u64,
        game: Option<usize>,
        host: SessionConfig,
        guest: SessionConfig,
    ) -> Pair {
        let (a, b) = netsim::pair(link, seed);
        let mut p = Pair {
            now: Millis(0),
            host: Page::new(a, 1),
            guest: Page::new(b, 2),
            frame: 0,
        };
        if let Some(g) = game {
            p.host.hub.open_on(g);
        }
        assert!(p.host.hub.start_match(host, p.now, 4));
        assert!(p.guest.hub.start_match(guest, p.now, 4));
        p
    }

    /// Runs `ms` with both players holding `keys` (none: both let go).
    pub fn both_hold(&mut self, ms: u64, keys: &[&'static str]) {
        self.run(ms, |_, h, g| {
            h.held = keys.to_vec();
            g.held = keys.to_vec();
        });
    }

    /// The guest leaves: its match ends as left, the host's as the other
    /// player's leaving.
    pub fn guest_leaves(&mut self) {
        let now = self.now;
        self.guest.hub.quit_match(now);
        self.run(1_500, |_, _, _| {});
        let outcome = |p: &Page| p.ended.as_ref().map(|e| e.outcome.clone());
        assert_eq!(outcome(&self.guest), Some(Outcome::LocalQuit));
        assert_eq!(outcome(&self.host), Some(Outcome::RemoteQuit));
    }

    pub fn run(&mut self, ms: u64, mut keys: impl FnMut(u32, &mut Page, &mut Page)) {
        let end = self.now.0 + ms;
        while self.now.0 < end {
            self.now = Millis(self.now.0 + 16);
            self.frame += 1;
            keys(self.frame, &mut self.host, &mut self.guest);
            self.host.link.advance_to(self.now);
            // After a new link, the guest's end may be on another one.
            self.guest.link.advance_to(self.now);
            self.host.frame(self.now);
            self.guest.frame(self.now);
        }
    }
}

impl Pair {
    /// The match link fails, and both pages' hubs hear it (as the shell
    /// tells the slot on the link's close).
    pub fn lose_link(&mut self) {
        self.host.link.fail_link();
        self.host.hub.match_link_lost(self.now);
        self.guest.hub.match_link_lost(self.now);
    }

    /// The guest's page reloads: its link goes with it (the host's hub
    /// hears it lost), and a fresh page with no match takes its place.
    /// Its link until [`relink`](Self::relink) leads nowhere.
    pub fn reload_guest(&mut self, seed: u64) {
        self.host.link.fail_link();
        self.host.hub.match_link_lost(self.now);
        let (_, nowhere) = netsim::pair(LinkConfig::default(), seed);
        self.guest = Page::new(nowhere, seed);
    }

    /// A new link between the pages, made for the guest's comeback under
    /// attempt `tag`: the guest's hub starts a match with `guest_cfg` (a
    /// rejoin), the host's hub is asked to go on over the new link.
    /// Returns the host's answer.
    pub fn relink(
        &mut self,
        link: LinkConfig,
        seed: u64,
        tag: u32,
        guest_cfg: SessionConfig,
    ) -> bool {
        let (a, b) = netsim::pair(link, seed);
        a.advance_to(self.now);
        self.host.link = a;
        self.guest.link = b;
        self.guest.ended = None;
        let taken = self.host.hub.match_relink(self.now, tag);
        assert!(self.guest.hub.start_match(guest_cfg, self.now, tag));
        taken
    }
}

impl Pair {
    /// The host's page reloads: its link goes with it (the guest's hub
    /// hears it lost), and a fresh page with no match takes its place.
    pub fn reload_host(&mut self, seed: u64) {
        self.guest.link.fail_link();
        self.guest.hub.match_link_lost(self.now);
        let (nowhere, _) = netsim::pair(LinkConfig::default(), seed);
        self.host = Page::new(nowhere, seed);
    }

    /// A new link between the pages, made for the host's comeback under
    /// attempt `tag`: the host's fresh hub starts a match with `host_cfg`
    /// (`back_as_host`), the guest's hub is asked to go on over the new
    /// link. Returns the guest's answer.
    pub fn relink_host(
        &mut self,
        link: LinkConfig,
        seed: u64,
        tag: u32,
        host_cfg: SessionConfig,
    ) -> bool {
        let (a, b) = netsim::pair(link, seed);
        a.advance_to(self.now);
        self.host.link = a;
        self.guest.link = b;
        self.host.ended = None;
        let taken = self.guest.hub.match_relink(self.now, tag);
        assert!(self.host.hub.start_match(host_cfg, self.now, tag));
        taken
    }
}

/// The host's settings to come back with, from what its page kept of the
/// match (the identity the record is written from, and the match's
/// entropy), as the shell makes them.
pub fn host_coming_back(id: MatchIdentity) -> SessionConfig {
    let token = id.token.expect("the host has its own token");
    SessionConfig::host(id.match_id, 6)
        .adaptive_input_delay()
        .rejoin_window(REJOIN_WINDOW)
        .rejoin_entropy(ENTROPY)
        .back_as_host(token)
}

/// Random bits the host's tokens are made from, in these tests.
pub const ENTROPY: u128 = 0x0123_4567_89ab_cdef_fedc_ba98_7654_3210;

/// The host's settings for a match whose games may take a player back,
/// as the shell makes them (`rejoin_config`).
pub fn rejoining_host(seed: u64) -> SessionConfig {
    SessionConfig::host(seed, 6)
        .input_delay_from_rtt()
        .adaptive_input_delay()
        .rejoin_window(REJOIN_WINDOW)
        .rejoin_entropy(ENTROPY)
}

/// The guest's settings for such a match.
pub fn rejoining_guest() -> SessionConfig {
    SessionConfig::guest()
        .adaptive_input_delay()
        .rejoin_window(REJOIN_WINDOW)
}

/// The guest's settings to come back with, from what its page kept of the
/// match (the identity the record is written from), as the shell makes
/// them.
pub fn coming_back(id: MatchIdentity) -> SessionConfig {
    let token = id.token.expect("the guest was given a token");
    SessionConfig::guest()
        .adaptive_input_delay()
        .rejoin(id.side, token)
        .rejoin_window(REJOIN_WINDOW)
}

/// A host and a guest page with the shell's rejoin settings, the host's
/// hub opened on game `game`.
pub fn rejoining_pair(link: LinkConfig, seed: u64, game: usize) -> Pair {
    let mut p = Pair::opening(
        link,
        seed,
        Some(game),
        rejoining_host(77),
        rejoining_guest(),
    );
    // The host's hub starts its first game at its first frame.
    let now = p.now;
    p.host.frame(now);
    p
}

/// The confirmed hashes two pages both showed for the same tick of the
/// game under `generation` from tick `from` on: how many, and the ticks
/// where they differ.
pub fn compare_hashes(a: &Page, b: &Page, generation: u8, from: u32) -> (usize, Vec<u32>) {
    let mut common = 0;
    let mut differ = Vec::new();
    for (&(g, tick), hash) in a.hashes.range((generation, from)..=(generation, u32::MAX)) {
        debug_assert_eq!(g, generation);
        if let Some(other) = b.hashes.get(&(g, tick)) {
            common += 1;
            if other != hash {
                differ.push(tick);
            }
        }
    }
    (common, differ)
}

/// Dots: the keys that move this page's dot (side 0 on the host, 1 on
/// the guest) one cell towards the coin it sees, pressed for one frame in
/// twelve: the match runs with an input delay, so a key held until the dot
/// is seen on the coin would carry it past.
pub fn steer(frame: u32, p: &mut Page, side: u8) {
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

/// Both pages steer their dots until the game under way ends by itself
/// (on both pages), within four minutes.
pub fn race_to_the_end(p: &mut Pair) {
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
        assert!(
            p.host.ended.is_none() && p.guest.ended.is_none(),
            "the match goes on"
        );
    }
}

/// A host and a guest page over one link, both started on the hub.
pub fn started_pair(link: LinkConfig, seed: u64) -> Pair {
    Pair::opening(
        link,
        seed,
        None,
        SessionConfig::host(77, 6),
        SessionConfig::guest(),
    )
}
