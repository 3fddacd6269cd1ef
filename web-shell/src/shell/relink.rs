//! A party player coming back into its running match: the fresh links
//! between the returning page and every other player, made through a
//! member room of its own (the *comeback room*), as a pure state machine.
//!
//! The party's first member room knows member ids, not places, and its
//! players have left it once their mesh was complete; so a player who
//! comes back (its links lost, or its page reloaded) gets a room made for
//! the purpose. The host makes it when the returning page asks over the
//! lobby (`rejoin`, answered with `rejoin-room`), and tells every player
//! still in the match its code over their party link (a hub message), so
//! that every page of the match is in it. The rules:
//!
//! - **The keeper.** The page that made the room holds its host seat and
//!   keeps it ([`Relink::keeping`]): the party's host when a guest comes
//!   back, or, when the party's host is the one coming back (its page
//!   reloaded), the guest that took its ask (see `party::back`). What is
//!   said of "the host" below is said of the keeper in such a room, and
//!   place 0 there is the returning host.
//! - **Hello.** Every page says who it is to every other player in the
//!   room, as soon as it knows of it (on `welcome`, on `member-joined`):
//!   `{"place":P,"back":B}`, its party place and whether it comes back
//!   (`B`: its fresh session needs a link to everyone). The host's hello
//!   also lists the places still in the match (`"live":[…]`, those whose
//!   links to it are up, [`Relink::set_live`]): a returning page links to
//!   those, and does not wait for a player who is away too. In a room a
//!   guest keeps, place 0 is the party's host: coming back, or (its page
//!   linked to the keeper again while its match is not back yet) staying
//!   for another player who comes back, which the keeper's list then
//!   names. A place beyond the party, our own, place 0 from anyone but
//!   the host in a room the party's host keeps (or the host claiming
//!   another), a place another member of the room holds, or a list from
//!   anyone but the host is refused (dropped and logged), as is a second
//!   hello.
//! - **Mending.** A page that stayed but lost its link to another
//!   guest (not to the host: that page comes back) lists the places it
//!   lost in its hello (`"mend":[…]`, [`Relink::set_mend`]); both its
//!   session and theirs stay, and hear each other again on the new link.
//!   A list from the host or from a returning page, or naming the host,
//!   the sender or a place beyond the party, is refused with its hello.
//! - **Who links.** Two pages link when either comes back, or either
//!   lists the other to mend; of the two, the lower member id offers, as
//!   in the party's first room. Other pages that both stayed in the match
//!   keep the link they have. The handshake data travels as in the first
//!   room: `{"place":P,"signal":S}`.
//! - **The relay.** A link whose direct path has not opened within
//!   [`PARTY_RELAY_AFTER`](super::members::PARTY_RELAY_AFTER) of this
//!   page's first tick after it was to be made, or whose peer connection
//!   failed first, goes through the room's relay for that pair, as a pair
//!   of the party's first room does ([`MemberLink`](super::members::MemberLink)'s
//!   switch, shared): the side closes the peer connection, tells the
//!   other member (`{"place":P,"relay":true}`, `P` the place its hello
//!   said, else the notice is dropped) and asks for its ticket; the other
//!   member switches on hearing it, and each opens its end with its
//!   ticket ([`RelinkOutput::OpenRelay`]), whose pairing opens the link.
//!   Only a member still in the room is switched. With
//!   [`Relink::relay_at_once`] (the page's `?relay=1`) each of this side's
//!   links goes to the relay as soon as it is to be made.
//! - **Links by place.** Both ends know each other's place before the
//!   link is made, so the page names the new link by that place
//!   ([`RelinkOutput::Offer`] and the others carry it). Each link is
//!   reported as it opens ([`RelinkOutput::Opened`]): a page that stayed
//!   hands it to its session at once (the returning player's fresh
//!   session introduces itself on it).
//! - **The end.** The returning page leaves the room (`done`) once its
//!   links to the host and to every place the host listed are open, and
//!   no other link of it is being made ([`RelinkOutput::Ready`]); a
//!   handshake that fails, or its deadline, ends its attempt
//!   ([`RelinkOutput::Failed`]: it asks the host again). A mending page
//!   leaves once the links it listed are open and no other link of it is
//!   being made ([`RelinkOutput::Mended`]); it lets go of a place the
//!   host's list lacks (that player is away, and comes back on links of
//!   its own, ours among them), and then stays as any page that stayed.
//!   The host ends the room once
//!   every returning or mending member has left it, or at its
//!   deadline; a page that stayed leaves at its own deadline, or when the
//!   host ends the room. A link of a page that stayed that fails before it
//!   opened is closed and forgotten (the returning page fails and comes
//!   again as a new member). One still being made when its member leaves
//!   the room is kept until it opens (reported as any other) or fails:
//!   the member leaves once its own end is open, which this page may hear
//!   later than the room's word. It goes if the member comes again, or
//!   when this side ends.
//!
//! Calling contract: call the method for what happened, then drain
//! [`Relink::poll`] and carry out each [`RelinkOutput`] in order; call
//! [`Relink::tick`] by [`Relink::deadline`].

