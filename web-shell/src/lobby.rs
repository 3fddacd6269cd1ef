//! The lobby client as a sans-IO state machine.
//!
//! It owns the rules that involve more than one module: the presence socket
//! and its reconnects, the roster, the mesh pairs, chat with its limits, mute,
//! the challenge reducer, and both ends of an invite link (the codes this
//! page issued, and our own arrival by a friend's link; see
//! [`crate::invite`]). It never touches a socket, a timer or the DOM:
//! the page calls the `handle`-style methods (socket opened, text received,
//! data channel opened, button pressed, time passed) and then drains
//! [`LobbyClient::poll_output`] and carries out each [`Output`] in order.
//! After every call, drain the outputs; call [`LobbyClient::tick`] at least
//! by [`LobbyClient::next_timeout`] (the page simply ticks every 100 ms).

use crate::backoff::Backoff;
use crate::challenge::{self, ChallengeConfig, ChallengeState, Event, OutgoingPhase};
use crate::id::{PeerId, RoomCode};
use crate::invite::{InviteCode, InviteLink, InviteRefusal, Issued};
use crate::mesh::{MeshConfig, Pair, PairAction, PairState};
use crate::party::{Lineup, PartyConfig, PartyState};
use crate::protocol::{
    lobby_out, GameName, LobbyServerMsg, PeerMsg, PlayerStatus, Signal, SignalKind,
    SERVER_MESSAGE_MAX_BYTES,
};
use crate::rate::{ReceiveLimiter, SendLimiter};
use crate::text::{self, ChatError};
use lockstep::Millis;
use signaling_protocol::{heartbeat, PlayerTag};
use std::collections::{BTreeMap, VecDeque};

mod parties;

/// Other players the roster holds: one lobby of the service
/// ([`MAX_PLAYERS`](crate::protocol::MAX_PLAYERS), ourselves included). The
/// service never announces more; a `joined` beyond this is dropped (and
/// logged), so a faulty service cannot make the page open a mesh link per
/// announced player.
pub const MAX_OTHERS: usize = crate::protocol::MAX_PLAYERS - 1;

/// Handshake messages (offers, answers, candidates) and lobby messages
/// relayed for want of an open mesh link that the page sends the lobby in
/// any 60 s. The service closes a lobby socket that sends more than
/// its per-socket limit in a minute (600 by default,
/// `signaling_core::LobbyLimits::messages_per_minute`), so an honest page
/// keeps its signals well under it and leaves room for `hello` and
/// `status`; a test holds the two numbers together. Signals over the budget
/// wait their turn, in order.
pub const SIGNALS_PER_MINUTE: u32 = 480;

/// Signals waiting for the budget; beyond this the newest is dropped (and
/// logged). A full mesh needs a few dozen; a chat line to a full lobby none
/// of whose mesh links is open takes fifteen.
pub const MAX_QUEUED_SIGNALS: usize = 256;

/// Names of departed players kept for notices that mention them: four
/// lobbies' worth. A notice names a player the moment it happens, so only
/// the latest departures matter; the oldest is forgotten first, and a
/// stream of players who come and go cannot grow the list.
pub const MAX_GONE: usize = 4 * crate::protocol::MAX_PLAYERS;

/// The lobby's timers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LobbyConfig {
    /// The mesh connect timer.
    pub mesh: MeshConfig,
    /// The challenge timers.
    pub challenge: ChallengeConfig,
    /// The party timers and the games' party rules.
    pub party: PartyConfig,
    /// How long one attempt to join the lobby may take, from opening the
    /// presence socket to the server's `welcome` (10 s). An attempt that
    /// runs out counts as failed: the socket is closed and the next one
    /// follows the backoff.
    pub connect_timeout: Millis,
    /// How long the service has to answer a heartbeat (with its `pong`,
    /// or any other frame) on a welcomed socket (10 s). Past it, the
    /// service is taken for unreachable: a connection that died without a
    /// close (a network that went away, a proxy that dropped it) never
    /// reports itself, so the page closes the socket and reconnects with
    /// its backoff, and the banner says the connection was lost.
    pub pong_timeout: Millis,
    /// This page can watch a match (its game runs a spectator's session):
    /// the roster offers Watch next to players in a match only then.
    pub watchable: bool,
}

impl Default for LobbyConfig {
    fn default() -> Self {
        LobbyConfig {
            mesh: MeshConfig::default(),
            challenge: ChallengeConfig::default(),
            party: PartyConfig::default(),
            connect_timeout: Millis(10_000),
            pong_timeout: Millis(10_000),
            watchable: false,
        }
    }
}

/// The presence socket's state, as the banner shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Connection {
    /// Not started.
    Idle,
    /// Opening the socket or waiting for `welcome`; `lost` if a working
    /// connection dropped before, `failed` if an earlier attempt failed
    /// (since we were last in the roster). The attempt is given up at
    /// `deadline`.
    Connecting {
        /// A connection that had worked was lost.
        lost: bool,
        /// An earlier attempt could not reach the lobby: the banner keeps
        /// saying so, and Retry stays, while this one is under way.
        failed: bool,
        /// When this attempt counts as failed if `welcome` has not come.
        deadline: Millis,
    },
    /// In the roster.
    Online,
    /// Waiting to try again at `at`.
    Retrying {
        /// When the next attempt starts.
        at: Millis,
        /// A connection that had worked was lost.
        lost: bool,
    },
    /// The server said the lobby is full.
    Full,
}

impl Connection {
    /// The banner text, if any.
    #[must_use]
    pub fn banner(self) -> Option<&'static str> {
        match self {
            Connection::Idle | Connection::Online => None,
            Connection::Connecting {
                lost: false,
                failed: false,
                ..
            } => Some("Connecting to the lobby…"),
            Connection::Connecting {
                lost: false,
                failed: true,
                ..
            }
            | Connection::Retrying { lost: false, .. } => Some("Can't reach the lobby. Retrying…"),
            Connection::Connecting { lost: true, .. } | Connection::Retrying { lost: true, .. } => {
                Some("Lost the lobby connection - retrying…")
            }
            Connection::Full => Some("The lobby is full. Try again in a little while."),
        }
    }

    /// `true` when the Retry button is shown.
    #[must_use]
    pub fn retry_shown(self) -> bool {
        matches!(
            self,
            Connection::Retrying { .. }
                | Connection::Full
                | Connection::Connecting { lost: true, .. }
                | Connection::Connecting { failed: true, .. }
        )
    }
}

/// Something for the page to do.
#[derive(Debug, Clone, PartialEq)]
pub enum Output {
    /// Open the presence socket (`GET /lobby/ws`) with the given fresh id.
    Connect(PeerId),
    /// Close the presence socket.
    Disconnect,
    /// Send a text frame on the presence socket.
    ToServer(String),
    /// Create a peer connection to `id` for `attempt` as the offering side,
    /// then send the offer and candidates through [`LobbyClient::send_signal`].
    Offer {
        /// The peer.
        id: PeerId,
        /// The attempt (1 or 2).
        attempt: u8,
    },
    /// Apply handshake data from `id`. An offer means: close any connection
    /// to `id`, create an answering one for `signal.attempt`, answer.
    Remote {
        /// The peer.
        id: PeerId,
        /// The validated data.
        signal: Signal,
    },
    /// Close the peer connection to `id`.
    ClosePeer(PeerId),
    /// Send a text message on the data channel to `id`.
    ToPeer(PeerId, String),
    /// Create a room and host it (`POST /rooms`, room socket as host); report
    /// with [`LobbyClient::room_created`] or [`LobbyClient::room_failed`].
    CreateRoom,
    /// Close the hosted room.
    CloseRoom,
    /// Join `room` as guest.
    JoinRoom(RoomCode),
    /// Create a member room for `players` players and host it
    /// (`POST /rooms?players=N`, room socket as host); report with
    /// [`LobbyClient::party_room_created`] or
    /// [`LobbyClient::party_room_failed`].
    CreatePartyRoom {
        /// Players the room holds, us included.
        players: u8,
    },
    /// Play a party's match: on the challenger's page in the member room it
    /// hosts, on a member's page by joining the room as a player.
    PlayParty(Lineup),
    /// Leave the room being joined.
    LeaveRoom,
    /// Show a chat line. `from` is `None` for our own lines.
    Chat {
        /// The sender, `None` for us.
        from: Option<PeerId>,
        /// `name#ABC` of the sender.
        name: String,
        /// The cleaned text (insert as text only).
        text: String,
    },
    /// Show a notice.
    Notice(LobbyNotice),
    /// A challenge waits for our answer: play the challenge sound.
    Ring,
    /// The roster, banner or buttons changed: redraw them.
    Changed,
    /// A message about coming back into a match ([`PeerMsg::Rejoin`] and
    /// its answers, and the steps of an ICE restart of the match link)
    /// from `from`: the shell's, which knows the match.
    Rejoin {
        /// The sender.
        from: PeerId,
        /// The message.
        msg: PeerMsg,
    },
    /// A message about watching a match ([`PeerMsg::Watch`] and its
    /// answers) from `from`: the shell's, which knows the match.
    Watch {
        /// The sender.
        from: PeerId,
        /// The message.
        msg: PeerMsg,
    },
}

/// A notice for the player, typed until the view words it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LobbyNotice {
    /// From the challenge rules, with the `name#ABC` of the player it is
    /// about (looked up when it happened, so a player who left is still
    /// named).
    Challenge {
        /// What happened.
        notice: challenge::Notice,
        /// The display name of [`challenge::Notice::player`].
        name: Option<String>,
    },
    /// From the party rules, with the `name#ABC` of the player it is about.
    Party {
        /// What happened.
        notice: crate::party::Notice,
        /// The display name of [`crate::party::Notice::player`].
        name: Option<String>,
    },
    /// The lobby refused our hello; the reason is the server's, cleaned
    /// like a chat line.
    Refused(String),
    /// The service did not answer a heartbeat in time; we reconnect.
    NoAnswer,
    /// A player (`name#ABC`) came by our invite link, and we challenge
    /// them.
    InviteArrived(String),
    /// About coming back into the match this page played before a
    /// reload: under way, or why not.
    Rejoin(&'static str),
    /// About watching someone's match: why it cannot be watched.
    Watch(&'static str),
    /// About playing again with the same party: why there is no rematch.
    Rematch(&'static str),
}

impl LobbyNotice {
    /// The English text.
    #[must_use]
    pub fn text(&self) -> String {
        match self {
            LobbyNotice::Challenge { notice, name } => {
                notice.text(|_| name.clone().unwrap_or_default())
            }
            LobbyNotice::Party { notice, name } => {
                notice.text(|_| name.clone().unwrap_or_default())
            }
            LobbyNotice::Refused(reason) => format!("The lobby refused to let us in: {reason}"),
            LobbyNotice::NoAnswer => NO_ANSWER.to_owned(),
            LobbyNotice::InviteArrived(name) => format!("{name}{INVITE_ARRIVED}"),
            LobbyNotice::Rejoin(text) | LobbyNotice::Watch(text) | LobbyNotice::Rematch(text) => {
                (*text).to_owned()
            }
        }
    }

    /// The English text in parts, so the page can isolate what came from
    /// others (a player's `name#ABC`, the service's reason) from the
    /// sentence around it, as the roster and chat do: a right-to-left name
    /// then cannot reorder the words next to it. The parts joined are
    /// [`text`](Self::text).
    #[must_use]
    pub fn parts(&self) -> Vec<NoticePart> {
        match self {
            // Names never hold control characters (`text::clean_name`), so
            // NUL marks where the name goes in the sentence.
            LobbyNotice::Challenge { notice, name } => {
                named_parts(&notice.text(|_| "\0".to_owned()), name)
            }
            LobbyNotice::Party { notice, name } => {
                named_parts(&notice.text(|_| "\0".to_owned()), name)
            }
            LobbyNotice::Refused(reason) => vec![
                NoticePart::Text("The lobby refused to let us in: ".to_owned()),
                NoticePart::Isolated(reason.clone()),
            ],
            LobbyNotice::NoAnswer => vec![NoticePart::Text(NO_ANSWER.to_owned())],
            LobbyNotice::InviteArrived(name) => vec![
                NoticePart::Name(name.clone()),
                NoticePart::Text(INVITE_ARRIVED.to_owned()),
            ],
            LobbyNotice::Rejoin(text) | LobbyNotice::Watch(text) | LobbyNotice::Rematch(text) => {
                vec![NoticePart::Text((*text).to_owned())]
            }
        }
    }
}

/// The parts of a sentence whose NULs mark where `name` goes.
fn named_parts(template: &str, name: &Option<String>) -> Vec<NoticePart> {
    let name = name.clone().unwrap_or_default();
    let mut parts = Vec::new();
    for (i, piece) in template.split('\0').enumerate() {
        if i > 0 {
            parts.push(NoticePart::Name(name.clone()));
        }
        if !piece.is_empty() {
            parts.push(NoticePart::Text(piece.to_owned()));
        }
    }
    parts
}

const NO_ANSWER: &str = "The lobby stopped answering. Reconnecting…";

const INVITE_ARRIVED: &str = " came by your invite link, so you challenge them.";

/// Where our arrival by an invite link stands, on the friend's page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arrival {
    /// Waiting for the roster, then for the mesh link to the inviter.
    Finding,
    /// We told the inviter our code; its challenge (or refusal) is due by
    /// `deadline`.
    Asked {
        /// When we stop waiting.
        deadline: Millis,
    },
    /// The inviter's challenge came: the usual prompt shows it.
    Challenged,
    /// The link did not lead to a challenge.
    Failed(ArrivalProblem),
}

/// Why an invite link did not lead to a challenge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArrivalProblem {
    /// The inviter is not in the lobby under the id the link names: they
    /// left, or their page reconnected (with a new id).
    Stale,
    /// The inviter's page turned us down.
    Refused(InviteRefusal),
    /// The inviter's page did not answer in time.
    NoAnswer,
}

