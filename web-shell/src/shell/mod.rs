//! The shell's sans-IO core: everything the page decides, with no browser
//! in sight.
//!
//! [`Shell`] owns the screens, the lobby client (presence, roster, mesh,
//! chat, the challenge reducer), the ICE server list, the room link of a
//! match being set up ([`room`]) and the match driver of a match being
//! played ([`driver`]), behind the plugged-in game. It takes one [`Input`]
//! at a time (a button, a key, a timer, a socket or peer connection event,
//! a fetch result) and yields [`Output`]s (open or write a socket, fetch,
//! create a peer connection and make an offer, send a datagram, store a
//! setting, redraw part of the page). The browser glue (`web`, wasm32
//! only) carries out the outputs and feeds back what happens; the native
//! tests play two shells against each other instead.
//!
//! Which fact lives where: whether this page is in a match is the
//! challenge reducer's (our lobby status), and the shell asks it
//! (`Shell::in_match`): the match driver (with the attempt whose link it
//! plays over) exists and the match screen shows exactly while it says so
//! (asserted after every input); the
//! room being set up is the [`room::RoomLink`]'s, and the side this page
//! plays is the session's (reported once, when the match starts).

mod config;
pub mod driver;
pub mod game;
mod io;
pub mod links;
pub mod logs;
pub mod members;
pub mod page;
mod party;
mod party_ui;
pub mod rejoin;
pub mod relink;
pub mod restart;
pub mod room;
#[cfg(test)]
mod test_room;
pub mod view;
pub mod worker;

pub use config::{PageFacts, ShellConfig, GAME_KEY, NAME_KEY, NETCODE_KEY, STORED_KEYS};
use io::Part;
pub use io::{
    Action, Cue, FetchId, FileLink, Input, LinkId, Output, PlayerAction, Random, RtcEvent, SdpStep,
    SocketId,
};

use crate::canvas::{self, DrawList, Drawing};
use crate::front_end::{FrontEnd, LocalOption, Painter};
use crate::id::{PeerId, RoomCode};
use crate::invite::{InviteCode, InviteLink};
use crate::lobby::{self, LobbyClient};
use crate::options::FALLBACK_STUN_URL;
use crate::play::FrameClock;
use crate::protocol::{Signal, SignalKind};
use crate::screens::{Screen, ScreenEvent, Screens};
use crate::text::{self, ChatError};
use game::Slot;
pub use game::{lockstep_slot, GameSlot};
use lockstep::{Channel, Millis, SessionConfig};
use room::{Candidate, Failure, Path, Role, RoomLink, RoomOutput};
use std::collections::VecDeque;
use view::{LobbyView, LocalView, LogOffer, MatchView, NoticeView, ReplayView, ScreenView};

/// How often the lobby page fetches every lobby's fill again.
pub const LOBBIES_REFRESH: Millis = Millis(60_000);

/// How long a `GET /lobbies` may take before the page gives it up.
pub const LOBBIES_FETCH_TIMEOUT: Millis = Millis(5_000);

/// How long a `GET /ice` may take before the page falls back.
pub const ICE_FETCH_TIMEOUT: Millis = Millis(5_000);

/// How long `POST /rooms` may take before the challenge fails (its phase
/// has no timer of its own until the room exists).
pub const ROOM_FETCH_TIMEOUT: Millis = Millis(10_000);

/// The key that pauses local play and goes on again
/// (`KeyboardEvent.code`).
pub const PAUSE_KEY: &str = "Escape";

/// How often the page feeds [`Input::Tick`], in ms: the lobby's and the
/// connections' timers are checked this often.
pub const TICK_EVERY_MS: u16 = 100;

/// How long an ended match's link stays open before it closes: long
/// enough for the last datagrams (a leaving player's Bye) to cross before
/// the connection goes, which would otherwise drop what it had not sent.
const MATCH_CLOSE_GRACE: Millis = Millis(500);

/// How often the page's frame timer fires, in ms: several times per 60 Hz
/// frame, so that a frame starts at most this late; the shell keeps the
/// schedule itself ([`Shell::frame_due`]).
pub const FRAME_TIMER_MS: u16 = 4;

/// The most detailed log records the page writes to the browser's console.
pub const LOG_LEVEL: log::LevelFilter = log::LevelFilter::Info;

/// Notices kept on screen.
const NOTICES_SHOWN: usize = 5;

/// Match frames whose time is kept for the frame-time figures.
const FRAME_TIMES_KEPT: usize = 100_000;

/// What to do once a `GET /ice` under way has answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AfterIce {
    Nothing,
    ConnectPresence,
    /// Open the guest's room socket of this match attempt.
    OpenRoom(u32),
}

/// The ICE servers: the last good list from `/ice`, and the fetch under way.
#[derive(Debug, Default)]
struct Ice {
    servers: Option<String>,
    fetching: Option<AfterIce>,
}

/// Time per match frame, for the frame-time figures.
#[derive(Debug, Default)]
struct FrameTimes {
    ms: Vec<f64>,
    /// A match frame ran since the last figure.
    pending: bool,
}

/// The shell. See the module documentation.
///
/// Calling contract: after [`new`](Self::new) and after every
/// [`handle`](Self::handle), drain [`poll_output`](Self::poll_output) and
/// carry out each [`Output`] in order (an output may lead to an input,
/// such as a socket that cannot be opened: feed it, then drain again).
/// Feed [`Input::Tick`] at least every 100 ms and [`Input::Frame`] often
/// (every few ms); the shell keeps its own 60 Hz schedule. Time is passed
/// in with every input, never read.
pub struct Shell {
    cfg: ShellConfig,
    /// The game picked on the title, by its index in the slot's games
    /// (a page that carries several).
    chosen: usize,
    /// The element ids of the local options (see [`page::options_shown`]).
    option_ids: Vec<&'static str>,
    screens: Screens,
    game: Box<dyn GameSlot>,
    random: Random,
    client: Option<LobbyClient>,
    name_error: String,
    chat_error: &'static str,
    presence: Option<SocketId>,
    presence_gen: u32,
    ice: Ice,
    /// The fetches under way, each with the time it is given up at.
    fetches: Vec<(FetchId, Millis)>,
    /// Every lobby's fill, from the last good `GET /lobbies`.
    lobbies: Option<signaling_protocol::LobbyDirectory>,
    /// When to fetch `/lobbies` again; `None`: as soon as we are online
    /// (after each new presence connection's welcome).
    lobbies_due: Option<Millis>,
    /// The match attempt being set up, with its number.
    room: Option<(u32, RoomLink)>,
    /// A player coming back into the running match ([`rejoin`]).
    comeback: rejoin::Comeback,
    room_gen: u32,
    /// The party being set up or played (its number is a match attempt's).
    party: Option<party::PartySetup>,
    /// The lobby's party controls.
    party_ui: party_ui::PartyUi,
    /// Who asked to watch the running match of two, and its way in.
    pair_watch: party::PairWatch,
    held: Vec<String>,
    /// The gamepads connected and whom each plays for.
    pads: crate::pad::Pads,
    /// A pad's Start button was held at the last reading (it pauses local
    /// play as Escape does, once per press).
    pad_start_held: bool,
    /// The fingers on the touch overlay (a virtual pad for person 0).
    touch: crate::touch::Overlay,
    frames: FrameClock,
    frame_times: FrameTimes,
    local: LocalView,
    match_view: MatchView,
    notices: VecDeque<lobby::LobbyNotice>,
    /// Who we last challenged or accepted (for Try again).
    last_opponent: Option<PeerId>,
    /// When this page pressed Accept, until the match's first tick.
    accepted_at: Option<Millis>,
    /// When the ended match's link closes: a little after the end, so
    /// that what the session sent last (a player's Bye, say) leaves
    /// before the connection goes.
    close_match_at: Option<Millis>,
    last_log: Option<LogOffer>,
    /// Why the last file opened as a replay was refused.
    replay_error: Option<String>,
    /// What the page last showed of its lists.
    written: page::Written,
    /// The page's events the shell listens to.
    listeners: Vec<page::Listener>,
    dirty: [bool; 5],
    out: VecDeque<Output>,
    /// The time of the input being handled (for the time left to answer a
    /// challenge, in the lobby's view).
    now: Millis,
}

impl std::fmt::Debug for Shell {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shell")
            .field("screen", self.screens.screen())
            .field("client", &self.client)
            .field("room", &self.room)
            .finish_non_exhaustive()
    }
}

