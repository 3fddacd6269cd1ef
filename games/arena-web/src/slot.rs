//! The arena's game slot in the web shell: local play against a bot, and
//! the online match as host (the simulation in a worker, through a
//! [`HostRunner`]) or as guest (interpolation and prediction).
//!
//! The shell runs lock-step games through its own match driver; the arena
//! is host-authoritative, so it brings its own slot ([`GameSlot`]) and
//! with it its own match driver. The lobby, the challenge, the party, the
//! room link and the match links are the shell's, unchanged:
//!
//! - **A challenge** (two players): the host of the room (the challenger)
//!   hosts the arena over the one match link, the other page is its guest.
//! - **A party** (three to [`PARTY_MAX`] players): the party's host (place
//!   0) hosts; every other place is a guest on its link to place 0. The
//!   party's mesh also links the guests to each other: those links carry
//!   nothing in an arena match (every snapshot and command goes through
//!   the host, a star), and losing one changes nothing. A guest that
//!   leaves takes its ship with it while the others play on; the host's
//!   match ends when no guest is left, and every guest's ends when the
//!   host leaves.

use std::cell::RefCell;
use std::collections::{BTreeMap, VecDeque};
use std::rc::Rc;

use arena::{Arena, ArenaSnapshot, Bot, Control};
use authority::{AuthoritativeGame, EndReason, Guest, GuestEvent, Millis, Predictor, Seat};
use lockstep::{Channel, Outcome, Role, SessionConfig};
use serde::Serialize;
use web_shell::front_end::{LocalOption, Painter};
use web_shell::play;
use web_shell::shell::driver::{FrameReport, MatchEnd};
use web_shell::shell::view::{LocalView, MatchView};
use web_shell::shell::GameSlot;

use crate::bridge::{FromWorker, Gone, LinkName, ToWorker, MAX_LINKS};
use crate::host_worker::HostWorker;
use crate::scene::{colour_name, Scene};

/// The host's tick, in the page's worker and in local play alike.
pub const TICK_MS: u16 = 33;

/// How long a host waits for its guest's Hello once the link is open.
pub const JOIN_TIMEOUT: Millis = Millis(15_000);

/// How long a host that quits waits for the worker to say the goodbye is
/// out before it leaves anyway.
pub const QUIT_WAIT: Millis = Millis(1_000);

/// Host ticks of the host's own state kept for [`Probe::history`] (10 s).
pub const HISTORY_TICKS: usize = 300;

/// A guest's drawn frames kept for [`take_frames`] until a test takes
/// them (10 s at 60 frames a second); older ones are dropped.
pub const FRAMES_KEPT: usize = 600;

/// The most people in an arena party, the host included: as many as a
/// member room takes (the model would seat up to ten guests).
pub const PARTY_MAX: u8 = 8;

/// The link name of a challenge's one guest, as the host's worker knows
/// it (a party's links are named by the place at their other end).
pub const CHALLENGE_LINK: LinkName = 1;

/// The party link to the host (place 0), as a guest names it.
const PARTY_HOST: lockstep::PeerId = lockstep::PeerId(0);

/// Where the host's simulation runs: a dedicated worker in the browser, or
/// in-process ([`InlineHost`]) for native tests.
pub trait HostRunner {
    /// Hands the host a message.
    fn post(&mut self, now: Millis, msg: &ToWorker);
    /// The next message from the host, if one has arrived.
    fn poll(&mut self, now: Millis) -> Option<FromWorker>;
    /// The next datagram for a guest's link, for a runner that keeps them
    /// apart from [`poll`](Self::poll)'s messages so the page can send
    /// them the moment they arrive rather than at its next frame. A runner
    /// that hands its datagrams out through `poll` returns `None`.
    fn poll_send(&mut self) -> Option<(LinkName, Channel, Vec<u8>)> {
        None
    }
}

/// The host in-process: the same [`HostWorker`] a worker runs, called
/// directly.
#[derive(Default)]
pub struct InlineHost(pub HostWorker);

