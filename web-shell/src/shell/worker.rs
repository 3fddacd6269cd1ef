//! The online match off the page's main thread: the messages between the
//! page and the dedicated worker that runs the match, and both of their
//! ends, sans-IO.
//!
//! A browser throttles a hidden tab's timers (to about one call a second
//! in Chromium), so a match run by the page's own timers crawls for both
//! players while one of them looks at another tab. A dedicated worker's
//! timers are not throttled: the worker holds a second instance of the
//! game's [`GameSlot`] and runs the match (session, game, timers) at
//! 60 Hz by itself. The page keeps its own slot for everything else
//! (title, local play, replays) and, through [`WorkerSlot`], only moves
//! the match link's datagrams to and from the worker, hands it the keys
//! held, shows the view the worker reports, and draws the picture the
//! worker records (see [`Call`]) when it asks for one, which it does only
//! while it paints, so a hidden page costs the worker no drawing.
//!
//! The worker's side is [`MatchWorker`]. Every message is a postcard-encoded
//! list ([`encode`]/[`decode`]), at most [`MAX_MESSAGE`] bytes, read
//! strictly (trailing bytes, an unknown variant or an oversized list are
//! refused and the message dropped).
//!
//! A worker that reports an error, or that says nothing for
//! [`SILENT_MS`] while a match runs (a worker reports every frame), is
//! taken for crashed: the page ends the match with [`CRASHED`], closes
//! the match link and starts a fresh worker for the next match.

use super::driver::{FrameReport, MatchEnd};
use super::game::{GameSlot, MatchIdentity};
use super::view::{LocalView, LogOffer, MatchView, ReplayView};
use crate::front_end::{About, Align, LocalOption, Painter};
use crate::play::FrameClock;
use crate::replay::{Control, Refusal};
use lockstep::{Channel, Millis, Outcome, PeerId, SessionConfig};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// The largest message either side accepts, in bytes. A busy frame's
/// picture is some tens of KiB; a datagram is at most a few KiB.
pub const MAX_MESSAGE: usize = 1 << 20;
/// The most drawing calls one picture may hold.
pub const MAX_CALLS: usize = 20_000;
/// The longest log line the worker hands the page (longer ones are cut).
pub const MAX_LOG_LINE: usize = 2_048;
/// The most keys held at once the worker is told about, and the longest
/// key code.
pub const MAX_HELD: usize = 32;
/// See [`MAX_HELD`].
pub const MAX_KEY_LEN: usize = 32;
/// How long a running match's worker may say nothing before the page
/// takes it for crashed (it reports every frame, 60 times a second).
pub const SILENT_MS: u64 = 3_000;
/// A page that has not looked at its worker for longer than this (its
/// frames 16 ms apart when it shows, about a second apart in a hidden tab)
/// was held up itself, and counts the worker's silence again.
pub const PAGE_HELD_UP_MS: u64 = 1_500;
/// How long a fresh worker may take to load and say it is ready.
pub const STARTUP_MS: u64 = 20_000;
/// What the page says when the worker refused a session configuration the
/// page's own slot accepted (a worker of another build: never in one page).
pub const REFUSED: &str = "Couldn't start the match.";
/// What the page says when the worker running its match crashed.
pub const CRASHED: &str = "The match stopped: the part of this page that runs it crashed. \
The other player sees you leave.";

/// From the page to the worker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum ToWorker {
    /// The next match this side hosts opens on game `game` of a hub.
    OpenOn(u32),
    /// Starts a match over the match link (`links` empty), or a party's
    /// match over these links.
    Start {
        /// The session's configuration (the worker's session checks it).
        cfg: SessionConfig,
        /// The party's links, in the caller's order; empty for a match of
        /// two over the match link.
        links: Vec<u16>,
    },
    /// The running match goes on over a fresh match link.
    Relink,
    /// A datagram from the match link (`link` `None`) or a party link.
    Datagram {
        /// The party link, or `None` for the match link.
        link: Option<u16>,
        /// Which channel it came on.
        reliable: bool,
        /// The bytes, as received.
        bytes: Vec<u8>,
    },
    /// The match link (`None`) or a party link closed or failed.
    LinkLost(Option<u16>),
    /// The bytes queued to send on the match link (`None`) or a party
    /// link.
    Backlog {
        /// Which link.
        link: Option<u16>,
        /// Its `bufferedAmount`.
        bytes: u64,
    },
    /// The keys held now and how the match link goes ("direct" or
    /// "relayed"), sent when either changes.
    Input {
        /// Key codes, as the page's keys, pad and touch overlay hold them.
        held: Vec<String>,
        /// The match view's `path`.
        path: Option<String>,
    },
    /// The person leaves the match.
    Quit,
    /// Forget the match.
    Drop,
    /// Forget the last match's result.
    Forget,
    /// Record a picture of the match for a canvas of this size (CSS
    /// pixels) after the next frame (or, between matches, of the last
    /// match's result, at once).
    Paint(f64, f64),
    /// Crash on purpose (for the test that the page copes).
    Crash,
}

/// From the worker to the page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum FromWorker {
    /// The worker runs and has a game.
    Ready,
    /// The worker has no game to run (the page's module did not hand it
    /// one): the page cannot play online through it.
    NoGame,
    /// Whether the last [`ToWorker::Start`] was accepted.
    Started(bool),
    /// A datagram for the match link (`None`) or a party link.
    Send {
        /// The party link, or `None` for the match link.
        link: Option<u16>,
        /// Which channel to send it on.
        reliable: bool,
        /// The bytes.
        bytes: Vec<u8>,
    },
    /// One frame ran.
    Frame {
        /// A tick ran in it.
        ticked: bool,
        /// What the page shows.
        view: WireView,
    },
    /// The running match's identity changed.
    Identity(Option<WireIdentity>),
    /// Whether the running match can stream to a spectator, or the game
    /// it plays, changed (see [`GameSlot::match_watchable`] and
    /// [`GameSlot::match_game`]).
    Watchable {
        /// It can.
        watchable: bool,
        /// The game of a hub's list it plays now.
        game: Option<u32>,
    },
    /// A picture of the match.
    Picture(Vec<Call>),
    /// The match ended (its last datagrams were sent before this).
    Ended(WireEnd),
    /// A line of the worker's log, which the page logs as its own (one
    /// console for the page and its match): 1 error, 2 warning, 3 info.
    Log(u8, String),
}

/// [`MatchIdentity`] on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct WireIdentity {
    /// See [`MatchIdentity::side`].
    pub side: u8,
    /// See [`MatchIdentity::match_id`].
    pub match_id: u64,
    /// See [`MatchIdentity::token`].
    pub token: Option<u64>,
}

/// How the match ended, on the wire.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WireEnd {
    /// The session's outcome.
    pub outcome: WireOutcome,
    /// What the result screen says.
    pub message: String,
    /// The input log.
    pub log: Option<WireOffer>,
    /// The desync report.
    pub report: Option<WireOffer>,
    /// The result's picture, when the game keeps one.
    pub result: Option<Vec<Call>>,
}

/// A [`LogOffer`] on the wire.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WireOffer {
    /// See [`LogOffer::bytes`].
    pub bytes: Vec<u8>,
    /// See [`LogOffer::file_name`].
    pub file_name: String,
    /// See [`LogOffer::start`].
    pub start: u32,
    /// See [`LogOffer::ticks`].
    pub ticks: u32,
    /// See [`LogOffer::hash`].
    pub hash: u64,
}

impl From<LogOffer> for WireOffer {
    fn from(o: LogOffer) -> Self {
        WireOffer {
            bytes: o.bytes,
            file_name: o.file_name,
            start: o.start,
            ticks: o.ticks,
            hash: o.hash,
        }
    }
}

impl From<WireOffer> for LogOffer {
    fn from(o: WireOffer) -> Self {
        LogOffer {
            bytes: o.bytes,
            file_name: o.file_name,
            start: o.start,
            ticks: o.ticks,
            hash: o.hash,
        }
    }
}

/// The words a [`MatchView`] holds as `&'static str`: anything else is
/// dropped on the way.
const WORDS: [&str; 7] = [
    "connected",
    "running",
    "ended",
    "lockstep",
    "rollback",
    "direct",
    "relayed",
];

fn word(w: Option<&str>) -> Option<&'static str> {
    let w = w?;
    WORDS.iter().copied().find(|k| *k == w)
}

/// The parts of a [`MatchView`] the game's slot writes, on the wire. The
/// others (`path`, `accept_to_tick_ms`, `frames`, `frame_ms`,
/// `reconnecting`) are the page's shell's own and stay on the page.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct WireView {
    state: Option<String>,
    side: Option<u8>,
    present_tick: Option<u32>,
    tick: Option<u32>,
    hash: Option<u64>,
    input: Option<String>,
    summary: Option<String>,
    confirmed_summary: Option<String>,
    mode: Option<String>,
    delay: Option<u8>,
    ping: Option<u64>,
    waiting: bool,
    stats: Option<String>,
    first_tick_ms: Option<u64>,
    quality: Option<u8>,
    held: Option<(u8, u64)>,
    benched: Option<u8>,
    /// The session holds the host's slot (a party guest's page then
    /// comes back, see `Shell::party_host_silent`).
    host_held: bool,
    held_slots: u8,
    /// The slot that hosts now, and the one the host's place just moved
    /// to (for a few seconds).
    host: Option<u8>,
    moved_to: Option<u8>,
    rejoined: Option<u32>,
    /// How many watch the match (the session's spectators).
    watching: u8,
    status: String,
    headline: String,
}

