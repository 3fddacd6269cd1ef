//! The party's member-room link: every pair of a party's players builds its
//! own peer connection through one member room of the signalling service,
//! as a pure state machine.
//!
//! The challenger's page hosts the room (member 0); each player who
//! accepted joins it as a player and gets the lowest free member id. A
//! page knows its own party place (from `party-start`) and how many people
//! play; the room knows member ids. The rules:
//!
//! - **Who offers.** Of every two players, the one with the lower member
//!   id creates the peer connection and sends the offer; the other
//!   answers. So the host offers to everyone, and a player offers to each
//!   player who joined after it (on `welcome` for those already there, on
//!   `member-joined` for later ones).
//! - **Spectators.** A spectator links to the host alone
//!   ([`MemberLink::watcher`]): it offers, the host answers, and once the
//!   link is open the spectator has its way in ([`MemberOutput::Ready`]
//!   with the host's link) and the host hears
//!   [`MemberOutput::SpectatorOpen`]. The spectator stays in the room
//!   while it watches: the room gives a freed member id to the next
//!   member, and the host names its links by member id, so a spectator
//!   that left would leave its id to the next one while its link still
//!   runs. Its envelopes carry the place
//!   [`WATCHER`]. Players ignore spectators; a spectator that sends
//!   anything but an offer and its candidates to the host, or claims a
//!   player's place, is dropped and logged.
//! - **What travels.** Each `signal` carries `{"place":P,"signal":S}`: `P`
//!   the sender's party place, `S` an offer, answer or ICE candidate in the
//!   two-seat room's shape (`Signal`). A member keeps the first place it
//!   claims; a second member claiming a place already held, a place beyond
//!   the party, place 0 from anyone but the host, or a change of place is
//!   refused (dropped and logged), so the host learns which member holds
//!   which place, and with it each link's side.
//! - **The relay.** A pair whose direct link has not opened within
//!   [`PARTY_RELAY_AFTER`] of this page's first tick after the pair was made, or
//!   whose peer connection failed first, goes through the service's relay
//!   for that pair instead (the other pairs stay as they are): the side
//!   closes its peer connection, tells the other member
//!   (`{"place":P,"relay":true}` in a `signal`, which also says its place,
//!   since no offer or answer may have crossed), and asks the room for its
//!   ticket (`relay-ticket` naming the other member). The other member
//!   switches too as soon as it hears it. With the ticket the page opens
//!   the pair's relay ([`MemberOutput::OpenRelay`]); the relay pairing is
//!   reported as [`MemberLink::link_opened`], as for a peer connection.
//!   A ticket names both members and the room signs it only while both
//!   are in it: a player leaves the room only once its mesh is complete,
//!   which it cannot be before its own relays paired, and a relay pairs
//!   only once both ends hold their tickets, so no side is left asking
//!   alone. A side that switches does so only while the other member is
//!   still in the room. With [`MemberLink::relay_at_once`] (the page's
//!   `?relay=1`) each pair switches as soon as it is made. The links of
//!   a comeback room ([`Relink`](super::relink::Relink)) switch by the
//!   same steps ([`Pair`]'s timer and switch, the notice and ticket
//!   frames, the ticket's other member). A spectator's
//!   link to the host goes the same way on the spectator's timer (or a
//!   failed peer connection on either side): the host follows its notice
//!   (place [`WATCHER`]) and answers with its own (place 0), since the
//!   spectator may have had no answer yet.
//! - **Ready.** When the links to all `people - 1` other players are open,
//!   the page has its mesh ([`MemberOutput::Ready`], the links in place
//!   order). A player then leaves the room (`done`); the host keeps it
//!   open for spectators while the match runs, and the page ends it with
//!   the match. A player who leaves the room before
//!   its link to us opened, a link that fails or closes before the mesh is
//!   complete, or the connect deadline ([`MemberLink::new`]'s `deadline`)
//!   ends the attempt ([`MemberOutput::Failed`]).
//!
//! Calling contract: call the method for what happened, then drain
//! [`MemberLink::poll`] and carry out each [`MemberOutput`] in order; call
//! [`MemberLink::tick`] by [`MemberLink::deadline`].

