//! The global lobby: who is online, and relaying handshakes between them.

use std::collections::BTreeMap;
use std::net::IpAddr;

use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use sha2::Sha256;
use signaling_protocol::{
    heartbeat, lobby_server, LobbyRequest, PeerId, PlayerStatus, PlayerTag, RosterEntry,
};

use crate::log::{Level, LogRecord};
use crate::msg::to_json;
use crate::rate::MinuteWindow;
use crate::{close_code, Action, Event, Millis, SocketId};

/// The lobby's limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LobbyLimits {
    /// Players on the roster (default 16); the next hello gets `full`.
    pub max_players: usize,
    /// Open sockets (default 32); further upgrades get HTTP 503. 0 turns
    /// the cap off (the roster still holds at most `max_players`).
    pub max_sockets: usize,
    /// Time to say hello, in ms (default 10 000); then closed with 1008.
    /// 0 turns the deadline off: a socket may wait for ever before its
    /// hello (the other caps still bound how many may wait).
    pub hello_timeout_ms: u64,
    /// Largest message, in bytes (default 8 KiB); larger closes with 1009.
    pub max_message_bytes: usize,
    /// Messages per socket per minute (default 600), counted in fixed
    /// one-minute windows opened by the socket's first message (see
    /// [`MinuteWindow`]); the next message in a full window closes the
    /// socket with 1008. 0 turns the check off.
    pub messages_per_minute: u32,
    /// How long a welcomed socket may send nothing at all (heartbeats
    /// count, see [`Lobby::heard_from`]), in ms (default 90 000); then it
    /// is closed with 1008 and leaves the roster. 0 turns the expiry off.
    pub idle_timeout_ms: u64,
    /// Open sockets from one client address, an IPv6 address counting by
    /// its /64 (default 8); the next upgrade from it gets HTTP 429. 0 turns
    /// the cap off. Only sockets admitted with an address count.
    pub max_sockets_per_address: usize,
}

impl Default for LobbyLimits {
    fn default() -> Self {
        LobbyLimits {
            max_players: signaling_protocol::limits::MAX_PLAYERS,
            max_sockets: crate::defaults::LOBBY_MAX_SOCKETS,
            hello_timeout_ms: crate::defaults::HELLO_TIMEOUT_MS,
            max_message_bytes: signaling_protocol::limits::MAX_MESSAGE_BYTES,
            messages_per_minute: crate::defaults::LOBBY_MESSAGES_PER_MINUTE,
            idle_timeout_ms: crate::defaults::LOBBY_IDLE_TIMEOUT_MS,
            max_sockets_per_address: crate::defaults::LOBBY_SOCKETS_PER_IP,
        }
    }
}

impl LobbyLimits {
    /// Whether a lobby holding `open` sockets may take one more under
    /// [`LobbyLimits::max_sockets`] (always, with the cap off).
    #[must_use]
    pub fn below_socket_cap(&self, open: usize) -> bool {
        self.max_sockets == 0 || open < self.max_sockets
    }
}

/// Why a lobby WebSocket upgrade is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LobbyRefusal {
    /// Already [`LobbyLimits::max_sockets`] sockets open: 503.
    TooManySockets,
    /// Already [`LobbyLimits::max_sockets_per_address`] sockets open from
    /// this client's address: 429.
    TooManyFromAddress,
}

impl LobbyRefusal {
    /// The HTTP status to answer with.
    #[must_use]
    pub fn status(self) -> u16 {
        match self {
            LobbyRefusal::TooManySockets => 503,
            LobbyRefusal::TooManyFromAddress => 429,
        }
    }

    /// The `error` text of the JSON body.
    #[must_use]
    pub fn reason(self) -> &'static str {
        match self {
            LobbyRefusal::TooManySockets => {
                "the lobby has too many open connections; try again soon"
            }
            LobbyRefusal::TooManyFromAddress => {
                "too many lobby connections from your address; close one first"
            }
        }
    }
}

/// The close reason of a welcomed socket that stayed silent too long.
const IDLE_REASON: &str = "no heartbeat in time";

/// How many tags the lobby draws for a newcomer before it gives up on a
/// name that every tag it drew is already shown with.
const TAG_DRAWS: u32 = 64;