impl HostRunner for InlineHost {
    fn post(&mut self, now: Millis, msg: &ToWorker) {
        self.0.handle(now, msg.clone());
    }
    fn poll(&mut self, now: Millis) -> Option<FromWorker> {
        if let Some(m) = self.0.poll() {
            return Some(m);
        }
        self.0.tick(now);
        self.0.poll()
    }
}

/// Makes a host runner for a match (`None`: it could not be started).
pub type MakeRunner = Box<dyn FnMut() -> Option<Box<dyn HostRunner>>>;

/// A ship in the [`Probe`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ProbeShip {
    /// Seat.
    pub id: Seat,
    /// Position (metres).
    pub x: f32,
    /// Position (metres).
    pub y: f32,
    /// Heading (radians).
    pub a: f32,
    /// Hit points.
    pub hp: u8,
}

/// The host's state after one tick.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HostTick {
    /// The tick.
    pub tick: u64,
    /// The page's clock (ms) at the frame that first drew it.
    pub at_ms: u64,
    /// Every ship.
    pub ships: Vec<ProbeShip>,
}

/// The player's own predicted ship on a guest.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct OwnShip {
    /// The host tick the prediction stands for.
    pub tick: u64,
    /// Drawn position (metres), with what is left of a blended correction.
    pub x: f32,
    /// Drawn position.
    pub y: f32,
}

/// One frame a guest drew, for tests that compare it with the host's
/// state at the same moment (taken through the crate's `arenaFrames`
/// export).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DrawnFrame {
    /// The page's clock (ms) at the frame.
    pub at_ms: u64,
    /// The host tick the drawn ships stand for (fractional).
    pub tick: f64,
    /// The interpolation delay then (ms).
    pub delay_ms: u64,
    /// The round trip to the host the guest measured then (ms).
    pub rtt_ms: Option<u64>,
    /// The render time was past the newest snapshot held: the stream had
    /// run dry, and the frame shows that snapshot, older than the delay.
    pub starved: bool,
    /// Every ship as drawn (the own ship where its prediction is).
    pub ships: Vec<ProbeShip>,
}

/// What the page shows, for tests that compare pages (read through the
/// crate's `arenaProbe` export): updated every match frame.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Probe {
    /// Match frames that drew a state so far.
    pub frame: u64,
    /// How many guests the host's match has (host only).
    pub guests: Option<u8>,
    /// A guest's frames not taken yet (see [`take_frames`]); not part of
    /// the probe's JSON.
    #[serde(skip)]
    pub frames: VecDeque<DrawnFrame>,
    /// "host" or "guest" while a match runs.
    pub role: Option<&'static str>,
    /// This page's seat.
    pub seat: Option<Seat>,
    /// The host tick the drawn ships stand for (a guest's render time,
    /// fractional between snapshots).
    pub tick: Option<f64>,
    /// Every ship as drawn (a guest's own ship: where its prediction is).
    pub ships: Vec<ProbeShip>,
    /// A guest's own ship, predicted.
    pub own: Option<OwnShip>,
    /// The host's own state, tick by tick (host only).
    pub history: VecDeque<HostTick>,
    /// A guest's interpolation delay (ms).
    pub delay_ms: Option<u64>,
    /// Game events delivered to this guest.
    pub events: u32,
    /// Corrections of the own ship's prediction, and how many of them
    /// snapped.
    pub corrections: u32,
    /// Snapped corrections.
    pub snapped: u32,
    /// Snapped corrections after which no event explained the jump.
    pub unexplained_snaps: u32,
    /// The newest snapshot tick at which an event (a hit, a bump, a
    /// respawn) moved this guest's own ship in a way it could not
    /// foresee.
    pub moved_at: Option<u64>,
}

/// Takes the guest's frames drawn since the last call (at most
/// [`FRAMES_KEPT`]).
pub fn take_frames(probe: &RefCell<Probe>) -> Vec<DrawnFrame> {
    probe.borrow_mut().frames.drain(..).collect()
}

