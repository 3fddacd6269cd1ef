//! The shell's side of a party: the member room and the mesh of peer
//! connections built through it, then one match over every link.
//!
//! The lobby client says when (`CreatePartyRoom` on the challenger's page
//! once every invitation is answered, `PlayParty` on every page once the
//! start is out); this file carries it out:
//!
//! - **The room.** The challenger's page asks for a member room with
//!   `POST /rooms?players=N` (the challenger and those who accepted) and
//!   hands its code to the lobby client, which sends the start to each
//!   player. On `PlayParty` every page opens the room's socket, as `host`
//!   for place 0 and as a `player` otherwise, and a
//!   [`MemberLink`] runs the handshakes: its peer connections are the
//!   page's [`LinkId::Party`] links (by member id), its handshake data
//!   rides the room's `signal` frames.
//! - **The match.** When the mesh is complete the lobby client hears the
//!   match connected and the game's session starts over every link, each
//!   named by the party place at its other end (`PeerId(place)`), listed
//!   in place order so that the host plays place `p` in session slot `p`.
//!   The host picks the seed, and the game writes the party's sides into
//!   it ([`GameSlot::party_seed`](super::GameSlot::party_seed)); the
//!   match is a lock-step session, or what a game's own slot runs over the
//!   links (the arena's host serves every other place over its link).
//!   Datagrams go out on every link; the
//!   match's end closes them all.
//! - **Spectators.** The host keeps the member room open while the match
//!   runs. A lobby player who presses Watch next to one of the party's
//!   players asks that player's page (`watch`); it answers with the room
//!   (`watch-room`), or `watch-gone` when it plays no party match. The
//!   spectator's page joins the room as a `spectator`, links to the host
//!   alone ([`MemberLink::watcher`]) and runs a spectator session
//!   (`SessionConfig::spectator()`) over that link; the host's session
//!   takes the link as a spectator's when its `Watch` arrives. Leaving is
//!   the spectator's own: the match goes on.
//! - **Spectators of a match of two.** A challenge's match has no member
//!   room (its two players link through a two-seat room that closes once
//!   they are linked), so its host opens one for spectators alone
//!   ([`MemberLink::spectators_only`], `POST /rooms?players=2&spectators=16`,
//!   where no player ever joins) when the first lobby player asks to
//!   watch, and answers every asker with its code once the room welcomed
//!   it. The guest, asked, asks the host in turn (once) and passes the
//!   host's answer on ([`PairWatch`]). From there a spectator's way in is
//!   the party's: it joins that room as a `spectator`, links to the host
//!   alone, and the host's session streams the match to it over that
//!   link, as a party's does. The room and every spectator's link close
//!   with the match.
//! - **Rematch.** When a party's match ends, its players' pages keep
//!   their links (the room and any spectator's link close). **Play again**
//!   on the result screen sends every other player the hub message
//!   "again"; when a page has heard it from everyone and pressed it too,
//!   the next match starts over the same links (the host draws a new seed
//!   with the same sides and length). **Continue** (back to the lobby)
//!   sends "leave" instead and closes the links; a page that hears it, or
//!   loses a link meanwhile, closes its own and goes back to the lobby too.
//!   Hub messages go on the reliable channel and start with [`HUB`], a
//!   byte no engine message starts with, so they never reach a session;
//!   what a page that already started the next match sends is kept until
//!   ours starts.
//! - **Failure.** A room that cannot be made, a mesh that is not complete
//!   by the connect deadline, a link or the room lost before then: the
//!   lobby client hears the room or the match failed, and says so.

mod back;

use super::members::{MemberFailure, MemberLink, MemberOutput};
use super::{AfterIce, FetchId, LinkId, Output, RtcEvent, Shell, SocketId, ROOM_FETCH_TIMEOUT};
use crate::id::PeerId;
use crate::id::RoomCode;
use crate::lobby::LobbyNotice;
use crate::party::{Lineup, PartyGame};
use crate::protocol::{GameName, PeerMsg};
use crate::protocol::{Signal, SignalKind};
use crate::screens::{Screen, ScreenEvent};
use lockstep::{Millis, SessionConfig};
use signaling_protocol::members::MemberId;
use signaling_protocol::members::MemberRole;

/// The first byte of a hub message on a party link: the engine's
/// messages start with their tag, a number below 128 written in one byte,
/// so no match message starts with it.
pub const HUB: u8 = 0xF0;
/// Hub message: "play again" (after [`HUB`]).
const HUB_AGAIN: u8 = 1;
/// Hub message: "I leave for the lobby: no rematch" (after [`HUB`]).
const HUB_LEAVE: u8 = 2;

/// What a page says when its party will not play again.
const NO_REMATCH: &str = "Someone from your party went back to the lobby, so there is no rematch.";

/// The handshake attempt number party signals carry (each party link is
/// made once per party attempt).
const ATTEMPT: u8 = 1;

/// What the page says carries its party's match: "relayed" when any of
/// its links goes through the service's relay (one made by the party's
/// first room, or by a comeback room), "direct" otherwise.
pub(super) fn party_path(p: Option<&PartySetup>) -> &'static str {
    let relayed = p.is_some_and(|p| {
        p.links.iter().any(|(m, _)| {
            p.relayed.contains(&m.0)
                || p.members
                    .as_ref()
                    .and_then(|l| l.pairs().get(m))
                    .is_some_and(|pair| pair.relayed)
        })
    });
    if relayed {
        "relayed"
    } else {
        "direct"
    }
}