use crate::protocol::{Signal, SignalKind};
use lockstep::Millis;
use serde_json::{json, Value};
use signaling_protocol::members::{member_out, MemberId, MemberRole, MemberServerMsg};
use signaling_protocol::{RelayTicket, Role};
use std::collections::{BTreeMap, VecDeque};

/// How a link to one other player stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PairPhase {
    /// We made the peer connection and sent (or are sending) the offer.
    Offering,
    /// We wait for their offer.
    AwaitingOffer,
    /// We answered their offer.
    Answering,
    /// We gave up on the direct path and asked for the pair's relay
    /// ticket (`ticket`: it came and the relay socket is opening).
    Relaying {
        /// The ticket came.
        ticket: bool,
    },
    /// The data channels are open (or the relay paired).
    Open,
}

/// One other player of the party, as this page sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pair {
    /// How the link stands.
    pub phase: PairPhase,
    /// The party place it claimed, once it said.
    pub place: Option<u8>,
    /// It has left the room (after its own mesh was complete).
    pub left_room: bool,
    /// The link goes through the service's relay.
    pub relayed: bool,
    /// When the pair switches to the relay unless its direct link opened
    /// first; set on the first tick after the pair was made.
    pub relay_at: Option<Millis>,
}

impl Pair {
    pub(super) fn new(phase: PairPhase) -> Pair {
        Pair {
            phase,
            place: None,
            left_room: false,
            relayed: false,
            relay_at: None,
        }
    }

    /// Whether its direct link is still being made.
    #[must_use]
    pub fn direct(&self) -> bool {
        self.phase.direct()
    }

    /// Time passed: the first tick after the pair was made starts its
    /// relay deadline; `true` once that passed with the direct link not
    /// open and the other member still in the room (the pair switches).
    pub(super) fn relay_due(&mut self, now: Millis) -> bool {
        if !self.direct() {
            return false;
        }
        match self.relay_at {
            None => {
                self.relay_at = Some(now + PARTY_RELAY_AFTER);
                false
            }
            Some(at) => now >= at && !self.left_room,
        }
    }

    /// Gives up on the direct path: the pair waits for its relay ticket.
    /// `true` if a peer connection was being made (to be closed).
    pub(super) fn go_to_relay(&mut self) -> bool {
        let had_peer = self.phase != PairPhase::AwaitingOffer;
        self.phase = PairPhase::Relaying { ticket: false };
        self.relayed = true;
        had_peer
    }

    /// Whether a report that the link to this member failed or closed is
    /// the closed peer connection's own, after a switch to the relay
    /// whose ticket has not come: nothing to do then.
    #[must_use]
    pub(super) fn closed_for_relay(&self) -> bool {
        self.phase.waits_for_ticket()
    }

    /// The link's channels opened (or its relay paired): `false` for a
    /// peer connection closed for the relay that still reported them
    /// (only the relay's pairing counts then).
    pub(super) fn opened(&mut self) -> bool {
        if self.closed_for_relay() {
            return false;
        }
        self.phase = PairPhase::Open;
        true
    }
}

impl PairPhase {
    /// Whether the direct link is still being made.
    #[must_use]
    pub fn direct(self) -> bool {
        matches!(
            self,
            PairPhase::Offering | PairPhase::AwaitingOffer | PairPhase::Answering
        )
    }

    /// Whether the pair switched to its relay and waits for the ticket.
    #[must_use]
    pub fn waits_for_ticket(self) -> bool {
        self == PairPhase::Relaying { ticket: false }
    }

    /// Our ticket for the pair's relay came: `true` if the pair was
    /// waiting for it (the relay is opened then).
    pub(super) fn take_ticket(&mut self) -> bool {
        let waiting = self.waits_for_ticket();
        if waiting {
            *self = PairPhase::Relaying { ticket: true };
        }
        waiting
    }
}