/// A player on the roster.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Player {
    /// 12 characters from `A–Z a–z 0–9`, chosen by the client.
    pub id: PeerId,
    /// The cleaned nickname.
    pub nick: String,
    /// The tag the lobby drew for the player (see [`Lobby::with_tag_key`]).
    pub tag: PlayerTag,
    /// Lobby or in a match.
    pub status: PlayerStatus,
    /// Join order (roster order).
    pub seq: u64,
}

/// What the lobby knows about one socket: its WebSocket attachment, from
/// which [`Lobby::restore`] rebuilds the lobby after hibernation (well under
/// the 2 KiB Durable Objects allow).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LobbyAttachment {
    /// The socket.
    pub socket: SocketId,
    /// When it was admitted (its hello deadline counts from here).
    #[serde(with = "crate::millis_serde")]
    pub opened_at: Millis,
    /// Set once its hello was accepted.
    pub player: Option<Player>,
    /// Its messages in the current one-minute window.
    pub window: MinuteWindow,
    /// Answers it may still send free of charge, by the player they go to:
    /// each `signal` relayed to this socket from a player lets it send
    /// [`REPLIES_PER_SIGNAL`] signals back to that player without using its
    /// own rate window (at most [`MAX_REPLY_CREDIT`] banked per player; a
    /// free answer earns the other side nothing). So
    /// the player who starts a handshake pays for the answers it provokes,
    /// and flooding someone with offers cannot get them closed for
    /// answering. Entries of players who left are removed.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub reply_credit: BTreeMap<PeerId, u16>,
    /// When the lobby last received a frame on this socket, in ms (0 before
    /// the first); the idle timeout counts from the later of this and
    /// [`LobbyAttachment::opened_at`].
    #[serde(default)]
    pub heard_ms: u64,
    /// The client's address key ([`crate::address_key`]) for the per-address
    /// cap, when the host gave one. It lives only as long as the socket and
    /// is never logged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub address: Option<IpAddr>,
    /// The lobby's number in the directory ([`Lobby::with_number`]), kept
    /// with each socket so that a lobby rebuilt after hibernation still
    /// knows it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lobby: Option<u32>,
}

/// Signals a player may send back, free, for each one relayed to it (an
/// answer and a few ICE candidates per offer or candidate).
pub const REPLIES_PER_SIGNAL: u16 = 4;

/// Most free answers banked toward one player.
pub const MAX_REPLY_CREDIT: u16 = 32;

impl LobbyAttachment {
    /// When the socket was last heard from (or opened).
    #[must_use]
    pub fn last_heard(&self) -> Millis {
        Millis(self.heard_ms.max(self.opened_at.0))
    }

    /// As JSON text (for hosts that store attachments as strings).
    #[must_use]
    pub fn to_json(&self) -> String {
        to_json(self)
    }

    /// Reads [`LobbyAttachment::to_json`]'s output; `None` if malformed.
    #[must_use]
    pub fn from_json(text: &str) -> Option<LobbyAttachment> {
        serde_json::from_str(text).ok()
    }
}

type LobbyAction = Action<LobbyAttachment>;

impl Player {
    fn entry(&self) -> RosterEntry {
        RosterEntry {
            id: self.id.clone(),
            nick: self.nick.clone(),
            tag: self.tag.clone(),
            status: self.status,
        }
    }
}

