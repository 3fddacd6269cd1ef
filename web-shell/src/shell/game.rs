//! The plugged-in game with its type erased, so the rest of the shell is
//! not generic: local play, the online match, drawing, the last match's
//! input log.
//!
//! [`GameSlot`] is the shell's whole view of a game. A lock-step game
//! implements [`FrontEnd`] and gets its slot from the shell (a private
//! `Slot` that runs the `lockstep` session through the match driver). A
//! game on another sync model (the host-authoritative `authority` crate,
//! a hidden-state game) implements `GameSlot` itself, with its own match
//! driver behind `start_match` .. `drop_match`, and hands it to
//! [`Shell::with_game`](super::Shell::with_game): the lobby, challenges,
//! room link and match link are the same; only what runs over the link
//! differs.

use super::driver::{FrameReport, MatchDriver};
use super::view::{LocalView, LogOffer, MatchView, ReplayView};
use crate::front_end::{FrontEnd, LocalOption, Painter};
use crate::replay::{clock_text, Control, Playback, Refusal};
use lockstep::{Channel, DeterministicGame, InputLog, Millis, SessionConfig};

/// What the shell asks of the game, whatever its type or sync model.
///
/// The shell calls these from one place at a time. Online, the order is:
/// `start_match` once the match link is open; then, for the match's
/// life, `match_datagram`, `match_backlog` and `match_link_lost` as the
/// link reports them and `match_frame` once per 60 Hz frame, each followed by draining
/// `poll_match_transmit` onto the link; `quit_match` when the person
/// leaves (the end is reported by a later `match_frame`); `drop_match`
/// after the end was reported (or when the shell abandons the match).
pub trait GameSlot {
    /// The game's name (title screen, tab title, file names).
    fn name(&self) -> &'static str;
    /// Peers must show the same build id to play each other.
    fn build_id(&self) -> u64;
    /// What the title page says about the game: what it is, its controls,
    /// how to play. The default says nothing beyond the name.
    fn about(&self) -> crate::front_end::About {
        crate::front_end::About {
            tagline: "",
            controls: &[],
            how_to_play: &[],
        }
    }
    /// The choices offered for local play.
    fn local_options(&self) -> &'static [LocalOption];
    /// The names of the games behind this slot, when it carries several
    /// (a hub): the title's first local option picks among them, in this
    /// order, and challenges name the one picked. Empty (the default) for
    /// a slot of one game.
    fn games(&self) -> &'static [&'static str] {
        &[]
    }
    /// The next match this side hosts opens on game `game` of
    /// [`games`](Self::games) (the one its challenge named). Nothing by
    /// default.
    fn open_on(&mut self, _game: usize) {}
    /// The title's chooser shows game `game` of [`games`](Self::games)
    /// (picked, or remembered from the last visit): a slot of several
    /// games tells about that one from now on ([`about`](Self::about),
    /// the pad's buttons). Nothing by default.
    fn pick(&mut self, _game: usize) {}
    /// Whether local option `option` (of [`local_options`](Self::local_options))
    /// applies with game `game` of [`games`](Self::games) picked: the title
    /// shows only those. Every option by default.
    fn local_option_shown(&self, _game: usize, _option: usize) -> bool {
        true
    }
    /// Whether the page keeps this key from the browser during play.
    fn is_game_key(&self, code: &str) -> bool;
    /// Starts local play (unless it runs already).
    fn start_local(&mut self, seed: u64, choices: &[usize]);
    /// Ends local play.
    fn stop_local(&mut self);
    /// Runs `steps` ticks of local play (fewer once the game is over).
    fn local_frame(&mut self, held: &[&str], steps: u32) -> LocalView;
    /// The key a pad's `button` stands for, for `person`
    /// ([`FrontEnd::pad_key`]); none by default.
    fn pad_key(&self, _person: u8, _button: crate::pad::Button) -> Option<&'static str> {
        None
    }
    /// The touch overlay's buttons ([`FrontEnd::touch_buttons`]); none by
    /// default.
    fn touch_buttons(&self) -> &'static [(crate::pad::Button, &'static str)] {
        &[]
    }
    /// The title page's lines about a pad's buttons
    /// ([`FrontEnd::pad_controls`]); none by default.
    fn pad_controls(&self) -> &'static [(&'static str, &'static str)] {
        &[]
    }
    /// How many pads are connected ([`FrontEnd::pads_connected`]).
    fn pads_connected(&mut self, _count: usize) {}
    /// Starts an online match over the match link of attempt `tag`;
    /// `false` if the session refused `cfg`.
    fn start_match(&mut self, cfg: SessionConfig, now: Millis, tag: u32) -> bool;
    /// The attempt whose link the running match plays over.
    fn match_tag(&self) -> Option<u32>;
    /// What the game allows in a party ([`FrontEnd::party`]); by default a
    /// game for two, without parties.
    fn party(&self) -> crate::party::PartyRules {
        crate::party::PartyRules::PAIR
    }
    /// The seed of a party's match ([`FrontEnd::party_seed`]); `None` by
    /// default (no parties).
    fn party_seed(&self, _seed: u64, _sides: &[u8], _length: usize) -> Option<u64> {
        None
    }
    /// Whether this page can watch a match of this game: its slot runs a
    /// spectator's session ([`start_party`](Self::start_party) with
    /// `SessionConfig::spectator()`). The lobby offers Watch only then.
    /// `false` by default.
    fn takes_spectators(&self) -> bool {
        false
    }
    /// Whether the match running now can be watched: a lobby player who
    /// asks is given the way in only then, and else told it cannot be.
    /// `false` by default.
    fn match_watchable(&self) -> bool {
        false
    }
    /// The game of [`games`](Self::games) the running match plays now,
    /// for a slot that switches games within one match (a hub): its
    /// spectators are told that game, and are let go when it changes.
    /// `None` (the default): the game the match was made for.
    fn match_game(&self) -> Option<usize> {
        None
    }
    /// The games behind this slot with their party rules, in the order of
    /// [`games`](Self::games) (a hub lists each of its games): the lobby
    /// offers parties for those that take them. By default this slot's
    /// own game.
    fn party_games(&self) -> Vec<crate::party::PartyGame> {
        vec![crate::party::PartyGame {
            name: self.name(),
            rules: self.party(),
        }]
    }
    /// Starts a party's match over the links of party attempt `tag`, one
    /// per other person, named as the caller likes (a host lists them in
    /// place order: see [`MatchDriver::with_links`]); `false` if the
    /// session refused `cfg`, or the game plays no parties (the default).
    fn start_party(
        &mut self,
        _cfg: SessionConfig,
        _now: Millis,
        _tag: u32,
        _links: &[lockstep::PeerId],
    ) -> bool {
        false
    }
    /// A datagram from the party link `link`.
    fn party_datagram(
        &mut self,
        _now: Millis,
        _link: lockstep::PeerId,
        _channel: Channel,
        _bytes: &[u8],
    ) {
    }
    /// The party link `link` closed or failed.
    fn party_link_lost(&mut self, _now: Millis, _link: lockstep::PeerId) {}
    /// The bytes the party link `link` holds, queued to send (as
    /// [`match_backlog`](Self::match_backlog) for the match link). Nothing
    /// by default.
    fn party_backlog(&mut self, _now: Millis, _link: lockstep::PeerId, _bytes: usize) {}
    /// The next datagram for the party link `link`.
    fn poll_party_transmit(&mut self, _link: lockstep::PeerId) -> Option<(Channel, Vec<u8>)> {
        None
    }
    /// Whether this game's matches can take a player back after a lost
    /// link or a reload (its session holds a dropped player's slot, and
    /// [`match_identity`](Self::match_identity) and
    /// [`match_relink`](Self::match_relink) work). `false` by default: a
    /// lost link then ends the match at once.
    fn rejoins(&self) -> bool {
        false
    }
    /// Whether this game's matches of two can also take their host back
    /// after a reload (its session built with
    /// `SessionConfig::back_as_host` through
    /// [`start_match`](Self::start_match)). `false` by default: a host
    /// whose page reloads has left.
    fn host_rejoins(&self) -> bool {
        false
    }
    /// What a rejoin needs to know of the running match, once it started:
    /// see [`MatchIdentity`]. `None` (the default) for a game that cannot
    /// bring a player back.
    fn match_identity(&self) -> Option<MatchIdentity> {
        None
    }
    /// The host's running match goes on over the link of attempt `tag`,
    /// which replaced the lost one (a guest coming back); `false` (the
    /// default) if the game cannot.
    fn match_relink(&mut self, _now: Millis, _tag: u32) -> bool {
        false
    }
    /// A datagram from the match link.
    fn match_datagram(&mut self, now: Millis, channel: Channel, bytes: &[u8]);
    /// The match link closed or failed.
    fn match_link_lost(&mut self, now: Millis);
    /// The bytes the match link holds, queued to send (WebRTC's
    /// `bufferedAmount`), reported when they change. A host that skips
    /// snapshots for a congested guest listens; others need not.
    fn match_backlog(&mut self, _now: Millis, _bytes: usize) {}
    /// One match frame. When it reports the end, drain the last transmits
    /// (a Bye), then drop the match.
    fn match_frame(&mut self, now: Millis, held: &[&str], view: &mut MatchView) -> FrameReport;
    /// The next datagram for the match link.
    fn poll_match_transmit(&mut self) -> Option<(Channel, Vec<u8>)>;
    /// The person leaves the match.
    fn quit_match(&mut self, now: Millis);
    /// Forgets the match (its end was reported, or the shell gave it up).
    fn drop_match(&mut self);
    /// Whether the last online match's final state is kept to be shown
    /// under its result. The default keeps none.
    fn has_result(&self) -> bool {
        false
    }
    /// Forgets the last online match's final state.
    fn forget_result(&mut self) {}
    /// Starts the local game again, with the choices it was started with.
    /// The default suits a game that offers no local choices.
    fn restart_local(&mut self, seed: u64) {
        self.start_local(seed, &[]);
    }
    /// Draws the local game, or else the match's present game, or else the
    /// last match's final state (as its result).
    fn paint(&mut self, painter: &mut dyn Painter);
    /// The state hash after `tick` ticks of the last finished match,
    /// replayed from its input log.
    ///
    /// The replay methods' defaults suit a game that keeps no input log
    /// (a host-authoritative one): nothing replays, no file opens.
    fn log_hash_at(&self, log: &LogOffer, tick: u32) -> Option<u64> {
        let _ = (log, tick);
        None
    }
    /// The input log of the local game so far.
    fn local_log(&self) -> Option<LogOffer> {
        None
    }
    /// Opens a recording to watch (replacing any other).
    ///
    /// # Errors
    ///
    /// Why the file cannot be watched.
    fn open_replay(&mut self, bytes: &[u8]) -> Result<(), Refusal> {
        let _ = bytes;
        Err(Refusal::NotALog)
    }
    /// Stops watching.
    fn close_replay(&mut self) {}
    /// A replay control was used.
    fn replay_control(&mut self, c: Control) {
        let _ = c;
    }
    /// One frame of the replay; `true` when the state shown changed.
    fn replay_frame(&mut self) -> bool {
        false
    }
    /// What the replay screen shows, while watching.
    fn replay_view(&self) -> Option<ReplayView> {
        None
    }
    /// Whether the page runs this game's online matches in a dedicated
    /// worker (see [`super::worker`]): `true` by default. A slot that
    /// needs the page's own objects during a match (its own worker, the
    /// page's random numbers) says `false` and runs on the page.
    fn match_in_worker(&self) -> bool {
        true
    }
}