/// The room frames that take our pair with `id` to its relay, in order:
/// the notice that tells the other member (with our place, since no offer
/// or answer may have crossed: `{"place":P,"relay":true}`), and our ask
/// for our ticket (`relay-ticket` naming it). Shared by the party's first
/// room and its comeback rooms ([`Relink`](super::relink::Relink)).
pub(super) fn relay_asks(place: u8, id: MemberId) -> [String; 2] {
    let data = json!({"place": place, "relay": true});
    [member_out::signal(id, &data), member_out::relay_ticket(id)]
}

/// The other member of the pair `ticket` names, if `me` is one of the two.
pub(super) fn ticket_peer(ticket: &RelayTicket, me: MemberId) -> Option<MemberId> {
    let pair = ticket.pair()?;
    let (a, b) = (pair.member(Role::Host), pair.member(Role::Guest));
    (a == me).then_some(b).or((b == me).then_some(a))
}

/// Why the attempt ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemberFailure {
    /// The room socket closed or refused us before the mesh was complete.
    RoomLost,
    /// A player left the room before its link to us opened.
    PlayerLeft(MemberId),
    /// A peer connection failed or closed before the mesh was complete.
    LinkFailed(MemberId),
    /// The mesh was not complete by the deadline.
    TimedOut,
    /// The room put us in a place we cannot play: as a spectator, or as
    /// the host when we joined (or the reverse), or beyond the party.
    WrongSeat,
}

/// Something for the page to do.
#[derive(Debug, Clone, PartialEq)]
pub enum MemberOutput {
    /// Send this text frame on the room socket.
    ToRoom(String),
    /// Create a peer connection to `member`, offering: make the data
    /// channels, then report the offer and candidates with
    /// [`MemberLink::local_signal`].
    Offer(MemberId),
    /// Apply handshake data from `member`. An offer means: create an
    /// answering peer connection to `member`, then report the answer and
    /// candidates with [`MemberLink::local_signal`].
    Remote {
        /// The member.
        member: MemberId,
        /// The validated data.
        signal: Signal,
    },
    /// Close the peer connection to `member`.
    ClosePeer(MemberId),
    /// Open the relay of our pair with `member` with this ticket, as the
    /// link to `member` (in place of its peer connection); report its
    /// pairing with [`MemberLink::link_opened`] and its end with
    /// [`MemberLink::link_lost`].
    OpenRelay {
        /// The member.
        member: MemberId,
        /// Our ticket for our end of the pair's relay.
        ticket: RelayTicket,
    },
    /// The mesh is complete: the links to every other player, in place
    /// order, each with its place.
    Ready(Vec<(MemberId, u8)>),
    /// Close the room socket (after `done`).
    CloseRoom,
    /// On the host: the link to spectator `member` is open; the match
    /// takes it as a spectator's.
    SpectatorOpen(MemberId),
    /// On the host: the link to spectator `member` failed, closed, or the
    /// spectator left the room before it opened; it was closed.
    SpectatorGone(MemberId),
    /// The attempt ended; every peer connection of it was closed.
    Failed(MemberFailure),
}

/// How long a pair's direct link may take to open, from this page's first
/// tick after the pair was made, before the pair switches to its relay.
/// Shorter than a match of two's
/// ([`RELAY_AFTER`](super::room::RELAY_AFTER)): a page whose other links
/// opened has started its match, whose session ends on a player silent for
/// its timeout (5 s), and a page still waiting for one link sends nothing
/// on the others; the relayed pair must be linked well before that.
pub const PARTY_RELAY_AFTER: Millis = Millis(3_000);

/// The place a spectator's envelopes carry: it holds no party place.
pub const WATCHER: u8 = u8::MAX;

