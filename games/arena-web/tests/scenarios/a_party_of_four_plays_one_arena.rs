//! A party of four plays the arena the way the shell's party drives it:
//! the host (place 0) holds one simulated link to each guest, each guest
//! plays over its link to place 0 (its links to the other guests carry
//! nothing). Every guest's drawn ships are compared with the host's, at the
//! same host tick and at the same moment; a guest that leaves takes its
//! ship with it while the others play on; the host leaving ends every
//! guest's match.

use std::cell::RefCell;
use std::rc::Rc;

use arena::MAX_SPEED;
use arena_web::slot::{take_frames, ArenaSlot, HostRunner, InlineHost, Probe, PARTY_MAX};
use lockstep::{Channel, Millis, Outcome, PeerId, SessionConfig, Transport};
use netsim::{LinkConfig, SimEndpoint};
use web_shell::shell::driver::MatchEnd;
use web_shell::shell::view::MatchView;
use web_shell::shell::GameSlot;

/// Interpolated ships against the host's state at the same host tick
/// (metres), as in the two-page test.
const SAME_TICK_BOUND: f32 = 0.5;

/// Time a drawn state may trail the host's present beyond the
/// interpolation delay (ms): the link's latency and jitter here (60 ms),
/// a snapshot interval (66 ms) and a frame on each page (32 ms).
const LAG_ALLOWANCE_MS: f32 = 160.0;

struct Page {
    slot: ArenaSlot,
    /// Links by the party place at their other end.
    links: Vec<(PeerId, SimEndpoint)>,
    probe: Rc<RefCell<Probe>>,
    view: MatchView,
    held: Vec<&'static str>,
    ended: Option<MatchEnd>,
}

impl Page {
    fn new() -> Page {
        let probe = Rc::new(RefCell::new(Probe::default()));
        let make: arena_web::slot::MakeRunner =
            Box::new(|| Some(Box::new(InlineHost::default()) as Box<dyn HostRunner>));
        Page {
            slot: ArenaSlot::new(make, Rc::clone(&probe)),
            links: Vec::new(),
            probe,
            view: MatchView::default(),
            held: Vec::new(),
            ended: None,
        }
    }

    fn flush(&mut self) {
        for (name, link) in &mut self.links {
            while let Some((ch, bytes)) = self.slot.poll_party_transmit(*name) {
                let _ = link.send(ch, &bytes);
            }
        }
        assert!(
            self.slot.poll_match_transmit().is_none(),
            "a party's match sends nothing on the match link"
        );
    }

    fn frame(&mut self, now: Millis) {
        if self.ended.is_some() {
            return;
        }
        for i in 0..self.links.len() {
            let name = self.links[i].0;
            while let Some((ch, bytes)) = self.links[i].1.recv() {
                self.slot.party_datagram(now, name, ch, &bytes);
            }
            let backlog = self.links[i].1.send_backlog();
            self.slot.party_backlog(now, name, backlog);
        }
        self.flush();
        let held = self.held.clone();
        let report = self.slot.match_frame(now, &held, &mut self.view);
        self.flush();
        if let Some(end) = report.ended {
            self.slot.drop_match();
            self.ended = Some(end);
        }
    }
}

struct Party {
    now: Millis,
    pages: Vec<Page>,
}

impl Party {
    /// Four pages, fully meshed as a party's are; the host's links to the
    /// guests over `link`.
    fn new(link: LinkConfig, seed: u64) -> Party {
        let mut pages: Vec<Page> = (0..4).map(|_| Page::new()).collect();
        for a in 0..4u16 {
            for b in a + 1..4 {
                let (ea, eb) = netsim::pair(link, seed ^ u64::from(a * 4 + b));
                pages[usize::from(a)].links.push((PeerId(b), ea));
                pages[usize::from(b)].links.push((PeerId(a), eb));
            }
        }
        let now = Millis(0);
        for (place, p) in pages.iter_mut().enumerate() {
            let cfg = if place == 0 {
                SessionConfig::host(seed, 6)
            } else {
                SessionConfig::guest()
            };
            let names: Vec<PeerId> = p.links.iter().map(|(n, _)| *n).collect();
            assert!(p.slot.start_party(cfg, now, 1, &names));
            p.flush();
        }
        Party { now, pages }
    }