/// What the friend's page says about its invite link: a state for tests
/// (`#invite-note[data-invite]`) and the words, a name kept apart as in
/// notices.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InviteNote {
    /// `joining`, `damaged`, `finding`, `asked`, `challenged`, `stale`,
    /// `unreachable`, `forged`, `expired`, `busy` or `no-answer`.
    pub state: &'static str,
    /// The words.
    pub parts: Vec<NoticePart>,
}

impl InviteNote {
    /// Before the name is given: the link is usable, or damaged.
    #[must_use]
    pub fn before_joining(damaged: bool) -> InviteNote {
        if damaged {
            InviteNote::of("damaged", "This invite link is damaged or incomplete, so it cannot be used. Ask your friend to copy it again.", None)
        } else {
            InviteNote::of("joining", "You came by an invite link: choose a name and join, and the player who invited you will challenge you.", None)
        }
    }

    /// The note for `arrival`, with the inviter's `name#ABC` when known.
    #[must_use]
    pub fn of_arrival(arrival: Arrival, name: Option<String>) -> InviteNote {
        let (state, words) = match arrival {
            Arrival::Finding if name.is_none() => return InviteNote::before_joining(false),
            Arrival::Finding => ("finding", "Found \0, who invited you. Connecting…"),
            Arrival::Asked { .. } => ("asked", "Asking \0 for the challenge…"),
            Arrival::Challenged => ("challenged", "\0 challenges you, as the invite promised: answer above."),
            Arrival::Failed(ArrivalProblem::Stale) => ("stale", "This invite link is out of date: the player who invited you is no longer in the lobby under it (they left, or their page reconnected). Ask them for a new link."),
            Arrival::Failed(ArrivalProblem::Refused(InviteRefusal::Unknown)) => ("forged", "\0's page did not make this invite link, so it was refused. Check that you copied all of it, or ask for a new one."),
            Arrival::Failed(ArrivalProblem::Refused(InviteRefusal::Expired)) => ("expired", "This invite link has expired. Ask \0 for a new one."),
            Arrival::Failed(ArrivalProblem::Refused(InviteRefusal::Busy)) => ("busy", "\0 is busy (in a match or another challenge). Challenge them from the list when they are free."),
            Arrival::Failed(ArrivalProblem::NoAnswer) => ("no-answer", "\0 did not answer the invite. Challenge them from the list, or ask for a new link."),
        };
        InviteNote::of(state, words, name)
    }

    fn of(state: &'static str, words: &str, name: Option<String>) -> InviteNote {
        let mut parts = Vec::new();
        for (i, piece) in words.split('\0').enumerate() {
            if i > 0 {
                parts.push(match &name {
                    Some(name) => NoticePart::Name(name.clone()),
                    None if i == 1 && words.starts_with('\0') => {
                        NoticePart::Text("The player who invited you".to_owned())
                    }
                    None => NoticePart::Text("the player who invited you".to_owned()),
                });
            }
            if !piece.is_empty() {
                parts.push(NoticePart::Text(piece.to_owned()));
            }
        }
        InviteNote { state, parts }
    }

    /// The words as one string.
    #[must_use]
    pub fn text(&self) -> String {
        self.parts.iter().map(NoticePart::as_str).collect()
    }
}

/// One part of a notice's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoticePart {
    /// Our own words.
    Text(String),
    /// A player's `name#ABC`: shown like the roster shows it, the name
    /// isolated from the tag and from the sentence.
    Name(String),
    /// Words from the service: shown isolated from the sentence.
    Isolated(String),
}

impl NoticePart {
    /// The text of this part.
    #[must_use]
    pub fn as_str(&self) -> &str {
        match self {
            NoticePart::Text(s) | NoticePart::Name(s) | NoticePart::Isolated(s) => s,
        }
    }
}

/// One other player.
#[derive(Debug, Clone)]
pub struct Player {
    /// The id.
    pub id: PeerId,
    /// The name.
    pub nick: String,
    /// The tag the service gave them, shown after the name.
    pub tag: PlayerTag,
    /// In the lobby or in a match.
    pub status: PlayerStatus,
    /// The mesh link.
    pub pair: Pair,
    /// We muted them.
    pub muted: bool,
    limiter: ReceiveLimiter,
}

impl Player {
    /// `name#ABC`.
    #[must_use]
    pub fn display(&self) -> String {
        text::display_name(&self.nick, self.tag.as_str())
    }
}

/// What the roster shows for one player.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlayerView {
    /// The id (for buttons).
    pub id: PeerId,
    /// `name#ABC`.
    pub display: String,
    /// "in the lobby" or "in a match".
    pub status: PlayerStatus,
    /// "connected" (our mesh link is open), "via the service" (it is not,
    /// and lobby messages go through the service), or, off the service,
    /// "connecting" or "can't reach for chat or challenges".
    pub link: &'static str,
    /// Muted by us.
    pub muted: bool,
    /// The Challenge button is shown: connected, in the lobby, and we have
    /// no challenge open. It stays when they challenged us; pressing it then
    /// is a mutual challenge and cancels both.
    pub can_challenge: bool,
    /// The Watch button is shown: connected, in a match, and we are free
    /// (no challenge or party of ours, not in a match) on a page whose game
    /// takes parties (a party's match or a challenge's match of two can
    /// be watched: the spectator runs the party's way in).
    pub can_watch: bool,
    /// They challenged us: Accept and Decline are shown.
    pub challenged_us: bool,
    /// Accept is enabled (not hosting or joining).
    pub accept_enabled: bool,
    /// We challenged them and wait ("waiting for an answer", "connecting…").
    pub our_challenge: Option<&'static str>,
}

/// How long a presence socket that looks online has to answer a heartbeat
/// once the browser reported a network change
/// ([`LobbyClient::network_changed`]): a round trip to the service, with
/// room to spare; a socket of the old network never answers.
pub const PROBE_TIMEOUT: Millis = Millis(1_500);

/// The lobby client. See the module documentation for the calling contract.
#[derive(Debug)]
pub struct LobbyClient {
    cfg: LobbyConfig,
    /// The game our challenges name (on a page of several games).
    game: Option<GameName>,
    nick: String,
    me: Option<PeerId>,
    /// The tag the service gave us in its `welcome` on this connection.
    my_tag: Option<PlayerTag>,
    /// The lobby the service placed us in, from its welcome.
    lobby: Option<u32>,
    conn: Connection,
    /// An attempt to join failed since we were last in the roster.
    attempt_failed: bool,
    backoff: Backoff,
    /// A retry was made due at once since we were last welcomed
    /// ([`retry_at_once`](Self::retry_at_once)).
    hurried: bool,
    players: BTreeMap<PeerId, Player>,
    /// Join order, for a stable roster.
    order: Vec<PeerId>,
    /// Names of players who left, for notices that mention them, oldest
    /// first, at most [`MAX_GONE`].
    gone: VecDeque<(PeerId, String)>,
    challenge: ChallengeState,
    party: PartyState,
    send_limiter: SendLimiter,
    /// The budget of `signal` frames to the service.
    signal_limiter: SendLimiter,
    /// `signal` frames over the budget, oldest first, with their recipient.
    signal_queue: VecDeque<(PeerId, String)>,
    /// The latest time a call told us: what a lobby message relayed for
    /// [`send_peer`](Self::send_peer), which is not told the time, is
    /// counted against the budget at. The page ticks every 100 ms, so it
    /// is never far behind.
    clock: Millis,
    /// When the next heartbeat is due on the welcomed presence socket: the
    /// service drops a socket it hears nothing from for its idle timeout.
    next_heartbeat: Millis,
    /// Set when a heartbeat went out and nothing has come back since: the
    /// service must be heard from by then (see
    /// [`LobbyConfig::pong_timeout`]).
    answer_due: Option<Millis>,
    /// The invite codes this page made on its current connection.
    issued: Issued,
    /// The link this page was opened with, and how far it got.
    arrival: Option<(InviteLink, Arrival)>,
    out: VecDeque<Output>,
}

impl LobbyClient {
    /// A client for the (already cleaned) name `nick`.
    #[must_use]
    pub fn new(nick: String, cfg: LobbyConfig) -> LobbyClient {
        LobbyClient {
            cfg,
            game: None,
            nick,
            me: None,
            my_tag: None,
            lobby: None,
            conn: Connection::Idle,
            attempt_failed: false,
            backoff: Backoff::new(),
            hurried: false,
            players: BTreeMap::new(),
            order: Vec::new(),
            gone: VecDeque::new(),
            challenge: ChallengeState::default(),
            party: PartyState::default(),
            send_limiter: SendLimiter::chat(),
            signal_limiter: SendLimiter::new(SIGNALS_PER_MINUTE as usize, Millis(60_000)),
            signal_queue: VecDeque::new(),
            clock: Millis(0),
            next_heartbeat: Millis(0),
            answer_due: None,
            issued: Issued::default(),
            arrival: None,
            out: VecDeque::new(),
        }
    }

    /// This page was opened with an invite link: once in the lobby, find
    /// the inviter and ask for the challenge.
    pub fn arrive_by_invite(&mut self, link: InviteLink) {
        self.arrival = Some((link, Arrival::Finding));
    }

    /// Our arrival by an invite link, if the page was opened with one.
    #[must_use]
    pub fn arrival(&self) -> Option<Arrival> {
        self.arrival.as_ref().map(|(_, a)| *a)
    }

    /// What the page says about the invite link it was opened with.
    #[must_use]
    pub fn invite_note(&self) -> Option<InviteNote> {
        let (link, arrival) = self.arrival.as_ref()?;
        // Once the challenge it promised is answered or gone, the link has
        // nothing more to say.
        if *arrival == Arrival::Challenged && self.challenge.incoming_from(&link.host).is_none() {
            return None;
        }
        // Before the roster is known, or once the inviter left, the page
        // may not know the name: the note then says "the player who
        // invited you".
        let name = self
            .players
            .get(&link.host)
            .map(Player::display)
            .or_else(|| {
                self.gone
                    .iter()
                    .rev()
                    .find(|(gone, _)| gone == &link.host)
                    .map(|(_, name)| name.clone())
            });
        Some(InviteNote::of_arrival(*arrival, name))
    }

    /// The invite link of this page, while its code is valid at `now`.
    #[must_use]
    pub fn invite(&self, now: Millis) -> Option<InviteLink> {
        let host = self
            .me
            .clone()
            .filter(|_| self.conn == Connection::Online)?;
        let code = self.issued.current(now)?.clone();
        Some(InviteLink {
            host,
            code,
            lobby: self.lobby,
        })
    }

    /// The Copy invite link button: the current link, or a new one with
    /// `fresh` (drawn by the page from random bytes) when there is none.
    /// `None` while not in the lobby: a link must name our id.
    pub fn make_invite(&mut self, now: Millis, fresh: InviteCode) -> Option<InviteLink> {
        if self.conn != Connection::Online {
            return None;
        }
        if self.issued.current(now).is_none() {
            self.issued.issue(fresh, now);
            self.out.push_back(Output::Changed);
        }
        self.invite(now)
    }

    /// The next thing to do, if any.
    pub fn poll_output(&mut self) -> Option<Output> {
        self.out.pop_front()
    }

    /// Sends the lobby message `text` to `to`: over our mesh link while it
    /// is open ([`Output::ToPeer`]); otherwise through the service, as a
    /// `signal` whose data is the message
    /// ([`signaling_protocol::relayed_data`]), within the budget of
    /// [`SIGNALS_PER_MINUTE`]. Nothing if `to` is not in the roster, or the
    /// service is not reachable either.
    fn tell(&mut self, to: &PeerId, text: String) {
        let Some(p) = self.players.get(to) else {
            return;
        };
        if p.pair.state() == PairState::Connected {
            self.out.push_back(Output::ToPeer(to.clone(), text));
            return;
        }
        if self.conn != Connection::Online {
            return;
        }
        let frame = lobby_out::relayed(to, &text);
        if frame.len() > SERVER_MESSAGE_MAX_BYTES {
            log::warn!("lobby: a message too large for the service; dropped");
            return;
        }
        self.queue_signal(self.clock, to.clone(), frame);
    }

    /// `id` is in the roster and can be sent lobby messages: over our open
    /// mesh link to them, or, while it is not open, through the service
    /// while our presence socket is online.
    #[must_use]
    pub fn reachable(&self, id: &PeerId) -> bool {
        self.players.get(id).is_some_and(|p| self.reaches(p))
    }

    fn reaches(&self, p: &Player) -> bool {
        p.pair.state() == PairState::Connected || self.conn == Connection::Online
    }

    /// Our id on the current connection.
    #[must_use]
    pub fn me(&self) -> Option<&PeerId> {
        self.me.as_ref()
    }

    /// Our own `name#ABC`, with the tag the service gave us (the name
    /// alone until it has).
    #[must_use]
    pub fn my_display(&self) -> String {
        match &self.my_tag {
            Some(tag) => text::display_name(&self.nick, tag.as_str()),
            None => self.nick.clone(),
        }
    }

    /// The connection state.
    #[must_use]
    pub fn connection(&self) -> Connection {
        self.conn
    }

    /// The number of the lobby the service placed us in (as `GET
    /// /lobbies` lists it), when its welcome said.
    #[must_use]
    pub fn lobby_number(&self) -> Option<u32> {
        self.lobby
    }

