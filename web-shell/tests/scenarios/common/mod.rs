//! A world for shells: pages that carry out their shells' outputs against
//! an in-memory signalling service and in-memory peer connections, in
//! virtual time. What a browser and the service would do, no more: the
//! service keeps a roster and relays, rooms pair a host and a guest, and a
//! peer connection opens once an offer and its answer have been applied
//! (unless a page has no direct path), and a room's relay pairs the two
//! pages that opened it with their tickets and passes datagrams between
//! them.

#![allow(dead_code)]

use lockstep::Millis;
use serde_json::{json, Value};
use std::collections::{BTreeMap, VecDeque};
use web_shell::id::PeerId;
use web_shell::screens::Screen;
use web_shell::shell::{
    Action, FetchId, FileLink, Input, LinkId, Output, PageFacts, PlayerAction, Random, RtcEvent,
    SdpStep, Shell, ShellConfig, SocketId, FRAME_TIMER_MS, TICK_EVERY_MS,
};
use web_shell::testing::TestDotsFrontEnd;

pub mod rng;

use rng::Rng;

/// What a test page knows at start-up: served by the service at its own
/// origin, in a browser with WebRTC and secure randomness, at an address
/// whose query is `search` (test timer options).
pub fn facts(search: &str) -> PageFacts {
    PageFacts {
        search: search.to_owned(),
        origin: "http://service.test".into(),
        has_webrtc: true,
        has_random: true,
        ..PageFacts::default()
    }
}

/// Random bytes for a shell: the top byte of each number of a seeded
/// sequence, so every run draws the same ids and match seeds.
pub fn random(seed: u64) -> Random {
    let mut r = Rng(seed | 1);
    Box::new(move |buf: &mut [u8]| {
        for b in buf {
            *b = (r.next() >> 56) as u8;
        }
        true
    })
}

/// A shell of the test game as a page at `search` starts it, its random
/// bytes drawn from `seed`.
pub fn shell(search: &str, seed: u64) -> Shell {
    Shell::new(
        TestDotsFrontEnd::default(),
        ShellConfig::from_page(&facts(search)),
        random(seed),
    )
}

struct Conn {
    tag: u32,
    /// The other end, once an answer was made for our offer (or we made
    /// one for theirs).
    peer: Option<(usize, LinkId)>,
    open: bool,
    /// ICE lost the path (`World::lose_path`): nothing gets through until
    /// an ICE restart brings it back.
    path_down: bool,
    /// This end made the offer of the connection's handshake.
    offered: bool,
}

pub struct Page {
    pub shell: Shell,
    /// This page gathers no candidates: its peer connections never open.
    pub no_direct_path: bool,
    pub chat: Vec<(String, String)>,
    /// While set, every state hash report this page sends on the match
    /// link carries a wrong hash (the peer sees a game that differs).
    pub flip_hash: bool,
    /// The last desync report offer (`None` after any other ending).
    pub report: Option<web_shell::shell::view::LogOffer>,
    /// While unset, the service never answers this page's requests
    /// (`/ice`, `POST /rooms`): they hang.
    pub answers_fetches: bool,
    /// The `iceServers` of the last peer connection this page created.
    pub ice_servers: Option<String>,
    /// The sounds this page was asked to play, in order.
    pub sounds: Vec<web_shell::shell::Cue>,
    /// The fetches this page was asked to abort, in order.
    pub aborted: Vec<FetchId>,
    /// What this page put on the clipboard, in order.
    pub copied: Vec<String>,
    /// The last children written to each of the party controls
    /// (`party-panel`, `party-prompt`), and the panel's `data-party`.
    pub party_page: BTreeMap<&'static str, Vec<web_shell::shell::page::Node>>,
    pub party_state: Option<String>,
    /// This page's settings storage (lasts through a reload).
    pub stored: Vec<(&'static str, String)>,
    /// This tab's session storage under the rejoin record's key.
    pub session: Option<String>,
    /// While set, the page's thread is blocked: nothing it is sent is
    /// handled and its timers do not fire; what comes waits, in order,
    /// until [`World::unblock`].
    pub blocked: bool,
    /// What came while the page was blocked.
    waiting: VecDeque<Input>,
    conns: BTreeMap<LinkId, Conn>,
}

impl Page {
    /// The `i`th page of a world, at `search`.
    fn new(search: &str, i: usize) -> Page {
        Page::with_shell(shell(search, 0x9E37_79B9 * (i as u64 + 1)))
    }

    fn with_shell(shell: Shell) -> Page {
        Page {
            shell,
            no_direct_path: false,
            chat: Vec::new(),
            flip_hash: false,
            report: None,
            answers_fetches: true,
            ice_servers: None,
            sounds: Vec::new(),
            aborted: Vec::new(),
            copied: Vec::new(),
            party_page: BTreeMap::new(),
            party_state: None,
            stored: Vec::new(),
            session: None,
            blocked: false,
            waiting: VecDeque::new(),
            conns: BTreeMap::new(),
        }
    }
}

/// The service's side of a socket.
#[derive(Clone, PartialEq, Eq)]
enum Sock {
    Lobby {
        id: Option<String>,
    },
    Room {
        code: String,
        host: bool,
    },
    /// A socket of a member room, run by the service's own room machine.
    Member {
        code: String,
        socket: signaling_core::SocketId,
    },
}

pub struct World {
    pub pages: Vec<Page>,
    pub now: Millis,
    queue: VecDeque<(usize, Input)>,
    sockets: BTreeMap<(usize, SocketId), Sock>,
    pub rooms: u32,
    /// Offers made: the offer text names (page, link).
    offers: Vec<(usize, LinkId)>,
    /// The pages on each relay (a room's, or a member room's pair's), with
    /// the link it carries for them.
    relays: BTreeMap<String, Vec<(usize, LinkId)>>,
    /// Pairs of pages between which no direct path forms (each pair
    /// lower index first): their peer connections never open.
    pub no_direct_pairs: Vec<(usize, usize)>,
    /// Relay sockets opened, over the whole run.
    pub relays_opened: usize,
    /// Lobby messages a page sent another through the service (for want
    /// of an open mesh link), over the whole run: sender, recipient and the
    /// message's `type`.
    pub lobby_relayed: Vec<(usize, usize, String)>,
    /// The texts of those messages, in the same order (what the service
    /// sees of them).
    pub lobby_relayed_texts: Vec<String>,
    /// Each lobby socket opened: the page and the lobby its `?lobby=` asked
    /// for, if any.
    pub lobby_asks: Vec<(usize, Option<String>)>,
    /// While set, the service's end of every connection is gone without a
    /// close: what pages send is lost and nothing comes back (a half-open
    /// connection). New sockets still open.
    pub service_silent: bool,
    /// While set, the service answers `GET /lobbies` with this text
    /// instead of its directory.
    pub lobbies_answer: Option<String>,
    /// The member rooms (`POST /rooms?players=N`), by code: the service's
    /// room machine.
    pub member_rooms: BTreeMap<String, signaling_core::Room>,
    /// While set, the opening of this page's peer connections is not
    /// reported to it (held until [`World::release_opens`]); the
    /// connections carry datagrams all the same, as a browser's channel
    /// that opened a moment before the page heard of it.
    pub hold_opens_of: Option<usize>,
    held_opens: Vec<(usize, Input)>,
    /// Pages reloaded, over the whole run.
    reloads: u64,
    /// Peer connections the pages asked for, over the whole run.
    pub peers_created: u64,
    /// Of those, the ones for a match or a party (not the lobby's mesh).
    pub match_peers_created: u64,
    /// ICE-restart offers the pages made, over the whole run.
    pub restart_offers: u32,
    /// While set, an ICE restart never brings a lost path back.
    pub paths_stay_lost: bool,
}

impl World {
    /// Pages with the given address query (test timer options).
    pub fn new(n: usize, search: &str) -> World {
        let pages = (0..n).map(|i| Page::new(search, i)).collect();
        let mut w = World {
            pages,
            now: Millis(0),
            queue: VecDeque::new(),
            sockets: BTreeMap::new(),
            rooms: 0,
            offers: Vec::new(),
            relays: BTreeMap::new(),
            no_direct_pairs: Vec::new(),
            relays_opened: 0,
            lobby_relayed: Vec::new(),
            lobby_relayed_texts: Vec::new(),
            lobby_asks: Vec::new(),
            service_silent: false,
            lobbies_answer: None,
            member_rooms: BTreeMap::new(),
            hold_opens_of: None,
            held_opens: Vec::new(),
            reloads: 0,
            peers_created: 0,
            match_peers_created: 0,
            restart_offers: 0,
            paths_stay_lost: false,
        };
        for p in 0..n {
            w.drain(p);
        }
        w
    }

