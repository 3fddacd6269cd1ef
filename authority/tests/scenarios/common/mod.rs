//! A match of the arena game in virtual time: a host and guests, each guest
//! on its own simulated link, bots at every seat, and a record of what the
//! host's game did (events with their recipients, the snapshot made for
//! each seat at each tick, every ship's motion at every tick) to check the
//! guests against.
#![allow(dead_code)]

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use arena::{Arena, ArenaEvent, ArenaSnapshot, Bot, Control, Motion};
use authority::wire::Token;
use authority::{
    pump_guest, AuthoritativeGame, Guest, GuestEvent, Host, HostConfig, HostEvent, HostLinks,
    LinkId, Predict, Predictor, Recipients, Seat,
};
use lockstep::Millis;
use netsim::{LinkConfig, SimEndpoint};

/// What the host's game did.
#[derive(Default)]
pub struct Log {
    /// Ticks advanced.
    pub tick: u64,
    /// Seats added (with the tick) and events (with tick and recipients),
    /// in order.
    pub entries: Vec<Entry>,
    /// The snapshot made for each seat at each tick.
    pub snapshots: HashMap<(Seat, u64), ArenaSnapshot>,
    /// Every live ship's motion after each tick.
    pub motions: HashMap<(Seat, u64), Motion>,
}

#[derive(Debug, Clone)]
pub enum Entry {
    Joined(Seat, u64),
    Event(u64, Recipients, ArenaEvent),
}

impl Log {
    /// The events `seat` should have received since it last joined (or,
    /// with `after`, since that tick), with the tick each happened at.
    pub fn expected(&self, seat: Seat, after: Option<u64>) -> Vec<(u64, ArenaEvent)> {
        let mut out = Vec::new();
        for e in &self.entries {
            match e {
                Entry::Joined(s, _) if *s == seat => out.clear(),
                Entry::Event(t, to, ev) if to.includes(seat) && after.is_none_or(|a| *t > a) => {
                    out.push((*t, *ev));
                }
                _ => {}
            }
        }
        out
    }
}

/// The arena, recording what it does.
pub struct Probe {
    pub game: Arena,
    pub log: Rc<RefCell<Log>>,
}

impl AuthoritativeGame for Probe {
    type Snapshot = ArenaSnapshot;
    type Command = Control;
    type Event = ArenaEvent;
    const GAME_ID: u64 = Arena::GAME_ID;

    fn add_player(&mut self, seat: Seat) {
        self.game.add_player(seat);
        let mut log = self.log.borrow_mut();
        let t = log.tick;
        log.entries.push(Entry::Joined(seat, t));
    }
    fn remove_player(&mut self, seat: Seat) {
        self.game.remove_player(seat);
    }
    fn command(&mut self, seat: Seat, command: Control) {
        self.game.command(seat, command);
    }
    fn advance(&mut self, dt_ms: u32) {
        self.game.advance(dt_ms);
        let mut log = self.log.borrow_mut();
        log.tick = self.game.tick();
        let t = log.tick;
        for seat in 0..=10 {
            if let Some(s) = self.game.ship(seat).filter(|s| s.hp > 0) {
                log.motions.insert((seat, t), s.motion);
            }
        }
    }
    fn drain_events(&mut self, out: &mut Vec<(Recipients, ArenaEvent)>) {
        let start = out.len();
        self.game.drain_events(out);
        let mut log = self.log.borrow_mut();
        let t = log.tick;
        for (to, e) in &out[start..] {
            log.entries.push(Entry::Event(t, *to, *e));
        }
    }
    fn snapshot(&self, seat: Seat) -> ArenaSnapshot {
        let s = self.game.snapshot(seat);
        let mut log = self.log.borrow_mut();
        let t = log.tick;
        log.snapshots.insert((seat, t), s.clone());
        s
    }
    fn interpolate(from: &ArenaSnapshot, to: &ArenaSnapshot, t: f32) -> ArenaSnapshot {
        Arena::interpolate(from, to, t)
    }
}

impl Predict for Probe {
    type Motion = Motion;
    fn own_motion(s: &ArenaSnapshot) -> Option<Motion> {
        Arena::own_motion(s)
    }
    fn apply_command(m: &mut Motion, c: &Control) {
        <Arena as Predict>::apply_command(m, c);
    }
    fn step_motion(m: &mut Motion, dt_ms: u32) {
        <Arena as Predict>::step_motion(m, dt_ms);
    }
    fn position(m: &Motion) -> [f32; 2] {
        Arena::position(m)
    }
    fn snap_distance() -> f32 {
        Arena::snap_distance()
    }
}

