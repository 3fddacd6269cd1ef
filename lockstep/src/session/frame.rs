//! The running frame: each display frame of a running match samples the
//! local input when one is due, runs at most one tick (a few more for a
//! side catching up), adapts the input delay, checks the links and the
//! rejoins that wait, and sends the frame's inputs.

use super::delay::Change;
use super::peer::Peer;
use super::sender::Extras;
use super::time_sync::{travel_ticks, PeerView};
use super::{Event, Frame};
use super::{Phase, Running, Session};
use crate::game::DeterministicGame;
use crate::time::Millis;

/// The most ticks past the first that a lock-step side behind the others
/// runs in one frame while its own inputs are already known (a newcomer
/// before the tick it takes its slot at).
const CATCH_UP_TICKS: u32 = 8;

/// What this side knows of `peer`'s progress in a running match.
fn peer_view<G: DeterministicGame>(run: &Running<G>, peer: &Peer) -> PeerView {
    let slot = peer.slot.map_or(usize::MAX, usize::from);
    PeerView {
        remote_inputs: run.timeline.inputs_of(slot).len() as u32,
        delay: run.params.delay,
        travel: travel_ticks(peer.last_rtt),
        surely_held: peer.sender.surely_held(),
        window: run.params.window,
    }
}

impl<G: DeterministicGame> Session<G> {
    /// One frame of the running match (see [`advance_frame`](Self::advance_frame)).
    pub(super) fn running_frame(
        &mut self,
        now: Millis,
        mut sample: impl FnMut() -> G::Input,
    ) -> Frame {
        let Phase::Running(run) = &mut self.phase else {
            // Unreachable: the caller matched the phase.
            debug_assert!(false, "running frame outside the match");
            return Frame::Waiting;
        };
        // A desync waits for a peer's part hashes: nothing runs.
        if run.parts.waiting() {
            return Frame::Waiting;
        }
        self.stats.frames += 1;
        let window = run.params.window;
        if window > 0 {
            // Correct any misprediction the inputs received since the last
            // frame revealed, before anything new runs.
            let found = run.watched(
                &mut self.peers,
                &mut self.audience,
                &mut self.events,
                |t, w| {
                    t.reconcile(w);
                },
            );
            if let Some(desync) = found {
                self.end_in_desync(now, desync);
                return Frame::Ended;
            }
        }
        // Sample only when the input `delay` ticks ahead is still missing,
        // and (host) not from the tick a new player takes its slot at
        // until every player has applied that change.
        let joining = run.joining();
        let held_back =
            |run: &Running<G>| joining.is_some_and(|j| run.timeline.local().len() as u32 >= j.tick);
        let mut raised = false;
        if window == 0 && self.cfg.adaptive_delay {
            match self.delay.frame() {
                Change::Kept => {}
                Change::Raised(d) => {
                    log::info!("input delay raised to {d} ticks");
                    raised = true;
                }
                Change::Lowered(d) => log::info!("input delay lowered to {d} ticks"),
            }
        }
        let delay = self.delay.current();
        if !held_back(run) && run.timeline.needs_local(delay) {
            let pad = sample();
            if run.timeline.local().last() != Some(&pad) {
                for p in &mut self.peers {
                    p.sender.pad_changed();
                }
            }
            run.timeline.push_local(pad);
            // A raised delay: the same pad for the ticks it adds, so the
            // others hold this side's inputs that much sooner at once.
            while raised && !held_back(run) && run.timeline.needs_local(delay) {
                run.timeline.push_local(pad);
            }
        }
        let can_run = run.timeline.can_run();
        if can_run {
            self.deadlines.progressed();
        }
        let tick = run.timeline.tick();
        // Time sync: this side lets a frame pass when it runs ahead of any
        // peer (so every player stays near the slowest).
        let skip = can_run
            && window > 0
            && self
                .peers
                .iter()
                .any(|p| p.time_sync.wants_skip(tick, peer_view(run, p)));
        let frame = if skip {
            log::debug!("time sync: frame skipped at tick {tick}");
            for p in &mut self.peers {
                p.time_sync.skipped();
            }
            self.stats.skipped_frames += 1;
            Frame::Skipped(tick)
        } else if can_run {
            // A side whose own inputs are held further ahead than its
            // delay calls for (a newcomer's slot is the neutral input up
            // to the tick it takes over) is behind the others: it runs
            // the ticks whose inputs are all known (in rollback too: it
            // guesses nothing), up to CATCH_UP_TICKS more a frame, until
            // its pad is needed. Otherwise, in rollback, the others would
            // wait for it at the end of their prediction window.
            let mut extra = 0;
            loop {
                let found = run.watched(
                    &mut self.peers,
                    &mut self.audience,
                    &mut self.events,
                    |t, w| {
                        t.step(w);
                    },
                );
                if let Some(desync) = found {
                    self.end_in_desync(now, desync);
                    return Frame::Ended;
                }
                let ahead =
                    run.timeline.local().len() as u32 > run.timeline.tick() + u32::from(delay) + 1;
                let guesses = window > 0 && !run.timeline.knows_present();
                if guesses || extra >= CATCH_UP_TICKS || !ahead || !run.timeline.can_run() {
                    break;
                }
                extra += 1;
            }
            Frame::Ticked(run.timeline.tick())
        } else {
            self.deadlines.stalled(now);
            self.stats.stalled_frames += 1;
            self.events.push_back(Event::Stalled(tick));
            for p in &mut self.peers {
                if let Some(d) = &mut p.dropped {
                    let held_for = d.until.saturating_since(now);
                    let secs = held_for.0 / 1000;
                    if secs != d.announced {
                        d.announced = secs;
                        self.events.push_back(Event::Waiting {
                            slot: p.slot.unwrap_or(0),
                            held_for,
                        });
                    }
                }
            }
            Frame::Stalled(tick)
        };
        if window > 0 {
            let tick = run.timeline.tick();
            for i in 0..self.peers.len() {
                let Some(p) = self.peers.get(i) else { continue };
                let view = peer_view(run, p);
                if let Some(p) = self.peers.get_mut(i) {
                    p.time_sync.update(tick, view);
                }
            }
        }
        for p in &mut self.peers {
            p.pinger.frame();
        }
        self.flush_unreliable(now, matches!(frame, Frame::Stalled(_)));
        if self.is_host() {
            self.keep_waiting_rejoiners();
            self.join_when_ready(now);
            self.serve_spectators(now, false);
        }
        frame
    }