    fn run(&mut self, ms: u64, mut each: impl FnMut(&mut Party)) {
        let end = self.now.0 + ms;
        while self.now.0 < end {
            self.now = Millis(self.now.0 + 16);
            for p in &mut self.pages {
                for (_, l) in &mut p.links {
                    l.advance_to(self.now);
                }
            }
            let now = self.now;
            for p in &mut self.pages {
                p.frame(now);
            }
            each(self);
        }
    }
}

/// Where the host had ship `id` at fractional tick `tick`.
fn host_at(host: &Probe, id: u8, tick: f64) -> Option<[f32; 2]> {
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let lo = tick.floor() as u64;
    let find = |t: u64| {
        host.history
            .iter()
            .find(|h| h.tick == t)
            .and_then(|h| h.ships.iter().find(|s| s.id == id && s.hp > 0))
            .map(|s| [s.x, s.y])
    };
    let a = find(lo)?;
    let b = find(lo + 1).unwrap_or(a);
    #[allow(clippy::cast_possible_truncation, clippy::cast_precision_loss)]
    let f = (tick - lo as f64) as f32;
    Some([a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f])
}

#[test]
fn every_guest_draws_every_ship_near_the_host() {
    let link = LinkConfig {
        latency: Millis(50),
        jitter: Millis(10),
        ..LinkConfig::default()
    };
    let mut party = Party::new(link, 64);
    let mut same_tick = 0;
    let mut present = 0;
    let mut worst = 0.0f32;
    let mut frame = 0u32;
    party.run(20_000, |party| {
        frame += 1;
        for (i, p) in party.pages.iter_mut().enumerate() {
            let phase = (frame / 80 + u32::try_from(i).unwrap_or(0)) % 3;
            p.held = match phase {
                0 => vec!["ArrowUp", "ArrowLeft", "Space"],
                1 => vec!["ArrowUp", "Space"],
                _ => vec!["ArrowRight"],
            };
        }
        let host = party.pages[0].probe.borrow();
        for g in &party.pages[1..] {
            {
                let guest = g.probe.borrow();
                let (Some(tick), Some(seat)) = (guest.tick, guest.seat) else {
                    continue;
                };
                for s in guest.ships.iter().filter(|s| s.id != seat && s.hp > 0) {
                    if let Some(h) = host_at(&host, s.id, tick) {
                        let d = (s.x - h[0]).hypot(s.y - h[1]);
                        assert!(d <= SAME_TICK_BOUND, "ship {} {d} m off at {tick}", s.id);
                        same_tick += 1;
                    }
                }
            }
            // At the same moment: the host's newest state against every
            // ship the guest draws, its own included.
            let Some(now) = host.history.back() else {
                continue;
            };
            for f in take_frames(&g.probe) {
                #[allow(clippy::cast_precision_loss)]
                let bound =
                    MAX_SPEED * (f.delay_ms as f32 + LAG_ALLOWANCE_MS) / 1000.0 + SAME_TICK_BOUND;
                for s in f.ships.iter().filter(|s| s.hp > 0) {
                    // A ship destroyed meanwhile comes back elsewhere.
                    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                    let from = f.tick.floor() as u64;
                    let alive = host
                        .history
                        .iter()
                        .filter(|h| h.tick >= from)
                        .all(|h| h.ships.iter().any(|x| x.id == s.id && x.hp > 0));
                    let Some(h) = now.ships.iter().find(|h| h.id == s.id) else {
                        continue;
                    };
                    if !alive {
                        continue;
                    }
                    let d = (s.x - h.x).hypot(s.y - h.y);
                    worst = worst.max(d / bound);
                    assert!(
                        d <= bound,
                        "ship {} drawn {d} m from the host's present",
                        s.id
                    );
                    present += 1;
                }
            }
        }
    });
    assert!(same_tick > 3_000, "only {same_tick} same-tick comparisons");
    assert!(
        present > 3_000,
        "only {present} comparisons at the same moment"
    );
    eprintln!("{present} comparisons at the same moment, worst {worst:.2} of the bound");
    let host = party.pages[0].probe.borrow();
    assert_eq!(host.guests, Some(3));
    let seats: Vec<u8> = party.pages[1..]
        .iter()
        .filter_map(|g| g.probe.borrow().seat)
        .collect();
    assert_eq!(seats.len(), 3, "every guest took a seat");
    let newest = host.history.back().expect("the host ran");
    assert_eq!(newest.ships.len(), 4, "four ships in the host's arena");
    for g in &party.pages[1..] {
        assert_eq!(
            g.probe.borrow().ships.len(),
            4,
            "every guest draws four ships"
        );
        assert_eq!(g.view.state, Some("running"));
    }
    assert!(party.pages.iter().all(|p| p.ended.is_none()));
}