/// The lobby state machine (see the crate docs for the calling contract).
///
/// * `admit`: 503 ([`LobbyRefusal`]) when `max_sockets` are open, 429 when
///   the client's address holds `max_sockets_per_address`; otherwise the
///   socket gets `hello_timeout_ms` to say hello or is closed with 1008.
/// * A welcomed socket from which nothing arrives for `idle_timeout_ms`
///   (heartbeats count) is closed with 1008 and leaves the roster.
/// * `ping` (before or after hello) is answered with `pong`.
/// * Every frame first passes the size cap (close 1009) and the per-socket
///   rate (close 1008).
/// * `hello {id, nick}`: refused with `error` (the socket stays, unjoined,
///   and may try again) for a second hello, a malformed id, an invalid nick
///   or an id already on the roster; answered with `full` when the roster
///   has `max_players`. Accepted: the player gets a tag that no player with
///   the same or a look-alike name shows, `welcome {you, roster}` goes to
///   the socket (everyone, itself included, in join order) and
///   `joined {player}` to every other player.
/// * `status {status}` (`lobby` | `in-match`): `status {id, status}` to every
///   other player.
/// * `signal {to, data}`: `signal {from, data}` to `to`, with `data`
///   byte-for-byte as received; `error` when `to` is not on the roster.
/// * Before hello, `status` and `signal` get `error`; unknown types,
///   non-objects and binary frames get `error`.
/// * A player's socket closing sends `left {id}` to every other player.
#[derive(Debug)]
pub struct Lobby {
    limits: LobbyLimits,
    tag_key: [u8; 32],
    sockets: BTreeMap<SocketId, LobbyAttachment>,
    next_socket: u64,
    next_seq: u64,
    alarm: Option<Millis>,
    number: Option<u32>,
}

impl Lobby {
    /// An empty lobby.
    #[must_use]
    pub fn new(limits: LobbyLimits) -> Lobby {
        Lobby::restore(limits, [])
    }

    /// Rebuilds the lobby after hibernation from its sockets' attachments,
    /// then carries on as before. An attachment repeating a socket id or a
    /// player id already seen is ignored (the host should close that
    /// socket). The first event after a restore re-announces the alarm.
    ///
    /// Pass only sockets that are still open, and leave out any socket the
    /// machine closed with [`Action::Close`] (the runtime may list it until
    /// its closing handshake ends): clear its attachment when carrying out
    /// the close, or it would come back on the roster.
    #[must_use]
    pub fn restore(
        limits: LobbyLimits,
        attachments: impl IntoIterator<Item = LobbyAttachment>,
    ) -> Lobby {
        let mut lobby = Lobby {
            limits,
            tag_key: [0; 32],
            sockets: BTreeMap::new(),
            next_socket: 0,
            next_seq: 0,
            alarm: None,
            number: None,
        };
        for a in attachments {
            lobby.number = lobby.number.or(a.lobby);
            if lobby.sockets.contains_key(&a.socket) {
                continue;
            }
            if let Some(p) = &a.player {
                if lobby.player_socket(p.id.as_str()).is_some() {
                    continue;
                }
                lobby.next_seq = lobby.next_seq.max(p.seq.saturating_add(1));
            }
            lobby.next_socket = lobby.next_socket.max(a.socket.0.saturating_add(1));
            lobby.sockets.insert(a.socket, a);
        }
        lobby
    }

    /// Sets the secret from which players' tags are drawn. A host passes
    /// 32 bytes from its cryptographic random source, once per machine it
    /// builds (a fresh key after a restore is fine: the tags of players
    /// already on the roster are kept in their attachments). Without a key
    /// (all zeros) tags are still unique per name, but anyone who guesses a
    /// socket's id could work out its tag in advance.
    #[must_use]
    pub fn with_tag_key(mut self, key: [u8; 32]) -> Lobby {
        self.tag_key = key;
        self
    }

    /// Sets the lobby's number in the directory, which its `welcome`
    /// then carries (`"lobby":N`) so that a page can tell which of the
    /// `GET /lobbies` fills is its own.
    #[must_use]
    pub fn with_number(mut self, n: u32) -> Lobby {
        self.set_number(n);
        self
    }

    /// [`Lobby::with_number`] on a lobby already built (a Durable Object
    /// learns its number from the requests the directory forwards).
    pub fn set_number(&mut self, n: u32) {
        self.number = Some(n);
    }

    /// The lobby's number, when it was given one.
    #[must_use]
    pub fn number(&self) -> Option<u32> {
        self.number
    }

    /// The limits in force.
    #[must_use]
    pub fn limits(&self) -> LobbyLimits {
        self.limits
    }

    /// Open sockets (joined or not).
    #[must_use]
    pub fn socket_count(&self) -> usize {
        self.sockets.len()
    }

    /// Open sockets admitted from `address` (counted by
    /// [`crate::address_key`], as the per-address cap counts them), for a
    /// host that spreads one address's sockets over several lobbies.
    #[must_use]
    pub fn sockets_from(&self, address: IpAddr) -> usize {
        let key = crate::address_key(address);
        self.socket_addresses().filter(|a| *a == key).count()
    }