/// A party being set up or played, with its attempt number.
#[derive(Debug)]
pub(super) struct PartySetup {
    /// The attempt's number: the tag of its links, socket and fetch.
    gen: u32,
    /// The mesh machine, once the lineup is known.
    members: Option<MemberLink>,
    /// Our place, and every place's side, once the lineup is known.
    lineup: Option<Lineup>,
    /// Once the mesh is complete: the member id and place of every link,
    /// in place order.
    links: Vec<(MemberId, u8)>,
    /// Datagrams that came on open links before our own mesh was complete
    /// (another page's match may start first, and its Hello comes once on
    /// the reliable channel), kept in order for the session.
    early: Vec<(MemberId, lockstep::Channel, Vec<u8>)>,
    /// On the host: the spectators whose link is open, each with the
    /// name the session knows its link by.
    spectators: Vec<(MemberId, lockstep::PeerId)>,
    /// On the host: spectator links made so far (each gets a name of its
    /// own: a member id is used again by the next spectator).
    spectator_links: u16,
    /// The match is over and the links are kept for a rematch.
    ended: bool,
    /// The places that pressed Play again since (ours included).
    again: std::collections::BTreeSet<u8>,
    /// This is the room a match of two keeps for its spectators (no
    /// party: the players' link is the match link), with its code once
    /// the service made it.
    pair_room: Option<Option<RoomCode>>,
    /// The member room's code, once known: its relays are named by it.
    room: Option<RoomCode>,
    /// On a guest's page: the party host's lobby id (a page that lost its
    /// links asks it for a way back).
    host: Option<PeerId>,
    /// The place that hosts the match: 0, until the host's place moves to
    /// a guest (see [`Shell::party_host_moved`]).
    host_place: u8,
    /// The links made through a comeback room, by key, with that room's
    /// attempt number (the others carry the party's).
    link_tags: std::collections::BTreeMap<u8, u32>,
    /// The comeback room of a player coming back, while one is open.
    relink: Option<back::RelinkRoom>,
    /// The lobby name of the player at each place, as each said.
    names: std::collections::BTreeMap<u8, String>,
    /// The lobby id of the player at each place, as each said (the host's
    /// page asks them for a way back after a reload).
    ids: std::collections::BTreeMap<u8, PeerId>,
    /// The places whose match link closed, until a comeback link to them
    /// opens.
    down: std::collections::BTreeSet<u8>,
    /// On a guest's page: it came back once in this match because the
    /// host went silent on a link still open.
    back_for_silence: bool,
    /// On a guest's page: since when its session has held the host's
    /// place while the link to the host stays open (see
    /// `Shell::party_host_silent`).
    host_silent_since: Option<Millis>,
    /// On a guest's page: when a new link to the host's place opened
    /// through a comeback room (the host's page came back after a
    /// reload), while its fresh session takes the match back.
    host_relinked_at: Option<Millis>,
    /// The keys of the links made through a comeback room that go
    /// through the service's relay.
    relayed: std::collections::BTreeSet<u8>,
    /// The ICE-restart rules of the match's links (`restart`).
    pub(super) restarts: super::restart::PartyRestarts,
}

/// Watching a running match of two, as its players' pages see it (see
/// the module documentation). Forgotten when the match ends.
#[derive(Debug, Default)]
pub(super) struct PairWatch {
    /// We host the running match of two (its spectators link to us).
    hosting: bool,
    /// The answer for those who ask to watch (a `watch-room`: the
    /// spectators' room and the game), once the room is open (on the
    /// guest: once the host said).
    answer: Option<PeerMsg>,
    /// Lobby players who asked to watch before then, answered when it is.
    asked: Vec<PeerId>,
    /// Once there is an answer: the game the match played then
    /// ([`GameSlot::match_game`](super::GameSlot::match_game)). A slot
    /// that switches games within the match streams each game apart, so
    /// when it plays another, or none that streams, the way in closes.
    stream: Option<Option<usize>>,
    /// Spectator links named so far in this match: a session never takes
    /// a link it dropped back, so a later room's spectators get new names.
    named: u16,
}

/// The most datagrams kept from before the match starts (a handshake's
/// worth from each of up to seven others, with room to spare); more are
/// dropped.
const EARLY_KEPT: usize = 256;

impl PartySetup {
    fn new(gen: u32) -> PartySetup {
        PartySetup {
            gen,
            members: None,
            lineup: None,
            links: Vec::new(),
            early: Vec::new(),
            spectators: Vec::new(),
            spectator_links: 0,
            ended: false,
            again: std::collections::BTreeSet::new(),
            pair_room: None,
            room: None,
            host: None,
            host_place: 0,
            link_tags: std::collections::BTreeMap::new(),
            relink: None,
            names: std::collections::BTreeMap::new(),
            ids: std::collections::BTreeMap::new(),
            down: std::collections::BTreeSet::new(),
            back_for_silence: false,
            host_silent_since: None,
            host_relinked_at: None,
            relayed: std::collections::BTreeSet::new(),
            restarts: super::restart::PartyRestarts::default(),
        }
    }

    /// Whether its spectators' links carry the running match: a party's
    /// own match (attempt `gen`), or the match of two whose room this is.
    fn streams(&self, running: Option<u32>) -> bool {
        running == Some(self.gen) || (self.pair_room.is_some() && running.is_some())
    }

    fn watching(&self) -> bool {
        self.members.as_ref().is_some_and(MemberLink::watching)
    }
}

/// The party rules of a page's game, as the lobby client takes them: the
/// game by its name, when it takes parties at all. Made once per page.
pub(super) fn party_games(games: Vec<PartyGame>) -> &'static [PartyGame] {
    let games: Vec<PartyGame> = games
        .into_iter()
        .filter(|g| g.rules.allows_parties())
        .collect();
    if games.is_empty() {
        return &[];
    }
    // The lobby's configuration holds the list for the page's life.
    Box::leak(games.into_boxed_slice())
}

/// The link name the session gives the link to party place `place`.
fn link_name(place: u8) -> lockstep::PeerId {
    lockstep::PeerId(u16::from(place))
}

/// The link name the host's session gives the `n`th spectator link
/// (apart from every place's).
fn spectator_name(n: u16) -> lockstep::PeerId {
    lockstep::PeerId(256_u16.saturating_add(n))
}

/// What a spectator's page says when the match cannot be watched.
const NOT_WATCHABLE: &str =
    "That match can't be watched now: it is over, or the game it plays now can't be.";
/// What a spectator's page says when its link to the match failed.
const WATCH_FAILED: &str = "Could not connect to that match to watch it.";

impl Shell {
    /// The lobby's Start button of a party: the players picked (by their
    /// ids as the page wrote them) and their sides, and ours.
    pub(super) fn invite_party(&mut self, now: Millis, picks: &[(String, u8)], side: u8) {
        if self.screens.screen() != &Screen::Lobby {
            return;
        }
        let Some(c) = self.client.as_mut() else {
            return;
        };
        // An id the page cannot have written is dropped; the rules then
        // count the rest.
        let picks: Vec<(crate::id::PeerId, u8)> = picks
            .iter()
            .filter_map(|(id, s)| Some((crate::id::PeerId::parse(id)?, *s)))
            .collect();
        c.invite_party(now, &picks, side);
    }

    /// The lobby's Cancel button on our party.
    pub(super) fn cancel_party(&mut self, now: Millis) {
        if let Some(c) = self.client.as_mut() {
            c.cancel_party(now);
        }
    }