/// One guest and what it saw.
pub struct Side {
    pub guest: Guest<Probe>,
    pub net: SimEndpoint,
    pub link: LinkId,
    pub bot: Bot,
    pub playing: bool,
    pub predictor: Predictor<Probe>,
    pub seat: Option<Seat>,
    pub events: Vec<ArenaEvent>,
    /// When each event arrived.
    pub event_times: Vec<Millis>,
    /// (arrival time, tick) of every snapshot decoded.
    pub decoded: Vec<(Millis, u64)>,
    /// Corrections, with the time they happened.
    pub corrections: Vec<(Millis, authority::Correction)>,
    pub ended: Option<authority::EndReason>,
    pub rejoined: bool,
}

/// A host, its guests and the record.
pub struct Match {
    pub host: Host<Probe>,
    pub links: HostLinks<SimEndpoint>,
    pub sides: Vec<Side>,
    pub log: Rc<RefCell<Log>>,
    pub now: Millis,
    pub frame: Millis,
    pub host_bot: Bot,
    pub host_events: Vec<HostEvent<ArenaEvent>>,
    /// Snapshots decoded and found equal to the host's.
    pub verified: u64,
    /// For each seat taken back with a token, the last tick before.
    pub rejoined_after: HashMap<Seat, u64>,
}

impl Match {
    /// A host with the default configuration (seeded by `seed`), stepping
    /// every `frame` milliseconds.
    pub fn new(seed: u64, frame: u64) -> Match {
        Match::with_config(HostConfig::new(seed), seed, frame)
    }

    pub fn with_config(cfg: HostConfig, seed: u64, frame: u64) -> Match {
        let log = Rc::new(RefCell::new(Log::default()));
        let probe = Probe {
            game: Arena::new(seed),
            log: Rc::clone(&log),
        };
        // Cannot fail: the tests pass valid configurations.
        let host = Host::new(probe, cfg).expect("valid config");
        Match {
            host,
            links: HostLinks::new(),
            sides: Vec::new(),
            log,
            now: Millis::ZERO,
            frame: Millis(frame),
            host_bot: Bot::new(seed ^ 0xB07),
            host_events: Vec::new(),
            verified: 0,
            rejoined_after: HashMap::new(),
        }
    }

    /// A guest joins now over a new link; returns its index.
    pub fn join(&mut self, link: LinkConfig, seed: u64, token: Option<Token>) -> usize {
        let (host_end, guest_end) = netsim::pair(link, seed);
        host_end.advance_to(self.now);
        let id = self.links.add(&mut self.host, self.now, host_end);
        self.sides.push(Side {
            guest: Guest::new(self.now, token),
            net: guest_end,
            link: id,
            bot: Bot::new(seed.wrapping_mul(31)),
            playing: true,
            predictor: Predictor::new(),
            seat: None,
            events: Vec::new(),
            event_times: Vec::new(),
            decoded: Vec::new(),
            corrections: Vec::new(),
            ended: None,
            rejoined: false,
        });
        self.sides.len() - 1
    }

    /// The host end of a guest's link (while open).
    pub fn host_end(&mut self, i: usize) -> Option<&mut SimEndpoint> {
        let link = self.sides[i].link;
        self.links.get_mut(link)
    }

    /// One frame: clocks forward, every side pumped, bots play, every
    /// decoded snapshot checked against the host's.
    pub fn step(&mut self) {
        self.now = self.now + self.frame;
        let now = self.now;
        for side in &mut self.sides {
            side.net.advance_to(now);
            pump_guest(&mut side.guest, now, &mut side.net);
        }
        let tick_before = self.host.tick();
        self.links.pump(&mut self.host, now);
        while let Some(e) = self.host.poll_event() {
            if let HostEvent::Joined {
                seat,
                rejoined: true,
                ..
            } = e
            {
                self.rejoined_after.insert(seat, tick_before);
            }
            self.host_events.push(e);
        }
        // The host's own bot plays from the host's own view.
        let view = self.host.game().game.snapshot(0);
        let (c, changed) = self
            .host_bot
            .decide(&view, 0, u32::try_from(self.frame.0).unwrap_or(1));
        if changed {
            self.host.local_command(c);
        }
        let log = Rc::clone(&self.log);
        for side in &mut self.sides {
            while let Some(e) = side.guest.poll_event() {
                match e {
                    GuestEvent::Welcomed { seat, rejoined, .. } => {
                        side.seat = Some(seat);
                        side.rejoined = rejoined;
                    }
                    GuestEvent::Snapshot(tick) => {
                        let seat = side.seat.expect("snapshots come after the welcome");
                        // A burst of more than the guest keeps (a queue
                        // draining at once) leaves the oldest unchecked.
                        if let Some(got) = side.guest.snapshot(tick) {
                            let want = log.borrow().snapshots.get(&(seat, tick)).cloned();
                            assert_eq!(
                                Some(got),
                                want.as_ref(),
                                "seat {seat} tick {tick}: the guest's snapshot is the host's"
                            );
                            self.verified += 1;
                        }
                        side.decoded.push((now, tick));
                        if let Some(c) = side.predictor.rebase(now, &side.guest) {
                            side.corrections.push((now, c));
                        }
                    }
                    GuestEvent::Event(e) => {
                        side.events.push(e);
                        side.event_times.push(now);
                    }
                    GuestEvent::Ended(r) => side.ended = Some(r),
                }
            }
            if side.playing && side.ended.is_none() {
                if let (Some(seat), Some((_, _, view))) = (side.seat, side.guest.latest()) {
                    let view = view.clone();
                    let (c, changed) =
                        side.bot
                            .decide(&view, seat, u32::try_from(self.frame.0).unwrap_or(1));
                    if changed {
                        if let Some(seq) = side.guest.command(&c) {
                            side.predictor.command(now, seq, c);
                        }
                    }
                }
            }
            // Send what the bot just queued in this frame.
            while let Some((channel, bytes)) = side.guest.poll_transmit() {
                let _ = lockstep::Transport::send(&mut side.net, channel, &bytes);
            }
        }
    }

