//! A party player coming back into the running match, as the pages carry
//! it out (the rules are [`Relink`]'s; the engine takes the fresh session
//! back, see docs/engine.md, "Three players or more"):
//!
//! - **The returning page.** A guest whose link to the host is lost (its
//!   network went, say) closes its other links (its fresh session needs
//!   fresh ones to everyone) and asks the host for a way back over the
//!   lobby, as a guest of a match of two does (`rejoin`); a page reloaded
//!   mid-match does the same from its session-storage record. The host's
//!   answer (`rejoin-room`) names a comeback room; the page joins it as a
//!   player that comes back, and once its links to every other player are
//!   open its fresh session (`SessionConfig::rejoin(slot, token)`) starts
//!   over them. A failed attempt asks again.
//! - **The host** makes the comeback room (`POST /rooms?players=N`) when
//!   first asked, joins it as its host, answers every asker with its
//!   code, and tells every other player its code over their party link
//!   (hub message [`HUB_RELINK`]). It ends the room once the returning
//!   player left it, or when its time runs out.
//! - **The players who stayed** join the room they are told of as players
//!   that stay, and link to the returning player alone. Each new link
//!   replaces the one to that place (closed if it still ran), under the
//!   same link name for the session, which takes the returning player's
//!   fresh session on it.
//!
//! Links made this way are the page's `LinkId::Party(RELINK_KEY + place)`,
//! tagged with the comeback room's attempt number.

use super::{link_name, PartySetup, ATTEMPT, HUB};
use crate::id::{PeerId, RoomCode};
use crate::party::Lineup;
use crate::protocol::{GameName, PeerMsg, Signal, SignalKind};
use crate::shell::rejoin::REJOIN_WINDOW;
use crate::shell::relink::{Relink, RelinkOutput, RELINK_KEY};
use crate::shell::{FetchId, LinkId, Output, RtcEvent, Shell, SocketId, ROOM_FETCH_TIMEOUT};
use lockstep::Millis;
use signaling_protocol::members::MemberId;

/// How long a guest waits, once a new link to the host's place opened,
/// before it takes a host that stays silent on it for gone: the returning
/// host's fresh session waits for its links to every guest (up to the
/// comeback room's deadline) and then for its catch-up, and ends by
/// itself if that fails.
const HOST_RETURN_GRACE: Millis = Millis(15_000);

/// How long a guest whose session holds the host's place (the host silent
/// on a link still open) waits before it judges whose page was away: when
/// the host benched this page's slot every other player falls silent to
/// it within a round trip of the host.
const HOST_SILENCE_SETTLES: Millis = Millis(1_000);

/// Hub message: "join comeback room" (after [`HUB`]), followed by the
/// room's code. Only the host sends it.
pub(super) const HUB_RELINK: u8 = 3;

/// Hub message: "mend my link to a place" (after [`HUB`]), followed by
/// that place (a guest's): a guest whose link to another guest closed
/// while its link to the host stays sends it to the host, which opens a
/// comeback room (or tells of the one open) as for a returning page.
pub(super) const HUB_MEND: u8 = 5;

/// Hub message: "the party's host asks for a way back" (after [`HUB`]),
/// followed by the host page's lobby id: a guest asked by the host's page
/// while another guest keeps the room for it passes the ask on to that
/// guest (the host's record may name that guest's page before a reload).
pub(super) const HUB_HOST_ASKS: u8 = 6;

/// Hub message: "this is who plays at my place" (after [`HUB`]), followed
/// by the sender's lobby id: every page sends it to every other when its
/// match starts, and a returning page again on its new links, so that the
/// others can name a player who is away.
pub(super) const HUB_WHO: u8 = 4;

/// A comeback room of the running party match.
#[derive(Debug)]
pub(super) struct RelinkRoom {
    /// Its attempt number: the tag of its socket, fetch and links.
    pub(super) gen: u32,
    /// Our side of it, once we are in it (the host first makes it).
    machine: Option<Relink>,
    /// Its code, once the service made it.
    code: Option<RoomCode>,
    /// On the host: the lobby players who asked for a way back before
    /// there was a code to send.
    askers: Vec<PeerId>,
}

impl RelinkRoom {
    /// Whether it is made, or being made, and we are not done with it.
    fn live(&self) -> bool {
        self.machine.as_ref().is_none_or(|m| !m.over())
    }
}

/// The party link key of the comeback link to `place`.
fn key(place: u8) -> u8 {
    RELINK_KEY.saturating_add(place)
}

impl Shell {
    /// The party's running match, on this page: its setup.
    fn running_party(&self) -> Option<&PartySetup> {
        self.party
            .as_ref()
            .filter(|p| p.lineup.is_some() && !p.watching() && p.pair_room.is_none() && !p.ended)
    }

    /// Host: `from` asks for a way back into the party's match. The
    /// comeback room's code goes to it once there is one.
    pub(in crate::shell) fn party_way_back(&mut self, now: Millis, from: &PeerId) {
        if !self.open_relink(now, Some(from)) {
            if let Some(c) = self.client.as_mut() {
                c.send_peer(from, &PeerMsg::RejoinGone);
            }
        }
    }