    /// The lobby client asks for our party's member room for `players`.
    pub(super) fn create_party_room(&mut self, now: Millis, players: u8) {
        self.close_party();
        // Party attempts share the match attempts' numbers, so a link's tag
        // names one attempt of either kind.
        self.room_gen += 1;
        let gen = self.room_gen;
        self.party = Some(PartySetup::new(gen));
        // Room for the most spectators a match takes.
        let url = format!(
            "{}/rooms?players={players}&spectators={}",
            self.cfg.http_base,
            lockstep::MAX_SPECTATORS
        );
        self.fetch(
            now,
            FetchId::PartyRoom(gen),
            "POST",
            url,
            ROOM_FETCH_TIMEOUT,
        );
        // Fresh ICE servers for the party's links, made once the room
        // welcomes us.
        self.refresh_ice(now, AfterIce::Nothing);
    }

    /// The answer to our party's `POST /rooms?players=N`.
    pub(super) fn party_room_fetched(&mut self, now: Millis, gen: u32, code: Option<RoomCode>) {
        if self.relink_room_fetched(now, gen, code.clone()) {
            return;
        }
        let Some(p) = self.party.as_mut().filter(|p| p.gen == gen) else {
            return;
        };
        if p.pair_room.is_some() {
            match code {
                Some(code) => {
                    let url = format!("{}/rooms/{code}/ws?role=host", self.cfg.ws_base);
                    p.pair_room = Some(Some(code.clone()));
                    p.room = Some(code);
                    p.members = Some(MemberLink::spectators_only());
                    let id = SocketId::Party(gen);
                    self.out.push_back(Output::OpenSocket { id, url });
                }
                None => {
                    log::info!("watch: no room for spectators could be made");
                    self.party = None;
                    self.answer_askers(PeerMsg::WatchGone);
                }
            }
            return;
        }
        let Some(c) = self.client.as_mut() else {
            return;
        };
        match code {
            Some(code) => c.party_room_created(now, code),
            None => {
                self.party = None;
                c.party_room_failed(now);
            }
        }
    }

    /// The lobby client says: play this party (open the member room).
    pub(super) fn play_party(&mut self, now: Millis, lineup: Lineup) {
        let people = u8::try_from(lineup.sides.len()).unwrap_or(u8::MAX);
        let deadline = now + self.cfg.lobby.party.connect_timeout;
        // The challenger's page goes on with the attempt that made the
        // room; a member's starts one.
        if lineup.place != 0 || self.party.is_none() {
            self.close_party();
            self.room_gen += 1;
            self.party = Some(PartySetup::new(self.room_gen));
            self.refresh_ice(now, AfterIce::Nothing);
        }
        if self.party.is_none() {
            return;
        }
        // The party plays the game its invitation named.
        self.open_named(lineup.game.as_ref());
        let Some(p) = self.party.as_mut() else {
            return;
        };
        let role = if lineup.place == 0 { "host" } else { "player" };
        let url = format!("{}/rooms/{}/ws?role={role}", self.cfg.ws_base, lineup.room);
        p.host = self
            .client
            .as_ref()
            .and_then(|c| c.party_host().cloned())
            .filter(|_| lineup.place != 0);
        let members = MemberLink::new(lineup.place, people, deadline);
        p.members = Some(if self.cfg.force_relay {
            members.relay_at_once()
        } else {
            members
        });
        p.room = Some(lineup.room.clone());
        p.lineup = Some(lineup);
        let id = SocketId::Party(p.gen);
        self.out.push_back(Output::OpenSocket { id, url });
    }

    /// The next match opens on `game` (`None`: the first), on a page of
    /// several games; a page of one has only that one.
    fn open_named(&mut self, game: Option<&GameName>) {
        let games = self.game.games();
        let index = game
            .and_then(|g| games.iter().position(|n| *n == g.as_str()))
            .unwrap_or(0);
        self.game.open_on(index);
    }

    /// Ends the party attempt, if any: its room socket and every link.
    pub(super) fn close_party(&mut self) {
        self.close_relink(self.now);
        let Some(p) = self.party.take() else {
            return;
        };
        let mut p = p;
        let mut members: Vec<MemberId> = p.links.iter().map(|(m, _)| *m).collect();
        members.extend(p.spectators.iter().map(|(m, _)| *m));
        if let Some(m) = p.members.as_mut() {
            members.extend(m.pairs().keys().copied());
            members.extend(m.spectators());
            // The host ends the room it kept for spectators.
            m.end_room();
            while let Some(o) = m.poll() {
                if let MemberOutput::ToRoom(text) = o {
                    self.out.push_back(Output::SendSocket {
                        id: SocketId::Party(p.gen),
                        text,
                    });
                }
            }
        }
        members.sort_unstable();
        members.dedup();
        for m in members {
            self.out.push_back(Output::ClosePeer(LinkId::Party(m.0)));
        }
        self.out
            .push_back(Output::CloseSocket(SocketId::Party(p.gen)));
    }

    /// Ends the party attempt unless its match runs (the lobby client
    /// closes or leaves a room that is not a match's).
    pub(super) fn close_party_setup(&mut self) {
        if self
            .party
            .as_ref()
            .is_some_and(|p| p.links.is_empty() && p.pair_room.is_none())
        {
            self.close_party();
        }
    }

    fn party_members(&mut self, gen: u32) -> Option<&mut MemberLink> {
        self.party
            .as_mut()
            .filter(|p| p.gen == gen)?
            .members
            .as_mut()
    }

    /// A text frame on a party room socket.
    pub(super) fn party_socket_text(&mut self, gen: u32, text: &str) {
        if self.relink_socket_text(gen, text) {
            return;
        }
        if let Some(m) = self.party_members(gen) {
            m.room_text(text);
        }
        // A match of two's room for spectators: once it welcomed us, the
        // lobby players who asked can come in.
        let open = self.party.as_ref().and_then(|p| {
            let welcomed = p.gen == gen && p.members.as_ref()?.me().is_some();
            p.pair_room.clone().flatten().filter(|_| welcomed)
        });
        if let Some(room) = open.filter(|_| self.pair_watch.answer.is_none()) {
            let answer = PeerMsg::WatchRoom {
                room,
                game: self.streamed_game(),
            };
            self.pair_watch.answer = Some(answer.clone());
            self.pair_watch.stream = Some(self.game.match_game());
            self.answer_askers(answer);
        }
    }

    /// A party room socket closed.
    pub(super) fn party_socket_closed(&mut self, gen: u32) {
        if self.relink_socket_closed(gen) {
            return;
        }
        if let Some(m) = self.party_members(gen) {
            m.room_closed();
        }
    }