use super::members::{relay_asks, relay_notice, ticket_peer, Pair, PairPhase};
use crate::protocol::{Signal, SignalKind};
use lockstep::Millis;
use serde_json::{json, Value};
use signaling_protocol::members::{member_out, MemberId, MemberRole, MemberServerMsg};
use signaling_protocol::RelayTicket;
use std::collections::{BTreeMap, VecDeque};

/// The first party link key of comeback links: the link to place `p` made
/// through a comeback room is `LinkId::Party(RELINK_KEY + p)`, apart from
/// every member id of the party's first room (players 0 to 7, spectators
/// 8 to 23).
pub const RELINK_KEY: u8 = MemberId::END;

/// Something for the page to do. Links are named by the place at their
/// other end.
#[derive(Debug, Clone, PartialEq)]
pub enum RelinkOutput {
    /// Send this text frame on the room socket.
    ToRoom(String),
    /// Create a peer connection to `place`, offering; report the offer
    /// and candidates with [`Relink::local_signal`].
    Offer(u8),
    /// Apply handshake data from `place` (an offer: create an answering
    /// peer connection first).
    Remote {
        /// The place at the other end.
        place: u8,
        /// The validated data.
        signal: Signal,
    },
    /// Close the peer connection being made to `place` (or its relay
    /// socket).
    ClosePeer(u8),
    /// Open the relay of our pair with `place` with this ticket, as the
    /// link to `place` (in place of its peer connection); report its
    /// pairing with [`Relink::link_opened`] and its end with
    /// [`Relink::link_lost`].
    OpenRelay {
        /// The place at the other end.
        place: u8,
        /// Our ticket for our end of the pair's relay.
        ticket: RelayTicket,
    },
    /// The link to `place` is open: the match takes it.
    Opened(u8),
    /// On the returning page: the links to every other place are open.
    Ready,
    /// Close the room socket (after `done`).
    CloseRoom,
    /// On the returning page: the attempt failed; every link of it was
    /// closed. On a mending page: the links it listed could not be made
    /// (those that opened stay).
    Failed,
    /// On a mending page: the links it listed are open (it left the
    /// room).
    Mended,
}

/// Another player in the comeback room.
#[derive(Debug, Clone, Copy)]
struct Peer {
    /// Its place and whether it comes back, once it said hello.
    hello: Option<(u8, bool)>,
    /// It needs links made in this room: it comes back, or mends some.
    needy: bool,
    /// Our link to it, while we make one: how it stands, and its way to
    /// the relay (as a pair of the party's first room).
    link: Option<Pair>,
}

impl Peer {
    fn phase(&self) -> Option<PairPhase> {
        self.link.map(|l| l.phase)
    }
}