fn probe_ships(scene: &Scene) -> Vec<ProbeShip> {
    scene
        .ships
        .iter()
        .map(|s| ProbeShip {
            id: s.id,
            x: s.pos[0],
            y: s.pos[1],
            a: s.angle,
            hp: s.hp,
        })
        .collect()
}

/// The person's controls from the held keys: arrows or WASD, Space fires.
#[must_use]
pub fn control_of(held: &[&str]) -> Control {
    let any = |keys: &[&str]| keys.iter().any(|k| held.contains(k));
    let left = any(&["ArrowLeft", "KeyA"]);
    let right = any(&["ArrowRight", "KeyD"]);
    Control {
        thrust: any(&["ArrowUp", "KeyW"]),
        turn: i8::from(right) - i8::from(left),
        fire: any(&["Space"]),
    }
}

const GAME_KEYS: [&str; 7] = [
    "ArrowLeft",
    "ArrowRight",
    "ArrowUp",
    "KeyA",
    "KeyD",
    "KeyW",
    "Space",
];

struct Local {
    game: Arena,
    bot: Bot,
}

/// Where a host's link to a guest stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Seated {
    Waiting,
    Joined,
    Gone(Gone),
}

struct HostSide {
    runner: Box<dyn HostRunner>,
    created: Millis,
    control: Control,
    view: Option<(u64, ArenaSnapshot)>,
    /// Every link to a guest, by the name the worker knows it by.
    links: BTreeMap<LinkName, Seated>,
    /// A party's match (else a challenge's, over the match link).
    party: bool,
    quit_at: Option<Millis>,
    /// Datagrams for each link, in order.
    out: BTreeMap<LinkName, VecDeque<(Channel, Vec<u8>)>>,
}

impl HostSide {
    /// Files what the worker has for the links.
    fn take_sends(&mut self) {
        while let Some((link, ch, bytes)) = self.runner.poll_send() {
            self.out.entry(link).or_default().push_back((ch, bytes));
        }
    }

    fn poll_out(&mut self, link: LinkName) -> Option<(Channel, Vec<u8>)> {
        self.take_sends();
        self.out.get_mut(&link)?.pop_front()
    }

    fn joined(&self) -> usize {
        self.links
            .values()
            .filter(|s| **s == Seated::Joined)
            .count()
    }
}

struct GuestSide {
    guest: Guest<Arena>,
    predictor: Predictor<Arena>,
    control: Control,
    /// The last snapshot tick an event moved our ship in (a snap then is
    /// explained).
    moved_at: Option<u64>,
    left: bool,
    /// A party's match (the host on party link 0).
    party: bool,
}

enum Online {
    Host(HostSide),
    Guest(Box<GuestSide>),
}

/// The arena in the shell. See the module documentation.
pub struct ArenaSlot {
    make_runner: MakeRunner,
    local: Option<Local>,
    online: Option<(u32, Online)>,
    scene: Scene,
    probe: Rc<RefCell<Probe>>,
}

impl ArenaSlot {
    /// A slot whose matches host through `make_runner`; it writes what it
    /// shows into `probe` (shared with the page's test export).
    #[must_use]
    pub fn new(make_runner: MakeRunner, probe: Rc<RefCell<Probe>>) -> ArenaSlot {
        ArenaSlot {
            make_runner,
            local: None,
            online: None,
            scene: Scene::default(),
            probe,
        }
    }

    /// What is drawn now.
    #[must_use]
    pub fn scene(&self) -> &Scene {
        &self.scene
    }