    /// Time passed: the mesh's connect deadline.
    pub(super) fn party_tick(&mut self, now: Millis) {
        if let Some(m) = self.party.as_mut().and_then(|p| p.members.as_mut()) {
            m.tick(now);
        }
        self.relink_tick(now);
    }

    /// An event of the party link to `member` of attempt `tag`.
    pub(super) fn party_rtc(&mut self, now: Millis, member: u8, tag: u32, event: RtcEvent) {
        // A link made through a comeback room carries that room's tag: the
        // match's once it is in the party's links, the room's until then.
        let relinked = self
            .party
            .as_ref()
            .and_then(|p| p.link_tags.get(&member).copied());
        if member >= super::relink::RELINK_KEY && relinked != Some(tag) {
            self.relink_rtc(member, tag, event);
            return;
        }
        let Some(p) = self
            .party
            .as_mut()
            .filter(|p| relinked.unwrap_or(p.gen) == tag)
        else {
            return;
        };
        let id = MemberId(member);
        let live = p.streams(self.game.match_tag());
        if let Some(&(_, name)) = p.spectators.iter().find(|(m, _)| *m == id) {
            // A spectator's link, on the host.
            match event {
                RtcEvent::Data(channel, bytes) if live => {
                    self.game.party_datagram(now, name, channel, &bytes);
                    self.send_match_transmits();
                }
                RtcEvent::Closed => {
                    p.spectators.retain(|(m, _)| *m != id);
                    if let Some(m) = p.members.as_mut() {
                        m.link_lost(id);
                    }
                    if live {
                        self.game.party_link_lost(now, name);
                    }
                }
                RtcEvent::Backlog(bytes) if live => {
                    self.game.party_backlog(now, name, bytes);
                }
                _ => {}
            }
            return;
        }
        if let Some(&(_, place)) = p.links.iter().find(|(m, _)| *m == id) {
            if let RtcEvent::Data(lockstep::Channel::Reliable, bytes) = &event {
                if bytes.first() == Some(&HUB) {
                    let bytes = bytes.clone();
                    self.party_hub(now, place, &bytes);
                    return;
                }
            }
            // The match runs over it.
            if self.game.match_tag() != Some(p.gen) {
                if p.ended {
                    match event {
                        // A page that started the next match already: its
                        // messages come after its "again" (kept in order).
                        RtcEvent::Data(channel, bytes)
                            if p.again.contains(&place) && p.early.len() < EARLY_KEPT =>
                        {
                            p.early.push((id, channel, bytes));
                        }
                        RtcEvent::Closed => self.no_rematch(now),
                        _ => {}
                    }
                }
                return;
            }
            match event {
                RtcEvent::Data(channel, bytes) => {
                    self.game
                        .party_datagram(now, link_name(place), channel, &bytes);
                    self.send_match_transmits();
                }
                RtcEvent::Closed => {
                    p.down.insert(place);
                    p.restarts.forget(place);
                    self.game.party_link_lost(now, link_name(place));
                    self.refresh_live();
                    // The link to the host's place (0, or the guest the
                    // host's place moved to): this page comes back.
                    let host_place = self.party.as_ref().map_or(0, |p| p.host_place);
                    if place == host_place {
                        self.party_host_lost(now);
                    } else {
                        self.ask_mend();
                    }
                    let all_down = self
                        .party
                        .as_ref()
                        .is_some_and(|p| p.links.iter().all(|(_, q)| p.down.contains(q)));
                    if all_down {
                        self.kept_links_all_lost();
                    }
                }
                RtcEvent::Backlog(bytes) => {
                    self.game.party_backlog(now, link_name(place), bytes);
                }
                // The steps of an ICE restart of the link (`restart`).
                RtcEvent::PathDown
                | RtcEvent::PathUp
                | RtcEvent::Offer(_)
                | RtcEvent::Answer(_)
                | RtcEvent::Applied(_)
                | RtcEvent::Candidate(_) => self.party_restart_event(now, place, &event),
                RtcEvent::Open => {}
            }
            return;
        }
        let Some(m) = p.members.as_mut() else {
            return;
        };
        let signal = |kind| Signal {
            attempt: ATTEMPT,
            kind,
        };
        match event {
            // A failed one is left to the connect deadline.
            RtcEvent::Offer(Some(sdp)) => m.local_signal(id, &signal(SignalKind::Offer(sdp))),
            RtcEvent::Answer(Some(sdp)) => m.local_signal(id, &signal(SignalKind::Answer(sdp))),
            RtcEvent::Candidate(c) => {
                m.local_signal(id, &super::room::candidate_signal(c, ATTEMPT))
            }
            RtcEvent::Open => {
                m.link_opened(id);
                // A spectator's link is the match's from now on (its Watch
                // may come in the same breath).
                if id.role() == Some(MemberRole::Spectator) && m.spectators().contains(&id) {
                    p.spectator_links = p.spectator_links.saturating_add(1);
                    p.spectators.push((id, spectator_name(p.spectator_links)));
                }
            }
            RtcEvent::Closed => m.link_lost(id),
            RtcEvent::Data(channel, bytes) => {
                if p.early.len() < EARLY_KEPT {
                    p.early.push((id, channel, bytes));
                } else {
                    log::warn!("party: dropped a datagram that came long before the match");
                }
            }
            RtcEvent::Offer(None)
            | RtcEvent::Answer(None)
            | RtcEvent::Applied(_)
            | RtcEvent::Backlog(_)
            | RtcEvent::PathDown
            | RtcEvent::PathUp => {}
        }
    }