/// One page's side of a comeback room.
#[derive(Debug)]
pub struct Relink {
    place: u8,
    people: u8,
    back: bool,
    /// On a page that stayed: the places whose links it lost, to make
    /// again here.
    mend: Vec<u8>,
    me: Option<MemberId>,
    peers: BTreeMap<MemberId, Peer>,
    /// On a page not coming back: links still being made to members that
    /// left the room, by place. The other end leaves once its links are
    /// open, which may be before this page hears its own end open (the
    /// room's word and the link's come by different ways), so such a
    /// link is kept until it opens or fails.
    parted: Vec<u8>,
    /// A returning or mending member was seen (the host ends the room
    /// once none is left).
    saw_back: bool,
    /// This side made the room and holds its host seat: the party's host,
    /// or, while the host is away, the guest that takes the host's page
    /// back (see [`Relink::keeping`]).
    keeping: bool,
    /// The keeper's place, once known: ours if we keep the room, else the
    /// place the room's host member says in its hello.
    keeper: Option<u8>,
    /// On the keeper: the places still in the match, told in its hello.
    live: Vec<u8>,
    /// On the returning page: the places the host listed, once it said.
    expect: Option<Vec<u8>>,
    deadline: Millis,
    over: bool,
    /// Every link goes through the relay at once (`?relay=1`).
    force_relay: bool,
    /// The places whose link went to the relay (kept after their member
    /// left the room: the link runs on).
    relayed: Vec<u8>,
    out: VecDeque<RelinkOutput>,
}

impl Relink {
    /// The comeback-room side of party place `place` of `people`: `back`
    /// for the returning page, which links to everyone; a page that stayed
    /// links to returning pages alone. It gives up at `deadline` (the host
    /// then ends the room). The page opens the room socket (as host for
    /// place 0, as a player otherwise) and reports what it hears.
    #[must_use]
    pub fn new(place: u8, people: u8, back: bool, deadline: Millis) -> Relink {
        let mut r = Relink {
            place,
            people,
            back,
            mend: Vec::new(),
            me: None,
            peers: BTreeMap::new(),
            parted: Vec::new(),
            saw_back: false,
            keeping: false,
            keeper: None,
            live: Vec::new(),
            expect: None,
            deadline,
            over: false,
            force_relay: false,
            relayed: Vec::new(),
            out: VecDeque::new(),
        };
        if place >= people {
            r.end();
        }
        r
    }

    /// This side makes the room and holds its host seat: the party's host
    /// (place 0) when a guest comes back, or the guest that takes back a
    /// host whose page was reloaded. It lists the places still in the
    /// match ([`set_live`](Self::set_live)) and ends the room once every
    /// returning or mending member has left it. A returning page never
    /// keeps.
    #[must_use]
    pub fn keeping(mut self) -> Relink {
        if self.back {
            self.end();
        } else {
            self.keeping = true;
            self.keeper = Some(self.place);
        }
        self
    }

    /// Every link of this side skips the direct path and goes through the
    /// relay as soon as it is to be made (the page's `?relay=1`).
    #[must_use]
    pub fn relay_at_once(mut self) -> Relink {
        self.force_relay = true;
        self
    }

    /// Whether our link to `place` goes (or went) through the relay.
    #[must_use]
    pub fn relayed(&self, place: u8) -> bool {
        self.relayed.contains(&place)
    }

    /// On the keeper: the places still in the match (their links to it
    /// are up), for the hellos it sends from now on.
    pub fn set_live(&mut self, live: Vec<u8>) {
        self.live = live;
    }

    /// On a page that stayed: the places (other guests) whose links it
    /// lost, for its hello; set before the room welcomes it.
    pub fn set_mend(&mut self, mut places: Vec<u8>) {
        places.retain(|q| *q != 0 && *q != self.place && *q < self.people);
        if !self.back && self.place != 0 && !self.keeping {
            self.mend = places;
        }
    }

    /// Whether this side keeps the room (see [`keeping`](Self::keeping)).
    #[must_use]
    pub fn keeps(&self) -> bool {
        self.keeping
    }

    /// Whether this side mends links (see [`set_mend`](Self::set_mend)).
    #[must_use]
    pub fn mending(&self) -> bool {
        !self.mend.is_empty()
    }

    /// The next thing to do, if any.
    pub fn poll(&mut self) -> Option<RelinkOutput> {
        self.out.pop_front()
    }

    /// When [`tick`](Self::tick) must be called, while the room is open.
    #[must_use]
    pub fn deadline(&self) -> Option<Millis> {
        (!self.over).then_some(self.deadline)
    }

    /// Whether this side is done with the room.
    #[must_use]
    pub fn over(&self) -> bool {
        self.over
    }

    /// Whether this is the returning page's side.
    #[must_use]
    pub fn back(&self) -> bool {
        self.back
    }