    /// The host of the party we hold a place in, until its match connects.
    #[must_use]
    pub fn party_host(&self) -> Option<&PeerId> {
        self.party.member.as_ref().map(|m| &m.host)
    }

    /// The challenge state (read only).
    #[must_use]
    pub fn challenges(&self) -> &ChallengeState {
        &self.challenge
    }

    /// A player by id.
    #[must_use]
    pub fn player(&self, id: &PeerId) -> Option<&Player> {
        self.players.get(id)
    }

    /// Connects with a fresh id (drawn by the page from random bytes). The
    /// attempt must reach `welcome` within the connect timeout.
    pub fn start(&mut self, now: Millis, fresh_id: PeerId) {
        let lost = self.lost();
        self.drop_everyone(now);
        // Links made on the old connection name the old id.
        self.issued.clear();
        self.me = Some(fresh_id.clone());
        self.my_tag = None;
        self.answer_due = None;
        self.conn = Connection::Connecting {
            lost,
            failed: self.attempt_failed,
            deadline: now + self.cfg.connect_timeout,
        };
        self.out.push_back(Output::Connect(fresh_id));
        self.out.push_back(Output::Changed);
    }

    /// `true` when it is time to call [`start`](Self::start) again with a
    /// fresh id (a retry is due).
    #[must_use]
    pub fn wants_connect(&self, now: Millis) -> bool {
        matches!(self.conn, Connection::Retrying { at, .. } if now >= at)
    }

    /// The Retry button: try again now (the page then calls `start`).
    pub fn retry_now(&mut self, now: Millis) {
        if self.conn.retry_shown() {
            if !matches!(self.conn, Connection::Retrying { .. }) {
                self.out.push_back(Output::Disconnect);
            }
            let lost = self.lost();
            self.conn = Connection::Retrying { at: now, lost };
        }
    }

    /// The browser reports a network change (its `online` event, or the
    /// connection's `change`), or a lobby message must go through the
    /// service now (an ICE restart's step): a retry that waits for its
    /// backoff is due at once; a socket that looks online is asked for a
    /// heartbeat now and must answer within [`PROBE_TIMEOUT`] (a socket
    /// of the old network is dead, often without a close), or it is
    /// taken for dead and the next attempt starts.
    pub fn network_changed(&mut self, now: Millis) {
        self.clock = self.clock.max(now);
        match self.conn {
            Connection::Retrying { lost, at } if at > now => {
                log::info!("lobby: the network changed; reconnecting now");
                self.conn = Connection::Retrying { at: now, lost };
            }
            Connection::Online => {
                self.next_heartbeat = now;
                let due = now + PROBE_TIMEOUT.min(self.cfg.pong_timeout);
                self.answer_due = Some(self.answer_due.map_or(due, |d| d.min(due)));
                self.tick(now);
            }
            _ => {}
        }
    }

    /// A retry that waits for its backoff is due at once (a lobby message
    /// must go through the service now: an ICE restart's step). Once per
    /// loss of the connection: should that attempt fail too, the next ones
    /// follow the backoff, so a service out of reach is not hammered.
    pub fn retry_at_once(&mut self, now: Millis) {
        if self.hurried {
            return;
        }
        if let Connection::Retrying { lost, at } = self.conn {
            if at > now {
                log::info!("lobby: the service is needed now; reconnecting at once");
                self.conn = Connection::Retrying { at: now, lost };
                self.hurried = true;
            }
        }
    }

    /// Sends `msg` to `to` through the service, never over the mesh link
    /// (whose path may be gone while it still says open: an ICE restart's
    /// steps); `false` if it cannot go now (our presence socket is not
    /// online, or `to` is not in the roster): the caller keeps it.
    pub fn send_peer_via_service(&mut self, to: &PeerId, msg: &PeerMsg) -> bool {
        if self.conn != Connection::Online || !self.players.contains_key(to) {
            return false;
        }
        let frame = lobby_out::relayed(to, &msg.encode());
        if frame.len() > SERVER_MESSAGE_MAX_BYTES {
            log::warn!("lobby: a message too large for the service; dropped");
            return true;
        }
        self.queue_signal(self.clock, to.clone(), frame);
        true
    }

    /// `true` when a connection that had worked was lost and we have not
    /// been back in the roster since.
    fn lost(&self) -> bool {
        matches!(
            self.conn,
            Connection::Retrying { lost: true, .. } | Connection::Connecting { lost: true, .. }
        )
    }

    /// The attempt under way failed (closed, refused or out of time):
    /// close the socket if asked and wait for the next one.
    fn attempt_failed(&mut self, now: Millis, lost: bool) {
        self.attempt_failed = true;
        self.conn = Connection::Retrying {
            at: now + self.backoff.next_delay(),
            lost,
        };
        self.out.push_back(Output::Changed);
    }

    /// The presence socket opened: say hello.
    pub fn socket_open(&mut self) {
        if let Some(me) = &self.me {
            self.out
                .push_back(Output::ToServer(lobby_out::hello(me, &self.nick)));
        }
    }

    /// The presence socket closed or failed to open.
    pub fn socket_closed(&mut self, now: Millis) {
        let lost = match self.conn {
            Connection::Online => true,
            Connection::Connecting { lost, .. } | Connection::Retrying { lost, .. } => lost,
            Connection::Idle | Connection::Full => return,
        };
        self.drop_everyone(now);
        self.attempt_failed(now, lost);
    }

    /// Our presence connection is gone, and with it every mesh link: the
    /// challenge rules hear it as our own loss (with its own notice), not
    /// as every other player leaving.
    fn drop_everyone(&mut self, now: Millis) {
        if !self.order.is_empty() {
            self.reduce(Event::LobbyLost, now);
        }
        let ids: Vec<PeerId> = std::mem::take(&mut self.order);
        for id in ids {
            if self.players.remove(&id).is_some() {
                self.out.push_back(Output::ClosePeer(id));
            }
        }
        self.players.clear();
        self.gone.clear();
        // The inviter keeps its id while we reconnect: look again.
        if let Some((_, a @ (Arrival::Finding | Arrival::Asked { .. }))) = &mut self.arrival {
            *a = Arrival::Finding;
        }
        // Handshakes of the old connection are for peers we no longer link to.
        self.signal_queue.clear();
    }

    fn remove_player(&mut self, id: &PeerId, now: Millis) {
        if let Some(p) = self.players.remove(id) {
            if self.gone.len() == MAX_GONE {
                self.gone.pop_front();
            }
            self.gone.push_back((id.clone(), p.display()));
            self.out.push_back(Output::ClosePeer(id.clone()));
        }
        self.order.retain(|x| x != id);
        self.reduce(Event::PlayerLeft(id.clone()), now);
        self.arrival_failed(id, ArrivalProblem::Stale);
    }

    /// The inviter `id` is out of reach for `why`: an arrival still under
    /// way ends.
    fn arrival_failed(&mut self, id: &PeerId, why: ArrivalProblem) {
        if let Some((link, a @ (Arrival::Finding | Arrival::Asked { .. }))) = &mut self.arrival {
            if &link.host == id {
                log::info!("lobby: an invite link led nowhere ({why:?})");
                *a = Arrival::Failed(why);
                self.out.push_back(Output::Changed);
            }
        }
    }

    /// A text frame from the presence socket.
    pub fn server_text(&mut self, now: Millis, text: &str) {
        self.clock = self.clock.max(now);
        // Any frame at all shows the service is still there.
        self.answer_due = None;
        let msg = match LobbyServerMsg::parse(text) {
            Ok(m) => m,
            Err(e) => {
                log::warn!("lobby: dropped a server message ({e:?})");
                return;
            }
        };
        match msg {
            LobbyServerMsg::Welcome { you, roster, lobby } => {
                self.lobby = lobby;
                if Some(&you) != self.me.as_ref() {
                    log::warn!("lobby: welcome for another id; using it");
                    self.me = Some(you);
                }
                self.my_tag = roster
                    .iter()
                    .find(|p| Some(&p.id) == self.me.as_ref())
                    .map(|p| p.tag.clone());
                self.conn = Connection::Online;
                self.next_heartbeat = now + Millis(heartbeat::INTERVAL_MS);
                self.attempt_failed = false;
                self.backoff.reset();
                self.hurried = false;
                if self.challenge.in_match {
                    self.out
                        .push_back(Output::ToServer(lobby_out::status(PlayerStatus::InMatch)));
                }
                for entry in roster {
                    self.add_player(entry, now);
                }
                // The roster is known: an inviter not in it has gone.
                if let Some((link, Arrival::Finding)) = &self.arrival {
                    if !self.players.contains_key(&link.host) {
                        let host = link.host.clone();
                        self.arrival_failed(&host, ArrivalProblem::Stale);
                    }
                }
            }
            LobbyServerMsg::Joined(entry) => self.add_player(entry, now),
            LobbyServerMsg::Left(id) => self.remove_player(&id, now),
            LobbyServerMsg::Status(id, status) => {
                if let Some(p) = self.players.get_mut(&id) {
                    p.status = status;
                }
            }
            LobbyServerMsg::Signal { from, data } => self.signal_in(now, from, data),
            LobbyServerMsg::Pong => {}
            LobbyServerMsg::Full => {
                self.drop_everyone(now);
                // Full is an answer, not a failure: a Retry from here says
                // "Connecting…" again.
                self.attempt_failed = false;
                self.conn = Connection::Full;
                self.out.push_back(Output::Disconnect);
            }
            LobbyServerMsg::Error(reason) => {
                log::warn!("lobby: the server refused a message");
                if let Connection::Connecting { lost, .. } = self.conn {
                    // Our hello was refused (a clashing id, or a name the
                    // server does not accept): say why, and try again later
                    // with a fresh id rather than waiting on a dead socket.
                    self.out.push_back(Output::Notice(LobbyNotice::Refused(
                        text::clean_chat(&reason).unwrap_or_default(),
                    )));
                    self.out.push_back(Output::Disconnect);
                    self.attempt_failed(now, lost);
                }
            }
        }
        self.out.push_back(Output::Changed);
    }

    fn add_player(&mut self, entry: crate::protocol::RosterEntry, now: Millis) {
        let Some(me) = self.me.clone() else { return };
        if entry.id == me || self.players.contains_key(&entry.id) {
            return;
        }
        if self.players.len() >= MAX_OTHERS {
            log::warn!("lobby: the service announced more players than a lobby holds; ignored one");
            return;
        }
        let (pair, action) = Pair::new(&me, &entry.id, now, self.cfg.mesh);
        let id = entry.id.clone();
        self.players.insert(
            id.clone(),
            Player {
                id: id.clone(),
                nick: entry.nick,
                tag: entry.tag,
                status: entry.status,
                pair,
                muted: false,
                limiter: ReceiveLimiter::chat(now),
            },
        );
        self.order.push(id.clone());
        if let Some(PairAction::Offer { attempt }) = action {
            self.out.push_back(Output::Offer { id, attempt });
        }
    }

    fn signal_in(&mut self, now: Millis, from: PeerId, data: serde_json::Value) {
        if !self.players.contains_key(&from) {
            log::debug!("lobby: signal from a player not in the roster");
            return;
        }
        // A lobby message sent through the service for want of a mesh
        // link: read as the same text from the mesh would be.
        match signaling_protocol::relayed_text(&data) {
            Some(Ok(text)) => return self.peer_text(now, &from, text),
            Some(Err(e)) => {
                log::warn!("lobby: dropped a relayed message from a peer ({e:?})");
                return;
            }
            None => {}
        }
        let Some(p) = self.players.get_mut(&from) else {
            return;
        };
        let signal = match Signal::from_value(data) {
            Ok(s) => s,
            Err(e) => {
                log::warn!("lobby: dropped handshake data from a peer ({e:?})");
                return;
            }
        };
        let current = match &signal.kind {
            SignalKind::Offer(_) => p.pair.offer_received(signal.attempt, now),
            SignalKind::Answer(_) => p.pair.offerer() && p.pair.attempt() == signal.attempt,
            SignalKind::Ice { .. } => p.pair.attempt() == signal.attempt,
        };
        if current {
            self.out.push_back(Output::Remote { id: from, signal });
        }
    }

    /// Our peer connection to `to` produced handshake data: relay it, now
    /// if the budget allows ([`SIGNALS_PER_MINUTE`]), otherwise in order
    /// when it does (see [`tick`](Self::tick)).
    pub fn send_signal(&mut self, now: Millis, to: &PeerId, signal: &Signal) {
        if self.conn != Connection::Online || !self.players.contains_key(to) {
            return;
        }
        self.queue_signal(now, to.clone(), lobby_out::signal(to, signal));
    }

    /// Queues the `signal` frame `frame` for `to` and sends what the budget
    /// allows.
    fn queue_signal(&mut self, now: Millis, to: PeerId, frame: String) {
        if self.signal_queue.len() >= MAX_QUEUED_SIGNALS {
            log::warn!("lobby: too much waiting to be sent to the service; dropped one");
            return;
        }
        self.signal_queue.push_back((to, frame));
        self.flush_signals(now);
    }

    /// Sends the waiting handshake messages the budget allows at `now`.
    fn flush_signals(&mut self, now: Millis) {
        while let Some((to, _)) = self.signal_queue.front() {
            if !self.players.contains_key(to) {
                // They left while it waited.
                self.signal_queue.pop_front();
                continue;
            }
            if !self.signal_limiter.try_send(now) {
                break;
            }
            if let Some((_, frame)) = self.signal_queue.pop_front() {
                self.out.push_back(Output::ToServer(frame));
            }
        }
    }