    /// Pages at `search`, one for each name, online under it, once every
    /// page sees every other connected.
    pub fn lobby(search: &str, names: &[&str]) -> World {
        let mut w = World::new(names.len(), search);
        for (p, name) in names.iter().enumerate() {
            w.join(p, name);
        }
        w.until(5_000, "the mesh forms", World::mesh_formed);
        w
    }

    /// `host` challenges `guest`; once the guest sees it, the guest
    /// accepts.
    pub fn challenge_accepted(&mut self, host: usize, guest: usize) {
        let host_id = self.id(host);
        self.press(host, PlayerAction::Challenge, guest);
        self.until(2_000, "the challenge is seen", |w| {
            w.pages[guest]
                .shell
                .lobby_view()
                .is_some_and(|v| v.roster.iter().any(|r| r.id == host_id && r.challenged_us))
        });
        self.press(guest, PlayerAction::Accept, host);
    }

    /// Runs until the first two pages show the match past tick `tick`
    /// (panics after `max_ms`).
    pub fn until_both_play(&mut self, max_ms: u64, tick: u32) {
        self.until(max_ms, "both run the match", |w| {
            (0..2).all(|p| {
                w.screen(p) == Screen::Match && w.pages[p].shell.match_view().tick > Some(tick)
            })
        });
    }

    /// Pages running the given shells (a game of the test's own), none
    /// online yet.
    pub fn of_shells(shells: Vec<Shell>) -> World {
        let mut w = World::new(0, "");
        for (i, shell) in shells.into_iter().enumerate() {
            let mut page = Page::new("", i);
            page.shell = shell;
            w.pages.push(page);
            w.drain(i);
        }
        w
    }

    /// Shells of a game taking parties by `rules` ([`party_shells`], their
    /// random numbers from `seed`), one for each name, online under it,
    /// once every page sees every other connected.
    pub fn party_lobby(names: &[&str], rules: web_shell::party::PartyRules, seed: u64) -> World {
        let mut w = World::of_shells(party_shells(names.len(), rules, seed));
        for (p, name) in names.iter().enumerate() {
            w.join(p, name);
        }
        w.until(5_000, "the mesh forms", World::mesh_formed);
        w
    }

    /// As [`party_lobby`](Self::party_lobby), with `shells`.
    pub fn party_lobby_of(names: &[&str], shells: Vec<Shell>) -> World {
        let mut w = World::of_shells(shells);
        for (p, name) in names.iter().enumerate() {
            w.join(p, name);
        }
        w.until(5_000, "the mesh forms", World::mesh_formed);
        w
    }

    /// Four pages of a game taking parties of up to four in the lobby
    /// (Ada, Bo, Cy, Di; random numbers from `seed`); page 0 invites the
    /// next `players - 1`, who accept, and the party plays past tick 90.
    #[allow(dead_code)]
    pub fn party_playing(players: usize, seed: u64) -> World {
        let mut w = World::party_lobby(&["Ada", "Bo", "Cy", "Di"], ANY_FOUR, seed);
        w.party_plays(players);
        w
    }

    /// Page 0 invites pages 1 to `players - 1` to its party, they accept,
    /// and the party plays past tick 90.
    #[allow(dead_code)]
    pub fn party_plays(&mut self, players: usize) {
        let guests: Vec<usize> = (1..players).collect();
        self.party_invited(&guests);
        for &p in &guests {
            self.press(p, PlayerAction::PartyAccept, 0);
        }
        let all: Vec<usize> = (0..players).collect();
        self.until(10_000, "the party plays", |w| w.all_play(&all, 90));
    }

    /// The texts of the notices page `p`'s lobby shows (none off the
    /// lobby).
    #[allow(dead_code)]
    pub fn notices(&self, p: usize) -> Vec<String> {
        self.pages[p]
            .shell
            .lobby_view()
            .map(|v| v.notices.iter().map(|n| n.notice.text()).collect())
            .unwrap_or_default()
    }

    /// Page 0 invites the pages `invited` to its party (everyone on side
    /// 0); returns once each of them shows the invitation.
    pub fn party_invited(&mut self, invited: &[usize]) {
        let picks = invited
            .iter()
            .map(|&p| (self.id(p).as_str().to_owned(), 0))
            .collect();
        self.action(0, Action::InviteParty { picks, side: 0 });
        let host = self.id(0);
        self.until(2_000, "the invitations are seen", |w| {
            invited.iter().all(|&p| {
                w.pages[p]
                    .shell
                    .lobby()
                    .is_some_and(|c| c.party_invitation(&host).is_some())
            })
        });
    }

    /// Page `p` receives `bytes` on `channel` over its party link to page
    /// `from`, as if `from` had sent them (panics if there is no such
    /// link).
    pub fn party_datagram_from(
        &mut self,
        p: usize,
        from: usize,
        channel: lockstep::Channel,
        bytes: Vec<u8>,
    ) {
        self.party_event(p, from, RtcEvent::Data(channel, bytes));
    }

    /// Page `p`'s party link to page `to` reports `bytes` queued to send
    /// (its `bufferedAmount`), as a congested data channel would.
    pub fn party_backlog(&mut self, p: usize, to: usize, bytes: usize) {
        self.party_event(p, to, RtcEvent::Backlog(bytes));
    }

    /// Queues `event` on page `p`'s open party link with page `other`
    /// (panics if there is no such link).
    fn party_event(&mut self, p: usize, other: usize, event: RtcEvent) {
        let (link, tag) = self.pages[p]
            .conns
            .iter()
            .find_map(|(link, c)| match (link, &c.peer) {
                (LinkId::Party(_), Some((q, _))) if *q == other && c.open => {
                    Some((link.clone(), c.tag))
                }
                _ => None,
            })
            .expect("an open party link between the two pages");
        self.queue.push_back((p, Input::Rtc { link, tag, event }));
    }

    /// Whether every page in `pages` shows its match past tick `past`.
    pub fn all_play(&self, pages: &[usize], past: u32) -> bool {
        pages.iter().all(|&p| {
            self.screen(p) == Screen::Match && self.pages[p].shell.match_view().tick > Some(past)
        })
    }