    /// Host: the guest at `from_place` lost its link to the guest at
    /// `place` (hub message [`HUB_MEND`]): a comeback room mends it.
    pub(super) fn mend_asked(&mut self, now: Millis, from_place: u8, place: &[u8]) {
        let host = self.running_party().map_or(0, |p| p.host_place);
        let people = self
            .running_party()
            .and_then(|p| p.lineup.as_ref())
            .filter(|l| l.place == host)
            .map_or(0, |l| l.sides.len());
        let fits = |q: u8| q != 0 && q != host && usize::from(q) < people;
        match *place {
            [q] if fits(q) && fits(from_place) && q != from_place => {
                log::info!("a party guest lost its link to another; mending it");
                self.open_relink(now, None);
            }
            _ => log::warn!("party: dropped a malformed mend message"),
        }
    }

    /// Host (or the guest that keeps the room for a host coming back, see
    /// [`Shell::keeps_for_host`]): opens a comeback room, or tells of the
    /// one open: to `asker` (a lobby player asking for a way back), if
    /// any, and to every player still in the match. `false` if no party
    /// match of ours runs.
    fn open_relink(&mut self, now: Millis, asker: Option<&PeerId>) -> bool {
        let keeps = self.keeps_for_host();
        let Some(people) = self
            .running_party()
            .and_then(|p| p.lineup.as_ref())
            .filter(|l| l.place == 0 || keeps)
            .map(|l| l.sides.len())
        else {
            return false;
        };
        let Some(p) = self.party.as_mut() else {
            return false;
        };
        // A room this page only stays in (the host's, which may be gone
        // with its page) is no way back for anyone: a room of ours
        // replaces it.
        let ours = |r: &RelinkRoom| r.live() && r.machine.as_ref().is_none_or(Relink::keeps);
        if let Some(r) = p.relink.as_mut().filter(|r| ours(r)) {
            match (r.code.clone(), asker) {
                (Some(code), _) => {
                    if let (Some(c), Some(from)) = (self.client.as_mut(), asker) {
                        c.send_peer(from, &PeerMsg::RejoinRoom(code.clone()));
                    }
                    // Asked again: a player who stayed may have left the
                    // room meanwhile (its time ran out), so all are told
                    // again (one still in it takes no notice).
                    self.tell_relink(&code);
                }
                (None, Some(from)) if !r.askers.contains(from) => r.askers.push(from.clone()),
                (None, _) => {}
            }
            return true;
        }
        log::info!("a party player asks for a way back into the match; making a room");
        self.close_relink(now);
        self.room_gen += 1;
        let gen = self.room_gen;
        if let Some(p) = self.party.as_mut() {
            p.relink = Some(RelinkRoom {
                gen,
                machine: None,
                code: None,
                askers: asker.into_iter().cloned().collect(),
            });
        }
        let url = format!("{}/rooms?players={people}&spectators=0", self.cfg.http_base);
        self.fetch(
            now,
            FetchId::PartyRoom(gen),
            "POST",
            url,
            ROOM_FETCH_TIMEOUT,
        );
        self.refresh_ice(now, super::super::AfterIce::Nothing);
        true
    }

    /// The answer to a comeback room's `POST /rooms`; `false` if `gen` is
    /// not a comeback room's.
    pub(super) fn relink_room_fetched(
        &mut self,
        now: Millis,
        gen: u32,
        code: Option<RoomCode>,
    ) -> bool {
        let Some(p) = self.party.as_mut() else {
            return false;
        };
        let Some(r) = p.relink.as_mut().filter(|r| r.gen == gen) else {
            return false;
        };
        let Some(code) = code else {
            // The askers ask again on their timer.
            log::info!("no comeback room could be made");
            p.relink = None;
            return true;
        };
        let (place, people) = p
            .lineup
            .as_ref()
            .map_or((0, 0), |l| (l.place, l.sides.len()));
        let people = u8::try_from(people).unwrap_or(u8::MAX);
        r.code = Some(code.clone());
        let machine = Relink::new(place, people, false, now + REJOIN_WINDOW).keeping();
        r.machine = Some(if self.cfg.force_relay {
            machine.relay_at_once()
        } else {
            machine
        });
        let askers = std::mem::take(&mut r.askers);
        self.refresh_live();
        let url = format!("{}/rooms/{code}/ws?role=host", self.cfg.ws_base);
        self.out.push_back(Output::OpenSocket {
            id: SocketId::Party(gen),
            url,
        });
        if let Some(c) = self.client.as_mut() {
            for a in &askers {
                c.send_peer(a, &PeerMsg::RejoinRoom(code.clone()));
            }
        }
        self.tell_relink(&code);
        true
    }

    /// The room's keeper: tells every player still in the match (every
    /// one it reaches) to come into comeback room `code`.
    fn tell_relink(&mut self, code: &RoomCode) {
        let mut bytes = vec![HUB, HUB_RELINK];
        bytes.extend_from_slice(code.as_str().as_bytes());
        let links: Vec<MemberId> = self
            .party
            .as_ref()
            .map(|p| {
                p.links
                    .iter()
                    .filter(|(_, q)| !p.down.contains(q))
                    .map(|(m, _)| *m)
                    .collect()
            })
            .unwrap_or_default();
        for m in links {
            self.out.push_back(Output::SendPeer {
                link: LinkId::Party(m.0),
                channel: lockstep::Channel::Reliable,
                bytes: bytes.clone(),
            });
        }
    }

