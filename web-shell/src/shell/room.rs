//! The room link: the match's WebRTC handshake through a room of the
//! signalling service, as a pure state machine.
//!
//! The host (the challenger) creates a room with `POST /rooms`, opens the
//! room socket as host, and reports the room ready; when the guest joins it
//! creates the peer connection and sends the offer. The guest opens the
//! room socket as guest, creates its peer connection as soon as the socket
//! is open, and answers the offer. Candidates trickle both ways through the
//! room. When both data channels are open the side sends `done`, closes the
//! room socket and hands the peer connection to the match. The peer
//! connection has its connect deadline (25 s by default) from when it is
//! created; a relay that fails, closes or runs out of time first, or a
//! session description the browser cannot make, each ends the attempt.
//!
//! **The relay.** When no direct path opens within [`RELAY_AFTER`] (5 s)
//! of the peer connection's creation, or the peer connection fails first,
//! the side gives up on the direct path: it closes the peer connection,
//! asks the room for a relay ticket (`{"type":"relay-ticket"}`) and opens
//! the relay socket with it ([`RoomOutput::OpenRelay`]). The other side
//! does the same on its own timer (or as soon as its connection fails).
//! When the relay reports both sides paired (reported as
//! [`RoomLink::link_opened`], as for the peer connection), the side sends
//! `done` and hands the relay to the match. The connect deadline still
//! holds. With [`RoomLink::relay_at_once`] (the page's `?relay=1`) no peer
//! connection is made: the side asks for its ticket at once. Once a side
//! has its ticket the other one has asked too (or will, on its own timer),
//! so a room that closes after that (the other side paired first and sent
//! `done`) changes nothing; before it, it ends the attempt.
//!
//! The first side whose channels open sends `done`, and the service then
//! closes the room for both. The other side's channels may open a moment
//! later, so once offer and answer have crossed, a room socket that closes
//! only means no more candidates will come: the peer connection keeps its
//! deadline. Before that, a closed room socket ends the attempt.
//!
//! Calling contract: call the method for what happened, then drain
//! [`RoomLink::poll`] and carry out each [`RoomOutput`] in order. Call
//! [`RoomLink::tick`] at least every 100 ms while a link is being made.

use crate::id::RoomCode;
use crate::protocol::{room_out, RoomServerMsg, Signal, SignalKind};
use lockstep::Millis;
use signaling_protocol::{relay_out, relay_path};
use std::collections::VecDeque;

/// How long a match's peer connection may take to open, from its creation
/// (the host's when the guest joins, the guest's when its room socket
/// opens).
pub const MATCH_CONNECT_TIMEOUT: Millis = Millis(25_000);

/// How long a match's peer connection may take to open, from its creation,
/// before the side switches to the relay. Long enough for a direct path
/// across the internet (a few round trips of ICE checks), short enough that
/// a player barely waits when none can form.
pub const RELAY_AFTER: Millis = Millis(5_000);

/// What carries a match.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Path {
    /// A WebRTC peer connection between the two pages.
    Direct,
    /// The signalling service's relay socket.
    Relayed,
}

/// One trickled ICE candidate: the transport's own type, so the page
/// passes candidates between the browser and the shell as they are.
pub use webrtc_transport::IceCandidate as Candidate;

/// `c` as relayed handshake data of `attempt`.
#[must_use]
pub fn candidate_signal(c: Candidate, attempt: u8) -> Signal {
    Signal {
        attempt,
        kind: SignalKind::Ice {
            candidate: c.candidate,
            sdp_mid: c.sdp_mid,
            sdp_m_line_index: c.sdp_m_line_index,
        },
    }
}

/// Which end of the room this page is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The challenger: creates the room and makes the offer.
    Host,
    /// The accepted player: joins the room and answers.
    Guest,
}

/// Why the room link ended without a match.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// The host's room could not be created, or its socket never opened.
    Room,
    /// The match connection could not be made.
    Connection,
}