    /// Runs until every page of `pages` confirmed a tick past `past` (a
    /// player came back at `past - 120`, say); none of them counts anyone
    /// down then.
    #[allow(dead_code)]
    pub fn all_play_on_past(&mut self, pages: &[usize], past: u32) {
        self.until(10_000, "every page plays on", |w| {
            pages
                .iter()
                .all(|&p| w.pages[p].shell.match_view().tick > Some(past))
        });
        for &p in pages {
            let line = &self.pages[p].shell.match_view().reconnecting;
            assert_eq!(*line, None, "page {p} counts nobody down");
        }
    }

    /// Runs until every page of `back` is back in the match after a
    /// reload or a lost link; then every page of `all` plays 120 ticks
    /// past the later return (`check` looks at the world as they are
    /// back), page `leaver` leaves, and the logs agree at tick 1, at the
    /// return and after it. Returns the return's tick.
    #[allow(dead_code)]
    pub fn back_and_logs_agree(
        &mut self,
        back: &[usize],
        all: &[usize],
        leaver: usize,
        check: impl FnOnce(&World),
    ) -> u32 {
        self.until(15_000, "the pages are back in the match", |w| {
            back.iter().all(|&p| {
                w.screen(p) == Screen::Match && w.pages[p].shell.match_view().rejoined.is_some()
            })
        });
        let back_at = back
            .iter()
            .filter_map(|&p| self.pages[p].shell.match_view().rejoined)
            .max()
            .unwrap_or(0);
        check(self);
        self.all_play_on_past(all, back_at + 120);
        self.leave_and_logs_agree(leaver, all, &[1, back_at, back_at + 120]);
        back_at
    }

    /// Page `leaver` leaves the match; every page of `pages` shows its
    /// result within 3 s, and their input logs agree at each of `ticks`
    /// (the first page's log holds each).
    pub fn leave_and_logs_agree(&mut self, leaver: usize, pages: &[usize], ticks: &[u32]) {
        self.action(leaver, Action::Leave);
        self.until(3_000, "every page shows a result", |w| {
            pages
                .iter()
                .all(|&p| matches!(w.screen(p), Screen::Result { .. }))
        });
        for &tick in ticks {
            let hashes: Vec<Option<u64>> = pages
                .iter()
                .map(|&p| self.pages[p].shell.log_hash_at(tick))
                .collect();
            assert!(
                hashes[0].is_some(),
                "tick {tick} is in the first page's log"
            );
            assert!(
                hashes.iter().all(|h| *h == hashes[0]),
                "tick {tick}: {hashes:?}"
            );
        }
    }

    /// Carries out what a member room's machine did: frames to its
    /// sockets' pages, and the sockets it closed.
    fn member_actions(
        &mut self,
        code: &str,
        actions: Vec<signaling_core::Action<signaling_core::RoomAttachment>>,
    ) {
        for a in actions {
            let target = |w: &World, socket| {
                w.sockets.iter().find_map(|(k, s)| match s {
                    Sock::Member { code: c, socket: t } if c == code && *t == socket => Some(*k),
                    _ => None,
                })
            };
            match a {
                signaling_core::Action::Send { socket, text } => {
                    if let Some((q, qid)) = target(self, socket) {
                        self.send_text(q, qid, text);
                    }
                }
                signaling_core::Action::Close { socket, .. } => {
                    if let Some(k) = target(self, socket) {
                        self.sockets.remove(&k);
                        self.queue.push_back((k.0, Input::SocketClosed(k.1)));
                    }
                }
                _ => {}
            }
        }
    }

    /// The highest tick any of `pages` shows.
    #[allow(dead_code)]
    pub fn last_tick(&self, pages: &[usize]) -> u32 {
        pages
            .iter()
            .filter_map(|&p| self.pages[p].shell.match_view().tick)
            .max()
            .unwrap_or(0)
    }

    /// What page `p` keeps in its session storage to come back with (its
    /// rejoin record), read back as a reloaded page would read it.
    #[allow(dead_code)]
    pub fn record(&self, p: usize) -> web_shell::shell::rejoin::RejoinRecord {
        let kept = self.pages[p].session.as_deref();
        let kept = kept.unwrap_or_else(|| panic!("page {p} keeps a record"));
        web_shell::shell::rejoin::RejoinRecord::from_storage(kept)
            .unwrap_or_else(|e| panic!("page {p}'s record reads back: {e:?}"))
    }

    /// One more page, opened at `search` (an invite link, say); its index.
    pub fn open(&mut self, search: &str) -> usize {
        let p = self.pages.len();
        self.pages.push(Page::new(search, p));
        self.drain(p);
        p
    }

    /// Feeds an input to page `p` now and carries out what follows.
    pub fn input(&mut self, p: usize, input: Input) {
        self.queue.push_back((p, input));
        self.settle();
    }

    pub fn action(&mut self, p: usize, a: Action) {
        self.input(p, Input::Action(a));
    }

    fn settle(&mut self) {
        while let Some((p, input)) = self.queue.pop_front() {
            if self.pages[p].blocked {
                self.pages[p].waiting.push_back(input);
                continue;
            }
            self.pages[p].shell.handle(self.now, input);
            self.drain(p);
        }
    }

    /// Runs `ms` of virtual time: the frame timer and the tick, at the
    /// periods the page runs them.
    pub fn run(&mut self, ms: u64) {
        let (frame, tick) = (u64::from(FRAME_TIMER_MS), u64::from(TICK_EVERY_MS));
        for _ in 0..ms / frame {
            self.now = self.now + Millis(frame);
            for p in (0..self.pages.len()).filter(|&p| !self.pages[p].blocked) {
                self.queue.push_back((
                    p,
                    Input::Frame {
                        clock: self.now.0 as f64,
                    },
                ));
                if self.now.0.is_multiple_of(tick) {
                    self.queue.push_back((p, Input::Tick));
                }
            }
            self.settle();
        }
    }

    /// Page `p`'s thread is free again: it handles what came meanwhile,
    /// in order, and its timers fire again.
    pub fn unblock(&mut self, p: usize) {
        self.pages[p].blocked = false;
        let waiting = std::mem::take(&mut self.pages[p].waiting);
        self.queue.extend(waiting.into_iter().map(|i| (p, i)));
        self.settle();
    }

    /// Runs until `cond` holds (panics after `max_ms`).
    pub fn until(&mut self, max_ms: u64, what: &str, cond: impl Fn(&World) -> bool) {
        let end = self.now.0 + max_ms;
        while !cond(self) {
            assert!(self.now.0 < end, "{what}: not within {max_ms} ms");
            self.run(20);
        }
    }

    /// Whether page `p`'s lobby client is online.
    pub fn online(&self, p: usize) -> bool {
        self.pages[p]
            .shell
            .lobby_view()
            .is_some_and(|v| v.connection == web_shell::lobby::Connection::Online)
    }

    pub fn screen(&self, p: usize) -> Screen {
        self.pages[p].shell.screen_view().screen
    }

    pub fn id(&self, p: usize) -> PeerId {
        self.pages[p]
            .shell
            .lobby()
            .and_then(|c| c.me().cloned())
            .expect("in the lobby")
    }

    /// Online, then in the lobby under `name`.
    pub fn join(&mut self, p: usize, name: &str) {
        self.action(p, Action::ChooseOnline);
        self.action(p, Action::Join(name.into()));
    }

    pub fn press(&mut self, p: usize, what: PlayerAction, on: usize) {
        let id = self.id(on).as_str().to_owned();
        self.action(p, Action::Player(what, id));
    }

