//! Our side: two `lockstep::Session`s over one `netsim` link, run by the
//! engine's test driver on its frame-only schedule (each peer in turn reads
//! what arrived, runs its frame and sends, as GGRS's harness does). The
//! same peer, with a link to each other player, plays the larger matches
//! of `ours_mesh`.

use std::time::Instant;

use lockstep::{
    Channel, Event, Frame, LinkState, Millis, PeerId, Session, SessionConfig, Transport,
};
use lockstep_testing::{Member, Net, Schedule, SimLink};

use crate::game::{self, BenchGame, Timed};
use crate::{Contender, PeerFigures, RunSettings, Runner, Sent};

/// The one place where a row's settings reach our session's
/// configuration: the prediction window (0 is lock-step, above 0 rollback;
/// the guest adopts the host's from its Hello, setting it on both does no
/// harm) and the frames between two Inputs packets (each side's own).
pub(crate) fn session_config(
    base: SessionConfig,
    window: u8,
    send_interval: u8,
    max_hold: u8,
) -> SessionConfig {
    base.prediction_window(window)
        .send_interval_frames(send_interval)
        .max_hold_frames(max_hold)
}

/// One of a peer's links: its name (the driver's, `member_id` of the
/// member at the other end), its state as last read from this peer's end,
/// and what the session produced for it, to send at the next pump.
struct Link {
    id: PeerId,
    state: LinkState,
    outbox: Vec<(Channel, Vec<u8>)>,
}

/// One player: its session, its bot and its figures.
pub(crate) struct Peer<G: BenchGame> {
    pub(crate) session: Session<Timed<G>>,
    /// Every link this peer has been pumped over, in the driver's order.
    links: Vec<Link>,
    /// Whether the session ran in the last frame (its traffic is counted
    /// from the end of its first running frame).
    pub(crate) running: bool,
    side: u8,
    bot: G::Bot,
    sampled: u32,
    /// What arrived, with the link it came on, in arrival order.
    inbox: Vec<(PeerId, Channel, Vec<u8>)>,
    pub(crate) fig: PeerFigures,
}

impl<G: BenchGame> Peer<G> {
    /// A player in slot `side` with session configuration `cfg`.
    pub(crate) fn new(
        cfg: SessionConfig,
        side: u8,
        settings: &RunSettings,
    ) -> Result<Self, String> {
        Ok(Peer {
            session: Session::new(cfg).map_err(|e| e.to_string())?,
            links: Vec::new(),
            running: false,
            side,
            bot: G::bot(settings.match_seed, side, settings.scripted_ntba),
            sampled: 0,
            inbox: Vec::new(),
            fig: PeerFigures::new(side),
        })
    }
}

impl<G: BenchGame> Member for Peer<G> {
    /// The link, untimed: before the frame, take what has arrived; after
    /// it, send what the session produced for this link.
    fn pump(&mut self, _now: Millis, peer: PeerId, end: &mut dyn Transport) {
        let i = match self.links.iter().position(|l| l.id == peer) {
            Some(i) => i,
            None => {
                self.links.push(Link {
                    id: peer,
                    state: LinkState::Connecting,
                    outbox: Vec::new(),
                });
                self.links.len() - 1
            }
        };
        let link = &mut self.links[i];
        for (channel, bytes) in link.outbox.drain(..) {
            if let Err(e) = end.send(channel, &bytes) {
                self.fig.problems.push(format!("send refused: {e}"));
            }
        }
        while let Some((channel, bytes)) = end.recv() {
            self.inbox.push((peer, channel, bytes));
        }
        link.state = end.state();
    }

