//! What goes into the shell and what comes out: the [`Input`] and
//! [`Output`] enums and the ids they carry.

use super::page::Patch;
use super::room::Candidate;
use super::view::LogOffer;
use crate::id::PeerId;
use lockstep::Channel;

/// A socket of the page; events of a replaced socket are ignored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SocketId {
    /// The presence socket (`/lobby/ws`) of one lobby connection attempt.
    Presence(u32),
    /// The room socket of one match attempt.
    Room(u32),
    /// The member-room socket of one party attempt.
    Party(u32),
}

/// A peer connection of the page. A `tag` goes with it in events and in
/// outputs that concern one attempt: the mesh attempt (1 or 2), or the
/// match attempt's number.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LinkId {
    /// The lobby mesh link to this player.
    Mesh(PeerId),
    /// The match link (being set up through the room, then played over).
    Match,
    /// A party's link to the member of this id in its member room (being
    /// set up through the room, then played over); the tag is the party
    /// attempt's number.
    Party(u8),
}

/// A fetch of the page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum FetchId {
    /// `GET /ice`.
    Ice,
    /// `POST /rooms` for match attempt `n`.
    Room(u32),
    /// `GET /lobbies`: every lobby's fill.
    Lobbies,
    /// `POST /rooms?players=N` for party attempt `n`.
    PartyRoom(u32),
}

/// An event of a peer connection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RtcEvent {
    /// The offer asked for was made and set locally (`None`: it failed).
    Offer(Option<String>),
    /// The answer asked for was made and set locally (`None`: it failed).
    Answer(Option<String>),
    /// A local ICE candidate to relay.
    Candidate(Candidate),
    /// The remote answer asked to be applied was (`false`: the browser
    /// refused it; the link then fails or runs out of time like any other).
    Applied(bool),
    /// Both data channels are open.
    Open,
    /// The connection closed or failed.
    Closed,
    /// A datagram arrived.
    Data(Channel, Vec<u8>),
    /// The bytes queued to send on the link changed (its
    /// `bufferedAmount`).
    Backlog(usize),
    /// ICE lost the path (`disconnected`, or `failed` during an ICE
    /// restart); the channels are still open.
    PathDown,
    /// ICE has the path again after [`RtcEvent::PathDown`].
    PathUp,
}

/// A step of a peer connection's handshake ([`Output::Describe`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SdpStep {
    /// Make an offer and set it locally; report [`RtcEvent::Offer`].
    Offer,
    /// Apply the remote offer, make an answer and set it locally; report
    /// [`RtcEvent::Answer`].
    Answer(String),
    /// Apply the remote answer; report [`RtcEvent::Applied`].
    Apply(String),
    /// Make an ICE-restart offer on the open connection and set it
    /// locally; report [`RtcEvent::Offer`].
    RestartOffer,
    /// Apply the other side's ICE-restart offer, make the answer and set
    /// it locally; report [`RtcEvent::Answer`].
    RestartAnswer(String),
}