impl Shell {
    /// A shell for `front`, on the title screen.
    pub fn new<F: FrontEnd + 'static>(front: F, cfg: ShellConfig, random: Random) -> Shell {
        Shell::with_game(Box::new(Slot::new(front)), cfg, random)
    }

    /// A shell for a game that brings its own [`GameSlot`] (a game on
    /// another sync model than lock-step), on the title screen.
    pub fn with_game(mut game: Box<dyn GameSlot>, cfg: ShellConfig, random: Random) -> Shell {
        let games = game.games();
        let chosen = cfg
            .stored_game
            .as_deref()
            .and_then(|g| games.iter().position(|n| *n == g))
            .unwrap_or(0);
        if games.len() > 1 {
            game.pick(chosen);
        }
        let mut cfg = cfg;
        cfg.lobby.challenge.games = games;
        cfg.lobby.party.games = party::party_games(game.party_games());
        cfg.lobby.watchable = game.takes_spectators();
        let mut s = Shell {
            screens: Screens::new(cfg.online_note.is_none()),
            cfg,
            chosen,
            option_ids: page::option_ids(game.local_options().len()),
            game,
            random,
            client: None,
            name_error: String::new(),
            chat_error: "",
            presence: None,
            presence_gen: 0,
            ice: Ice::default(),
            fetches: Vec::new(),
            lobbies: None,
            lobbies_due: None,
            room: None,
            comeback: rejoin::Comeback::default(),
            room_gen: 0,
            party: None,
            pair_watch: party::PairWatch::default(),
            party_ui: party_ui::PartyUi::default(),
            held: Vec::new(),
            pads: crate::pad::Pads::default(),
            pad_start_held: false,
            touch: crate::touch::Overlay::default(),
            frames: FrameClock::default(),
            frame_times: FrameTimes::default(),
            local: LocalView::default(),
            match_view: MatchView::default(),
            notices: VecDeque::new(),
            last_opponent: None,
            accepted_at: None,
            close_match_at: None,
            last_log: None,
            replay_error: None,
            written: page::Written::default(),
            listeners: Vec::new(),
            dirty: [true; 5],
            out: VecDeque::new(),
            now: Millis(0),
        };
        s.listeners = page::listeners(s.game.local_options().len(), games.len() > 1);
        let mut start = page::start(
            s.game.name(),
            s.game.build_id(),
            s.game.local_options(),
            s.cfg.stored_name.as_deref(),
            if s.cfg.lockstep {
                "lockstep"
            } else {
                "rollback"
            },
        );
        if games.len() > 1 {
            start.push(page::Patch::Value("local-opt-0", chosen.to_string()));
        }
        s.out.push_back(Output::Page(start));
        s.out.push_back(Output::Page(s.about()));
        s.out.push_back(Output::Page(s.options_shown()));
        let labels: Vec<&str> = s.game.touch_buttons().iter().map(|(_, l)| *l).collect();
        s.out.push_back(Output::Page(page::touch_buttons(&labels)));
        // Opened by an invite link: straight to the lobby's name prompt,
        // which says what the link will do (or that it is damaged).
        if s.cfg.invite.is_some() {
            s.screens.handle(ScreenEvent::ChooseOnline);
        }
        // A guest page reloaded mid-match goes back to its match.
        s.restore_rejoin();
        s.flush_dirty();
        s
    }

    /// The next thing to do.
    pub fn poll_output(&mut self) -> Option<Output> {
        self.out.pop_front()
    }

    /// Feeds one input at `now`. Drain the outputs afterwards.
    pub fn handle(&mut self, now: Millis, input: Input) {
        self.now = now;
        match input {
            Input::Action(a) => self.action(now, a),
            Input::Key { code, down, typing } => {
                if down && typing {
                    // Typing in a text field is not playing.
                } else if down {
                    // Escape pauses local play, and goes on again.
                    if code == PAUSE_KEY && !self.held.contains(&code) {
                        self.toggle_pause();
                    }
                    if !self.held.contains(&code) {
                        self.held.push(code);
                    }
                } else {
                    self.held.retain(|c| *c != code);
                }
            }
            Input::Pads(readings) => self.pads(readings),
            Input::Touch(touches) => self.touches(touches),
            Input::Tick => self.tick(now),
            Input::Frame { clock } => {
                if self.frames.due(clock) {
                    self.frame(now);
                }
            }
            Input::FrameSpent(ms) => self.frame_spent(ms),
            Input::SocketOpened(id) => self.socket_opened(now, id),
            Input::SocketText(id, text) => self.socket_text(now, id, &text),
            Input::SocketClosed(id) => self.socket_closed(now, id),
            Input::Rtc { link, tag, event } => self.rtc(now, link, tag, event),
            Input::Fetched(id, body) => self.fetch_answered(now, id, body),
            Input::ReplayFile(file) => self.replay_file(now, file),
            Input::OfferFailed(link) => {
                // A link to nothing would only fail when clicked.
                log::warn!("could not offer a file for download on {}", link.id());
                self.out
                    .push_back(Output::Page(page::file_link(link, None)));
            }
            Input::Dom(e) => {
                if let Some(a) = page::action_of(&self.listeners, e) {
                    self.action(now, a);
                }
            }
            Input::NetworkChanged => self.network_changed(now),
        }
        self.pump(now);
    }

    // ----- views -------------------------------------------------------------

    /// The game's name.
    #[must_use]
    pub fn game_name(&self) -> &'static str {
        self.game.name()
    }

    /// The game's build id.
    #[must_use]
    pub fn build_id(&self) -> u64 {
        self.game.build_id()
    }

    /// The choices offered before local play.
    #[must_use]
    pub fn local_options(&self) -> &'static [LocalOption] {
        self.game.local_options()
    }

    /// Whether the netcode setting is lock-step.
    #[must_use]
    pub fn lockstep(&self) -> bool {
        self.cfg.lockstep
    }

    /// The screens.
    #[must_use]
    pub fn screen_view(&self) -> ScreenView {
        ScreenView {
            screen: self.screens.screen().clone(),
            online_note: self.cfg.online_note,
            name_error: self.name_error.clone(),
            chat_error: self.chat_error,
            name_row: self.client.is_none(),
            replay_ready: match self.screens.screen() {
                Screen::Result { .. } => self.last_log.is_some(),
                // Any time: watching ends the local game.
                Screen::LocalPlay => true,
                _ => false,
            },
            replay_error: self.replay_error.clone(),
            result_court: self.game.has_result(),
        }
    }

    /// The page's events to listen to; report each as [`Input::Dom`].
    #[must_use]
    pub fn listeners(&self) -> &[page::Listener] {
        &self.listeners
    }

    /// The replay being watched.
    #[must_use]
    pub fn replay_view(&self) -> Option<ReplayView> {
        self.game.replay_view()
    }

    /// The lobby, once a name was given.
    #[must_use]
    pub fn lobby_view(&self) -> Option<LobbyView> {
        let c = self.client.as_ref()?;
        let roster = c.roster();
        let prompts = roster
            .iter()
            .filter_map(|p| {
                let deadline = c.incoming_deadline(&p.id)?;
                Some(view::ChallengePrompt {
                    id: p.id.clone(),
                    display: p.display.clone(),
                    seconds_left: deadline.0.saturating_sub(self.now.0).div_ceil(1000),
                    accept_enabled: p.accept_enabled,
                    game: c.incoming_game(&p.id).map(|g| g.as_str().to_owned()),
                })
            })
            .collect();
        Some(LobbyView {
            prompts,
            connection: c.connection(),
            me: c.my_display(),
            lobbies: view::LobbiesView::of(c.lobby_number(), self.lobbies.as_ref())
                .with_our_count(c.roster().len() + 1),
            roster: c.roster(),
            notices: self
                .notices
                .iter()
                .map(|n| {
                    let mut v = NoticeView {
                        notice: n.clone(),
                        try_again: None,
                    };
                    // No direct path at setup: offer to challenge again.
                    if v.is_connect_failure() {
                        v.try_again = self.last_opponent.clone();
                    }
                    v
                })
                .collect(),
        })
    }

    /// Local play.
    #[must_use]
    pub fn local_view(&self) -> &LocalView {
        &self.local
    }

    /// The match.
    #[must_use]
    pub fn match_view(&self) -> &MatchView {
        &self.match_view
    }

    /// Draws the game being played.
    pub fn paint(&mut self, painter: &mut dyn Painter) {
        self.game.paint(painter);
    }

    /// The game being played as canvas calls, for a canvas laid out
    /// `css_width` CSS pixels wide on a screen of `pixel_ratio` device
    /// pixels per CSS pixel (see [`crate::canvas`]).
    #[must_use]
    pub fn drawing(&mut self, css_width: f64, pixel_ratio: f64) -> Drawing {
        let size = canvas::canvas_size(css_width, pixel_ratio);
        let mut list = DrawList::new(size.css);
        self.game.paint(&mut list);
        Drawing {
            size,
            ops: list.into_ops(),
        }
    }

    /// Whether the page should keep the browser from acting on this key
    /// event (so a game's keys do not scroll the page or open quick find):
    /// never while typing in a text field; a press while a game runs, of
    /// one of the game's keys, with no modifier held (Ctrl+F and the like
    /// stay the browser's); a release of one of the game's keys.
    #[must_use]
    pub fn captures_key(&self, code: &str, down: bool, typing: bool, modifier: bool) -> bool {
        if typing || !self.game.is_game_key(code) {
            return false;
        }
        !down || (!modifier && matches!(self.screens.screen(), Screen::LocalPlay | Screen::Match))
    }

    /// Whether a frame is due at `clock` (so the frame timer can skip early
    /// calls cheaply).
    #[must_use]
    pub fn frame_due(&self, clock: f64) -> bool {
        self.frames.is_due(clock)
    }

    /// The state hash after `tick` ticks of the last finished match,
    /// replayed from its input log.
    #[must_use]
    pub fn log_hash_at(&self, tick: u32) -> Option<u64> {
        self.game.log_hash_at(self.last_log.as_ref()?, tick)
    }

    /// [`log_hash_at`](Self::log_hash_at) as tools read it (the page's
    /// `matchHashAt`): 16 lower-case hex digits.
    #[must_use]
    pub fn match_hash_at(&self, tick: u32) -> Option<String> {
        self.log_hash_at(tick).map(view::hash_text)
    }

    /// What the page says about the invite link it was opened with.
    #[must_use]
    pub fn invite_note(&self) -> Option<lobby::InviteNote> {
        match (&self.cfg.invite, &self.client) {
            (None, _) => None,
            (Some(Err(_)), _) => Some(lobby::InviteNote::before_joining(true)),
            (Some(Ok(_)), None) => Some(lobby::InviteNote::before_joining(false)),
            (Some(Ok(_)), Some(c)) => c.invite_note(),
        }
    }

    /// This page's invite link, once made and while it is valid.
    #[must_use]
    pub fn invite_url(&self) -> Option<String> {
        let c = self.client.as_ref()?;
        Some(c.invite(self.now)?.url(&self.cfg.page_address))
    }

    /// The lobby client, once a name was given (read only).
    #[must_use]
    pub fn lobby(&self) -> Option<&LobbyClient> {
        self.client.as_ref()
    }

    // ----- inputs ------------------------------------------------------------

    /// What changed on the page for `part`.
    fn patches(&mut self, part: Part) -> Vec<page::Patch> {
        match part {
            Part::Screen => {
                let mut p = page::screen(&self.screen_view());
                let touch = self.touch_shown();
                p.push(page::Patch::Shown("touch", touch));
                if !touch {
                    // Hidden, it holds nothing: no finger is left on it.
                    self.touch.release_all();
                    p.extend(page::touch_state(&[], None));
                }
                p
            }
            Part::Lobby => {
                let mut p = self
                    .lobby_view()
                    .map(|v| page::lobby(&v, &mut self.written))
                    .unwrap_or_default();
                let note = self.invite_note();
                let link = self.invite_url();
                let online = self
                    .client
                    .as_ref()
                    .is_some_and(|c| c.connection() == lobby::Connection::Online);
                p.extend(page::invite(
                    note.as_ref(),
                    link.as_deref(),
                    online,
                    &mut self.written,
                ));
                p.extend(self.party_patches());
                p
            }
            Part::Local => page::local(&self.local),
            Part::Match => page::match_(&self.match_view),
            Part::Replay => self
                .replay_view()
                .map(|v| page::replay(&v, &mut self.written))
                .unwrap_or_default(),
        }
    }

    fn render(&mut self, part: Part) {
        self.dirty[part as usize] = true;
    }

    fn flush_dirty(&mut self) {
        for (i, part) in [
            Part::Screen,
            Part::Lobby,
            Part::Local,
            Part::Match,
            Part::Replay,
        ]
        .into_iter()
        .enumerate()
        {
            if std::mem::take(&mut self.dirty[i]) {
                let patches = self.patches(part);
                if !patches.is_empty() {
                    self.out.push_back(Output::Page(patches));
                }
            }
        }
    }

    fn action(&mut self, now: Millis, action: Action) {
        match action {
            Action::ChooseLocal(choices) => {
                if let Some(&game) = choices.first() {
                    self.choose_game(game);
                }
                self.screen_event(now, ScreenEvent::ChooseLocal, &choices)
            }
            Action::ChooseGame(game) => self.choose_game(game),
            Action::ChooseOnline => self.screen_event(now, ScreenEvent::ChooseOnline, &[]),
            Action::Continue => {
                self.leave_party_after_match();
                self.screen_event(now, ScreenEvent::Continue, &[]);
            }
            // Back during a match is leaving it.
            Action::Back | Action::Leave => match self.screens.screen() {
                // The end is reported by the next frame.
                Screen::Match => {
                    self.game.quit_match(now);
                    self.send_match_transmits();
                }
                _ => {
                    if matches!(self.screens.screen(), Screen::Result { .. }) {
                        self.leave_party_after_match();
                    }
                    self.screen_event(now, ScreenEvent::Back, &[]);
                }
            },
            Action::Join(raw) => self.join_lobby(now, &raw),
            Action::CopyInvite => self.copy_invite(now),
            Action::Retry => {
                if let Some(c) = self.client.as_mut() {
                    c.retry_now(now);
                }
            }
            Action::SendChat(raw) => {
                let Some(c) = self.client.as_mut() else {
                    return;
                };
                match c.send_chat(now, &raw) {
                    Ok(()) => {
                        self.out.push_back(Output::Page(vec![page::Patch::Value(
                            "chat-input",
                            String::new(),
                        )]));
                        self.chat_error = "";
                    }
                    Err(ChatError::RateLimited) => {
                        self.chat_error = "Slow down: at most 2 messages a second.";
                    }
                    Err(_) => {}
                }
                self.render(Part::Screen);
            }
            Action::Player(what, id) => self.player_action(now, what, &id),
            Action::InviteParty { picks, side } => self.invite_party(now, &picks, side),
            Action::CancelParty => self.cancel_party(now),
            Action::PartyControl { action, id } => self.party_control(now, &action, id.as_deref()),
            Action::WatchReplay => self.watch_last_game(now),
            Action::PlayAgain => self.play_again(now),
            Action::Pause => self.toggle_pause(),
            Action::FullScreen => {
                if self.screen_view().court() {
                    self.out.push_back(Output::FullScreen);
                }
            }
            Action::Replay { control, value } => self.replay_control(&control, &value),
            Action::Netcode(v) => {
                self.cfg.lockstep = v == "lockstep";
                self.out.push_back(Output::Store {
                    key: config::NETCODE_KEY,
                    value: v,
                });
            }
        }
    }

    /// Watches the game just played: the match on the result screen, or
    /// the local game once it is over.
    fn watch_last_game(&mut self, now: Millis) {
        let log = match self.screens.screen() {
            Screen::Result { .. } => self.last_log.clone(),
            Screen::LocalPlay => self.game.local_log(),
            _ => None,
        };
        let Some(log) = log else { return };
        if let Err(e) = self.show_replay(now, &log.bytes) {
            // This page recorded it with this build: a bug if it happens.
            log::error!("replay: the game just played did not open ({e:?})");
        }
    }

    /// Opens `bytes` and shows the replay screen.
    fn show_replay(&mut self, now: Millis, bytes: &[u8]) -> Result<(), crate::replay::Refusal> {
        self.game.open_replay(bytes)?;
        self.screen_event(now, ScreenEvent::WatchReplay, &[]);
        debug_assert!(
            matches!(self.screens.screen(), Screen::Replay { .. }),
            "a replay is only opened where one can be watched"
        );
        if !matches!(self.screens.screen(), Screen::Replay { .. }) {
            self.game.close_replay();
        }
        Ok(())
    }

    /// A file picked on the title screen to watch.
    fn replay_file(&mut self, now: Millis, file: Result<Vec<u8>, crate::replay::Refusal>) {
        if !matches!(self.screens.screen(), Screen::Title { .. }) {
            return;
        }
        match file.and_then(|bytes| self.show_replay(now, &bytes)) {
            Ok(()) => self.replay_error = None,
            Err(e) => {
                log::info!("replay: refused a file ({e:?})");
                self.replay_error = Some(e.message(self.game.name()));
            }
        }
        self.render(Part::Screen);
    }

    /// A replay control: which one, and its element's value.
    fn replay_control(&mut self, control: &str, value: &str) {
        use crate::replay::Control;
        if !matches!(self.screens.screen(), Screen::Replay { .. }) {
            return;
        }
        let c = match control {
            "replay-play" => Some(Control::PlayPause),
            "replay-speed" => value.parse().ok().map(Control::Speed),
            "replay-seek" | "replay-mark" => value.parse().ok().map(Control::Seek),
            _ => None,
        };
        let Some(c) = c else {
            log::warn!("replay: ignored a control the page does not have");
            return;
        };
        self.game.replay_control(c);
        self.render(Part::Replay);
        self.out.push_back(Output::Paint);
    }

    /// The local options that apply to the game picked, shown; the others
    /// hidden.
    fn options_shown(&self) -> Vec<page::Patch> {
        let shown: Vec<bool> = (0..self.option_ids.len())
            .map(|i| self.game.local_option_shown(self.chosen, i))
            .collect();
        page::options_shown(&self.option_ids, &shown)
    }

    /// The title page's words about the game, with the pad's buttons
    /// while a pad is connected.
    fn about(&self) -> Vec<page::Patch> {
        let pad = if self.pads.count() > 0 {
            self.game.pad_controls()
        } else {
            &[]
        };
        page::about(&self.game.about(), pad)
    }

    fn pads(&mut self, readings: Vec<crate::pad::Reading>) {
        if self.pads.update(readings) {
            log::info!("gamepads connected: {}", self.pads.count());
            self.game.pads_connected(self.pads.count());
            let about = self.about();
            self.out.push_back(Output::Page(about));
        }
        let start = self
            .pads
            .keys(|_, b| (b == crate::pad::Button::Start).then_some(PAUSE_KEY));
        let start = !start.is_empty();
        if start && !self.pad_start_held {
            self.toggle_pause();
        }
        self.pad_start_held = start;
    }

    /// Whether the touch overlay shows: asked for (a touch device, or
    /// `?touch=1`), while a game runs, for a game whose pad moves.
    #[must_use]
    pub fn touch_shown(&self) -> bool {
        let running = matches!(self.screens.screen(), Screen::LocalPlay | Screen::Match);
        self.cfg.touch && running && self.game.pad_key(0, crate::pad::Button::Left).is_some()
    }

    /// The buttons the touch overlay holds, as a pad's.
    #[must_use]
    pub fn touch_held(&self) -> Vec<crate::pad::Button> {
        let buttons: Vec<crate::pad::Button> =
            self.game.touch_buttons().iter().map(|(b, _)| *b).collect();
        self.touch.held(&buttons)
    }

    fn touches(&mut self, touches: Vec<crate::touch::Touch>) {
        if !self.touch_shown() {
            return;
        }
        let mut changed = false;
        for t in touches {
            changed |= self.touch.touch(t);
        }
        if changed {
            // The knob leans the way the stick holds (the page's style
            // moves it: inline styles are not allowed).
            let dirs: Vec<&str> = self
                .touch
                .held(&[])
                .into_iter()
                .filter_map(|b| match b {
                    crate::pad::Button::Up => Some("up"),
                    crate::pad::Button::Down => Some("down"),
                    crate::pad::Button::Left => Some("left"),
                    crate::pad::Button::Right => Some("right"),
                    _ => None,
                })
                .collect();
            let stick = self.touch.stick_offset().map(|_| dirs.join(" "));
            let held = self.touch.buttons_held();
            self.out
                .push_back(Output::Page(page::touch_state(&held, stick)));
        }
    }

    /// The keys held on the keyboard and those the pads stand for: in
    /// local play each pad for its person, online every pad for the one
    /// person at the page.
    fn held_keys(&self) -> Vec<&str> {
        let mut held: Vec<&str> = self.held.iter().map(String::as_str).collect();
        let online = self.screens.screen() == &Screen::Match;
        let game = &self.game;
        let pad_keys = self.pads.keys(|person, b| {
            if b == crate::pad::Button::Start {
                return None;
            }
            game.pad_key(if online { 0 } else { person }, b)
        });
        // The touch overlay is a pad for the page's first person.
        let touch_keys = self
            .touch_held()
            .into_iter()
            .filter_map(|b| game.pad_key(0, b));
        for k in pad_keys.into_iter().chain(touch_keys) {
            if !held.contains(&k) {
                held.push(k);
            }
        }
        held
    }

    /// Pauses local play, or goes on; a finished game has nothing to pause.
    fn toggle_pause(&mut self) {
        if self.screens.screen() == &Screen::LocalPlay && self.local.result.is_none() {
            self.local.paused = !self.local.paused;
            self.render(Part::Local);
        }
    }

    /// Play again: local play starts over with the same choices; after an
    /// online match, back to the lobby with a new challenge to the same
    /// player (who answers it as any challenge).
    fn play_again(&mut self, now: Millis) {
        match self.screens.screen() {
            Screen::LocalPlay => {
                let seed = self.random_seed();
                self.game.restart_local(seed);
                self.local = LocalView::default();
                self.render(Part::Local);
                self.render(Part::Screen);
                self.out.push_back(Output::Paint);
            }
            Screen::Result { online: true, .. } => {
                // The party that just played, kept for a rematch.
                if self.party_play_again(now) {
                    return;
                }
                let opponent = self.last_opponent.clone();
                self.screen_event(now, ScreenEvent::Continue, &[]);
                if let Some(id) = opponent {
                    self.player_action(now, PlayerAction::Challenge, id.as_str());
                }
            }
            _ => {}
        }
    }

    fn player_action(&mut self, now: Millis, what: PlayerAction, id: &str) {
        // The roster and its notices are on the lobby screen only.
        if self.screens.screen() != &Screen::Lobby {
            return;
        }
        let Some(id) = PeerId::parse(id) else { return };
        let Some(c) = self.client.as_mut() else {
            return;
        };
        match what {
            PlayerAction::Mute => c.toggle_mute(now, &id),
            PlayerAction::Challenge => {
                self.last_opponent = Some(id.clone());
                c.challenge(now, &id);
            }
            PlayerAction::Accept => {
                self.last_opponent = Some(id.clone());
                self.accepted_at = Some(now);
                c.accept(now, &id);
            }
            PlayerAction::Decline => c.decline(now, &id),
            PlayerAction::Cancel => c.cancel(now),
            PlayerAction::PartyAccept => {
                self.accepted_at = Some(now);
                c.accept_party(now, &id);
            }
            PlayerAction::PartyDecline => c.decline_party(now, &id),
            PlayerAction::Watch => self.ask_to_watch(&id),
        }
    }

    fn screen_event(&mut self, now: Millis, e: ScreenEvent, choices: &[usize]) {
        if !self.screens.handle(e) {
            return;
        }
        let s = self.screens.screen().clone();
        if s == Screen::LocalPlay {
            let seed = self.random_seed();
            self.game.start_local(seed, choices);
        } else {
            self.game.stop_local();
            self.local = LocalView::default();
        }
        if matches!(s, Screen::Title { .. }) {
            self.leave_lobby(now);
        }
        if !matches!(s, Screen::Replay { .. }) {
            self.game.close_replay();
        }
        if !matches!(s, Screen::Result { .. } | Screen::Replay { .. }) {
            self.game.forget_result();
        }
        if matches!(s, Screen::Replay { .. })
            || (matches!(s, Screen::Result { .. }) && self.game.has_result())
        {
            self.out.push_back(Output::Paint);
        }
        self.render(Part::Replay);
        self.render(Part::Screen);
        self.render(Part::Local);
        self.render(Part::Lobby);
    }

    /// The game our challenges name: the one picked, on a page of several
    /// games; none on a page of one.
    fn named_game(&self) -> Option<crate::protocol::GameName> {
        let games = self.game.games();
        if games.len() < 2 {
            return None;
        }
        crate::protocol::GameName::parse(games.get(self.chosen)?)
    }

    /// The title's game chooser changed (or local play started with a
    /// game): remember it, and name it in our challenges from now on.
    fn choose_game(&mut self, game: usize) {
        let games = self.game.games();
        let Some(name) = games.get(game).filter(|_| games.len() > 1) else {
            return;
        };
        self.chosen = game;
        self.out.push_back(Output::Store {
            key: config::GAME_KEY,
            value: (*name).to_owned(),
        });
        // The title tells about the game picked, and offers its choices.
        self.game.pick(game);
        let about = self.about();
        self.out.push_back(Output::Page(about));
        let shown = self.options_shown();
        self.out.push_back(Output::Page(shown));
        let named = self.named_game();
        if let Some(c) = self.client.as_mut() {
            c.set_game(named);
        }
    }

    fn join_lobby(&mut self, now: Millis, raw: &str) {
        match text::clean_name(raw) {
            Err(e) => self.name_error = e.to_string(),
            Ok(nick) => {
                self.name_error.clear();
                self.out.push_back(Output::Store {
                    key: config::NAME_KEY,
                    value: nick.clone(),
                });
                let mut client = LobbyClient::new(nick, self.cfg.lobby);
                client.set_game(self.named_game());
                if let Some(Ok(link)) = &self.cfg.invite {
                    client.arrive_by_invite(link.clone());
                }
                self.client = Some(client);
                // The first connection waits for the ICE servers, so the
                // first mesh links already use them.
                self.refresh_ice(now, AfterIce::ConnectPresence);
            }
        }
        self.render(Part::Screen);
        self.render(Part::Lobby);
    }

    /// The Copy invite link button: the link goes to the clipboard, and
    /// shows under the button.
    fn copy_invite(&mut self, now: Millis) {
        // A code has the form of a peer id: drawn the same way, from the
        // page's random bytes.
        let Some(code) = self
            .fresh_id()
            .and_then(|id| InviteCode::parse(id.as_str()))
        else {
            return;
        };
        let Some(c) = self.client.as_mut() else {
            return;
        };
        if let Some(link) = c.make_invite(now, code) {
            self.out
                .push_back(Output::Copy(link.url(&self.cfg.page_address)));
        }
        self.render(Part::Lobby);
    }

    fn leave_lobby(&mut self, now: Millis) {
        self.client = None;
        self.close_presence();
        self.close_room(now);
        self.close_party();
        self.pair_watch = party::PairWatch::default();
        if self.game.match_tag().is_some() {
            self.game.drop_match();
            self.out.push_back(Output::ClosePeer(LinkId::Match));
            if let Some(c) = self.client.as_mut() {
                c.match_ended(now);
            }
        }
    }

    fn close_presence(&mut self) {
        self.presence_gen += 1;
        if let Some(id) = self.presence.take() {
            self.out.push_back(Output::CloseSocket(id));
        }
        self.out.push_back(Output::CloseMesh);
    }

    /// The browser reports a network change: a lobby retry is made at
    /// once, and a socket that looks open is asked for a heartbeat.
    fn network_changed(&mut self, now: Millis) {
        if let Some(c) = self.client.as_mut() {
            c.network_changed(now);
        }
        self.lobby_now(now);
    }

    /// The lobby socket is wanted now (the network changed, or an ICE
    /// restart's step waits for the service): a retry is made at once.
    pub(super) fn lobby_now(&mut self, now: Millis) {
        let Some(c) = self.client.as_mut() else {
            return;
        };
        c.retry_at_once(now);
        if c.wants_connect(now) {
            self.connect_presence(now);
            self.refresh_ice(now, AfterIce::Nothing);
        }
    }

    /// A lobby connection attempt with a fresh id.
    fn connect_presence(&mut self, now: Millis) {
        // The fills are fetched again once this connection is welcomed.
        self.lobbies_due = None;
        let id = self.fresh_id();
        let Some(c) = self.client.as_mut() else {
            return;
        };
        match id {
            Some(id) => c.start(now, id),
            // Not expected (random numbers were there at start-up): count
            // it as a failed attempt, so the backoff paces the next one.
            None => c.socket_closed(now),
        }
    }

    /// Closes the ended match's link once its grace is over, unless a new
    /// match link is on its way (it replaces the old one anyway).
    fn close_ended_match(&mut self, now: Millis) {
        let Some(at) = self.close_match_at else {
            return;
        };
        if now < at {
            return;
        }
        self.close_match_at = None;
        let new_link =
            self.room.is_some() || self.comeback.room_of_any() || self.game.match_tag().is_some();
        if !new_link {
            self.out.push_back(Output::ClosePeer(LinkId::Match));
        }
    }

    fn tick(&mut self, now: Millis) {
        self.close_ended_match(now);
        // A fetch with no answer by its deadline has failed.
        let (late, waiting) = self.fetches.iter().partition(|(_, at)| *at <= now);
        self.fetches = waiting;
        for (id, _) in late {
            log::warn!("a request to the signalling service got no answer in time");
            self.out.push_back(Output::AbortFetch(id));
            self.fetched(now, id, None);
        }
        if self.client.as_ref().is_some_and(|c| c.wants_connect(now)) {
            self.connect_presence(now);
            self.refresh_ice(now, AfterIce::Nothing);
        }
        self.refresh_lobbies(now);
        // The time left to answer a challenge counts down on the page.
        if self
            .client
            .as_ref()
            .is_some_and(|c| c.roster().iter().any(|p| p.challenged_us))
            || self.party_prompt_shown()
        {
            self.render(Part::Lobby);
        }
        if let Some(c) = self.client.as_mut() {
            c.tick(now);
        }
        if let Some((_, room)) = self.room.as_mut() {
            room.tick(now);
        }
        self.party_tick(now);
        self.comeback_tick(now);
        // A game may have datagrams between frames (a host's worker
        // answers on its own time): they go out now, not a frame later.
        self.send_match_transmits();
    }

    fn frame(&mut self, now: Millis) {
        let held: Vec<String> = self.held_keys().into_iter().map(str::to_owned).collect();
        let held: Vec<&str> = held.iter().map(String::as_str).collect();
        match self.screens.screen() {
            Screen::LocalPlay => {
                if !self.local.paused {
                    let v = self.game.local_frame(&held, self.cfg.local_speed);
                    if v != self.local {
                        self.local = v;
                        self.dirty[Part::Local as usize] = true;
                    }
                }
                self.out.push_back(Output::Paint);
            }
            Screen::Replay { .. } => {
                if self.game.replay_frame() {
                    self.render(Part::Replay);
                }
                self.out.push_back(Output::Paint);
            }
            Screen::Match => {
                let report = self.game.match_frame(now, &held, &mut self.match_view);
                self.close_benched_link();
                self.party_host_silent(now);
                self.party_host_moved();
                self.pair_stream_check(now);
                self.reconnecting_view();
                self.send_match_transmits();
                self.frame_times.pending = true;
                if report.ticked {
                    if let Some(at) = self.accepted_at.take() {
                        self.match_view.accept_to_tick_ms = Some(now.0.saturating_sub(at.0));
                    }
                }
                self.out.push_back(Output::Paint);
                self.render(Part::Match);
                if let Some(mut end) = report.ended {
                    if self.party_host_back_refused(&end.outcome) {
                        end.message = rejoin::WENT_ON.to_owned();
                    }
                    self.game.drop_match();
                    self.comeback_end();
                    self.close_match_at = Some(now + MATCH_CLOSE_GRACE);
                    self.party_match_over();
                    if let Some(c) = self.client.as_mut() {
                        c.match_ended(now);
                    }
                    self.accepted_at = None;
                    self.last_log.clone_from(&end.log);
                    for (link, file) in [(FileLink::Log, end.log), (FileLink::Report, end.report)] {
                        self.out
                            .push_back(Output::Page(page::file_link(link, file.as_ref())));
                        self.out.push_back(Output::Offer { link, file });
                    }
                    self.screen_event(now, ScreenEvent::Ended(end.message), &[]);
                }
            }
            // The result's picture is painted every frame too: the canvas
            // may have been laid out anew (a resized window), and a match
            // worker's picture drawn again at the new size arrives later.
            Screen::Result { .. } if self.game.has_result() => self.out.push_back(Output::Paint),
            _ => {}
        }
    }

    fn frame_spent(&mut self, ms: f64) {
        let t = &mut self.frame_times;
        if !std::mem::take(&mut t.pending) {
            return;
        }
        if t.ms.len() < FRAME_TIMES_KEPT {
            t.ms.push(ms);
            self.match_view.frames = Some(t.ms.len());
        }
        if t.ms.len().is_multiple_of(60) {
            let n = t.ms.len() as f64;
            let mean = t.ms.iter().sum::<f64>() / n;
            let mut sorted = t.ms.clone();
            sorted.sort_by(f64::total_cmp);
            let p95 = sorted[(sorted.len() * 95 / 100).min(sorted.len() - 1)];
            self.match_view.frame_ms = Some(format!(
                "{} {mean:.3} {:.3} {p95:.3}",
                t.ms.len(),
                sorted[sorted.len() / 2]
            ));
        }
        self.render(Part::Match);
    }

    fn send_match_transmits(&mut self) {
        self.send_party_transmits();
        while let Some((mut channel, mut bytes)) = self.game.poll_match_transmit() {
            if let Some(fault) = self.cfg.peer_fault {
                (channel, bytes) = fault.apply(channel, bytes);
            }
            self.out.push_back(Output::SendPeer {
                link: LinkId::Match,
                channel,
                bytes,
            });
        }
    }

    fn socket_opened(&mut self, now: Millis, id: SocketId) {
        match id {
            SocketId::Presence(_) if Some(id) == self.presence => {
                if let Some(c) = self.client.as_mut() {
                    c.socket_open();
                }
            }
            SocketId::Room(g) => {
                if let Some(room) = self.room_of(g) {
                    room.socket_opened(now);
                }
            }
            // The member room speaks first (its welcome).
            SocketId::Party(_) => {}
            SocketId::Presence(_) => {}
        }
    }

    fn socket_text(&mut self, now: Millis, id: SocketId, text: &str) {
        match id {
            SocketId::Presence(_) if Some(id) == self.presence => {
                if let Some(c) = self.client.as_mut() {
                    c.server_text(now, text);
                }
            }
            SocketId::Room(g) => {
                if let Some(room) = self.room_of(g) {
                    room.socket_text(now, text);
                }
            }
            SocketId::Party(g) => self.party_socket_text(g, text),
            SocketId::Presence(_) => {}
        }
    }

    fn socket_closed(&mut self, now: Millis, id: SocketId) {
        match id {
            SocketId::Presence(_) if Some(id) == self.presence => {
                self.presence = None;
                // Release the browser's socket object.
                self.out.push_back(Output::CloseSocket(id));
                // The mesh links stay until the client's ClosePeer outputs,
                // so a cancel of our open challenge still reaches its target.
                if let Some(c) = self.client.as_mut() {
                    c.socket_closed(now);
                }
            }
            SocketId::Room(g) => {
                if let Some(room) = self.room_of(g) {
                    room.socket_closed();
                }
            }
            SocketId::Party(g) => self.party_socket_closed(g),
            SocketId::Presence(_) => {}
        }
    }

    fn rtc(&mut self, now: Millis, link: LinkId, tag: u32, event: RtcEvent) {
        if event == RtcEvent::Applied(false) {
            // The link then fails or runs out of time like any other.
            log::warn!("an answer was refused");
        }
        match link {
            LinkId::Mesh(id) => {
                let Some(c) = self.client.as_mut() else {
                    return;
                };
                let Ok(attempt) = u8::try_from(tag) else {
                    return;
                };
                let relay =
                    |c: &mut LobbyClient, kind| c.send_signal(now, &id, &Signal { attempt, kind });
                match event {
                    // A failed one is left to the mesh retry timer.
                    RtcEvent::Offer(sdp) => {
                        if let Some(sdp) = sdp {
                            relay(c, SignalKind::Offer(sdp));
                        }
                    }
                    RtcEvent::Answer(sdp) => {
                        if let Some(sdp) = sdp {
                            relay(c, SignalKind::Answer(sdp));
                        }
                    }
                    RtcEvent::Candidate(cand) => {
                        c.send_signal(now, &id, &room::candidate_signal(cand, attempt))
                    }
                    RtcEvent::Open => c.peer_open(&id, attempt),
                    RtcEvent::Closed => c.peer_closed(now, &id, attempt),
                    RtcEvent::Data(_, bytes) => match String::from_utf8(bytes) {
                        Ok(s) => c.peer_text(now, &id, &s),
                        Err(_) => log::warn!("lobby: dropped a non-UTF-8 peer message"),
                    },
                    RtcEvent::Backlog(_)
                    | RtcEvent::Applied(_)
                    | RtcEvent::PathDown
                    | RtcEvent::PathUp => {}
                }
            }
            LinkId::Party(member) => self.party_rtc(now, member, tag, event),
            LinkId::Match => {
                if let Some(room) = self.room_of(tag) {
                    match event {
                        RtcEvent::Offer(sdp) | RtcEvent::Answer(sdp) => {
                            room.local_description(sdp);
                        }
                        RtcEvent::Candidate(c) => room.local_candidate(c),
                        RtcEvent::Open => room.link_opened(),
                        RtcEvent::Closed => room.link_closed(),
                        RtcEvent::Data(..)
                        | RtcEvent::Backlog(_)
                        | RtcEvent::Applied(_)
                        | RtcEvent::PathDown
                        | RtcEvent::PathUp => {}
                    }
                } else if self.game.match_tag() == Some(tag) {
                    if self.restart_event(now, tag, &event) {
                        return;
                    }
                    match event {
                        RtcEvent::Data(channel, bytes) => {
                            self.game.match_datagram(now, channel, &bytes);
                            // A ping is answered at once.
                            self.send_match_transmits();
                        }
                        RtcEvent::Closed => {
                            self.comeback.restart = None;
                            self.game.match_link_lost(now);
                            self.match_link_gone(now);
                        }
                        RtcEvent::Backlog(bytes) => self.game.match_backlog(now, bytes),
                        _ => {}
                    }
                }
            }
        }
    }

    /// Asks the page to fetch `url`, and gives up on it after `timeout`.
    fn fetch(
        &mut self,
        now: Millis,
        id: FetchId,
        method: &'static str,
        url: String,
        timeout: Millis,
    ) {
        // A fetch with this id still under way is replaced: its answer,
        // if it still comes, answers the new one (the same request).
        self.fetches.retain(|(f, _)| *f != id);
        self.fetches.push((id, now + timeout));
        self.out.push_back(Output::Fetch { id, method, url });
    }

    /// The answer to a fetch: handled if the fetch is still under way.
    fn fetch_answered(&mut self, now: Millis, id: FetchId, body: Option<String>) {
        let before = self.fetches.len();
        self.fetches.retain(|(f, _)| *f != id);
        if self.fetches.len() == before {
            log::info!("ignored an answer that came after its request was given up");
            return;
        }
        self.fetched(now, id, body);
    }

    fn fetched(&mut self, now: Millis, id: FetchId, body: Option<String>) {
        match id {
            FetchId::Ice => self.ice_fetched(now, body.as_deref()),
            FetchId::Lobbies => self.lobbies_fetched(body.as_deref()),
            FetchId::Room(g) => {
                if let Some(room) = self.room_of(g) {
                    room.room_fetched(body.as_deref().and_then(room_code_of));
                }
            }
            FetchId::PartyRoom(g) => {
                self.party_room_fetched(now, g, body.as_deref().and_then(room_code_of));
            }
        }
    }

    // ----- Every lobby's fill ------------------------------------------------

    /// Fetches every lobby's fill (`GET /lobbies`) once a new presence
    /// connection is welcomed, then every [`LOBBIES_REFRESH`] while the
    /// lobby screen is shown (not during a match: on a Worker with many
    /// lobbies each fetch asks every lobby).
    fn refresh_lobbies(&mut self, now: Millis) {
        let online = self
            .client
            .as_ref()
            .is_some_and(|c| c.connection() == lobby::Connection::Online);
        let due = match self.lobbies_due {
            None => true,
            Some(at) => now >= at && *self.screens.screen() == Screen::Lobby,
        };
        let fetching = self.fetches.iter().any(|(f, _)| *f == FetchId::Lobbies);
        if online && due && !fetching {
            self.lobbies_due = Some(now + LOBBIES_REFRESH);
            let url = format!("{}/lobbies", self.cfg.http_base);
            self.fetch(now, FetchId::Lobbies, "GET", url, LOBBIES_FETCH_TIMEOUT);
        }
    }

    /// The answer to `GET /lobbies`: kept when it reads as a directory;
    /// anything else leaves the fills shown before.
    fn lobbies_fetched(&mut self, body: Option<&str>) {
        match body.map(signaling_protocol::LobbyDirectory::parse) {
            Some(Ok(directory)) => {
                self.lobbies = Some(directory);
                self.render(Part::Lobby);
            }
            Some(Err(e)) => log::warn!("dropped an unreadable list of lobbies ({e:?})"),
            None => log::info!("could not fetch the list of lobbies; keeping the last one"),
        }
    }

    // ----- ICE servers -------------------------------------------------------

    /// Fetches `iceServers` from `/ice` (TURN credentials there are
    /// short-lived, so this runs on every lobby connection and before every
    /// match connection), then does `then`. When the fetch fails or takes
    /// over 5 s, the last good list stays, or the default STUN server if
    /// there never was one. While a fetch is under way, `then` happens at
    /// once with the current list.
    fn refresh_ice(&mut self, now: Millis, then: AfterIce) {
        if self.ice.fetching.is_some() {
            self.after_ice(now, then);
            return;
        }
        self.ice.fetching = Some(then);
        let url = format!("{}/ice", self.cfg.http_base);
        self.fetch(now, FetchId::Ice, "GET", url, ICE_FETCH_TIMEOUT);
    }

    fn ice_fetched(&mut self, now: Millis, body: Option<&str>) {
        let Some(then) = self.ice.fetching.take() else {
            return;
        };
        match body.and_then(ice_servers_of) {
            Some(servers) => self.ice.servers = Some(servers),
            None if self.ice.servers.is_some() => {
                log::warn!("could not fetch /ice; keeping the ICE servers from before");
            }
            None => log::warn!("could not fetch /ice; using the default STUN server"),
        }
        self.after_ice(now, then);
    }

    fn after_ice(&mut self, now: Millis, then: AfterIce) {
        match then {
            AfterIce::Nothing => {}
            AfterIce::ConnectPresence => self.connect_presence(now),
            AfterIce::OpenRoom(g) => {
                if let Some(room) = self.room_of(g) {
                    room.ice_ready();
                }
            }
        }
    }

    fn ice_servers(&self) -> String {
        self.ice
            .servers
            .clone()
            .unwrap_or_else(|| serde_json::json!([{ "urls": FALLBACK_STUN_URL }]).to_string())
    }

    // ----- the room link -----------------------------------------------------

    fn create_room(&mut self, now: Millis) {
        self.close_room(now);
        self.room_gen += 1;
        self.room = Some((
            self.room_gen,
            self.room_link(RoomLink::host(self.cfg.match_connect)),
        ));
        // Fresh ICE servers for the match link, made once the guest joins
        // (several round trips from now).
        self.refresh_ice(now, AfterIce::Nothing);
    }

    fn join_room(&mut self, now: Millis, code: RoomCode) {
        self.close_room(now);
        self.room_gen += 1;
        let link = self.room_link(RoomLink::guest(code, self.cfg.match_connect));
        self.room = Some((self.room_gen, link));
        // The guest makes its match link as soon as the room socket opens,
        // so fresh ICE servers come first.
        self.refresh_ice(now, AfterIce::OpenRoom(self.room_gen));
    }

    fn room_link(&self, link: RoomLink) -> RoomLink {
        if self.cfg.force_relay {
            link.relay_at_once()
        } else {
            link
        }
    }

    fn close_room(&mut self, now: Millis) {
        if let Some((_, room)) = self.room.as_mut() {
            room.close();
        }
        self.drain_room(now);
        self.room = None;
    }

    /// Carries out the room link's outputs; `true` if there were any.
    fn drain_room(&mut self, now: Millis) -> bool {
        let mut any = false;
        loop {
            let Some((gen, o)) = self
                .room
                .as_mut()
                .and_then(|(g, r)| r.poll().map(|o| (*g, o)))
            else {
                return any;
            };
            any = true;
            match self.room_io(now, gen, o) {
                Some(RoomOutput::Ready(code)) => {
                    if let Some(c) = self.client.as_mut() {
                        c.room_created(now, code);
                    }
                }
                Some(RoomOutput::Opened(role, path)) => {
                    self.room = None;
                    if let Some(c) = self.client.as_mut() {
                        c.match_connected(now);
                    }
                    // The challenge rules say whether this is a match of
                    // ours (it may have been cancelled meanwhile).
                    if self.in_match() {
                        self.start_match(now, role, gen, path);
                    } else {
                        self.out.push_back(Output::ClosePeer(LinkId::Match));
                    }
                }
                Some(RoomOutput::Failed(why)) => {
                    self.room = None;
                    if let Some(c) = self.client.as_mut() {
                        match why {
                            Failure::Room => c.room_failed(now),
                            Failure::Connection => c.match_failed(now),
                        }
                    }
                }
                _ => {}
            }
        }
    }

    /// Carries out a room link's I/O output of attempt `gen` (fetch,
    /// sockets, the peer connection and its handshake); what the room
    /// link reports of itself (ready, opened, failed) is returned for the
    /// caller, whose room it is.
    fn room_io(&mut self, now: Millis, gen: u32, o: RoomOutput) -> Option<RoomOutput> {
        let link = LinkId::Match;
        let tag = gen;
        let socket = SocketId::Room(gen);
        match o {
            RoomOutput::FetchRoom => {
                let url = format!("{}/rooms", self.cfg.http_base);
                self.fetch(now, FetchId::Room(gen), "POST", url, ROOM_FETCH_TIMEOUT);
            }
            RoomOutput::OpenSocket(path) => self.out.push_back(Output::OpenSocket {
                id: socket,
                url: format!("{}{path}", self.cfg.ws_base),
            }),
            RoomOutput::Send(text) => self.out.push_back(Output::SendSocket { id: socket, text }),
            RoomOutput::CloseSocket => self.out.push_back(Output::CloseSocket(socket)),
            RoomOutput::CreatePeer => {
                let ice_servers = self.ice_servers();
                self.out.push_back(Output::CreatePeer {
                    link,
                    tag,
                    ice_servers,
                });
            }
            RoomOutput::MakeOffer => self.out.push_back(Output::Describe {
                link,
                tag,
                step: SdpStep::Offer,
            }),
            RoomOutput::MakeAnswer(offer) => {
                self.out.push_back(Output::Describe {
                    link,
                    tag,
                    step: SdpStep::Answer(offer),
                });
            }
            RoomOutput::ApplyAnswer(answer) => {
                self.out.push_back(Output::Describe {
                    link,
                    tag,
                    step: SdpStep::Apply(answer),
                });
            }
            RoomOutput::AddCandidate(candidate) => self.out.push_back(Output::AddCandidate {
                link,
                tag,
                candidate,
            }),
            RoomOutput::ClosePeer => self.out.push_back(Output::ClosePeer(link)),
            RoomOutput::OpenRelay(path) => self.out.push_back(Output::OpenRelay {
                link,
                tag,
                url: format!("{}{path}", self.cfg.ws_base),
            }),
            o @ (RoomOutput::Ready(_) | RoomOutput::Opened(..) | RoomOutput::Failed(_)) => {
                return Some(o)
            }
        }
        None
    }

    /// A new peer connection on `link` (attempt `tag`), which makes the
    /// offer.
    fn offer_on(&mut self, link: LinkId, tag: u32) {
        self.party_link_made(&link, tag, true);
        let ice_servers = self.ice_servers();
        self.out.push_back(Output::CreatePeer {
            link: link.clone(),
            tag,
            ice_servers,
        });
        self.out.push_back(Output::Describe {
            link,
            tag,
            step: SdpStep::Offer,
        });
    }

    /// Carries out a remote peer's handshake signal for `link` (attempt
    /// `tag`): an offer makes the connection and answers it, an answer is
    /// applied, a candidate added.
    fn remote_signal(&mut self, link: LinkId, tag: u32, kind: SignalKind) {
        match kind {
            SignalKind::Offer(offer) => {
                self.party_link_made(&link, tag, false);
                let ice_servers = self.ice_servers();
                self.out.push_back(Output::CreatePeer {
                    link: link.clone(),
                    tag,
                    ice_servers,
                });
                self.out.push_back(Output::Describe {
                    link,
                    tag,
                    step: SdpStep::Answer(offer),
                });
            }
            SignalKind::Answer(answer) => self.out.push_back(Output::Describe {
                link,
                tag,
                step: SdpStep::Apply(answer),
            }),
            SignalKind::Ice {
                candidate,
                sdp_mid,
                sdp_m_line_index,
            } => self.out.push_back(Output::AddCandidate {
                link,
                tag,
                candidate: Candidate {
                    candidate,
                    sdp_mid,
                    sdp_m_line_index,
                },
            }),
        }
    }

    /// The room link of attempt `gen`: the match being set up, or a player
    /// coming back into the running one.
    fn room_of(&mut self, gen: u32) -> Option<&mut RoomLink> {
        match &mut self.room {
            Some((g, room)) if *g == gen => Some(room),
            _ => self.comeback.room_of(gen),
        }
    }

    fn start_match(&mut self, now: Millis, role: Role, tag: u32, path: Path) {
        // The host decides (the guest adopts its Hello): rollback unless
        // this page's settings pick lock-step; the input delay from the
        // round trip measured in the handshake (6 ticks if unmeasured). In
        // lock-step each side raises its own delay if the round trip grows.
        let cfg = match role {
            Role::Host => {
                let c = SessionConfig::host(self.random_seed(), 6).input_delay_from_rtt();
                if self.cfg.lockstep {
                    c
                } else {
                    c.rollback()
                }
            }
            Role::Guest => SessionConfig::guest(),
        }
        .adaptive_input_delay();
        // A dropped player's slot is held for the window (`rejoin`); a
        // direct connection whose path is lost first tries an ICE restart
        // (`restart`).
        let cfg = self.rejoin_config(cfg, role == Role::Host);
        let cfg = match self.cfg.peer_fault {
            Some(fault) => fault.session(cfg),
            None => cfg,
        };
        self.restart_rules(tag, role, path);
        self.frame_times = FrameTimes::default();
        self.match_view = MatchView {
            state: Some("connected"),
            status: "Connected. Starting…".to_owned(),
            path: Some(match path {
                Path::Direct => "direct",
                Path::Relayed => "relayed",
            }),
            ..MatchView::default()
        };
        self.render(Part::Match);
        if role == Role::Host {
            // Our challenge named the game picked on the title.
            self.game.open_on(self.chosen);
        }
        if !self.game.start_match(cfg, now, tag) {
            self.out.push_back(Output::ClosePeer(LinkId::Match));
            if let Some(c) = self.client.as_mut() {
                c.match_ended(now);
            }
            return;
        }
        self.pair_match_started(role == Role::Host);
        // A match is only set up from the lobby screen (leaving it closes
        // the room), so the match screen follows.
        let shown = self.screens.screen() == &Screen::Lobby;
        debug_assert!(shown, "a match link opened away from the lobby");
        if shown {
            self.screen_event(now, ScreenEvent::MatchStarted, &[]);
        } else {
            self.game.drop_match();
            self.out.push_back(Output::ClosePeer(LinkId::Match));
        }
    }

    // ----- the lobby client --------------------------------------------------

    /// Carries out the lobby client's outputs; `true` if there were any.
    fn drain_lobby(&mut self, now: Millis) -> bool {
        let mut any = false;
        while let Some(o) = self.client.as_mut().and_then(LobbyClient::poll_output) {
            any = true;
            self.lobby_output(now, o);
        }
        any
    }

    fn lobby_output(&mut self, now: Millis, o: lobby::Output) {
        match o {
            lobby::Output::Connect(_) => {
                self.close_presence();
                let id = SocketId::Presence(self.presence_gen);
                self.presence = Some(id);
                // A page opened by an invite asks for the inviter's lobby.
                let lobby = match &self.cfg.invite {
                    Some(Ok(InviteLink { lobby: Some(n), .. })) => format!("?lobby={n}"),
                    _ => String::new(),
                };
                self.out.push_back(Output::OpenSocket {
                    id,
                    url: format!("{}/lobby/ws{lobby}", self.cfg.ws_base),
                });
            }
            lobby::Output::Disconnect => self.close_presence(),
            lobby::Output::ToServer(text) => {
                if let Some(id) = self.presence {
                    self.out.push_back(Output::SendSocket { id, text });
                }
            }
            lobby::Output::Offer { id, attempt } => {
                self.offer_on(LinkId::Mesh(id), u32::from(attempt));
            }
            lobby::Output::Remote { id, signal } => {
                self.remote_signal(LinkId::Mesh(id), u32::from(signal.attempt), signal.kind);
            }
            lobby::Output::ClosePeer(id) => {
                self.out.push_back(Output::ClosePeer(LinkId::Mesh(id)));
            }
            lobby::Output::ToPeer(id, text) => self.out.push_back(Output::SendPeer {
                link: LinkId::Mesh(id),
                channel: Channel::Reliable,
                bytes: text.into_bytes(),
            }),
            lobby::Output::CreateRoom => self.create_room(now),
            // `done` ends the room on the server at once rather than at its
            // time to live; then the socket closes.
            lobby::Output::CloseRoom | lobby::Output::LeaveRoom => {
                self.close_room(now);
                self.close_party_setup();
            }
            lobby::Output::JoinRoom(code) => self.join_room(now, code),
            lobby::Output::CreatePartyRoom { players } => self.create_party_room(now, players),
            lobby::Output::PlayParty(lineup) => self.play_party(now, lineup),
            lobby::Output::Chat { from, name, text } => self.out.push_back(Output::Chat {
                mine: from.is_none(),
                rtl: text::looks_rtl(&text),
                name,
                text,
            }),
            lobby::Output::Notice(n) => {
                self.notices.push_back(n);
                while self.notices.len() > NOTICES_SHOWN {
                    self.notices.pop_front();
                }
                self.render(Part::Lobby);
            }
            lobby::Output::Ring => self.out.push_back(Output::Sound(Cue::Challenge)),
            lobby::Output::Changed => self.render(Part::Lobby),
            lobby::Output::Rejoin { from, msg } => self.comeback_message(now, &from, msg),
            lobby::Output::Watch { from, msg } => self.watch_message(now, &from, msg),
        }
    }

    /// Runs the room link and the lobby client until neither has more to
    /// say, then queues the redraws.
    fn pump(&mut self, now: Millis) {
        while self.drain_room(now) | self.drain_lobby(now) | self.drain_party(now) {}
        while self.drain_room(now) | self.drain_lobby(now) | self.drain_comeback(now) {}
        self.flush_dirty();
        debug_assert_eq!(
            self.game.match_tag().is_some(),
            self.in_match(),
            "a match's session runs exactly while the lobby status says in a match"
        );
        debug_assert_eq!(
            self.screens.screen() == &Screen::Match,
            self.in_match(),
            "the match screen shows exactly while the lobby status says in a match"
        );
    }

    /// Whether this page is in a match: the one owner of that fact is the
    /// challenge reducer (it is our lobby status, and makes us busy); the
    /// match driver, its link and the match screen follow it.
    fn in_match(&self) -> bool {
        self.client
            .as_ref()
            .is_some_and(|c| c.challenges().in_match || c.parties().in_match)
    }

    // ----- randomness --------------------------------------------------------

    /// A seed for a game (local play, or the host's match seed). Without
    /// random numbers the local game still plays, from seed 0; online play
    /// is not offered then.
    fn random_seed(&mut self) -> u64 {
        let mut b = [0u8; 8];
        if (self.random)(&mut b) {
            u64::from_le_bytes(b)
        } else {
            0
        }
    }

    /// A fresh peer id, or `None` without random numbers (an id of all `A`s
    /// would clash with every other such page).
    fn fresh_id(&mut self) -> Option<PeerId> {
        // Bytes of 248 and up are skipped, so 64 bytes give 12 characters
        // unless the source is very unlucky; then more are drawn.
        let mut bytes = vec![0u8; 64];
        if !(self.random)(&mut bytes) {
            return None;
        }
        let mut ok = true;
        let random = &mut self.random;
        let id = PeerId::generate(|| {
            if bytes.is_empty() {
                let mut more = vec![0u8; 64];
                if random(&mut more) {
                    bytes = more;
                } else {
                    ok = false;
                    return 0;
                }
            }
            bytes.pop().unwrap_or(0)
        });
        ok.then_some(id)
    }
}

/// The `iceServers` array of an `/ice` answer, as JSON; `None` if the
/// answer has none.
fn ice_servers_of(body: &str) -> Option<String> {
    let v: serde_json::Value = serde_json::from_str(body).ok()?;
    let servers = v.get("iceServers").filter(|s| s.is_array())?;
    Some(servers.to_string())
}

/// The room code of a `POST /rooms` answer.
fn room_code_of(body: &str) -> Option<RoomCode> {
    let v: serde_json::Value = serde_json::from_str(body).ok()?;
    RoomCode::parse(v.get("code")?.as_str()?)
}