    fn frame(&mut self, now: Millis) {
        self.fig.frames += 1;
        // The player, untimed: its pad for the next input, in case the
        // session asks for one (it keeps the bot's state only if it does).
        let mut bot = self.bot.clone();
        let pad = match self.session.game() {
            Some(g) => G::pad(&mut bot, g.inner(), self.sampled, self.side),
            None => G::Input::default(),
        };
        let mut used = false;

        // The session, timed; the game's own calls inside are subtracted.
        game::enter(&mut self.fig.log);
        let t0 = Instant::now();
        for (peer, channel, bytes) in self.inbox.drain(..) {
            self.session.handle_datagram(now, peer, channel, &bytes);
        }
        for link in &self.links {
            self.session.handle_link_state(now, link.id, link.state);
        }
        let frame = self.session.advance_frame(now, || {
            used = true;
            pad
        });
        while let Some((peer, channel, bytes)) = self.session.poll_transmit() {
            match self.links.iter_mut().find(|l| l.id == peer) {
                Some(link) => link.outbox.push((channel, bytes)),
                None => self
                    .fig
                    .problems
                    .push("a datagram for an unknown link".into()),
            }
        }
        let mut ended = None;
        while let Some(event) = self.session.poll_event() {
            match event {
                Event::RoundTrip(rtt) => self.fig.rtt_ms = Some(rtt.0),
                Event::Ended(outcome) => ended = Some(outcome),
                _ => {}
            }
        }
        let elapsed = t0.elapsed();
        let (excluded, sections, steps) = game::leave(&mut self.fig.log);
        self.fig.add_session_time(elapsed, excluded, sections);
        self.fig.steps += steps;
        self.running = self.session.is_running();

        match frame {
            Frame::Stalled(_) => self.fig.stalled += 1,
            // Rollback mode's time synchronisation let this frame pass.
            Frame::Skipped(_) => self.fig.skipped += 1,
            _ => {}
        }
        if let Some(outcome) = ended {
            self.fig.problems.push(format!("ended: {outcome:?}"));
        }
        if used {
            self.bot = bot;
            self.sampled += 1;
        }
    }
}

impl<G: BenchGame> Peer<G> {
    /// The figures at the end of the run, `sent` being what this peer's
    /// ends of its links carried in all.
    pub(crate) fn finish(mut self, end: Millis, sent: Sent) -> PeerFigures {
        self.fig.finish_traffic(end, sent);
        // A spectator plays no slot (its side() is None).
        if self.running && self.session.side().is_some_and(|s| s != self.side) {
            // Its pads were drawn for another slot than it played.
            self.fig.problems.push(format!(
                "played slot {:?}, not {}",
                self.session.side(),
                self.side
            ));
        }
        self.fig.ticks = self.session.tick();
        self.fig.confirmed = self.session.confirmed_tick();
        self.fig.resimulated = self.session.stats().resimulated_ticks;
        if self.fig.steps != u64::from(self.fig.ticks) + self.fig.resimulated {
            // The game's own count of steps disagrees with the session's.
            self.fig.problems.push(format!(
                "{} game steps for {} ticks and {} re-simulated",
                self.fig.steps, self.fig.ticks, self.fig.resimulated
            ));
        }
        if self.fig.rtt_ms.is_none() {
            self.fig.rtt_ms = self.session.stats().last_rtt.map(|r| r.0);
        }
        self.fig
    }
}

/// Host and guest of our session, each with its end of a fresh link.
pub(crate) struct OursPair<G: BenchGame> {
    net: Net<SimLink>,
    host: Peer<G>,
    guest: Peer<G>,
}

impl<G: BenchGame> OursPair<G> {
    pub(crate) fn new(
        settings: &RunSettings,
        window: u8,
        send_interval: u8,
        max_hold: u8,
    ) -> Result<Self, String> {
        let mut net = Net::with_schedule(Schedule::FrameOnly);
        net.join(0, 1, SimLink::new(settings.link, settings.net_seed));
        let host_cfg = session_config(
            SessionConfig::host(settings.match_seed, settings.input_delay),
            window,
            send_interval,
            max_hold,
        );
        let guest_cfg = session_config(SessionConfig::guest(), window, send_interval, max_hold);
        Ok(OursPair {
            net,
            host: Peer::new(host_cfg, 0, settings)?,
            guest: Peer::new(guest_cfg, 1, settings)?,
        })
    }
}

impl<G: BenchGame> OursPair<G> {
    /// What the link carried from the host and from the guest.
    fn outgoing(&self) -> [netsim::PathStats; 2] {
        self.net.link(0, 1).map(SimLink::stats).unwrap_or_default()
    }
}

impl<G: BenchGame> Runner for OursPair<G> {
    fn frame(&mut self, now: Millis) {
        self.net
            .step_frame_at(now, &mut [&mut self.host, &mut self.guest]);
        // A peer's traffic counts from the end of its first running frame.
        let stats = self.outgoing();
        for (peer, stats) in [&mut self.host, &mut self.guest].into_iter().zip(&stats) {
            if peer.running {
                peer.fig.mark_running(now, Sent::of(stats));
            }
        }
    }

    fn confirmed(&self) -> u32 {
        let host = self.host.session.confirmed_tick();
        host.min(self.guest.session.confirmed_tick())
    }
}

impl<G: BenchGame> Contender for OursPair<G> {
    fn finish(self: Box<Self>, end: Millis) -> Vec<PeerFigures> {
        let me = *self;
        let [host, guest] = me.outgoing();
        vec![
            me.host.finish(end, Sent::of(&host)),
            me.guest.finish(end, Sent::of(&guest)),
        ]
    }
}