    /// Starts a match as host of `links` or as guest of the host.
    fn begin(
        &mut self,
        cfg: &SessionConfig,
        now: Millis,
        tag: u32,
        links: &[LinkName],
        party: bool,
    ) -> bool {
        *self.probe.borrow_mut() = Probe::default();
        let online = match cfg.role() {
            Role::Host { seed, .. } => {
                if links.is_empty() || links.len() > MAX_LINKS {
                    log::error!("arena: a match for {} guests refused", links.len());
                    return false;
                }
                let Some(mut runner) = (self.make_runner)() else {
                    log::error!("arena: the host's worker could not be started");
                    return false;
                };
                runner.post(
                    now,
                    &ToWorker::Start {
                        seed,
                        links: links.to_vec(),
                    },
                );
                Online::Host(HostSide {
                    runner,
                    created: now,
                    control: Control::default(),
                    view: None,
                    links: links.iter().map(|l| (*l, Seated::Waiting)).collect(),
                    party,
                    quit_at: None,
                    out: BTreeMap::new(),
                })
            }
            Role::Guest => Online::Guest(Box::new(GuestSide {
                guest: Guest::new(now, None),
                predictor: Predictor::new(),
                control: Control::default(),
                moved_at: None,
                left: false,
                party,
            })),
        };
        self.online = Some((tag, online));
        true
    }

    /// A datagram on link `link` (of a party's match, or the challenge's
    /// one link).
    fn datagram(
        &mut self,
        now: Millis,
        link: LinkName,
        channel: Channel,
        bytes: &[u8],
        party: bool,
    ) {
        match self.online.as_mut() {
            Some((_, Online::Host(h))) if h.party == party && h.links.contains_key(&link) => {
                h.runner.post(
                    now,
                    &ToWorker::Datagram {
                        link,
                        reliable: channel == Channel::Reliable,
                        bytes: bytes.to_vec(),
                    },
                );
            }
            Some((_, Online::Guest(g))) if g.party == party && (!party || link == PARTY_HOST.0) => {
                g.guest.handle_datagram(now, channel, bytes);
            }
            _ => log::debug!("arena: a datagram on a link that carries no arena match; dropped"),
        }
    }

    /// Only the host sends snapshots; its worker skips them while a
    /// guest's link is congested.
    fn backlog(&mut self, now: Millis, link: LinkName, bytes: usize) {
        if let Some((_, Online::Host(h))) = self.online.as_mut() {
            if h.links.contains_key(&link) {
                h.runner.post(
                    now,
                    &ToWorker::Backlog {
                        link,
                        bytes: u64::try_from(bytes).unwrap_or(u64::MAX),
                    },
                );
            }
        }
    }

    fn end(outcome: Outcome, message: Option<&str>) -> FrameReport {
        let message =
            message.map_or_else(|| play::outcome_message(&outcome).to_owned(), str::to_owned);
        FrameReport {
            ticked: false,
            ended: Some(MatchEnd {
                outcome,
                message,
                log: None,
                report: None,
            }),
        }
    }