    /// Whether a link to `place` is being made (not open yet).
    #[must_use]
    pub fn making(&self, place: u8) -> bool {
        self.member_at(place).is_some_and(|m| {
            self.peers
                .get(&m)
                .is_some_and(|p| p.phase().is_some_and(|ph| ph != PairPhase::Open))
        })
    }

    fn member_at(&self, place: u8) -> Option<MemberId> {
        self.peers
            .iter()
            .find(|(_, p)| p.hello.is_some_and(|(q, _)| q == place))
            .map(|(m, _)| *m)
    }

    /// A text frame from the room socket.
    pub fn room_text(&mut self, text: &str) {
        if self.over {
            return;
        }
        let msg = match MemberServerMsg::parse(text) {
            Ok(m) => m,
            Err(e) => {
                log::warn!("comeback room: dropped a frame ({e:?})");
                return;
            }
        };
        match msg {
            MemberServerMsg::Welcome { you, members } => {
                let seat_ok = match you.role {
                    MemberRole::Host => self.keeping,
                    MemberRole::Player => !self.keeping,
                    MemberRole::Spectator => false,
                };
                if !seat_ok || self.me.is_some() {
                    log::warn!("comeback room: seated in a place we cannot take");
                    self.end();
                    return;
                }
                self.me = Some(you.id);
                for m in members {
                    if m.id != you.id {
                        self.add(m.id);
                    }
                }
            }
            MemberServerMsg::Joined(entry) => self.add(entry.id),
            MemberServerMsg::Left(id) => self.left(id),
            MemberServerMsg::Signal { from, data } => self.remote(from, data),
            MemberServerMsg::Error(_) => log::warn!("comeback room: the room refused a frame"),
            MemberServerMsg::RelayTicket(msg) => self.ticket(msg.ticket),
            MemberServerMsg::Pong => {}
        }
    }

    /// The room socket closed (the host ended the room, or it failed).
    pub fn room_closed(&mut self) {
        if !self.over {
            self.end();
        }
    }

    /// Handshake data our peer connection to `place` made.
    pub fn local_signal(&mut self, place: u8, signal: &Signal) {
        if self.over {
            return;
        }
        if let Some(m) = self.member_at(place) {
            let data = json!({"place": self.place, "signal": signal.to_value()});
            self.out
                .push_back(RelinkOutput::ToRoom(member_out::signal(m, &data)));
        }
    }

    /// The data channels to `place` opened.
    pub fn link_opened(&mut self, place: u8) {
        if let Some(i) = self.parted.iter().position(|q| *q == place) {
            self.parted.remove(i);
            self.out.push_back(RelinkOutput::Opened(place));
            return;
        }
        let Some(link) = self.being_made(place).and_then(|p| p.link.as_mut()) else {
            return;
        };
        if !link.opened() {
            return;
        }
        self.out.push_back(RelinkOutput::Opened(place));
        self.check_ready();
        self.check_mended();
    }

    /// A mending page is done once every place it listed is linked, and
    /// no other link is being made.
    fn check_mended(&mut self) {
        if self.over || self.mend.is_empty() {
            return;
        }
        let open = self.open_places();
        if !self.making_any() && self.mend.iter().all(|q| open.contains(q)) {
            self.out.push_back(RelinkOutput::Mended);
            self.leave();
        }
    }

    /// Whether any link of ours is being made (asked for, not open yet).
    fn making_any(&self) -> bool {
        self.peers
            .values()
            .any(|p| p.phase().is_some_and(|ph| ph != PairPhase::Open))
    }

    /// The member at `place` while our link to it is being made.
    fn being_made(&mut self, place: u8) -> Option<&mut Peer> {
        let m = self.member_at(place)?;
        self.peers
            .get_mut(&m)
            .filter(|p| p.phase().is_some_and(|ph| ph != PairPhase::Open))
    }

    /// The places whose links are open.
    pub fn open_places(&self) -> Vec<u8> {
        self.peers
            .values()
            .filter(|p| p.phase() == Some(PairPhase::Open))
            .filter_map(|p| p.hello.map(|(q, _)| q))
            .collect()
    }