    /// Carries out the mesh machine's outputs; `true` if there were any.
    pub(super) fn drain_party(&mut self, now: Millis) -> bool {
        let mut any = self.drain_relink(now);
        loop {
            let Some((gen, o)) = self.party.as_mut().and_then(|p| {
                let gen = p.gen;
                p.members.as_mut()?.poll().map(|o| (gen, o))
            }) else {
                return any;
            };
            any = true;
            let tag = gen;
            match o {
                MemberOutput::ToRoom(text) => self.out.push_back(Output::SendSocket {
                    id: SocketId::Party(gen),
                    text,
                }),
                MemberOutput::Offer(member) => self.offer_on(LinkId::Party(member.0), tag),
                MemberOutput::Remote { member, signal } => {
                    self.remote_signal(LinkId::Party(member.0), tag, signal.kind);
                }
                MemberOutput::ClosePeer(member) => {
                    self.out
                        .push_back(Output::ClosePeer(LinkId::Party(member.0)));
                }
                MemberOutput::OpenRelay { member, ticket } => {
                    let room = self.party.as_ref().and_then(|p| p.room.clone());
                    if let Some(room) = room {
                        let path = signaling_protocol::relay_path(&room, &ticket);
                        self.out.push_back(Output::OpenRelay {
                            link: LinkId::Party(member.0),
                            tag,
                            url: format!("{}{path}", self.cfg.ws_base),
                        });
                    }
                }
                MemberOutput::CloseRoom => {
                    self.out
                        .push_back(Output::CloseSocket(SocketId::Party(gen)));
                }
                MemberOutput::Ready(links) => self.party_ready(now, gen, links),
                MemberOutput::SpectatorOpen(_) => log::info!("party: a spectator's link opened"),
                MemberOutput::SpectatorGone(member) => {
                    if let Some(p) = self.party.as_mut() {
                        p.spectators.retain(|(m, _)| *m != member);
                    }
                }
                MemberOutput::Failed(why) => {
                    match why {
                        MemberFailure::TimedOut => {
                            log::info!("party: the mesh was not complete in time");
                        }
                        other => log::info!("party: the mesh failed ({other:?})"),
                    }
                    // The machine closed its links and room; the attempt
                    // is over.
                    let watching = self.party.as_ref().is_some_and(PartySetup::watching);
                    let pair_room = self.party.as_ref().is_some_and(|p| p.pair_room.is_some());
                    self.party = None;
                    if pair_room {
                        // Only the spectators' way in is lost: the match
                        // of two goes on.
                        self.pair_watch.answer = None;
                        self.answer_askers(PeerMsg::WatchGone);
                        continue;
                    }
                    if let Some(c) = self.client.as_mut() {
                        if watching {
                            c.note(LobbyNotice::Watch(WATCH_FAILED));
                        } else {
                            c.match_failed(now);
                        }
                    }
                }
            }
        }
    }

    /// The running party match's link to `place`, on a player's page: its
    /// key, its tag, and whether it goes through the service's relay.
    pub(super) fn party_match_link(&self, place: u8) -> Option<(u8, u32, bool)> {
        let p = self.party.as_ref().filter(|p| {
            !p.ended
                && !p.watching()
                && p.pair_room.is_none()
                && self.game.match_tag() == Some(p.gen)
        })?;
        let &(m, _) = p.links.iter().find(|(_, q)| *q == place)?;
        let tag = p.link_tags.get(&m.0).copied().unwrap_or(p.gen);
        let relayed = p.relayed.contains(&m.0)
            || p.members
                .as_ref()
                .and_then(|l| l.pairs().get(&m))
                .is_some_and(|pair| pair.relayed);
        Some((m.0, tag, relayed))
    }

    /// The party place of the player with lobby id `id`, as it said (the
    /// host's, on a guest's page, as the start said).
    pub(super) fn party_place_of(&self, id: &PeerId) -> Option<u8> {
        let p = self.party.as_ref()?;
        let said = p.ids.iter().find(|(_, i)| *i == id).map(|(q, _)| *q);
        said.or_else(|| (p.host.as_ref() == Some(id)).then_some(0))
    }

    /// The lobby id of the party player at `place`, as it said.
    pub(super) fn party_id_at(&self, place: u8) -> Option<PeerId> {
        let p = self.party.as_ref()?;
        let host = (place == 0).then(|| p.host.clone()).flatten();
        p.ids.get(&place).cloned().or(host)
    }

    /// The party's players other than this page's, by place, with the
    /// lobby id each is known by.
    pub(super) fn party_places(&self) -> Vec<(u8, PeerId)> {
        let Some(p) = self.party.as_ref() else {
            return Vec::new();
        };
        let mut v: Vec<(u8, PeerId)> = p.ids.iter().map(|(q, i)| (*q, i.clone())).collect();
        if let Some(h) = p.host.as_ref().filter(|_| !p.ids.contains_key(&0)) {
            v.push((0, h.clone()));
        }
        let me = self.client.as_ref().and_then(|c| c.me().cloned());
        v.retain(|(_, i)| Some(i) != me.as_ref());
        v
    }

    /// The lobby ids of the party's other players.
    pub(super) fn party_ids(&self) -> Vec<PeerId> {
        self.party_places().into_iter().map(|(_, i)| i).collect()
    }

    /// The player at `place` is known by the lobby id `to` from now on
    /// (its lobby socket came back under a new id and proved it).
    pub(super) fn party_id_moved(&mut self, place: u8, to: PeerId) {
        let Some(p) = self.party.as_mut() else {
            return;
        };
        if p.ids.contains_key(&place) {
            p.ids.insert(place, to.clone());
        }
        if place == 0 && p.ids.get(&0).is_none_or(|i| *i == to) {
            p.host = Some(to);
        }
    }

    /// The room that is making the party link `key` of attempt `tag`:
    /// the party's member room, or the comeback room of that attempt.
    pub(super) fn party_link_room(&self, key: u8, tag: u32) -> Option<RoomCode> {
        let p = self.party.as_ref()?;
        if key >= super::relink::RELINK_KEY {
            self.relink_code(tag)
        } else {
            p.room.clone().filter(|_| tag == p.gen)
        }
    }

    /// The mesh is complete: the match starts over every link.
    fn party_ready(&mut self, now: Millis, gen: u32, links: Vec<(MemberId, u8)>) {
        let Some(p) = self.party.as_mut() else {
            return;
        };
        p.links.clone_from(&links);
        if p.watching() {
            self.watch_ready(now, gen);
            return;
        }
        let Some(lineup) = p.lineup.clone() else {
            return;
        };
        if let Some(c) = self.client.as_mut() {
            c.match_connected(now);
        }
        // The party rules say whether this is still a match of ours (it
        // may have been called off meanwhile).
        if !self.in_match() {
            self.close_party();
            return;
        }
        let cfg = self.party_config(&lineup);
        let names: Vec<lockstep::PeerId> =
            links.iter().map(|(_, place)| link_name(*place)).collect();
        self.frame_times = super::FrameTimes::default();
        self.match_view = super::view::MatchView {
            state: Some("connected"),
            status: "Connected. Starting…".to_owned(),
            path: Some(party_path(self.party.as_ref())),
            ..super::view::MatchView::default()
        };
        self.render(super::Part::Match);
        let started = cfg.is_some_and(|cfg| self.game.start_party(cfg, now, gen, &names));
        if !started || self.screens.screen() != &Screen::Lobby {
            if started {
                self.game.drop_match();
            }
            self.close_party();
            if let Some(c) = self.client.as_mut() {
                c.match_ended(now);
            }
            return;
        }
        self.screen_event(now, ScreenEvent::MatchStarted, &[]);
        let keys: Vec<u8> = links.iter().map(|(m, _)| m.0).collect();
        self.send_who(&keys);
        // What the others' sessions sent before ours existed.
        let early = self
            .party
            .as_mut()
            .map(|p| std::mem::take(&mut p.early))
            .unwrap_or_default();
        for (member, channel, bytes) in early {
            if let Some(&(_, place)) = links.iter().find(|(m, _)| *m == member) {
                self.early_datagram(now, place, channel, &bytes);
            }
        }
        self.send_match_transmits();
    }