    fn host_frame(&mut self, now: Millis, held: &[&str], view: &mut MatchView) -> FrameReport {
        let Some((_, Online::Host(h))) = self.online.as_mut() else {
            return FrameReport::default();
        };
        let c = control_of(held);
        if c != h.control && h.quit_at.is_none() {
            h.control = c;
            h.runner.post(now, &ToWorker::Control(c));
        }
        let mut ticked = false;
        let mut ended = None;
        while let Some(m) = h.runner.poll(now) {
            match m {
                FromWorker::Send {
                    link,
                    reliable,
                    bytes,
                } => {
                    let ch = if reliable {
                        Channel::Reliable
                    } else {
                        Channel::Unreliable
                    };
                    h.out.entry(link).or_default().push_back((ch, bytes));
                }
                FromWorker::View { tick, snapshot } => {
                    ticked = true;
                    h.view = Some((tick, snapshot));
                    if let Some((tick, s)) = &h.view {
                        #[allow(clippy::cast_precision_loss)]
                        let scene = Scene::of(s, *tick as f64, TICK_MS, Some(0));
                        let mut p = self.probe.borrow_mut();
                        p.history.push_back(HostTick {
                            tick: *tick,
                            at_ms: now.0,
                            ships: probe_ships(&scene),
                        });
                        while p.history.len() > HISTORY_TICKS {
                            p.history.pop_front();
                        }
                    }
                }
                FromWorker::Joined(link) => {
                    if let Some(s) = h.links.get_mut(&link) {
                        *s = Seated::Joined;
                    }
                }
                FromWorker::Left(link, gone) => {
                    if let Some(s) = h.links.get_mut(&link) {
                        *s = Seated::Gone(gone);
                    }
                    // The match goes on while any guest is left.
                    if h.links.values().all(|s| matches!(s, Seated::Gone(_))) {
                        ended.get_or_insert(match gone {
                            Gone::Quit if h.party => (
                                Outcome::RemoteQuit,
                                Some("Everyone else left the match."),
                            ),
                            Gone::Quit => (Outcome::RemoteQuit, None),
                            Gone::Lost => (Outcome::Timeout, None),
                            Gone::Misbehaved => (
                                Outcome::RemoteQuit,
                                Some("The other player sent something unexpected, so the match was stopped."),
                            ),
                        });
                    }
                }
                FromWorker::Closed => {
                    ended.get_or_insert((Outcome::LocalQuit, None));
                }
                FromWorker::Failed => {
                    ended.get_or_insert((
                        Outcome::LocalQuit,
                        Some("The match could not be started."),
                    ));
                }
            }
        }
        if h.quit_at.is_some_and(|t| now.0 >= t.0 + QUIT_WAIT.0) {
            ended.get_or_insert((Outcome::LocalQuit, None));
        }
        if now.0 >= h.created.0 + JOIN_TIMEOUT.0 {
            // A guest that never took its seat is given up: a challenge's
            // match then never started; a party's goes on with the others.
            let late: Vec<LinkName> = h
                .links
                .iter()
                .filter(|(_, s)| **s == Seated::Waiting)
                .map(|(l, _)| *l)
                .collect();
            for link in &late {
                log::info!("arena: a guest did not join in time");
                h.links.insert(*link, Seated::Gone(Gone::Lost));
                h.runner.post(now, &ToWorker::LinkLost(*link));
            }
            if !late.is_empty() && h.joined() == 0 {
                ended.get_or_insert((Outcome::HandshakeTimeout, None));
            }
        }
        if let Some((tick, s)) = &h.view {
            #[allow(clippy::cast_precision_loss)]
            let scene = Scene::of(s, *tick as f64, TICK_MS, Some(0));
            let mut p = self.probe.borrow_mut();
            p.role = Some("host");
            p.seat = Some(0);
            p.frame += 1;
            p.guests = u8::try_from(h.links.len()).ok();
            #[allow(clippy::cast_precision_loss)]
            let t = *tick as f64;
            p.tick = Some(t);
            p.ships = probe_ships(&scene);
            view.state = Some("running");
            view.present_tick = u32::try_from(*tick).ok();
            view.tick = view.present_tick;
            view.summary = Some(scene.summary());
            self.scene = scene;
        }
        view.side = Some(0);
        let waiting = h.links.values().any(|s| *s == Seated::Waiting);
        view.headline = if !waiting {
            format!("You play {} (host)", colour_name(0))
        } else if h.party {
            "Waiting for the other players…".to_owned()
        } else {
            "Waiting for the other player…".to_owned()
        };
        view.waiting = waiting;
        match ended {
            Some((o, msg)) => Self::end(o, msg),
            None => FrameReport {
                ticked,
                ended: None,
            },
        }
    }