    /// Pages at `search`, one for each name, online under it, where the
    /// pairs of pages `walled` (lower index first) have no direct path
    /// between them: once every page shows every other connected, or, for
    /// a walled pair, reachable through the service.
    pub fn lobby_walled(search: &str, names: &[&str], walled: &[(usize, usize)]) -> World {
        World::new(names.len(), search).join_walled(names, walled)
    }

    /// [`lobby_walled`](Self::lobby_walled) for the pages of this world.
    pub fn join_walled(self, names: &[&str], walled: &[(usize, usize)]) -> World {
        let mut w = self;
        w.no_direct_pairs = walled.to_vec();
        for (p, name) in names.iter().enumerate() {
            w.join(p, name);
        }
        let n = names.len();
        w.until(5_000, "everyone is reachable", |w| {
            (0..n).all(|p| {
                (0..n).filter(|&q| q != p).all(|q| {
                    let want = if w.no_direct_pairs.contains(&(p.min(q), p.max(q))) {
                        "via the service"
                    } else {
                        "connected"
                    };
                    w.pages[p].shell.lobby().is_some_and(|c| c.me().is_some())
                        && w.pages[q].shell.lobby().is_some_and(|c| c.me().is_some())
                        && w.link_shown(p, q) == Some(want)
                })
            })
        });
        w
    }

    /// How page `p`'s roster shows page `q`'s link (`data-link`).
    pub fn link_shown(&self, p: usize, q: usize) -> Option<&'static str> {
        let id = self.id(q);
        self.pages[p]
            .shell
            .lobby_view()?
            .roster
            .iter()
            .find(|r| r.id == id)
            .map(|r| r.link)
    }

    /// Everyone sees everyone else connected.
    pub fn mesh_formed(&self) -> bool {
        self.pages.iter().all(|p| {
            p.shell.lobby_view().is_some_and(|v| {
                v.roster.len() == self.pages.len() - 1
                    && v.roster.iter().all(|r| r.link == "connected")
            })
        })
    }

    fn send_text(&mut self, p: usize, id: SocketId, text: String) {
        if self.service_silent {
            return;
        }
        self.queue.push_back((p, Input::SocketText(id, text)));
    }

    fn lobby_socket_of(&self, peer: &str) -> Option<(usize, SocketId)> {
        self.sockets.iter().find_map(|(k, s)| match s {
            Sock::Lobby { id: Some(i) } if i == peer => Some(*k),
            _ => None,
        })
    }

    fn lobby_broadcast(&mut self, except: (usize, SocketId), msg: &Value) {
        let targets: Vec<(usize, SocketId)> = self
            .sockets
            .iter()
            .filter(|(k, s)| **k != except && matches!(s, Sock::Lobby { id: Some(_) }))
            .map(|(k, _)| *k)
            .collect();
        for (p, id) in targets {
            self.send_text(p, id, msg.to_string());
        }
    }

    fn close_socket(&mut self, key: (usize, SocketId)) {
        match self.sockets.remove(&key) {
            Some(Sock::Lobby { id: Some(id) }) => {
                self.lobby_broadcast(key, &json!({"type": "left", "id": id}));
            }
            Some(Sock::Member { code, socket }) => {
                let actions = match self.member_rooms.get_mut(&code) {
                    Some(room) => room.handle(signaling_core::Event::Closed { socket }, self.now),
                    None => Vec::new(),
                };
                self.member_actions(&code, actions);
            }
            Some(Sock::Room { code, .. }) => {
                // The room ends; the other side's socket closes too.
                let other: Vec<(usize, SocketId)> = self
                    .sockets
                    .iter()
                    .filter(|(_, s)| matches!(s, Sock::Room { code: c, .. } if *c == code))
                    .map(|(k, _)| *k)
                    .collect();
                for k in other {
                    self.sockets.remove(&k);
                    self.queue.push_back((k.0, Input::SocketClosed(k.1)));
                }
            }
            _ => {}
        }
    }

    fn socket_text(&mut self, p: usize, id: SocketId, text: &str) {
        if self.service_silent {
            return;
        }
        let Some(sock) = self.sockets.get(&(p, id)).cloned() else {
            return;
        };
        let v: Value = serde_json::from_str(text).expect("the page sends JSON");
        match sock {
            Sock::Member { code, socket } => {
                let actions = match self.member_rooms.get_mut(&code) {
                    Some(room) => {
                        room.handle(signaling_core::Event::Text { socket, text }, self.now)
                    }
                    None => Vec::new(),
                };
                self.member_actions(&code, actions);
            }
            Sock::Lobby { .. } => match v["type"].as_str() {
                Some("hello") => {
                    let me = v["id"].as_str().unwrap().to_owned();
                    let nick = v["nick"].clone();
                    let me_entry =
                        json!({"id": me, "nick": nick, "tag": test_tag(&me), "status": "lobby"});
                    let roster: Vec<Value> = self
                        .sockets
                        .values()
                        .filter_map(|s| match s {
                            Sock::Lobby { id: Some(i) } => {
                                Some(json!({"id": i, "nick": format!("n{}", &i[..3]), "tag": test_tag(i), "status": "lobby"}))
                            }
                            _ => None,
                        })
                        .collect();
                    self.sockets.insert(
                        (p, id),
                        Sock::Lobby {
                            id: Some(me.clone()),
                        },
                    );
                    self.send_text(
                        p,
                        id,
                        json!({"type": "welcome", "you": me, "roster": roster.into_iter().chain([me_entry]).collect::<Vec<_>>(), "lobby": 0}).to_string(),
                    );
                    self.lobby_broadcast(
                        (p, id),
                        &json!({"type": "joined", "player": {"id": me, "nick": nick, "tag": test_tag(&me), "status": "lobby"}}),
                    );
                }
                Some("signal") => {
                    let Sock::Lobby { id: Some(from) } = sock else {
                        return;
                    };
                    if let Some((q, qid)) = self.lobby_socket_of(v["to"].as_str().unwrap()) {
                        if let Some(Ok(text)) = signaling_protocol::relayed_text(&v["data"]) {
                            let kind = serde_json::from_str::<Value>(text)
                                .ok()
                                .and_then(|m| m["type"].as_str().map(str::to_owned))
                                .unwrap_or_default();
                            self.lobby_relayed.push((p, q, kind));
                            self.lobby_relayed_texts.push(text.to_owned());
                        }
                        let msg = json!({"type": "signal", "from": from, "data": v["data"]});
                        self.send_text(q, qid, msg.to_string());
                    }
                }
                Some("status") => {
                    let Sock::Lobby { id: Some(from) } = sock else {
                        return;
                    };
                    let msg = json!({"type": "status", "id": from, "status": v["status"]});
                    self.lobby_broadcast((p, id), &msg);
                }
                Some("ping") => {
                    self.send_text(p, id, signaling_protocol::heartbeat::PONG.to_owned())
                }
                other => panic!("unexpected lobby message {other:?}"),
            },
            Sock::Room { code, host } => {
                if v["type"] == "done" {
                    return;
                }
                if v["type"] == "relay-ticket" {
                    let side = if host { "host" } else { "guest" };
                    let t = signaling_protocol::RelayTicket::parse(&format!(
                        "{side}.99.00112233445566778899aabbccddeeff"
                    ))
                    .unwrap();
                    let answer = signaling_protocol::relay_server::ticket(&t, 60);
                    self.send_text(p, id, answer);
                    return;
                }
                let other = self.sockets.iter().find_map(|(k, s)| match s {
                    Sock::Room { code: c, .. } if *c == code && *k != (p, id) => Some(*k),
                    _ => None,
                });
                if let Some((q, qid)) = other {
                    self.send_text(q, qid, text.to_owned());
                }
            }
        }
    }