/// What a rejoin needs to know of a running match.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MatchIdentity {
    /// This side's slot (0: the host).
    pub side: u8,
    /// The match's id: its seed.
    pub match_id: u64,
    /// A guest's token for its slot, when the host issued one.
    pub token: Option<u64>,
}

pub(crate) struct Slot<F: FrontEnd> {
    front: F,
    local: Option<F::Game>,
    /// Every tick's inputs of the local game, for its replay.
    local_log: Option<InputLog<<F::Game as DeterministicGame>::Input>>,
    /// The running match, with the attempt whose link it plays over.
    online: Option<(u32, MatchDriver<F::Game>)>,
    replay: Option<Playback<F::Game>>,
    /// The last match's confirmed game when it ended, for its result.
    finished: Option<F::Game>,
    /// The choices local play was last started with.
    choices: Vec<usize>,
}

impl<F: FrontEnd> Slot<F> {
    pub(crate) fn new(front: F) -> Self {
        Slot {
            front,
            local: None,
            local_log: None,
            online: None,
            replay: None,
            finished: None,
            choices: Vec::new(),
        }
    }
}

/// The slot the shell makes for a lock-step game: `front` run through the
/// shell's match driver. A page that carries several games behind a hub of
/// its own builds each lock-step game's slot with this.
#[must_use]
pub fn lockstep_slot<F: FrontEnd + 'static>(front: F) -> Box<dyn GameSlot> {
    Box::new(Slot::new(front))
}