    /// The room's keeper: its hellos list the places whose links are up.
    pub(super) fn refresh_live(&mut self) {
        let Some(p) = self.party.as_mut() else {
            return;
        };
        let keeps = p
            .relink
            .as_ref()
            .and_then(|r| r.machine.as_ref())
            .is_some_and(Relink::keeps);
        if p.lineup.as_ref().is_none_or(|l| l.place != 0) && !keeps {
            return;
        }
        let live: Vec<u8> = p
            .links
            .iter()
            .map(|(_, q)| *q)
            .filter(|q| !p.down.contains(q))
            .collect();
        if let Some(m) = p.relink.as_mut().and_then(|r| r.machine.as_mut()) {
            m.set_live(live);
        }
    }

    /// A player who stayed: the host says a comeback room is open (or,
    /// while the host is away, the guest that keeps the room for its
    /// return: a lower place than ours).
    pub(super) fn relink_told(&mut self, now: Millis, from_place: u8, code: &[u8]) {
        let code = std::str::from_utf8(code).ok().and_then(RoomCode::parse);
        let host_away = self
            .running_party()
            .is_some_and(|p| p.down.contains(&0) || self.match_view.host_held);
        let mine = self
            .running_party()
            .and_then(|p| p.lineup.as_ref())
            .map_or(0, |l| l.place);
        // The host's page back on new links whose match is not back yet
        // (its fresh session waits for the guests' word) stays in a room
        // a guest keeps for another player coming back.
        let host_returning = mine == 0
            && self.match_view.rejoined.is_none()
            && self.match_view.status == crate::shell::rejoin::RECONNECTING
            && self.running_party().is_some();
        let moved_host = self
            .running_party()
            .is_some_and(|p| p.host_place != 0 && p.host_place == from_place);
        let keeper_ok =
            from_place == 0 || moved_host || host_returning || (host_away && from_place < mine);
        let Some(code) = code.filter(|_| keeper_ok) else {
            log::warn!("party: dropped a malformed comeback room message");
            return;
        };
        let running = self.game.match_tag().is_some()
            && self
                .running_party()
                .is_some_and(|p| self.game.match_tag() == Some(p.gen));
        let Some(lineup) = self
            .running_party()
            .and_then(|p| p.lineup.clone())
            .filter(|l| running && (l.place != 0 || host_returning))
        else {
            return;
        };
        let same = self
            .party
            .as_ref()
            .and_then(|p| p.relink.as_ref())
            .is_some_and(|r| r.live() && r.code.as_ref() == Some(&code));
        if same {
            return;
        }
        if from_place != 0 && self.comeback.reconnecting() {
            // The host's page is back, through this room: no more asking
            // its old one.
            log::info!("party: the host comes back through a guest's room");
            self.stop_asking();
        }
        let deadline = now + self.cfg.lobby.party.connect_timeout;
        self.join_relink(now, code, &lineup, false, deadline);
    }

    /// Joins comeback room `code` as a player of `lineup`'s place (`back`:
    /// the returning page).
    fn join_relink(
        &mut self,
        now: Millis,
        code: RoomCode,
        lineup: &Lineup,
        back: bool,
        deadline: Millis,
    ) {
        self.close_relink(now);
        self.room_gen += 1;
        let gen = self.room_gen;
        let people = u8::try_from(lineup.sides.len()).unwrap_or(u8::MAX);
        let url = format!("{}/rooms/{code}/ws?role=player", self.cfg.ws_base);
        let Some(p) = self.party.as_mut() else {
            return;
        };
        let mut machine = Relink::new(lineup.place, people, back, deadline);
        if self.cfg.force_relay {
            machine = machine.relay_at_once();
        }
        if !back && lineup.place != 0 {
            // A link to the host's place is not mended: the host's page
            // comes back (a guest back while it was away meets it then).
            machine.set_mend(p.down.iter().copied().filter(|q| *q != 0).collect());
        }
        p.relink = Some(RelinkRoom {
            gen,
            machine: Some(machine),
            code: Some(code),
            askers: Vec::new(),
        });
        self.out.push_back(Output::OpenSocket {
            id: SocketId::Party(gen),
            url,
        });
        self.refresh_ice(now, super::super::AfterIce::Nothing);
    }

    /// The returning page: the host's answer names comeback room `code`,
    /// for our `place` of `people`; `host` is the party host's lobby id.
    /// A reloaded page has no party any more: it makes one for the match
    /// of `game` (its record's).
    pub(in crate::shell) fn party_rejoin_room(
        &mut self,
        now: Millis,
        code: RoomCode,
        place: u8,
        people: u8,
        host: PeerId,
        game: Option<&str>,
    ) {
        if self
            .party
            .as_ref()
            .and_then(|p| p.relink.as_ref())
            .is_some_and(RelinkRoom::live)
        {
            log::debug!("a comeback room while one is being joined; ignored");
            return;
        }
        if self.party.is_none() {
            // A reloaded page: the party is this comeback from here on,
            // on the game its match plays.
            let game = game.and_then(GameName::parse);
            self.open_named(game.as_ref());
            self.room_gen += 1;
            let mut p = PartySetup::new(self.room_gen);
            // The party's host coming back is its own host.
            p.host = (place != 0).then_some(host);
            p.lineup = Some(Lineup {
                game,
                room: code.clone(),
                place,
                sides: vec![0; usize::from(people)],
            });
            self.party = Some(p);
        }
        let Some(lineup) = self.party.as_ref().and_then(|p| p.lineup.clone()) else {
            return;
        };
        let deadline = now + self.cfg.lobby.party.connect_timeout;
        self.join_relink(now, code, &lineup, true, deadline);
    }