/// What the page must do, or what the room link reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RoomOutput {
    /// `POST /rooms`; answer with [`RoomLink::room_fetched`].
    FetchRoom,
    /// Open the room socket at this path of the service
    /// (`/rooms/CODE/ws?role=...`).
    OpenSocket(String),
    /// Send a text frame on the room socket.
    Send(String),
    /// Close the room socket.
    CloseSocket,
    /// Create the match's peer connection.
    CreatePeer,
    /// Make an offer on it; report with [`RoomLink::local_description`].
    MakeOffer,
    /// Apply this offer and make an answer; report with
    /// [`RoomLink::local_description`].
    MakeAnswer(String),
    /// Apply this answer.
    ApplyAnswer(String),
    /// Add a candidate the other side relayed.
    AddCandidate(Candidate),
    /// Close the match link (the peer connection, or the relay socket).
    ClosePeer,
    /// Open the match's relay socket at this path of the service
    /// (`/relay/CODE/ws?ticket=...`), in place of the peer connection;
    /// report its pairing with [`RoomLink::link_opened`] and its end with
    /// [`RoomLink::link_closed`].
    OpenRelay(String),
    /// The host's room exists and its socket is open: tell the challenge
    /// rules (the challenge goes out now).
    Ready(RoomCode),
    /// The match link is open (both data channels, or the relay paired):
    /// it now belongs to the match, which this page starts as host or
    /// guest.
    Opened(Role, Path),
    /// The attempt ended without a match.
    Failed(Failure),
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Phase {
    /// Host: `POST /rooms` is under way.
    Creating,
    /// Guest: waiting for fresh ICE servers before opening the socket.
    WaitingIce(RoomCode),
    /// The room socket is opening.
    Opening(RoomCode),
    /// The socket is open; no peer connection yet (the host waits for the
    /// guest to join).
    Joined,
    /// The peer connection exists and must open by `deadline`.
    /// `described`: offer and answer have crossed (the host applied the
    /// answer, the guest made it). `socket_open`: the room socket is still
    /// open.
    Linking {
        deadline: Millis,
        relay_at: Millis,
        described: bool,
        socket_open: bool,
    },
    /// The side gave up on the direct path and asked for a relay ticket
    /// (`ticket`: it arrived and the relay socket is opening).
    Relaying {
        deadline: Millis,
        ticket: bool,
        socket_open: bool,
    },
    /// Handed over, failed or closed: nothing more happens.
    Finished,
}

/// The room link of one match attempt. See the module documentation.
#[derive(Debug)]
pub struct RoomLink {
    role: Role,
    phase: Phase,
    connect_timeout: Millis,
    code: Option<RoomCode>,
    force_relay: bool,
    out: VecDeque<RoomOutput>,
}

impl RoomLink {
    /// The challenger's side: creates the room. `connect_timeout` is how
    /// long the peer connection may take to open.
    #[must_use]
    pub fn host(connect_timeout: Millis) -> RoomLink {
        let mut r = RoomLink {
            role: Role::Host,
            phase: Phase::Creating,
            connect_timeout,
            code: None,
            force_relay: false,
            out: VecDeque::new(),
        };
        r.out.push_back(RoomOutput::FetchRoom);
        r
    }

    /// The accepted player's side, joining `code`. Call
    /// [`ice_ready`](Self::ice_ready) once fresh ICE servers are in.
    #[must_use]
    pub fn guest(code: RoomCode, connect_timeout: Millis) -> RoomLink {
        RoomLink {
            role: Role::Guest,
            phase: Phase::WaitingIce(code.clone()),
            connect_timeout,
            code: Some(code),
            force_relay: false,
            out: VecDeque::new(),
        }
    }

    /// Skips the direct path: the match goes through the relay from the
    /// start (for testing the relay; the page's `?relay=1`).
    #[must_use]
    pub fn relay_at_once(mut self) -> RoomLink {
        self.force_relay = true;
        self
    }

    /// The next thing to do.
    pub fn poll(&mut self) -> Option<RoomOutput> {
        self.out.pop_front()
    }

    /// This page's role.
    #[must_use]
    pub fn role(&self) -> Role {
        self.role
    }

    /// `true` once the link was handed over, failed or closed.
    #[must_use]
    pub fn finished(&self) -> bool {
        self.phase == Phase::Finished
    }

    /// `true` while the peer connection exists and has not opened.
    #[must_use]
    pub fn linking(&self) -> bool {
        matches!(self.phase, Phase::Linking { .. })
    }

    /// The connect deadline, while linking.
    #[must_use]
    pub fn deadline(&self) -> Option<Millis> {
        match self.phase {
            Phase::Linking { deadline, .. } | Phase::Relaying { deadline, .. } => Some(deadline),
            _ => None,
        }
    }

    fn open_socket(&mut self, code: RoomCode) {
        let role = match self.role {
            Role::Host => "host",
            Role::Guest => "guest",
        };
        self.out.push_back(RoomOutput::OpenSocket(format!(
            "/rooms/{code}/ws?role={role}"
        )));
        self.code = Some(code.clone());
        self.phase = Phase::Opening(code);
    }