    /// A datagram kept from before our match started, from `place`: a hub
    /// message (another page's match may start first and say who it is)
    /// or the match's.
    fn early_datagram(&mut self, now: Millis, place: u8, channel: lockstep::Channel, bytes: &[u8]) {
        if channel == lockstep::Channel::Reliable && bytes.first() == Some(&HUB) {
            self.party_hub(now, place, bytes);
        } else {
            self.game
                .party_datagram(now, link_name(place), channel, bytes);
        }
    }

    /// A hub message from the player at `place` (its first byte is
    /// [`HUB`]).
    fn party_hub(&mut self, now: Millis, place: u8, bytes: &[u8]) {
        match bytes {
            [_, back::HUB_RELINK, code @ ..] => self.relink_told(now, place, code),
            [_, back::HUB_WHO, id @ ..] => self.who_told(place, id),
            [_, back::HUB_MEND, lost @ ..] => self.mend_asked(now, place, lost),
            [_, back::HUB_HOST_ASKS, id @ ..] => self.host_ask_passed(now, place, id),
            // Exactly two bytes: the namespace and the kind.
            [_, kind] => self.hub_message(now, place, Some(*kind)),
            _ => self.hub_message(now, place, None),
        }
    }

    /// Sends the running party match's datagrams on every link.
    pub(super) fn send_party_transmits(&mut self) {
        let Some(p) = self.party.as_ref() else {
            return;
        };
        if !p.streams(self.game.match_tag()) {
            return;
        }
        let links = p
            .links
            .iter()
            .map(|&(member, place)| (member, link_name(place)));
        let spectators = p.spectators.iter().copied();
        for (member, name) in links.chain(spectators).collect::<Vec<_>>() {
            while let Some((mut channel, mut bytes)) = self.game.poll_party_transmit(name) {
                // A test's faulty peer changes what its party links carry
                // as it does its match link's.
                if let Some(fault) = self.cfg.peer_fault {
                    (channel, bytes) = fault.apply(channel, bytes);
                }
                self.out.push_back(Output::SendPeer {
                    link: LinkId::Party(member.0),
                    channel,
                    bytes,
                });
            }
        }
    }

    /// Whether this page holds links to a party's other members (a match
    /// of more than two, or one about to start).
    pub(super) fn party_links_up(&self) -> bool {
        self.party.as_ref().is_some_and(|p| !p.links.is_empty())
    }

    /// The party's match is over: a player's page keeps its links to the
    /// others for a rematch (the room and every spectator's link close); a
    /// spectator's closes its link.
    pub(super) fn party_match_over(&mut self) {
        // A match of two: its spectators' room and links go with it, and
        // whoever still waits for the way in hears it is over.
        self.answer_askers(PeerMsg::WatchGone);
        self.pair_watch = PairWatch::default();
        if self.party.as_ref().is_some_and(|p| p.pair_room.is_some()) {
            self.close_party();
            return;
        }
        let Some(p) = self.party.as_mut().filter(|p| !p.links.is_empty()) else {
            return;
        };
        if p.watching() || p.lineup.is_none() {
            self.close_party();
            return;
        }
        p.ended = true;
        p.again.clear();
        p.early.clear();
        self.close_relink(self.now);
        let Some(p) = self.party.as_mut() else {
            return;
        };
        let gen = p.gen;
        for (m, _) in std::mem::take(&mut p.spectators) {
            self.out.push_back(Output::ClosePeer(LinkId::Party(m.0)));
        }
        if let Some(m) = p.members.as_mut() {
            for s in m.spectators() {
                self.out.push_back(Output::ClosePeer(LinkId::Party(s.0)));
            }
            m.end_room();
            while let Some(o) = m.poll() {
                if let MemberOutput::ToRoom(text) = o {
                    self.out.push_back(Output::SendSocket {
                        id: SocketId::Party(gen),
                        text,
                    });
                }
            }
            self.out
                .push_back(Output::CloseSocket(SocketId::Party(gen)));
        }
    }

    /// Sends hub message `what` to every other player of the party.
    fn send_hub(&mut self, what: u8) {
        let Some(p) = self.party.as_ref() else {
            return;
        };
        for &(member, _) in &p.links {
            self.out.push_back(Output::SendPeer {
                link: LinkId::Party(member.0),
                channel: lockstep::Channel::Reliable,
                bytes: vec![HUB, what],
            });
        }
    }

    /// Play again on the result screen: `true` if the party that just
    /// played is kept for it (our "again" is out).
    pub(super) fn party_play_again(&mut self, now: Millis) -> bool {
        let Some(p) = self.party.as_mut().filter(|p| p.ended) else {
            return false;
        };
        let Some(place) = p.lineup.as_ref().map(|l| l.place) else {
            return false;
        };
        if !p.again.insert(place) {
            return true;
        }
        self.send_hub(HUB_AGAIN);
        self.maybe_rematch(now);
        true
    }

    /// Continue (or Back) on the result screen: no rematch for us; the
    /// others hear it and go back to the lobby too.
    pub(super) fn leave_party_after_match(&mut self) {
        if self.party.as_ref().is_some_and(|p| p.ended) {
            self.send_hub(HUB_LEAVE);
            self.close_party();
        }
    }

    /// A hub message from the player at `place`.
    fn hub_message(&mut self, now: Millis, place: u8, what: Option<u8>) {
        // A kind no page sends is a faulty or hostile peer's; a known kind
        // at the wrong moment may be a page a little out of step.
        if !matches!(what, Some(HUB_AGAIN | HUB_LEAVE)) {
            log::warn!("party: dropped a hub message of an unknown kind");
            return;
        }
        let Some(p) = self.party.as_mut().filter(|p| p.ended) else {
            log::debug!("party: a hub message outside the time between two matches; dropped");
            return;
        };
        if what == Some(HUB_AGAIN) {
            p.again.insert(place);
            self.maybe_rematch(now);
        } else {
            self.no_rematch(now);
        }
    }