    /// A guest's link to another guest is lost while its link to the
    /// host stays: the page asks the host to mend the ones it lost.
    pub(super) fn ask_mend(&mut self) {
        let Some(p) = self.running_party() else {
            return;
        };
        // The host is at place 0, or where its place moved (place 0 is
        // then gone for good: nobody mends a link to it).
        let host = p.host_place;
        let host_up = p.links.iter().any(|(_, q)| *q == host) && !p.down.contains(&host);
        let lost = p.down.iter().copied().find(|q| *q != 0 && *q != host);
        let (Some(q), true) = (lost, host_up && self.game.match_tag() == Some(p.gen)) else {
            return;
        };
        if p.lineup.as_ref().is_none_or(|l| l.place == host) || self.comeback.reconnecting() {
            return;
        }
        let Some(&(m, _)) = p.links.iter().find(|(_, q)| *q == host) else {
            return;
        };
        self.out.push_back(Output::SendPeer {
            link: LinkId::Party(m.0),
            channel: lockstep::Channel::Reliable,
            bytes: vec![HUB, HUB_MEND, q],
        });
    }

    /// Whether the returning page is in a comeback room now.
    pub(in crate::shell) fn party_relinking(&self) -> bool {
        self.party
            .as_ref()
            .and_then(|p| p.relink.as_ref())
            .is_some_and(RelinkRoom::live)
    }

    /// On a guest's page of a party's running match: the lobby id of the
    /// page that hosts it, while its link to that page is up and the
    /// session hears it.
    pub(in crate::shell) fn party_host_here(&self) -> Option<PeerId> {
        let p = self.running_party()?;
        let host = p.host_place;
        let up = p.links.iter().any(|(_, q)| *q == host) && !p.down.contains(&host);
        let me = p.lineup.as_ref()?.place;
        (up && me != host && !self.match_view.host_held)
            .then(|| p.host.clone())
            .flatten()
    }

    /// The party host's lobby id, on a guest's page of a party's match.
    pub(in crate::shell) fn party_host(&self) -> Option<(PeerId, u8)> {
        let p = self.running_party()?;
        let people = u8::try_from(p.lineup.as_ref()?.sides.len()).ok()?;
        Some((p.host.clone()?, people))
    }

    /// A guest, once a frame: its session holds the host's slot although
    /// the link to the host is still open. The host went silent to it,
    /// for one of two reasons, told apart by the other players:
    ///
    /// - The host's page is gone or stuck (a closed tab's connections
    ///   can look open for many seconds after it went): the other guests
    ///   still speak. The page keeps its session (which holds the host's
    ///   place) and its links, as for a closed link to the host while the
    ///   others are reached, and asks the host's page too.
    /// - Ours was stuck (or sent nothing) long enough for the host to
    ///   bench our slot, after which every player forgets our session
    ///   and sends it nothing; only a fresh session gets the slot back.
    ///   Every other player falls silent within a round trip of the host,
    ///   so once [`HOST_SILENCE_SETTLES`] passed with every other slot held
    ///   too, the page comes back as for a lost link, once per match: a
    ///   page that keeps its links but sends no inputs would otherwise
    ///   come back over and over.
    pub(in crate::shell) fn party_host_silent(&mut self, now: Millis) {
        let held = self.match_view.host_held;
        let held_slots = self.match_view.held_slots;
        let Some(p) = self.party.as_mut() else {
            return;
        };
        if !held {
            p.host_silent_since = None;
            return;
        }
        let since = *p.host_silent_since.get_or_insert(now);
        let Some(p) = self.running_party() else {
            return;
        };
        let host_up = p.links.iter().any(|(_, q)| *q == 0) && !p.down.contains(&0);
        // A host coming back on a new link is silent until its fresh
        // session took the match back (it waits for its links to every
        // guest, then for the acting guest's catch-up).
        let returning = p
            .host_relinked_at
            .is_some_and(|at| now < at + HOST_RETURN_GRACE);
        if p.back_for_silence
            || !host_up
            || returning
            || now < since + HOST_SILENCE_SETTLES
            || self.game.match_tag() != Some(p.gen)
        {
            return;
        }
        let heard = |q: u8| {
            1u8.checked_shl(u32::from(q))
                .is_some_and(|b| held_slots & b == 0)
        };
        let others_heard = p
            .links
            .iter()
            .any(|(_, q)| *q != 0 && !p.down.contains(q) && heard(*q));
        let keeps = others_heard && p.host_place == 0 && self.game.host_rejoins();
        let host = p.host.clone();
        let people = p
            .lineup
            .as_ref()
            .and_then(|l| u8::try_from(l.sides.len()).ok());
        if let Some(p) = self.party.as_mut() {
            p.back_for_silence = true;
        }
        if let (true, Some(host), Some(people)) = (keeps, host, people) {
            log::info!("party: the host is silent on an open link while the others speak; holding its place");
            self.party_link_to_host_lost(now, host, people, true);
            return;
        }
        log::info!("party: the host is silent on an open link; coming back on new links");
        self.party_host_lost(now);
    }