    /// The data channel to `id` for `attempt` opened.
    pub fn peer_open(&mut self, id: &PeerId, attempt: u8) {
        if let Some(p) = self.players.get_mut(id) {
            p.pair.opened(attempt);
            self.out.push_back(Output::Changed);
        }
    }

    /// An arrival by invite link on the tick: once the mesh link to the
    /// inviter is open, tell it we came by its link; give up on an answer
    /// that did not come in time.
    fn arrival_tick(&mut self, now: Millis) {
        if let Some((link, Arrival::Asked { deadline })) = &self.arrival {
            if now >= *deadline {
                let host = link.host.clone();
                self.arrival_failed(&host, ArrivalProblem::NoAnswer);
            }
        }
        if let Some((link, a @ Arrival::Asked { .. })) = &mut self.arrival {
            // The inviter went out of reach before it answered (no open
            // mesh link, and our lobby socket not online): ask again once
            // it is back.
            if !self.players.get(&link.host).is_some_and(|p| {
                p.pair.state() == PairState::Connected || self.conn == Connection::Online
            }) {
                *a = Arrival::Finding;
            }
        }
        let Some((link, a @ Arrival::Finding)) = &mut self.arrival else {
            return;
        };
        if self.conn != Connection::Online {
            return;
        }
        // Online, the inviter is reachable once in the roster: through the
        // service if not over the mesh.
        if self.players.contains_key(&link.host) {
            *a = Arrival::Asked {
                deadline: now + self.cfg.challenge.answer_timeout,
            };
            let (host, wire) = (
                link.host.clone(),
                PeerMsg::Invited(link.code.clone()).encode(),
            );
            self.tell(&host, wire);
            self.out.push_back(Output::Changed);
        }
    }

    /// The connection to `id` for `attempt` closed or failed.
    pub fn peer_closed(&mut self, now: Millis, id: &PeerId, attempt: u8) {
        let was_reachable = self.reachable(id);
        let Some(p) = self.players.get_mut(id) else {
            return;
        };
        if let Some(PairAction::Close) = p.pair.lost(attempt) {
            self.out.push_back(Output::ClosePeer(id.clone()));
        }
        // Still reachable through the service, they have not left.
        if was_reachable && !self.reachable(id) {
            self.reduce(Event::PlayerLeft(id.clone()), now);
        }
        self.out.push_back(Output::Changed);
    }

    /// A text message arrived on the data channel from `from`.
    pub fn peer_text(&mut self, now: Millis, from: &PeerId, raw: &str) {
        self.clock = self.clock.max(now);
        let Some(p) = self.players.get_mut(from) else {
            return;
        };
        if !p.limiter.allow(now) {
            log::info!("lobby: a peer is over the message rate; dropped");
            return;
        }
        let msg = match PeerMsg::parse(raw) {
            Ok(m) => m,
            Err(e) => {
                log::warn!("lobby: dropped a peer message ({e:?})");
                return;
            }
        };
        let muted = p.muted;
        match msg {
            PeerMsg::Invited(code) => self.invited(now, from, &code),
            PeerMsg::InviteRefused(why) => {
                if matches!(&self.arrival, Some((link, Arrival::Asked { .. })) if &link.host == from)
                {
                    self.arrival_failed(from, ArrivalProblem::Refused(why));
                } else {
                    log::debug!("lobby: an invite refusal we did not ask for; dropped");
                }
            }
            msg @ (PeerMsg::Rejoin { .. }
            | PeerMsg::RejoinRoom(_)
            | PeerMsg::RejoinGone
            | PeerMsg::RejoinElsewhere(_)
            | PeerMsg::IceRestart { .. }
            | PeerMsg::IceRestartAsk { .. }
            | PeerMsg::IceRestartCheck { .. }) => {
                self.out.push_back(Output::Rejoin {
                    from: from.clone(),
                    msg,
                });
            }
            msg @ (PeerMsg::Watch | PeerMsg::WatchRoom { .. } | PeerMsg::WatchGone) => {
                self.out.push_back(Output::Watch {
                    from: from.clone(),
                    msg,
                });
            }
            PeerMsg::Chat(text) => {
                if !muted {
                    let name = p.display();
                    self.out.push_back(Output::Chat {
                        from: Some(from.clone()),
                        name,
                        text,
                    });
                }
            }
            msg @ (PeerMsg::PartyInvite { .. }
            | PeerMsg::PartyAccept
            | PeerMsg::PartyDecline(_)
            | PeerMsg::PartyCancel
            | PeerMsg::PartyStart { .. }) => self.party_message(now, from, msg, muted),
            PeerMsg::Challenge { .. } if self.party.busy() => {
                // A party holds us: its start is out or its match runs.
                let busy = PeerMsg::Decline(signaling_protocol::DeclineReason::Busy);
                self.tell(from, busy.encode());
            }
            msg => {
                if matches!(msg, PeerMsg::Challenge { .. }) {
                    if let Some((link, a @ (Arrival::Finding | Arrival::Asked { .. }))) =
                        &mut self.arrival
                    {
                        if &link.host == from {
                            *a = Arrival::Challenged;
                        }
                    }
                }
                self.reduce(
                    Event::Peer {
                        from: from.clone(),
                        msg,
                        muted,
                    },
                    now,
                );
                self.out.push_back(Output::Changed);
            }
        }
    }

    /// `from` says it came by our invite link with `code`: challenge them
    /// if the code is one we issued and still valid, we are free and have
    /// not muted them, else tell them why not. A second arrival of a player we are already
    /// challenging changes nothing.
    fn invited(&mut self, now: Millis, from: &PeerId, code: &InviteCode) {
        let already = matches!(&self.challenge.outgoing, Some(o) if &o.target == from);
        if already {
            return;
        }
        let muted = self.players.get(from).is_some_and(|p| p.muted);
        let verdict = self.issued.check(code, now).and_then(|()| {
            // A muted player's challenges are declined; nor do we challenge
            // them for a link.
            if self.challenge.can_challenge() && !muted {
                Ok(())
            } else {
                Err(InviteRefusal::Busy)
            }
        });
        match verdict {
            Ok(()) => {
                log::debug!("lobby: a player came by our invite link; challenging them");
                let name = self.name_of(from);
                self.out
                    .push_back(Output::Notice(LobbyNotice::InviteArrived(name)));
                self.challenge(now, from);
            }
            Err(why) => {
                log::debug!("lobby: refused an arrival by invite link ({why:?})");
                self.tell(from, PeerMsg::InviteRefused(why).encode());
            }
        }
    }

    /// Shows `notice` with the lobby's others (the shell's own, about
    /// coming back into a match).
    pub fn note(&mut self, notice: LobbyNotice) {
        self.out.push_back(Output::Notice(notice));
    }

    /// Sends `msg` to `to` over its lobby link, or through the service
    /// while that is not open (the shell's messages about coming back into
    /// a match, watching, ICE restarts); nothing if `to` is not in the
    /// roster.
    pub fn send_peer(&mut self, to: &PeerId, msg: &PeerMsg) {
        self.tell(to, msg.encode());
    }

    /// The Send button. On success the line is sent to every reachable
    /// player and shown locally.
    pub fn send_chat(&mut self, now: Millis, raw: &str) -> Result<(), ChatError> {
        let text = text::outgoing_chat(raw)?;
        if !self.send_limiter.try_send(now) {
            return Err(ChatError::RateLimited);
        }
        let wire = PeerMsg::Chat(text.clone()).encode();
        self.clock = self.clock.max(now);
        for id in self.order.clone() {
            self.tell(&id, wire.clone());
        }
        let name = self.my_display();
        self.out.push_back(Output::Chat {
            from: None,
            name,
            text,
        });
        Ok(())
    }

    /// The Mute/Unmute button. Muting a player whose challenge waits for
    /// our answer declines it at once.
    pub fn toggle_mute(&mut self, now: Millis, id: &PeerId) {
        if let Some(p) = self.players.get_mut(id) {
            p.muted = !p.muted;
            if p.muted {
                self.reduce(Event::Muted(id.clone()), now);
            }
            self.out.push_back(Output::Changed);
        }
    }

    /// The game our challenges name from now on: the one picked on the
    /// title of a page that carries several (none on a page of one game).
    pub fn set_game(&mut self, game: Option<GameName>) {
        self.game = game;
    }

    /// The Challenge button next to `target`.
    pub fn challenge(&mut self, now: Millis, target: &PeerId) {
        let Some(p) = self.players.get(target) else {
            return;
        };
        if !self.party.can_invite() {
            // Our party is out, or we hold a place in someone's.
            self.out.push_back(Output::Notice(LobbyNotice::Party {
                notice: crate::party::Notice::InParty,
                name: None,
            }));
            return;
        }
        if !self.reaches(p) {
            return;
        }
        let target_in_match = p.status == PlayerStatus::InMatch;
        self.reduce(
            Event::Challenge {
                target: target.clone(),
                target_in_match,
                game: self.game.clone(),
            },
            now,
        );
        self.out.push_back(Output::Changed);
    }

    /// The Accept button on `from`'s challenge.
    pub fn accept(&mut self, now: Millis, from: &PeerId) {
        if !self.party.can_invite() {
            return;
        }
        self.reduce(Event::Accept(from.clone()), now);
        self.out.push_back(Output::Changed);
    }

    /// The Decline button on `from`'s challenge.
    pub fn decline(&mut self, now: Millis, from: &PeerId) {
        self.reduce(Event::Decline(from.clone()), now);
        self.out.push_back(Output::Changed);
    }

    /// The Cancel button on our challenge.
    pub fn cancel(&mut self, now: Millis) {
        self.reduce(Event::Cancel, now);
        self.out.push_back(Output::Changed);
    }

    /// Our room exists and we host it.
    pub fn room_created(&mut self, now: Millis, room: RoomCode) {
        self.reduce(Event::RoomCreated(room), now);
        self.out.push_back(Output::Changed);
    }

    /// Creating or hosting the room failed.
    pub fn room_failed(&mut self, now: Millis) {
        self.reduce(Event::RoomFailed, now);
        self.out.push_back(Output::Changed);
    }

    /// We watch a party's match as a spectator: busy until
    /// [`match_ended`](Self::match_ended).
    pub fn watching(&mut self, now: Millis) {
        self.party_reduce(crate::party::Event::Watching, now);
        self.out.push_back(Output::Changed);
    }

    /// The party that just played starts its next match over the same
    /// connections: busy until [`match_ended`](Self::match_ended).
    pub fn rematch(&mut self, now: Millis) {
        self.party_reduce(crate::party::Event::Rematch, now);
        self.out.push_back(Output::Changed);
    }

    /// The match data channels are open (host or guest).
    pub fn match_connected(&mut self, now: Millis) {
        self.reduce(Event::MatchConnected, now);
        self.out.push_back(Output::Changed);
    }

    /// This page, reloaded, is back in its match (see
    /// [`challenge::Event::MatchResumed`]).
    pub fn match_resumed(&mut self, now: Millis) {
        self.reduce(Event::MatchResumed, now);
        self.out.push_back(Output::Changed);
    }

    /// The match connection could not be set up.
    pub fn match_failed(&mut self, now: Millis) {
        self.reduce(Event::MatchFailed, now);
        self.out.push_back(Output::Changed);
    }

    /// The match is over.
    pub fn match_ended(&mut self, now: Millis) {
        self.reduce(Event::MatchEnded, now);
        self.out.push_back(Output::Changed);
    }

    /// Time passed: the lobby connect deadline, mesh retries, challenge
    /// timers.
    pub fn tick(&mut self, now: Millis) {
        self.clock = self.clock.max(now);
        if let Connection::Connecting { lost, deadline, .. } = self.conn {
            if now >= deadline {
                log::info!("lobby: no welcome in time; closing and trying again later");
                self.drop_everyone(now);
                self.out.push_back(Output::Disconnect);
                self.attempt_failed(now, lost);
            }
        }
        if self.conn == Connection::Online && self.answer_due.is_some_and(|due| now >= due) {
            log::info!("lobby: no answer to the heartbeat in time; reconnecting");
            self.answer_due = None;
            self.drop_everyone(now);
            self.out.push_back(Output::Notice(LobbyNotice::NoAnswer));
            self.out.push_back(Output::Disconnect);
            self.attempt_failed(now, true);
        }
        if self.conn == Connection::Online {
            self.flush_signals(now);
            if now >= self.next_heartbeat {
                self.out
                    .push_back(Output::ToServer(heartbeat::PING.to_owned()));
                self.next_heartbeat = now + Millis(heartbeat::INTERVAL_MS);
                // An earlier heartbeat still unanswered keeps its deadline.
                self.answer_due.get_or_insert(now + self.cfg.pong_timeout);
            }
        }
        let mut changed = false;
        for id in self.order.clone() {
            let Some(p) = self.players.get_mut(&id) else {
                continue;
            };
            for action in p.pair.tick(now) {
                changed = true;
                self.out.push_back(match action {
                    PairAction::Close => Output::ClosePeer(id.clone()),
                    PairAction::Offer { attempt } => Output::Offer {
                        id: id.clone(),
                        attempt,
                    },
                });
            }
        }
        let before = (self.challenge.clone(), self.party.clone());
        self.reduce(Event::Tick, now);
        if changed || before != (self.challenge.clone(), self.party.clone()) {
            self.out.push_back(Output::Changed);
        }
        self.arrival_tick(now);
    }

