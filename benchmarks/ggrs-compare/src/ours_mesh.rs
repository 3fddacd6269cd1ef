//! Our side of the matches of [`crate::mesh`].
//!
//! Two players play through the pair of the two-player comparison
//! (`ours::OursPair`); three to eight through [`OursMesh`], the same
//! peers with a link to every other player. What keeps the rows
//! comparable with GGRS's:
//!
//! * the links: a `lockstep_testing::Net` on `Schedule::FrameOnly` (each
//!   member in turn reads what arrived, runs its frame and sends, as GGRS's
//!   side does), every pair of slots `a < b` joined with
//!   `SimLink::new(settings.link, link_seed(settings.net_seed, a, b))`
//!   ([`crate::link_seed`]), the link GGRS's players `a` and `b` get;
//! * the game: `Timed<dots::Dots>`, made by the session from the match
//!   seed and the player count, each slot's pads from `BenchGame::pad`
//!   with its own slot as `side` (the host gives its links slots in the
//!   order they open, which is member order, so member `i` plays slot
//!   `i`; a peer that played another slot reports it as a problem);
//! * the figures: one `PeerFigures` per slot, its traffic summed over all
//!   its links' outgoing statistics (`Sent::sum`), counted from its first
//!   running frame, its session time measured as the pair's peers do;
//! * the settings: `window` as the prediction window (0 lock-step),
//!   `settings.input_delay` as the input delay.

use lockstep::session::DEFAULT_MAX_HOLD_FRAMES;

use lockstep::{Millis, SessionConfig};
use lockstep_testing::{member_id, Member, Net, Schedule, SimLink};

use crate::game::BenchGame;
use crate::ggrs_side::{Spectated, SpectatedFigures};
use crate::ours::{session_config, OursPair, Peer};
use crate::{link_seed, Contender, PeerFigures, RunSettings, Runner, Sent};

/// Our side of one row, or why it cannot run yet.
pub(crate) enum Ours {
    /// The players, ready for the frame loop.
    Ready(Box<dyn Contender>),
    /// Not measurable yet: the reason, for the table.
    NotYet(&'static str),
}

/// Our players for a match of `players` players with prediction window
/// `window` (0 is lock-step), as the session ships otherwise (an Inputs
/// packet every frame at most, held back up to the default in rollback).
///
/// # Errors
///
/// A setting the session refuses.
pub(crate) fn players(players: u8, settings: &RunSettings, window: u8) -> Result<Ours, String> {
    match players {
        2 => two_players(settings, window).map(Ours::Ready),
        3..=8 => mesh(settings, window, players),
        _ => Ok(Ours::NotYet("no function of ours for this many players")),
    }
}

/// Two players: the two-player session as it ships.
fn two_players(settings: &RunSettings, window: u8) -> Result<Box<dyn Contender>, String> {
    Ok(Box::new(OursPair::<dots::Dots>::new(
        settings,
        window,
        1,
        DEFAULT_MAX_HOLD_FRAMES,
    )?))
}

/// `players` players of `dots` in a full mesh, as the session ships.
fn mesh(settings: &RunSettings, window: u8, players: u8) -> Result<Ours, String> {
    Ok(Ours::Ready(Box::new(OursMesh::<dots::Dots>::new(
        settings,
        window,
        players,
        DEFAULT_MAX_HOLD_FRAMES,
    )?)))
}

/// A match of our sessions in a full mesh: member 0 hosts, every pair of
/// members has its own link.
pub(crate) struct OursMesh<G: BenchGame> {
    net: Net<SimLink>,
    players: Vec<Peer<G>>,
}

impl<G: BenchGame> OursMesh<G> {
    /// `players` players (2 to 8) with prediction window `window` and
    /// at most `max_hold` frames between two Inputs packets in rollback.
    pub(crate) fn new(
        settings: &RunSettings,
        window: u8,
        players: u8,
        max_hold: u8,
    ) -> Result<Self, String> {
        let mut net = Net::with_schedule(Schedule::FrameOnly);
        for a in 0..players {
            for b in a + 1..players {
                let seed = link_seed(settings.net_seed, a, b);
                net.join(
                    usize::from(a),
                    usize::from(b),
                    SimLink::new(settings.link, seed),
                );
            }
        }
        let host = SessionConfig::host(settings.match_seed, settings.input_delay).players(players);
        let players = (0..players)
            .map(|side| {
                let base = if side == 0 {
                    host
                } else {
                    SessionConfig::guest()
                };
                Peer::new(session_config(base, window, 1, max_hold), side, settings)
            })
            .collect::<Result<_, _>>()?;
        Ok(OursMesh { net, players })
    }

    /// What member `i`'s ends of its links carried in all.
    fn sent(&self, i: usize) -> Sent {
        let ends: Vec<netsim::PathStats> = (0..self.players.len())
            .filter(|&j| j != i)
            .filter_map(|j| {
                let [low, high] = self.net.link(i.min(j), i.max(j))?.stats();
                Some(if i < j { low } else { high })
            })
            .collect();
        Sent::sum(&ends)
    }
}

impl<G: BenchGame> Runner for OursMesh<G> {
    fn frame(&mut self, now: Millis) {
        let mut members: Vec<&mut dyn Member> = self
            .players
            .iter_mut()
            .map(|p| p as &mut dyn Member)
            .collect();
        self.net.step_frame_at(now, &mut members);
        // A player's traffic counts from the end of its first running
        // frame.
        for i in 0..self.players.len() {
            if self.players[i].running {
                let sent = self.sent(i);
                self.players[i].fig.mark_running(now, sent);
            }
        }
    }