    /// The returning page is ready once the keeper and every place it
    /// listed are linked, and no other link is being made.
    fn check_ready(&mut self) {
        let Some(expect) = self.expect.as_ref().filter(|_| self.back && !self.over) else {
            return;
        };
        let Some(keeper) = self.keeper else {
            return;
        };
        let open = self.open_places();
        let all = std::iter::once(&keeper)
            .chain(expect)
            .all(|q| *q == self.place || open.contains(q));
        if all && !self.making_any() {
            self.out.push_back(RelinkOutput::Ready);
            self.leave();
        }
    }

    /// The peer connection (or relay) to `place` failed or closed before
    /// it opened. A failed direct path goes to the relay while the other
    /// member is in the room.
    pub fn link_lost(&mut self, place: u8) {
        if let Some(i) = self.parted.iter().position(|q| *q == place) {
            self.parted.remove(i);
            self.out.push_back(RelinkOutput::ClosePeer(place));
            return;
        }
        let Some(p) = self.being_made(place) else {
            return;
        };
        match p.link {
            // The closed peer connection's own report: the relay is asked.
            Some(l) if l.closed_for_relay() => return,
            Some(l) if l.direct() => {
                log::info!("comeback room: a direct link failed; switching to the relay");
                self.switch_to_relay(place);
                return;
            }
            _ => {}
        }
        p.link = None;
        self.out.push_back(RelinkOutput::ClosePeer(place));
        if self.back || self.mend.contains(&place) {
            self.end();
        }
    }

    /// Time passed: the room's deadline, and each link's relay deadline
    /// (as in the party's first room, from the first tick after the link
    /// was to be made; only members in the room are switched).
    pub fn tick(&mut self, now: Millis) {
        if self.over {
            return;
        }
        if now >= self.deadline {
            log::info!("comeback room: its time ran out");
            self.end();
            return;
        }
        let due: Vec<u8> = self
            .peers
            .values_mut()
            .filter_map(|p| {
                let place = p.hello?.0;
                p.link.as_mut()?.relay_due(now).then_some(place)
            })
            .collect();
        for place in due {
            log::info!("comeback room: no direct path in time; switching to the relay");
            self.switch_to_relay(place);
        }
    }

    /// Gives up on the direct path to `place`: its peer connection
    /// closes, the other member hears it (with our place), and our ticket
    /// is asked (the party's first room's switch,
    /// [`relay_asks`]).
    fn switch_to_relay(&mut self, place: u8) {
        let Some(m) = self.member_at(place) else {
            return;
        };
        let Some(link) = self.peers.get_mut(&m).and_then(|p| p.link.as_mut()) else {
            return;
        };
        if link.go_to_relay() {
            self.out.push_back(RelinkOutput::ClosePeer(place));
        }
        if !self.relayed.contains(&place) {
            self.relayed.push(place);
        }
        for frame in relay_asks(self.place, m) {
            self.out.push_back(RelinkOutput::ToRoom(frame));
        }
    }

    /// Our ticket for a pair's relay came.
    fn ticket(&mut self, ticket: RelayTicket) {
        let waiting = self
            .me
            .and_then(|me| ticket_peer(&ticket, me))
            .and_then(|m| {
                let p = self.peers.get_mut(&m)?;
                let place = p.hello?.0;
                p.link.as_mut()?.phase.take_ticket().then_some(place)
            });
        let Some(place) = waiting else {
            log::warn!("comeback room: dropped a relay ticket it did not ask for");
            return;
        };
        self.out
            .push_back(RelinkOutput::OpenRelay { place, ticket });
    }

    /// Leaves the room for good (the match ended, say).
    pub fn close(&mut self) {
        if !self.over {
            self.back = false;
            self.end();
        }
    }

    fn add(&mut self, id: MemberId) {
        if self.over
            || self.me.is_none()
            || self.peers.contains_key(&id)
            || !matches!(id.role(), Some(MemberRole::Host | MemberRole::Player))
        {
            return;
        }
        self.peers.insert(
            id,
            Peer {
                hello: None,
                needy: false,
                link: None,
            },
        );
        let hello = if self.keeping {
            json!({"place": self.place, "back": false, "live": self.live})
        } else if self.mend.is_empty() {
            json!({"place": self.place, "back": self.back})
        } else {
            json!({"place": self.place, "back": false, "mend": self.mend})
        };
        self.out
            .push_back(RelinkOutput::ToRoom(member_out::signal(id, &hello)));
    }

