//! The reference: two GGRS `P2PSession`s over one `netsim` link.
//!
//! GGRS talks to the network through its `NonBlockingSocket` trait and
//! sends everything on one unreliable path; [`NetsimSocket`] maps that to
//! netsim's unreliable channel, encoding messages with bincode exactly as
//! GGRS's own UDP socket does, so the sizes counted are GGRS's real datagram
//! sizes. GGRS reads the wall clock itself (for its resend timers, quality
//! reports and time synchronisation), so this side only makes sense in real
//! time: the harness moves netsim's clock to the elapsed wall-clock time.

use std::cell::RefCell;
use std::marker::PhantomData;
use std::rc::Rc;
use std::time::Instant;

use ggrs::{
    DesyncDetection, GgrsError, GgrsEvent, GgrsRequest, Message, NonBlockingSocket, P2PSession,
    PlayerType, PredictRepeatLast, SessionBuilder, SessionState,
};
use lockstep::{Channel, DeterministicGame, Millis, Transport};
use netsim::SimEndpoint;

use crate::game::{self, BenchGame, Timed};
use crate::{Contender, PeerFigures, RunSettings};

/// GGRS's configuration for a game: its input, the repeat-last predictor
/// (what GGPO does, and what our rollback mode will do), the wrapped game
/// as the saved state, and the peer's side (0 or 1) as its address.
pub struct GgrsConfig<G>(PhantomData<G>);

impl<G: BenchGame> ggrs::Config for GgrsConfig<G> {
    type Input = G::Input;
    type InputPredictor = PredictRepeatLast;
    type State = Timed<G>;
    type Address = u8;
}

/// GGRS's socket over one netsim endpoint (see the module docs). Time in
/// netsim itself is the link's, not GGRS's, and is excluded from the
/// session's time; encoding and decoding are GGRS's and count.
pub struct NetsimSocket {
    net: Rc<RefCell<SimEndpoint>>,
    peer: u8,
}

impl NetsimSocket {
    /// A socket on `net` whose only peer has address `peer`.
    #[must_use]
    pub fn new(net: Rc<RefCell<SimEndpoint>>, peer: u8) -> Self {
        NetsimSocket { net, peer }
    }
}

impl NonBlockingSocket<u8> for NetsimSocket {
    fn send_to(&mut self, msg: &Message, _addr: &u8) {
        // Every message goes to the one peer; bincode 1 with its default
        // (legacy) options, as GGRS's UdpNonBlockingSocket does.
        let Ok(bytes) = bincode::serialize(msg) else {
            return;
        };
        let t0 = Instant::now();
        // A refused send is a lost datagram, as on UDP.
        let _ = self.net.borrow_mut().send(Channel::Unreliable, &bytes);
        game::exclude(t0);
    }

    fn receive_all_messages(&mut self) -> Vec<(u8, Message)> {
        let mut messages = Vec::new();
        loop {
            let t0 = Instant::now();
            let datagram = self.net.borrow_mut().recv();
            game::exclude(t0);
            let Some((_, bytes)) = datagram else {
                break;
            };
            // Undecodable datagrams are dropped, as GGRS's UDP socket does.
            if let Ok(msg) = bincode::deserialize::<Message>(&bytes) {
                messages.push((self.peer, msg));
            }
        }
        messages
    }
}

struct Peer<G: BenchGame> {
    session: P2PSession<GgrsConfig<G>>,
    net: Rc<RefCell<SimEndpoint>>,
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
            let sent = self.net.borrow().outgoing_stats();
            self.fig.mark_running(now, &sent);
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
        let sent = self.net.borrow().outgoing_stats();
        self.fig.finish_traffic(end, &sent);
        self.fig.ticks = u32::try_from(self.session.current_frame()).unwrap_or(0);
        self.fig.confirmed = self.confirmed();
        let remote = usize::from(1 - self.side);
        if let Ok(stats) = self.session.network_stats(remote) {
            self.fig.rtt_ms = u64::try_from(stats.ping).ok();
        }
        self.fig
    }
}

/// Host and guest of GGRS, each with its end of a fresh link.
pub(crate) struct GgrsPair<G: BenchGame> {
    host: Peer<G>,
    guest: Peer<G>,
}

impl<G: BenchGame> GgrsPair<G> {
    pub(crate) fn new(settings: &RunSettings, window: usize) -> Result<Self, String> {
        let (a, b) = netsim::pair(settings.link, settings.net_seed);
        let peer = |net: SimEndpoint, side: u8| -> Result<Peer<G>, String> {
            let net = Rc::new(RefCell::new(net));
            let other = 1 - side;
            let desync = match settings.ggrs_desync_interval {
                0 => DesyncDetection::Off,
                n => DesyncDetection::On { interval: n },
            };
            let session = SessionBuilder::<GgrsConfig<G>>::new()
                .with_num_players(2)
                .and_then(|b| b.add_player(PlayerType::Local, usize::from(side)))
                .and_then(|b| b.add_player(PlayerType::Remote(other), usize::from(other)))
                .map(|b| {
                    b.with_input_delay(usize::from(settings.input_delay))
                        .with_max_prediction_window(window)
                        .with_desync_detection_mode(desync)
                })
                .and_then(|b| b.start_p2p_session(NetsimSocket::new(Rc::clone(&net), other)))
                .map_err(|e| e.to_string())?;
            Ok(Peer {
                session,
                net,
                side,
                game: Timed::new(settings.match_seed, 2),
                bot: G::bot(settings.match_seed, side, settings.scripted_ntba),
                desync_checks: settings.ggrs_desync_interval != 0,
                skip: 0,
                fig: PeerFigures::new(side),
            })
        };
        Ok(GgrsPair {
            host: peer(a, 0)?,
            guest: peer(b, 1)?,
        })
    }
}

impl<G: BenchGame> Contender for GgrsPair<G> {
    fn frame(&mut self, now: Millis) {
        self.host.net.borrow().advance_to(now);
        self.host.frame(now);
        self.guest.frame(now);
    }

    fn confirmed(&self) -> u32 {
        self.host.confirmed().min(self.guest.confirmed())
    }

    fn finish(self: Box<Self>, end: Millis) -> [PeerFigures; 2] {
        let me = *self;
        [me.host.finish(end), me.guest.finish(end)]
    }
}