impl WireView {
    /// The slot's part of `v`.
    #[must_use]
    pub fn of(v: &MatchView) -> WireView {
        use crate::quality::Quality;
        WireView {
            state: v.state.map(str::to_owned),
            side: v.side,
            present_tick: v.present_tick,
            tick: v.tick,
            hash: v.hash,
            input: v.input.clone(),
            summary: v.summary.clone(),
            confirmed_summary: v.confirmed_summary.clone(),
            mode: v.mode.map(str::to_owned),
            delay: v.delay,
            ping: v.ping,
            waiting: v.waiting,
            stats: v.stats.clone(),
            first_tick_ms: v.first_tick_ms,
            quality: v.quality.map(|q| match q {
                Quality::Good => 0,
                Quality::Fair => 1,
                Quality::Poor => 2,
            }),
            held: v.held,
            benched: v.benched,
            host_held: v.host_held,
            held_slots: v.held_slots,
            host: v.host,
            moved_to: v.moved_to,
            rejoined: v.rejoined,
            watching: v.watching,
            status: v.status.clone(),
            headline: v.headline.clone(),
        }
    }

    /// Writes the slot's part into `v`, leaving the shell's own part.
    pub fn apply(self, v: &mut MatchView) {
        use crate::quality::Quality;
        v.state = word(self.state.as_deref());
        v.side = self.side;
        v.present_tick = self.present_tick;
        v.tick = self.tick;
        v.hash = self.hash;
        v.input = self.input;
        v.summary = self.summary;
        v.confirmed_summary = self.confirmed_summary;
        v.mode = word(self.mode.as_deref());
        v.delay = self.delay;
        v.ping = self.ping;
        v.waiting = self.waiting;
        v.stats = self.stats;
        v.first_tick_ms = self.first_tick_ms;
        v.quality = match self.quality {
            Some(0) => Some(Quality::Good),
            Some(1) => Some(Quality::Fair),
            Some(2) => Some(Quality::Poor),
            _ => None,
        };
        v.held = self.held;
        v.benched = self.benched;
        v.host_held = self.host_held;
        v.held_slots = self.held_slots;
        v.host = self.host;
        v.moved_to = self.moved_to;
        v.rejoined = self.rejoined;
        v.watching = self.watching;
        v.status = self.status;
        v.headline = self.headline;
    }
}

/// A session's outcome on the wire, with its details, so that the page
/// holds the outcome the worker's session reached (a desync with its tick
/// and hashes, a version mismatch with both versions, the slot of a player
/// who left, why a rejoin was refused). What a desync found about the
/// game's parts stays in the worker: its words are in the end's message,
/// its detail in the desync report. An outcome with details of the
/// engine's own kinds (bad data from the peer, a refused spectator) or one
/// the engine may add later travels as [`WireOutcome::Other`], read back as
/// [`Outcome::TransportLost`]; the message still carries its words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum WireOutcome {
    /// [`Outcome::LocalQuit`].
    LocalQuit,
    /// [`Outcome::RemoteQuit`].
    RemoteQuit,
    /// [`Outcome::TransportLost`].
    TransportLost,
    /// [`Outcome::Timeout`].
    Timeout,
    /// [`Outcome::HandshakeTimeout`].
    HandshakeTimeout,
    /// [`Outcome::NoProgress`].
    NoProgress,
    /// [`Outcome::Desync`], without its parts.
    Desync {
        /// The first tick found to differ.
        tick: u32,
        /// This side's hash there.
        local: u64,
        /// The peer's hash there.
        remote: u64,
        /// The slots whose hash differs.
        slots: Vec<u8>,
    },
    /// [`Outcome::VersionMismatch`]: protocol and build of each side.
    VersionMismatch {
        /// This side's version.
        local: (u32, Option<u64>),
        /// The peer's, if its Hello arrived.
        remote: Option<(u32, Option<u64>)>,
    },
    /// [`Outcome::PlayerLeft`].
    PlayerLeft {
        /// The slot of the player that left.
        slot: u8,
    },
    /// [`Outcome::RejoinRefused`]: 0 wrong token, 1 slot live, 2 slot not
    /// held, 3 host unable (any other number reads as host unable).
    RejoinRefused(u8),
    /// Any other outcome.
    Other,
}

impl WireOutcome {
    /// `o` on the wire.
    #[must_use]
    pub fn of(o: &Outcome) -> WireOutcome {
        use lockstep::RejoinRefusal as R;
        let version = |v: &lockstep::Version| (v.protocol, v.build);
        match o {
            Outcome::LocalQuit => WireOutcome::LocalQuit,
            Outcome::RemoteQuit => WireOutcome::RemoteQuit,
            Outcome::TransportLost => WireOutcome::TransportLost,
            Outcome::Timeout => WireOutcome::Timeout,
            Outcome::HandshakeTimeout => WireOutcome::HandshakeTimeout,
            Outcome::NoProgress => WireOutcome::NoProgress,
            Outcome::Desync {
                tick,
                local,
                remote,
                slots,
                ..
            } => WireOutcome::Desync {
                tick: *tick,
                local: *local,
                remote: *remote,
                slots: slots.clone(),
            },
            Outcome::VersionMismatch { local, remote } => WireOutcome::VersionMismatch {
                local: version(local),
                remote: remote.as_ref().map(version),
            },
            Outcome::PlayerLeft { slot } => WireOutcome::PlayerLeft { slot: *slot },
            Outcome::RejoinRefused { why } => WireOutcome::RejoinRefused(match why {
                R::WrongToken => 0,
                R::SlotLive => 1,
                R::SlotNotHeld => 2,
                _ => 3,
            }),
            _ => WireOutcome::Other,
        }
    }

    /// The outcome on the page.
    #[must_use]
    pub fn outcome(self) -> Outcome {
        use lockstep::RejoinRefusal as R;
        let version = |(protocol, build)| lockstep::Version { protocol, build };
        match self {
            WireOutcome::LocalQuit => Outcome::LocalQuit,
            WireOutcome::RemoteQuit => Outcome::RemoteQuit,
            WireOutcome::TransportLost | WireOutcome::Other => Outcome::TransportLost,
            WireOutcome::Timeout => Outcome::Timeout,
            WireOutcome::HandshakeTimeout => Outcome::HandshakeTimeout,
            WireOutcome::NoProgress => Outcome::NoProgress,
            WireOutcome::Desync {
                tick,
                local,
                remote,
                slots,
            } => Outcome::Desync {
                tick,
                local,
                remote,
                parts: lockstep::DesyncParts::default(),
                slots,
            },
            WireOutcome::VersionMismatch { local, remote } => Outcome::VersionMismatch {
                local: version(local),
                remote: remote.map(version),
            },
            WireOutcome::PlayerLeft { slot } => Outcome::PlayerLeft { slot },
            WireOutcome::RejoinRefused(why) => Outcome::RejoinRefused {
                why: match why {
                    0 => R::WrongToken,
                    1 => R::SlotLive,
                    2 => R::SlotNotHeld,
                    _ => R::HostUnable,
                },
            },
        }
    }
}

/// One [`Painter`] call, recorded in the worker and made again on the
/// page's canvas. Recording the painter's calls (rather than the canvas
/// calls they turn into) keeps the page's canvas code the only one, and
/// makes the picture as exact as drawing the game on the page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Call {
    /// [`Painter::clear`].
    Clear(String),
    /// [`Painter::rect`].
    Rect(f64, f64, f64, f64, String),
    /// [`Painter::circle`].
    Circle(f64, f64, f64, String),
    /// [`Painter::text`].
    Text(f64, f64, String, String),
    /// [`Painter::line`].
    Line(f64, f64, f64, f64, f64, String),
    /// [`Painter::ellipse`].
    Ellipse(f64, f64, f64, f64, String),
    /// [`Painter::arc`].
    Arc([f64; 7], String),
    /// [`Painter::polygon`].
    Polygon(Vec<(f64, f64)>, String),
    /// [`Painter::set_alpha`].
    Alpha(f64),
    /// [`Painter::set_font`]: size, bold, align (0 left, 1 centre, 2
    /// right).
    Font(f64, bool, u8),
}

/// A [`Painter`] that records its calls, up to [`MAX_CALLS`] (a game that
/// draws more loses the rest of its picture, not the match).
#[derive(Debug)]
pub struct Recorder {
    size: (f64, f64),
    calls: Vec<Call>,
}

impl Recorder {
    /// An empty recording for a canvas of `size` CSS pixels.
    #[must_use]
    pub fn new(size: (f64, f64)) -> Recorder {
        Recorder {
            size,
            calls: Vec::new(),
        }
    }

    /// The calls recorded.
    #[must_use]
    pub fn into_calls(self) -> Vec<Call> {
        self.calls
    }

    fn push(&mut self, c: Call) {
        if self.calls.len() < MAX_CALLS {
            self.calls.push(c);
        }
    }
}

impl Painter for Recorder {
    fn size(&self) -> (f64, f64) {
        self.size
    }
    fn clear(&mut self, colour: &str) {
        self.push(Call::Clear(colour.to_owned()));
    }
    fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, colour: &str) {
        self.push(Call::Rect(x, y, w, h, colour.to_owned()));
    }
    fn circle(&mut self, x: f64, y: f64, r: f64, colour: &str) {
        self.push(Call::Circle(x, y, r, colour.to_owned()));
    }
    fn text(&mut self, x: f64, y: f64, text: &str, colour: &str) {
        self.push(Call::Text(x, y, text.to_owned(), colour.to_owned()));
    }
    fn line(&mut self, x0: f64, y0: f64, x1: f64, y1: f64, width: f64, colour: &str) {
        self.push(Call::Line(x0, y0, x1, y1, width, colour.to_owned()));
    }
    fn ellipse(&mut self, x: f64, y: f64, rx: f64, ry: f64, colour: &str) {
        self.push(Call::Ellipse(x, y, rx, ry, colour.to_owned()));
    }
    fn arc(&mut self, x: f64, y: f64, rx: f64, ry: f64, a: f64, b: f64, width: f64, colour: &str) {
        self.push(Call::Arc([x, y, rx, ry, a, b, width], colour.to_owned()));
    }
    fn polygon(&mut self, points: &[(f64, f64)], colour: &str) {
        self.push(Call::Polygon(points.to_vec(), colour.to_owned()));
    }
    fn set_alpha(&mut self, alpha: f64) {
        self.push(Call::Alpha(alpha));
    }
    fn set_font(&mut self, size: f64, bold: bool, align: Align) {
        let a = match align {
            Align::Left => 0,
            Align::Center => 1,
            Align::Right => 2,
        };
        self.push(Call::Font(size, bold, a));
    }
}