    /// Host: `POST /rooms` answered with this code, or failed (`None`).
    pub fn room_fetched(&mut self, code: Option<RoomCode>) {
        if self.phase != Phase::Creating {
            return;
        }
        match code {
            Some(code) => self.open_socket(code),
            None => self.fail(Failure::Room),
        }
    }

    /// Guest: fresh ICE servers are in (or their fetch gave up).
    pub fn ice_ready(&mut self) {
        if let Phase::WaitingIce(code) = &self.phase {
            let code = code.clone();
            self.open_socket(code);
        }
    }

    /// The room socket opened.
    pub fn socket_opened(&mut self, now: Millis) {
        let Phase::Opening(code) = &self.phase else {
            return;
        };
        let code = code.clone();
        match self.role {
            Role::Host => {
                self.phase = Phase::Joined;
                self.out.push_back(RoomOutput::Ready(code));
            }
            // The guest's connect timer starts when it is in the room.
            Role::Guest => self.create_peer(now),
        }
    }

    fn create_peer(&mut self, now: Millis) {
        if !matches!(self.phase, Phase::Opening(_) | Phase::Joined) {
            return;
        }
        let deadline = now + self.connect_timeout;
        if self.force_relay {
            self.ask_ticket(deadline);
            return;
        }
        self.phase = Phase::Linking {
            deadline,
            relay_at: now + RELAY_AFTER,
            described: false,
            socket_open: true,
        };
        self.out.push_back(RoomOutput::CreatePeer);
    }

    fn ask_ticket(&mut self, deadline: Millis) {
        self.phase = Phase::Relaying {
            deadline,
            ticket: false,
            socket_open: true,
        };
        self.out
            .push_back(RoomOutput::Send(relay_out::ticket_request()));
    }

    /// Gives up on the direct path: the peer connection closes and the
    /// relay ticket is asked for. Only while the room socket is open (the
    /// ticket comes through it); `false` otherwise.
    fn switch_to_relay(&mut self) -> bool {
        let Phase::Linking {
            deadline,
            socket_open: true,
            ..
        } = self.phase
        else {
            return false;
        };
        log::info!("room: no direct path; switching to the relay");
        self.out.push_back(RoomOutput::ClosePeer);
        self.ask_ticket(deadline);
        true
    }

    /// `true` while the relay ticket is awaited or the relay socket is
    /// opening.
    #[must_use]
    pub fn relaying(&self) -> bool {
        matches!(self.phase, Phase::Relaying { .. })
    }

    /// A text frame from the room socket.
    pub fn socket_text(&mut self, now: Millis, text: &str) {
        let msg = match Signal::parse_room(text) {
            Ok(m) => m,
            Err(e) => {
                log::warn!("room: dropped a message ({e:?})");
                return;
            }
        };
        if self.finished() {
            return;
        }
        match (self.role, msg) {
            (Role::Host, RoomServerMsg::PeerJoined) if self.phase == Phase::Joined => {
                self.create_peer(now);
                // No offer when the relay is used from the start.
                if self.linking() {
                    self.out.push_back(RoomOutput::MakeOffer);
                }
            }
            (
                Role::Guest,
                RoomServerMsg::Signal(Signal {
                    kind: SignalKind::Offer(sdp),
                    ..
                }),
            ) if self.linking() => self.out.push_back(RoomOutput::MakeAnswer(sdp)),
            (
                Role::Host,
                RoomServerMsg::Signal(Signal {
                    kind: SignalKind::Answer(sdp),
                    ..
                }),
            ) if self.linking() => {
                self.mark_described();
                self.out.push_back(RoomOutput::ApplyAnswer(sdp));
            }
            (
                _,
                RoomServerMsg::Signal(Signal {
                    kind:
                        SignalKind::Ice {
                            candidate,
                            sdp_mid,
                            sdp_m_line_index,
                        },
                    ..
                }),
            ) if self.linking() => self.out.push_back(RoomOutput::AddCandidate(Candidate {
                candidate,
                sdp_mid,
                sdp_m_line_index,
            })),
            (_, RoomServerMsg::RelayTicket(msg))
                if matches!(self.phase, Phase::Relaying { ticket: false, .. }) =>
            {
                if let (Some(code), Phase::Relaying { ticket, .. }) = (&self.code, &mut self.phase)
                {
                    *ticket = true;
                    self.out
                        .push_back(RoomOutput::OpenRelay(relay_path(code, &msg.ticket)));
                }
            }
            (_, RoomServerMsg::Error(_))
                if matches!(self.phase, Phase::Relaying { ticket: false, .. }) =>
            {
                log::warn!("room: the service refused a relay ticket");
                self.fail(Failure::Connection);
            }
            (_, RoomServerMsg::Error(_)) => log::warn!("room: the server refused a message"),
            _ => log::info!("room: ignored an out-of-place message"),
        }
    }

