//! The reference: GGRS `P2PSession`s over `netsim` links: two players
//! over one link, more in a full mesh (every player one session with every
//! other as a remote player, over a link of its own), and a host with
//! spectators (`SpectatorSession`s, each linked to the host only).
//!
//! GGRS talks to the network through its `NonBlockingSocket` trait and
//! sends everything on one unreliable path; [`NetsimSocket`] maps that to
//! netsim's unreliable channel of the link to the addressed peer, encoding
//! messages with bincode exactly as GGRS's own UDP socket does, so the
//! sizes counted are GGRS's real datagram sizes. GGRS reads the wall clock
//! itself (for its resend timers, quality reports and time
//! synchronisation), so this side only makes sense in real time: the
//! harness moves netsim's clock to the elapsed wall-clock time.

use std::cell::RefCell;
use std::marker::PhantomData;
use std::rc::Rc;
use std::time::Instant;

use ggrs::{
    DesyncDetection, GgrsError, GgrsEvent, GgrsRequest, Message, NonBlockingSocket, P2PSession,
    PlayerType, PredictRepeatLast, SessionBuilder, SessionState, SpectatorSession,
};
use lockstep::{Channel, DeterministicGame, Millis, Transport};
use netsim::{LinkConfig, SimEndpoint};

use crate::game::{self, BenchGame, Timed};
use crate::{link_seed, Contender, PeerFigures, RunSettings, Runner, Sent};

/// GGRS's configuration for a game: its input, the repeat-last predictor
/// (what GGPO does, and what our rollback mode will do), the wrapped game
/// as the saved state, and the peer's slot (0 the host, 1 the guest, then
/// the other players and the spectators) as its address.
pub struct GgrsConfig<G>(PhantomData<G>);

impl<G: BenchGame> ggrs::Config for GgrsConfig<G> {
    type Input = G::Input;
    type InputPredictor = PredictRepeatLast;
    type State = Timed<G>;
    type Address = u8;
}

/// One end of a link, shared between a member's socket (which sends and
/// receives on it) and the harness (which reads its counters and moves
/// its clock).
type End = Rc<RefCell<SimEndpoint>>;

/// GGRS's socket over a member's netsim endpoints, one per peer (see the
/// module docs). Time in netsim itself is the link's, not GGRS's, and is
/// excluded from the session's time; encoding and decoding are GGRS's and
/// count.
pub struct NetsimSocket {
    /// The peer's address and this member's end of the link to it.
    links: Vec<(u8, End)>,
}

impl NetsimSocket {
    /// A socket on `net` whose only peer has address `peer`.
    #[must_use]
    pub fn new(net: End, peer: u8) -> Self {
        NetsimSocket::linked(vec![(peer, net)])
    }

    /// A socket with one link per peer: the peer's address and this
    /// member's end of the link to it.
    #[must_use]
    pub fn linked(links: Vec<(u8, End)>) -> Self {
        NetsimSocket { links }
    }
}

impl NonBlockingSocket<u8> for NetsimSocket {
    fn send_to(&mut self, msg: &Message, addr: &u8) {
        // GGRS only addresses the peers it was given; a message to any
        // other address has nowhere to go, like a UDP datagram to a port
        // nobody listens on.
        let Some((_, net)) = self.links.iter().find(|(peer, _)| peer == addr) else {
            return;
        };
        // bincode 1 with its default (legacy) options, as GGRS's
        // UdpNonBlockingSocket does.
        let Ok(bytes) = bincode::serialize(msg) else {
            return;
        };
        let t0 = Instant::now();
        // A refused send is a lost datagram, as on UDP.
        let _ = net.borrow_mut().send(Channel::Unreliable, &bytes);
        game::exclude(t0);
    }

    fn receive_all_messages(&mut self) -> Vec<(u8, Message)> {
        let mut messages = Vec::new();
        for (peer, net) in &self.links {
            loop {
                let t0 = Instant::now();
                let datagram = net.borrow_mut().recv();
                game::exclude(t0);
                let Some((_, bytes)) = datagram else {
                    break;
                };
                // Undecodable datagrams are dropped, as GGRS's UDP socket
                // does.
                if let Ok(msg) = bincode::deserialize::<Message>(&bytes) {
                    messages.push((*peer, msg));
                }
            }
        }
        messages
    }
}

