//! The match driver: one online match's session, driven a frame at a time.
//!
//! It feeds the session what the match link delivered, advances one frame
//! with the local person's input, counts stalled frames (the page shows
//! "Waiting for the other player…" after [`WAITING_AFTER_FRAMES`] of
//! them), notices when the game itself is over and, after
//! [`RESULT_HOLD_MS`] of showing the final state, leaves the match by
//! itself; it fills the [`MatchView`] and, at the end, says how the match
//! ended and keeps its input log. After a desync it also writes the desync
//! report (both players' inputs to the diverging tick, the part hashes, the
//! build id) and lets the front end word the message from the game at that
//! tick and the parts that differ.
//!
//! Calling contract: feed [`datagram`](MatchDriver::datagram) and
//! [`link_lost`](MatchDriver::link_lost) as the link reports them, call
//! [`frame`](MatchDriver::frame) once per 60 Hz frame, and after every call
//! drain [`poll_transmit`](MatchDriver::poll_transmit) onto the link.

use super::view::{LogOffer, MatchView};
use crate::front_end::FrontEnd;
use crate::play::{self, RESULT_HOLD_MS};
use lockstep::{
    Channel, ConfigError, DesyncReport, DeterministicGame, Event, Frame, LinkState, Millis,
    Outcome, PeerId, Session, SessionConfig,
};

pub use crate::play::WAITING_AFTER_FRAMES;

/// What one frame did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct FrameReport {
    /// A tick ran.
    pub ticked: bool,
    /// The match ended this frame.
    pub ended: Option<MatchEnd>,
}

/// How a match ended.
#[derive(Debug, PartialEq, Eq)]
pub struct MatchEnd {
    /// The session's outcome.
    pub outcome: Outcome,
    /// What the result screen says.
    pub message: String,
    /// The input log, when it could be encoded.
    pub log: Option<LogOffer>,
    /// After a desync, the desync report (its `ticks` are the diverging
    /// tick, its `hash` this side's state hash there).
    pub report: Option<LogOffer>,
}

/// How the session names the match link of a two-player match, played
/// over one link.
const MATCH_LINK: PeerId = PeerId(0);

/// How long the line saying that the host's place moved stays shown.
pub const HOST_MOVED_SHOWN: Millis = Millis(5_000);

/// One online match. See the module documentation.
#[derive(Debug)]
pub struct MatchDriver<G: DeterministicGame> {
    session: Session<G>,
    ping: Option<u64>,
    /// Frames in a row that could not run a tick.
    stalled: u32,
    /// When the game itself was seen over (confirmed), and its result.
    over: Option<(Millis, String)>,
    /// The confirmed game at the tick its result was first seen: what the
    /// page draws while the result is held, since the session goes on
    /// stepping a game that does not stop by itself.
    final_game: Option<G>,
    /// When the session was made (for the time to the first tick).
    created: Millis,
    first_tick: bool,
    /// Stalls and rollbacks of the last seconds, for the quality shown.
    quality: crate::quality::QualityMeter,
    /// The slots held for dropped players, for the countdown shown.
    holds: super::rejoin::Holds,
    /// When the host's place moved, and the slot it moved to (see
    /// [`Event::HostMoved`]), for the line shown a few seconds after.
    host_moved: Option<(Millis, u8)>,
    /// The session was made to come back into a running match (a rejoin
    /// into its slot, or the host coming back), not to start one.
    coming_back: bool,
}

impl<G: DeterministicGame> MatchDriver<G> {
    /// A match with this session configuration, starting at `now`. The
    /// configuration's rejoin window is the caller's choice: the shell
    /// sets it (`shell::rejoin::REJOIN_WINDOW`, or 0 to end a match at
    /// once when its link is lost).
    ///
    /// # Errors
    ///
    /// When the session refuses the configuration.
    pub fn new(cfg: SessionConfig, now: Millis) -> Result<Self, ConfigError> {
        Self::with_links(cfg, now, &[MATCH_LINK])
    }

    /// A party's match: one session over a full mesh, with one link per
    /// other player, each named by the caller (the party's member room
    /// names them by place). The links are all open when the driver is
    /// made, and a host's session gives them slots 1, 2, … in the order of
    /// `links`, so a host that lists them in place order plays each place
    /// in the slot of the same number. Feed each link's datagrams with
    /// [`datagram_on`](Self::datagram_on) and drain each with
    /// [`poll_transmit_on`](Self::poll_transmit_on).
    ///
    /// # Errors
    ///
    /// When the session refuses the configuration.
    pub fn with_links(
        cfg: SessionConfig,
        now: Millis,
        links: &[PeerId],
    ) -> Result<Self, ConfigError> {
        // The rejoin window is the caller's, as for `new`: a party's
        // caller that cannot bring a player back sets 0.
        let coming_back = cfg.rejoining().is_some() || cfg.returning_host().is_some();
        let mut session = Session::new(cfg)?;
        // The driver is made once the match links are open: their Hellos
        // are queued now.
        for link in links {
            session.handle_link_state(now, *link, LinkState::Open);
        }
        Ok(MatchDriver {
            session,
            ping: None,
            stalled: 0,
            over: None,
            final_game: None,
            created: now,
            first_tick: false,
            quality: crate::quality::QualityMeter::default(),
            holds: super::rejoin::Holds::default(),
            host_moved: None,
            coming_back,
        })
    }