    /// A guest's link to the party's host was lost while the match runs:
    /// the page comes back on fresh links to everyone.
    pub(in crate::shell) fn party_host_lost(&mut self, now: Millis) {
        let Some((host, people)) = self.party_host() else {
            return;
        };
        let Some(p) = self.party.as_mut() else {
            return;
        };
        // Only a guest whose session can take its slot back does (it has
        // the host's token); otherwise the match ends as the session says.
        let can = self
            .game
            .match_identity()
            .is_some_and(|id| id.side != 0 && id.token.is_some());
        if !can || self.game.match_tag() != Some(p.gen) || self.comeback.reconnecting() {
            return;
        }
        // Closed while this page still reaches another guest: the host's
        // page is likelier the one away (reloaded), and may come back. The
        // page keeps its session (which holds the host's place) and its
        // links, and asks the host's page too, in case this link alone
        // failed.
        // A host's place that moved to a guest does not come back after a
        // reload (that page keeps no record), so it is not waited for.
        let reach_guests = p.links.iter().any(|(_, q)| *q != 0 && !p.down.contains(q));
        let moved = p.host_place != 0;
        if !moved && p.down.contains(&0) && reach_guests && self.game.host_rejoins() {
            self.party_link_to_host_lost(now, host, people, true);
            return;
        }
        let links = p.links.clone();
        for (m, place) in links {
            self.out.push_back(Output::ClosePeer(LinkId::Party(m.0)));
            if place != 0 {
                self.game.party_link_lost(now, link_name(place));
            }
        }
        self.party_link_to_host_lost(now, host, people, false);
    }

    /// A frame on a comeback room's socket; `false` if `gen` is not one.
    pub(super) fn relink_socket_text(&mut self, gen: u32, text: &str) -> bool {
        match self.relink_machine(gen) {
            Some(m) => {
                m.room_text(text);
                true
            }
            None => false,
        }
    }

    /// A comeback room's socket closed; `false` if `gen` is not one.
    pub(super) fn relink_socket_closed(&mut self, gen: u32) -> bool {
        match self.relink_machine(gen) {
            Some(m) => {
                m.room_closed();
                true
            }
            None => false,
        }
    }

    fn relink_machine(&mut self, gen: u32) -> Option<&mut Relink> {
        self.party
            .as_mut()?
            .relink
            .as_mut()
            .filter(|r| r.gen == gen)?
            .machine
            .as_mut()
    }

    /// Time passed: the comeback room's deadline.
    pub(super) fn relink_tick(&mut self, now: Millis) {
        if let Some(m) = self
            .party
            .as_mut()
            .and_then(|p| p.relink.as_mut())
            .and_then(|r| r.machine.as_mut())
        {
            m.tick(now);
        }
    }

    /// An event of a comeback link being made (`key` not yet the match's);
    /// `false` if it is no link of the comeback room of attempt `tag`.
    pub(super) fn relink_rtc(&mut self, key: u8, tag: u32, event: RtcEvent) -> bool {
        let Some(place) = key.checked_sub(RELINK_KEY) else {
            return false;
        };
        let Some(p) = self.party.as_mut() else {
            return false;
        };
        let Some(m) = p
            .relink
            .as_mut()
            .filter(|r| r.gen == tag)
            .and_then(|r| r.machine.as_mut())
        else {
            return false;
        };
        let signal = |kind| Signal {
            attempt: ATTEMPT,
            kind,
        };
        match event {
            RtcEvent::Offer(Some(sdp)) => m.local_signal(place, &signal(SignalKind::Offer(sdp))),
            RtcEvent::Answer(Some(sdp)) => {
                m.local_signal(place, &signal(SignalKind::Answer(sdp)));
            }
            RtcEvent::Candidate(c) => {
                m.local_signal(place, &super::super::room::candidate_signal(c, ATTEMPT));
            }
            RtcEvent::Open => m.link_opened(place),
            RtcEvent::Closed => m.link_lost(place),
            // The returning page's match starts once every link is open:
            // what comes before is kept for it.
            RtcEvent::Data(channel, bytes) if p.early.len() < super::EARLY_KEPT => {
                p.early.push((MemberId(key), channel, bytes));
            }
            _ => {}
        }
        true
    }

    /// The link to `place` is no longer the match's: a comeback link
    /// takes its place (closed if it still ran, and lost to the session).
    fn retire_link(&mut self, now: Millis, place: u8) {
        let Some(p) = self.party.as_mut() else {
            return;
        };
        let Some(i) = p.links.iter().position(|(_, q)| *q == place) else {
            return;
        };
        let (m, _) = p.links.remove(i);
        p.link_tags.remove(&m.0);
        p.relayed.remove(&m.0);
        let running = self.game.match_tag() == Some(p.gen);
        if m.0 != key(place) {
            self.out.push_back(Output::ClosePeer(LinkId::Party(m.0)));
        }
        if running {
            self.game.party_link_lost(now, link_name(place));
        }
    }

    /// Whether the comeback room's link to `place` goes through the relay.
    fn relink_relayed(&self, place: u8) -> bool {
        self.party
            .as_ref()
            .and_then(|p| p.relink.as_ref()?.machine.as_ref())
            .is_some_and(|m| m.relayed(place))
    }