/// One page's side of a party's member room.
#[derive(Debug)]
pub struct MemberLink {
    /// Our party place (0 for the challenger, who hosts the room).
    place: u8,
    /// How many play, us included.
    people: u8,
    /// Our member id, once the room welcomed us.
    me: Option<MemberId>,
    /// The other players, by member id (on a spectator's page, the host).
    pairs: BTreeMap<MemberId, Pair>,
    /// On the host: the spectators whose link is being made or is open.
    spectators: BTreeMap<MemberId, PairPhase>,
    /// When the attempt gives up.
    deadline: Millis,
    /// The mesh was reported ready.
    ready: bool,
    /// The attempt is over (failed, or the room is closed).
    over: bool,
    /// Every pair goes through the relay at once (`?relay=1`).
    force_relay: bool,
    out: VecDeque<MemberOutput>,
}

impl MemberLink {
    /// The link for party place `place` of `people`, which gives up at
    /// `deadline`. The page opens the room socket (as host for place 0,
    /// as a player otherwise) and reports what it hears.
    /// A place beyond the party fails at once ([`MemberFailure::WrongSeat`]).
    #[must_use]
    pub fn new(place: u8, people: u8, deadline: Millis) -> MemberLink {
        let mut link = MemberLink {
            place,
            people,
            me: None,
            pairs: BTreeMap::new(),
            spectators: BTreeMap::new(),
            deadline,
            ready: false,
            over: false,
            force_relay: false,
            out: VecDeque::new(),
        };
        if place >= people {
            link.fail(MemberFailure::WrongSeat);
        }
        link
    }

    /// A spectator's link to the host of a party's match, which gives up at
    /// `deadline`. The page opens the room socket as a `spectator`; the
    /// link offers to the host once welcomed, and is
    /// [ready](MemberOutput::Ready) when that one link is open.
    #[must_use]
    pub fn watcher(deadline: Millis) -> MemberLink {
        let mut link = MemberLink::new(0, 2, deadline);
        link.place = WATCHER;
        link
    }

    /// The host's side of a room kept for spectators alone: a match of
    /// two, whose players are linked already (by the challenge's own
    /// room), lets spectators in through it. No player links through it,
    /// so it has no mesh to wait for and no deadline: it takes
    /// spectators ([`MemberOutput::SpectatorOpen`]) until
    /// [`end_room`](Self::end_room).
    #[must_use]
    pub fn spectators_only() -> MemberLink {
        let mut link = MemberLink::new(0, 1, Millis::ZERO);
        link.ready = true;
        link
    }

    /// Every pair skips the direct path and goes through the relay from
    /// the start (for testing the relay; the page's `?relay=1`). A
    /// spectator's link to the host stays direct.
    #[must_use]
    pub fn relay_at_once(mut self) -> MemberLink {
        self.force_relay = !self.watching();
        self
    }

    /// Whether this is a spectator's link ([`MemberLink::watcher`]).
    #[must_use]
    pub fn watching(&self) -> bool {
        self.place == WATCHER
    }

    /// The next thing to do, if any.
    pub fn poll(&mut self) -> Option<MemberOutput> {
        self.out.pop_front()
    }

    /// When [`tick`](Self::tick) must be called, while the attempt runs.
    #[must_use]
    pub fn deadline(&self) -> Option<Millis> {
        (!self.over && !self.ready).then_some(self.deadline)
    }

    /// Our member id, once welcomed.
    #[must_use]
    pub fn me(&self) -> Option<MemberId> {
        self.me
    }

    /// The other players as this page knows them.
    #[must_use]
    pub fn pairs(&self) -> &BTreeMap<MemberId, Pair> {
        &self.pairs
    }