/// What a member has sent over all its links.
fn sent_over(links: &[(u8, End)]) -> Sent {
    let stats: Vec<_> = links
        .iter()
        .map(|(_, e)| e.borrow().outgoing_stats())
        .collect();
    Sent::sum(&stats)
}

/// The links of a match: `links[i]` holds member `i`'s ends, each with
/// the address of the member at the other end, and `clocks` one end of
/// every link (moving it moves the link's shared clock).
struct Links {
    ends: Vec<Vec<(u8, End)>>,
    clocks: Vec<End>,
}

impl Links {
    /// `members` members, each pair in `pairs` joined by a link with
    /// `cfg`'s conditions, seeded from `net_seed` by [`link_seed`].
    fn new(members: u8, pairs: &[(u8, u8)], cfg: LinkConfig, net_seed: u64) -> Links {
        let mut links = Links {
            ends: (0..members).map(|_| Vec::new()).collect(),
            clocks: Vec::new(),
        };
        for &(a, b) in pairs {
            let (ea, eb) = netsim::pair(cfg, link_seed(net_seed, a, b));
            let (ea, eb) = (Rc::new(RefCell::new(ea)), Rc::new(RefCell::new(eb)));
            links.clocks.push(Rc::clone(&ea));
            links.ends[usize::from(a)].push((b, ea));
            links.ends[usize::from(b)].push((a, eb));
        }
        links
    }

    /// Every pair of `players` players: a full mesh.
    fn mesh(players: u8, cfg: LinkConfig, net_seed: u64) -> Links {
        let pairs: Vec<(u8, u8)> = (0..players)
            .flat_map(|a| (a + 1..players).map(move |b| (a, b)))
            .collect();
        Links::new(players, &pairs, cfg, net_seed)
    }

    fn advance_to(&self, now: Millis) {
        for end in &self.clocks {
            end.borrow().advance_to(now);
        }
    }

    /// Member `i`'s ends (for its socket and its counters).
    fn take(&mut self, i: u8) -> Vec<(u8, End)> {
        std::mem::take(&mut self.ends[usize::from(i)])
    }
}

/// GGRS's desync detection as `settings` ask.
fn desync_detection(settings: &RunSettings) -> DesyncDetection {
    match settings.ggrs_desync_interval {
        0 => DesyncDetection::Off,
        n => DesyncDetection::On { interval: n },
    }
}

struct Peer<G: BenchGame> {
    session: P2PSession<GgrsConfig<G>>,
    /// Its ends of its links (its socket holds them too).
    links: Vec<(u8, End)>,
    side: u8,
    game: Timed<G>,
    bot: G::Bot,
    desync_checks: bool,
    /// Frames still to skip on GGRS's advice (`WaitRecommendation`).
    skip: u32,
    fig: PeerFigures,
}

impl<G: BenchGame> Peer<G> {
    fn frame(&mut self, now: Millis) {
        self.fig.frames += 1;
        let running = self.session.current_state() == SessionState::Running;
        if running {
            self.fig.mark_running(now, sent_over(&self.links));
        }
        if !running || self.skip > 0 {
            if running {
                self.skip -= 1;
                self.fig.skipped += 1;
            }
            // No frame to advance: let GGRS do its network work only.
            game::enter(&mut self.fig.log);
            let t0 = Instant::now();
            self.session.poll_remote_clients();
            let events: Vec<_> = self.session.events().collect();
            let elapsed = t0.elapsed();
            let (excluded, sections, _) = game::leave(&mut self.fig.log);
            self.fig.add_session_time(elapsed, excluded, sections);
            self.on_events(events);
            return;
        }

        // The player, untimed: its pad for the input GGRS schedules
        // `delay` frames ahead, from the game as this peer shows it now.
        let index = u32::try_from(self.session.current_frame()).unwrap_or(0);
        let pad = G::pad(&mut self.bot, self.game.inner(), index, self.side);

        // The session, timed; the link under the socket is subtracted.
        game::enter(&mut self.fig.log);
        let t0 = Instant::now();
        let added = self.session.add_local_input(usize::from(self.side), pad);
        let result = self.session.advance_frame();
        let events: Vec<_> = self.session.events().collect();
        let elapsed = t0.elapsed();
        let (excluded, sections, _) = game::leave(&mut self.fig.log);
        self.fig.add_session_time(elapsed, excluded, sections);

        if let Err(e) = added {
            self.fig.problems.push(format!("add_local_input: {e}"));
        }
        self.on_events(events);
        match result {
            Ok(requests) => self.fulfil(requests),
            // Too far ahead of the peer's inputs: this frame cannot advance.
            Err(GgrsError::PredictionThreshold) => self.fig.stalled += 1,
            Err(e) => self.fig.problems.push(format!("advance_frame: {e}")),
        }
    }