    /// The code of the comeback room of attempt `tag`, while it is open.
    pub(in crate::shell) fn relink_code(&self, tag: u32) -> Option<RoomCode> {
        let r = self.party.as_ref()?.relink.as_ref()?;
        r.code.clone().filter(|_| r.gen == tag)
    }

    /// Carries out the comeback room's outputs; `true` if there were any.
    pub(super) fn drain_relink(&mut self, now: Millis) -> bool {
        let mut any = false;
        loop {
            let Some((gen, back, o)) = self.party.as_mut().and_then(|p| {
                let r = p.relink.as_mut()?;
                let m = r.machine.as_mut()?;
                let back = m.back();
                m.poll().map(|o| (r.gen, back, o))
            }) else {
                return any;
            };
            any = true;
            match o {
                RelinkOutput::ToRoom(text) => self.out.push_back(Output::SendSocket {
                    id: SocketId::Party(gen),
                    text,
                }),
                RelinkOutput::Offer(place) => {
                    self.retire_link(now, place);
                    self.offer_on(LinkId::Party(key(place)), gen);
                }
                RelinkOutput::Remote { place, signal } => {
                    if matches!(signal.kind, SignalKind::Offer(_)) {
                        self.retire_link(now, place);
                    }
                    self.remote_signal(LinkId::Party(key(place)), gen, signal.kind);
                }
                RelinkOutput::OpenRelay { place, ticket } => {
                    // The link replaces the one to that place (a relay
                    // asked at once made no offer that would have).
                    self.retire_link(now, place);
                    let room = self
                        .party
                        .as_ref()
                        .and_then(|p| p.relink.as_ref()?.code.clone());
                    if let Some(room) = room {
                        let path = signaling_protocol::relay_path(&room, &ticket);
                        self.out.push_back(Output::OpenRelay {
                            link: LinkId::Party(key(place)),
                            tag: gen,
                            url: format!("{}{path}", self.cfg.ws_base),
                        });
                    }
                }
                RelinkOutput::ClosePeer(place) => {
                    self.out
                        .push_back(Output::ClosePeer(LinkId::Party(key(place))));
                    if !back {
                        // What came on it before it opened goes with it.
                        if let Some(p) = self.party.as_mut() {
                            p.early.retain(|(m, _, _)| m.0 != key(place));
                        }
                    }
                }
                // The returning page's links become the match's all at
                // once, with its fresh session (its old one runs until
                // then).
                RelinkOutput::Opened(_) if back => {}
                RelinkOutput::Opened(place) => {
                    log::info!("party: a returning player's new link is open");
                    if place == 0 {
                        if let Some(p) = self.party.as_mut() {
                            p.host_relinked_at = Some(now);
                        }
                    }
                    self.send_who(&[key(place)]);
                    let relayed = self.relink_relayed(place);
                    if let Some(p) = self.party.as_mut() {
                        p.links.retain(|(_, q)| *q != place);
                        p.links.push((MemberId(key(place)), place));
                        p.links.sort_by_key(|(_, q)| *q);
                        p.link_tags.insert(key(place), gen);
                        p.down.remove(&place);
                        if relayed {
                            p.relayed.insert(key(place));
                        }
                    }
                    self.refresh_live();
                    self.match_view.path = Some(super::party_path(self.party.as_ref()));
                    self.render(super::super::Part::Match);
                    // What came on it before we heard it open (the other
                    // end may open first, and send at once: its name, its
                    // fresh session's claim) is the match's now, in order.
                    let came: Vec<_> = self
                        .party
                        .as_mut()
                        .map(|p| {
                            let (came, rest) = std::mem::take(&mut p.early)
                                .into_iter()
                                .partition(|(m, _, _)| m.0 == key(place));
                            p.early = rest;
                            came
                        })
                        .unwrap_or_default();
                    for (_, channel, bytes) in came {
                        self.early_datagram(now, place, channel, &bytes);
                    }
                    self.send_match_transmits();
                }
                RelinkOutput::Ready => {
                    log::info!("party: every link for coming back is open");
                    let (me, people) = self
                        .party
                        .as_ref()
                        .and_then(|p| p.lineup.as_ref())
                        .map_or((0, 0), |l| (l.place, l.sides.len()));
                    let people = u8::try_from(people).unwrap_or(u8::MAX);
                    let relayed: std::collections::BTreeSet<u8> = (0..people)
                        .filter(|q| self.relink_relayed(*q))
                        .map(key)
                        .collect();
                    let open = self
                        .party
                        .as_ref()
                        .and_then(|p| p.relink.as_ref()?.machine.as_ref())
                        .map(Relink::open_places)
                        .unwrap_or_default();
                    if let Some(p) = self.party.as_mut() {
                        // A player away too (the host's page reloading,
                        // say) has no link yet: its place is down until
                        // it comes back on one (its fresh session meets
                        // ours there).
                        p.links = (0..people)
                            .filter(|q| *q != me && open.contains(q))
                            .map(|q| (MemberId(key(q)), q))
                            .collect();
                        p.link_tags = p.links.iter().map(|(m, _)| (m.0, gen)).collect();
                        p.down = (0..people)
                            .filter(|q| *q != me && !open.contains(q))
                            .collect();
                        p.relayed = relayed;
                    }
                    self.party_back_ready(now);
                    let keys: Vec<u8> = self
                        .party
                        .as_ref()
                        .map(|p| p.links.iter().map(|(m, _)| m.0).collect())
                        .unwrap_or_default();
                    self.send_who(&keys);
                }
                RelinkOutput::CloseRoom => {
                    self.out
                        .push_back(Output::CloseSocket(SocketId::Party(gen)));
                }
                RelinkOutput::Failed if back => {
                    // The page asks the host again on its timer.
                    log::info!("party: the links for coming back could not be made");
                }
                RelinkOutput::Failed => {
                    log::info!("party: a lost link could not be made again; asking again");
                    self.ask_mend();
                }
                RelinkOutput::Mended => log::info!("party: the lost links are made again"),
            }
        }
    }