    /// The latest time by which [`tick`](Self::tick) must be called.
    #[must_use]
    pub fn next_timeout(&self) -> Option<Millis> {
        let retry = match self.conn {
            Connection::Retrying { at, .. } => Some(at),
            Connection::Connecting { deadline, .. } => Some(deadline),
            Connection::Online => Some(
                self.answer_due
                    .map_or(self.next_heartbeat, |due| due.min(self.next_heartbeat)),
            ),
            _ => None,
        };
        let pairs = self
            .players
            .values()
            .filter_map(|p| p.pair.deadline())
            .min();
        let signals = if self.signal_queue.is_empty() {
            None
        } else {
            self.signal_limiter.next_free()
        };
        [
            retry,
            pairs,
            self.challenge.next_deadline(),
            self.party.next_deadline(),
            signals,
        ]
        .into_iter()
        .flatten()
        .min()
    }

    fn name_of(&self, id: &PeerId) -> String {
        self.players
            .get(id)
            .map(Player::display)
            .or_else(|| {
                self.gone
                    .iter()
                    .rev()
                    .find(|(gone, _)| gone == id)
                    .map(|(_, name)| name.clone())
            })
            .unwrap_or_else(|| "someone".to_owned())
    }

    fn reduce(&mut self, event: Event, now: Millis) {
        self.clock = self.clock.max(now);
        self.party_also(&event, now);
        let effects = self.challenge.reduce(event, now, &self.cfg.challenge);
        for fx in effects {
            let out = match fx {
                challenge::Effect::CreateRoom => Output::CreateRoom,
                challenge::Effect::CloseRoom => Output::CloseRoom,
                challenge::Effect::JoinRoom(room) => Output::JoinRoom(room),
                challenge::Effect::LeaveRoom => Output::LeaveRoom,
                challenge::Effect::Send(to, msg) => {
                    self.tell(&to, msg.encode());
                    continue;
                }
                challenge::Effect::SetStatus(status) => {
                    if self.conn != Connection::Online {
                        // Re-sent after the next welcome.
                        continue;
                    }
                    Output::ToServer(lobby_out::status(status))
                }
                challenge::Effect::Notice(notice) => Output::Notice(LobbyNotice::Challenge {
                    name: notice.player().map(|id| self.name_of(id)),
                    notice,
                }),
                challenge::Effect::Ring => Output::Ring,
            };
            self.out.push_back(out);
        }
    }

    /// When the challenge `from` sent us lapses, if it is waiting for our
    /// answer.
    #[must_use]
    pub fn incoming_deadline(&self, from: &PeerId) -> Option<Millis> {
        self.challenge.incoming_from(from).map(|c| c.deadline)
    }

    /// The game `from`'s waiting challenge names, if it names one.
    #[must_use]
    pub fn incoming_game(&self, from: &PeerId) -> Option<&GameName> {
        self.challenge.incoming_from(from)?.game.as_ref()
    }