/// Makes `calls` again on `painter`.
pub fn replay(calls: &[Call], painter: &mut dyn Painter) {
    for c in calls {
        match c {
            Call::Clear(k) => painter.clear(k),
            Call::Rect(x, y, w, h, k) => painter.rect(*x, *y, *w, *h, k),
            Call::Circle(x, y, r, k) => painter.circle(*x, *y, *r, k),
            Call::Text(x, y, t, k) => painter.text(*x, *y, t, k),
            Call::Line(x0, y0, x1, y1, w, k) => painter.line(*x0, *y0, *x1, *y1, *w, k),
            Call::Ellipse(x, y, rx, ry, k) => painter.ellipse(*x, *y, *rx, *ry, k),
            Call::Arc([x, y, rx, ry, a, b, w], k) => painter.arc(*x, *y, *rx, *ry, *a, *b, *w, k),
            Call::Polygon(p, k) => painter.polygon(p, k),
            Call::Alpha(a) => painter.set_alpha(*a),
            Call::Font(s, b, a) => painter.set_font(
                *s,
                *b,
                match a {
                    1 => Align::Center,
                    2 => Align::Right,
                    _ => Align::Left,
                },
            ),
        }
    }
}

/// Why a message was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WireError {
    /// Over [`MAX_MESSAGE`] bytes.
    TooLarge,
    /// Not a list of this side's messages (or bytes after it).
    Malformed,
    /// Within the size, but over one of the other caps (keys held, calls).
    OverCap,
}

/// One post's worth of messages, encoded. A list too large for
/// [`MAX_MESSAGE`] is refused (the caller logs and drops it).
///
/// # Errors
///
/// [`WireError::TooLarge`].
pub fn encode<T: Serialize>(msgs: &[T]) -> Result<Vec<u8>, WireError> {
    let bytes = postcard::to_allocvec(msgs).map_err(|_| WireError::Malformed)?;
    if bytes.len() > MAX_MESSAGE {
        return Err(WireError::TooLarge);
    }
    Ok(bytes)
}

/// A post's messages, read strictly.
///
/// # Errors
///
/// See [`WireError`].
pub fn decode<T: for<'de> Deserialize<'de> + Capped>(bytes: &[u8]) -> Result<Vec<T>, WireError> {
    if bytes.len() > MAX_MESSAGE {
        return Err(WireError::TooLarge);
    }
    let (msgs, rest): (Vec<T>, _) =
        postcard::take_from_bytes(bytes).map_err(|_| WireError::Malformed)?;
    if !rest.is_empty() {
        return Err(WireError::Malformed);
    }
    if msgs.iter().all(Capped::within_caps) {
        Ok(msgs)
    } else {
        Err(WireError::OverCap)
    }
}

/// The caps a decoded message must keep beyond its size.
pub trait Capped {
    /// Whether it keeps them.
    fn within_caps(&self) -> bool;
}

impl Capped for ToWorker {
    fn within_caps(&self) -> bool {
        match self {
            ToWorker::Input { held, path } => {
                held.len() <= MAX_HELD
                    && held.iter().all(|k| k.len() <= MAX_KEY_LEN)
                    && path.as_ref().is_none_or(|p| p.len() <= MAX_KEY_LEN)
            }
            ToWorker::Start { links, .. } => links.len() <= 16,
            ToWorker::Paint(w, h) => w.is_finite() && h.is_finite() && *w >= 0.0 && *h >= 0.0,
            _ => true,
        }
    }
}

impl Capped for FromWorker {
    fn within_caps(&self) -> bool {
        match self {
            FromWorker::Picture(c) => c.len() <= MAX_CALLS,
            FromWorker::Ended(e) => e.result.as_ref().is_none_or(|c| c.len() <= MAX_CALLS),
            FromWorker::Log(level, text) => (1..=3).contains(level) && text.len() <= MAX_LOG_LINE,
            _ => true,
        }
    }
}

/// The level a worker's log line carries in [`FromWorker::Log`]: 1 an
/// error, 2 a warning, 3 anything else (the page logs it as information).
#[must_use]
pub fn log_level(level: log::Level) -> u8 {
    match level {
        log::Level::Error => 1,
        log::Level::Warn => 2,
        _ => 3,
    }
}

/// Why a worker failed, from its `error` (or `messageerror`) event's
/// `message`, which not every such event has.
#[must_use]
pub fn error_text(message: Option<String>) -> String {
    message.unwrap_or_else(|| "an error event".to_owned())
}

/// The post that tells a worker to crash (for the test that the page
/// then ends its match cleanly).
#[must_use]
pub fn crash_post() -> Option<Vec<u8>> {
    encode(&[ToWorker::Crash]).ok()
}

/// The game the page runs: `game` with its matches in workers that
/// `spawn` starts ([`WorkerSlot`]) when it runs them there
/// ([`GameSlot::match_in_worker`]) and the page's address (`search`)
/// lets it ([`wanted`]); else `game` itself.
#[must_use]
pub fn place(game: Box<dyn GameSlot>, search: &str, spawn: Spawn) -> Box<dyn GameSlot> {
    if game.match_in_worker() && wanted(search) {
        Box::new(WorkerSlot::new(game, spawn))
    } else {
        game
    }
}

/// Whether the page's address lets the match run in a worker: yes unless
/// it says `match-worker=off` (to measure or compare the page running the
/// match itself).
#[must_use]
pub fn wanted(search: &str) -> bool {
    !search
        .trim_start_matches('?')
        .split('&')
        .any(|kv| kv == "match-worker=off")
}

fn channel(reliable: bool) -> Channel {
    if reliable {
        Channel::Reliable
    } else {
        Channel::Unreliable
    }
}

/// The worker's end: the game's slot, running its match by itself.
///
/// Calling contract: [`handle`](Self::handle) each post from the page,
/// [`tick`](Self::tick) every few milliseconds (it runs a frame when one
/// is due), and after every call drain [`poll`](Self::poll) to the page.
pub struct MatchWorker {
    slot: Option<Box<dyn GameSlot>>,
    held: Vec<String>,
    path: Option<&'static str>,
    view: MatchView,
    clock: FrameClock,
    running: bool,
    links: Vec<PeerId>,
    /// The links beyond a party's own (or a match of two's match link)
    /// that datagrams came over: on the host, its spectators' (the
    /// session answers them on the same link).
    watchers: Vec<PeerId>,
    /// A picture was asked for since the last.
    paint: bool,
    /// The canvas size the page last drew at (CSS pixels).
    size: (f64, f64),
    identity: Option<WireIdentity>,
    /// What the page was last told of [`GameSlot::match_watchable`] and
    /// [`GameSlot::match_game`].
    watchable: (bool, Option<u32>),
    out: Vec<FromWorker>,
    dropped: u32,
}

impl MatchWorker {
    /// A worker running matches of `slot` (`None`: the page's module gave
    /// the worker no game; it says so and plays nothing).
    #[must_use]
    pub fn new(slot: Option<Box<dyn GameSlot>>) -> MatchWorker {
        let hello = if slot.is_some() {
            FromWorker::Ready
        } else {
            FromWorker::NoGame
        };
        MatchWorker {
            slot,
            held: Vec::new(),
            path: None,
            view: MatchView::default(),
            clock: FrameClock::default(),
            running: false,
            links: Vec::new(),
            watchers: Vec::new(),
            paint: false,
            size: (800.0, 450.0),
            identity: None,
            watchable: (false, None),
            out: vec![hello],
            dropped: 0,
        }
    }

    /// Hands the page a line of the worker's log (`level` as in
    /// [`FromWorker::Log`]).
    pub fn log(&mut self, level: u8, text: &str) {
        let mut end = text.len().min(MAX_LOG_LINE);
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        self.out
            .push(FromWorker::Log(level.clamp(1, 3), text[..end].to_owned()));
    }

    /// Whether a match runs.
    #[must_use]
    pub fn running(&self) -> bool {
        self.running
    }

    /// Posts from the page that were refused.
    #[must_use]
    pub fn dropped(&self) -> u32 {
        self.dropped
    }

    /// A post from the page, as bytes. `true` when it asks the worker to
    /// crash (the glue then throws).
    pub fn handle_bytes(&mut self, now: Millis, bytes: &[u8]) -> bool {
        match decode::<ToWorker>(bytes) {
            Ok(msgs) => {
                let mut crash = false;
                for m in msgs {
                    crash |= m == ToWorker::Crash;
                    self.handle(now, m);
                }
                crash
            }
            Err(e) => {
                self.dropped += 1;
                log::warn!("match worker: a post from the page was refused ({e:?})");
                false
            }
        }
    }

    /// One message from the page.
    pub fn handle(&mut self, now: Millis, msg: ToWorker) {
        let Some(slot) = self.slot.as_mut() else {
            return;
        };
        match msg {
            ToWorker::OpenOn(g) => slot.open_on(g as usize),
            ToWorker::Start { cfg, links } => {
                if self.running {
                    slot.drop_match();
                }
                slot.forget_result();
                self.links = links.iter().copied().map(PeerId).collect();
                self.watchers.clear();
                self.view = MatchView {
                    path: self.path,
                    ..MatchView::default()
                };
                // The tag only tells attempts apart on the page; here there
                // is one match at a time.
                let ok = if self.links.is_empty() {
                    slot.start_match(cfg, now, 0)
                } else {
                    slot.start_party(cfg, now, 0, &self.links)
                };
                self.running = ok;
                self.identity = None;
                self.watchable = (false, None);
                self.out.push(FromWorker::Started(ok));
            }
            ToWorker::Relink => {
                slot.match_relink(now, 0);
            }
            ToWorker::Datagram {
                link,
                reliable,
                bytes,
            } => match link {
                None => slot.match_datagram(now, channel(reliable), &bytes),
                Some(l) => {
                    // Any other link is a spectator's (in a match of two,
                    // every one is), which the session answers on it.
                    let link = PeerId(l);
                    if !self.links.contains(&link) && !self.watchers.contains(&link) {
                        self.watchers.push(link);
                    }
                    slot.party_datagram(now, link, channel(reliable), &bytes);
                }
            },
            ToWorker::LinkLost(None) => slot.match_link_lost(now),
            ToWorker::LinkLost(Some(l)) => {
                self.watchers.retain(|w| w.0 != l);
                slot.party_link_lost(now, PeerId(l));
            }
            ToWorker::Backlog { link, bytes } => {
                let bytes = usize::try_from(bytes).unwrap_or(usize::MAX);
                match link {
                    None => slot.match_backlog(now, bytes),
                    Some(l) => slot.party_backlog(now, PeerId(l), bytes),
                }
            }
            ToWorker::Input { held, path } => {
                self.held = held;
                self.path = word(path.as_deref());
                self.view.path = self.path;
            }
            ToWorker::Quit => slot.quit_match(now),
            ToWorker::Drop => {
                if self.running {
                    slot.drop_match();
                    slot.forget_result();
                    self.running = false;
                }
            }
            ToWorker::Paint(w, h) => {
                self.paint = true;
                self.size = (w, h);
                if !self.running && slot.has_result() {
                    self.paint = false;
                    let mut r = Recorder::new(self.size);
                    slot.paint(&mut r);
                    self.out.push(FromWorker::Picture(r.into_calls()));
                }
            }
            ToWorker::Forget => slot.forget_result(),
            ToWorker::Crash => {}
        }
        self.flush_sends();
    }