    fn open_socket(&mut self, p: usize, id: SocketId, url: &str) {
        if let Some(query) = url.split("/lobby/ws").nth(1) {
            // One lobby here, numbered 0, whatever `?lobby=` asks for.
            self.lobby_asks
                .push((p, query.strip_prefix("?lobby=").map(str::to_owned)));
            self.sockets.insert((p, id), Sock::Lobby { id: None });
        } else {
            let rest = url.split("/rooms/").nth(1).unwrap();
            let code = rest[..6].to_owned();
            let host = rest.ends_with("role=host");
            if self.member_rooms.contains_key(&code) {
                let role = if host {
                    signaling_core::JoinRole::Host
                } else if rest.ends_with("role=spectator") {
                    signaling_core::JoinRole::Spectator
                } else {
                    assert!(rest.ends_with("role=player"), "a member room's player");
                    signaling_core::JoinRole::Player
                };
                let now = self.now;
                let admitted = self.member_rooms.get_mut(&code).unwrap().admit(role, now);
                match admitted {
                    Ok((socket, actions)) => {
                        self.sockets.insert(
                            (p, id),
                            Sock::Member {
                                code: code.clone(),
                                socket,
                            },
                        );
                        self.queue.push_front((p, Input::SocketOpened(id)));
                        self.member_actions(&code, actions);
                    }
                    Err(_) => self.queue.push_back((p, Input::SocketClosed(id))),
                }
                return;
            }
            if !host {
                let h = self.sockets.iter().find_map(|(k, s)| match s {
                    Sock::Room {
                        code: c,
                        host: true,
                    } if *c == code => Some(*k),
                    _ => None,
                });
                if let Some((q, qid)) = h {
                    self.send_text(q, qid, json!({"type": "peer-joined"}).to_string());
                }
            }
            self.sockets.insert((p, id), Sock::Room { code, host });
        }
        self.queue.push_front((p, Input::SocketOpened(id)));
    }

    /// A relay socket of page `p` at `url`, as `link`: paired (both open)
    /// once the other page of the room (of the ticket's pair, in a member
    /// room) is on it too.
    fn open_relay(&mut self, p: usize, link: &LinkId, tag: u32, url: &str) {
        let rest = url.split("/relay/").nth(1).unwrap();
        let code = rest[..6].to_owned();
        let ticket = rest
            .split_once("?ticket=")
            .expect("a relay socket needs a ticket")
            .1;
        let ticket = signaling_protocol::RelayTicket::parse(ticket).expect("a ticket's form");
        let name = match ticket.pair() {
            Some(pair) => format!("{code}/{pair:?}"),
            None => code,
        };
        self.relays_opened += 1;
        self.close_conn(p, link);
        self.pages[p].conns.insert(
            link.clone(),
            Conn {
                tag,
                peer: None,
                open: false,
                path_down: false,
                offered: false,
            },
        );
        let on = self.relays.entry(name).or_default();
        on.retain(|(q, _)| *q != p);
        on.push((p, link.clone()));
        if let [a, b] = &on[..] {
            let (a, b) = (a.clone(), b.clone());
            for ((x, xl), y) in [(a.clone(), b.clone()), (b, a)] {
                if let Some(c) = self.pages[x].conns.get_mut(&xl) {
                    c.peer = Some(y);
                    c.open = true;
                }
                self.rtc(x, &xl, RtcEvent::Open);
            }
        }
    }

    fn rtc(&mut self, p: usize, link: &LinkId, event: RtcEvent) {
        if let Some(c) = self.pages[p].conns.get(link) {
            let tag = c.tag;
            let held = event == RtcEvent::Open && self.hold_opens_of == Some(p);
            let input = Input::Rtc {
                link: link.clone(),
                tag,
                event,
            };
            if held {
                self.held_opens.push((p, input));
            } else {
                self.queue.push_back((p, input));
            }
        }
    }

    /// Reports the openings held back by [`World::hold_opens_of`], and
    /// holds no more.
    pub fn release_opens(&mut self) {
        self.hold_opens_of = None;
        self.queue.extend(std::mem::take(&mut self.held_opens));
        self.settle();
    }

    /// Page `p` is reloaded: its sockets and connections go (the service
    /// and the other pages see them close), and a fresh page starts at
    /// `search` with the storage and session storage it had, and new
    /// random numbers (a new lobby id).
    pub fn reload(&mut self, p: usize, search: &str) {
        self.reload_as(p, search, |cfg, random| {
            Shell::new(TestDotsFrontEnd::default(), cfg, random)
        });
    }

    /// [`World::reload`] with the shell `make` builds from the page's
    /// configuration and random numbers (another game's, say).
    pub fn reload_as(
        &mut self,
        p: usize,
        search: &str,
        make: impl FnOnce(ShellConfig, Random) -> Shell,
    ) {
        self.hang_up(p);
        let (stored, session) = (self.pages[p].stored.clone(), self.pages[p].session.clone());
        let facts = PageFacts {
            stored: stored.clone(),
            rejoin_record: session.clone(),
            ..facts(search)
        };
        self.reloads += 1;
        let shell = make(
            ShellConfig::from_page(&facts),
            random(0x5151_0000 + self.reloads),
        );
        let mut page = Page::with_shell(shell);
        page.stored = stored;
        page.session = session;
        self.pages[p] = page;
        self.drain(p);
        self.settle();
    }

    /// Page `p`'s tab is closed for good: its sockets and connections go
    /// (the service and the other pages see them close) and it never runs
    /// again (what is sent to it waits unread).
    #[allow(dead_code)]
    pub fn close_tab(&mut self, p: usize) {
        self.hang_up(p);
        self.pages[p].blocked = true;
        self.settle();
    }

    /// Every socket and connection of page `p` goes (the service and the
    /// other pages see them close), and what was queued for it.
    fn hang_up(&mut self, p: usize) {
        let keys: Vec<(usize, SocketId)> =
            self.sockets.keys().filter(|k| k.0 == p).copied().collect();
        for k in keys {
            self.close_socket(k);
        }
        let links: Vec<LinkId> = self.pages[p].conns.keys().cloned().collect();
        for l in links {
            self.close_conn(p, &l);
        }
        self.queue.retain(|(q, _)| *q != p);
    }

    /// Rooms the service made (`POST /rooms` answered), over the whole run.
    pub fn rooms_made(&self) -> u32 {
        self.rooms
    }

    /// The match link of page `p` fails (a network change, say): both
    /// ends report it closed.
    pub fn cut_match_link(&mut self, p: usize) {
        self.rtc(p, &LinkId::Match, RtcEvent::Closed);
        self.close_conn(p, &LinkId::Match);
        self.settle();
    }

    /// Whether page `p` has an open party link to page `q`.
    pub fn party_linked(&self, p: usize, q: usize) -> bool {
        self.pages[p].conns.iter().any(|(link, c)| {
            matches!(link, LinkId::Party(_))
                && c.open
                && c.peer.as_ref().is_some_and(|(o, _)| *o == q)
        })
    }