/// What the person did to the page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Title: Local play, with the index picked in each local option.
    ChooseLocal(Vec<usize>),
    /// Title: Online.
    ChooseOnline,
    /// Back on the local-play or lobby screen.
    Back,
    /// Lobby: Join with this name (as typed).
    Join(String),
    /// Lobby: Retry the presence connection now.
    Retry,
    /// Lobby: Copy invite link (made on the first press; the same link
    /// while its code is valid).
    CopyInvite,
    /// Lobby: send this chat line (as typed).
    SendChat(String),
    /// Match: Leave.
    Leave,
    /// Result: Continue.
    Continue,
    /// A roster or notice button: its `data-action` and `data-id`.
    Player(PlayerAction, String),
    /// The netcode setting changed ("lockstep" or "rollback").
    Netcode(String),
    /// Title: the game picked (on a page that carries several), by its
    /// index in the slot's games.
    ChooseGame(usize),
    /// Result or local play: watch the game just played.
    WatchReplay,
    /// Local play, a match or a replay: show the court full screen.
    FullScreen,
    /// Local play: pause, or go on (as Escape does).
    Pause,
    /// Lobby: invite these players to a party, each with the side
    /// (team) arranged for them (by `data-id`, in the order of their
    /// places), and us on `side`.
    InviteParty {
        /// The players picked and their sides.
        picks: Vec<(String, u8)>,
        /// Our own side.
        side: u8,
    },
    /// Lobby: call off our party.
    CancelParty,
    /// Lobby: a button of the party panel or of a party invitation's
    /// prompt: its `data-action` and `data-id`.
    PartyControl {
        /// What the button does (`party-open`, `party-pick`…).
        action: String,
        /// The player it is about, if any.
        id: Option<String>,
    },
    /// Local play: start the game again. A match's result: back to the
    /// lobby, challenging the same player again.
    PlayAgain,
    /// A replay control: the element's id and its value (the timeline's
    /// position, the speed picked, or a score button's `data-tick`).
    Replay {
        /// `replay-play`, `replay-speed`, `replay-seek` or `replay-mark`.
        control: String,
        /// The element's value (empty for the play button).
        value: String,
    },
}

/// A button next to a player.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlayerAction {
    /// Mute or unmute.
    Mute,
    /// Challenge (also Try again).
    Challenge,
    /// Accept their challenge.
    Accept,
    /// Decline their challenge.
    Decline,
    /// Cancel our challenge.
    Cancel,
    /// Accept their party invitation.
    PartyAccept,
    /// Decline their party invitation.
    PartyDecline,
    /// Watch the match they play.
    Watch,
}

impl PlayerAction {
    /// The action of a button's `data-action`.
    #[must_use]
    pub fn parse(s: &str) -> Option<PlayerAction> {
        Some(match s {
            "mute" => PlayerAction::Mute,
            "challenge" => PlayerAction::Challenge,
            "accept" => PlayerAction::Accept,
            "decline" => PlayerAction::Decline,
            "cancel" => PlayerAction::Cancel,
            "party-accept" => PlayerAction::PartyAccept,
            "party-decline" => PlayerAction::PartyDecline,
            "watch" => PlayerAction::Watch,
            _ => return None,
        })
    }
}

/// Something that happened, for [`Shell::handle`](super::Shell::handle).
#[derive(Debug, Clone, PartialEq)]
pub enum Input {
    /// A button, form or setting.
    Action(Action),
    /// A key went down or up (`KeyboardEvent.code`; not while typing).
    Key {
        /// The key.
        code: String,
        /// Pressed (`true`) or released.
        down: bool,
        /// It was typed into a text field (chat, name): a press there is
        /// not playing, and is ignored; a release still counts, so a key
        /// held into a field is let go.
        typing: bool,
    },
    /// The gamepads connected, as read at the start of a frame
    /// (`navigator.getGamepads()`; an empty list when there are none).
    Pads(Vec<crate::pad::Reading>),
    /// Fingers on the touch overlay came down, moved, lifted or were
    /// cancelled (one event's changed touches, in order).
    Touch(Vec<crate::touch::Touch>),
    /// The lobby and connection timers' tick (every 100 ms or sooner).
    Tick,
    /// The frame timer fired at `clock` (page clock, ms): a 60 Hz frame
    /// runs if one is due.
    Frame {
        /// `performance.now()`.
        clock: f64,
    },
    /// How long the last match frame took to run and draw (ms).
    FrameSpent(f64),
    /// A socket opened.
    SocketOpened(SocketId),
    /// A text frame arrived on a socket.
    SocketText(SocketId, String),
    /// A socket closed, or could not be opened.
    SocketClosed(SocketId),
    /// A peer connection event.
    Rtc {
        /// Which connection.
        link: LinkId,
        /// Its attempt (see [`LinkId`]).
        tag: u32,
        /// What happened.
        event: RtcEvent,
    },
    /// A fetch answered with this body, or failed (`None`: an error status
    /// or a network error). The shell keeps each fetch's deadline itself:
    /// an answer after it is ignored.
    Fetched(FetchId, Option<String>),
    /// An event of the page the shell listens to
    /// ([`Shell::listeners`](super::Shell::listeners)).
    Dom(super::page::DomEvent),
    /// A file picked to watch as a replay: its bytes, or why they were not
    /// read (over [`crate::replay::MAX_FILE_BYTES`], or unreadable).
    ReplayFile(Result<Vec<u8>, crate::replay::Refusal>),
    /// The page could not offer the file asked for by
    /// [`Output::Offer`] (the browser made no object URL for it).
    OfferFailed(FileLink),
    /// The browser reports a network change: its `online` event, or
    /// `navigator.connection`'s `change` where it has one. The lobby
    /// socket, if it waits to retry, reconnects at once; one that looks
    /// open is asked for a heartbeat answer at once
    /// ([`LobbyClient::network_changed`](crate::lobby::LobbyClient::network_changed)).
    NetworkChanged,
}