impl<F: FrontEnd> GameSlot for Slot<F> {
    fn name(&self) -> &'static str {
        self.front.name()
    }
    fn build_id(&self) -> u64 {
        self.front.build_id()
    }
    fn about(&self) -> crate::front_end::About {
        self.front.about()
    }
    fn local_options(&self) -> &'static [LocalOption] {
        self.front.local_options()
    }
    fn is_game_key(&self, code: &str) -> bool {
        self.front.is_game_key(code)
    }
    fn pad_key(&self, person: u8, button: crate::pad::Button) -> Option<&'static str> {
        self.front.pad_key(person, button)
    }
    fn pad_controls(&self) -> &'static [(&'static str, &'static str)] {
        self.front.pad_controls()
    }
    fn touch_buttons(&self) -> &'static [(crate::pad::Button, &'static str)] {
        self.front.touch_buttons()
    }
    fn pads_connected(&mut self, count: usize) {
        self.front.pads_connected(count);
    }
    fn start_local(&mut self, seed: u64, choices: &[usize]) {
        if self.local.is_none() {
            self.choices = choices.to_vec();
            self.front.start_local(choices);
            let players = self.front.local_players();
            let game = F::Game::new(seed, players);
            self.local_log = Some(InputLog {
                build: self.front.build_id(),
                seed,
                players,
                input_delay: 0,
                final_hash: game.state_hash(),
                start_tick: 0,
                start_state: Vec::new(),
                inputs: Vec::new(),
            });
            self.local = Some(game);
        }
    }
    fn stop_local(&mut self) {
        self.local = None;
        self.local_log = None;
    }
    fn local_frame(&mut self, held: &[&str], steps: u32) -> LocalView {
        let Some(game) = self.local.as_mut() else {
            return LocalView::default();
        };
        let mut result = self.front.result(game);
        for _ in 0..steps {
            if result.is_some() {
                break;
            }
            let inputs = self.front.local_inputs(game, held);
            game.step(&inputs);
            if let Some(log) = self.local_log.as_mut() {
                log.inputs.extend_from_slice(&inputs);
                log.final_hash = game.state_hash();
            }
            result = self.front.result(game);
        }
        LocalView {
            summary: self.front.summary(game),
            result,
            paused: false,
        }
    }
    fn start_match(&mut self, cfg: SessionConfig, now: Millis, tag: u32) -> bool {
        match MatchDriver::new(cfg, now) {
            Ok(m) => {
                self.online = Some((tag, m));
                true
            }
            Err(e) => {
                log::error!("session config refused: {e:?}");
                false
            }
        }
    }
    fn match_tag(&self) -> Option<u32> {
        self.online.as_ref().map(|(tag, _)| *tag)
    }
    fn party(&self) -> crate::party::PartyRules {
        self.front.party()
    }
    fn takes_spectators(&self) -> bool {
        true
    }
    fn match_watchable(&self) -> bool {
        self.online.is_some()
    }
    fn party_seed(&self, seed: u64, sides: &[u8], length: usize) -> Option<u64> {
        self.front.party_seed(seed, sides, length)
    }
    fn start_party(
        &mut self,
        cfg: SessionConfig,
        now: Millis,
        tag: u32,
        links: &[lockstep::PeerId],
    ) -> bool {
        match MatchDriver::with_links(cfg, now, links) {
            Ok(m) => {
                self.online = Some((tag, m));
                true
            }
            Err(e) => {
                log::error!("party session config refused: {e:?}");
                false
            }
        }
    }
    fn party_datagram(
        &mut self,
        now: Millis,
        link: lockstep::PeerId,
        channel: Channel,
        bytes: &[u8],
    ) {
        if let Some((_, m)) = self.online.as_mut() {
            m.datagram_on(now, link, channel, bytes);
        }
    }
    fn party_link_lost(&mut self, now: Millis, link: lockstep::PeerId) {
        if let Some((_, m)) = self.online.as_mut() {
            m.link_lost_on(now, link);
        }
    }
    fn party_backlog(&mut self, _now: Millis, link: lockstep::PeerId, bytes: usize) {
        if let Some((_, m)) = self.online.as_mut() {
            m.backlog_on(link, bytes);
        }
    }
    fn poll_party_transmit(&mut self, link: lockstep::PeerId) -> Option<(Channel, Vec<u8>)> {
        self.online.as_mut()?.1.poll_transmit_on(link)
    }
    fn rejoins(&self) -> bool {
        true
    }
    fn host_rejoins(&self) -> bool {
        true
    }
    fn match_identity(&self) -> Option<MatchIdentity> {
        let s = self.online.as_ref()?.1.session();
        Some(MatchIdentity {
            side: s.side()?,
            match_id: s.parameters()?.0,
            token: s.rejoin_token(),
        })
    }
    fn match_relink(&mut self, now: Millis, tag: u32) -> bool {
        let Some((t, m)) = self.online.as_mut() else {
            return false;
        };
        *t = tag;
        m.relink(now);
        true
    }
    fn match_datagram(&mut self, now: Millis, channel: Channel, bytes: &[u8]) {
        if let Some((_, m)) = self.online.as_mut() {
            m.datagram(now, channel, bytes);
        }
    }
    fn match_link_lost(&mut self, now: Millis) {
        if let Some((_, m)) = self.online.as_mut() {
            m.link_lost(now);
        }
    }
    fn match_frame(&mut self, now: Millis, held: &[&str], view: &mut MatchView) -> FrameReport {
        let Some((_, m)) = self.online.as_mut() else {
            return FrameReport::default();
        };
        m.frame(now, &mut self.front, held, view)
    }
    fn poll_match_transmit(&mut self) -> Option<(Channel, Vec<u8>)> {
        self.online.as_mut()?.1.poll_transmit()
    }
    fn quit_match(&mut self, now: Millis) {
        if let Some((_, m)) = self.online.as_mut() {
            m.quit(now);
        }
    }
    fn drop_match(&mut self) {
        if let Some((_, m)) = self.online.take() {
            self.finished = m.final_game().cloned();
        }
    }
    fn has_result(&self) -> bool {
        self.finished.is_some()
    }
    fn forget_result(&mut self) {
        self.finished = None;
    }
    fn restart_local(&mut self, seed: u64) {
        let choices = std::mem::take(&mut self.choices);
        self.stop_local();
        self.start_local(seed, &choices);
    }
    fn paint(&mut self, painter: &mut dyn Painter) {
        if let Some(r) = &self.replay {
            self.front.draw(r.game(), painter);
        } else if let Some(g) = &self.local {
            self.front.draw(g, painter);
        } else if let Some(g) = self.online.as_ref().and_then(|(_, m)| m.game()) {
            self.front.draw(g, painter);
        } else if let Some(g) = &self.finished {
            self.front.draw_result(g, painter);
        }
    }
    fn log_hash_at(&self, last: &LogOffer, tick: u32) -> Option<u64> {
        let log =
            InputLog::<<F::Game as DeterministicGame>::Input>::from_bytes(&last.bytes).ok()?;
        log.game_at::<F::Game>(tick).ok().map(|g| g.state_hash())
    }
    fn local_log(&self) -> Option<LogOffer> {
        let log = self.local_log.as_ref()?;
        match log.to_bytes() {
            Ok(bytes) => Some(LogOffer {
                bytes,
                file_name: format!(
                    "{}-local-{:016x}.log",
                    self.front.name().to_lowercase(),
                    log.seed
                ),
                start: log.start_tick,
                ticks: log.ticks(),
                hash: log.final_hash,
            }),
            Err(e) => {
                log::warn!("could not encode the local game's input log: {e}");
                None
            }
        }
    }
    fn open_replay(&mut self, bytes: &[u8]) -> Result<(), Refusal> {
        let front = &self.front;
        let p = Playback::open(bytes, front.build_id(), |g| front.score(g))?;
        self.front.start_replay();
        self.replay = Some(p);
        Ok(())
    }
    fn close_replay(&mut self) {
        self.replay = None;
    }
    fn replay_control(&mut self, c: Control) {
        if let Some(r) = self.replay.as_mut() {
            r.control(c);
        }
    }
    fn replay_frame(&mut self) -> bool {
        self.replay.as_mut().is_some_and(Playback::frame)
    }
    fn replay_view(&self) -> Option<ReplayView> {
        let r = self.replay.as_ref()?;
        Some(ReplayView {
            ticks: r.ticks(),
            tick: r.tick(),
            hash: r.game().state_hash(),
            summary: self.front.summary(r.game()),
            playing: r.playing(),
            speed: r.speed(),
            marks: r
                .marks()
                .iter()
                .map(|m| (m.tick, format!("{} · {}", clock_text(m.tick), m.score)))
                .collect(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::front_end::Painter;
    use crate::testing::{TestDots, TestDotsFrontEnd};

    /// The test game's front end, counting the replays it was told about.
    #[derive(Default)]
    struct Counting {
        inner: TestDotsFrontEnd,
        replays: u32,
    }

    impl FrontEnd for Counting {
        type Game = TestDots;
        fn name(&self) -> &'static str {
            self.inner.name()
        }
        fn draw(&mut self, game: &TestDots, painter: &mut dyn Painter) {
            self.inner.draw(game, painter);
        }
        fn input(&self, held: &[&str], player: u8) -> u8 {
            self.inner.input(held, player)
        }
        fn is_game_key(&self, code: &str) -> bool {
            self.inner.is_game_key(code)
        }
        fn start_replay(&mut self) {
            self.replays += 1;
        }
    }

    #[test]
    fn opening_a_replay_tells_the_front_end_and_a_refused_file_does_not() {
        let mut game = TestDots::new(9, 2);
        let mut inputs = Vec::new();
        for t in 0..30u8 {
            let i = [t % 4, (t / 2) % 4];
            game.step(&i);
            inputs.extend(i);
        }
        let log = InputLog {
            build: TestDots::BUILD_ID,
            seed: 9,
            players: 2,
            input_delay: 1,
            final_hash: game.state_hash(),
            start_tick: 0,
            start_state: Vec::new(),
            inputs,
        };
        let mut slot = Slot::new(Counting::default());
        assert!(slot.open_replay(b"not a log").is_err());
        assert_eq!(slot.front.replays, 0);
        slot.open_replay(&log.to_bytes().expect("encodes"))
            .expect("this build's log opens");
        assert_eq!(slot.front.replays, 1);
        assert!(slot.replay_view().is_some());
    }
}