    /// Every party link of page `p` fails at once (its network changed,
    /// say): both ends of each report it closed.
    pub fn cut_party_links(&mut self, p: usize) {
        let links: Vec<LinkId> = self.pages[p]
            .conns
            .keys()
            .filter(|l| matches!(l, LinkId::Party(_)))
            .cloned()
            .collect();
        for link in links {
            self.rtc(p, &link, RtcEvent::Closed);
            self.close_conn(p, &link);
        }
        self.settle();
    }

    /// The party link between pages `p` and `q` fails (their path to
    /// each other went, their others stay): both ends report it closed.
    pub fn cut_party_link(&mut self, p: usize, q: usize) {
        let links: Vec<LinkId> = self.pages[p]
            .conns
            .iter()
            .filter(|(l, c)| {
                matches!(l, LinkId::Party(_)) && c.peer.as_ref().is_some_and(|(o, _)| *o == q)
            })
            .map(|(l, _)| l.clone())
            .collect();
        for link in links {
            self.rtc(p, &link, RtcEvent::Closed);
            self.close_conn(p, &link);
        }
        self.settle();
    }

    /// The ICE path under page `p`'s match connection is lost (a network
    /// change), its data channels still open: both ends report the path
    /// down, and nothing gets through until an ICE restart brings it back
    /// (never, while `paths_stay_lost` is set).
    pub fn lose_path(&mut self, p: usize) {
        let Some(c) = self.pages[p].conns.get_mut(&LinkId::Match) else {
            return;
        };
        c.path_down = true;
        let peer = c.peer.clone();
        self.rtc(p, &LinkId::Match, RtcEvent::PathDown);
        if let Some((q, ql)) = peer {
            if let Some(qc) = self.pages[q].conns.get_mut(&ql) {
                qc.path_down = true;
                self.rtc(q, &ql, RtcEvent::PathDown);
            }
        }
    }

    /// Page `p`'s network changes (Wi-Fi to mobile): the ICE paths under
    /// its match link and its party links are lost at both ends (both
    /// report it, channels still open); its lobby mesh links lose their
    /// paths too but still say open (nothing gets through them); and its
    /// lobby socket is closed (the service announces it left, the page
    /// hears the close and comes back, under a new id).
    pub fn change_network(&mut self, p: usize) {
        let links: Vec<LinkId> = self.pages[p].conns.keys().cloned().collect();
        for link in links {
            let Some(c) = self.pages[p].conns.get_mut(&link) else {
                continue;
            };
            if !c.open {
                continue;
            }
            c.path_down = true;
            let peer = c.peer.clone();
            let mesh = matches!(link, LinkId::Mesh(_));
            if !mesh {
                self.rtc(p, &link, RtcEvent::PathDown);
            }
            if let Some((q, ql)) = peer {
                if let Some(qc) = self.pages[q].conns.get_mut(&ql) {
                    qc.path_down = true;
                    if !mesh {
                        self.rtc(q, &ql, RtcEvent::PathDown);
                    }
                }
            }
        }
        let lobby: Vec<(usize, SocketId)> = self
            .sockets
            .iter()
            .filter(|(k, s)| k.0 == p && matches!(s, Sock::Lobby { .. }))
            .map(|(k, _)| *k)
            .collect();
        for k in lobby {
            self.close_socket(k);
            self.queue.push_back((p, Input::SocketClosed(k.1)));
        }
        self.settle();
    }

    /// The ICE path under page `p`'s link `link` is lost at both ends (nothing
    /// gets through either way), but only page `p`'s browser reports it:
    /// its own network changed, and the other end has not noticed yet.
    pub fn lose_path_seen_only_by(&mut self, p: usize, link: &LinkId) {
        let Some(c) = self.pages[p].conns.get_mut(link) else {
            panic!("page {p} has no such link");
        };
        c.path_down = true;
        if let Some((q, ql)) = c.peer.clone() {
            if let Some(qc) = self.pages[q].conns.get_mut(&ql) {
                qc.path_down = true;
            }
        }
        self.rtc(p, link, RtcEvent::PathDown);
        self.settle();
    }

    /// Page `p`'s open party link to page `q`, and whether `p` offered in
    /// its handshake.
    pub fn party_link_between(&self, p: usize, q: usize) -> (LinkId, bool) {
        self.pages[p]
            .conns
            .iter()
            .find(|(l, c)| {
                matches!(l, LinkId::Party(_))
                    && c.open
                    && c.peer.as_ref().is_some_and(|(o, _)| *o == q)
            })
            .map(|(l, c)| (l.clone(), c.offered))
            .expect("an open party link between the two pages")
    }

    /// The ICE path under the party link between pages `p` and `q` is
    /// lost, its data channels still open, as [`lose_path`](Self::lose_path)
    /// for a match link.
    pub fn lose_party_path(&mut self, p: usize, q: usize) {
        let ends: Vec<(usize, LinkId)> = self.pages[p]
            .conns
            .iter()
            .filter(|(l, c)| {
                matches!(l, LinkId::Party(_))
                    && c.open
                    && c.peer.as_ref().is_some_and(|(o, _)| *o == q)
            })
            .flat_map(|(l, c)| [(p, l.clone())].into_iter().chain(c.peer.clone()))
            .collect();
        assert_eq!(ends.len(), 2, "an open party link between the two pages");
        for (page, l) in ends {
            if let Some(c) = self.pages[page].conns.get_mut(&l) {
                c.path_down = true;
            }
            self.rtc(page, &l, RtcEvent::PathDown);
        }
        self.settle();
    }

    /// Page `to` hears the lobby message `text` from page `from` through
    /// the service (as a page with no open mesh link to it sends it).
    pub fn lobby_text_from(&mut self, from: usize, to: usize, text: &str) {
        let (q, qid) = self
            .lobby_socket_of(self.id(to).as_str())
            .expect("the page is in the lobby");
        let data = signaling_protocol::relayed_data(text);
        let msg = json!({"type": "signal", "from": self.id(from).as_str(), "data": data});
        self.send_text(q, qid, msg.to_string());
        self.settle();
    }

    fn close_conn(&mut self, p: usize, link: &LinkId) {
        if let Some(c) = self.pages[p].conns.remove(link) {
            if let Some((q, ql)) = c.peer {
                if let Some(qc) = self.pages[q].conns.get_mut(&ql) {
                    qc.peer = None;
                    self.rtc(q, &ql, RtcEvent::Closed);
                }
            }
        }
    }