    /// Runs a frame if one is due at `now`.
    pub fn tick(&mut self, now: Millis) {
        #[allow(clippy::cast_precision_loss)]
        if !self.running || !self.clock.due(now.0 as f64) {
            self.flush_sends();
            return;
        }
        let Some(slot) = self.slot.as_mut() else {
            return;
        };
        let held: Vec<&str> = self.held.iter().map(String::as_str).collect();
        let report = slot.match_frame(now, &held, &mut self.view);
        self.flush_sends();
        self.out.push(FromWorker::Frame {
            ticked: report.ticked,
            view: WireView::of(&self.view),
        });
        if let Some(end) = report.ended {
            self.end(end);
            return;
        }
        if std::mem::take(&mut self.paint) {
            if let Some(slot) = self.slot.as_mut() {
                let mut r = Recorder::new(self.size);
                slot.paint(&mut r);
                self.out.push(FromWorker::Picture(r.into_calls()));
            }
        }
    }

    fn end(&mut self, end: MatchEnd) {
        let Some(slot) = self.slot.as_mut() else {
            return;
        };
        slot.drop_match();
        self.running = false;
        let result = slot.has_result().then(|| {
            let mut r = Recorder::new(self.size);
            slot.paint(&mut r);
            r.into_calls()
        });
        self.out.push(FromWorker::Ended(WireEnd {
            outcome: WireOutcome::of(&end.outcome),
            message: end.message,
            log: end.log.map(WireOffer::from),
            report: end.report.map(WireOffer::from),
            result,
        }));
    }

    fn flush_sends(&mut self) {
        let Some(slot) = self.slot.as_mut() else {
            return;
        };
        // A party's match has only its party links (one of which may have
        // the number the match link of two has).
        while let Some((ch, bytes)) = self
            .links
            .is_empty()
            .then(|| slot.poll_match_transmit())
            .flatten()
        {
            self.out.push(FromWorker::Send {
                link: None,
                reliable: ch == Channel::Reliable,
                bytes,
            });
        }
        for l in self.links.iter().chain(&self.watchers) {
            while let Some((ch, bytes)) = slot.poll_party_transmit(*l) {
                self.out.push(FromWorker::Send {
                    link: Some(l.0),
                    reliable: ch == Channel::Reliable,
                    bytes,
                });
            }
        }
        let id = slot.match_identity().map(|i| WireIdentity {
            side: i.side,
            match_id: i.match_id,
            token: i.token,
        });
        if id != self.identity {
            self.identity = id;
            self.out.push(FromWorker::Identity(id));
        }
        let game = slot
            .match_game()
            .and_then(|g| u32::try_from(g).ok())
            .filter(|_| self.running);
        let watchable = (self.running && slot.match_watchable(), game);
        if watchable != self.watchable {
            self.watchable = watchable;
            self.out.push(FromWorker::Watchable {
                watchable: watchable.0,
                game: watchable.1,
            });
        }
    }

    /// The next post for the page, encoded: everything queued, split so
    /// that no post is over [`MAX_MESSAGE`] (a message too large alone is
    /// dropped and logged).
    pub fn poll(&mut self) -> Option<Vec<u8>> {
        while !self.out.is_empty() {
            let mut n = self.out.len();
            loop {
                match encode(&self.out[..n]) {
                    Ok(bytes) => {
                        self.out.drain(..n);
                        return Some(bytes);
                    }
                    Err(_) if n > 1 => n /= 2,
                    Err(e) => {
                        log::warn!("match worker: a message for the page was dropped ({e:?})");
                        self.out.remove(0);
                        break;
                    }
                }
            }
        }
        None
    }
}

/// The page's end of a worker: posts and reads encoded messages. The glue
/// implements it over a `Worker`; the native tests over a [`MatchWorker`]
/// in the same thread.
pub trait WorkerPort {
    /// Posts one encoded list of [`ToWorker`]s.
    fn post(&mut self, bytes: Vec<u8>);
    /// The next post from the worker, if one came.
    fn poll(&mut self) -> Option<Vec<u8>>;
    /// Why the worker failed (its error event), once it did.
    fn failed(&self) -> Option<String>;
}

/// Starts a worker for the page (`None` when the browser cannot).
pub type Spawn = Box<dyn FnMut() -> Option<Box<dyn WorkerPort>>>;

/// The page's worker and what it knows of it.
struct Port {
    port: Box<dyn WorkerPort>,
    ready: bool,
    /// The page's time when the worker was last heard (or started).
    heard: Millis,
    /// Something came since the page last looked at the time.
    fresh: bool,
    /// When the page last looked.
    looked: Millis,
}

/// The running match as the page sees it.
struct Online {
    tag: u32,
    view: Option<WireView>,
    ticked: bool,
    identity: Option<MatchIdentity>,
    /// The worker's match can stream to a spectator.
    watchable: bool,
    /// The game of a hub's list the worker's match plays now.
    game: Option<usize>,
    picture: Vec<Call>,
    end: Option<MatchEnd>,
    sends: VecDeque<(Option<u16>, Channel, Vec<u8>)>,
    held: Option<(Vec<String>, Option<&'static str>)>,
    size: Option<(f64, f64)>,
}

/// The page's slot: `inner` for everything but the online match, which
/// runs in a worker started by `spawn` (once, and again after a crash).
/// See the module documentation.
pub struct WorkerSlot {
    inner: Box<dyn GameSlot>,
    spawn: Spawn,
    port: Option<Port>,
    online: Option<Online>,
    /// The last match's result picture.
    finished: Option<Vec<Call>>,
    /// The canvas size the result picture was last asked for at.
    finished_size: Option<(f64, f64)>,
    /// The worker said it has no game: matches are refused.
    no_game: bool,
    /// Starts posted that the worker has not answered yet: until it has,
    /// what it posts belongs to an earlier match and is dropped.
    starts_pending: u32,
    /// The hub's game the next match this side hosts opens on.
    opened: Option<u32>,
}

impl WorkerSlot {
    /// `inner` with its matches in workers that `spawn` starts. The first
    /// starts now: loading the module in a worker takes a while (seconds
    /// on a busy machine), and a match whose worker is still loading does
    /// not answer the other player, who gives up after 5 s.
    #[must_use]
    pub fn new(inner: Box<dyn GameSlot>, spawn: Spawn) -> WorkerSlot {
        let mut slot = WorkerSlot {
            inner,
            spawn,
            port: None,
            online: None,
            finished: None,
            finished_size: None,
            no_game: false,
            starts_pending: 0,
            opened: None,
        };
        slot.respawn(Millis::ZERO);
        slot
    }

    /// A fresh worker in place of any other.
    fn respawn(&mut self, now: Millis) {
        self.port = (self.spawn)().map(|port| Port {
            port,
            ready: false,
            heard: now,
            fresh: false,
            looked: now,
        });
        if self.port.is_none() {
            log::error!("no worker for the match: the browser could not start one");
        }
    }

    fn post(&mut self, msgs: &[ToWorker]) {
        let Some(p) = self.port.as_mut() else { return };
        match encode(msgs) {
            Ok(bytes) => p.port.post(bytes),
            Err(e) => log::warn!("a message for the match worker was dropped ({e:?})"),
        }
    }

    /// Reads what the worker posted.
    fn pump(&mut self) {
        let Some(p) = self.port.as_mut() else { return };
        while let Some(bytes) = p.port.poll() {
            p.fresh = true;
            let msgs = match decode::<FromWorker>(&bytes) {
                Ok(m) => m,
                Err(e) => {
                    log::warn!("a post from the match worker was refused ({e:?})");
                    continue;
                }
            };
            for m in msgs {
                match m {
                    FromWorker::Ready => p.ready = true,
                    FromWorker::NoGame => {
                        log::error!("the match worker has no game: no online play");
                        self.no_game = true;
                    }
                    FromWorker::Log(level, text) => match level {
                        1 => log::error!("{text}"),
                        2 => log::warn!("{text}"),
                        _ => log::info!("{text}"),
                    },
                    FromWorker::Started(ok) => {
                        self.starts_pending = self.starts_pending.saturating_sub(1);
                        if let (false, 0, Some(o)) = (ok, self.starts_pending, self.online.as_mut())
                        {
                            log::error!("the match worker refused the session config");
                            o.end = Some(MatchEnd {
                                outcome: Outcome::TransportLost,
                                message: REFUSED.to_owned(),
                                log: None,
                                report: None,
                            });
                        }
                    }
                    m => {
                        if self.starts_pending > 0 {
                            continue;
                        }
                        match (self.online.as_mut(), m) {
                            (Some(o), m) => Self::take(o, m, &mut self.finished),
                            // The result drawn again at the canvas's size.
                            (None, FromWorker::Picture(c)) if self.finished.is_some() => {
                                self.finished = Some(c);
                            }
                            _ => {}
                        }
                    }
                }
            }
        }
    }