    /// Carries out GGRS's requests in order (game work: untimed).
    fn fulfil(&mut self, requests: Vec<GgrsRequest<GgrsConfig<G>>>) {
        game::enter(&mut self.fig.log);
        let mut advances = 0u64;
        for request in requests {
            match request {
                GgrsRequest::SaveGameState { cell, frame } => {
                    let checksum = self
                        .desync_checks
                        .then(|| u128::from(self.game.inner().state_hash()));
                    cell.save(frame, Some(self.game.clone()), checksum);
                }
                GgrsRequest::LoadGameState { cell, .. } => match cell.load() {
                    Some(saved) => self.game = saved,
                    None => self.fig.problems.push("load of an empty cell".into()),
                },
                GgrsRequest::AdvanceFrame { inputs } => {
                    let pads: Vec<G::Input> = inputs.iter().map(|&(pad, _)| pad).collect();
                    self.game.step(&pads);
                    advances += 1;
                }
            }
        }
        let (_, _, steps) = game::leave(&mut self.fig.log);
        self.fig.steps += steps;
        if advances == 0 {
            // Lock-step mode (window 0) waiting for the peer's input.
            self.fig.stalled += 1;
        }
        // The first advance is this frame's; any other one re-simulates a
        // tick after a LoadGameState.
        self.fig.resimulated += advances.saturating_sub(1);
    }

    fn on_events(&mut self, events: Vec<GgrsEvent<GgrsConfig<G>>>) {
        for event in events {
            match event {
                GgrsEvent::WaitRecommendation { skip_frames } => self.skip = skip_frames,
                GgrsEvent::DesyncDetected { frame, .. } => {
                    self.fig.problems.push(format!("desync at frame {frame}"));
                }
                GgrsEvent::Disconnected { .. } => self.fig.problems.push("disconnected".into()),
                GgrsEvent::NetworkInterrupted { .. } => self.fig.interruptions += 1,
                GgrsEvent::Synchronizing { .. }
                | GgrsEvent::Synchronized { .. }
                | GgrsEvent::NetworkResumed { .. } => {}
            }
        }
    }

    /// Ticks simulated whose inputs are all confirmed: frame f's inputs
    /// confirmed make the state after tick f + 1 final (GGRS's "no frame"
    /// is -1; the peer's inputs may be confirmed ahead of this side's
    /// current frame).
    fn confirmed(&self) -> u32 {
        let confirmed = self.session.confirmed_frame().saturating_add(1);
        u32::try_from(confirmed.min(self.session.current_frame())).unwrap_or(0)
    }

    fn finish(mut self, end: Millis) -> PeerFigures {
        self.fig.finish_traffic(end, sent_over(&self.links));
        self.fig.ticks = u32::try_from(self.session.current_frame()).unwrap_or(0);
        self.fig.confirmed = self.confirmed();
        // The longest round trip to any other player.
        self.fig.rtt_ms = self
            .session
            .remote_player_handles()
            .into_iter()
            .filter_map(|h| self.session.network_stats(h).ok())
            .filter_map(|stats| u64::try_from(stats.ping).ok())
            .max();
        self.fig
    }

    /// Player `side` of `players`, on its ends of the links, with
    /// `spectators` spectators (addresses and handles `players..`) linked
    /// to it as well.
    fn new(
        settings: &RunSettings,
        window: usize,
        players: u8,
        side: u8,
        spectators: u8,
        links: Vec<(u8, End)>,
    ) -> Result<Peer<G>, String> {
        let mut builder = SessionBuilder::<GgrsConfig<G>>::new()
            .with_num_players(usize::from(players))
            .map_err(|e| e.to_string())?;
        for slot in 0..players {
            let kind = if slot == side {
                PlayerType::Local
            } else {
                PlayerType::Remote(slot)
            };
            builder = builder
                .add_player(kind, usize::from(slot))
                .map_err(|e| e.to_string())?;
        }
        for s in players..players + spectators {
            builder = builder
                .add_player(PlayerType::Spectator(s), usize::from(s))
                .map_err(|e| e.to_string())?;
        }
        let session = builder
            .with_input_delay(usize::from(settings.input_delay))
            .with_max_prediction_window(window)
            .with_desync_detection_mode(desync_detection(settings))
            .start_p2p_session(NetsimSocket::linked(links.clone()))
            .map_err(|e| e.to_string())?;
        Ok(Peer {
            session,
            links,
            side,
            game: Timed::new(settings.match_seed, players),
            bot: G::bot(settings.match_seed, side, settings.scripted_ntba),
            desync_checks: settings.ggrs_desync_interval != 0,
            skip: 0,
            fig: PeerFigures::new(side),
        })
    }
}