    /// The address keys of the open sockets that have one.
    pub(crate) fn socket_addresses(&self) -> impl Iterator<Item = IpAddr> + '_ {
        self.sockets.values().filter_map(|a| a.address)
    }

    /// Whether a newcomer would find room: fewer open sockets than
    /// [`LobbyLimits::max_sockets`] and fewer players than
    /// [`LobbyLimits::max_players`], counting sockets that have not said
    /// hello yet as players to come.
    #[must_use]
    pub fn has_room(&self) -> bool {
        self.limits.below_socket_cap(self.sockets.len())
            && self.sockets.len() < self.limits.max_players
    }

    /// Players on the roster, in join order.
    #[must_use]
    pub fn roster(&self) -> Vec<&Player> {
        let mut players: Vec<&Player> = self
            .sockets
            .values()
            .filter_map(|a| a.player.as_ref())
            .collect();
        players.sort_by_key(|p| p.seq);
        players
    }

    /// A socket's current state, if the lobby knows it.
    #[must_use]
    pub fn attachment(&self, socket: SocketId) -> Option<&LobbyAttachment> {
        self.sockets.get(&socket)
    }

    /// When a socket's deadline falls: its hello deadline before it is
    /// welcomed, its idle deadline after (none with the idle timeout off).
    fn deadline_of(&self, a: &LobbyAttachment) -> Option<Millis> {
        match (&a.player, self.limits.idle_timeout_ms) {
            (None, _) if self.limits.hello_timeout_ms == 0 => None,
            (None, _) => Some(a.opened_at + Millis(self.limits.hello_timeout_ms)),
            (Some(_), 0) => None,
            (Some(_), idle) => Some(a.last_heard() + Millis(idle)),
        }
    }

    /// When the next deadline falls (a hello or an idle timeout), if any.
    #[must_use]
    pub fn next_deadline(&self) -> Option<Millis> {
        self.sockets
            .values()
            .filter_map(|a| self.deadline_of(a))
            .min()
    }

    /// Tells the lobby that `socket` was heard from at `at` by a path that
    /// bypassed it: a heartbeat the host's runtime answered on its own (a
    /// Durable Object's WebSocket auto-response). It only moves the idle
    /// deadline later; call it for every socket before delivering
    /// [`Event::Alarm`]. Nothing needs storing: the runtime keeps the time.
    pub fn heard_from(&mut self, socket: SocketId, at: Millis) {
        if let Some(a) = self.sockets.get_mut(&socket) {
            a.heard_ms = a.heard_ms.max(at.0);
        }
    }

    /// Admits a new socket (before the upgrade) without an address: the
    /// per-address cap does not apply to it. See the type docs.
    pub fn admit(&mut self, now: Millis) -> Result<(SocketId, Vec<LobbyAction>), LobbyRefusal> {
        self.admit_from(now, None)
    }

    /// What [`Lobby::admit_from`] would answer for a socket from
    /// `address`, without admitting it (so that a host charges its budget
    /// only for an upgrade the lobby takes).
    pub fn check_admission(&self, address: Option<IpAddr>) -> Result<(), LobbyRefusal> {
        if !self.limits.below_socket_cap(self.sockets.len()) {
            return Err(LobbyRefusal::TooManySockets);
        }
        let per_address = self.limits.max_sockets_per_address;
        if let Some(key) = address.map(crate::address_key).filter(|_| per_address != 0) {
            let held = self
                .sockets
                .values()
                .filter(|a| a.address == Some(key))
                .count();
            if held >= per_address {
                return Err(LobbyRefusal::TooManyFromAddress);
            }
        }
        Ok(())
    }

    /// Admits a new socket from a client address (which is counted by
    /// [`crate::address_key`]): 503 when the lobby holds
    /// [`LobbyLimits::max_sockets`], 429 when that address already holds
    /// [`LobbyLimits::max_sockets_per_address`].
    pub fn admit_from(
        &mut self,
        now: Millis,
        address: Option<IpAddr>,
    ) -> Result<(SocketId, Vec<LobbyAction>), LobbyRefusal> {
        self.check_admission(address)?;
        let address = address.map(crate::address_key);
        let socket = SocketId::allocate(&mut self.next_socket, now);
        let attachment = LobbyAttachment {
            socket,
            opened_at: now,
            player: None,
            window: MinuteWindow::new(),
            reply_credit: BTreeMap::new(),
            heard_ms: now.0,
            address,
            lobby: self.number,
        };
        self.sockets.insert(socket, attachment.clone());
        let mut out = vec![
            LobbyAction::Persist { socket, attachment },
            LobbyAction::Log(
                LogRecord::new(Level::Debug, "lobby.open").with("sockets", self.sockets.len()),
            ),
        ];
        self.arm(&mut out);
        Ok((socket, out))
    }

    /// Handles one event at `now`. See the type docs.
    pub fn handle(&mut self, event: Event<'_>, now: Millis) -> Vec<LobbyAction> {
        let mut out = Vec::new();
        match event {
            Event::Text { socket, text } => {
                self.on_frame(socket, Some(text), text.len(), now, &mut out)
            }
            Event::Binary { socket, len } => self.on_frame(socket, None, len, now, &mut out),
            Event::Closed { socket } => {
                if self.sockets.contains_key(&socket) {
                    self.drop_socket(socket, None, &mut out);
                }
            }
            Event::Alarm => {
                // The host's timer is spent: re-announce whatever is next,
                // even if it did not change (the alarm may have come early).
                self.alarm = None;
                let late: Vec<(SocketId, &'static str)> = self
                    .sockets
                    .values()
                    .filter(|a| self.deadline_of(a).is_some_and(|at| now >= at))
                    .map(|a| {
                        let why = if a.player.is_none() {
                            "no hello in time"
                        } else {
                            IDLE_REASON
                        };
                        (a.socket, why)
                    })
                    .collect();
                for (socket, why) in late {
                    self.drop_socket(socket, Some((close_code::POLICY, why)), &mut out);
                }
            }
        }
        self.arm(&mut out);
        out
    }

    fn on_frame(
        &mut self,
        socket: SocketId,
        text: Option<&str>,
        len: usize,
        now: Millis,
        out: &mut Vec<LobbyAction>,
    ) {
        let limits = self.limits;
        let Some(att) = self.sockets.get_mut(&socket) else {
            return;
        };
        att.heard_ms = att.heard_ms.max(now.0);
        if len > limits.max_message_bytes {
            self.drop_socket(socket, Some((close_code::TOO_BIG, "message too big")), out);
            return;
        }
        let request = text.map(LobbyRequest::parse);
        // An answer to a player who signalled this socket is paid for by
        // that player (see `LobbyAttachment::reply_credit`).
        let free = match &request {
            Some(Ok(LobbyRequest::Signal { to, .. })) if att.player.is_some() => {
                match PeerId::parse(to).and_then(|to| att.reply_credit.get_mut(&to)) {
                    Some(credit) if *credit > 0 => {
                        *credit -= 1;
                        true
                    }
                    _ => false,
                }
            }
            _ => false,
        };
        if !free && !att.window.try_take(limits.messages_per_minute, now) {
            self.drop_socket(socket, Some((close_code::POLICY, "too many messages")), out);
            return;
        }
        // The rate window, the credit or the time last heard changed.
        out.push(LobbyAction::Persist {
            socket,
            attachment: att.clone(),
        });
        let Some(request) = request else {
            self.reply_error(socket, "binary frames are not accepted", out);
            return;
        };
        let joined = att.player.is_some();
        match request {
            Ok(LobbyRequest::Ping) => out.push(LobbyAction::Send {
                socket,
                text: heartbeat::PONG.to_owned(),
            }),
            Ok(LobbyRequest::Hello { id, nick }) => self.on_hello(socket, id, nick, out),
            Ok(LobbyRequest::Status(status)) if joined => self.on_status(socket, status, out),
            Ok(LobbyRequest::Signal { to, data }) if joined => {
                self.on_signal(socket, &to, data, !free, out)
            }
            Ok(LobbyRequest::Status(_) | LobbyRequest::Signal { .. }) => {
                self.reply_error(socket, "say hello first", out)
            }
            Err(e) if e.needs_hello() && !joined => {
                self.reply_error(socket, "say hello first", out)
            }
            Err(e) => self.reply_error(socket, e.reason(), out),
        }
    }

    fn on_hello(&mut self, socket: SocketId, id: PeerId, nick: String, out: &mut Vec<LobbyAction>) {
        if self
            .sockets
            .get(&socket)
            .is_some_and(|a| a.player.is_some())
        {
            return self.reply_error(socket, "already joined", out);
        }
        if self.player_socket(id.as_str()).is_some() {
            return self.reply_error(socket, "that id is already in the lobby", out);
        }
        let players = self.sockets.values().filter(|a| a.player.is_some()).count();
        if players >= self.limits.max_players {
            out.push(LobbyAction::Send {
                socket,
                text: lobby_server::full(),
            });
            out.push(LobbyAction::Log(
                LogRecord::new(Level::Info, "lobby.full").with("players", players),
            ));
            return;
        }
        let Some(tag) = self.draw_tag(socket, &nick) else {
            return self.reply_error(socket, "too many players with that name", out);
        };
        let player = Player {
            id,
            nick,
            tag,
            status: PlayerStatus::Lobby,
            seq: self.next_seq,
        };
        self.next_seq += 1;
        let Some(att) = self.sockets.get_mut(&socket) else {
            return;
        };
        let me = player.entry();
        att.player = Some(player);
        let attachment = att.clone();
        out.push(LobbyAction::Persist { socket, attachment });

        let roster: Vec<RosterEntry> = self.roster().iter().map(|p| p.entry()).collect();
        out.push(LobbyAction::Send {
            socket,
            text: lobby_server::welcome_in(self.number, &me.id, &roster),
        });
        self.broadcast_except(socket, &lobby_server::joined(&me), out);
        out.push(LobbyAction::Log(
            LogRecord::new(Level::Info, "lobby.joined").with("players", roster.len()),
        ));
    }

    /// A tag for a newcomer named `nick` on `socket` that no player on the
    /// roster whose name looks the same ([`look_alike`]) already shows,
    /// drawn from HMAC-SHA256 under the tag key over the socket id and a
    /// counter. The client has no say in it, so nobody can pick the tag of
    /// someone else with the same (or a look-alike) name. `None` when every
    /// draw is taken.
    fn draw_tag(&self, socket: SocketId, nick: &str) -> Option<PlayerTag> {
        let taken: Vec<&PlayerTag> = self
            .sockets
            .values()
            .filter_map(|a| a.player.as_ref())
            .filter(|p| look_alike(&p.nick, nick))
            .map(|p| &p.tag)
            .collect();
        (0..TAG_DRAWS).find_map(|draw| {
            let mut mac = Hmac::<Sha256>::new_from_slice(&self.tag_key)
                .expect("HMAC takes keys of any length");
            mac.update(b"player tag");
            mac.update(&socket.0.to_le_bytes());
            mac.update(&draw.to_le_bytes());
            let bytes = mac.finalize().into_bytes();
            PlayerTag::from_random_bytes(&bytes).filter(|tag| !taken.contains(&tag))
        })
    }

    fn on_status(&mut self, socket: SocketId, status: PlayerStatus, out: &mut Vec<LobbyAction>) {
        let Some(att) = self.sockets.get_mut(&socket) else {
            return;
        };
        let Some(player) = att.player.as_mut() else {
            return;
        };
        if player.status != status {
            // Info, so an operator (and play.sh's terminal) sees matches start
            // and end; the player is not named.
            out.push(LobbyAction::Log(
                LogRecord::new(Level::Info, "lobby.status").with("status", status.as_str()),
            ));
        }
        player.status = status;
        let text = lobby_server::status(&player.id, status);
        let attachment = att.clone();
        out.push(LobbyAction::Persist { socket, attachment });
        self.broadcast_except(socket, &text, out);
    }

    fn on_signal(
        &mut self,
        socket: SocketId,
        to: &str,
        data: &RawValue,
        paid: bool,
        out: &mut Vec<LobbyAction>,
    ) {
        let Some(target) = self.player_socket(to).filter(|t| *t != socket) else {
            return self.reply_error(socket, "no such player in the lobby", out);
        };
        let Some(from) = self
            .sockets
            .get(&socket)
            .and_then(|a| a.player.as_ref())
            .map(|p| p.id.clone())
        else {
            return;
        };
        out.push(LobbyAction::Send {
            socket: target,
            text: lobby_server::signal(&from, data),
        });
        // Only a signal its sender paid for earns answers: a free answer
        // earning free answers back would let two players talk for nothing.
        if let Some(t) = self.sockets.get_mut(&target).filter(|_| paid) {
            let credit = t.reply_credit.entry(from).or_insert(0);
            *credit = credit
                .saturating_add(REPLIES_PER_SIGNAL)
                .min(MAX_REPLY_CREDIT);
            out.push(LobbyAction::Persist {
                socket: target,
                attachment: t.clone(),
            });
        }
        out.push(LobbyAction::Log(
            LogRecord::new(Level::Debug, "lobby.signal").with("bytes", data.get().len()),
        ));
    }

    fn reply_error(&self, socket: SocketId, reason: &'static str, out: &mut Vec<LobbyAction>) {
        out.push(LobbyAction::Send {
            socket,
            text: lobby_server::error(reason),
        });
        out.push(LobbyAction::Log(
            LogRecord::new(Level::Warn, "lobby.refused").with("reason", reason),
        ));
    }

    fn broadcast_except(&self, except: SocketId, text: &str, out: &mut Vec<LobbyAction>) {
        for a in self.sockets.values() {
            if a.socket != except && a.player.is_some() {
                out.push(LobbyAction::Send {
                    socket: a.socket,
                    text: text.to_owned(),
                });
            }
        }
    }

    fn player_socket(&self, id: &str) -> Option<SocketId> {
        self.sockets
            .values()
            .find(|a| a.player.as_ref().is_some_and(|p| p.id.as_str() == id))
            .map(|a| a.socket)
    }

    /// Forgets a socket (closing it first when `close` is given) and tells
    /// the others if it was a player.
    fn drop_socket(
        &mut self,
        socket: SocketId,
        close: Option<(u16, &'static str)>,
        out: &mut Vec<LobbyAction>,
    ) {
        let Some(att) = self.sockets.remove(&socket) else {
            return;
        };
        if let Some((code, reason)) = close {
            out.push(LobbyAction::Close {
                socket,
                code,
                reason,
            });
            // A silent welcomed socket is most often a page that went away
            // without closing (a lost network): normal life, not abuse.
            let level = if reason == IDLE_REASON {
                Level::Info
            } else {
                Level::Warn
            };
            out.push(LobbyAction::Log(
                LogRecord::new(level, "lobby.kicked")
                    .with("reason", reason)
                    .with("close", code),
            ));
        }
        if let Some(p) = att.player {
            for other in self.sockets.values_mut() {
                if other.reply_credit.remove(&p.id).is_some() {
                    out.push(LobbyAction::Persist {
                        socket: other.socket,
                        attachment: other.clone(),
                    });
                }
            }
            let text = lobby_server::left(&p.id);
            self.broadcast_except(socket, &text, out);
            out.push(LobbyAction::Log(
                LogRecord::new(Level::Info, "lobby.left").with("players", self.roster().len()),
            ));
        } else {
            out.push(LobbyAction::Log(
                LogRecord::new(Level::Debug, "lobby.closed").with("sockets", self.sockets.len()),
            ));
        }
    }

    /// Announces the earliest deadline when it changed.
    fn arm(&mut self, out: &mut Vec<LobbyAction>) {
        let next = self.next_deadline();
        if next != self.alarm {
            if let Some(at) = next {
                out.push(LobbyAction::SetAlarm(at));
            }
            self.alarm = next;
        }
    }
}

/// Whether a player could mistake one name for the other: the same ignoring
/// case, or the same once each letter is replaced by the one it is
/// confusable with (the Unicode confusables skeleton), before or after case
/// folding. So "Ada", "ADA", "Аda" with a Cyrillic "А", and "AIice" with a
/// capital I for "Alice", are taken for one name.
fn look_alike(a: &str, b: &str) -> bool {
    use unicode_security::confusable_detection::skeleton;
    let same = |x: &str, y: &str| skeleton(x).eq(skeleton(y));
    same(a, b) || same(&a.to_lowercase(), &b.to_lowercase())
}