    /// The browser made our offer (host) or answer (guest), or could not
    /// (`None`).
    pub fn local_description(&mut self, sdp: Option<String>) {
        if !self.linking() {
            return;
        }
        match sdp {
            Some(sdp) => {
                let kind = match self.role {
                    Role::Host => SignalKind::Offer(sdp),
                    Role::Guest => {
                        self.mark_described();
                        SignalKind::Answer(sdp)
                    }
                };
                self.out
                    .push_back(RoomOutput::Send(room_out::signal(&Signal {
                        attempt: 1,
                        kind,
                    })));
            }
            None => {
                log::warn!("room: the browser could not create a session description");
                self.fail(Failure::Connection);
            }
        }
    }

    fn mark_described(&mut self) {
        if let Phase::Linking { described, .. } = &mut self.phase {
            *described = true;
        }
    }

    fn socket_open(&self) -> bool {
        match self.phase {
            Phase::Linking { socket_open, .. } | Phase::Relaying { socket_open, .. } => socket_open,
            Phase::Opening(_) | Phase::Joined => true,
            _ => false,
        }
    }

    /// Our peer connection found a candidate: relay it while the room
    /// socket is open (after it closed, the other side has its channels).
    pub fn local_candidate(&mut self, c: Candidate) {
        if self.linking() && self.socket_open() {
            self.out
                .push_back(RoomOutput::Send(room_out::signal(&candidate_signal(c, 1))));
        }
    }

    /// The match link opened (both data channels, or the relay paired):
    /// `done` ends the room, and the link goes to the match.
    pub fn link_opened(&mut self) {
        let path = match self.phase {
            Phase::Linking { .. } => Path::Direct,
            Phase::Relaying { ticket: true, .. } => Path::Relayed,
            _ => return,
        };
        if self.socket_open() {
            self.out.push_back(RoomOutput::Send(room_out::done()));
            self.out.push_back(RoomOutput::CloseSocket);
        }
        self.out.push_back(RoomOutput::Opened(self.role, path));
        self.phase = Phase::Finished;
    }

    /// The match link closed or failed before it opened: a peer connection
    /// gives way to the relay (while the room socket is open), a relay
    /// ends the attempt.
    pub fn link_closed(&mut self) {
        if self.linking() && self.switch_to_relay() {
            return;
        }
        if self.linking() || matches!(self.phase, Phase::Relaying { ticket: true, .. }) {
            log::info!("room: the match connection failed");
            self.fail(Failure::Connection);
        }
    }

    /// The room socket closed (or could not be opened). Before offer and
    /// answer have crossed, that ends the attempt; after, the peer
    /// connection keeps its deadline (the other side most likely has its
    /// channels open and ended the room).
    pub fn socket_closed(&mut self) {
        match &mut self.phase {
            Phase::Finished => {}
            Phase::Relaying {
                ticket: true,
                socket_open,
                ..
            } => {
                if *socket_open {
                    log::info!("room: the room closed; waiting for the relay");
                    *socket_open = false;
                }
            }
            Phase::Linking {
                described: true,
                socket_open,
                ..
            } => {
                if *socket_open {
                    log::info!("room: the room closed; waiting for the match connection");
                    *socket_open = false;
                }
            }
            // The host's socket never opened: the room is not usable.
            Phase::Opening(_) if self.role == Role::Host => self.fail(Failure::Room),
            _ => {
                log::info!("room socket closed before the match connection opened");
                self.fail(Failure::Connection);
            }
        }
    }

    /// Time passed: a peer connection still connecting at its deadline fails.
    pub fn tick(&mut self, now: Millis) {
        if let Phase::Linking { relay_at, .. } = self.phase {
            if now >= relay_at {
                self.switch_to_relay();
            }
        }
        if self.deadline().is_some_and(|d| now >= d) {
            log::info!("room: no match connection before the deadline");
            self.fail(Failure::Connection);
        }
    }

    /// The challenge is over (cancelled, declined, timed out): `done` ends
    /// the room on the service at once rather than at its time to live;
    /// the socket and any peer connection close.
    pub fn close(&mut self) {
        if self.finished() {
            return;
        }
        self.release();
        self.phase = Phase::Finished;
    }

    fn release(&mut self) {
        let open = self.socket_open();
        if open
            && matches!(
                self.phase,
                Phase::Joined | Phase::Linking { .. } | Phase::Relaying { .. }
            )
        {
            self.out.push_back(RoomOutput::Send(room_out::done()));
        }
        if open {
            self.out.push_back(RoomOutput::CloseSocket);
        }
        if self.linking() || self.relaying() {
            self.out.push_back(RoomOutput::ClosePeer);
        }
    }

