//! Two arena slots (two pages) joined by a simulated link, driven frame by
//! frame in virtual time the way the shell drives them: datagrams in, one
//! match frame each 16 ms with the held keys, datagrams out.
#![allow(dead_code)]

use std::cell::RefCell;
use std::rc::Rc;

use arena_web::slot::{ArenaSlot, HostRunner, InlineHost, Probe};
use lockstep::{Millis, SessionConfig, Transport};
use netsim::{LinkConfig, SimEndpoint};
use web_shell::shell::driver::MatchEnd;
use web_shell::shell::view::MatchView;
use web_shell::shell::GameSlot;

/// One page: its slot, its end of the link, what it shows.
pub struct Page {
    pub slot: ArenaSlot,
    pub link: SimEndpoint,
    pub probe: Rc<RefCell<Probe>>,
    pub view: MatchView,
    pub held: Vec<&'static str>,
    pub ended: Option<MatchEnd>,
    /// Whether the page tells its slot the link's send backlog when it
    /// changes, as the shell does.
    pub feeds_backlog: bool,
    reported_backlog: usize,
}

impl Page {
    fn new(link: SimEndpoint) -> Page {
        let probe = Rc::new(RefCell::new(Probe::default()));
        let make: arena_web::slot::MakeRunner =
            Box::new(|| Some(Box::new(InlineHost::default()) as Box<dyn HostRunner>));
        Page {
            slot: ArenaSlot::new(make, Rc::clone(&probe)),
            link,
            probe,
            view: MatchView::default(),
            held: Vec::new(),
            ended: None,
            feeds_backlog: true,
            reported_backlog: 0,
        }
    }

    fn flush(&mut self) {
        while let Some((ch, bytes)) = self.slot.poll_match_transmit() {
            let _ = self.link.send(ch, &bytes);
        }
    }

    fn frame(&mut self, now: Millis) {
        if self.ended.is_some() {
            return;
        }
        while let Some((ch, bytes)) = self.link.recv() {
            self.slot.match_datagram(now, ch, &bytes);
            self.flush();
        }
        let backlog = self.link.send_backlog();
        if self.feeds_backlog && backlog != self.reported_backlog {
            self.reported_backlog = backlog;
            self.slot.match_backlog(now, backlog);
        }
        let held = self.held.clone();
        let report = self.slot.match_frame(now, &held, &mut self.view);
        self.flush();
        if let Some(end) = report.ended {
            self.slot.drop_match();
            self.ended = Some(end);
        }
    }
}

/// A host page and a guest page of one match.
pub struct Pair {
    pub now: Millis,
    pub host: Page,
    pub guest: Page,
}

impl Pair {
    pub fn new(link: LinkConfig, seed: u64) -> Pair {
        let (a, b) = netsim::pair(link, seed);
        let mut p = Pair {
            now: Millis(0),
            host: Page::new(a),
            guest: Page::new(b),
        };
        assert!(p
            .host
            .slot
            .start_match(SessionConfig::host(seed, 6), p.now, 1));
        assert!(p.guest.slot.start_match(SessionConfig::guest(), p.now, 1));
        p.host.flush();
        p.guest.flush();
        p
    }

    /// Runs `ms` of 60 Hz frames; `each` is called after every frame.
    pub fn run(&mut self, ms: u64, mut each: impl FnMut(&mut Pair)) {
        let end = self.now.0 + ms;
        while self.now.0 < end {
            self.now = Millis(self.now.0 + 16);
            self.host.link.advance_to(self.now);
            self.host.frame(self.now);
            self.guest.frame(self.now);
            each(self);
        }
    }
}

/// Where the host had ship `id` at fractional tick `tick`, from its
/// history (blended between the ticks around it), if it was alive at both.
pub fn host_at(host: &Probe, id: u8, tick: f64) -> Option<[f32; 2]> {
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