    fn guest_frame(&mut self, now: Millis, held: &[&str], view: &mut MatchView) -> FrameReport {
        let Some((_, Online::Guest(g))) = self.online.as_mut() else {
            return FrameReport::default();
        };
        if g.guest.poll_timeout().is_some_and(|t| t <= now) {
            g.guest.handle_timeout(now);
        }
        let c = control_of(held);
        if c != g.control && !g.left {
            if let Some(seq) = g.guest.command(&c) {
                g.control = c;
                g.predictor.command(now, seq, c);
            }
        }
        let mut ticked = false;
        let mut ended = None;
        let mut p = self.probe.borrow_mut();
        while let Some(e) = g.guest.poll_event() {
            match e {
                GuestEvent::Welcomed { .. } => {}
                GuestEvent::Snapshot(_) => ticked = true,
                GuestEvent::Event(ev) => {
                    p.events += 1;
                    if let (Some(seat), Some((tick, _, _))) = (g.guest.seat(), g.guest.latest()) {
                        if ev.moves(seat) {
                            g.moved_at = Some(tick);
                            p.moved_at = Some(tick);
                        }
                    }
                }
                GuestEvent::Ended(why) => {
                    ended = Some(match why {
                        EndReason::Left => (Outcome::LocalQuit, None),
                        EndReason::Bye(authority::wire::ByeReason::Closed) if g.party => {
                            (Outcome::RemoteQuit, Some("The host left the match."))
                        }
                        EndReason::Bye(authority::wire::ByeReason::Closed) => {
                            (Outcome::RemoteQuit, None)
                        }
                        EndReason::Bye(_) => (
                            Outcome::RemoteQuit,
                            Some("The other player ended the match: this page fell too far behind or sent something unexpected."),
                        ),
                        EndReason::Refused(_) => (
                            Outcome::RemoteQuit,
                            Some("The other player's page refused to play: reload both pages and try again."),
                        ),
                        EndReason::LinkClosed => (Outcome::TransportLost, None),
                        EndReason::HostSilent => (Outcome::Timeout, None),
                    });
                }
            }
        }
        // Rebased after the message's events are in: a correction that
        // snaps is explained by an event that came with it.
        if ticked {
            if let (Some(c), Some((tick, _, _))) =
                (g.predictor.rebase(now, &g.guest), g.guest.latest())
            {
                p.corrections += 1;
                if c.snapped {
                    p.snapped += 1;
                    // A jump the guest could foresee is a bug; one after
                    // a hit, a bump or a respawn is not.
                    if g.moved_at.is_none_or(|t| t + 30 < tick) {
                        p.unexplained_snaps += 1;
                    }
                }
            }
        }
        let seat = g.guest.seat();
        let tick_ms = g.guest.tick_ms().unwrap_or(TICK_MS);
        if let (Some(shown), Some(b)) = (g.guest.view(now), g.guest.bracket(now)) {
            #[allow(clippy::cast_precision_loss)]
            let render = b.from_tick as f64 + (b.to_tick - b.from_tick) as f64 * f64::from(b.t);
            let mut scene = Scene::of(&shown, render, tick_ms, seat);
            p.own = None;
            if let (Some(me), Some(pos), Some((tick, m))) =
                (seat, g.predictor.position(now), g.predictor.motion(now))
            {
                if let Some(s) = scene.ships.iter_mut().find(|s| s.id == me && s.hp > 0) {
                    s.pos = pos;
                    s.angle = m.angle;
                    p.own = Some(OwnShip {
                        tick,
                        x: pos[0],
                        y: pos[1],
                    });
                }
            }
            p.role = Some("guest");
            p.seat = seat;
            p.tick = Some(render);
            p.ships = probe_ships(&scene);
            p.delay_ms = g.guest.render_delay().map(|d| d.0);
            p.frame += 1;
            let frame = DrawnFrame {
                at_ms: now.0,
                tick: render,
                delay_ms: p.delay_ms.unwrap_or(0),
                rtt_ms: g.guest.rtt().map(|r| r.0),
                starved: b.starved,
                ships: p.ships.clone(),
            };
            if p.frames.len() >= FRAMES_KEPT {
                p.frames.pop_front();
            }
            p.frames.push_back(frame);
            view.state = Some("running");
            view.present_tick = u32::try_from(b.to_tick).ok();
            view.tick = view.present_tick;
            view.summary = Some(scene.summary());
            self.scene = scene;
        }
        view.side = Some(1);
        view.ping = g.guest.rtt().map(|r| r.0);
        view.headline = match seat {
            Some(s) => format!("You play {} (guest)", colour_name(s)),
            None if g.party => "Joining the host's arena…".to_owned(),
            None => "Joining the other player's arena…".to_owned(),
        };
        match ended {
            Some((o, msg)) => Self::end(o, msg),
            None => FrameReport {
                ticked,
                ended: None,
            },
        }
    }
}