    fn left(&mut self, id: MemberId) {
        let Some(p) = self.peers.remove(&id) else {
            return;
        };
        if let (Some((place, _)), Some(phase)) = (p.hello, p.phase()) {
            if phase != PairPhase::Open && self.back {
                self.out.push_back(RelinkOutput::ClosePeer(place));
                self.end();
                return;
            }
            // Its end may be open already: kept until ours opens or fails.
            if phase != PairPhase::Open && !self.parted.contains(&place) {
                self.parted.push(place);
            }
        }
        // The keeper ends the room once no returning member is left in it.
        let backs = self.peers.values().any(|p| p.needy);
        if self.keeping && self.saw_back && !backs {
            self.leave();
        }
    }

    fn remote(&mut self, from: MemberId, data: Value) {
        let Some(p) = self.peers.get(&from).copied() else {
            log::debug!("comeback room: data from a member we do not know");
            return;
        };
        let Value::Object(m) = &data else {
            log::warn!("comeback room: dropped malformed data");
            return;
        };
        if m.get("back").is_some() {
            let byte = |v: &Value| v.as_u64().and_then(|n| u8::try_from(n).ok());
            let place = m.get("place").and_then(byte);
            let back = m.get("back").and_then(Value::as_bool);
            // The list: whole numbers that fit a byte, no more than a
            // party holds.
            let live = match m.get("live") {
                None => Some(None),
                Some(Value::Array(a)) if a.len() <= usize::from(self.people) => {
                    a.iter().map(byte).collect::<Option<Vec<u8>>>().map(Some)
                }
                Some(_) => None,
            };
            let mend = match m.get("mend") {
                None => Some(Vec::new()),
                Some(Value::Array(a)) if !a.is_empty() && a.len() <= usize::from(self.people) => {
                    a.iter().map(byte).collect::<Option<Vec<u8>>>()
                }
                Some(_) => None,
            };
            let fields =
                2 + usize::from(m.contains_key("live")) + usize::from(m.contains_key("mend"));
            match (place, back, live, mend) {
                (Some(place), Some(back), Some(live), Some(mend)) if m.len() == fields => {
                    self.hello(from, place, back, live, &mend);
                }
                _ => log::warn!("comeback room: dropped a malformed hello"),
            }
            return;
        }
        if let Some(place) = relay_notice(&data) {
            self.remote_relay(from, place);
            return;
        }
        let Some((place, signal)) = super::members::envelope(data) else {
            log::warn!("comeback room: dropped malformed handshake data");
            return;
        };
        let (Some((known, _)), Some(phase)) = (p.hello, p.phase()) else {
            log::debug!("comeback room: handshake data from a member we do not link to");
            return;
        };
        if known != place {
            log::warn!("comeback room: a member changed its place; dropped");
            return;
        }
        let next = match (&signal.kind, phase) {
            (_, PairPhase::Relaying { .. }) => {
                // The link went to the relay: what its peer connection
                // sends is late.
                log::debug!("comeback room: handshake data for a relayed link; dropped");
                return;
            }
            (SignalKind::Offer(_), PairPhase::AwaitingOffer) => PairPhase::Answering,
            (SignalKind::Answer(_), PairPhase::Offering) => phase,
            (SignalKind::Ice { .. }, PairPhase::Offering | PairPhase::Answering) => phase,
            (SignalKind::Ice { .. }, PairPhase::Open) => phase,
            _ => {
                log::warn!("comeback room: handshake data out of turn; dropped");
                return;
            }
        };
        if let Some(l) = self.peers.get_mut(&from).and_then(|p| p.link.as_mut()) {
            l.phase = next;
        }
        self.out.push_back(RelinkOutput::Remote { place, signal });
    }

    /// `from` went to the relay for our link: so do we, unless our link
    /// is open already (or on its way to the relay). The place it says
    /// must be the one its hello said.
    fn remote_relay(&mut self, from: MemberId, place: u8) {
        let Some(p) = self.peers.get(&from) else {
            return;
        };
        let (Some((known, _)), Some(link)) = (p.hello, p.link) else {
            log::debug!("comeback room: a relay notice from a member we do not link to");
            return;
        };
        if known != place {
            log::warn!("comeback room: a member changed its place; dropped");
            return;
        }
        if link.direct() {
            self.switch_to_relay(place);
        }
    }