    /// A text frame from the room socket.
    pub fn room_text(&mut self, text: &str) {
        if self.over {
            return;
        }
        let msg = match MemberServerMsg::parse(text) {
            Ok(m) => m,
            Err(e) => {
                log::warn!("party room: dropped a frame ({e:?})");
                return;
            }
        };
        match msg {
            MemberServerMsg::Welcome { you, members } => self.welcome(you.id, &members),
            MemberServerMsg::Joined(entry) => {
                if entry.role == MemberRole::Spectator {
                    self.add_spectator(entry.id);
                } else if Some(entry.id) != self.me && !self.watching() {
                    self.add_player(entry.id);
                }
            }
            MemberServerMsg::Left(id) => self.member_left(id),
            MemberServerMsg::Signal { from, data } => self.remote(from, data),
            MemberServerMsg::Error(_) => {
                // The room refused a frame of ours: a bug of this page, not
                // the other players'; the reason is the service's text.
                log::warn!("party room: the room refused a frame");
            }
            MemberServerMsg::RelayTicket(msg) => self.ticket(msg.ticket),
            MemberServerMsg::Pong => {}
        }
    }

    /// The room socket closed. After the mesh is complete that is expected
    /// (we left, or the host ended the room); before, it ends the attempt.
    pub fn room_closed(&mut self) {
        if !self.over && !self.ready {
            self.fail(MemberFailure::RoomLost);
        }
        self.over = true;
    }

    /// Handshake data our peer connection to `to` made (the offer or
    /// answer, a candidate), to send through the room.
    pub fn local_signal(&mut self, to: MemberId, signal: &Signal) {
        if self.over || !(self.pairs.contains_key(&to) || self.spectators.contains_key(&to)) {
            return;
        }
        let data = json!({"place": self.place, "signal": signal.to_value()});
        self.out
            .push_back(MemberOutput::ToRoom(member_out::signal(to, &data)));
    }

    /// The data channels to `member` opened.
    pub fn link_opened(&mut self, member: MemberId) {
        if self.over {
            return;
        }
        if let Some(phase) = self.spectators.get_mut(&member) {
            // As for a player: a closed peer connection's late report.
            if phase.waits_for_ticket() {
                return;
            }
            if *phase != PairPhase::Open {
                *phase = PairPhase::Open;
                self.out.push_back(MemberOutput::SpectatorOpen(member));
            }
            return;
        }
        if let Some(p) = self.pairs.get_mut(&member) {
            if !p.opened() {
                return;
            }
        }
        self.check_ready();
    }

    /// The peer connection to `member` failed or closed.
    pub fn link_lost(&mut self, member: MemberId) {
        match self.spectators.get(&member) {
            // The closed peer connection's own report.
            Some(PairPhase::Relaying { ticket: false }) => return,
            // A failed direct path: the relay is tried (the spectator
            // leaves the room if it gave up).
            Some(PairPhase::AwaitingOffer | PairPhase::Answering) if !self.over => {
                log::info!("party room: a spectator's direct link failed; switching to the relay");
                self.spectator_to_relay(member);
                return;
            }
            _ => {}
        }
        if self.spectators.remove(&member).is_some() {
            self.out.push_back(MemberOutput::ClosePeer(member));
            self.out.push_back(MemberOutput::SpectatorGone(member));
            return;
        }
        if self.over || self.ready {
            return;
        }
        let Some(p) = self.pairs.get(&member) else {
            return;
        };
        if p.closed_for_relay() {
            // The closed peer connection's own report: the relay is asked.
        } else if p.direct() && !p.left_room {
            // A failed direct path is a reason to try the relay.
            log::info!("party room: a direct link failed; switching to the relay");
            self.switch_to_relay(member);
        } else {
            self.fail(MemberFailure::LinkFailed(member));
        }
    }

    /// Time passed.
    pub fn tick(&mut self, now: Millis) {
        if self.over || self.ready {
            return;
        }
        if now >= self.deadline {
            self.fail(MemberFailure::TimedOut);
            return;
        }
        let due: Vec<MemberId> = self
            .pairs
            .iter_mut()
            .filter_map(|(id, p)| p.relay_due(now).then_some(*id))
            .collect();
        for id in due {
            log::info!("party room: no direct path to a player in time; switching to the relay");
            self.switch_to_relay(id);
        }
    }