    /// A fresh link to the same peer replaced the lost one (the rejoining
    /// guest's new connection, on the host): the session hears it as the
    /// slot's own link.
    pub fn relink(&mut self, now: Millis) {
        self.session
            .handle_link_state(now, MATCH_LINK, LinkState::Open);
    }

    /// The token this guest's slot can be taken back with, once the
    /// host's Hello gave one (keep it out of logs).
    #[must_use]
    pub fn rejoin_token(&self) -> Option<u64> {
        self.session.rejoin_token()
    }

    /// A datagram from the match link.
    pub fn datagram(&mut self, now: Millis, channel: Channel, bytes: &[u8]) {
        self.session
            .handle_datagram(now, MATCH_LINK, channel, bytes);
    }

    /// The match link closed or failed.
    pub fn link_lost(&mut self, now: Millis) {
        self.session
            .handle_link_state(now, MATCH_LINK, LinkState::Closed);
    }

    /// The person leaves the match (the Bye goes out with the next
    /// transmits; the end is reported by the next frame).
    pub fn quit(&mut self, now: Millis) {
        self.session.quit(now);
    }

    /// The next datagram for the match link.
    pub fn poll_transmit(&mut self) -> Option<(Channel, Vec<u8>)> {
        self.session.poll_transmit_to(MATCH_LINK)
    }

    /// A datagram from the party link `link`.
    pub fn datagram_on(&mut self, now: Millis, link: PeerId, channel: Channel, bytes: &[u8]) {
        self.session.handle_datagram(now, link, channel, bytes);
    }

    /// The party link `link` closed or failed.
    pub fn link_lost_on(&mut self, now: Millis, link: PeerId) {
        self.session.handle_link_state(now, link, LinkState::Closed);
    }

    /// The party link `link` holds `bytes` queued to send (its
    /// `bufferedAmount`): a host streams nothing more to a spectator's
    /// link while it is backed up; other links ignore it.
    pub fn backlog_on(&mut self, link: PeerId, bytes: usize) {
        self.session.note_send_backlog(link, bytes);
    }

    /// The next datagram for the party link `link`.
    pub fn poll_transmit_on(&mut self, link: PeerId) -> Option<(Channel, Vec<u8>)> {
        self.session.poll_transmit_to(link)
    }

    /// The game to draw: the present one once the match runs, or, once
    /// the game is over, the confirmed state its result was read from.
    #[must_use]
    pub fn game(&self) -> Option<&G> {
        self.final_game.as_ref().or_else(|| self.session.game())
    }

    /// The game the match ended on: the state its result was read from,
    /// or the newest confirmed one for a match that ended otherwise.
    #[must_use]
    pub fn final_game(&self) -> Option<&G> {
        self.final_game
            .as_ref()
            .or_else(|| self.session.confirmed_game())
    }

    /// The session (read only).
    #[must_use]
    pub fn session(&self) -> &Session<G> {
        &self.session
    }

    /// Runs one frame at `now` with the keys `held`, and writes what the
    /// page shows into `view`.
    pub fn frame<F: FrontEnd<Game = G>>(
        &mut self,
        now: Millis,
        front: &mut F,
        held: &[&str],
        view: &mut MatchView,
    ) -> FrameReport {
        let mut report = FrameReport::default();
        let mut made = None;
        let frame = self.session.advance_frame(now, || {
            let input = front.online_input(held);
            made = Some(input);
            input
        });
        if let Some(input) = made {
            view.input = Some(input_hex(&input));
        }
        match frame {
            Frame::Stalled(_) => self.stalled = self.stalled.saturating_add(1),
            Frame::Ticked(_) => {
                self.stalled = 0;
                report.ticked = true;
                if !self.first_tick {
                    self.first_tick = true;
                    view.first_tick_ms = Some(now.0.saturating_sub(self.created.0));
                }
            }
            _ => self.stalled = 0,
        }
        let mut ended = self.drain_events(now, front, view);
        self.show(front, view, now, ended.is_some());
        // A finished game stays on screen a moment, then the page leaves.
        if let Some((at, _)) = &self.over {
            if ended.is_none() && now.0 >= at.0 + RESULT_HOLD_MS {
                self.session.quit(now);
                ended = self.drain_events(now, front, view);
            }
        }
        if let Some(outcome) = ended {
            let report_offer = self.desync_report(front, &outcome);
            let message = match &report_offer {
                Some((_, words)) => words.clone(),
                None if self.came_back_too_late(&outcome) => super::rejoin::TOO_LATE.to_owned(),
                None => play::end_message(self.over.as_ref().map(|(_, r)| r.as_str()), &outcome),
            };
            log::info!(
                "match ended after {} confirmed ticks: {message}",
                self.session.confirmed_tick()
            );
            view.state = Some("ended");
            view.waiting = false;
            report.ended = Some(MatchEnd {
                outcome,
                message,
                log: self.log(front.name()),
                report: report_offer.map(|(offer, _)| offer),
            });
        }
        report
    }

    /// Whether a session made to come back into its slot (a rejoin with
    /// its token, or the host coming back) ended by `o` before it ever
    /// played: nobody took it back before the match was over (the host's
    /// page never came back, say). A session starting a match that never
    /// began keeps the outcome's own words.
    fn came_back_too_late(&self, o: &Outcome) -> bool {
        let lost = matches!(
            o,
            Outcome::Timeout
                | Outcome::HandshakeTimeout
                | Outcome::PlayerLeft { .. }
                | Outcome::TransportLost
                | Outcome::NoProgress
        );
        lost && !self.first_tick && self.coming_back
    }