    /// Once per running frame, after the tick: this frame's Inputs packet
    /// to each peer, unless it waits for the send interval or is held back.
    fn flush_unreliable(&mut self, now: Millis, stalled: bool) {
        let Phase::Running(run) = &mut self.phase else {
            return;
        };
        let window = run.params.window;
        let quiet_turn = self
            .stats
            .frames
            .is_multiple_of(u64::from(self.cfg.ping_interval_frames));
        for peer in &mut self.peers {
            if peer.frozen || peer.slot.is_none() || (peer.dropped.is_some() && !quiet_turn) {
                // A dropped player's link gets one packet per ping
                // interval: enough for it to hear us when it comes back.
                continue;
            }
            let view = peer_view(run, peer);
            let lost = peer.pinger.losses();
            let travel = travel_ticks(peer.last_rtt);
            let peer_tick = peer.time_sync.peer_tick_estimate(view);
            let due = peer.sender.due(&self.cfg, window, |s| {
                s.inputs_urgent(&self.cfg, lost, peer_tick, travel, window)
            });
            let keep_alive = stalled && peer.dropped.is_none() && peer.sender.quiet_while_stalled();
            if !due {
                if keep_alive {
                    let msg = peer
                        .sender
                        .keep_alive(run.timeline.local(), view.remote_inputs);
                    if let Some(msg) = msg {
                        peer.out.send(&msg);
                    }
                }
                continue;
            }
            let ping = peer
                .pinger
                .match_ping(now, self.cfg.ping_interval_frames, peer.last_rtt);
            let pong = peer.pinger.take_pong(now);
            let advantage = if window > 0 {
                peer.time_sync.report()
            } else {
                None
            };
            let extras = Extras {
                ack: view.remote_inputs,
                ping,
                pong,
                advantage,
            };
            let msg = match peer.sender.packet(run.timeline.local(), extras) {
                None if keep_alive => peer
                    .sender
                    .keep_alive(run.timeline.local(), view.remote_inputs),
                msg => msg,
            };
            if let Some(msg) = msg {
                peer.out.send(&msg);
            }
        }
    }
}