    /// Gives up on the direct path to `id`: its peer connection closes,
    /// the other member hears it (and our place), and the ticket is asked.
    fn switch_to_relay(&mut self, id: MemberId) {
        let Some(p) = self.pairs.get_mut(&id) else {
            return;
        };
        let had_peer = p.go_to_relay();
        self.ask_relay(id, had_peer);
    }

    /// Asks for the relay to `id`: closes the peer connection being made
    /// (`had_peer`), tells the other member (and our place), and asks the
    /// room for our ticket.
    fn ask_relay(&mut self, id: MemberId, had_peer: bool) {
        if had_peer {
            self.out.push_back(MemberOutput::ClosePeer(id));
        }
        for frame in relay_asks(self.place, id) {
            self.out.push_back(MemberOutput::ToRoom(frame));
        }
    }

    /// Our ticket for a pair's relay came.
    fn ticket(&mut self, ticket: RelayTicket) {
        let peer = self.me.and_then(|me| ticket_peer(&ticket, me));
        let waiting = peer.filter(|id| match self.pairs.get_mut(id) {
            Some(p) => p.phase.take_ticket(),
            None => self
                .spectators
                .get_mut(id)
                .is_some_and(PairPhase::take_ticket),
        });
        let Some(member) = waiting else {
            log::warn!("party room: dropped a relay ticket it did not ask for");
            return;
        };
        self.out
            .push_back(MemberOutput::OpenRelay { member, ticket });
    }

    fn welcome(&mut self, you: MemberId, members: &[signaling_protocol::members::MemberEntry]) {
        let hosting = self.place == 0;
        let seat_ok = match you.role() {
            Some(MemberRole::Host) => hosting,
            Some(MemberRole::Player) => !hosting && !self.watching() && you.0 < self.people,
            Some(MemberRole::Spectator) => self.watching(),
            None => false,
        };
        if !seat_ok || self.me.is_some() {
            self.fail(MemberFailure::WrongSeat);
            return;
        }
        self.me = Some(you);
        if self.watching() {
            // The host alone: we offer to it.
            if members.iter().any(|m| m.id == MemberId::HOST) {
                self.pairs
                    .insert(MemberId::HOST, Pair::new(PairPhase::Offering));
                self.out.push_back(MemberOutput::Offer(MemberId::HOST));
            } else {
                self.fail(MemberFailure::PlayerLeft(MemberId::HOST));
            }
            return;
        }
        for m in members {
            if m.role == MemberRole::Spectator && hosting {
                self.add_spectator(m.id);
            }
        }
        for m in members {
            if m.id != you && m.role != MemberRole::Spectator {
                self.add_player(m.id);
            }
        }
    }

    /// On the host: a spectator joined; it will offer.
    fn add_spectator(&mut self, id: MemberId) {
        if self.place != 0 || id.role() != Some(MemberRole::Spectator) {
            return;
        }
        self.spectators
            .entry(id)
            .or_insert(PairPhase::AwaitingOffer);
    }

    fn add_player(&mut self, id: MemberId) {
        let Some(me) = self.me else {
            return;
        };
        if self.pairs.contains_key(&id) || id.0 >= self.people {
            // A player id beyond the party, or one we know: not ours.
            log::debug!("party room: a member we do not link to; ignored");
            return;
        }
        let offering = me < id;
        self.pairs.insert(
            id,
            Pair::new(if offering {
                PairPhase::Offering
            } else {
                PairPhase::AwaitingOffer
            }),
        );
        if self.force_relay {
            // No peer connection at all: straight to the relay.
            if let Some(p) = self.pairs.get_mut(&id) {
                p.phase = PairPhase::AwaitingOffer;
            }
            self.switch_to_relay(id);
        } else if offering {
            self.out.push_back(MemberOutput::Offer(id));
        }
    }