    fn confirmed(&self) -> u32 {
        self.players
            .iter()
            .map(|p| p.session.confirmed_tick())
            .min()
            .unwrap_or(0)
    }
}

impl<G: BenchGame> Contender for OursMesh<G> {
    fn finish(self: Box<Self>, end: Millis) -> Vec<PeerFigures> {
        let sent: Vec<Sent> = (0..self.players.len()).map(|i| self.sent(i)).collect();
        self.players
            .into_iter()
            .zip(sent)
            .map(|(p, sent)| p.finish(end, sent))
            .collect()
    }
}

/// A two-player match of our sessions whose host also serves
/// `spectators` spectators (`SessionConfig::spectator()`, the default
/// watch delay), each over a link of its own with the same conditions:
/// member 0 hosts, 1 is the guest, 2 and up watch, each link seeded as
/// GGRS's side seeds the link between the same members
/// ([`crate::link_seed`]).
pub(crate) struct OursSpectated<G: BenchGame> {
    net: Net<SimLink>,
    host: Peer<G>,
    guest: Peer<G>,
    spectators: Vec<Peer<G>>,
    /// What the host had sent to the guest and to the spectators when it
    /// started running.
    baseline: Option<(Sent, Sent)>,
}

impl<G: BenchGame> OursSpectated<G> {
    /// The match in rollback with prediction window `window` (0 is
    /// lock-step), as the session ships otherwise.
    pub(crate) fn new(settings: &RunSettings, window: u8, spectators: u8) -> Result<Self, String> {
        if spectators > lockstep::MAX_SPECTATORS {
            return Err(format!(
                "{spectators} spectators: at most {}",
                lockstep::MAX_SPECTATORS
            ));
        }
        let mut net = Net::with_schedule(Schedule::FrameOnly);
        for b in 1..2 + spectators {
            net.join(
                0,
                usize::from(b),
                SimLink::new(settings.link, link_seed(settings.net_seed, 0, b)),
            );
        }
        let cfg = |base| session_config(base, window, 1, DEFAULT_MAX_HOLD_FRAMES);
        let mut host = Peer::new(
            cfg(SessionConfig::host(
                settings.match_seed,
                settings.input_delay,
            )),
            0,
            settings,
        )?;
        for s in 2..2 + spectators {
            host.session
                .add_spectator(Millis(0), member_id(usize::from(s)));
        }
        let guest = Peer::new(cfg(SessionConfig::guest()), 1, settings)?;
        let spectators = (2..2 + spectators)
            .map(|s| Peer::new(SessionConfig::spectator(), s, settings))
            .collect::<Result<_, _>>()?;
        Ok(OursSpectated {
            net,
            host,
            guest,
            spectators,
            baseline: None,
        })
    }

    /// What the link to member `b` carried from the host and back.
    fn link(&self, b: usize) -> [netsim::PathStats; 2] {
        self.net.link(0, b).map(SimLink::stats).unwrap_or_default()
    }

    /// What the host has sent so far to the guest and to the spectators.
    fn host_sent(&self) -> (Sent, Sent) {
        let [to_guest, _] = self.link(1);
        let to_spectators: Vec<netsim::PathStats> = (0..self.spectators.len())
            .map(|k| self.link(2 + k)[0])
            .collect();
        (Sent::of(&to_guest), Sent::sum(&to_spectators))
    }
}

impl<G: BenchGame> Runner for OursSpectated<G> {
    fn frame(&mut self, now: Millis) {
        let mut members: Vec<&mut dyn Member> = vec![&mut self.host, &mut self.guest];
        for s in &mut self.spectators {
            members.push(s);
        }
        self.net.step_frame_at(now, &mut members);
        if self.baseline.is_none() && self.host.running {
            self.baseline = Some(self.host_sent());
        }
        let [to_guest, from_guest] = self.link(1);
        if self.host.running {
            let (g, s) = self.host_sent();
            self.host.fig.mark_running(now, g.plus(s));
        }
        if self.guest.running {
            self.guest.fig.mark_running(now, Sent::of(&from_guest));
        }
        let _ = to_guest;
        for k in 0..self.spectators.len() {
            let [_, back] = self.link(2 + k);
            if let Some(s) = self.spectators.get_mut(k) {
                if s.running {
                    s.fig.mark_running(now, Sent::of(&back));
                }
            }
        }
    }

    fn confirmed(&self) -> u32 {
        let players = self
            .host
            .session
            .confirmed_tick()
            .min(self.guest.session.confirmed_tick());
        let watched = self.spectators.iter().map(|s| s.session.tick()).min();
        watched.map_or(players, |w| w.min(players))
    }
}

impl<G: BenchGame> Spectated for OursSpectated<G> {
    fn finish(self: Box<Self>, end: Millis) -> SpectatedFigures {
        let me = *self;
        let (guest_now, spectators_now) = me.host_sent();
        let (to_guest, to_spectators) = match me.baseline {
            Some((g, s)) => (guest_now.since(g), spectators_now.since(s)),
            None => (Sent::default(), Sent::default()),
        };
        let [_, from_guest] = me.link(1);
        let backs: Vec<Sent> = (0..me.spectators.len())
            .map(|k| Sent::of(&me.link(2 + k)[1]))
            .collect();
        SpectatedFigures {
            players: vec![
                me.host.finish(end, guest_now.plus(spectators_now)),
                me.guest.finish(end, Sent::of(&from_guest)),
            ],
            to_spectators,
            to_guest,
            spectators: me
                .spectators
                .into_iter()
                .zip(backs)
                .map(|(s, back)| s.finish(end, back))
                .collect(),
        }
    }
}