    fn take(o: &mut Online, m: FromWorker, finished: &mut Option<Vec<Call>>) {
        match m {
            FromWorker::Send {
                link,
                reliable,
                bytes,
            } => o.sends.push_back((link, channel(reliable), bytes)),
            FromWorker::Frame { ticked, view } => {
                o.ticked |= ticked;
                o.view = Some(view);
            }
            FromWorker::Identity(id) => {
                o.identity = id.map(|i| MatchIdentity {
                    side: i.side,
                    match_id: i.match_id,
                    token: i.token,
                });
            }
            FromWorker::Watchable { watchable, game } => {
                o.watchable = watchable;
                o.game = game.and_then(|g| usize::try_from(g).ok());
            }
            FromWorker::Picture(c) => o.picture = c,
            FromWorker::Ended(e) => {
                *finished = e.result;
                o.end = Some(MatchEnd {
                    outcome: e.outcome.outcome(),
                    message: e.message,
                    log: e.log.map(LogOffer::from),
                    report: e.report.map(LogOffer::from),
                });
            }
            FromWorker::Ready
            | FromWorker::NoGame
            | FromWorker::Started(_)
            | FromWorker::Log(..) => {}
        }
    }

    /// Why the worker is taken for crashed at `now`, if it is.
    fn crashed(&mut self, now: Millis) -> Option<String> {
        let p = self.port.as_mut()?;
        if let Some(why) = p.port.failed() {
            return Some(why);
        }
        // A page that was held up itself (its thread blocked, its timers
        // throttled hard) may look before it has run the worker's posts
        // waiting in its event queue: the silence is counted again from
        // this look.
        let held_up = now.0.saturating_sub(p.looked.0) > PAGE_HELD_UP_MS;
        p.looked = now;
        if std::mem::take(&mut p.fresh) || held_up {
            p.heard = now;
        }
        let limit = if p.ready { SILENT_MS } else { STARTUP_MS };
        (now.0.saturating_sub(p.heard.0) > limit)
            .then(|| format!("no word from it for {} ms", now.0.saturating_sub(p.heard.0)))
    }