/// GGRS's players of one match, each with its ends of fresh links: one
/// link for two players, a full mesh for more (every player's session has
/// every other player as a remote player).
pub(crate) struct GgrsMesh<G: BenchGame> {
    links: Links,
    players: Vec<Peer<G>>,
}

impl<G: BenchGame> GgrsMesh<G> {
    /// `players` players (at least 2) with GGRS's `max_prediction` at
    /// `window`.
    pub(crate) fn new(settings: &RunSettings, window: usize, players: u8) -> Result<Self, String> {
        if players < 2 {
            return Err(format!("{players} players: a match needs at least two"));
        }
        let mut links = Links::mesh(players, settings.link, settings.net_seed);
        let players = (0..players)
            .map(|side| {
                let ends = links.take(side);
                Peer::new(settings, window, players, side, 0, ends)
            })
            .collect::<Result<_, _>>()?;
        Ok(GgrsMesh { links, players })
    }
}

impl<G: BenchGame> Runner for GgrsMesh<G> {
    /// Every link's clock moves to `now`, then each player in slot order
    /// reads what arrived, runs its frame and sends (GGRS's own examples'
    /// order, and our side's `Schedule::FrameOnly`).
    fn frame(&mut self, now: Millis) {
        self.links.advance_to(now);
        for p in &mut self.players {
            p.frame(now);
        }
    }

    fn confirmed(&self) -> u32 {
        self.players.iter().map(Peer::confirmed).min().unwrap_or(0)
    }
}

impl<G: BenchGame> Contender for GgrsMesh<G> {
    fn finish(self: Box<Self>, end: Millis) -> Vec<PeerFigures> {
        self.players.into_iter().map(|p| p.finish(end)).collect()
    }
}

/// A spectator: GGRS's `SpectatorSession`, linked to the host only.
///
/// Its figures count frames run, ticks shown, frames it waited for the
/// host's inputs (as `stalled`), problems and the hash log; its ticks are
/// all confirmed (it only ever plays the host's confirmed inputs).
struct Spectator<G: BenchGame> {
    session: SpectatorSession<GgrsConfig<G>>,
    game: Timed<G>,
    fig: PeerFigures,
}

impl<G: BenchGame> Spectator<G> {
    fn frame(&mut self) {
        self.fig.frames += 1;
        game::enter(&mut self.fig.log);
        let result = self.session.advance_frame();
        match result {
            Ok(requests) => {
                for request in requests {
                    if let GgrsRequest::AdvanceFrame { inputs } = request {
                        let pads: Vec<G::Input> = inputs.iter().map(|&(pad, _)| pad).collect();
                        self.game.step(&pads);
                    }
                }
            }
            // Still synchronising with the host, or the host's inputs for
            // the next frame have not arrived: nothing to show this frame.
            Err(GgrsError::NotSynchronized) => {}
            Err(GgrsError::PredictionThreshold) => self.fig.stalled += 1,
            Err(e) => self.fig.problems.push(format!("advance_frame: {e}")),
        }
        let (_, _, steps) = game::leave(&mut self.fig.log);
        self.fig.steps += steps;
        for event in self.session.events() {
            if let GgrsEvent::Disconnected { .. } = event {
                self.fig.problems.push("disconnected".into());
            }
        }
    }

    fn finish(mut self, end: Millis) -> PeerFigures {
        self.fig.ended_ms = end.0;
        self.fig.ticks = self.game.tick();
        self.fig.confirmed = self.fig.ticks;
        self.fig
    }
}