    /// Someone left the party after its match: back to the lobby.
    fn no_rematch(&mut self, now: Millis) {
        self.close_party();
        if matches!(self.screens.screen(), Screen::Result { online: true, .. }) {
            self.screen_event(now, ScreenEvent::Continue, &[]);
            if let Some(c) = self.client.as_mut() {
                c.note(LobbyNotice::Rematch(NO_REMATCH));
            }
        }
    }

    /// Everyone pressed Play again: the next match over the same links.
    fn maybe_rematch(&mut self, now: Millis) {
        let Some(p) = self.party.as_mut() else {
            return;
        };
        let Some(lineup) = p.lineup.clone() else {
            return;
        };
        if p.again.len() < lineup.sides.len()
            || !matches!(self.screens.screen(), Screen::Result { online: true, .. })
        {
            return;
        }
        p.ended = false;
        p.again.clear();
        p.back_for_silence = false;
        p.host_silent_since = None;
        let gen = p.gen;
        let links = p.links.clone();
        if let Some(c) = self.client.as_mut() {
            c.rematch(now);
        }
        let Some(cfg) = self.party_config(&lineup) else {
            self.no_rematch(now);
            return;
        };
        let names: Vec<lockstep::PeerId> =
            links.iter().map(|(_, place)| link_name(*place)).collect();
        self.frame_times = super::FrameTimes::default();
        self.match_view = super::view::MatchView {
            state: Some("connected"),
            status: "Connected. Starting…".to_owned(),
            path: Some(party_path(self.party.as_ref())),
            ..super::view::MatchView::default()
        };
        self.render(super::Part::Match);
        if !self.in_match() || !self.game.start_party(cfg, now, gen, &names) {
            if let Some(c) = self.client.as_mut() {
                c.match_ended(now);
            }
            self.no_rematch(now);
            return;
        }
        self.screen_event(now, ScreenEvent::MatchStarted, &[]);
        let early = self
            .party
            .as_mut()
            .map(|p| std::mem::take(&mut p.early))
            .unwrap_or_default();
        for (member, channel, bytes) in early {
            if let Some(&(_, place)) = links.iter().find(|(m, _)| *m == member) {
                self.early_datagram(now, place, channel, &bytes);
            }
        }
        self.send_match_transmits();
    }

    /// The session settings of a party's match for our place: the host
    /// draws the seed and the game writes the sides and length into it.
    fn party_config(&mut self, lineup: &Lineup) -> Option<SessionConfig> {
        let cfg = self.party_session(lineup)?;
        Some(self.cfg.peer_fault.map_or(cfg, |f| f.session(cfg)))
    }

    /// [`Shell::party_config`] before a test's peer fault.
    fn party_session(&mut self, lineup: &Lineup) -> Option<SessionConfig> {
        if lineup.place != 0 {
            let cfg = SessionConfig::guest().adaptive_input_delay();
            return Some(self.rejoin_config(cfg, false));
        }
        let people = u8::try_from(lineup.sides.len()).unwrap_or(u8::MAX);
        let seed = self.random_seed();
        match self
            .game
            .party_seed(seed, &lineup.sides, self.party_ui.length)
        {
            // A player whose links are lost has the rejoin window to come
            // back (see `back`).
            Some(seed) => {
                let cfg = SessionConfig::host(seed, 6)
                    .players(people)
                    .input_delay_from_rtt()
                    .adaptive_input_delay();
                Some(self.rejoin_config(cfg, true))
            }
            None => {
                log::warn!("party: the game cannot play these sides");
                None
            }
        }
    }

    // ----- watching --------------------------------------------------------

    /// The roster's Watch button next to `id`: ask their page for the way
    /// into their match.
    pub(super) fn ask_to_watch(&mut self, id: &PeerId) {
        let free = self.party.is_none() && !self.in_match();
        let Some(c) = self.client.as_mut().filter(|_| free) else {
            return;
        };
        c.send_peer(id, &PeerMsg::Watch);
        self.party_ui.watch_asked = Some(id.clone());
    }

    /// A message about watching a match from the lobby player `from`.
    pub(super) fn watch_message(&mut self, now: Millis, from: &PeerId, msg: PeerMsg) {
        match msg {
            PeerMsg::Watch => {
                // Any page of a running party match knows its room (the
                // host keeps it open while the match runs).
                // A match this page's game cannot stream to a spectator
                // (another sync model, a hub between games) is gone to the
                // asker.
                if !self.game.match_watchable() {
                    if let Some(c) = self.client.as_mut() {
                        c.send_peer(from, &PeerMsg::WatchGone);
                    }
                    return;
                }
                let answer = self
                    .party
                    .as_ref()
                    .filter(|p| !p.links.is_empty() && self.game.match_tag() == Some(p.gen))
                    .and_then(|p| p.lineup.as_ref())
                    .map(|l| PeerMsg::WatchRoom {
                        room: l.room.clone(),
                        game: l.game.clone(),
                    });
                if answer.is_none() && self.pair_match_runs() {
                    self.asked_to_watch_pair(now, from);
                    return;
                }
                let answer = answer.unwrap_or(PeerMsg::WatchGone);
                if let Some(c) = self.client.as_mut() {
                    c.send_peer(from, &answer);
                }
            }
            // The host of our match of two answers what we asked for the
            // lobby players who asked us.
            msg @ (PeerMsg::WatchRoom { .. } | PeerMsg::WatchGone)
                if self.pair_match_runs()
                    && !self.pair_watch.hosting
                    && self.last_opponent.as_ref() == Some(from) =>
            {
                if let PeerMsg::WatchRoom { .. } = &msg {
                    self.pair_watch.answer = Some(msg.clone());
                    self.pair_watch.stream = Some(self.game.match_game());
                }
                self.answer_askers(msg);
            }
            PeerMsg::WatchRoom { room, game } => {
                if self.party_ui.watch_asked.as_ref() != Some(from) {
                    log::debug!("party: a room to watch we did not ask for; dropped");
                    return;
                }
                self.party_ui.watch_asked = None;
                if self.screens.screen() == &Screen::Lobby
                    && self.party.is_none()
                    && !self.in_match()
                {
                    self.watch_party(now, &room, game.as_ref());
                }
            }
            PeerMsg::WatchGone if self.party_ui.watch_asked.as_ref() == Some(from) => {
                self.party_ui.watch_asked = None;
                if let Some(c) = self.client.as_mut() {
                    c.note(LobbyNotice::Watch(NOT_WATCHABLE));
                }
            }
            _ => {}
        }
    }