    fn hello(&mut self, from: MemberId, place: u8, back: bool, live: Option<Vec<u8>>, mend: &[u8]) {
        let taken = self
            .peers
            .iter()
            .any(|(id, p)| *id != from && p.hello.is_some_and(|(q, _)| q == place));
        let keeps = from == MemberId::HOST;
        // The room's host member is its keeper, never coming back; its
        // place is the one we were told of, if we were. Place 0 from
        // anyone else is the party's host coming back to a room a guest
        // keeps.
        // Place 0 from anyone else is the party's host: coming back to a
        // room a guest keeps, or, linked to the keeper again while its
        // match is not back yet, staying for another player who comes
        // back (the keeper lists it then).
        let keeper_ok = if keeps {
            !back && self.keeper.is_none_or(|k| k == place)
        } else {
            self.keeper != Some(place) && (place != 0 || back || self.keeper.is_none_or(|k| k != 0))
        };
        let list_ok = live
            .as_ref()
            .is_none_or(|l| keeps && l.iter().all(|q| *q < self.people && *q != place));
        let mend_ok = mend.is_empty()
            || (!back
                && place != 0
                && mend
                    .iter()
                    .all(|q| *q != 0 && *q != place && *q < self.people));
        let ok =
            place < self.people && mend_ok && place != self.place && keeper_ok && list_ok && !taken;
        let Some(me) = self.me else {
            return;
        };
        let Some(p) = self.peers.get_mut(&from) else {
            return;
        };
        if !ok || p.hello.is_some() {
            log::warn!("comeback room: a member claimed a place it cannot hold; dropped");
            return;
        }
        p.hello = Some((place, back));
        if keeps {
            self.keeper = Some(place);
        }
        if let Some(i) = self.parted.iter().position(|q| *q == place) {
            // The member came again: the link it left behind goes.
            self.parted.remove(i);
            self.out.push_back(RelinkOutput::ClosePeer(place));
        }
        // The keeper waits for a mending page only for a place it still
        // reaches (one away from it comes back on links of its own).
        p.needy = back || mend.iter().any(|q| !self.keeping || self.live.contains(q));
        self.saw_back |= p.needy;
        if keeps && self.back {
            self.expect = Some(live.unwrap_or_default());
        } else if keeps && !self.mend.is_empty() {
            // A place the host does not list is away: it comes back on
            // links of its own, ours among them (this page stays for it).
            let live = live.unwrap_or_default();
            self.mend.retain(|q| live.contains(q));
        }
        let mends = mend.contains(&self.place) || self.mend.contains(&place);
        if !(back || self.back || mends) {
            return;
        }
        self.relayed.retain(|q| *q != place);
        if self.force_relay {
            // No peer connection at all: straight to the relay.
            p.link = Some(Pair::new(PairPhase::AwaitingOffer));
            self.switch_to_relay(place);
        } else if me < from {
            p.link = Some(Pair::new(PairPhase::Offering));
            self.out.push_back(RelinkOutput::Offer(place));
        } else {
            p.link = Some(Pair::new(PairPhase::AwaitingOffer));
        }
    }

    /// Leaves the room: `done`, then the socket closes.
    fn leave(&mut self) {
        if self.me.is_some() {
            self.out.push_back(RelinkOutput::ToRoom(member_out::done()));
        }
        self.out.push_back(RelinkOutput::CloseRoom);
        self.over = true;
    }

    /// Ends this side: links still being made are closed; a returning
    /// page's attempt failed (its open links go too).
    fn end(&mut self) {
        for place in std::mem::take(&mut self.parted) {
            self.out.push_back(RelinkOutput::ClosePeer(place));
        }
        for p in self.peers.values() {
            if let (Some((place, _)), Some(phase)) = (p.hello, p.phase()) {
                if self.back || phase != PairPhase::Open {
                    self.out.push_back(RelinkOutput::ClosePeer(place));
                }
            }
        }
        let failed = self.back || !self.mend.is_empty();
        self.leave();
        if failed {
            self.out.push_back(RelinkOutput::Failed);
        }
    }
}

#[cfg(test)]
mod tests;