/// A part of the page to redraw from the shell's views.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Part {
    /// The screens and their small texts ([`Shell::screen_view`](super::Shell::screen_view)).
    Screen,
    /// The lobby ([`Shell::lobby_view`](super::Shell::lobby_view)).
    Lobby,
    /// Local play's texts ([`Shell::local_view`](super::Shell::local_view)).
    Local,
    /// The match's status and attributes ([`Shell::match_view`](super::Shell::match_view)).
    Match,
    /// The replay's controls and attributes ([`Shell::replay_view`](super::Shell::replay_view)).
    Replay,
}

/// A sound the page plays ([`Output::Sound`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cue {
    /// A challenge arrived and waits for an answer: two rising tones.
    Challenge,
}

/// Something for the page to do, from [`Shell::poll_output`](super::Shell::poll_output).
#[derive(Debug, Clone, PartialEq)]
pub enum Output {
    /// Change the page (in order): the views as [`Patch`]es, written by
    /// [`page`](super::page) when a part of the page changed, and once at
    /// start-up.
    Page(Vec<Patch>),
    /// Draw the game canvas: size it, then carry out the calls of
    /// [`Shell::drawing`](super::Shell::drawing).
    Paint,
    /// Add a chat line (insert as text only).
    Chat {
        /// Our own line.
        mine: bool,
        /// The text starts right to left (the line is aligned right).
        rtl: bool,
        /// `name#ABC` of the sender.
        name: String,
        /// The cleaned text.
        text: String,
    },
    /// Open a WebSocket; report [`Input::SocketOpened`], text and
    /// [`Input::SocketClosed`] (also when it cannot be opened).
    OpenSocket {
        /// Its id.
        id: SocketId,
        /// The address.
        url: String,
    },
    /// Send a text frame (dropped if the socket is not open).
    SendSocket {
        /// The socket.
        id: SocketId,
        /// The frame.
        text: String,
    },
    /// Close a socket; no more events from it.
    CloseSocket(SocketId),
    /// Fetch `url` and report [`Input::Fetched`] with the body (the shell
    /// gives up on its own when the answer is late).
    Fetch {
        /// Its id.
        id: FetchId,
        /// "GET" or "POST".
        method: &'static str,
        /// The address.
        url: String,
    },
    /// Abort a fetch the shell gave up on (no answer by its deadline), if
    /// it is still under way; what it then reports is ignored.
    AbortFetch(FetchId),
    /// Create a peer connection (replacing any with the same id); one the
    /// browser refuses to create is reported as [`RtcEvent::Closed`].
    CreatePeer {
        /// Its id.
        link: LinkId,
        /// Its attempt.
        tag: u32,
        /// The `iceServers` array, as JSON.
        ice_servers: String,
    },
    /// Take one step of the handshake on the connection `link`, only while
    /// it is the one of attempt `tag`; report how it went
    /// ([`RtcEvent::Offer`], [`RtcEvent::Answer`] or [`RtcEvent::Applied`]).
    Describe {
        /// The connection.
        link: LinkId,
        /// Its attempt.
        tag: u32,
        /// Which step.
        step: SdpStep,
    },
    /// Add a remote candidate (only to the connection of attempt `tag`).
    AddCandidate {
        /// The connection.
        link: LinkId,
        /// Its attempt.
        tag: u32,
        /// The candidate.
        candidate: Candidate,
    },
    /// Send a datagram on the connection.
    SendPeer {
        /// The connection.
        link: LinkId,
        /// The channel.
        channel: Channel,
        /// The datagram.
        bytes: Vec<u8>,
    },
    /// Open a relay socket at `url` as `link` (the match's, or a party
    /// link's) in place of its peer connection (closing any), as attempt
    /// `tag`: report its pairing as [`RtcEvent::Open`], its datagrams as
    /// [`RtcEvent::Data`] and its end (or a socket that cannot be opened)
    /// as [`RtcEvent::Closed`] of `link`.
    OpenRelay {
        /// The link it carries.
        link: LinkId,
        /// Its attempt.
        tag: u32,
        /// The address (`ws(s)://.../relay/CODE/ws?ticket=...`).
        url: String,
    },
    /// Close the connection.
    ClosePeer(LinkId),
    /// Close every lobby mesh connection.
    CloseMesh,
    /// Remember a setting in the page's storage.
    Store {
        /// The key.
        key: &'static str,
        /// The value.
        value: String,
    },
    /// Keep `value` under `key` in this tab's session storage (it lasts
    /// through a reload, not past the tab), or remove the key (`None`).
    SessionStore {
        /// The key.
        key: &'static str,
        /// The value, or `None` to remove it.
        value: Option<String>,
    },
    /// Show the game canvas full screen (the browser's Escape leaves).
    FullScreen,
    /// Put this text on the clipboard (an invite link). The page also
    /// shows it, so a browser that refuses needs no answer.
    Copy(String),
    /// Play a short sound.
    Sound(Cue),
    /// Offer a file of the last match for download at its link (or
    /// withdraw it): make an object URL of its bytes and set it as the
    /// link's `href` (the rest of the link comes as patches just before;
    /// a page that cannot make the URL reports [`Input::OfferFailed`]).
    /// Every match end
    /// sends one for each [`FileLink`].
    Offer {
        /// Which link.
        link: FileLink,
        /// The file, or none (revoke the last URL).
        file: Option<LogOffer>,
    },
}