    fn member_left(&mut self, id: MemberId) {
        if let Some(phase) = self.spectators.get(&id) {
            // A spectator leaves the room once its link is open; one that
            // leaves before gave up.
            if *phase != PairPhase::Open {
                self.spectators.remove(&id);
                self.out.push_back(MemberOutput::ClosePeer(id));
                self.out.push_back(MemberOutput::SpectatorGone(id));
            }
            return;
        }
        let Some(p) = self.pairs.get_mut(&id) else {
            return;
        };
        if p.phase == PairPhase::Open || p.place.is_some() {
            // It has its own mesh and left the room (our side of its link
            // may open a moment later: its handshake data has come); the
            // host keeps the room for spectators.
            p.left_room = true;
        } else {
            self.fail(MemberFailure::PlayerLeft(id));
        }
    }

    fn remote(&mut self, from: MemberId, data: Value) {
        if let Some(place) = relay_notice(&data) {
            self.remote_relay(from, place);
            return;
        }
        let Some((place, signal)) = envelope(data) else {
            log::warn!("party room: dropped malformed handshake data");
            return;
        };
        if let Some(phase) = self.spectators.get_mut(&from) {
            match (&signal.kind, *phase, place == WATCHER) {
                (SignalKind::Offer(_), PairPhase::AwaitingOffer, true) => {
                    *phase = PairPhase::Answering;
                }
                (SignalKind::Ice { .. }, PairPhase::Answering | PairPhase::Open, true) => {}
                _ => {
                    log::warn!("party room: a spectator sent what it may not; dropped");
                    return;
                }
            }
            self.out.push_back(MemberOutput::Remote {
                member: from,
                signal,
            });
            return;
        }
        if !self.pairs.contains_key(&from) {
            log::debug!("party room: handshake data from a member we do not link to");
            return;
        }
        let Some(pair) = self.claim(from, place) else {
            return;
        };
        match (&signal.kind, pair.phase) {
            (_, PairPhase::Relaying { .. }) => {
                // The pair went to the relay: what its peer connection
                // sends is late, though the place it names holds.
                pair.place = Some(place);
                log::debug!("party room: handshake data for a relayed pair; dropped");
                return;
            }
            (SignalKind::Offer(_), PairPhase::AwaitingOffer) => pair.phase = PairPhase::Answering,
            (SignalKind::Offer(_), _) => {
                log::warn!("party room: an offer from a member that should answer; dropped");
                return;
            }
            (SignalKind::Answer(_), PairPhase::Offering) => {}
            (SignalKind::Answer(_), _) => {
                log::warn!("party room: an answer we did not ask for; dropped");
                return;
            }
            (SignalKind::Ice { .. }, PairPhase::AwaitingOffer) => {
                log::debug!("party room: a candidate before the offer; dropped");
                return;
            }
            (SignalKind::Ice { .. }, _) => {}
        }
        // Only data that was taken sets the place.
        pair.place = Some(place);
        self.out.push_back(MemberOutput::Remote {
            member: from,
            signal,
        });
    }

    /// The pair with `from`, if `from` may hold `place` (else logged).
    fn claim(&mut self, from: MemberId, place: u8) -> Option<&mut Pair> {
        let place_ok = place < self.people
            && place != self.place
            && (place == 0) == (from == MemberId::HOST)
            && !self
                .pairs
                .iter()
                .any(|(id, p)| *id != from && p.place == Some(place));
        let pair = self.pairs.get_mut(&from)?;
        if !place_ok || pair.place.is_some_and(|p| p != place) {
            log::warn!("party room: a member claimed a place it cannot hold; dropped");
            return None;
        }
        Some(pair)
    }

    /// `from` went to the relay for our pair: so do we, unless our link
    /// is open already (or on its way to the relay).
    fn remote_relay(&mut self, from: MemberId, place: u8) {
        if let Some(phase) = self.spectators.get_mut(&from) {
            // On the host: the spectator goes through the relay; so do we,
            // and say our place (it may have had no answer from us).
            if place != WATCHER {
                log::warn!("party room: a spectator claimed a player's place; dropped");
                return;
            }
            if matches!(phase, PairPhase::AwaitingOffer | PairPhase::Answering) {
                self.spectator_to_relay(from);
            }
            return;
        }
        if !self.pairs.contains_key(&from) {
            log::debug!("party room: a relay notice from a member we do not link to");
            return;
        }
        let Some(pair) = self.claim(from, place) else {
            return;
        };
        pair.place = Some(place);
        if pair.direct() {
            self.switch_to_relay(from);
        }
    }