    fn fail(&mut self, why: Failure) {
        self.release();
        self.phase = Phase::Finished;
        self.out.push_back(RoomOutput::Failed(why));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: Millis = Millis(25_000);

    fn drain(r: &mut RoomLink) -> Vec<RoomOutput> {
        std::iter::from_fn(|| r.poll()).collect()
    }
    fn code() -> RoomCode {
        RoomCode::parse("K7M2QX").unwrap()
    }
    fn signal(kind: SignalKind) -> String {
        room_out::signal(&Signal { attempt: 1, kind })
    }
    fn cand(n: u8) -> Candidate {
        Candidate {
            candidate: format!("candidate:{n}"),
            sdp_mid: Some("0".into()),
            sdp_m_line_index: Some(0),
        }
    }

    /// The room's answer to a ticket request for `side`.
    fn ticket_msg(side: &str) -> String {
        let t = signaling_protocol::RelayTicket::parse(&format!(
            "{side}.1733100000000.0123456789abcdef0123456789abcdef"
        ))
        .unwrap();
        signaling_protocol::relay_server::ticket(&t, 60)
    }
    fn relay_of(side: &str) -> RoomOutput {
        RoomOutput::OpenRelay(format!(
            "/relay/K7M2QX/ws?ticket={side}.1733100000000.0123456789abcdef0123456789abcdef"
        ))
    }

    /// The room relays handshake data verbatim.
    fn relayed(kind: SignalKind) -> String {
        signal(kind)
    }

    #[test]
    fn host_and_guest_link_up_through_the_room() {
        let mut host = RoomLink::host(T);
        assert_eq!(drain(&mut host), vec![RoomOutput::FetchRoom]);
        host.room_fetched(Some(code()));
        assert_eq!(
            drain(&mut host),
            vec![RoomOutput::OpenSocket("/rooms/K7M2QX/ws?role=host".into())]
        );
        host.socket_opened(Millis(100));
        assert_eq!(drain(&mut host), vec![RoomOutput::Ready(code())]);

        let mut guest = RoomLink::guest(code(), T);
        assert!(drain(&mut guest).is_empty(), "waits for ICE servers");
        guest.ice_ready();
        assert_eq!(
            drain(&mut guest),
            vec![RoomOutput::OpenSocket("/rooms/K7M2QX/ws?role=guest".into())]
        );
        guest.socket_opened(Millis(1_000));
        assert_eq!(drain(&mut guest), vec![RoomOutput::CreatePeer]);
        assert_eq!(guest.deadline(), Some(Millis(26_000)));

        host.socket_text(Millis(1_100), r#"{"type":"peer-joined"}"#);
        assert_eq!(
            drain(&mut host),
            vec![RoomOutput::CreatePeer, RoomOutput::MakeOffer]
        );
        assert_eq!(host.deadline(), Some(Millis(26_100)));
        host.local_description(Some("v=offer".into()));
        let [RoomOutput::Send(offer)] = &drain(&mut host)[..] else {
            panic!("the offer goes out")
        };
        assert_eq!(offer, &signal(SignalKind::Offer("v=offer".into())));

        guest.socket_text(Millis(1_200), &relayed(SignalKind::Offer("v=offer".into())));
        assert_eq!(
            drain(&mut guest),
            vec![RoomOutput::MakeAnswer("v=offer".into())]
        );
        guest.local_description(Some("v=answer".into()));
        let [RoomOutput::Send(answer)] = &drain(&mut guest)[..] else {
            panic!("the answer goes out")
        };
        assert_eq!(answer, &signal(SignalKind::Answer("v=answer".into())));
        host.socket_text(
            Millis(1_300),
            &relayed(SignalKind::Answer("v=answer".into())),
        );
        assert_eq!(
            drain(&mut host),
            vec![RoomOutput::ApplyAnswer("v=answer".into())]
        );

        // Candidates both ways.
        guest.local_candidate(cand(1));
        let [RoomOutput::Send(c)] = &drain(&mut guest)[..] else {
            panic!()
        };
        host.socket_text(Millis(1_400), c);
        assert_eq!(drain(&mut host), vec![RoomOutput::AddCandidate(cand(1))]);

        for (side, role) in [(&mut host, Role::Host), (&mut guest, Role::Guest)] {
            side.link_opened();
            assert_eq!(
                drain(side),
                vec![
                    RoomOutput::Send(room_out::done()),
                    RoomOutput::CloseSocket,
                    RoomOutput::Opened(role, Path::Direct)
                ]
            );
            assert!(side.finished());
            // The room socket closing afterwards is expected.
            side.socket_closed();
            side.tick(Millis(100_000));
            assert!(drain(side).is_empty());
        }
    }

    #[test]
    fn a_link_still_connecting_at_its_deadline_fails() {
        let mut guest = RoomLink::guest(code(), T);
        guest.ice_ready();
        guest.socket_opened(Millis(0));
        drain(&mut guest);
        guest.tick(Millis(4_999));
        assert!(drain(&mut guest).is_empty());
        // No direct path by then: the relay is tried.
        guest.tick(Millis(5_000));
        assert_eq!(
            drain(&mut guest),
            vec![
                RoomOutput::ClosePeer,
                RoomOutput::Send(relay_out::ticket_request())
            ]
        );
        guest.tick(Millis(24_999));
        assert!(drain(&mut guest).is_empty());
        guest.tick(Millis(25_000));
        assert_eq!(
            drain(&mut guest),
            vec![
                RoomOutput::Send(room_out::done()),
                RoomOutput::CloseSocket,
                RoomOutput::ClosePeer,
                RoomOutput::Failed(Failure::Connection)
            ]
        );
        // Nothing more after the end.
        guest.link_opened();
        guest.socket_closed();
        assert!(drain(&mut guest).is_empty());
    }

    #[test]
    fn every_way_to_fail_before_the_link_opens() {
        // POST /rooms failed.
        let mut h = RoomLink::host(T);
        drain(&mut h);
        h.room_fetched(None);
        assert_eq!(drain(&mut h), vec![RoomOutput::Failed(Failure::Room)]);
        // The host's socket never opened.
        let mut h = RoomLink::host(T);
        h.room_fetched(Some(code()));
        drain(&mut h);
        h.socket_closed();
        assert_eq!(
            drain(&mut h),
            vec![RoomOutput::CloseSocket, RoomOutput::Failed(Failure::Room)]
        );
        // The room socket closed while linking.
        let mut g = RoomLink::guest(code(), T);
        g.ice_ready();
        g.socket_opened(Millis(0));
        drain(&mut g);
        g.socket_closed();
        assert_eq!(
            drain(&mut g).last(),
            Some(&RoomOutput::Failed(Failure::Connection))
        );
        // The browser could not make an answer.
        let mut g = RoomLink::guest(code(), T);
        g.ice_ready();
        g.socket_opened(Millis(0));
        g.socket_text(Millis(1), &relayed(SignalKind::Offer("v=0".into())));
        drain(&mut g);
        g.local_description(None);
        assert_eq!(
            drain(&mut g).last(),
            Some(&RoomOutput::Failed(Failure::Connection))
        );
        // ICE failed, and then the relay did too.
        let mut h = RoomLink::host(T);
        h.room_fetched(Some(code()));
        h.socket_opened(Millis(0));
        h.socket_text(Millis(1), r#"{"type":"peer-joined"}"#);
        drain(&mut h);
        h.link_closed();
        assert_eq!(
            drain(&mut h),
            vec![
                RoomOutput::ClosePeer,
                RoomOutput::Send(relay_out::ticket_request())
            ]
        );
        h.socket_text(Millis(2), &ticket_msg("host"));
        drain(&mut h);
        h.link_closed();
        assert_eq!(
            drain(&mut h),
            vec![
                RoomOutput::Send(room_out::done()),
                RoomOutput::CloseSocket,
                RoomOutput::ClosePeer,
                RoomOutput::Failed(Failure::Connection)
            ]
        );
    }

    /// Both sides with offer and answer crossed, up to the moment the
    /// first one's channels open.
    fn described_pair() -> (RoomLink, RoomLink) {
        let mut host = RoomLink::host(T);
        host.room_fetched(Some(code()));
        host.socket_opened(Millis(0));
        let mut guest = RoomLink::guest(code(), T);
        guest.ice_ready();
        guest.socket_opened(Millis(0));
        host.socket_text(Millis(1), r#"{"type":"peer-joined"}"#);
        host.local_description(Some("v=offer".into()));
        guest.socket_text(Millis(2), &relayed(SignalKind::Offer("v=offer".into())));
        guest.local_description(Some("v=answer".into()));
        host.socket_text(Millis(3), &relayed(SignalKind::Answer("v=answer".into())));
        drain(&mut host);
        drain(&mut guest);
        (host, guest)
    }

    #[test]
    fn the_room_closing_after_the_other_side_opened_does_not_end_the_attempt() {
        let (mut host, mut guest) = described_pair();
        // The host's channels open first; its `done` ends the room, which
        // closes the guest's socket before the guest's channels open.
        host.link_opened();
        assert_eq!(
            drain(&mut host).last(),
            Some(&RoomOutput::Opened(Role::Host, Path::Direct))
        );
        guest.socket_closed();
        assert!(
            drain(&mut guest).is_empty(),
            "still waiting for the channels"
        );
        assert!(guest.linking());
        // No candidate goes to a closed socket.
        guest.local_candidate(cand(2));
        assert!(drain(&mut guest).is_empty());
        guest.link_opened();
        assert_eq!(
            drain(&mut guest),
            vec![RoomOutput::Opened(Role::Guest, Path::Direct)]
        );

        // The same the other way round, for the host.
        let (mut host, mut guest) = described_pair();
        guest.link_opened();
        drain(&mut guest);
        host.socket_closed();
        assert!(drain(&mut host).is_empty());
        host.link_opened();
        assert_eq!(
            drain(&mut host),
            vec![RoomOutput::Opened(Role::Host, Path::Direct)]
        );

        // The deadline still holds, and nothing goes to the closed socket.
        let (_, mut guest) = described_pair();
        guest.socket_closed();
        guest.tick(T);
        assert_eq!(
            drain(&mut guest),
            vec![
                RoomOutput::ClosePeer,
                RoomOutput::Failed(Failure::Connection)
            ]
        );
        // So does a failed link.
        let (mut host, _) = described_pair();
        host.socket_closed();
        host.link_closed();
        assert_eq!(
            drain(&mut host),
            vec![
                RoomOutput::ClosePeer,
                RoomOutput::Failed(Failure::Connection)
            ]
        );
    }

    #[test]
    fn the_room_closing_before_the_answer_ends_the_attempt() {
        // The host has sent its offer but has no answer yet.
        let mut h = RoomLink::host(T);
        h.room_fetched(Some(code()));
        h.socket_opened(Millis(0));
        h.socket_text(Millis(1), r#"{"type":"peer-joined"}"#);
        h.local_description(Some("v=offer".into()));
        drain(&mut h);
        h.socket_closed();
        assert_eq!(
            drain(&mut h).last(),
            Some(&RoomOutput::Failed(Failure::Connection))
        );
    }

    #[test]
    fn closing_releases_what_exists_and_reports_nothing() {
        let mut h = RoomLink::host(T);
        drain(&mut h);
        h.close();
        assert!(drain(&mut h).is_empty(), "nothing to release yet");
        h.room_fetched(Some(code()));
        assert!(drain(&mut h).is_empty(), "a late answer is ignored");

        let mut h = RoomLink::host(T);
        h.room_fetched(Some(code()));
        h.socket_opened(Millis(0));
        drain(&mut h);
        h.close();
        assert_eq!(
            drain(&mut h),
            vec![RoomOutput::Send(room_out::done()), RoomOutput::CloseSocket]
        );
    }

    #[test]
    fn out_of_place_and_malformed_messages_change_nothing() {
        let mut h = RoomLink::host(T);
        h.room_fetched(Some(code()));
        h.socket_opened(Millis(0));
        drain(&mut h);
        for text in [
            "{]",
            r#"{"type":"error","reason":"x"}"#,
            &relayed(SignalKind::Answer("early".into())),
            &relayed(SignalKind::Offer("host gets no offer".into())),
        ] {
            h.socket_text(Millis(1), text);
        }
        assert!(drain(&mut h).is_empty());
        assert!(!h.linking());
        // A guest ignores peer-joined.
        let mut g = RoomLink::guest(code(), T);
        g.ice_ready();
        g.socket_opened(Millis(0));
        drain(&mut g);
        g.socket_text(Millis(1), r#"{"type":"peer-joined"}"#);
        assert!(drain(&mut g).is_empty());
    }

    #[test]
    fn no_direct_path_in_time_moves_both_sides_to_the_relay() {
        let (mut host, mut guest) = described_pair();
        // The guest made its peer connection at 0, the host at 1.
        guest.tick(RELAY_AFTER);
        host.tick(RELAY_AFTER);
        assert!(
            drain(&mut host).is_empty(),
            "the host's timer is 1 ms later"
        );
        assert_eq!(
            drain(&mut guest),
            vec![
                RoomOutput::ClosePeer,
                RoomOutput::Send(relay_out::ticket_request())
            ]
        );
        // A late candidate or channel of the closed connection is ignored.
        guest.local_candidate(cand(3));
        guest.link_opened();
        assert!(drain(&mut guest).is_empty());
        host.tick(RELAY_AFTER + Millis(1));
        assert_eq!(
            drain(&mut host),
            vec![
                RoomOutput::ClosePeer,
                RoomOutput::Send(relay_out::ticket_request())
            ]
        );
        // The tickets come back on each side's room socket.
        guest.socket_text(Millis(5_010), &ticket_msg("guest"));
        assert_eq!(drain(&mut guest), vec![relay_of("guest")]);
        host.socket_text(Millis(5_020), &ticket_msg("host"));
        assert_eq!(drain(&mut host), vec![relay_of("host")]);
        // A second ticket is out of place.
        host.socket_text(Millis(5_030), &ticket_msg("host"));
        assert!(drain(&mut host).is_empty());
        // Paired: the host's `done` ends the room, which the guest then
        // sees close before its own paired arrives.
        host.link_opened();
        assert_eq!(
            drain(&mut host),
            vec![
                RoomOutput::Send(room_out::done()),
                RoomOutput::CloseSocket,
                RoomOutput::Opened(Role::Host, Path::Relayed)
            ]
        );
        guest.socket_closed();
        assert!(drain(&mut guest).is_empty());
        guest.link_opened();
        assert_eq!(
            drain(&mut guest),
            vec![RoomOutput::Opened(Role::Guest, Path::Relayed)]
        );
    }

    #[test]
    fn the_relay_option_skips_the_peer_connection() {
        let mut g = RoomLink::guest(code(), T).relay_at_once();
        g.ice_ready();
        drain(&mut g);
        g.socket_opened(Millis(0));
        assert_eq!(
            drain(&mut g),
            vec![RoomOutput::Send(relay_out::ticket_request())]
        );
        assert_eq!(g.deadline(), Some(T));
        let mut h = RoomLink::host(T).relay_at_once();
        h.room_fetched(Some(code()));
        h.socket_opened(Millis(0));
        drain(&mut h);
        h.socket_text(Millis(7), r#"{"type":"peer-joined"}"#);
        assert_eq!(
            drain(&mut h),
            vec![RoomOutput::Send(relay_out::ticket_request())]
        );
        // An offer never goes out: there is no peer connection.
        h.local_description(Some("v=offer".into()));
        assert!(drain(&mut h).is_empty());
    }

    #[test]
    fn every_way_the_relay_fails() {
        let relaying = || {
            let mut g = RoomLink::guest(code(), T).relay_at_once();
            g.ice_ready();
            g.socket_opened(Millis(0));
            drain(&mut g);
            g
        };
        // The service has no relay.
        let mut g = relaying();
        g.socket_text(
            Millis(1),
            r#"{"type":"error","reason":"this service has no relay"}"#,
        );
        assert_eq!(
            drain(&mut g),
            vec![
                RoomOutput::Send(room_out::done()),
                RoomOutput::CloseSocket,
                RoomOutput::ClosePeer,
                RoomOutput::Failed(Failure::Connection)
            ]
        );
        // The room closed before the ticket came.
        let mut g = relaying();
        g.socket_closed();
        assert_eq!(
            drain(&mut g).last(),
            Some(&RoomOutput::Failed(Failure::Connection))
        );
        // A malformed or forged-looking ticket is dropped; the deadline
        // then ends the attempt.
        let mut g = relaying();
        for bad in [
            r#"{"type":"relay-ticket","ticket":"host.1.zz","ttl":60}"#,
            r#"{"type":"relay-ticket","ticket":"x","ttl":60,"more":1}"#,
            "{]",
        ] {
            g.socket_text(Millis(1), bad);
        }
        assert!(drain(&mut g).is_empty());
        g.tick(T);
        assert_eq!(
            drain(&mut g).last(),
            Some(&RoomOutput::Failed(Failure::Connection))
        );
        // The relay socket closed before pairing.
        let mut g = relaying();
        g.socket_text(Millis(1), &ticket_msg("guest"));
        drain(&mut g);
        g.link_closed();
        assert_eq!(
            drain(&mut g),
            vec![
                RoomOutput::Send(room_out::done()),
                RoomOutput::CloseSocket,
                RoomOutput::ClosePeer,
                RoomOutput::Failed(Failure::Connection)
            ]
        );
        // A relay that never pairs runs into the deadline, also after the
        // room closed.
        let mut g = relaying();
        g.socket_text(Millis(1), &ticket_msg("guest"));
        g.socket_closed();
        drain(&mut g);
        g.tick(T);
        assert_eq!(
            drain(&mut g),
            vec![
                RoomOutput::ClosePeer,
                RoomOutput::Failed(Failure::Connection)
            ]
        );
    }
}