    /// Runs `ms` milliseconds of virtual time.
    pub fn run(&mut self, ms: u64) {
        let end = self.now + Millis(ms);
        while self.now < end {
            self.step();
        }
    }

    /// Checks guest `i`'s events against the host's record: what arrived is
    /// exactly the start of what was sent, in order, nothing twice, and
    /// everything from before `settle` ticks ago has arrived. Returns how
    /// many arrived.
    pub fn assert_events(&self, i: usize, settle: u64) -> usize {
        let side = &self.sides[i];
        let seat = side.seat.expect("seated");
        let log = self.log.borrow();
        let expected = log.expected(seat, self.rejoined_after.get(&seat).copied());
        let got = &side.events;
        let want: Vec<ArenaEvent> = expected.iter().map(|(_, e)| *e).collect();
        assert!(
            got.len() <= want.len(),
            "guest {i}: more events than sent ({} > {})",
            got.len(),
            want.len()
        );
        assert_eq!(
            got[..],
            want[..got.len()],
            "guest {i}: events in order, each once"
        );
        let due = expected
            .iter()
            .filter(|(t, _)| *t + settle <= log.tick)
            .count();
        assert!(
            got.len() >= due,
            "guest {i}: {} events arrived, {due} were due",
            got.len()
        );
        got.len()
    }

    /// The newest tick guest `i` decoded.
    pub fn latest_tick(&self, i: usize) -> Option<u64> {
        self.sides[i].guest.latest().map(|(t, _, _)| t)
    }
}

/// The links the lock-step tests use: (a) none, (b) 50 ms ±10, (c) 50 ms
/// ±10 with 5% loss, (d) 100 ms ±20 with 25% loss.
pub fn link_a() -> LinkConfig {
    LinkConfig::default()
}

pub fn link_b() -> LinkConfig {
    LinkConfig {
        latency: Millis(50),
        jitter: Millis(10),
        ..LinkConfig::default()
    }
}

pub fn link_c() -> LinkConfig {
    LinkConfig {
        loss_percent: 5,
        ..link_b()
    }
}

pub fn link_d() -> LinkConfig {
    LinkConfig {
        latency: Millis(100),
        jitter: Millis(20),
        loss_percent: 25,
        ..LinkConfig::default()
    }
}

/// `guests` guests over `link` for `seconds` of play: every snapshot a
/// guest decodes equals the host's, every guest stays close behind the
/// host, and every event arrives exactly once and in order.
pub fn assert_converges(link: LinkConfig, guests: usize, seconds: u64, seed: u64) -> Match {
    let mut m = Match::new(seed, 5);
    for i in 0..guests {
        m.join(link, seed.wrapping_add(i as u64 * 7919), None);
    }
    m.run(seconds * 1000);
    let host_tick = m.host.tick();
    for i in 0..guests {
        let side = &m.sides[i];
        assert!(side.ended.is_none(), "guest {i} ended: {:?}", side.ended);
        let latest = m.latest_tick(i).expect("snapshots arrived");
        // Within a second of the host (30 ticks), whatever the link.
        assert!(
            latest + 30 >= host_tick,
            "guest {i} at tick {latest}, host at {host_tick}"
        );
        // Events from more than two seconds ago have all arrived.
        let n = m.assert_events(i, 60);
        assert!(n > 0, "guest {i} got events");
    }
    assert!(m.verified > 0);
    m
}