    /// Leaves the comeback room, if one is open (its links that opened
    /// stay the match's).
    pub(super) fn close_relink(&mut self, now: Millis) {
        let Some(r) = self.party.as_mut().and_then(|p| p.relink.as_mut()) else {
            return;
        };
        let gen = r.gen;
        if let Some(m) = r.machine.as_mut() {
            m.close();
        }
        self.drain_relink(now);
        self.out
            .push_back(Output::CloseSocket(SocketId::Party(gen)));
        if let Some(p) = self.party.as_mut() {
            p.relink = None;
        }
    }

    /// The link names of the match's links, in place order.
    pub(in crate::shell) fn party_link_names(&self) -> Vec<lockstep::PeerId> {
        self.party
            .as_ref()
            .map(|p| p.links.iter().map(|(_, q)| link_name(*q)).collect())
            .unwrap_or_default()
    }

    /// The returning page's fresh session has started over its links:
    /// what came on them before is its.
    pub(in crate::shell) fn party_back_started(&mut self, now: Millis) {
        let Some(p) = self.party.as_mut() else {
            return;
        };
        let early = std::mem::take(&mut p.early);
        let links = p.links.clone();
        for (member, channel, bytes) in early {
            if let Some(&(_, place)) = links.iter().find(|(m, _)| *m == member) {
                self.early_datagram(now, place, channel, &bytes);
            }
        }
        self.send_match_transmits();
    }

    /// Sends our lobby id to the players on the party links `keys`.
    pub(super) fn send_who(&mut self, keys: &[u8]) {
        let Some(me) = self.client.as_ref().and_then(|c| c.me().cloned()) else {
            return;
        };
        let mut bytes = vec![HUB, HUB_WHO];
        bytes.extend_from_slice(me.as_str().as_bytes());
        for &k in keys {
            self.out.push_back(Output::SendPeer {
                link: LinkId::Party(k),
                channel: lockstep::Channel::Reliable,
                bytes: bytes.clone(),
            });
        }
    }

    /// The player at `place` says who it is: its lobby id, whose name the
    /// page keeps (the player may leave the roster while it is away).
    pub(super) fn who_told(&mut self, place: u8, id: &[u8]) {
        let id = std::str::from_utf8(id).ok().and_then(PeerId::parse);
        let Some(id) = id else {
            log::warn!("party: dropped a malformed name message");
            return;
        };
        let nick = self
            .client
            .as_ref()
            .and_then(|c| c.player(&id))
            .map(|p| p.nick.clone());
        let Some(p) = self.party.as_mut() else {
            return;
        };
        if let Some(nick) = nick {
            p.names.insert(place, nick);
        }
        // The host's page says who it is again when it comes back after a
        // reload, under a new lobby id: the one its guests ask from then.
        if place == 0 && p.lineup.as_ref().is_some_and(|l| l.place != 0) {
            p.host = Some(id.clone());
        }
        p.ids.insert(place, id);
        // The host's record names its guests' pages: kept up to date at
        // once (its page may be reloaded any moment).
        self.record_soon();
    }

    /// A guest asked by the party's host page (`host`, its new lobby id)
    /// while another guest keeps the room for it: passes the ask on to
    /// the keeper, the lowest place it still reaches.
    pub(in crate::shell) fn pass_host_ask(&mut self, host: &PeerId) {
        let Some(p) = self.running_party() else {
            return;
        };
        let keeper = p
            .links
            .iter()
            .filter(|(_, q)| *q != 0 && !p.down.contains(q))
            .min_by_key(|(_, q)| *q)
            .map(|(m, _)| *m);
        let Some(m) = keeper else {
            return;
        };
        let mut bytes = vec![HUB, HUB_HOST_ASKS];
        bytes.extend_from_slice(host.as_str().as_bytes());
        self.out.push_back(Output::SendPeer {
            link: LinkId::Party(m.0),
            channel: lockstep::Channel::Reliable,
            bytes,
        });
    }

    /// The guest at `from_place` passes on the party's host's ask (hub
    /// message [`HUB_HOST_ASKS`]): the keeper makes the room, as if asked.
    pub(super) fn host_ask_passed(&mut self, now: Millis, from_place: u8, id: &[u8]) {
        let id = std::str::from_utf8(id).ok().and_then(PeerId::parse);
        let Some(id) = id.filter(|_| from_place != 0) else {
            log::warn!("party: dropped a malformed passed-on ask");
            return;
        };
        if !self.keeps_for_host() {
            log::info!(
                "party: a passed-on ask from the host, but this page does not keep its room"
            );
            return;
        }
        log::info!("a party player asks for a way back through another guest; making a room");
        self.stop_asking();
        self.party_way_back(now, &id);
    }