    fn drain(&mut self, p: usize) {
        while let Some(out) = self.pages[p].shell.poll_output() {
            match out {
                Output::OpenSocket { id, url } => self.open_socket(p, id, &url),
                Output::SendSocket { id, text } => self.socket_text(p, id, &text),
                Output::CloseSocket(id) => self.close_socket((p, id)),
                Output::Fetch { .. } if !self.pages[p].answers_fetches => {}
                Output::AbortFetch(id) => self.pages[p].aborted.push(id),
                Output::Fetch { id, method, url } => {
                    let body = match (id, method) {
                        (FetchId::Ice, "GET") => json!({"iceServers": []}),
                        (FetchId::Lobbies, "GET") => match &self.lobbies_answer {
                            Some(text) => serde_json::Value::String(text.clone()),
                            None => {
                                // Our lobby (0) with everyone online, and
                                // two others of the service's.
                                let online = self
                                    .sockets
                                    .values()
                                    .filter(|s| matches!(s, Sock::Lobby { id: Some(_) }))
                                    .count();
                                json!({"lobbies": [
                                    {"lobby": 0, "players": online, "capacity": 16},
                                    {"lobby": 1, "players": 16, "capacity": 16},
                                    {"lobby": 2, "players": 3, "capacity": 16},
                                ]})
                            }
                        },
                        (FetchId::PartyRoom(_), "POST") => {
                            self.rooms += 1;
                            let number = |name: &str| -> Option<u8> {
                                url.split(name).nth(1)?.split('&').next()?.parse().ok()
                            };
                            let players =
                                number("players=").expect("a member room names its players");
                            let spectators = number("spectators=").unwrap_or(16);
                            let a = signaling_protocol::id::ROOM_CODE_ALPHABET;
                            let n = self.rooms as usize;
                            let code = format!(
                                "PRTY{}{}",
                                char::from(a[n / a.len() % a.len()]),
                                char::from(a[n % a.len()])
                            );
                            let cap = signaling_core::RoomCapacity {
                                players,
                                spectators,
                            };
                            let (room, _) = signaling_core::Room::with_members(
                                signaling_core::RoomCode::parse(&code).unwrap(),
                                cap,
                                signaling_core::RoomLimits {
                                    relay_key: Some(signaling_core::RelayKey::from_bytes([7; 32])),
                                    ..signaling_core::RoomLimits::default()
                                },
                                self.now,
                            );
                            self.member_rooms.insert(code.clone(), room);
                            json!({ "code": code })
                        }
                        (FetchId::Room(_), "POST") => {
                            self.rooms += 1;
                            // A code of the service's alphabet, new for each room.
                            let a = signaling_protocol::id::ROOM_CODE_ALPHABET;
                            let n = self.rooms as usize;
                            let code = format!(
                                "RMQK{}{}",
                                char::from(a[n / a.len() % a.len()]),
                                char::from(a[n % a.len()])
                            );
                            json!({ "code": code })
                        }
                        _ => panic!("unexpected fetch {method} {url}"),
                    };
                    // A raw answer is given as it is, not as JSON text.
                    let body = match body {
                        serde_json::Value::String(raw) => raw,
                        v => v.to_string(),
                    };
                    self.queue.push_back((p, Input::Fetched(id, Some(body))));
                }
                Output::CreatePeer {
                    link,
                    tag,
                    ice_servers,
                } => {
                    self.pages[p].ice_servers = Some(ice_servers);
                    self.peers_created += 1;
                    if !matches!(link, LinkId::Mesh(_)) {
                        self.match_peers_created += 1;
                    }
                    self.close_conn(p, &link);
                    self.pages[p].conns.insert(
                        link,
                        Conn {
                            tag,
                            peer: None,
                            open: false,
                            path_down: false,
                            offered: false,
                        },
                    );
                }
                Output::Describe {
                    link,
                    tag,
                    step: SdpStep::Offer,
                } => {
                    if let Some(c) = self.pages[p].conns.get_mut(&link).filter(|c| c.tag == tag) {
                        c.offered = true;
                        self.offers.push((p, link.clone()));
                        let sdp = format!("offer {}", self.offers.len() - 1);
                        self.rtc(p, &link, RtcEvent::Offer(Some(sdp)));
                    }
                }
                Output::Describe {
                    link,
                    tag,
                    step: SdpStep::Answer(offer),
                } => {
                    let n: usize = offer.strip_prefix("offer ").unwrap().parse().unwrap();
                    let (q, ql) = self.offers[n].clone();
                    if let Some(c) = self.pages[p].conns.get_mut(&link).filter(|c| c.tag == tag) {
                        c.peer = Some((q, ql.clone()));
                        if let Some(qc) = self.pages[q].conns.get_mut(&ql) {
                            qc.peer = Some((p, link.clone()));
                        }
                        self.rtc(p, &link, RtcEvent::Answer(Some(format!("answer to {n}"))));
                    }
                }
                Output::Describe {
                    link,
                    tag,
                    step: SdpStep::RestartOffer,
                } => {
                    if self.pages[p]
                        .conns
                        .get(&link)
                        .is_some_and(|c| c.tag == tag && c.open)
                    {
                        self.restart_offers += 1;
                        let sdp = format!("restart offer {}", self.restart_offers);
                        self.rtc(p, &link, RtcEvent::Offer(Some(sdp)));
                    }
                }
                Output::Describe {
                    link,
                    tag,
                    step: SdpStep::RestartAnswer(offer),
                } => {
                    assert!(offer.starts_with("restart offer "), "{offer}");
                    if self.pages[p]
                        .conns
                        .get(&link)
                        .is_some_and(|c| c.tag == tag && c.open)
                    {
                        self.rtc(
                            p,
                            &link,
                            RtcEvent::Answer(Some(format!("answer to {offer}"))),
                        );
                    }
                }
                Output::Describe {
                    link,
                    tag,
                    step: SdpStep::Apply(answer),
                } if answer.starts_with("answer to restart") => {
                    // The offerer applies a restart's answer: the fresh
                    // checks find the path again, unless this world's
                    // paths stay lost.
                    let Some(c) = self.pages[p].conns.get(&link).filter(|c| c.tag == tag) else {
                        continue;
                    };
                    let peer = c.peer.clone();
                    self.rtc(p, &link, RtcEvent::Applied(true));
                    if self.paths_stay_lost {
                        continue;
                    }
                    let ends = std::iter::once((p, link.clone())).chain(peer);
                    for (page, l) in ends.collect::<Vec<_>>() {
                        if let Some(c) = self.pages[page].conns.get_mut(&l) {
                            if std::mem::take(&mut c.path_down) {
                                self.rtc(page, &l, RtcEvent::PathUp);
                            }
                        }
                    }
                }
                Output::Describe {
                    link,
                    tag,
                    step: SdpStep::Apply(_),
                } => {
                    let Some(c) = self.pages[p].conns.get(&link).filter(|c| c.tag == tag) else {
                        continue;
                    };
                    let peer = c.peer.clone();
                    self.rtc(p, &link, RtcEvent::Applied(true));
                    if let Some((q, ql)) = peer {
                        let blocked = self.no_direct_pairs.contains(&(p.min(q), p.max(q)));
                        if !self.pages[p].no_direct_path
                            && !self.pages[q].no_direct_path
                            && !blocked
                        {
                            for (page, l) in [(p, link.clone()), (q, ql)] {
                                if let Some(c) = self.pages[page].conns.get_mut(&l) {
                                    c.open = true;
                                }
                                self.rtc(page, &l, RtcEvent::Open);
                            }
                        }
                    }
                }
                Output::SendPeer {
                    link,
                    channel,
                    mut bytes,
                } => {
                    if self.pages[p].flip_hash && link == LinkId::Match {
                        use lockstep::wire::Message;
                        if let Ok(Message::Hash(mut r)) = Message::<u8>::decode(&bytes) {
                            r.hash ^= 0xff;
                            bytes = Message::<u8>::Hash(r).encode().unwrap();
                        }
                    }
                    let peer = self.pages[p]
                        .conns
                        .get(&link)
                        .filter(|c| c.open && !c.path_down)
                        .and_then(|c| c.peer.clone());
                    if let Some((q, ql)) = peer {
                        self.rtc(q, &ql, RtcEvent::Data(channel, bytes));
                    }
                }
                Output::ClosePeer(link) => self.close_conn(p, &link),
                Output::OpenRelay { link, tag, url } => self.open_relay(p, &link, tag, &url),
                Output::CloseMesh => {
                    let mesh: Vec<LinkId> = self.pages[p]
                        .conns
                        .keys()
                        .filter(|l| matches!(l, LinkId::Mesh(_)))
                        .cloned()
                        .collect();
                    for l in mesh {
                        self.close_conn(p, &l);
                    }
                }
                Output::Chat { name, text, .. } => self.pages[p].chat.push((name, text)),
                Output::Sound(cue) => self.pages[p].sounds.push(cue),
                Output::Copy(text) => self.pages[p].copied.push(text),
                Output::Offer {
                    link: FileLink::Report,
                    file,
                } => self.pages[p].report = file,
                Output::Page(patches) => {
                    use web_shell::shell::page::Patch;
                    for patch in patches {
                        match patch {
                            Patch::Children(id, nodes) if id.starts_with("party-") => {
                                self.pages[p].party_page.insert(id, nodes);
                            }
                            Patch::Attr("party-panel", "data-party", v) => {
                                self.pages[p].party_state = v;
                            }
                            _ => {}
                        }
                    }
                }
                Output::AddCandidate { .. }
                | Output::Paint
                | Output::FullScreen
                | Output::Offer { .. } => {}
                Output::Store { key, value } => {
                    let stored = &mut self.pages[p].stored;
                    stored.retain(|(k, _)| *k != key);
                    stored.push((key, value));
                }
                Output::SessionStore { value, .. } => self.pages[p].session = value,
            }
        }
    }
}