    /// The roster as the page shows it, in join order.
    #[must_use]
    pub fn roster(&self) -> Vec<PlayerView> {
        let ch = &self.challenge;
        self.order
            .iter()
            .filter_map(|id| self.players.get(id))
            .map(|p| {
                let reachable = self.reaches(p);
                let challenged_us = ch.incoming_from(&p.id).is_some();
                let our_challenge =
                    ch.outgoing
                        .as_ref()
                        .filter(|o| o.target == p.id)
                        .map(|o| match o.phase {
                            OutgoingPhase::CreatingRoom | OutgoingPhase::Waiting { .. } => {
                                "waiting for an answer"
                            }
                            OutgoingPhase::Accepted { .. } => "accepted - connecting…",
                        });
                PlayerView {
                    id: p.id.clone(),
                    display: p.display(),
                    status: p.status,
                    link: match p.pair.state() {
                        PairState::Connected => "connected",
                        _ if reachable => "via the service",
                        PairState::Connecting { .. } => "connecting",
                        PairState::Unreachable => "can't reach for chat or challenges",
                    },
                    muted: p.muted,
                    can_challenge: reachable
                        && p.status == PlayerStatus::Lobby
                        && ch.can_challenge(),
                    can_watch: reachable
                        && p.status == PlayerStatus::InMatch
                        && ch.can_challenge()
                        && self.party.can_invite()
                        && self.cfg.watchable,
                    challenged_us,
                    accept_enabled: challenged_us && !ch.accept_disabled(),
                    our_challenge,
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A challenge to `room` that names no game.
    fn chal(room: RoomCode) -> PeerMsg {
        PeerMsg::Challenge { room, game: None }
    }
    use crate::protocol::{DeclineReason, PEER_MESSAGE_MAX_BYTES};
    use serde_json::{json, Value};

    fn id(c: char) -> PeerId {
        PeerId::parse(&c.to_string().repeat(12)).unwrap()
    }

    /// The tag the test service gives the player `id(c)`.
    fn tag(c: char) -> String {
        c.to_string().repeat(3)
    }

    fn drain(c: &mut LobbyClient) -> Vec<Output> {
        std::iter::from_fn(|| c.poll_output())
            .filter(|o| *o != Output::Changed)
            .collect()
    }

    fn welcome(me: char, others: &[(char, &str)]) -> String {
        let roster: Vec<Value> = others
            .iter()
            .map(|(c, s)| json!({"id": id(*c).as_str(), "nick": format!("n{c}"), "tag": tag(*c), "status": s}))
            .chain([json!({"id": id(me).as_str(), "nick": "Me", "tag": tag(me), "status": "lobby"})])
            .collect();
        json!({"type": "welcome", "you": id(me).as_str(), "roster": roster}).to_string()
    }

    /// A client `me` online with `others` in the roster, every link open.
    fn online(me: char, others: &[char]) -> LobbyClient {
        let mut c = LobbyClient::new("Me".into(), LobbyConfig::default());
        c.start(Millis(0), id(me));
        c.socket_open();
        let roster: Vec<(char, &str)> = others.iter().map(|&o| (o, "lobby")).collect();
        c.server_text(Millis(0), &welcome(me, &roster));
        for &o in others {
            c.peer_open(&id(o), 1);
        }
        drain(&mut c);
        c
    }

    fn link(host: char, code: &str) -> InviteLink {
        InviteLink {
            host: id(host),
            code: InviteCode::parse(code).unwrap(),
            lobby: None,
        }
    }

    /// The lobby messages `out` sends `to` through the service, parsed.
    fn relayed_to(out: &[Output], to: char) -> Vec<PeerMsg> {
        out.iter()
            .filter_map(|o| match o {
                Output::ToServer(frame) => {
                    let v: Value = serde_json::from_str(frame).ok()?;
                    if v["type"] != "signal" || v["to"] != id(to).as_str() {
                        return None;
                    }
                    let text = signaling_protocol::relayed_text(&v["data"])?.ok()?;
                    PeerMsg::parse(text).ok()
                }
                _ => None,
            })
            .collect()
    }

    /// The message `c` sent `to` last, parsed.
    fn sent_to(out: &[Output], to: char) -> Option<PeerMsg> {
        out.iter().rev().find_map(|o| match o {
            Output::ToPeer(p, wire) if *p == id(to) => PeerMsg::parse(wire).ok(),
            _ => None,
        })
    }

    #[test]
    fn an_inviter_honours_its_own_valid_code_and_refuses_the_rest() {
        let mut a = online('A', &['B', 'C', 'D']);
        let code = InviteCode::parse("Code12345678").unwrap();
        let made = a.make_invite(Millis(0), code.clone()).unwrap();
        assert_eq!(made.host, id('A'));
        // Forged: a code this page never made.
        a.peer_text(
            Millis(10),
            &id('C'),
            &PeerMsg::Invited(InviteCode::parse("Guess1234567").unwrap()).encode(),
        );
        assert_eq!(
            sent_to(&drain(&mut a), 'C'),
            Some(PeerMsg::InviteRefused(InviteRefusal::Unknown))
        );
        // Valid: a challenge, as if Challenge had been pressed.
        a.peer_text(
            Millis(20),
            &id('B'),
            &PeerMsg::Invited(code.clone()).encode(),
        );
        let notice = LobbyNotice::InviteArrived("nB#BBB".into());
        assert_eq!(
            notice.text(),
            "nB#BBB came by your invite link, so you challenge them."
        );
        assert_eq!(
            drain(&mut a),
            vec![Output::Notice(notice), Output::CreateRoom]
        );
        // The same player again while we challenge them: nothing new.
        a.peer_text(
            Millis(30),
            &id('B'),
            &PeerMsg::Invited(code.clone()).encode(),
        );
        assert!(drain(&mut a).is_empty());
        // Another friend while our challenge is open: busy.
        a.peer_text(
            Millis(40),
            &id('D'),
            &PeerMsg::Invited(code.clone()).encode(),
        );
        assert_eq!(
            sent_to(&drain(&mut a), 'D'),
            Some(PeerMsg::InviteRefused(InviteRefusal::Busy))
        );
        // A player we muted is not challenged.
        a.cancel(Millis(50));
        a.toggle_mute(Millis(50), &id('C'));
        drain(&mut a);
        a.peer_text(
            Millis(60),
            &id('C'),
            &PeerMsg::Invited(code.clone()).encode(),
        );
        assert_eq!(
            sent_to(&drain(&mut a), 'C'),
            Some(PeerMsg::InviteRefused(InviteRefusal::Busy))
        );
        a.toggle_mute(Millis(70), &id('C'));
        drain(&mut a);
        // Expired.
        let late = Millis(0) + crate::invite::INVITE_TTL;
        a.peer_text(late, &id('C'), &PeerMsg::Invited(code).encode());
        assert_eq!(
            sent_to(&drain(&mut a), 'C'),
            Some(PeerMsg::InviteRefused(InviteRefusal::Expired))
        );
        // A new connection forgets the codes of the old id.
        a.socket_closed(late);
        a.start(late, id('E'));
        assert_eq!(a.invite(late), None);
    }

    #[test]
    fn a_friend_asks_once_linked_and_takes_only_the_inviters_answer() {
        let mut c = LobbyClient::new("Cy".into(), LobbyConfig::default());
        c.arrive_by_invite(link('A', "Code12345678"));
        c.start(Millis(0), id('C'));
        c.socket_open();
        c.server_text(Millis(0), &welcome('C', &[('A', "lobby"), ('B', "lobby")]));
        assert_eq!(c.arrival(), Some(Arrival::Finding));
        drain(&mut c);
        // No mesh link yet: the ask goes through the service.
        c.tick(Millis(100));
        let out = drain(&mut c);
        assert!(sent_to(&out, 'A').is_none(), "not linked yet");
        assert_eq!(
            relayed_to(&out, 'A'),
            vec![PeerMsg::Invited(InviteCode::parse("Code12345678").unwrap())]
        );
        assert!(matches!(c.arrival(), Some(Arrival::Asked { .. })));
        c.peer_open(&id('A'), 1);
        c.peer_open(&id('B'), 1);
        c.tick(Millis(200));
        assert!(sent_to(&drain(&mut c), 'A').is_none(), "asked once");
        assert_eq!(c.invite_note().unwrap().state, "asked");
        // A refusal from someone else is not the inviter's answer.
        c.peer_text(
            Millis(300),
            &id('B'),
            &PeerMsg::InviteRefused(InviteRefusal::Unknown).encode(),
        );
        assert!(matches!(c.arrival(), Some(Arrival::Asked { .. })));
        // Our lobby connection drops: look for the inviter again after.
        c.socket_closed(Millis(400));
        assert_eq!(c.arrival(), Some(Arrival::Finding));
        c.start(Millis(2_000), id('D'));
        c.socket_open();
        c.server_text(Millis(2_000), &welcome('D', &[('A', "lobby")]));
        c.peer_open(&id('A'), 1);
        c.tick(Millis(2_100));
        assert!(matches!(c.arrival(), Some(Arrival::Asked { .. })));
        // No answer in time.
        c.tick(Millis(2_100 + 30_000));
        assert_eq!(c.arrival(), Some(Arrival::Failed(ArrivalProblem::NoAnswer)));
        assert_eq!(c.invite_note().unwrap().state, "no-answer");
    }

    #[test]
    fn a_friend_hears_of_an_inviter_gone_or_out_of_reach() {
        // Not in the roster at all: stale as soon as the roster is known.
        let mut c = LobbyClient::new("Cy".into(), LobbyConfig::default());
        c.arrive_by_invite(link('Z', "Code12345678"));
        c.start(Millis(0), id('C'));
        c.socket_open();
        assert_eq!(c.invite_note().unwrap().state, "joining");
        c.server_text(Millis(0), &welcome('C', &[('A', "lobby")]));
        assert_eq!(c.arrival(), Some(Arrival::Failed(ArrivalProblem::Stale)));
        // Leaves before answering: stale, and the note still names them.
        let mut c = LobbyClient::new("Cy".into(), LobbyConfig::default());
        c.arrive_by_invite(link('A', "Code12345678"));
        c.start(Millis(0), id('C'));
        c.socket_open();
        c.server_text(Millis(0), &welcome('C', &[('A', "lobby")]));
        assert_eq!(c.invite_note().unwrap().state, "finding");
        c.server_text(
            Millis(10),
            &json!({"type":"left","id":id('A').as_str()}).to_string(),
        );
        assert_eq!(c.arrival(), Some(Arrival::Failed(ArrivalProblem::Stale)));
        // No mesh link can be made: the inviter is asked through the
        // service, and the note names them.
        let mut c = LobbyClient::new("Cy".into(), LobbyConfig::default());
        c.arrive_by_invite(link('D', "Code12345678"));
        c.start(Millis(0), id('C'));
        c.socket_open();
        c.server_text(Millis(0), &welcome('C', &[('D', "lobby")]));
        c.tick(Millis(30_000));
        c.server_text(Millis(30_000), r#"{"type":"pong"}"#);
        c.tick(Millis(45_000));
        assert_eq!(c.roster()[0].link, "via the service");
        assert_eq!(
            relayed_to(&drain(&mut c), 'D'),
            vec![PeerMsg::Invited(InviteCode::parse("Code12345678").unwrap())]
        );
        c.tick(Millis(90_000));
        assert_eq!(c.arrival(), Some(Arrival::Failed(ArrivalProblem::NoAnswer)));
        let note = c.invite_note().unwrap();
        assert_eq!(note.parts[0], NoticePart::Name("nD#DDD".into()));
    }

    #[test]
    fn hello_then_mesh_offers_only_to_higher_ids() {
        let mut c = LobbyClient::new("דנה".into(), LobbyConfig::default());
        c.start(Millis(0), id('M'));
        assert_eq!(drain(&mut c), vec![Output::Connect(id('M'))]);
        assert_eq!(c.connection().banner(), Some("Connecting to the lobby…"));
        c.socket_open();
        let out = drain(&mut c);
        let Output::ToServer(hello) = &out[0] else {
            panic!("{out:?}")
        };
        assert_eq!(
            serde_json::from_str::<Value>(hello).unwrap(),
            json!({"type":"hello","id":"MMMMMMMMMMMM","nick":"דנה"})
        );
        c.server_text(
            Millis(0),
            &welcome('M', &[('A', "lobby"), ('Z', "in-match")]),
        );
        assert_eq!(
            drain(&mut c),
            vec![Output::Offer {
                id: id('Z'),
                attempt: 1
            }]
        );
        assert_eq!(c.connection(), Connection::Online);
        let r = c.roster();
        assert_eq!(r.len(), 2);
        assert_eq!(r[0].display, "nA#AAA");
        assert_eq!(r[0].link, "via the service");
        assert_eq!(r[1].status, PlayerStatus::InMatch);
        c.peer_open(&id('Z'), 1);
        assert_eq!(c.roster()[1].link, "connected");
        assert!(!c.roster()[1].can_challenge, "in a match");
    }

    #[test]
    fn players_are_shown_with_the_tag_the_service_gave_them() {
        let mut c = LobbyClient::new("Ann".into(), LobbyConfig::default());
        c.start(Millis(0), id('M'));
        c.socket_open();
        assert_eq!(c.my_display(), "Ann", "no tag before the welcome");
        let roster = json!([
            {"id": id('A').as_str(), "nick": "Ann", "tag": "K7M", "status": "lobby"},
            {"id": id('M').as_str(), "nick": "Ann", "tag": "Q2X", "status": "lobby"},
        ]);
        let welcome = json!({"type": "welcome", "you": id('M').as_str(), "roster": roster});
        c.server_text(Millis(0), &welcome.to_string());
        assert_eq!(c.my_display(), "Ann#Q2X");
        assert_eq!(c.roster()[0].display, "Ann#K7M");
        // A joined player without a well-formed tag is not shown at all.
        let untagged = json!({"type": "joined", "player": {"id": id('B').as_str(), "nick": "Bo", "tag": "BB", "status": "lobby"}});
        c.server_text(Millis(0), &untagged.to_string());
        assert_eq!(c.roster().len(), 1);
        // A new connection forgets the old tag until its welcome.
        c.socket_closed(Millis(10));
        c.start(Millis(2000), id('N'));
        assert_eq!(c.my_display(), "Ann");
    }

    #[test]
    fn signals_are_validated_and_routed() {
        let mut c = LobbyClient::new("Me".into(), LobbyConfig::default());
        c.start(Millis(0), id('M'));
        c.socket_open();
        c.server_text(Millis(0), &welcome('M', &[('A', "lobby")]));
        drain(&mut c);
        let offer =
            json!({"type":"signal","from":id('A').as_str(),"data":{"type":"offer","sdp":"v=0"}})
                .to_string();
        c.server_text(Millis(1), &offer);
        assert_eq!(
            drain(&mut c),
            vec![Output::Remote {
                id: id('A'),
                signal: Signal {
                    attempt: 1,
                    kind: SignalKind::Offer("v=0".into())
                }
            }]
        );
        let garbage =
            json!({"type":"signal","from":id('A').as_str(),"data":{"type":"offer"}}).to_string();
        c.server_text(Millis(2), &garbage);
        let stranger =
            json!({"type":"signal","from":id('Q').as_str(),"data":{"type":"offer","sdp":"x"}})
                .to_string();
        c.server_text(Millis(2), &stranger);
        c.server_text(Millis(2), "{]");
        assert!(drain(&mut c).is_empty());
        // Our own handshake data goes out through the lobby.
        c.send_signal(
            Millis(2),
            &id('A'),
            &Signal {
                attempt: 1,
                kind: SignalKind::Answer("v=0".into()),
            },
        );
        assert!(
            matches!(&drain(&mut c)[..], [Output::ToServer(s)] if s.contains(r#""to":"AAAAAAAAAAAA""#))
        );
    }

    #[test]
    fn lobby_messages_through_the_service_are_read_as_from_the_mesh() {
        let mut c = LobbyClient::new("Me".into(), LobbyConfig::default());
        c.start(Millis(0), id('M'));
        c.socket_open();
        c.server_text(Millis(0), &welcome('M', &[('A', "lobby"), ('B', "lobby")]));
        c.peer_open(&id('B'), 1);
        drain(&mut c);
        let relayed = |from: char, data: Value| {
            json!({"type":"signal","from":id(from).as_str(),"data":data}).to_string()
        };
        let chat = |t: &str| json!({"msg": PeerMsg::Chat(t.into()).encode()});
        let chats = |out: &[Output]| {
            out.iter()
                .filter(|o| matches!(o, Output::Chat { .. }))
                .count()
        };
        c.server_text(Millis(1), &relayed('A', chat("hi")));
        assert!(drain(&mut c).contains(&Output::Chat {
            from: Some(id('A')),
            name: "nA#AAA".into(),
            text: "hi".into()
        }));
        // From a player not in the roster, malformed, or too large: dropped.
        let too_long = PeerMsg::Chat("x".repeat(PEER_MESSAGE_MAX_BYTES)).encode();
        for (from, data) in [
            ('Q', chat("hi")),
            ('A', json!({"msg": 7})),
            ('A', json!({"msg": "hi", "type": "offer", "sdp": "v=0"})),
            ('A', json!({"msg": "{\"type\":\"nonsense\"}"})),
            ('A', json!({"msg": "not json"})),
            ('A', json!({"msg": too_long})),
        ] {
            c.server_text(Millis(2), &relayed(from, data));
            let out = drain(&mut c);
            assert_eq!(chats(&out), 0);
            assert!(!out.iter().any(|o| matches!(o, Output::Remote { .. })));
        }
        // The same per-player limit as over the mesh: once both have had
        // time to fill, A through the service and B over its open link are
        // let through alike.
        let mut through = [0, 0];
        for _ in 0..40 {
            c.server_text(Millis(30_000), &relayed('A', chat("again")));
            c.peer_text(
                Millis(30_000),
                &id('B'),
                &PeerMsg::Chat("again".into()).encode(),
            );
            let out = drain(&mut c);
            for (n, who) in through.iter_mut().zip(['A', 'B']) {
                *n += out
                    .iter()
                    .filter(|o| matches!(o, Output::Chat { from: Some(f), .. } if *f == id(who)))
                    .count();
            }
        }
        assert!(through[0] > 0 && through[0] < 40, "{through:?}");
        assert_eq!(through[0], through[1]);
        // A muted player's lines are not shown, nor their challenges taken.
        c.toggle_mute(Millis(60_000), &id('A'));
        c.server_text(Millis(60_000), &relayed('A', chat("muted")));
        assert_eq!(chats(&drain(&mut c)), 0);
        // Handshake data still goes to the mesh.
        c.server_text(
            Millis(60_001),
            &relayed('A', json!({"type": "offer", "sdp": "v=0"})),
        );
        assert!(drain(&mut c)
            .iter()
            .any(|o| matches!(o, Output::Remote { id: from, .. } if *from == id('A'))));
    }

    #[test]
    fn lobby_messages_go_over_the_mesh_when_open_and_through_the_service_when_not() {
        let mut c = LobbyClient::new("Me".into(), LobbyConfig::default());
        c.start(Millis(0), id('M'));
        c.socket_open();
        c.server_text(Millis(0), &welcome('M', &[('A', "lobby"), ('B', "lobby")]));
        c.peer_open(&id('B'), 1);
        drain(&mut c);
        assert_eq!(c.roster()[0].link, "via the service");
        assert_eq!(c.roster()[1].link, "connected");
        c.send_chat(Millis(1), "hello").unwrap();
        let out = drain(&mut c);
        assert_eq!(relayed_to(&out, 'A'), vec![PeerMsg::Chat("hello".into())]);
        assert_eq!(sent_to(&out, 'B'), Some(PeerMsg::Chat("hello".into())));
        assert!(sent_to(&out, 'A').is_none());
        assert!(relayed_to(&out, 'B').is_empty());
        // The link to A opens later: it takes over.
        c.peer_open(&id('A'), 1);
        c.send_peer(&id('A'), &PeerMsg::WatchGone);
        let out = drain(&mut c);
        assert_eq!(sent_to(&out, 'A'), Some(PeerMsg::WatchGone));
        assert!(relayed_to(&out, 'A').is_empty());
        // Nothing goes to a player not in the roster.
        c.send_peer(&id('Q'), &PeerMsg::WatchGone);
        assert!(drain(&mut c).is_empty());
    }

    #[test]
    fn relayed_messages_share_the_signal_budget() {
        let mut c = LobbyClient::new("Me".into(), LobbyConfig::default());
        c.start(Millis(0), id('M'));
        c.socket_open();
        c.server_text(Millis(0), &welcome('M', &[('A', "lobby")]));
        drain(&mut c);
        let per_minute = SIGNALS_PER_MINUTE as usize;
        for _ in 0..per_minute + 10 {
            c.send_peer(&id('A'), &PeerMsg::WatchGone);
        }
        assert_eq!(relayed_to(&drain(&mut c), 'A').len(), per_minute);
        // The rest wait their turn and go once the minute has passed.
        assert!(c.next_timeout().is_some_and(|t| t <= Millis(60_000)));
        c.tick(Millis(60_000));
        assert_eq!(relayed_to(&drain(&mut c), 'A').len(), 10);
    }

    #[test]
    fn a_repeated_offer_is_answered_once_per_attempt() {
        let mut c = LobbyClient::new("Me".into(), LobbyConfig::default());
        c.start(Millis(0), id('M'));
        c.socket_open();
        c.server_text(Millis(0), &welcome('M', &[('A', "lobby")]));
        drain(&mut c);
        let offer = |attempt: u8| {
            json!({"type":"signal","from":id('A').as_str(),
                   "data":{"type":"offer","attempt":attempt,"sdp":"v=0"}})
            .to_string()
        };
        let answered = |c: &mut LobbyClient| {
            drain(c)
                .iter()
                .filter(|o| {
                    matches!(o, Output::Remote { signal, .. }
                        if matches!(signal.kind, SignalKind::Offer(_)))
                })
                .count()
        };
        for t in 0..600 {
            c.server_text(Millis(1 + t), &offer(1));
        }
        assert_eq!(answered(&mut c), 1, "one connection for attempt 1");
        for t in 0..600 {
            c.server_text(Millis(1_000 + t), &offer(2));
            c.server_text(Millis(1_000 + t), &offer(1));
        }
        assert_eq!(
            answered(&mut c),
            1,
            "one more for the retry, none for stale copies"
        );
        // Candidates of the current attempt still go through.
        c.server_text(
            Millis(2_000),
            &json!({"type":"signal","from":id('A').as_str(),
                    "data":{"type":"ice","attempt":2,"candidate":"candidate:1 1 udp 1 127.0.0.1 9 typ host","sdpMid":"0","sdpMLineIndex":0}})
            .to_string(),
        );
        assert!(matches!(&drain(&mut c)[..], [Output::Remote { .. }]));
    }

    #[test]
    fn outgoing_signals_stay_within_the_services_budget() {
        let budget = SIGNALS_PER_MINUTE as usize;
        // The page's budget leaves room under the service's per-socket limit
        // for hello and status messages.
        let service = signaling_core::LobbyLimits::default().messages_per_minute;
        assert!(SIGNALS_PER_MINUTE + 60 <= service);
        let mut c = online('M', &['A']);
        let signal = Signal {
            attempt: 1,
            kind: SignalKind::Answer("v=0".into()),
        };
        // A flood of local handshake data within one second: only the
        // budget goes out now, the rest waits in order.
        for i in 0..(budget + 40) {
            c.send_signal(Millis(i as u64), &id('A'), &signal);
        }
        let sent = |c: &mut LobbyClient| {
            drain(c)
                .iter()
                .filter(|o| matches!(o, Output::ToServer(t) if t != heartbeat::PING))
                .count()
        };
        assert_eq!(sent(&mut c), budget);
        c.tick(Millis(30_000));
        assert_eq!(sent(&mut c), 0, "nothing more within the minute");
        // The service answers the heartbeat that went out meanwhile.
        c.server_text(Millis(30_000), heartbeat::PONG);
        assert_eq!(c.next_timeout().map(|t| t.0 <= 60_000), Some(true));
        c.tick(Millis(60_000));
        assert_eq!(
            sent(&mut c),
            1,
            "the first slot frees a minute after the first send"
        );
        c.tick(Millis(60_100));
        assert_eq!(sent(&mut c), 40 - 1);
        // A queue that outgrows its cap drops the newest (and logs).
        let mut c = online('M', &['A']);
        for _ in 0..(budget + MAX_QUEUED_SIGNALS + 10) {
            c.send_signal(Millis(0), &id('A'), &signal);
        }
        assert_eq!(sent(&mut c), budget);
        c.tick(Millis(60_000));
        assert_eq!(sent(&mut c), MAX_QUEUED_SIGNALS);
    }

    #[test]
    fn unreachable_pair_after_one_retry() {
        let mut c = LobbyClient::new("Me".into(), LobbyConfig::default());
        c.start(Millis(0), id('A'));
        c.socket_open();
        c.server_text(Millis(0), &welcome('A', &[('B', "lobby")]));
        drain(&mut c);
        assert_eq!(c.next_timeout(), Some(Millis(20_000)));
        c.tick(Millis(20_000));
        assert_eq!(
            drain(&mut c),
            vec![
                Output::ClosePeer(id('B')),
                Output::Offer {
                    id: id('B'),
                    attempt: 2
                }
            ]
        );
        c.tick(Millis(40_000));
        // The heartbeat fell due meanwhile and goes out first.
        assert_eq!(
            drain(&mut c),
            vec![
                Output::ToServer(heartbeat::PING.into()),
                Output::ClosePeer(id('B'))
            ]
        );
        // Still reachable, through the service.
        assert_eq!(c.roster()[0].link, "via the service");
        assert!(c.roster()[0].can_challenge);
        assert!(c.reachable(&id('B')));
        // Off the service, the roster is gone with it.
        c.socket_closed(Millis(40_001));
        assert!(!c.reachable(&id('B')));
        assert!(c.roster().is_empty());
    }

    #[test]
    fn a_network_change_reconnects_at_once_and_probes_a_socket_that_looks_online() {
        let mut c = online('A', &['B']);
        drain(&mut c);
        // A socket that looks online is asked for a heartbeat now, and
        // taken for dead if no answer comes within the probe's time.
        c.network_changed(Millis(5_000));
        assert_eq!(
            drain(&mut c),
            vec![Output::ToServer(heartbeat::PING.into())]
        );
        c.tick(Millis(5_000) + PROBE_TIMEOUT - Millis(1));
        assert_eq!(c.connection(), Connection::Online);
        c.tick(Millis(5_000) + PROBE_TIMEOUT);
        assert!(drain(&mut c).contains(&Output::Disconnect));
        // The retry that follows waits for its backoff; a network change
        // (or a restart that needs the service) makes it due at once.
        let now = Millis(5_000) + PROBE_TIMEOUT;
        assert!(!c.wants_connect(now));
        c.network_changed(now);
        assert!(c.wants_connect(now));
        // An answered probe keeps the socket.
        let mut c = online('A', &['B']);
        drain(&mut c);
        c.network_changed(Millis(5_000));
        c.server_text(Millis(5_100), heartbeat::PONG);
        c.tick(Millis(20_000));
        assert_eq!(c.connection(), Connection::Online);
        // A retry made due at once, with no network change: once per loss
        // (a service out of reach is not asked every tick).
        c.socket_closed(Millis(30_000));
        assert!(!c.wants_connect(Millis(30_000)));
        c.retry_at_once(Millis(30_000));
        assert!(c.wants_connect(Millis(30_000)));
        c.start(Millis(30_000), id('C'));
        c.socket_closed(Millis(30_100));
        c.retry_at_once(Millis(30_100));
        assert!(!c.wants_connect(Millis(30_100)));
        // Welcomed again, the next loss may be hurried again.
        c.start(Millis(40_000), id('D'));
        c.socket_open();
        c.server_text(Millis(40_010), &welcome('D', &[('B', "lobby")]));
        c.socket_closed(Millis(50_000));
        c.retry_at_once(Millis(50_000));
        assert!(c.wants_connect(Millis(50_000)));
    }

    #[test]
    fn reconnect_with_backoff_fresh_id_and_status_resent() {
        let mut c = online('A', &['B']);
        assert_eq!(c.connection().banner(), None);
        // Get into a match first.
        c.challenge(Millis(0), &id('B'));
        c.room_created(Millis(0), RoomCode::parse("RQQM22").unwrap());
        c.peer_text(Millis(1), &id('B'), &PeerMsg::Accept.encode());
        c.match_connected(Millis(2));
        let out = drain(&mut c);
        assert!(out.contains(&Output::ToServer(lobby_out::status(PlayerStatus::InMatch))));
        // The server goes away.
        c.socket_closed(Millis(100));
        assert_eq!(drain(&mut c), vec![Output::ClosePeer(id('B'))]);
        assert_eq!(
            c.connection().banner(),
            Some("Lost the lobby connection - retrying…")
        );
        assert!(c.connection().retry_shown());
        assert!(!c.wants_connect(Millis(1099)));
        assert!(c.wants_connect(Millis(1100)));
        c.start(Millis(1100), id('C'));
        assert_eq!(drain(&mut c), vec![Output::Connect(id('C'))]);
        c.socket_closed(Millis(1200)); // refused again: 2 s
        assert!(!c.wants_connect(Millis(3199)));
        assert!(c.wants_connect(Millis(3200)));
        c.start(Millis(3200), id('D'));
        c.socket_open();
        drain(&mut c);
        c.server_text(Millis(3300), &welcome('D', &[('E', "lobby")]));
        let out = drain(&mut c);
        assert_eq!(
            out[0],
            Output::ToServer(lobby_out::status(PlayerStatus::InMatch)),
            "status re-sent"
        );
        assert_eq!(c.my_display(), "Me#DDD");
        // Backoff starts over after a welcome.
        c.socket_closed(Millis(5000));
        assert!(c.wants_connect(Millis(6000)));
    }

    #[test]
    fn a_welcomed_page_sends_a_heartbeat_every_interval() {
        let beat = heartbeat::INTERVAL_MS;
        let mut c = LobbyClient::new("Me".into(), LobbyConfig::default());
        c.start(Millis(0), id('A'));
        c.socket_open();
        drain(&mut c);
        // No heartbeat before the welcome (the hello timeout covers that).
        c.tick(Millis(2 * beat));
        assert!(!drain(&mut c).contains(&Output::ToServer(heartbeat::PING.into())));
        c.server_text(Millis(100), &welcome('A', &[]));
        drain(&mut c);
        assert_eq!(c.next_timeout(), Some(Millis(100 + beat)));
        c.tick(Millis(99 + beat));
        assert!(drain(&mut c).is_empty());
        c.tick(Millis(100 + beat));
        assert_eq!(
            drain(&mut c),
            vec![Output::ToServer(heartbeat::PING.into())]
        );
        c.server_text(Millis(150 + beat), heartbeat::PONG);
        // A late tick (a throttled background tab) sends one, not several.
        c.tick(Millis(100 + 4 * beat));
        assert_eq!(
            drain(&mut c),
            vec![Output::ToServer(heartbeat::PING.into())]
        );
        // Its answer is due before the next heartbeat.
        assert_eq!(
            c.next_timeout(),
            Some(Millis(100 + 4 * beat) + LobbyConfig::default().pong_timeout)
        );
        // The answer is read and ignored; none is sent once the socket closed.
        c.server_text(Millis(100 + 4 * beat), heartbeat::PONG);
        assert!(drain(&mut c).is_empty());
        c.socket_closed(Millis(100 + 4 * beat));
        drain(&mut c);
        c.tick(Millis(100 + 5 * beat));
        assert!(!drain(&mut c).contains(&Output::ToServer(heartbeat::PING.into())));
    }

    #[test]
    fn an_unanswered_heartbeat_closes_the_socket_and_retries() {
        let beat = heartbeat::INTERVAL_MS;
        let wait = LobbyConfig::default().pong_timeout;
        let mut c = online('A', &['B']);
        let ping = Output::ToServer(heartbeat::PING.into());
        // Answered by a pong, or by any other frame: no deadline stays.
        c.tick(Millis(beat));
        assert_eq!(drain(&mut c), vec![ping.clone()]);
        assert_eq!(c.next_timeout(), Some(Millis(beat) + wait));
        c.server_text(Millis(beat + 40), heartbeat::PONG);
        c.tick(Millis(beat) + wait);
        assert_eq!(c.connection(), Connection::Online);
        c.tick(Millis(2 * beat));
        drain(&mut c);
        c.server_text(
            Millis(2 * beat + 10),
            r#"{"type":"status","id":"BBBBBBBBBBBB","status":"in-match"}"#,
        );
        c.tick(Millis(2 * beat) + wait);
        assert_eq!(c.connection(), Connection::Online);
        // Unanswered: one millisecond short of the wait nothing happens...
        c.tick(Millis(3 * beat));
        assert_eq!(drain(&mut c), vec![ping]);
        c.tick(Millis(3 * beat) + wait - Millis(1));
        assert_eq!(c.connection(), Connection::Online);
        // ...and at the wait the socket is closed, the player told, and
        // the next attempt follows the backoff.
        let now = Millis(3 * beat) + wait;
        c.tick(now);
        let out = drain(&mut c);
        assert!(
            out.contains(&Output::Notice(LobbyNotice::NoAnswer)),
            "{out:?}"
        );
        assert!(out.contains(&Output::Disconnect), "{out:?}");
        assert!(out.contains(&Output::ClosePeer(id('B'))), "{out:?}");
        assert_eq!(
            c.connection().banner(),
            Some("Lost the lobby connection - retrying…")
        );
        assert!(!c.wants_connect(now));
        assert!(c.wants_connect(now + Millis(60_000)));
        // The new attempt owes no answer: only its connect deadline runs.
        c.start(now + Millis(60_000), id('C'));
        assert_eq!(c.next_timeout(), Some(now + Millis(70_000)));
    }

    #[test]
    fn first_failure_says_cant_reach_and_retry_button_works() {
        let mut c = LobbyClient::new("Me".into(), LobbyConfig::default());
        c.start(Millis(0), id('A'));
        c.socket_closed(Millis(0));
        assert_eq!(
            c.connection().banner(),
            Some("Can't reach the lobby. Retrying…")
        );
        assert!(!c.wants_connect(Millis(10)));
        c.retry_now(Millis(10));
        assert!(c.wants_connect(Millis(10)));
    }

    #[test]
    fn a_refused_hello_retries_later_with_a_fresh_id() {
        let mut c = LobbyClient::new("Me".into(), LobbyConfig::default());
        c.start(Millis(0), id('A'));
        c.socket_open();
        drain(&mut c);
        c.server_text(Millis(0), r#"{"type":"error","reason":"duplicate id"}"#);
        assert_eq!(
            drain(&mut c),
            vec![
                Output::Notice(LobbyNotice::Refused("duplicate id".into())),
                Output::Disconnect
            ]
        );
        assert_eq!(
            c.connection().banner(),
            Some("Can't reach the lobby. Retrying…")
        );
        assert!(!c.wants_connect(Millis(999)));
        assert!(c.wants_connect(Millis(1000)));
        // Once in, an error about some later message changes nothing.
        c.start(Millis(1000), id('B'));
        c.socket_open();
        c.server_text(Millis(1000), &welcome('B', &[]));
        drain(&mut c);
        c.server_text(Millis(1100), r#"{"type":"error","reason":"unknown id"}"#);
        assert!(drain(&mut c).is_empty());
        assert_eq!(c.connection(), Connection::Online);
    }

    #[test]
    fn full_lobby() {
        let mut c = LobbyClient::new("Me".into(), LobbyConfig::default());
        c.start(Millis(0), id('A'));
        c.socket_open();
        drain(&mut c);
        c.server_text(Millis(0), r#"{"type":"full"}"#);
        assert_eq!(drain(&mut c), vec![Output::Disconnect]);
        assert_eq!(c.connection(), Connection::Full);
        assert!(c.connection().banner().unwrap().contains("full"));
        c.socket_closed(Millis(1));
        assert!(
            !c.wants_connect(Millis(100_000)),
            "no automatic retry when full"
        );
        c.retry_now(Millis(5));
        assert!(c.wants_connect(Millis(5)));
    }

    #[test]
    fn chat_goes_to_connected_peers_with_rate_limit() {
        let mut c = online('A', &['B', 'C']);
        c.send_chat(Millis(0), "שלום").unwrap();
        let out = drain(&mut c);
        assert_eq!(out.len(), 3);
        assert!(
            matches!(&out[2], Output::Chat { from: None, name, text } if name == "Me#AAA" && text == "שלום")
        );
        c.send_chat(Millis(10), "hi").unwrap();
        assert_eq!(
            c.send_chat(Millis(20), "again"),
            Err(ChatError::RateLimited)
        );
        assert_eq!(c.send_chat(Millis(2000), "\u{202E}"), Err(ChatError::Empty));
    }

    #[test]
    fn peer_chat_is_rate_limited_muted_and_validated() {
        let mut c = online('A', &['B']);
        let line = PeerMsg::Chat("hello".into()).encode();
        let shown = (0..20)
            .filter(|_| {
                c.peer_text(Millis(0), &id('B'), &line);
                !drain(&mut c).is_empty()
            })
            .count();
        assert_eq!(shown, 10, "burst of 10");
        assert_eq!(c.roster()[0].link, "connected", "the peer stays connected");
        c.peer_text(Millis(1000), &id('B'), "<not json>");
        c.peer_text(
            Millis(1000),
            &id('B'),
            &format!(r#"{{"type":"chat","text":"{}"}}"#, "a".repeat(600)),
        );
        assert!(drain(&mut c).is_empty());
        c.peer_text(Millis(2000), &id('B'), &line);
        assert_eq!(drain(&mut c).len(), 1);
        c.toggle_mute(Millis(0), &id('B'));
        c.peer_text(Millis(3000), &id('B'), &line);
        assert!(drain(&mut c).is_empty(), "muted");
        assert!(c.roster()[0].muted);
    }

    #[test]
    fn muted_players_challenges_are_declined() {
        let mut c = online('A', &['B']);
        c.toggle_mute(Millis(0), &id('B'));
        c.peer_text(
            Millis(0),
            &id('B'),
            &chal(RoomCode::parse("ABCDEF").unwrap()).encode(),
        );
        assert_eq!(
            drain(&mut c),
            vec![Output::ToPeer(
                id('B'),
                PeerMsg::Decline(DeclineReason::Muted).encode()
            )]
        );
    }

    #[test]
    fn full_challenge_flow_between_two_clients() {
        let mut a = online('A', &['B', 'C']);
        let mut b = online('B', &['A', 'C']);
        assert!(a.roster()[0].can_challenge);
        a.challenge(Millis(0), &id('B'));
        assert_eq!(drain(&mut a), vec![Output::CreateRoom]);
        a.room_created(Millis(50), RoomCode::parse("K7M2QX").unwrap());
        let Output::ToPeer(to, wire) = drain(&mut a).remove(0) else {
            panic!()
        };
        assert_eq!(to, id('B'));
        b.peer_text(Millis(60), &id('A'), &wire);
        assert!(
            drain(&mut b).contains(&Output::Ring),
            "B hears the challenge"
        );
        let view = &b.roster()[0];
        assert!(view.challenged_us && view.accept_enabled);
        // Challenge stays next to them: pressing it makes a mutual challenge.
        assert!(view.can_challenge);
        b.accept(Millis(70), &id('A'));
        let out = drain(&mut b);
        assert_eq!(out[1], Output::JoinRoom(RoomCode::parse("K7M2QX").unwrap()));
        let Output::ToPeer(_, accept) = &out[0] else {
            panic!()
        };
        a.peer_text(Millis(80), &id('B'), accept);
        assert_eq!(a.roster()[0].our_challenge, Some("accepted - connecting…"));
        a.match_connected(Millis(500));
        b.match_connected(Millis(500));
        assert!(a.challenges().in_match && b.challenges().in_match);
        // The third player sees both in a match and cannot challenge them.
        let mut c = online('C', &['A', 'B']);
        c.server_text(
            Millis(600),
            &json!({"type":"status","id":id('A').as_str(),"status":"in-match"}).to_string(),
        );
        assert_eq!(c.roster()[0].status, PlayerStatus::InMatch);
        assert!(!c.roster()[0].can_challenge);
    }

    #[test]
    fn a_broken_mesh_link_leaves_a_challenge_to_the_service() {
        let mut a = online('A', &['B']);
        a.challenge(Millis(0), &id('B'));
        a.room_created(Millis(0), RoomCode::parse("K7M2QX").unwrap());
        drain(&mut a);
        a.peer_closed(Millis(5), &id('B'), 1);
        let out = drain(&mut a);
        assert_eq!(out, vec![Output::ClosePeer(id('B'))]);
        assert!(
            a.challenges().outgoing.is_some(),
            "the challenge still stands"
        );
        assert_eq!(a.roster()[0].link, "via the service");
        // Cancelling it reaches them through the service.
        a.cancel(Millis(6));
        let out = drain(&mut a);
        assert!(out.contains(&Output::CloseRoom));
        assert_eq!(relayed_to(&out, 'B'), vec![PeerMsg::Cancel]);
        // A stale attempt's close changes nothing.
        let mut b = online('B', &['A']);
        b.peer_closed(Millis(5), &id('A'), 2);
        assert_eq!(b.roster()[0].link, "connected");
    }

    #[test]
    fn leaving_player_is_removed_and_mentioned_by_name() {
        let mut a = online('A', &['B']);
        a.challenge(Millis(0), &id('B'));
        a.room_created(Millis(0), RoomCode::parse("K7M2QX").unwrap());
        drain(&mut a);
        a.server_text(
            Millis(10),
            &json!({"type":"left","id":id('B').as_str()}).to_string(),
        );
        let out = drain(&mut a);
        assert_eq!(out[0], Output::ClosePeer(id('B')));
        assert!(out.contains(&Output::CloseRoom));
        assert!(out.contains(&Output::Notice(LobbyNotice::Challenge {
            notice: challenge::Notice::Left(id('B')),
            name: Some("nB#BBB".into())
        })));
        let notice = out.iter().find_map(|o| match o {
            Output::Notice(n) => Some(n.text()),
            _ => None,
        });
        assert_eq!(notice.as_deref(), Some("nB#BBB left the lobby."));
        assert!(a.roster().is_empty());
    }

    fn numbered(i: usize) -> PeerId {
        PeerId::parse(&format!("P{i:011}")).unwrap()
    }

    fn joined(i: usize) -> String {
        json!({"type":"joined","player":{"id": numbered(i).as_str(), "nick": format!("p{i}"), "tag": "PPP", "status":"lobby"}})
            .to_string()
    }

    #[test]
    fn the_roster_holds_at_most_one_lobby_of_others() {
        let mut c = online('A', &[]);
        for i in 0..40 {
            c.server_text(Millis(0), &joined(i));
        }
        let offers = drain(&mut c)
            .into_iter()
            .filter(|o| matches!(o, Output::Offer { .. }))
            .count();
        assert_eq!(c.roster().len(), MAX_OTHERS);
        assert_eq!(MAX_OTHERS, crate::protocol::MAX_PLAYERS - 1);
        assert!(
            offers <= MAX_OTHERS,
            "no mesh link for a player beyond the cap"
        );
        // One who leaves makes room for the next.
        c.server_text(
            Millis(0),
            &json!({"type":"left","id":numbered(0).as_str()}).to_string(),
        );
        c.server_text(Millis(0), &joined(100));
        assert!(c.player(&numbered(100)).is_some());
        assert_eq!(c.roster().len(), MAX_OTHERS);
    }

    #[test]
    fn the_list_of_departed_players_is_capped_and_keeps_the_latest() {
        let mut c = online('A', &[]);
        for i in 0..500 {
            c.server_text(Millis(0), &joined(i));
            c.server_text(
                Millis(0),
                &json!({"type":"left","id":numbered(i).as_str()}).to_string(),
            );
        }
        assert_eq!(c.gone.len(), MAX_GONE);
        assert_eq!(c.name_of(&numbered(499)), "p499#PPP");
        assert_eq!(
            c.name_of(&numbered(0)),
            "someone",
            "the oldest was forgotten"
        );
    }

    #[test]
    fn a_notice_keeps_the_name_apart_from_its_sentence() {
        let n = LobbyNotice::Challenge {
            notice: challenge::Notice::Mutual(id('B')),
            name: Some("\u{5e9}\u{5dc}\u{5d5}\u{5dd}#BBB".into()),
        };
        let parts = n.parts();
        assert_eq!(
            parts,
            vec![
                NoticePart::Text("You and ".into()),
                NoticePart::Name("\u{5e9}\u{5dc}\u{5d5}\u{5dd}#BBB".into()),
                NoticePart::Text(
                    " challenged each other at once, so both challenges were cancelled. Try again."
                        .into()
                ),
            ]
        );
        let joined: String = parts.iter().map(NoticePart::as_str).collect();
        assert_eq!(joined, n.text());
        let refused = LobbyNotice::Refused("bad name".into());
        assert_eq!(
            refused.parts(),
            vec![
                NoticePart::Text("The lobby refused to let us in: ".into()),
                NoticePart::Isolated("bad name".into()),
            ]
        );
        let plain = LobbyNotice::Challenge {
            notice: challenge::Notice::ConnectFailed,
            name: None,
        };
        assert_eq!(plain.parts(), vec![NoticePart::Text(plain.text())]);
    }

    #[test]
    fn a_failed_attempt_keeps_its_message_and_retry_while_reconnecting() {
        let mut c = LobbyClient::new("Me".into(), LobbyConfig::default());
        c.start(Millis(0), id('A'));
        assert_eq!(c.connection().banner(), Some("Connecting to the lobby…"));
        assert!(!c.connection().retry_shown());
        c.socket_closed(Millis(5));
        assert!(c.wants_connect(Millis(1005)));
        // The next attempt is under way: the page still says it cannot
        // reach the lobby, and Retry stays.
        c.start(Millis(1005), id('B'));
        assert_eq!(
            c.connection().banner(),
            Some("Can't reach the lobby. Retrying…")
        );
        assert!(c.connection().retry_shown());
        // Retry during that attempt closes it and tries again at once.
        drain(&mut c);
        c.retry_now(Millis(1100));
        assert_eq!(drain(&mut c), vec![Output::Disconnect]);
        assert!(c.wants_connect(Millis(1100)));
        c.start(Millis(1100), id('C'));
        assert_eq!(
            c.connection().banner(),
            Some("Can't reach the lobby. Retrying…")
        );
        // In at last: the banner goes; a later drop says "lost".
        c.socket_open();
        c.server_text(Millis(1200), &welcome('C', &[]));
        assert_eq!(c.connection().banner(), None);
        c.socket_closed(Millis(2000));
        c.start(Millis(3000), id('D'));
        assert_eq!(
            c.connection().banner(),
            Some("Lost the lobby connection - retrying…")
        );
        assert!(c.connection().retry_shown());
    }

    #[test]
    fn an_attempt_without_welcome_runs_out_after_the_connect_timeout() {
        let mut c = LobbyClient::new("Me".into(), LobbyConfig::default());
        c.start(Millis(0), id('A'));
        c.socket_open(); // the socket opens, but no welcome ever comes
        drain(&mut c);
        assert_eq!(c.next_timeout(), Some(Millis(10_000)));
        c.tick(Millis(9_999));
        assert!(drain(&mut c).is_empty());
        assert_eq!(c.connection().banner(), Some("Connecting to the lobby…"));
        c.tick(Millis(10_000));
        assert_eq!(drain(&mut c), vec![Output::Disconnect]);
        assert_eq!(
            c.connection().banner(),
            Some("Can't reach the lobby. Retrying…")
        );
        assert!(c.connection().retry_shown());
        // It counts as a failed attempt: the backoff goes on (1 s, then 2 s).
        assert!(!c.wants_connect(Millis(10_999)));
        assert!(c.wants_connect(Millis(11_000)));
        c.start(Millis(11_000), id('B'));
        assert_eq!(c.next_timeout(), Some(Millis(21_000)));
        c.tick(Millis(21_000));
        assert!(c.wants_connect(Millis(23_000)));
        assert!(!c.wants_connect(Millis(22_999)));
        // A welcome in time stops the timer.
        c.start(Millis(23_000), id('C'));
        c.socket_open();
        c.server_text(Millis(23_500), &welcome('C', &[]));
        // Only the heartbeat is due now.
        assert_eq!(
            c.next_timeout(),
            Some(Millis(23_500 + heartbeat::INTERVAL_MS))
        );
        c.tick(Millis(40_000));
        assert_eq!(c.connection(), Connection::Online);
        // A connection that had worked and then hangs on reconnecting
        // keeps saying it was lost.
        c.socket_closed(Millis(41_000));
        c.start(Millis(42_000), id('D'));
        c.tick(Millis(52_000));
        assert_eq!(
            c.connection().banner(),
            Some("Lost the lobby connection - retrying…")
        );
    }

    #[test]
    fn retry_from_a_full_lobby_says_connecting() {
        let mut c = LobbyClient::new("Me".into(), LobbyConfig::default());
        c.start(Millis(0), id('A'));
        c.socket_closed(Millis(1)); // one failed attempt first
        c.start(Millis(1001), id('B'));
        c.socket_open();
        c.server_text(Millis(1002), r#"{"type":"full"}"#);
        c.retry_now(Millis(5000));
        c.start(Millis(5000), id('C'));
        assert_eq!(c.connection().banner(), Some("Connecting to the lobby…"));
    }

    #[test]
    fn muting_a_player_declines_their_waiting_challenge() {
        let mut c = online('A', &['B']);
        c.peer_text(
            Millis(0),
            &id('B'),
            &chal(RoomCode::parse("ABCDEF").unwrap()).encode(),
        );
        assert!(c.roster()[0].challenged_us);
        drain(&mut c);
        c.toggle_mute(Millis(1), &id('B'));
        assert_eq!(
            drain(&mut c),
            vec![Output::ToPeer(
                id('B'),
                PeerMsg::Decline(DeclineReason::Muted).encode()
            )]
        );
        assert!(!c.roster()[0].challenged_us);
        // Unmuting sends nothing.
        c.toggle_mute(Millis(2), &id('B'));
        assert!(drain(&mut c).is_empty());
    }

    #[test]
    fn our_own_lobby_drop_does_not_blame_the_other_player() {
        let mut a = online('A', &['B']);
        a.challenge(Millis(0), &id('B'));
        a.room_created(Millis(0), RoomCode::parse("K7M2QX").unwrap());
        drain(&mut a);
        a.socket_closed(Millis(10));
        let out = drain(&mut a);
        assert_eq!(
            out,
            vec![
                Output::ToPeer(id('B'), PeerMsg::Cancel.encode()),
                Output::CloseRoom,
                Output::Notice(LobbyNotice::Challenge {
                    notice: challenge::Notice::LobbyLost(id('B')),
                    name: Some("nB#BBB".into())
                }),
                Output::ClosePeer(id('B')),
            ]
        );
        assert_eq!(
            a.connection().banner(),
            Some("Lost the lobby connection - retrying…")
        );
    }
}