    /// Drains the session's events; returns the outcome if it ended.
    fn drain_events<F: FrontEnd<Game = G>>(
        &mut self,
        now: Millis,
        front: &mut F,
        view: &mut MatchView,
    ) -> Option<Outcome> {
        let mut ended = None;
        while let Some(ev) = self.session.poll_event() {
            self.holds.event(now, &ev);
            match ev {
                Event::RoundTrip(ms) => self.ping = Some(ms.0),
                Event::Ended(o) => ended = Some(o),
                Event::Started { side, .. } => {
                    view.side = Some(side);
                    front.start_online(side);
                }
                Event::Watching { .. } => front.start_watching(),
                Event::HostMoved { slot, .. } => self.host_moved = Some((now, slot)),
                _ => {}
            }
        }
        ended
    }

    fn show<F: FrontEnd<Game = G>>(
        &mut self,
        front: &F,
        view: &mut MatchView,
        now: Millis,
        ending: bool,
    ) {
        let s = &self.session;
        if let Some(g) = s.game() {
            view.state = Some("running");
            view.present_tick = Some(s.tick());
            if let Some(summary) = front.summary(g) {
                view.summary = Some(summary);
            }
        }
        if let Some(g) = s.confirmed_game() {
            view.tick = Some(s.confirmed_tick());
            view.hash = Some(g.state_hash());
            if let Some(summary) = front.summary(g) {
                view.confirmed_summary = Some(summary);
            }
            if self.over.is_none() {
                if let Some(result) = front.result(g) {
                    self.over = Some((now, result));
                    self.final_game = Some(g.clone());
                }
            }
        }
        view.watching = s.spectators();
        let st = s.stats();
        self.quality.frame(st.stalled_frames, st.resimulated_ticks);
        view.quality = if s.side().is_none() {
            self.quality.stream_quality()
        } else {
            self.quality.quality(self.ping)
        };
        view.stats = Some(format!(
            "frames {} stalled {} skipped {} rollbacks {} resimulated {} max_rollback {}",
            st.frames,
            st.stalled_frames,
            st.skipped_frames,
            st.rollbacks,
            st.resimulated_ticks,
            st.max_rollback
        ));
        view.waiting = play::waiting(self.stalled) && !ending;
        view.held = self.holds.shown(now).filter(|_| !ending);
        view.benched = self.holds.benched().filter(|_| !ending);
        view.host_held = self.holds.holds(0) && !ending;
        view.held_slots = if ending { 0 } else { self.holds.mask() };
        view.host = s.side().map(|_| s.host_slot());
        view.moved_to = self
            .host_moved
            .filter(|(at, _)| now < *at + HOST_MOVED_SHOWN && !ending)
            .map(|(_, slot)| slot);
        view.rejoined = self.holds.rejoined();
        if let Some((delay, window)) = s.input_delay().zip(s.prediction_window()) {
            let name = |slot| {
                s.game()
                    .map_or_else(|| front.side_name(slot), |g| front.slot_name(g, slot))
            };
            let side = match s.side() {
                Some(0) => format!("You play {} (host)", name(0)),
                Some(slot) => format!("You play {} (guest)", name(slot)),
                None => "You are watching".to_owned(),
            };
            let mode = if window == 0 {
                "lock-step".to_owned()
            } else {
                format!("rollback (up to {window} {})", ticks(window))
            };
            let ping = self
                .ping
                .map_or("measuring".to_owned(), |p| format!("{p} ms"));
            view.mode = Some(if window == 0 { "lockstep" } else { "rollback" });
            view.delay = Some(delay);
            view.ping = self.ping;
            // A relayed match says so next to its round trip, which then
            // includes the service's hop.
            let relayed = if view.path == Some("relayed") {
                " (relayed)"
            } else {
                ""
            };
            view.status = if s.side().is_some() {
                format!(
                    "{side} · {mode} · input delay {delay} {} ({} ms) · ping {ping}{relayed}",
                    ticks(delay),
                    u32::from(delay) * 50 / 3
                )
            } else {
                // A spectator sends no inputs: it has no delay of its own.
                format!("{side} · {mode}{relayed}")
            };
        }
    }

    /// After a desync, the desync report offered for download and the
    /// front end's message for it, worded from the game replayed to the
    /// diverging tick; `None` for any other ending, or when no report can
    /// be written (the message is then the plain one).
    fn desync_report<F: FrontEnd<Game = G>>(
        &self,
        front: &F,
        outcome: &Outcome,
    ) -> Option<(LogOffer, String)> {
        let Outcome::Desync { parts, .. } = outcome else {
            return None;
        };
        let log = self.session.input_log();
        let side = self.session.side().unwrap_or(0);
        let (report, at) = DesyncReport::write_replayed::<G>(&log, side, outcome, |g, name| {
            front.describe_part(g, name)
        })
        .map_err(|e| log::warn!("could not write the desync report: {e}"))
        .ok()?;
        let bytes = report
            .to_bytes()
            .map_err(|e| log::warn!("could not encode the desync report: {e}"))
            .ok()?;
        let words = front.desync_message(&at, &parts.differing);
        let offer = LogOffer {
            bytes,
            file_name: format!(
                "{}-desync-{:016x}-{}.report",
                front.name().to_lowercase(),
                log.seed,
                report.tick()
            ),
            start: report.log.start_tick,
            ticks: report.tick(),
            hash: report.local_hash(),
        };
        Some((offer, words))
    }