    /// Joins member room `room` as a spectator of its match of `game`
    /// (`None`: the page's first game).
    fn watch_party(&mut self, now: Millis, room: &RoomCode, game: Option<&GameName>) {
        self.close_party();
        self.open_named(game);
        self.room_gen += 1;
        let mut p = PartySetup::new(self.room_gen);
        let deadline = now + self.cfg.lobby.party.connect_timeout;
        p.members = Some(MemberLink::watcher(deadline));
        p.room = Some(room.clone());
        let url = format!("{}/rooms/{room}/ws?role=spectator", self.cfg.ws_base);
        let id = SocketId::Party(p.gen);
        self.party = Some(p);
        self.refresh_ice(now, AfterIce::Nothing);
        self.out.push_back(Output::OpenSocket { id, url });
    }

    /// The spectator's link to the host is open: watch.
    fn watch_ready(&mut self, now: Millis, gen: u32) {
        self.frame_times = super::FrameTimes::default();
        self.match_view = super::view::MatchView {
            state: Some("connected"),
            status: "Connected. Waiting for the match…".to_owned(),
            path: Some(party_path(self.party.as_ref())),
            ..super::view::MatchView::default()
        };
        self.render(super::Part::Match);
        if let Some(c) = self.client.as_mut() {
            c.watching(now);
        }
        let started = self.in_match()
            && self.screens.screen() == &Screen::Lobby
            && self
                .game
                .start_party(SessionConfig::spectator(), now, gen, &[link_name(0)]);
        if !started {
            self.game.drop_match();
            self.close_party();
            if let Some(c) = self.client.as_mut() {
                c.match_ended(now);
                c.note(LobbyNotice::Watch(WATCH_FAILED));
            }
            return;
        }
        self.screen_event(now, ScreenEvent::MatchStarted, &[]);
        let early = self
            .party
            .as_mut()
            .map(|p| std::mem::take(&mut p.early))
            .unwrap_or_default();
        for (member, channel, bytes) in early {
            if member == MemberId::HOST {
                self.game.party_datagram(now, link_name(0), channel, &bytes);
            }
        }
        self.send_match_transmits();
    }

    // ----- watching a match of two ------------------------------------------

    /// A match of two (a challenge's) runs on this page.
    fn pair_match_runs(&self) -> bool {
        self.game.match_tag().is_some()
            && self.party.as_ref().is_none_or(|p| p.pair_room.is_some())
            && self
                .client
                .as_ref()
                .is_some_and(|c| c.challenges().in_match)
    }

    /// The match of two now running: we host it or not. Nobody watches
    /// it yet.
    pub(super) fn pair_match_started(&mut self, hosting: bool) {
        self.pair_watch = PairWatch {
            hosting,
            ..PairWatch::default()
        };
    }

    /// The lobby player `from` asks to watch our match of two: it gets
    /// the spectators' room once there is one. The host opens it for the
    /// first asker; the guest asks the host once for everyone.
    fn asked_to_watch_pair(&mut self, now: Millis, from: &PeerId) {
        if let Some(answer) = self.pair_watch.answer.clone() {
            if let Some(c) = self.client.as_mut() {
                c.send_peer(from, &answer);
            }
            return;
        }
        let host = self.last_opponent.clone();
        let full = self.pair_watch.asked.len() >= usize::from(lockstep::MAX_SPECTATORS);
        // The guest's own host never asks it (a player does not watch).
        if full || (!self.pair_watch.hosting && host.as_ref() == Some(from)) {
            if let Some(c) = self.client.as_mut() {
                c.send_peer(from, &PeerMsg::WatchGone);
            }
            return;
        }
        let first = self.pair_watch.asked.is_empty();
        if !self.pair_watch.asked.contains(from) {
            self.pair_watch.asked.push(from.clone());
        }
        if self.pair_watch.hosting {
            if self.party.is_none() {
                self.open_pair_room(now);
            }
        } else if let (true, Some(host), Some(c)) = (first, host, self.client.as_mut()) {
            c.send_peer(&host, &PeerMsg::Watch);
        }
    }

    /// The game a match of two streams to its spectators now: the one
    /// the slot plays (a hub switches games), else the one the match was
    /// made for.
    fn streamed_game(&self) -> Option<GameName> {
        match self.game.match_game() {
            Some(g) => GameName::parse(self.game.games().get(g)?),
            None => self.named_game(),
        }
    }

    /// Once a frame of a match of two: when the slot stops streaming what
    /// its spectators watch (a hub between games, or on another game), the
    /// way in closes: the host closes the spectators' room and links (each
    /// spectator's watch ends), the guest forgets the host's answer, and
    /// whoever asks next gets a way into what runs then.
    pub(super) fn pair_stream_check(&mut self, now: Millis) {
        let Some(then) = self.pair_watch.stream else {
            return;
        };
        if self.game.match_watchable() && self.game.match_game() == then {
            return;
        }
        log::info!("the match's spectators' stream ended (the game changed)");
        self.answer_askers(PeerMsg::WatchGone);
        let named = self
            .party
            .as_ref()
            .filter(|p| p.pair_room.is_some())
            .map_or(self.pair_watch.named, |p| p.spectator_links);
        self.pair_watch = PairWatch {
            hosting: self.pair_watch.hosting,
            named,
            ..PairWatch::default()
        };
        if let Some(p) = self.party.as_ref().filter(|p| p.pair_room.is_some()) {
            // The session forgets them too: the next spectator's link may
            // get one of their names.
            let links: Vec<lockstep::PeerId> = p.spectators.iter().map(|(_, l)| *l).collect();
            for link in links {
                self.game.party_link_lost(now, link);
            }
            self.close_party();
        }
    }

    /// The host of a match of two asks the service for its spectators'
    /// room.
    fn open_pair_room(&mut self, now: Millis) {
        self.room_gen += 1;
        let gen = self.room_gen;
        let mut p = PartySetup::new(gen);
        p.pair_room = Some(None);
        p.spectator_links = self.pair_watch.named;
        self.party = Some(p);
        // A member room needs two players at least; the second place
        // stays empty.
        let url = format!(
            "{}/rooms?players=2&spectators={}",
            self.cfg.http_base,
            lockstep::MAX_SPECTATORS
        );
        self.fetch(
            now,
            FetchId::PartyRoom(gen),
            "POST",
            url,
            ROOM_FETCH_TIMEOUT,
        );
        self.refresh_ice(now, AfterIce::Nothing);
    }

    /// Sends `answer` to every lobby player waiting to watch our match of
    /// two.
    fn answer_askers(&mut self, answer: PeerMsg) {
        let asked = std::mem::take(&mut self.pair_watch.asked);
        if let Some(c) = self.client.as_mut() {
            for id in &asked {
                c.send_peer(id, &answer);
            }
        }
    }
}