impl Output {
    /// The input that reports this output could not be carried out (the
    /// browser refused to open the socket, the peer connection or the
    /// relay socket, or to make the download's URL); `None` for an output
    /// whose failure is reported by the events of what it made, or not at
    /// all.
    #[must_use]
    pub fn refused(&self) -> Option<Input> {
        let closed = |link: &LinkId, tag: &u32| Input::Rtc {
            link: link.clone(),
            tag: *tag,
            event: RtcEvent::Closed,
        };
        match self {
            Output::OpenSocket { id, .. } => Some(Input::SocketClosed(*id)),
            Output::CreatePeer { link, tag, .. } => Some(closed(link, tag)),
            Output::OpenRelay { link, tag, .. } => Some(closed(link, tag)),
            Output::Offer { link, .. } => Some(Input::OfferFailed(*link)),
            _ => None,
        }
    }
}

/// A file the result screen offers for download.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum FileLink {
    /// The match's input log.
    Log,
    /// The desync report.
    Report,
}

impl FileLink {
    /// The id of the link's element.
    #[must_use]
    pub fn id(self) -> &'static str {
        match self {
            FileLink::Log => "log-link",
            FileLink::Report => "report-link",
        }
    }
}

/// Randomness, passed in: fills the buffer, or returns `false` when the
/// browser gives none.
pub type Random = Box<dyn FnMut(&mut [u8]) -> bool>;