    fn log(&self, game_name: &str) -> Option<LogOffer> {
        let log = self.session.input_log();
        match log.to_bytes() {
            Ok(bytes) => Some(LogOffer {
                bytes,
                file_name: format!("{}-{:016x}.log", game_name.to_lowercase(), log.seed),
                start: log.start_tick,
                ticks: log.ticks(),
                hash: log.final_hash,
            }),
            Err(e) => {
                log::warn!("could not encode the input log: {e}");
                None
            }
        }
    }
}

/// "tick" or "ticks" for `n` ticks.
fn ticks(n: u8) -> &'static str {
    if n == 1 {
        "tick"
    } else {
        "ticks"
    }
}

/// An input as the bytes the session sends for it (postcard, as on the
/// wire), in lower-case hex: what `data-input` shows.
fn input_hex<I: serde::Serialize>(input: &I) -> String {
    postcard::to_allocvec(input)
        .map(|bytes| bytes.iter().map(|b| format!("{b:02x}")).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::front_end::Painter;
    use crate::testing::{TestDots, TestDotsFrontEnd};
    use lockstep::Fnv1a;
    use std::collections::VecDeque;

    /// Two drivers joined by an in-memory link: perfect, or with a fixed
    /// one-way `latency`.
    struct Pair<A: FrontEnd, B: FrontEnd> {
        a: MatchDriver<A::Game>,
        b: MatchDriver<B::Game>,
        fa: A,
        fb: B,
        va: MatchView,
        vb: MatchView,
        now: Millis,
        latency: Millis,
        /// Datagrams on their way: when they arrive, whether to B.
        in_flight: VecDeque<(Millis, bool, Channel, Vec<u8>)>,
    }

    impl<A: FrontEnd, B: FrontEnd> Pair<A, B> {
        fn new(fa: A, fb: B, host: SessionConfig) -> Self {
            Pair {
                a: MatchDriver::new(host, Millis(0)).unwrap(),
                b: MatchDriver::new(guest(), Millis(0)).unwrap(),
                fa,
                fb,
                va: MatchView::default(),
                vb: MatchView::default(),
                now: Millis(0),
                latency: Millis(0),
                in_flight: VecDeque::new(),
            }
        }

        fn carry(&mut self) {
            let at = self.now + self.latency;
            while let Some((ch, bytes)) = self.a.poll_transmit() {
                self.in_flight.push_back((at, true, ch, bytes));
            }
            while let Some((ch, bytes)) = self.b.poll_transmit() {
                self.in_flight.push_back((at, false, ch, bytes));
            }
            while let Some((_, to_b, ch, bytes)) = self.in_flight.pop_front_if(|d| d.0 <= self.now)
            {
                if to_b {
                    self.b.datagram(self.now, ch, &bytes);
                } else {
                    self.a.datagram(self.now, ch, &bytes);
                }
            }
        }

        /// One frame on both sides (16 ms apart); the ends, if any.
        fn frame(&mut self, held: &[&str]) -> (Option<MatchEnd>, Option<MatchEnd>) {
            self.now = self.now + Millis(16);
            let ra = self.a.frame(self.now, &mut self.fa, held, &mut self.va);
            self.carry();
            let rb = self.b.frame(self.now, &mut self.fb, held, &mut self.vb);
            self.carry();
            (ra.ended, rb.ended)
        }

        /// Frames until both have ended (panics after `max`).
        fn until_both_end(&mut self, max: u32) -> (MatchEnd, MatchEnd) {
            let (mut ea, mut eb) = (None, None);
            for _ in 0..max {
                let (a, b) = self.frame(&[]);
                ea = ea.or(a);
                eb = eb.or(b);
                if ea.is_some() && eb.is_some() {
                    break;
                }
            }
            match (ea, eb) {
                (Some(a), Some(b)) => (a, b),
                (a, b) => panic!("not both ended: {a:?} {b:?}"),
            }
        }

        fn run(&mut self, frames: u32) {
            for _ in 0..frames {
                let (a, b) = self.frame(&["ArrowRight"]);
                assert!(a.is_none() && b.is_none(), "ended early: {a:?} {b:?}");
            }
        }
    }

    /// The host of most tests: no slot held, a lost link ends the match.
    fn host() -> SessionConfig {
        SessionConfig::host(7, 2).rejoin_window(Millis::ZERO)
    }

    /// The guest of [`Pair::new`]: its window follows the host's config
    /// of the test (a guest's own window only matters when the host goes).
    fn guest() -> SessionConfig {
        SessionConfig::guest().rejoin_window(Millis::ZERO)
    }

    fn dots() -> Pair<TestDotsFrontEnd, TestDotsFrontEnd> {
        Pair::new(
            TestDotsFrontEnd::default(),
            TestDotsFrontEnd::default(),
            host(),
        )
    }

    /// A host with rejoin tokens whose guest never answers: the match
    /// never began, and the page says why in the outcome's own words, not
    /// that a way back ran out (only a session made to come back says
    /// that), though the ended session holds a token of its own.
    #[test]
    fn a_match_that_never_began_keeps_its_own_words() {
        let cfg = SessionConfig::host(7, 2).rejoin_entropy(0x5eed);
        let mut d = MatchDriver::new(cfg, Millis(0)).unwrap();
        let (mut front, mut view) = (TestDotsFrontEnd::default(), MatchView::default());
        let mut now = Millis(0);
        let end = (0..4_000)
            .find_map(|_| {
                now = now + Millis(16);
                // The guest hears nothing and says nothing.
                while d.poll_transmit().is_some() {}
                d.frame(now, &mut front, &[], &mut view).ended
            })
            .expect("the host gives up");
        assert!(!d.first_tick, "the match never began");
        assert!(
            d.rejoin_token().is_some(),
            "the ended session holds a token"
        );
        assert!(
            matches!(end.outcome, Outcome::Timeout | Outcome::HandshakeTimeout),
            "{:?}",
            end.outcome
        );
        assert_eq!(end.message, play::end_message(None, &end.outcome));
    }

    #[test]
    fn a_running_match_fills_the_view_on_both_sides() {
        let mut p = dots();
        p.run(120);
        for (v, side) in [(&p.va, 0), (&p.vb, 1)] {
            assert_eq!(v.state, Some("running"));
            assert_eq!(v.side, Some(side));
            assert_eq!(v.mode, Some("lockstep"));
            assert_eq!(v.delay, Some(2));
            assert!(v.tick.unwrap() > 100);
            assert!(v.first_tick_ms.is_some());
            assert!(!v.waiting);
        }
        // B runs its frame after A's datagrams: at most one tick apart.
        assert!(p.va.tick.unwrap().abs_diff(p.vb.tick.unwrap()) <= 1);
        assert!(p.va.status.starts_with(
            "You play Orange (host) · lock-step · input delay 2 ticks (33 ms) · ping "
        ));
        assert!(p.vb.status.starts_with("You play Teal (guest)"));
        let attrs = p.va.attributes();
        assert!(attrs.contains(&("data-mode", Some("lockstep".into()))));
        assert!(attrs.contains(&("data-waiting", Some("0".into()))));
    }

    #[test]
    fn a_long_round_trip_raises_the_delay_the_status_shows() {
        let host = host().adaptive_input_delay();
        let mut p = Pair::new(
            TestDotsFrontEnd::default(),
            TestDotsFrontEnd::default(),
            host,
        );
        p.b = MatchDriver::new(guest().adaptive_input_delay(), Millis(0)).unwrap();
        p.run(120);
        assert_eq!(p.va.delay, Some(2));
        // 80 ms each way: 160 ms round trips call for 6 ticks.
        p.latency = Millis(80);
        p.run(600);
        for v in [&p.va, &p.vb] {
            assert_eq!(v.delay, Some(6), "{}", v.status);
            assert!(
                v.status.contains("input delay 6 ticks (100 ms)"),
                "{}",
                v.status
            );
        }
    }

    #[test]
    fn a_silent_peer_shows_waiting_then_times_out() {
        let mut p = dots();
        p.run(30);
        // From now on nothing reaches A.
        let mut ended = None;
        for i in 0..2000 {
            p.now = p.now + Millis(16);
            let r = p.a.frame(p.now, &mut p.fa, &[], &mut p.va);
            while p.a.poll_transmit().is_some() {}
            if i == WAITING_AFTER_FRAMES + 2 {
                assert!(p.va.waiting, "waiting shows after a few stalled frames");
            }
            if let Some(e) = r.ended {
                ended = Some(e);
                break;
            }
        }
        let e = ended.expect("the silence timeout ends the match");
        assert_eq!(e.outcome, Outcome::Timeout);
        assert_eq!(e.message, "The other player stopped responding.");
        assert!(!p.va.waiting);
        assert_eq!(p.va.state, Some("ended"));
    }

    #[test]
    fn leaving_ends_both_sides_with_their_messages_and_a_log() {
        let mut p = dots();
        p.run(60);
        p.a.quit(p.now);
        p.carry();
        let (ea, eb) = p.until_both_end(10);
        assert_eq!(ea.outcome, Outcome::LocalQuit);
        assert_eq!(ea.message, "You left the online match.");
        assert_eq!(eb.outcome, Outcome::RemoteQuit);
        assert_eq!(eb.message, "The other player left the match.");
        let (la, lb) = (ea.log.unwrap(), eb.log.unwrap());
        assert!(la.file_name.starts_with("test dots-"));
        assert!(la.ticks >= 50 && la.ticks.abs_diff(lb.ticks) <= 1);
    }

    #[test]
    fn a_lost_link_ends_the_match() {
        let mut p = dots();
        p.run(10);
        p.b.link_lost(p.now);
        let (_, eb) = p.frame(&[]);
        let eb = eb.expect("ended");
        assert_eq!(eb.outcome, Outcome::TransportLost);
        assert_eq!(eb.message, "The connection to the other player was lost.");
    }

    #[test]
    fn garbage_from_the_peer_ends_the_match() {
        let mut p = dots();
        p.run(10);
        p.a.datagram(p.now, Channel::Reliable, &[0xff, 0xfe, 0xfd]);
        let (ea, _) = p.frame(&[]);
        let ea = ea.expect("ended");
        assert!(matches!(ea.outcome, Outcome::InvalidData { .. }));
        assert_eq!(
            ea.message,
            "The other player sent something unexpected, so the match was stopped."
        );
    }

    /// The test game under another build id, and the test game whose simulation differs
    /// (after tick 30, in a part of its own: "the skew").
    #[derive(Debug, Clone, PartialEq, Eq)]
    struct Other<const BUILD: u64, const SKEW: u8>(TestDots);
    impl<const BUILD: u64, const SKEW: u8> DeterministicGame for Other<BUILD, SKEW> {
        type Input = u8;
        const BUILD_ID: u64 = BUILD;
        fn new(seed: u64, players: u8) -> Self {
            Other(TestDots::new(seed, players))
        }
        fn step(&mut self, inputs: &[u8]) {
            self.0.step(inputs);
        }
        fn state_hash(&self) -> u64 {
            let mut h = Fnv1a::new();
            h.write_u64(self.0.state_hash());
            h.write_u8(self.skew());
            h.finish()
        }
        fn state_parts(&self) -> Vec<lockstep::parts::StatePart> {
            use lockstep::parts::StatePart;
            vec![
                StatePart::hashed("the dots", |h| h.write_u64(self.0.state_hash())),
                StatePart::hashed("the skew", |h| h.write_u8(self.skew())),
            ]
        }
    }
    impl<const BUILD: u64, const SKEW: u8> Other<BUILD, SKEW> {
        fn skew(&self) -> u8 {
            if self.0.tick > 30 {
                SKEW
            } else {
                0
            }
        }
    }
    #[derive(Default)]
    struct OtherFront<const BUILD: u64, const SKEW: u8>;
    impl<const BUILD: u64, const SKEW: u8> FrontEnd for OtherFront<BUILD, SKEW> {
        type Game = Other<BUILD, SKEW>;
        fn name(&self) -> &'static str {
            "other"
        }
        fn draw(&mut self, _: &Self::Game, _: &mut dyn Painter) {}
        fn input(&self, _: &[&str], _: u8) -> u8 {
            0
        }
        fn is_game_key(&self, _: &str) -> bool {
            false
        }
    }

    #[test]
    fn another_build_is_refused() {
        let mut p = Pair::new(OtherFront::<1, 0>, OtherFront::<2, 0>, host());
        let (ea, eb) = p.until_both_end(50);
        for e in [&ea, &eb] {
            assert!(
                matches!(e.outcome, Outcome::VersionMismatch { .. }),
                "{e:?}"
            );
            assert!(e
                .message
                .starts_with("The other player is running a different version"));
        }
    }

    #[test]
    fn games_that_go_out_of_sync_are_stopped() {
        let cfg = host().hash_interval(10);
        let mut p = Pair::new(OtherFront::<1, 0>, OtherFront::<1, 1>, cfg);
        let (ea, eb) = p.until_both_end(600);
        for e in [&ea, &eb] {
            assert!(matches!(e.outcome, Outcome::Desync { .. }), "{e:?}");
            // This front end words nothing: the plain sentence, though
            // the parts were named; the report is offered all the same.
            let Outcome::Desync { parts, .. } = &e.outcome else {
                unreachable!()
            };
            assert_eq!(parts.differing, ["the skew"]);
            assert_eq!(
                e.message,
                "The two games went out of sync, so the match was stopped."
            );
            assert!(e.report.is_some());
        }
    }

    /// A front end that words a desync (when, and what differs) and
    /// prints the parts for the report.
    #[derive(Default)]
    struct Wordy<const SKEW: u8>;
    impl<const SKEW: u8> FrontEnd for Wordy<SKEW> {
        type Game = Other<1, SKEW>;
        fn name(&self) -> &'static str {
            "Wordy"
        }
        fn draw(&mut self, _: &Self::Game, _: &mut dyn Painter) {}
        fn input(&self, _: &[&str], _: u8) -> u8 {
            0
        }
        fn is_game_key(&self, _: &str) -> bool {
            false
        }
        fn desync_message(&self, g: &Self::Game, differing: &[&str]) -> String {
            format!(
                "Out of sync at tick {}; what differs: {}.",
                g.0.tick,
                lockstep::parts::in_words(differing)
            )
        }
        fn describe_part(&self, g: &Self::Game, name: &str) -> Option<String> {
            (name == "the skew").then(|| format!("skew {}", g.skew()))
        }
    }

    #[test]
    fn a_desync_is_worded_by_the_front_end_and_offers_its_report() {
        let cfg = host().hash_interval(10);
        let mut p = Pair::new(Wordy::<0>, Wordy::<1>, cfg);
        let (ea, eb) = p.until_both_end(600);
        for (e, side, skew) in [(&ea, 0, 0), (&eb, 1, 1)] {
            let Outcome::Desync { tick, parts, .. } = &e.outcome else {
                panic!("not a desync: {e:?}");
            };
            assert_eq!(parts.differing, ["the skew"]);
            // The message is the front end's, from the game at the tick.
            assert_eq!(
                e.message,
                format!("Out of sync at tick {tick}; what differs: the skew.")
            );
            // The report: a file of its own, beside the input log.
            let offer = e.report.as_ref().expect("a desync report is offered");
            assert_eq!(
                offer.file_name,
                format!("wordy-desync-{:016x}-{tick}.report", 7)
            );
            assert_eq!(offer.ticks, *tick);
            assert!(e.log.is_some());
            let report = DesyncReport::<u8>::from_bytes(&offer.bytes).expect("the report reads");
            assert_eq!(report.tick(), *tick);
            assert_eq!(report.side, side);
            assert_eq!(report.differing(), ["the skew"]);
            let value = report.parts.iter().find(|p| p.name == "the skew");
            assert_eq!(
                value.and_then(|p| p.value.clone()),
                Some(format!("skew {skew}"))
            );
            assert_eq!(offer.hash, report.local_hash());
        }
        // Each side's report replays to its own hash with its own build,
        // and the other build parts ways with it after tick 30.
        let ra = DesyncReport::<u8>::from_bytes(&ea.report.unwrap().bytes).unwrap();
        assert_eq!(ra.replay::<Other<1, 0>>().first_diverging_tick, None);
        assert_eq!(ra.replay::<Other<1, 1>>().first_diverging_tick, Some(31));
    }

    #[test]
    fn no_report_after_any_other_ending() {
        let mut p = Pair::new(Wordy::<0>, Wordy::<0>, host());
        p.run(40);
        p.a.quit(p.now);
        p.carry();
        let (ea, eb) = p.until_both_end(10);
        assert!(ea.report.is_none() && eb.report.is_none());
        assert_eq!(ea.message, "You left the online match.");
    }

    /// The test game, over after 60 ticks, with a result line.
    struct Short(TestDotsFrontEnd);
    impl FrontEnd for Short {
        type Game = TestDots;
        fn name(&self) -> &'static str {
            "short"
        }
        fn draw(&mut self, g: &TestDots, p: &mut dyn Painter) {
            self.0.draw(g, p);
        }
        fn input(&self, held: &[&str], player: u8) -> u8 {
            self.0.input(held, player)
        }
        fn is_game_key(&self, code: &str) -> bool {
            self.0.is_game_key(code)
        }
        fn result(&self, g: &TestDots) -> Option<String> {
            (g.tick >= 60).then(|| "Orange wins.".to_owned())
        }
    }

    #[test]
    fn the_result_hold_draws_the_state_the_result_was_read_from() {
        let mut p = Pair::new(
            Short(TestDotsFrontEnd::default()),
            Short(TestDotsFrontEnd::default()),
            host(),
        );
        let mut seen = None;
        for _ in 0..200 {
            p.frame(&[]);
            if p.va.tick.is_some_and(|t| t >= 60) {
                seen = p.a.game().cloned();
                break;
            }
        }
        let seen = seen.expect("the game got to its end");
        assert!(seen.tick >= 60, "the drawn game is the finished one");
        // The session steps on during the hold; the picture does not.
        for _ in 0..30 {
            p.frame(&[]);
            assert_eq!(p.a.game(), Some(&seen));
            assert_eq!(p.a.final_game(), Some(&seen));
        }
        assert!(p.a.session().tick() > seen.tick);
    }

    #[test]
    fn a_finished_game_holds_its_result_then_leaves_with_it() {
        let mut p = Pair::new(
            Short(TestDotsFrontEnd::default()),
            Short(TestDotsFrontEnd::default()),
            host(),
        );
        // Play to the end of the game: the result is seen, the match goes on.
        let mut over_at = None;
        for _ in 0..200 {
            let (a, b) = p.frame(&[]);
            assert!(a.is_none() && b.is_none());
            if p.va.tick.is_some_and(|t| t >= 60) {
                over_at = Some(p.now);
                break;
            }
        }
        let over_at = over_at.expect("the game got to its end");
        let (ea, eb) = p.until_both_end(400);
        // Leaving afterwards is only the way back: both show the result.
        assert_eq!(ea.message, "Orange wins.");
        assert_eq!(eb.message, "Orange wins.");
        assert!(p.now.0 >= over_at.0 + RESULT_HOLD_MS - 16);
        assert!(matches!(
            (&ea.outcome, &eb.outcome),
            (
                Outcome::LocalQuit | Outcome::RemoteQuit,
                Outcome::LocalQuit | Outcome::RemoteQuit
            )
        ));
    }

    // ----- rejoin ----------------------------------------------------------

    use super::super::rejoin::{self, Next, REJOIN_WINDOW};
    use lockstep::RejoinRefusal;

    /// A host that holds a dropped guest's slot and issues tokens, and a
    /// guest that holds the host's.
    fn holding_pair() -> Pair<TestDotsFrontEnd, TestDotsFrontEnd> {
        let mut p = Pair::new(
            TestDotsFrontEnd::default(),
            TestDotsFrontEnd::default(),
            SessionConfig::host(7, 2)
                .rejoin_window(REJOIN_WINDOW)
                .rejoin_entropy(0x5eed_0123_4567_89ab_cdef_0011_2233_4455)
                .hash_interval(10),
        );
        p.b = MatchDriver::new(
            SessionConfig::guest().rejoin_window(REJOIN_WINDOW),
            Millis(0),
        )
        .unwrap();
        p
    }

    /// The guest's page is reloaded: its session is gone, the host's link
    /// to it closed. A fresh page with the old token takes its place over
    /// a new link (the host hears it on the slot's own link).
    fn reload_guest(p: &mut Pair<TestDotsFrontEnd, TestDotsFrontEnd>, token: u64) {
        p.b = MatchDriver::new(
            SessionConfig::guest()
                .rejoin(1, token)
                .rejoin_window(REJOIN_WINDOW),
            p.now,
        )
        .unwrap();
        p.fb = TestDotsFrontEnd::default();
        p.vb = MatchView::default();
        p.a.relink(p.now);
    }

    /// Only the host runs frames (the guest page is away) for `ms`.
    fn host_alone(p: &mut Pair<TestDotsFrontEnd, TestDotsFrontEnd>, ms: u64) {
        let until = p.now.0 + ms;
        while p.now.0 < until {
            p.now = p.now + Millis(16);
            let r = p.a.frame(p.now, &mut p.fa, &["ArrowRight"], &mut p.va);
            assert!(r.ended.is_none(), "the host ended while the slot was held");
            while p.a.poll_transmit().is_some() {}
        }
    }

    #[test]
    fn a_reloaded_guest_comes_back_into_its_slot_and_the_match_ends_in_sync() {
        let mut p = holding_pair();
        p.run(120);
        let token = p.b.rejoin_token().expect("the host issued a token");
        let before = p.va.tick.unwrap();
        // The reload: the old guest session is gone, its link closed.
        p.a.link_lost(p.now);
        host_alone(&mut p, 16);
        assert_eq!(p.va.held, Some((1, 20)), "the host counts the window down");
        host_alone(&mut p, 3_000);
        assert_eq!(p.va.held, Some((1, 17)));
        assert!(p.va.waiting, "lock-step stalls on the missing inputs");
        let stalled_at = p.va.tick.unwrap();
        assert!(stalled_at <= before + 3, "no tick runs without the guest");
        reload_guest(&mut p, token);
        // Back in the match: caught up to the host's tick, and playing.
        let mut back = None;
        for _ in 0..60 {
            p.frame(&["ArrowRight"]);
            if let Some(t) = p.vb.rejoined {
                back = Some(t);
                break;
            }
        }
        let back = back.expect("the fresh session rejoined");
        assert!(back >= stalled_at - 3, "caught up to where the host was");
        assert_eq!(p.vb.side, Some(1));
        p.run(120);
        assert_eq!(p.va.held, None, "the countdown is gone once resumed");
        assert!(p.va.tick.unwrap() > stalled_at + 100, "the match plays on");
        // Both sides at one tick have one hash (the hash exchange every 10
        // ticks would have stopped the match otherwise), and a leave ends
        // both with one log.
        p.a.quit(p.now);
        p.carry();
        let (ea, eb) = p.until_both_end(10);
        assert_eq!(ea.outcome, Outcome::LocalQuit);
        assert_eq!(eb.outcome, Outcome::RemoteQuit);
        let (la, lb) = (ea.log.unwrap(), eb.log.unwrap());
        assert!(la.ticks.abs_diff(lb.ticks) <= 1);
        let (ga, gb) = (p.a.final_game().unwrap(), p.b.final_game().unwrap());
        if ga.tick == gb.tick {
            assert_eq!(ga.state_hash(), gb.state_hash());
        }
    }

    #[test]
    fn a_rejoin_before_the_host_noticed_the_old_link_gone_takes_the_slot_at_once() {
        let mut p = holding_pair();
        p.run(60);
        let token = p.b.rejoin_token().unwrap();
        // The fresh page's link comes up before the old one was reported
        // closed: it replaces the old one on the host, whose session takes
        // the Rejoin on the slot's own link (the old session there is gone).
        reload_guest(&mut p, token);
        for _ in 0..60 {
            p.frame(&[]);
        }
        assert!(p.vb.rejoined.is_some(), "back in the match");
        assert_eq!(p.va.held, None);
        p.run(60);
    }

    #[test]
    fn a_forged_token_is_refused_and_the_slot_stays_held() {
        let mut p = holding_pair();
        p.run(60);
        let token = p.b.rejoin_token().unwrap();
        p.a.link_lost(p.now);
        host_alone(&mut p, 500);
        reload_guest(&mut p, token ^ 1);
        let mut ended = None;
        for _ in 0..30 {
            p.now = p.now + Millis(16);
            p.a.frame(p.now, &mut p.fa, &[], &mut p.va);
            p.carry();
            if let Some(e) = p.b.frame(p.now, &mut p.fb, &[], &mut p.vb).ended {
                ended = Some(e);
                break;
            }
            p.carry();
        }
        let e = ended.expect("refused");
        assert_eq!(
            e.outcome,
            Outcome::RejoinRefused {
                why: RejoinRefusal::WrongToken
            }
        );
        assert_eq!(
            e.message,
            "The host did not recognise this page's place in the match."
        );
        assert_eq!(
            rejoin::after_refusal(RejoinRefusal::WrongToken, p.now, p.now),
            Next::GiveUp(rejoin::refusal_message(RejoinRefusal::WrongToken))
        );
        assert!(
            p.va.held.is_some(),
            "the slot is still held for the real one"
        );
    }

    #[test]
    fn a_host_that_is_gone_is_waited_for_then_the_match_ends() {
        let mut p = holding_pair();
        p.run(60);
        // The host's page closed: the guest's link is lost, and nothing
        // comes back.
        p.b.link_lost(p.now);
        let mut ended = None;
        let mut held_seen = None;
        for _ in 0..3000 {
            p.now = p.now + Millis(16);
            let r = p.b.frame(p.now, &mut p.fb, &[], &mut p.vb);
            while p.b.poll_transmit().is_some() {}
            held_seen = held_seen.or(p.vb.held);
            if let Some(e) = r.ended {
                ended = Some(e);
                break;
            }
        }
        assert_eq!(held_seen, Some((0, 20)), "the host's slot was held");
        let e = ended.expect("the window ran out");
        assert_eq!(e.outcome, Outcome::PlayerLeft { slot: 0 });
        assert_eq!(e.message, "The other player left and did not come back.");
        assert_eq!(p.vb.held, None, "no countdown under the result");
    }
}