    /// On the host: gives up on the direct path to spectator `id`, as
    /// [`switch_to_relay`](Self::switch_to_relay) for a player.
    fn spectator_to_relay(&mut self, id: MemberId) {
        let Some(phase) = self.spectators.get_mut(&id) else {
            return;
        };
        let answered = *phase == PairPhase::Answering;
        *phase = PairPhase::Relaying { ticket: false };
        self.ask_relay(id, answered);
    }

    fn check_ready(&mut self) {
        let others = usize::from(self.people.saturating_sub(1));
        let open = self
            .pairs
            .values()
            .filter(|p| p.phase == PairPhase::Open)
            .count();
        if self.ready || open < others {
            return;
        }
        // Every link carried handshake data from its other end (an offer
        // or an answer), so every place is known; a link that opened
        // without (a page that sent nothing) waits for the deadline.
        let Some(mut links) = self
            .pairs
            .iter()
            .filter(|(_, p)| p.phase == PairPhase::Open)
            .map(|(id, p)| p.place.map(|place| (*id, place)))
            .collect::<Option<Vec<(MemberId, u8)>>>()
        else {
            return;
        };
        links.sort_by_key(|(_, place)| *place);
        self.ready = true;
        self.out.push_back(MemberOutput::Ready(links));
        // A spectator keeps its member id (see the module documentation).
        if self.place != 0 && !self.watching() {
            self.out.push_back(MemberOutput::ToRoom(member_out::done()));
            self.out.push_back(MemberOutput::CloseRoom);
            self.over = true;
        }
    }

    /// On the host, once the match ends: leave the room for good (every
    /// spectator's link is the match's, closed with it).
    pub fn end_room(&mut self) {
        if self.over {
            return;
        }
        if self.me.is_some() {
            self.out.push_back(MemberOutput::ToRoom(member_out::done()));
        }
        self.out.push_back(MemberOutput::CloseRoom);
        self.over = true;
    }

    /// On the host: the spectators whose link is made or being made.
    #[must_use]
    pub fn spectators(&self) -> Vec<MemberId> {
        self.spectators.keys().copied().collect()
    }

    fn fail(&mut self, why: MemberFailure) {
        for id in self.pairs.keys() {
            self.out.push_back(MemberOutput::ClosePeer(*id));
        }
        if self.me.is_some() {
            self.out.push_back(MemberOutput::ToRoom(member_out::done()));
        }
        self.out.push_back(MemberOutput::CloseRoom);
        self.out.push_back(MemberOutput::Failed(why));
        self.over = true;
    }
}

/// Reads `{"place":P,"relay":true}` strictly: a member's word that it
/// goes through the relay for our pair, with its place.
pub(super) fn relay_notice(data: &Value) -> Option<u8> {
    let Value::Object(m) = data else {
        return None;
    };
    if m.len() != 2 || m.get("relay") != Some(&Value::Bool(true)) {
        return None;
    }
    m.get("place")
        .and_then(Value::as_u64)
        .and_then(|p| u8::try_from(p).ok())
}

/// Reads `{"place":P,"signal":S}` strictly: exactly those two fields, `P`
/// a whole number that fits a byte, `S` a valid handshake message.
pub(super) fn envelope(data: Value) -> Option<(u8, Signal)> {
    let Value::Object(mut m) = data else {
        return None;
    };
    if m.len() != 2 {
        return None;
    }
    let place = m
        .get("place")
        .and_then(Value::as_u64)
        .and_then(|p| u8::try_from(p).ok())?;
    let signal = Signal::from_value(m.remove("signal")?).ok()?;
    Some((place, signal))
}

#[cfg(test)]
mod tests;