    fn start(&mut self, now: Millis, tag: u32, start: ToWorker) -> bool {
        if self.no_game {
            return false;
        }
        if self.port.is_none() {
            self.respawn(now);
            if self.port.is_none() {
                return false;
            }
        }
        if let Some(p) = self.port.as_mut() {
            // The page's clock starts counting the worker's silence now,
            // not at its last word before this match.
            p.heard = now;
            p.looked = now;
            p.fresh = false;
        }
        self.finished = None;
        self.finished_size = None;
        self.online = Some(Online {
            tag,
            view: None,
            ticked: false,
            identity: None,
            watchable: false,
            game: None,
            picture: Vec::new(),
            end: None,
            sends: VecDeque::new(),
            held: None,
            size: None,
        });
        self.starts_pending += 1;
        // A hub's pick goes first (a fresh worker has not heard it).
        match self.opened {
            Some(g) => self.post(&[ToWorker::OpenOn(g), start]),
            None => self.post(&[start]),
        }
        true
    }
}

impl GameSlot for WorkerSlot {
    fn name(&self) -> &'static str {
        self.inner.name()
    }
    fn build_id(&self) -> u64 {
        self.inner.build_id()
    }
    fn about(&self) -> About {
        self.inner.about()
    }
    fn local_options(&self) -> &'static [LocalOption] {
        self.inner.local_options()
    }
    fn games(&self) -> &'static [&'static str] {
        self.inner.games()
    }
    fn open_on(&mut self, game: usize) {
        self.inner.open_on(game);
        self.opened = Some(u32::try_from(game).unwrap_or(u32::MAX));
    }
    fn pick(&mut self, game: usize) {
        self.inner.pick(game);
    }
    fn local_option_shown(&self, game: usize, option: usize) -> bool {
        self.inner.local_option_shown(game, option)
    }
    fn is_game_key(&self, code: &str) -> bool {
        self.inner.is_game_key(code)
    }
    fn start_local(&mut self, seed: u64, choices: &[usize]) {
        self.inner.start_local(seed, choices);
    }
    fn stop_local(&mut self) {
        self.inner.stop_local();
    }
    fn local_frame(&mut self, held: &[&str], steps: u32) -> LocalView {
        self.inner.local_frame(held, steps)
    }
    fn pad_key(&self, person: u8, button: crate::pad::Button) -> Option<&'static str> {
        self.inner.pad_key(person, button)
    }
    fn touch_buttons(&self) -> &'static [(crate::pad::Button, &'static str)] {
        self.inner.touch_buttons()
    }
    fn pad_controls(&self) -> &'static [(&'static str, &'static str)] {
        self.inner.pad_controls()
    }
    fn pads_connected(&mut self, count: usize) {
        self.inner.pads_connected(count);
    }
    fn start_match(&mut self, cfg: SessionConfig, now: Millis, tag: u32) -> bool {
        // The page's own slot says at once whether the session takes the
        // configuration (the worker's answer comes later).
        if !self.inner.start_match(cfg, now, tag) {
            return false;
        }
        self.inner.drop_match();
        self.inner.forget_result();
        self.start(
            now,
            tag,
            ToWorker::Start {
                cfg,
                links: Vec::new(),
            },
        )
    }
    fn match_tag(&self) -> Option<u32> {
        self.online.as_ref().map(|o| o.tag)
    }
    fn party(&self) -> crate::party::PartyRules {
        self.inner.party()
    }
    fn party_games(&self) -> Vec<crate::party::PartyGame> {
        self.inner.party_games()
    }
    fn takes_spectators(&self) -> bool {
        self.inner.takes_spectators()
    }
    // As the worker's slot says: a game's match may stream to spectators
    // in one kind of match and not another (a hub's).
    fn match_watchable(&self) -> bool {
        self.online.as_ref().is_some_and(|o| o.watchable)
    }
    fn match_game(&self) -> Option<usize> {
        self.online.as_ref()?.game
    }
    fn party_seed(&self, seed: u64, sides: &[u8], length: usize) -> Option<u64> {
        self.inner.party_seed(seed, sides, length)
    }
    fn start_party(&mut self, cfg: SessionConfig, now: Millis, tag: u32, links: &[PeerId]) -> bool {
        if !self.inner.start_party(cfg, now, tag, links) {
            return false;
        }
        self.inner.drop_match();
        self.inner.forget_result();
        let links = links.iter().map(|l| l.0).collect();
        self.start(now, tag, ToWorker::Start { cfg, links })
    }
    fn party_datagram(&mut self, _now: Millis, link: PeerId, channel: Channel, bytes: &[u8]) {
        self.post(&[ToWorker::Datagram {
            link: Some(link.0),
            reliable: channel == Channel::Reliable,
            bytes: bytes.to_vec(),
        }]);
    }
    fn party_link_lost(&mut self, _now: Millis, link: PeerId) {
        self.post(&[ToWorker::LinkLost(Some(link.0))]);
    }
    fn party_backlog(&mut self, _now: Millis, link: PeerId, bytes: usize) {
        self.post(&[ToWorker::Backlog {
            link: Some(link.0),
            bytes: bytes as u64,
        }]);
    }
    fn poll_party_transmit(&mut self, link: PeerId) -> Option<(Channel, Vec<u8>)> {
        self.pump();
        let o = self.online.as_mut()?;
        let i = o.sends.iter().position(|(l, _, _)| *l == Some(link.0))?;
        o.sends.remove(i).map(|(_, c, b)| (c, b))
    }
    fn rejoins(&self) -> bool {
        self.inner.rejoins()
    }
    fn host_rejoins(&self) -> bool {
        self.inner.host_rejoins()
    }
    fn match_identity(&self) -> Option<MatchIdentity> {
        self.online.as_ref()?.identity
    }
    // The worker's slot can take the player back only while its match
    // has an identity (a hub between games has none).
    fn match_relink(&mut self, _now: Millis, tag: u32) -> bool {
        if !self.inner.rejoins() {
            return false;
        }
        let Some(o) = self.online.as_mut().filter(|o| o.identity.is_some()) else {
            return false;
        };
        o.tag = tag;
        self.post(&[ToWorker::Relink]);
        true
    }
    fn match_datagram(&mut self, _now: Millis, channel: Channel, bytes: &[u8]) {
        self.post(&[ToWorker::Datagram {
            link: None,
            reliable: channel == Channel::Reliable,
            bytes: bytes.to_vec(),
        }]);
    }
    fn match_link_lost(&mut self, _now: Millis) {
        self.post(&[ToWorker::LinkLost(None)]);
    }
    fn match_backlog(&mut self, _now: Millis, bytes: usize) {
        self.post(&[ToWorker::Backlog {
            link: None,
            bytes: bytes as u64,
        }]);
    }
    fn match_frame(&mut self, now: Millis, held: &[&str], view: &mut MatchView) -> FrameReport {
        self.pump();
        if self.online.is_none() {
            return FrameReport::default();
        }
        if let Some(why) = self.crashed(now) {
            log::error!("the match worker crashed ({why}): the match ends");
            // A crashed worker is gone for good; a fresh one loads now,
            // ready for the next match.
            self.respawn(now);
            self.online = None;
            self.starts_pending = 0;
            view.state = Some("ended");
            return FrameReport {
                ticked: false,
                ended: Some(MatchEnd {
                    outcome: Outcome::TransportLost,
                    message: CRASHED.to_owned(),
                    log: None,
                    report: None,
                }),
            };
        }
        let Some(o) = self.online.as_mut() else {
            return FrameReport::default();
        };
        let input = (
            held.iter()
                .take(MAX_HELD)
                .map(|k| (*k).to_owned())
                .collect::<Vec<_>>(),
            view.path,
        );
        let mut posts = Vec::new();
        if o.held.as_ref() != Some(&input) {
            posts.push(ToWorker::Input {
                held: input.0.clone(),
                path: input.1.map(str::to_owned),
            });
            o.held = Some(input);
        }
        if let Some(v) = o.view.take() {
            v.apply(view);
        }
        let report = FrameReport {
            ticked: std::mem::take(&mut o.ticked),
            ended: o.end.take(),
        };
        if !posts.is_empty() {
            self.post(&posts);
        }
        report
    }
    fn poll_match_transmit(&mut self) -> Option<(Channel, Vec<u8>)> {
        self.pump();
        let o = self.online.as_mut()?;
        let i = o.sends.iter().position(|(l, _, _)| l.is_none())?;
        o.sends.remove(i).map(|(_, c, b)| (c, b))
    }
    fn quit_match(&mut self, _now: Millis) {
        self.post(&[ToWorker::Quit]);
    }
    fn drop_match(&mut self) {
        if self.online.take().is_some() {
            self.post(&[ToWorker::Drop]);
        }
    }
    fn has_result(&self) -> bool {
        self.finished.is_some() || self.inner.has_result()
    }
    fn forget_result(&mut self) {
        if self.finished.take().is_some() {
            self.post(&[ToWorker::Forget]);
        }
        self.finished_size = None;
        self.inner.forget_result();
    }
    fn restart_local(&mut self, seed: u64) {
        self.inner.restart_local(seed);
    }
    fn paint(&mut self, painter: &mut dyn Painter) {
        if let Some(o) = self.online.as_mut() {
            // The picture shown is the worker's newest; the next is asked
            // for now, at this canvas's size (a page that stops painting,
            // hidden, stops asking and the worker stops drawing).
            let size = painter.size();
            replay(&o.picture, painter);
            o.size = Some(size);
            self.post(&[ToWorker::Paint(size.0, size.1)]);
            return;
        }
        let mut r = Recorder::new(painter.size());
        self.inner.paint(&mut r);
        let calls = r.into_calls();
        if calls.is_empty() {
            self.pump();
            if let Some(f) = &self.finished {
                replay(f, painter);
                // Drawn for another size (a resized window): the worker
                // draws the result again at this one.
                let size = painter.size();
                if self.finished_size != Some(size) {
                    self.finished_size = Some(size);
                    self.post(&[ToWorker::Paint(size.0, size.1)]);
                }
            }
        } else {
            replay(&calls, painter);
        }
    }
    fn log_hash_at(&self, log: &LogOffer, tick: u32) -> Option<u64> {
        self.inner.log_hash_at(log, tick)
    }
    fn local_log(&self) -> Option<LogOffer> {
        self.inner.local_log()
    }
    fn open_replay(&mut self, bytes: &[u8]) -> Result<(), Refusal> {
        self.inner.open_replay(bytes)
    }
    fn close_replay(&mut self) {
        self.inner.close_replay();
    }
    fn replay_control(&mut self, c: Control) {
        self.inner.replay_control(c);
    }
    fn replay_frame(&mut self) -> bool {
        self.inner.replay_frame()
    }
    fn replay_view(&self) -> Option<ReplayView> {
        self.inner.replay_view()
    }
    fn match_in_worker(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::canvas::DrawList;
    use crate::shell::game::lockstep_slot;
    use crate::testing::TestDotsFrontEnd;
    use std::cell::{Cell, RefCell};
    use std::rc::Rc;

    /// A worker in the same thread: what the page posts is handled at the
    /// shared clock's time; what the worker posts waits for the page.
    struct LocalPort {
        worker: Rc<RefCell<MatchWorker>>,
        clock: Rc<Cell<u64>>,
        inbox: Rc<RefCell<VecDeque<Vec<u8>>>>,
        failed: Rc<RefCell<Option<String>>>,
    }

    impl WorkerPort for LocalPort {
        fn post(&mut self, bytes: Vec<u8>) {
            let mut w = self.worker.borrow_mut();
            w.handle_bytes(Millis(self.clock.get()), &bytes);
            while let Some(b) = w.poll() {
                self.inbox.borrow_mut().push_back(b);
            }
        }
        fn poll(&mut self) -> Option<Vec<u8>> {
            self.inbox.borrow_mut().pop_front()
        }
        fn failed(&self) -> Option<String> {
            self.failed.borrow().clone()
        }
    }

    /// One page: its slot, its worker and the handles a test moves them
    /// with.
    struct Page {
        slot: WorkerSlot,
        worker: Rc<RefCell<MatchWorker>>,
        inbox: Rc<RefCell<VecDeque<Vec<u8>>>>,
        failed: Rc<RefCell<Option<String>>>,
        view: MatchView,
        spawned: Rc<Cell<u32>>,
    }

    fn page(clock: &Rc<Cell<u64>>) -> Page {
        let worker = Rc::new(RefCell::new(MatchWorker::new(Some(lockstep_slot(
            TestDotsFrontEnd::default(),
        )))));
        let inbox = Rc::new(RefCell::new(VecDeque::new()));
        let failed = Rc::new(RefCell::new(None));
        let spawned = Rc::new(Cell::new(0));
        let (w, c, i, f, s) = (
            Rc::clone(&worker),
            Rc::clone(clock),
            Rc::clone(&inbox),
            Rc::clone(&failed),
            Rc::clone(&spawned),
        );
        let spawn: Spawn = Box::new(move || {
            s.set(s.get() + 1);
            // A fresh worker's first words (it is ready) wait for the page.
            while let Some(b) = w.borrow_mut().poll() {
                i.borrow_mut().push_back(b);
            }
            Some(Box::new(LocalPort {
                worker: Rc::clone(&w),
                clock: Rc::clone(&c),
                inbox: Rc::clone(&i),
                failed: Rc::clone(&f),
            }) as Box<dyn WorkerPort>)
        });
        Page {
            slot: WorkerSlot::new(lockstep_slot(TestDotsFrontEnd::default()), spawn),
            worker,
            inbox,
            failed,
            view: MatchView::default(),
            spawned,
        }
    }

    impl Page {
        /// The worker's timer at `now`: its frame, when due, and its posts.
        fn worker_tick(&mut self, now: u64) {
            let mut w = self.worker.borrow_mut();
            w.tick(Millis(now));
            while let Some(b) = w.poll() {
                self.inbox.borrow_mut().push_back(b);
            }
        }
    }

    /// Two pages whose match links join their slots; every millisecond
    /// both workers' timers run, every 16 ms (or `page_every`) the pages'
    /// frames, and the links carry what the pages send.
    struct Two {
        clock: Rc<Cell<u64>>,
        a: Page,
        b: Page,
        ends: [Option<MatchEnd>; 2],
        /// While set, the state hash reports are changed on the way.
        flip: bool,
    }

    impl Two {
        fn new() -> Two {
            let clock = Rc::new(Cell::new(0));
            let mut a = page(&clock);
            let mut b = page(&clock);
            let host = SessionConfig::host(7, 2).rejoin_window(Millis::ZERO);
            let guest = SessionConfig::guest().rejoin_window(Millis::ZERO);
            assert!(a.slot.start_match(host, Millis(0), 1));
            assert!(b.slot.start_match(guest, Millis(0), 1));
            Two {
                clock,
                a,
                b,
                ends: [None, None],
                flip: false,
            }
        }

        fn carry(&mut self) {
            let now = Millis(self.clock.get());
            while let Some((c, bytes)) = self.a.slot.poll_match_transmit() {
                let bytes = self.maybe_flip(bytes);
                self.b.slot.match_datagram(now, c, &bytes);
            }
            while let Some((c, bytes)) = self.b.slot.poll_match_transmit() {
                let bytes = self.maybe_flip(bytes);
                self.a.slot.match_datagram(now, c, &bytes);
            }
        }

        /// While `flip` is set, a state hash report carries a wrong hash
        /// (each side sees the other's game differ, as in a real desync).
        fn maybe_flip(&self, bytes: Vec<u8>) -> Vec<u8> {
            use lockstep::wire::Message;
            match Message::<u8>::decode(&bytes) {
                Ok(Message::Hash(mut r)) if self.flip => {
                    r.hash ^= 0xff;
                    Message::<u8>::Hash(r).encode().unwrap()
                }
                _ => bytes,
            }
        }

        /// Runs `ms` milliseconds; page `a` runs its frames only every
        /// `a_every` ms (a hidden page's throttled timer).
        fn run(&mut self, ms: u64, a_every: u64, held_a: &[&str]) {
            for _ in 0..ms {
                let t = self.clock.get() + 1;
                self.clock.set(t);
                self.a.worker_tick(t);
                self.b.worker_tick(t);
                self.carry();
                if t.is_multiple_of(a_every) && self.ends[0].is_none() {
                    let r = self.a.slot.match_frame(Millis(t), held_a, &mut self.a.view);
                    if let Some(e) = r.ended {
                        self.a.slot.drop_match();
                        self.ends[0] = Some(e);
                    }
                }
                if t.is_multiple_of(16) && self.ends[1].is_none() {
                    let r = self.b.slot.match_frame(Millis(t), &[], &mut self.b.view);
                    if let Some(e) = r.ended {
                        self.b.slot.drop_match();
                        self.ends[1] = Some(e);
                    }
                }
                self.carry();
            }
        }
    }

    #[test]
    fn a_match_runs_in_the_workers_and_the_pages_show_it() {
        let mut p = Two::new();
        p.run(3_000, 16, &[]);
        for (v, side) in [(&p.a.view, 0), (&p.b.view, 1)] {
            assert_eq!(v.state, Some("running"));
            assert_eq!(v.side, Some(side));
            assert_eq!(v.mode, Some("lockstep"));
            assert!(v.tick.unwrap() > 150, "ticks ran: {:?}", v.tick);
        }
        assert!(p.a.view.tick.unwrap().abs_diff(p.b.view.tick.unwrap()) <= 2);
        let id =
            p.b.slot
                .match_identity()
                .expect("the guest knows its match");
        assert_eq!((id.side, id.match_id), (1, 7));
        assert_eq!(p.a.spawned.get(), 1, "one worker per page");
        assert!(
            p.a.slot.match_watchable() && p.b.slot.match_watchable(),
            "the workers' lock-step match can be watched, as they say"
        );
        p.a.slot.drop_match();
        assert!(!p.a.slot.match_watchable(), "no match, nothing to watch");
    }

    #[test]
    fn the_host_worker_streams_a_match_of_two_to_a_spectator_on_its_own_link() {
        let mut p = Two::new();
        // A spectator's session (on its own page, here a plain slot),
        // linked to the host's page alone; the host's page knows the link
        // by a name of its own, apart from the match link.
        let mut spectator = lockstep_slot(TestDotsFrontEnd::default());
        let host = PeerId(0);
        assert!(spectator.start_party(SessionConfig::spectator(), Millis(0), 1, &[host]));
        let link = PeerId(257);
        let mut view = MatchView::default();
        for _ in 0..3_000 {
            p.run(1, 16, &[]);
            let now = Millis(p.clock.get());
            while let Some((c, b)) = spectator.poll_party_transmit(host) {
                p.a.slot.party_datagram(now, link, c, &b);
            }
            while let Some((c, b)) = p.a.slot.poll_party_transmit(link) {
                spectator.party_datagram(now, host, c, &b);
            }
            if now.0.is_multiple_of(16) {
                spectator.match_frame(now, &[], &mut view);
            }
        }
        assert!(
            view.tick > Some(60),
            "the spectator confirmed {:?}",
            view.tick
        );
        assert_eq!(view.side, None, "a spectator plays no side");
        assert!(view.tick < p.a.view.tick, "behind the players");
        assert_eq!((p.a.view.watching, p.b.view.watching), (1, 1));
    }

    #[test]
    fn a_page_whose_frames_crawl_does_not_slow_the_match() {
        let mut p = Two::new();
        p.run(1_000, 16, &[]);
        let before = p.b.view.tick.unwrap();
        // Page A's frames now come once a second, as a hidden tab's
        // timers do; its worker keeps the match at 60 ticks a second.
        p.run(10_000, 1_000, &[]);
        let after = p.b.view.tick.unwrap();
        assert!(
            after - before > 550,
            "B ran {} ticks in 10 s",
            after - before
        );
        assert!(!p.b.view.waiting);
        assert!(p.ends.iter().all(Option::is_none));
        // The page's keys still reach its worker when its frame runs.
        p.run(1_000, 1_000, &["ArrowRight"]);
        assert!(p.a.view.input.is_some());
    }

    #[test]
    fn both_pages_end_with_their_messages_and_logs_of_one_match() {
        let mut p = Two::new();
        p.run(2_000, 16, &[]);
        p.a.slot.quit_match(Millis(p.clock.get()));
        p.run(500, 16, &[]);
        let [Some(ea), Some(eb)] = &p.ends else {
            panic!("both ended: {:?}", p.ends);
        };
        assert_eq!(ea.message, "You left the online match.");
        assert_eq!(eb.message, "The other player left the match.");
        let (la, lb) = (ea.log.as_ref().unwrap(), eb.log.as_ref().unwrap());
        let tick = la.ticks.min(lb.ticks);
        assert!(tick > 100);
        // The page's own slot replays the worker's log.
        assert_eq!(
            p.a.slot.log_hash_at(la, tick),
            p.b.slot.log_hash_at(lb, tick)
        );
        assert!(
            p.a.slot.has_result(),
            "the result picture came with the end"
        );
        let mut list = DrawList::new((400.0, 300.0));
        p.a.slot.paint(&mut list);
        assert!(!list.into_ops().is_empty(), "the result is drawn");
    }

    #[test]
    fn a_desync_in_the_workers_reaches_the_pages_whole_with_its_words() {
        let mut p = Two::new();
        p.run(1_000, 16, &[]);
        p.flip = true;
        p.run(3_000, 16, &[]);
        let [Some(ea), Some(eb)] = &p.ends else {
            panic!("both ended: {:?}", p.ends);
        };
        // The outcome the workers' sessions reached, not the transport
        // lost it used to come back as, on both pages, at the same tick.
        let (
            Outcome::Desync {
                tick: ta,
                local: la,
                remote: ra,
                slots: sa,
                ..
            },
            Outcome::Desync {
                tick: tb,
                local: lb,
                remote: rb,
                slots: sb,
                ..
            },
        ) = (&ea.outcome, &eb.outcome)
        else {
            panic!(
                "both pages hold a desync: {:?} {:?}",
                ea.outcome, eb.outcome
            );
        };
        assert_eq!(ta, tb);
        assert_eq!(la, lb, "the two games agree in truth");
        assert_eq!(
            (*ra, *rb),
            (lb ^ 0xff, la ^ 0xff),
            "each heard the other's hash changed"
        );
        assert_eq!(
            (sa, sb),
            (&vec![1], &vec![0]),
            "each names the other's slot"
        );
        // The words are those of a match on the page: the game's own
        // words for the outcome (the test game words none, so the
        // engine's line), and the desync report is offered.
        for e in [ea, eb] {
            assert_eq!(e.message, crate::play::DESYNC_MESSAGE);
            assert!(e.report.is_some(), "the desync report came with the end");
        }
    }

    #[test]
    fn every_outcome_with_its_details_crosses_the_wire() {
        use lockstep::{RejoinRefusal, Version};
        let v = |build| Version { protocol: 3, build };
        for o in [
            Outcome::LocalQuit,
            Outcome::RemoteQuit,
            Outcome::TransportLost,
            Outcome::Timeout,
            Outcome::HandshakeTimeout,
            Outcome::NoProgress,
            Outcome::Desync {
                tick: 420,
                local: 1,
                remote: u64::MAX,
                parts: lockstep::DesyncParts::default(),
                slots: vec![1, 3],
            },
            Outcome::VersionMismatch {
                local: v(Some(7)),
                remote: Some(v(None)),
            },
            Outcome::VersionMismatch {
                local: v(Some(7)),
                remote: None,
            },
            Outcome::PlayerLeft { slot: 2 },
            Outcome::RejoinRefused {
                why: RejoinRefusal::WrongToken,
            },
            Outcome::RejoinRefused {
                why: RejoinRefusal::SlotLive,
            },
            Outcome::RejoinRefused {
                why: RejoinRefusal::SlotNotHeld,
            },
            Outcome::RejoinRefused {
                why: RejoinRefusal::HostUnable,
            },
        ] {
            let end = FromWorker::Ended(WireEnd {
                outcome: WireOutcome::of(&o),
                message: crate::play::outcome_message(&o).to_owned(),
                log: None,
                report: None,
                result: None,
            });
            let back = decode::<FromWorker>(&encode(&[end]).unwrap()).unwrap();
            let [FromWorker::Ended(e)] = &back[..] else {
                panic!("{back:?}");
            };
            let page = e.outcome.clone().outcome();
            assert_eq!(page, o);
            assert_eq!(e.message, crate::play::outcome_message(&page));
        }
    }

    #[test]
    fn the_page_draws_the_workers_picture_exactly() {
        let mut p = Two::new();
        p.run(1_000, 16, &[]);
        let mut first = DrawList::new((640.0, 360.0));
        p.a.slot.paint(&mut first);
        // The request is answered after the worker's next frame.
        p.run(17, 10_000, &[]);
        let mut shown = DrawList::new((640.0, 360.0));
        p.a.slot.paint(&mut shown);
        // The same picture as the worker's own slot draws directly now.
        let mut direct = DrawList::new((640.0, 360.0));
        p.a.worker
            .borrow_mut()
            .slot
            .as_mut()
            .unwrap()
            .paint(&mut direct);
        let shown = shown.into_ops();
        assert!(!shown.is_empty());
        assert_eq!(shown, direct.into_ops());
    }

    #[test]
    fn a_hidden_page_asks_for_no_pictures_and_the_worker_draws_none() {
        let mut p = Two::new();
        p.run(500, 16, &[]);
        // No paint since the start: the worker posted no picture.
        let pictures = |p: &mut Two| {
            let mut w = p.a.worker.borrow_mut();
            w.tick(Millis(p.clock.get() + 17));
            w.out
                .iter()
                .filter(|m| matches!(m, FromWorker::Picture(_)))
                .count()
        };
        assert_eq!(pictures(&mut p), 0);
        let mut list = DrawList::new((100.0, 100.0));
        p.a.slot.paint(&mut list);
        p.run(20, 16, &[]);
        let mut list = DrawList::new((100.0, 100.0));
        p.a.slot.paint(&mut list);
        assert_eq!(pictures(&mut p), 1);
    }

    #[test]
    fn a_worker_error_ends_the_match_plainly_and_the_next_match_gets_a_fresh_worker() {
        let mut p = Two::new();
        p.run(1_000, 16, &[]);
        *p.a.failed.borrow_mut() = Some("RuntimeError: unreachable".into());
        p.run(20, 16, &[]);
        let ea = p.ends[0].as_ref().expect("page A ended its match");
        assert_eq!(ea.message, CRASHED);
        assert!(ea.log.is_none());
        assert_eq!(p.a.slot.match_tag(), None, "the match is gone");
        *p.a.failed.borrow_mut() = None;
        let cfg = SessionConfig::host(8, 2);
        assert_eq!(p.a.spawned.get(), 2, "a fresh worker, at once");
        assert!(p.a.slot.start_match(cfg, Millis(p.clock.get()), 2));
        assert_eq!(p.a.spawned.get(), 2);
    }

    #[test]
    fn a_silent_worker_is_taken_for_crashed() {
        let mut p = Two::new();
        p.run(1_000, 16, &[]);
        // Worker A stops: nothing it would post reaches the page.
        let t0 = p.clock.get();
        for t in t0..t0 + SILENT_MS + 100 {
            p.clock.set(t);
            p.a.inbox.borrow_mut().clear();
            if t.is_multiple_of(16) && p.ends[0].is_none() {
                let r = p.a.slot.match_frame(Millis(t), &[], &mut p.a.view);
                if let Some(e) = r.ended {
                    p.ends[0] = Some(e);
                    assert!(t - t0 >= SILENT_MS, "not before the limit");
                }
            }
        }
        assert_eq!(
            p.ends[0].as_ref().map(|e| e.message.as_str()),
            Some(CRASHED)
        );
    }

    #[test]
    fn a_page_held_up_past_the_limit_does_not_take_its_worker_for_crashed() {
        let mut p = Two::new();
        p.run(1_000, 16, &[]);
        // Page A's thread is blocked for 4 s, past the limit: its worker
        // runs on, and its posts wait in the page's event queue until
        // after the page's first look. (What goes on meanwhile on the
        // other side does not matter here.)
        let t0 = p.clock.get();
        // Its last frame before: it has seen everything the worker said.
        let r = p.a.slot.match_frame(Millis(t0), &[], &mut p.a.view);
        assert!(r.ended.is_none());
        let mut queued = Vec::new();
        let blocked = SILENT_MS + 1_000;
        for t in t0 + 1..=t0 + blocked {
            p.clock.set(t);
            let mut w = p.a.worker.borrow_mut();
            w.tick(Millis(t));
            while let Some(b) = w.poll() {
                queued.push(b);
            }
        }
        let t = t0 + blocked;
        let r = p.a.slot.match_frame(Millis(t), &[], &mut p.a.view);
        assert!(r.ended.is_none(), "not taken for crashed: {:?}", r.ended);
        p.a.inbox.borrow_mut().extend(queued);
        let before = p.a.view.tick;
        p.run(1_000, 16, &[]);
        assert!(p.ends[0].is_none(), "the match goes on");
        assert!(p.a.view.tick > before, "and the page shows it");
    }

    #[test]
    fn posts_of_an_abandoned_match_do_not_reach_the_next() {
        let mut p = Two::new();
        p.run(1_000, 16, &[]);
        // Worker A posted a frame of the running match the page has not
        // read when the page gives the match up and starts another.
        p.a.worker_tick(p.clock.get() + 17);
        assert!(!p.a.inbox.borrow().is_empty());
        p.a.slot.drop_match();
        let now = Millis(p.clock.get() + 17);
        let cfg = SessionConfig::host(9, 2).rejoin_window(Millis::ZERO);
        assert!(p.a.slot.start_match(cfg, now, 2));
        let mut view = MatchView::default();
        let r = p.a.slot.match_frame(now, &[], &mut view);
        assert!(r.ended.is_none());
        assert_eq!(
            view.tick, None,
            "the old match's ticks are not the new one's"
        );
        assert_eq!(p.a.slot.match_tag(), Some(2));
    }

    #[test]
    fn a_worker_without_a_game_says_so_and_refuses_matches() {
        let mut w = MatchWorker::new(None);
        let first = decode::<FromWorker>(&w.poll().unwrap()).unwrap();
        assert_eq!(first, vec![FromWorker::NoGame]);
        let port = Rc::new(RefCell::new(Some(w)));
        let inbox = Rc::new(RefCell::new(VecDeque::from([encode(&first).unwrap()])));
        let (pp, ii) = (Rc::clone(&port), Rc::clone(&inbox));
        let spawn: Spawn = Box::new(move || {
            Some(Box::new(LocalPort {
                worker: Rc::new(RefCell::new(pp.borrow_mut().take()?)),
                clock: Rc::new(Cell::new(0)),
                inbox: Rc::clone(&ii),
                failed: Rc::new(RefCell::new(None)),
            }) as Box<dyn WorkerPort>)
        });
        let mut slot = WorkerSlot::new(lockstep_slot(TestDotsFrontEnd::default()), spawn);
        assert!(slot.start_match(SessionConfig::host(1, 2), Millis(0), 1));
        slot.drop_match();
        slot.pump();
        assert!(!slot.start_match(SessionConfig::host(1, 2), Millis(0), 2));
    }

    #[test]
    fn messages_round_trip_and_bad_ones_are_refused() {
        let msgs = vec![
            ToWorker::Start {
                cfg: SessionConfig::host(3, 4).rejoin_window(Millis(9)),
                links: vec![1, 2],
            },
            ToWorker::Datagram {
                link: None,
                reliable: false,
                bytes: vec![1, 2, 3],
            },
            ToWorker::Input {
                held: vec!["KeyA".into()],
                path: Some("relayed".into()),
            },
            ToWorker::Paint(320.0, 180.0),
            ToWorker::Backlog {
                link: Some(2),
                bytes: 70_000,
            },
        ];
        let bytes = encode(&msgs).unwrap();
        assert_eq!(decode::<ToWorker>(&bytes).unwrap(), msgs);
        // A byte more, a byte less, a foreign variant, garbage.
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(decode::<ToWorker>(&longer), Err(WireError::Malformed));
        assert_eq!(
            decode::<ToWorker>(&bytes[..bytes.len() - 1]),
            Err(WireError::Malformed)
        );
        assert_eq!(decode::<ToWorker>(&[1, 200]), Err(WireError::Malformed));
        assert_eq!(
            decode::<ToWorker>(&vec![0u8; MAX_MESSAGE + 1]),
            Err(WireError::TooLarge)
        );
        // Over the caps.
        let many = encode(&[ToWorker::Input {
            held: vec!["KeyA".into(); MAX_HELD + 1],
            path: None,
        }])
        .unwrap();
        assert_eq!(decode::<ToWorker>(&many), Err(WireError::OverCap));
        let nan = encode(&[ToWorker::Paint(f64::NAN, 1.0)]).unwrap();
        assert_eq!(decode::<ToWorker>(&nan), Err(WireError::OverCap));
        let huge = encode(&[FromWorker::Picture(vec![Call::Alpha(1.0); MAX_CALLS + 1])]).unwrap();
        assert_eq!(decode::<FromWorker>(&huge), Err(WireError::OverCap));
        // A worker counts what it refused and goes on.
        let mut w = MatchWorker::new(Some(lockstep_slot(TestDotsFrontEnd::default())));
        assert!(!w.handle_bytes(Millis(0), b"\xff\xff\xff"));
        assert_eq!(w.dropped(), 1);
        assert!(w.handle_bytes(Millis(0), &encode(&[ToWorker::Crash]).unwrap()));
    }

    #[test]
    fn the_worker_splits_what_it_has_into_posts_under_the_cap() {
        let mut w = MatchWorker::new(Some(lockstep_slot(TestDotsFrontEnd::default())));
        let big = vec![Call::Text(0.0, 0.0, "x".repeat(1000), "#fff".into()); 600];
        for _ in 0..4 {
            w.out.push(FromWorker::Picture(big.clone()));
        }
        let mut posts = 0;
        let mut pictures = 0;
        while let Some(b) = w.poll() {
            assert!(b.len() <= MAX_MESSAGE);
            posts += 1;
            pictures += decode::<FromWorker>(&b)
                .unwrap()
                .iter()
                .filter(|m| matches!(m, FromWorker::Picture(_)))
                .count();
        }
        assert!(posts > 1);
        assert_eq!(pictures, 4);
    }

    #[test]
    fn the_view_keeps_the_shells_own_fields() {
        let mut theirs = MatchView {
            state: Some("running"),
            tick: Some(5),
            mode: Some("rollback"),
            quality: Some(crate::quality::Quality::Fair),
            watching: 2,
            held: Some((0, 17)),
            host_held: true,
            held_slots: 0b101,
            ..MatchView::default()
        };
        theirs.status = "You play".into();
        let wire = WireView::of(&theirs);
        let mut ours = MatchView {
            path: Some("relayed"),
            frames: Some(9),
            ..MatchView::default()
        };
        wire.apply(&mut ours);
        assert_eq!(ours.state, Some("running"));
        assert_eq!(ours.mode, Some("rollback"));
        assert_eq!(ours.quality, Some(crate::quality::Quality::Fair));
        assert_eq!(ours.tick, Some(5));
        assert_eq!(ours.watching, 2, "the count of spectators crosses over");
        assert_eq!(ours.held, Some((0, 17)));
        assert!(
            ours.host_held,
            "a held host crosses over (the page comes back)"
        );
        assert_eq!(ours.held_slots, 0b101, "and every held slot");
        assert_eq!((ours.path, ours.frames), (Some("relayed"), Some(9)));
        // An unknown word is dropped, not made up.
        let mut odd = WireView::of(&theirs);
        odd.state = Some("exploded".into());
        odd.apply(&mut ours);
        assert_eq!(ours.state, None);
    }

    #[test]
    fn the_address_can_keep_the_match_on_the_page() {
        assert!(wanted(""));
        assert!(wanted("?invite=abc"));
        assert!(!wanted("?match-worker=off"));
        assert!(!wanted("?a=1&match-worker=off"));
        assert!(wanted("?match-worker=offf"));
        // The page puts its game in a worker slot, which starts a worker at
        // once, unless its address says not to.
        for (search, workers) in [("", 1), ("?match-worker=off", 0)] {
            let spawned = Rc::new(Cell::new(0));
            let counted = Rc::clone(&spawned);
            let spawn: Spawn = Box::new(move || {
                counted.set(counted.get() + 1);
                None
            });
            let _ = place(lockstep_slot(TestDotsFrontEnd::default()), search, spawn);
            assert_eq!(spawned.get(), workers, "{search}");
        }
    }

    #[test]
    fn the_glues_words_and_posts_are_the_shells() {
        // A worker's log line keeps its level on the way to the page.
        let levels = [
            log::Level::Error,
            log::Level::Warn,
            log::Level::Info,
            log::Level::Debug,
        ];
        assert_eq!(levels.map(log_level), [1, 2, 3, 3]);
        let mut w = MatchWorker::new(None);
        w.log(log_level(log::Level::Warn), "careful");
        let said = decode::<FromWorker>(&w.poll().unwrap()).unwrap();
        assert!(said.contains(&FromWorker::Log(2, "careful".into())));
        // An error event without a message still says what failed.
        assert_eq!(error_text(Some("boom".into())), "boom");
        assert_eq!(error_text(None), "an error event");
        // The crash post is one strict message the worker reads as such.
        let post = crash_post().unwrap();
        assert_eq!(decode::<ToWorker>(&post), Ok(vec![ToWorker::Crash]));
        assert!(MatchWorker::new(None).handle_bytes(Millis(0), &post));
    }
}