    /// On the party host's page, once every guest said who it is: the
    /// guests to ask for a way back after a reload (the first, with its
    /// place, and the others), and how many play.
    pub(in crate::shell) fn party_guests_to_ask(&self) -> Option<(u8, Vec<PeerId>, u8)> {
        let p = self.running_party()?;
        let lineup = p.lineup.as_ref().filter(|l| l.place == 0)?;
        let people = u8::try_from(lineup.sides.len()).ok()?;
        let guests: Vec<(u8, PeerId)> = p
            .ids
            .iter()
            .filter(|(q, _)| **q != 0)
            .map(|(q, id)| (*q, id.clone()))
            .collect();
        let first = guests.first()?.0;
        (guests.len() + 1 == usize::from(people)).then(|| {
            (
                first,
                guests.into_iter().map(|(_, id)| id).collect(),
                people,
            )
        })
    }

    /// On a party guest's page: the lobby ids of the other guests (not
    /// `me`), as they said them, in place order.
    pub(in crate::shell) fn party_guests_besides(&self, me: u8) -> Vec<PeerId> {
        self.running_party()
            .map(|p| {
                p.ids
                    .iter()
                    .filter(|(q, _)| **q != 0 && **q != me && **q != p.host_place)
                    .map(|(_, id)| id.clone())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// A guest's page whose link to the party's host is down while the
    /// match runs, and whose place is the lowest of the guests it still
    /// reaches (itself included): the page that takes the host's page
    /// back if it comes back after a reload (it makes the comeback room).
    /// Every guest decides alone, from the links it sees; two that decide
    /// differently make two rooms, and the host takes the first answer.
    pub(in crate::shell) fn keeps_for_host(&self) -> bool {
        let Some(p) = self.running_party() else {
            return false;
        };
        let Some(me) = p.lineup.as_ref().map(|l| l.place).filter(|q| *q != 0) else {
            return false;
        };
        let host_away = p.down.contains(&0)
            || !p.links.iter().any(|(_, q)| *q == 0)
            || self.match_view.host_held;
        let lowest = p
            .links
            .iter()
            .map(|(_, q)| *q)
            .filter(|q| *q != 0 && !p.down.contains(q))
            .chain(std::iter::once(me))
            .min();
        (host_away && lowest == Some(me)) || p.host_place == me
    }

    /// Whether `outcome` ends the fresh session of a party host's page
    /// that came back (a party of three or more) because its slot is no
    /// longer held: the host's place moved to a guest meanwhile and the
    /// match went on without it (docs/engine.md, "A host that never
    /// comes back").
    pub(in crate::shell) fn party_host_back_refused(&self, outcome: &lockstep::Outcome) -> bool {
        let refused = matches!(
            outcome,
            lockstep::Outcome::RejoinRefused {
                why: lockstep::RejoinRefusal::SlotNotHeld
            }
        );
        refused
            && self
                .party
                .as_ref()
                .and_then(|p| p.lineup.as_ref())
                .is_some_and(|l| l.place == 0 && l.sides.len() >= 3)
    }

    /// Whether the host's place of the running party match moved to this
    /// page's place.
    pub(in crate::shell) fn party_hosts_moved_here(&self) -> bool {
        self.running_party().is_some_and(|p| {
            p.host_place != 0 && p.lineup.as_ref().is_some_and(|l| l.place == p.host_place)
        })
    }

    /// Once a frame: when the match's session says the host's place moved
    /// to a guest (the old host's page never came back), the page follows
    /// it. A guest asks the new host's page for a way back from now on
    /// (its record names it); the new host's page keeps the comeback room
    /// for any guest that comes back (see [`Shell::keeps_for_host`]), as
    /// the party's host did. Neither asks the old host's page any more.
    pub(in crate::shell) fn party_host_moved(&mut self) {
        let Some(k) = self.match_view.host.filter(|h| *h != 0) else {
            return;
        };
        let Some(p) = self.running_party() else {
            return;
        };
        if p.host_place == k || self.game.match_tag() != Some(p.gen) {
            return;
        }
        let me = p.lineup.as_ref().map_or(0, |l| l.place);
        let id = p.ids.get(&k).cloned();
        if let Some(p) = self.party.as_mut() {
            p.host_place = k;
            p.host = if k == me { None } else { id.or(p.host.take()) };
        }
        log::info!("party: the host's place moved to another player's page");
        self.stop_asking_old_host();
        self.record_soon();
    }

    /// The name of the party player who plays slot `slot` (a party's
    /// place is its slot), when it said who it is.
    pub(in crate::shell) fn party_name(&self, slot: u8) -> Option<String> {
        self.running_party()?.names.get(&slot).cloned()
    }

    /// The name of the game the party's match plays: the one its
    /// invitation named, else the page's first.
    pub(in crate::shell) fn party_game_name(&self) -> String {
        let named = self
            .party
            .as_ref()
            .and_then(|p| p.lineup.as_ref())
            .and_then(|l| l.game.as_ref())
            .map(|g| g.as_str().to_owned());
        named
            .or_else(|| self.game.games().first().map(|g| (*g).to_owned()))
            .unwrap_or_else(|| self.game.name().to_owned())
    }

    /// The tag the running party match's session carries.
    pub(in crate::shell) fn party_gen(&self) -> Option<u32> {
        self.party.as_ref().map(|p| p.gen)
    }
}