/// What a host with spectators sent them.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SpectatedFigures {
    /// The host and the guest.
    pub(crate) players: Vec<PeerFigures>,
    /// Datagrams and bytes the host sent to all its spectators while it
    /// ran (from its first running frame to the end).
    pub(crate) to_spectators: Sent,
    /// The same to the guest.
    pub(crate) to_guest: Sent,
    /// Each spectator's figures (see `Spectator`).
    pub(crate) spectators: Vec<PeerFigures>,
}

/// A two-player GGRS match whose host also serves `spectators`
/// spectators, each over a link of its own with the same conditions.
pub(crate) struct GgrsSpectated<G: BenchGame> {
    links: Links,
    host: Peer<G>,
    guest: Peer<G>,
    spectators: Vec<Spectator<G>>,
    /// What the host had sent to the guest and to the spectators when it
    /// started running.
    baseline: Option<(Sent, Sent)>,
}

impl<G: BenchGame> GgrsSpectated<G> {
    pub(crate) fn new(
        settings: &RunSettings,
        window: usize,
        spectators: u8,
    ) -> Result<Self, String> {
        if spectators == 0 || spectators > 30 {
            return Err(format!("{spectators} spectators: 1 to 30"));
        }
        let pairs: Vec<(u8, u8)> = std::iter::once((0, 1))
            .chain((2..2 + spectators).map(|s| (0, s)))
            .collect();
        let mut links = Links::new(2 + spectators, &pairs, settings.link, settings.net_seed);
        let host = Peer::new(settings, window, 2, 0, spectators, links.take(0))?;
        let guest = Peer::new(settings, window, 2, 1, 0, links.take(1))?;
        let spectators = (2..2 + spectators)
            .map(|s| {
                let session = SessionBuilder::<GgrsConfig<G>>::new()
                    .with_num_players(2)
                    .map_err(|e| e.to_string())?
                    .start_spectator_session(0, NetsimSocket::linked(links.take(s)));
                Ok(Spectator {
                    session,
                    game: Timed::new(settings.match_seed, 2),
                    fig: PeerFigures::new(s),
                })
            })
            .collect::<Result<_, String>>()?;
        Ok(GgrsSpectated {
            links,
            host,
            guest,
            spectators,
            baseline: None,
        })
    }

    /// What the host has sent so far to the guest and to the spectators.
    fn host_sent(&self) -> (Sent, Sent) {
        let (guest, spectators): (Vec<_>, Vec<_>) = self
            .host
            .links
            .iter()
            .cloned()
            .partition(|(peer, _)| *peer == 1);
        (sent_over(&guest), sent_over(&spectators))
    }

    fn figures(self, end: Millis) -> SpectatedFigures {
        let (guest_now, spectators_now) = self.host_sent();
        let (to_guest, to_spectators) = match self.baseline {
            Some((g, s)) => (guest_now.since(g), spectators_now.since(s)),
            None => (Sent::default(), Sent::default()),
        };
        SpectatedFigures {
            players: vec![self.host.finish(end), self.guest.finish(end)],
            to_spectators,
            to_guest,
            spectators: self.spectators.into_iter().map(|s| s.finish(end)).collect(),
        }
    }
}

impl<G: BenchGame> Spectated for GgrsSpectated<G> {
    fn finish(self: Box<Self>, end: Millis) -> SpectatedFigures {
        (*self).figures(end)
    }
}

/// One engine's two-player match with spectators, in the frame loop.
pub(crate) trait Spectated: Runner {
    /// What the host sent and every member's figures, the run having
    /// ended at `end`.
    fn finish(self: Box<Self>, end: Millis) -> SpectatedFigures;
}

impl<G: BenchGame> Runner for GgrsSpectated<G> {
    /// As a mesh: the clocks, then the host, the guest and each
    /// spectator in turn.
    fn frame(&mut self, now: Millis) {
        self.links.advance_to(now);
        self.host.frame(now);
        if self.baseline.is_none() && self.host.fig.started_ms.is_some() {
            self.baseline = Some(self.host_sent());
        }
        self.guest.frame(now);
        for s in &mut self.spectators {
            s.frame();
        }
    }

    fn confirmed(&self) -> u32 {
        let players = self.host.confirmed().min(self.guest.confirmed());
        let watched = self.spectators.iter().map(|s| s.game.tick()).min();
        watched.map_or(players, |w| w.min(players))
    }
}