/// The tag the fake service gives a player: three characters of the
/// code alphabet picked by the first bytes of its id (unique enough for
/// tests; the real lobby draws them, see `signaling_core::Lobby`).
pub fn test_tag(id: &str) -> String {
    let alphabet = signaling_protocol::ROOM_CODE_ALPHABET;
    id.bytes()
        .take(3)
        .map(|b| char::from(alphabet[usize::from(b) % alphabet.len()]))
        .collect()
}

/// How long after a held place's window ran out the pages have heard
/// that its player left (the host's order, acknowledged by every player).
#[allow(dead_code)]
pub const LEFT_SETTLES: Millis = Millis(3_000);

/// Party rules for up to four people and no sides: everyone for themselves.
#[allow(dead_code)]
pub const ANY_FOUR: web_shell::party::PartyRules = web_shell::party::PartyRules {
    max_people: 4,
    sides: 0,
    per_side: 4,
    lengths: &[],
};

/// The test game, taking parties by `rules`: each person moves a dot of
/// their own, and the seed is kept as it is whatever the sides.
pub struct PartyDots {
    dots: TestDotsFrontEnd,
    rules: web_shell::party::PartyRules,
}

impl PartyDots {
    /// The game taking parties by `rules`.
    #[allow(dead_code)]
    pub fn new(rules: web_shell::party::PartyRules) -> PartyDots {
        PartyDots {
            dots: TestDotsFrontEnd::default(),
            rules,
        }
    }
}

impl web_shell::front_end::FrontEnd for PartyDots {
    type Game = web_shell::testing::TestDots;
    fn name(&self) -> &'static str {
        self.dots.name()
    }
    fn draw(&mut self, game: &Self::Game, painter: &mut dyn web_shell::front_end::Painter) {
        self.dots.draw(game, painter);
    }
    fn input(&self, held: &[&str], player: u8) -> u8 {
        self.dots.input(held, player)
    }
    fn is_game_key(&self, code: &str) -> bool {
        self.dots.is_game_key(code)
    }
    fn party(&self) -> web_shell::party::PartyRules {
        self.rules
    }
    fn party_seed(&self, seed: u64, sides: &[u8], _length: usize) -> Option<u64> {
        self.rules.takes(sides).then_some(seed)
    }
}

/// [`PartyDots`] playing `G`, a variant of the test game with its own
/// rules for dropped players ([`web_shell::testing::HeldDots`],
/// [`web_shell::testing::PlaysOnDots`]).
pub struct PartyDotsAs<G>(PartyDots, std::marker::PhantomData<G>);

impl<G> PartyDotsAs<G> {
    pub fn new(rules: web_shell::party::PartyRules) -> Self {
        PartyDotsAs(PartyDots::new(rules), std::marker::PhantomData)
    }
}

impl<G> web_shell::front_end::FrontEnd for PartyDotsAs<G>
where
    G: lockstep::DeterministicGame<Input = u8> + AsRef<web_shell::testing::TestDots> + 'static,
{
    type Game = G;
    fn name(&self) -> &'static str {
        self.0.name()
    }
    fn draw(&mut self, game: &G, painter: &mut dyn web_shell::front_end::Painter) {
        self.0.draw(game.as_ref(), painter);
    }
    fn input(&self, held: &[&str], player: u8) -> u8 {
        self.0.input(held, player)
    }
    fn is_game_key(&self, code: &str) -> bool {
        self.0.is_game_key(code)
    }
    fn party(&self) -> web_shell::party::PartyRules {
        self.0.party()
    }
    fn party_seed(&self, seed: u64, sides: &[u8], length: usize) -> Option<u64> {
        self.0.party_seed(seed, sides, length)
    }
}

/// [`PartyDots`] whose held slots play on ([`web_shell::testing::HeldDots`]).
pub type HeldPartyDots = PartyDotsAs<web_shell::testing::HeldDots>;

/// `n` shells of [`HeldPartyDots`] with `rules`, as [`party_shells`];
/// page `faulty`, if any, sends no input messages (`?peer_fault=no_inputs`).
#[allow(dead_code)]
pub fn held_party_shells(
    n: usize,
    rules: web_shell::party::PartyRules,
    seed: u64,
    faulty: Option<usize>,
) -> Vec<Shell> {
    party_shells_as::<web_shell::testing::HeldDots>(n, rules, seed, faulty)
}

/// `n` shells of [`PartyDotsAs<G>`] with `rules`, as [`party_shells`];
/// page `faulty`, if any, sends no input messages (`?peer_fault=no_inputs`).
#[allow(dead_code)]
pub fn party_shells_as<G>(
    n: usize,
    rules: web_shell::party::PartyRules,
    seed: u64,
    faulty: Option<usize>,
) -> Vec<Shell>
where
    G: lockstep::DeterministicGame<Input = u8> + AsRef<web_shell::testing::TestDots> + 'static,
{
    (0..n)
        .map(|i| {
            let mut cfg = ShellConfig::from_page(&facts(""));
            if faulty == Some(i) {
                cfg.peer_fault = Some(web_shell::options::PeerFault::NoInputs);
            }
            Shell::new(
                PartyDotsAs::<G>::new(rules),
                cfg,
                random(seed * (i as u64 + 1)),
            )
        })
        .collect()
}

/// A shell of [`PartyDots`] with `rules`, as a reloaded page makes it
/// ([`World::reload_as`]).
pub fn party_shell(
    rules: web_shell::party::PartyRules,
) -> impl FnOnce(ShellConfig, Random) -> Shell {
    move |cfg, random| Shell::new(PartyDots::new(rules), cfg, random)
}

/// `n` shells of [`PartyDots`] with `rules`, their random numbers drawn
/// from `seed` (each page its own).
pub fn party_shells(n: usize, rules: web_shell::party::PartyRules, seed: u64) -> Vec<Shell> {
    (0..n)
        .map(|i| {
            Shell::new(
                PartyDots {
                    dots: TestDotsFrontEnd::default(),
                    rules,
                },
                ShellConfig::from_page(&facts("")),
                random(seed * (i as u64 + 1)),
            )
        })
        .collect()
}