#[test]
fn a_guest_leaves_and_the_others_play_on_until_the_host_leaves() {
    let link = LinkConfig {
        latency: Millis(20),
        ..LinkConfig::default()
    };
    let mut party = Party::new(link, 65);
    party.run(2_000, |_| {});
    assert_eq!(party.pages[0].view.headline, "You play Amber (host)");
    let gone = party.pages[3].probe.borrow().seat.expect("seated");
    let now = party.now;
    party.pages[3].slot.quit_match(now);
    party.run(1_000, |_| {});
    let left = party.pages[3].ended.as_ref().expect("the guest left");
    assert_eq!(left.outcome, Outcome::LocalQuit);
    // The others play on, without its ship.
    for p in &party.pages[..3] {
        assert!(p.ended.is_none(), "the others play on");
        let probe = p.probe.borrow();
        assert_eq!(probe.ships.len(), 3);
        assert!(probe.ships.iter().all(|s| s.id != gone));
    }
    // A guest loses its link to another guest: nothing changes.
    let now = party.now;
    party.pages[1].slot.party_link_lost(now, PeerId(2));
    party.pages[1]
        .slot
        .party_datagram(now, PeerId(2), Channel::Reliable, &[1, 2, 3]);
    party.run(1_000, |_| {});
    assert!(party.pages[..3].iter().all(|p| p.ended.is_none()));
    let now = party.now;
    party.pages[0].slot.quit_match(now);
    party.run(1_000, |_| {});
    let h = party.pages[0].ended.as_ref().expect("the host left");
    assert_eq!(h.outcome, Outcome::LocalQuit);
    for p in &party.pages[1..3] {
        let e = p.ended.as_ref().expect("the goodbye reached the guest");
        assert_eq!(e.outcome, Outcome::RemoteQuit);
        assert_eq!(e.message, "The host left the match.");
    }
}

#[test]
fn the_last_guest_gone_ends_the_host_match() {
    let link = LinkConfig {
        latency: Millis(20),
        ..LinkConfig::default()
    };
    let mut party = Party::new(link, 66);
    party.run(2_000, |_| {});
    for i in 1..4 {
        let now = party.now;
        party.pages[i].slot.quit_match(now);
        party.run(500, |_| {});
        let ended = party.pages[0].ended.is_some();
        assert_eq!(ended, i == 3, "the host's match ends with its last guest");
    }
    let h = party.pages[0].ended.as_ref().expect("ended");
    assert_eq!(h.outcome, Outcome::RemoteQuit);
    assert_eq!(h.message, "Everyone else left the match.");
}

#[test]
fn a_lost_guest_link_takes_only_that_guest() {
    let link = LinkConfig {
        latency: Millis(20),
        ..LinkConfig::default()
    };
    let mut party = Party::new(link, 67);
    party.run(2_000, |_| {});
    let gone = party.pages[2].probe.borrow().seat.expect("seated");
    let now = party.now;
    party.pages[0].slot.party_link_lost(now, PeerId(2));
    party.run(1_000, |_| {});
    assert!(party.pages[0].ended.is_none());
    let host = party.pages[0].probe.borrow();
    assert!(host.ships.iter().all(|s| s.id != gone));
    assert_eq!(host.ships.len(), 3);
}

#[test]
fn the_party_rules_and_spectators() {
    let probe = Rc::new(RefCell::new(Probe::default()));
    let make: arena_web::slot::MakeRunner =
        Box::new(|| Some(Box::new(InlineHost::default()) as Box<dyn HostRunner>));
    let mut slot = ArenaSlot::new(make, probe);
    let rules = slot.party();
    assert_eq!(rules.max_people, PARTY_MAX);
    assert!(rules.allows_parties());
    assert_eq!(slot.party_seed(9, &[0, 0, 0, 0], 0), Some(9));
    assert_eq!(slot.party_seed(9, &[0, 1, 0], 0), None, "no sides");
    assert_eq!(slot.party_seed(9, &[0; 9], 0), None, "too many");
    // An arena match takes no spectators: the spectator's page is told.
    assert!(!slot.start_party(SessionConfig::spectator(), Millis(0), 1, &[PeerId(0)]));
    assert!(slot.match_tag().is_none());
}