impl GameSlot for ArenaSlot {
    // The host's simulation has a worker of its own already (which the
    // page starts), and the guest's side only shows the host's snapshots.
    fn match_in_worker(&self) -> bool {
        false
    }
    fn name(&self) -> &'static str {
        "Arena"
    }
    fn build_id(&self) -> u64 {
        Arena::GAME_ID
    }
    fn about(&self) -> web_shell::front_end::About {
        web_shell::front_end::About {
            tagline: "A top-down arena of ships: fly, shoot, outlast the others.",
            controls: &[
                ("\u{2190} \u{2192} or A D", "turn"),
                ("\u{2191} or W", "thrust"),
                ("Space", "fire"),
            ],
            how_to_play: &[
                "Steer your ship and hit the others with your shots.",
                "A ship that takes too many hits comes back after a moment.",
                "Online, the challenger's page runs the match; the other page shows it.",
            ],
        }
    }
    fn local_options(&self) -> &'static [LocalOption] {
        &[]
    }
    fn is_game_key(&self, code: &str) -> bool {
        GAME_KEYS.contains(&code)
    }
    fn start_local(&mut self, seed: u64, _choices: &[usize]) {
        if self.local.is_none() {
            let mut game = Arena::new(seed);
            game.add_player(0);
            game.add_player(1);
            self.local = Some(Local {
                game,
                bot: Bot::new(seed ^ 0x5EED),
            });
        }
    }
    fn stop_local(&mut self) {
        self.local = None;
    }
    fn local_frame(&mut self, held: &[&str], steps: u32) -> LocalView {
        let Some(l) = self.local.as_mut() else {
            return LocalView::default();
        };
        let mut events = Vec::new();
        for _ in 0..steps {
            l.game.command(0, control_of(held));
            let (c, _) = l.bot.decide(&l.game.snapshot(1), 1, u32::from(TICK_MS));
            l.game.command(1, c);
            l.game.advance(u32::from(TICK_MS) / 2);
            l.game.drain_events(&mut events);
            events.clear();
        }
        // Local frames advance half a host tick each (60 Hz against the
        // host's 30): bullets are placed by that clock.
        #[allow(clippy::cast_precision_loss)]
        let tick = l.game.tick() as f64;
        self.scene = Scene::of(&l.game.snapshot(0), tick, TICK_MS / 2, Some(0));
        LocalView {
            summary: Some(self.scene.summary()),
            result: None,
            paused: false,
        }
    }
    fn start_match(&mut self, cfg: SessionConfig, now: Millis, tag: u32) -> bool {
        self.begin(&cfg, now, tag, &[CHALLENGE_LINK], false)
    }
    fn party(&self) -> web_shell::party::PartyRules {
        web_shell::party::PartyRules {
            max_people: PARTY_MAX,
            sides: 0,
            per_side: 1,
            lengths: &[],
        }
    }
    fn party_seed(&self, seed: u64, sides: &[u8], _length: usize) -> Option<u64> {
        // Everyone for themselves: no sides to arrange, no lengths.
        let people = sides.len();
        (self.party().takes(sides) && (3..=usize::from(PARTY_MAX)).contains(&people))
            .then_some(seed)
    }
    fn start_party(
        &mut self,
        cfg: SessionConfig,
        now: Millis,
        tag: u32,
        links: &[lockstep::PeerId],
    ) -> bool {
        if cfg.is_spectator() {
            log::info!("arena: an arena match cannot be watched");
            return false;
        }
        let names: Vec<LinkName> = links.iter().map(|l| l.0).collect();
        self.begin(&cfg, now, tag, &names, true)
    }
    fn match_tag(&self) -> Option<u32> {
        self.online.as_ref().map(|(t, _)| *t)
    }
    fn match_datagram(&mut self, now: Millis, channel: Channel, bytes: &[u8]) {
        self.datagram(now, CHALLENGE_LINK, channel, bytes, false);
    }
    fn party_datagram(
        &mut self,
        now: Millis,
        link: lockstep::PeerId,
        channel: Channel,
        bytes: &[u8],
    ) {
        self.datagram(now, link.0, channel, bytes, true);
    }
    fn match_backlog(&mut self, now: Millis, bytes: usize) {
        self.backlog(now, CHALLENGE_LINK, bytes);
    }
    fn party_backlog(&mut self, now: Millis, link: lockstep::PeerId, bytes: usize) {
        self.backlog(now, link.0, bytes);
    }
    fn match_link_lost(&mut self, now: Millis) {
        match self.online.as_mut() {
            Some((_, Online::Host(h))) if !h.party => {
                h.runner.post(now, &ToWorker::LinkLost(CHALLENGE_LINK));
                // One link per match: without it the match is over.
                h.runner.post(now, &ToWorker::Quit);
                h.quit_at.get_or_insert(now);
            }
            Some((_, Online::Guest(g))) if !g.party => g.guest.handle_link_closed(),
            _ => {}
        }
    }
    fn party_link_lost(&mut self, now: Millis, link: lockstep::PeerId) {
        match self.online.as_mut() {
            // The worker says when the guest is gone for good.
            Some((_, Online::Host(h))) if h.party && h.links.contains_key(&link.0) => {
                h.runner.post(now, &ToWorker::LinkLost(link.0));
            }
            Some((_, Online::Guest(g))) if g.party && link == PARTY_HOST => {
                g.guest.handle_link_closed();
            }
            // A link between two guests carries nothing in an arena match.
            _ => {}
        }
    }
    fn match_frame(&mut self, now: Millis, held: &[&str], view: &mut MatchView) -> FrameReport {
        match self.online.as_ref() {
            Some((_, Online::Host(_))) => self.host_frame(now, held, view),
            Some((_, Online::Guest(_))) => self.guest_frame(now, held, view),
            None => FrameReport::default(),
        }
    }
    fn poll_match_transmit(&mut self) -> Option<(Channel, Vec<u8>)> {
        match self.online.as_mut()? {
            (_, Online::Host(h)) if !h.party => h.poll_out(CHALLENGE_LINK),
            (_, Online::Guest(g)) if !g.party => g.guest.poll_transmit(),
            _ => None,
        }
    }
    fn poll_party_transmit(&mut self, link: lockstep::PeerId) -> Option<(Channel, Vec<u8>)> {
        match self.online.as_mut()? {
            (_, Online::Host(h)) if h.party => h.poll_out(link.0),
            (_, Online::Guest(g)) if g.party && link == PARTY_HOST => g.guest.poll_transmit(),
            _ => None,
        }
    }
    fn quit_match(&mut self, now: Millis) {
        match self.online.as_mut() {
            Some((_, Online::Host(h))) if h.quit_at.is_none() => {
                h.quit_at = Some(now);
                h.runner.post(now, &ToWorker::Quit);
            }
            Some((_, Online::Guest(g))) => {
                g.left = true;
                g.guest.leave();
            }
            Some((_, Online::Host(_))) | None => {}
        }
    }
    fn drop_match(&mut self) {
        self.online = None;
        let mut p = self.probe.borrow_mut();
        p.role = None;
    }
    fn paint(&mut self, painter: &mut dyn Painter) {
        self.scene.draw(painter);
    }
}
