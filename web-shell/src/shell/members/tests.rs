//! The member-room link of several pages through the service's real room
//! machine (`signaling_core::Room`, as both hosts run it). Peer connections
//! are the one thing played by the test: an offer is answered, and an
//! answer opens the link on both ends, as a browser would report it.

use super::*;
use crate::shell::test_room::{pump, RoomPages, TestRoom};
use signaling_core::JoinRole;
use std::collections::BTreeMap;

/// One page: its link, and what it reported.
struct Page {
    link: MemberLink,
    ready: Option<Vec<(MemberId, u8)>>,
    failed: Option<MemberFailure>,
    closed_peers: Vec<MemberId>,
    /// Peer connections this page made, by member.
    peers: Vec<MemberId>,
    /// On the host: the spectators whose link opened, and those gone.
    spectators: Vec<MemberId>,
    spectators_gone: Vec<MemberId>,
}

impl Page {
    fn new(link: MemberLink) -> Page {
        Page {
            link,
            ready: None,
            failed: None,
            closed_peers: Vec::new(),
            peers: Vec::new(),
            spectators: Vec::new(),
            spectators_gone: Vec::new(),
        }
    }
}

/// A member room and the pages in it.
struct Party {
    net: TestRoom,
    pages: Vec<Page>,
    /// Answers are not delivered while false (a link that never opens).
    open_links: bool,
    /// Pairs of members whose direct link never opens.
    blocked: Vec<(MemberId, MemberId)>,
    /// The relay ends opened, by pair: the page and the member it links to.
    relays: BTreeMap<signaling_protocol::MemberPair, Vec<(usize, MemberId)>>,
}

fn offer() -> Signal {
    Signal {
        attempt: 1,
        kind: SignalKind::Offer("v=0 offer".into()),
    }
}

fn answer() -> Signal {
    Signal {
        attempt: 1,
        kind: SignalKind::Answer("v=0 answer".into()),
    }
}

fn candidate() -> Signal {
    Signal {
        attempt: 1,
        kind: SignalKind::Ice {
            candidate: "candidate:1 1 udp 1 192.0.2.1 9 typ host".into(),
            sdp_mid: Some("0".into()),
            sdp_m_line_index: Some(0),
        },
    }
}

impl RoomPages for Party {
    fn test_room(&mut self) -> &mut TestRoom {
        &mut self.net
    }

    fn hear(&mut self, page: usize, text: &str) {
        self.pages[page].link.room_text(text);
    }

    fn room_closed(&mut self, page: usize) {
        self.pages[page].link.room_closed();
    }

    fn drain(&mut self, page: usize) -> bool {
        let mut any = false;
        while let Some(o) = self.pages[page].link.poll() {
            any = true;
            self.carry_out(page, o);
        }
        any
    }

    fn count(&self) -> usize {
        self.pages.len()
    }
}

impl Party {
    /// A room for `people` players and one page per place, none joined.
    fn new(people: u8) -> Party {
        let pages = (0..people)
            .map(|place| Page::new(MemberLink::new(place, people, Millis(30_000))))
            .collect();
        Party {
            net: TestRoom::new(people, 2),
            pages,
            open_links: true,
            blocked: Vec::new(),
            relays: BTreeMap::new(),
        }
    }

    /// Page `i` opens its room socket (as host for place 0).
    fn join(&mut self, i: usize) {
        let role = if i == 0 {
            JoinRole::Host
        } else {
            JoinRole::Player
        };
        self.net.join(i, role);
        self.pump();
    }

    /// A spectator's page joins the room; returns its index.
    fn watch(&mut self) -> usize {
        self.pages
            .push(Page::new(MemberLink::watcher(Millis(30_000))));
        let i = self.pages.len() - 1;
        self.net.join(i, JoinRole::Spectator);
        self.pump();
        i
    }

    fn page_of(&self, member: MemberId) -> usize {
        self.pages
            .iter()
            .position(|p| p.link.me() == Some(member))
            .unwrap()
    }

    /// Delivers everything until nothing moves.
    fn pump(&mut self) {
        pump(self);
    }

    fn carry_out(&mut self, i: usize, o: MemberOutput) {
        match o {
            MemberOutput::ToRoom(text) => self.net.send(i, &text),
            MemberOutput::Offer(m) => {
                self.pages[i].peers.push(m);
                self.pages[i].link.local_signal(m, &offer());
                self.pages[i].link.local_signal(m, &candidate());
            }
            MemberOutput::Remote { member, signal } => match signal.kind {
                SignalKind::Offer(_) => {
                    self.pages[i].peers.push(member);
                    self.pages[i].link.local_signal(member, &answer());
                    self.pages[i].link.local_signal(member, &candidate());
                }
                SignalKind::Answer(_)
                    if self.open_links
                        && !self.blocked.iter().any(|&(a, b)| {
                            let me = self.pages[i].link.me();
                            (Some(a), b) == (me, member) || (Some(b), a) == (me, member)
                        }) =>
                {
                    // The offerer's channels open, then the answerer's.
                    let me = self.pages[i].link.me().unwrap();
                    self.pages[i].link.link_opened(member);
                    let j = self.page_of(member);
                    self.pages[j].link.link_opened(me);
                }
                _ => {}
            },
            MemberOutput::ClosePeer(m) => self.pages[i].closed_peers.push(m),
            MemberOutput::Ready(links) => self.pages[i].ready = Some(links),
            MemberOutput::CloseRoom => {
                self.net.close(i);
            }
            MemberOutput::Failed(why) => self.pages[i].failed = Some(why),
            MemberOutput::SpectatorOpen(m) => self.pages[i].spectators.push(m),
            MemberOutput::SpectatorGone(m) => self.pages[i].spectators_gone.push(m),
            MemberOutput::OpenRelay { member, ticket } => {
                // The relay pairs once both ends opened it.
                let on = self.relays.entry(ticket.pair().unwrap()).or_default();
                on.push((i, member));
                if let [(a, am), (b, bm)] = on[..] {
                    self.pages[a].link.link_opened(am);
                    self.pages[b].link.link_opened(bm);
                }
            }
        }
    }
}

#[test]
fn four_pages_build_a_full_mesh_and_learn_every_place() {
    let mut p = Party::new(4);
    // The host first, then the players in an order unlike their places.
    for i in [0, 3, 1, 2] {
        p.join(i);
    }
    // Place 3 joined first, so it holds member 1; place 1 member 2; place
    // 2 member 3.
    let member = |place: usize| p.pages[place].link.me().unwrap();
    assert_eq!(
        [member(0), member(3), member(1), member(2)],
        [MemberId(0), MemberId(1), MemberId(2), MemberId(3)]
    );
    for (i, page) in p.pages.iter().enumerate() {
        assert_eq!(page.failed, None, "page {i}");
        let links = page
            .ready
            .as_ref()
            .unwrap_or_else(|| panic!("page {i} not ready"));
        let places: Vec<u8> = links.iter().map(|(_, place)| *place).collect();
        let want: Vec<u8> = (0..4).filter(|&q| q != i as u8).collect();
        assert_eq!(places, want, "page {i}: links in place order");
        for (m, place) in links {
            assert_eq!(p.pages[*place as usize].link.me(), Some(*m));
        }
        assert_eq!(page.peers.len(), 3, "one peer connection per other player");
    }
    // Every pair has exactly one peer connection each side: the lower id
    // offered (so the host made all three of its own).
    assert!(p.pages[0]
        .link
        .pairs()
        .values()
        .all(|q| q.phase == PairPhase::Open));
    // Every player left the room once its mesh was complete; the host
    // keeps it for spectators until its match ends.
    assert!((1..4).all(|i| p.net.socket(i).is_none()));
    assert!(p.net.socket(0).is_some() && !p.net.room.is_finished());
    p.pages[0].link.end_room();
    p.pump();
    assert!(p.net.socket(0).is_none());
    assert!(p.net.room.is_finished());
}

#[test]
fn a_spectator_links_to_the_host_alone_and_keeps_its_place_in_the_room() {
    let mut p = Party::new(3);
    for i in 0..3 {
        p.join(i);
    }
    assert!(p.pages[..3].iter().all(|page| page.ready.is_some()));
    let w = p.watch();
    let watcher = p.pages[w].link.me().unwrap();
    assert_eq!(watcher.role(), Some(MemberRole::Spectator));
    // One link, to the host, which the spectator offered.
    assert_eq!(p.pages[w].failed, None);
    assert_eq!(p.pages[w].ready, Some(vec![(MemberId::HOST, 0)]));
    assert_eq!(p.pages[w].peers, [MemberId::HOST]);
    assert!(p.pages[w].link.watching());
    assert_eq!(p.pages[0].spectators, [watcher]);
    // The players made no link to it.
    assert!(p.pages[1..3]
        .iter()
        .all(|page| !page.peers.contains(&watcher)));
    // It stays in the room while it watches, keeping its member id, by
    // which the host names its link.
    assert!(p.net.socket(w).is_some());
    assert!(p.net.socket(0).is_some());
    assert_eq!(p.pages[0].link.spectators(), [watcher]);
    // A second spectator, while the first watches, gets an id of its own.
    let w2 = p.watch();
    let second = p.pages[w2].link.me().unwrap();
    assert_eq!(p.pages[w2].ready, Some(vec![(MemberId::HOST, 0)]));
    assert_ne!(second, watcher);
    assert_eq!(p.pages[0].spectators, [watcher, second]);
    // The first one's link closes: the host forgets it alone.
    p.pages[0].link.link_lost(watcher);
    p.pump();
    assert_eq!(p.pages[0].spectators_gone, [watcher]);
    assert_eq!(p.pages[0].link.spectators(), [second]);
}

#[test]
fn a_spectator_that_claims_a_place_or_answers_is_dropped() {
    // Spectator 9 is in the room when the host is welcomed.
    let mut host = host_of_three();
    // An answer it was not asked for, an offer claiming place 1, then a
    // candidate before any offer: all dropped.
    for data in [
        format!(r#"{{"place":255,"signal":{}}}"#, answer().to_value()),
        format!(r#"{{"place":1,"signal":{}}}"#, offer().to_value()),
        format!(r#"{{"place":255,"signal":{}}}"#, candidate().to_value()),
    ] {
        host.room_text(&signal_from(9, &data));
        assert_eq!(host.poll(), None, "{data}");
    }
    // Its honest offer is taken.
    let data = format!(r#"{{"place":255,"signal":{}}}"#, offer().to_value());
    host.room_text(&signal_from(9, &data));
    assert!(matches!(
        host.poll(),
        Some(MemberOutput::Remote {
            member: MemberId(9),
            ..
        })
    ));
    // A spectator id among the players is never a player's link.
    assert!(!host.pairs().contains_key(&MemberId(9)));
}

#[test]
fn three_pages_build_their_mesh_whoever_joins_first() {
    let mut p = Party::new(3);
    for i in [2, 1, 0] {
        // A player who comes before the host: the room still seats it.
        let role = if i == 0 {
            JoinRole::Host
        } else {
            JoinRole::Player
        };
        p.net.join(i, role);
        p.pump();
    }
    for page in &p.pages {
        assert_eq!(page.ready.as_ref().map(Vec::len), Some(2));
    }
    // The players left; the host keeps the room until its match ends.
    assert!(!p.net.room.is_finished());
    p.pages[0].link.end_room();
    p.pump();
    assert!(p.net.room.is_finished());
}

#[test]
fn a_player_who_leaves_before_its_link_opened_ends_the_attempt() {
    let mut p = Party::new(3);
    p.open_links = false;
    p.join(0);
    p.join(1);
    // Place 1 gives up (its page closed) before any link opened.
    assert!(p.net.close(1));
    p.pump();
    // The host heard its answer, so it waits for the link or the deadline.
    assert_eq!(p.pages[0].failed, None);
    p.pages[0].link.tick(Millis(30_000));
    p.pump();
    assert_eq!(p.pages[0].failed, Some(MemberFailure::TimedOut));
    assert_eq!(p.pages[0].closed_peers, vec![MemberId(1)]);
    // One who leaves without a word of handshake ends it at once.
    let mut quiet = MemberLink::new(0, 3, Millis(30_000));
    quiet.room_text(r#"{"type":"welcome","you":0,"role":"host","members":[{"id":0,"role":"host"},{"id":1,"role":"player"}]}"#);
    assert_eq!(quiet.poll(), Some(MemberOutput::Offer(MemberId(1))));
    quiet.room_text(r#"{"type":"member-left","id":1}"#);
    let out: Vec<MemberOutput> = std::iter::from_fn(|| quiet.poll()).collect();
    assert_eq!(
        out.last(),
        Some(&MemberOutput::Failed(MemberFailure::PlayerLeft(MemberId(
            1
        ))))
    );
    assert!(out.contains(&MemberOutput::ClosePeer(MemberId(1))));
}

#[test]
fn a_failed_link_or_a_lost_room_ends_the_attempt() {
    let mut p = Party::new(3);
    p.open_links = false;
    p.join(0);
    p.join(1);
    p.join(2);
    // A failed peer connection is a reason to try the pair's relay.
    p.pages[2].link.link_lost(MemberId(0));
    p.pump();
    assert_eq!(p.pages[2].failed, None);
    assert!(p.pages[2].link.pairs()[&MemberId(0)].relayed);
    assert!(p.pages[0].link.pairs()[&MemberId(2)].relayed);
    // A relay that closes before it paired ends the attempt.
    let mut link = MemberLink::new(1, 2, Millis(30_000));
    link.room_text(r#"{"type":"welcome","you":1,"role":"player","members":[{"id":0,"role":"host"},{"id":1,"role":"player"}]}"#);
    link.link_lost(MemberId(0));
    link.room_text(
        r#"{"type":"relay-ticket","ticket":"1-0.99.00112233445566778899aabbccddeeff","ttl":60}"#,
    );
    let out: Vec<MemberOutput> = std::iter::from_fn(|| link.poll()).collect();
    assert!(out
        .iter()
        .any(|o| matches!(o, MemberOutput::OpenRelay { member, .. } if *member == MemberId(0))));
    link.link_lost(MemberId(0));
    let out: Vec<MemberOutput> = std::iter::from_fn(|| link.poll()).collect();
    assert_eq!(
        out.last(),
        Some(&MemberOutput::Failed(MemberFailure::LinkFailed(MemberId(
            0
        ))))
    );
    // The room socket closing before the mesh is complete.
    let mut link = MemberLink::new(1, 3, Millis(30_000));
    link.room_closed();
    let out: Vec<MemberOutput> = std::iter::from_fn(|| link.poll()).collect();
    assert_eq!(
        out.last(),
        Some(&MemberOutput::Failed(MemberFailure::RoomLost))
    );
    assert_eq!(link.deadline(), None);
}

#[test]
fn a_seat_the_party_cannot_use_is_refused() {
    for (place, welcome) in [
        // A player's page seated as a spectator.
        (
            1,
            r#"{"type":"welcome","you":8,"role":"spectator","members":[{"id":8,"role":"spectator"}]}"#,
        ),
        // The host's page seated as a player.
        (
            0,
            r#"{"type":"welcome","you":1,"role":"player","members":[{"id":1,"role":"player"}]}"#,
        ),
        // A member id beyond the party.
        (
            1,
            r#"{"type":"welcome","you":5,"role":"player","members":[{"id":5,"role":"player"}]}"#,
        ),
    ] {
        let mut link = MemberLink::new(place, 3, Millis(30_000));
        link.room_text(welcome);
        assert_eq!(link.deadline(), None, "{welcome}");
        let out: Vec<MemberOutput> = std::iter::from_fn(|| link.poll()).collect();
        assert_eq!(
            out.last(),
            Some(&MemberOutput::Failed(MemberFailure::WrongSeat)),
            "{welcome}"
        );
    }
}

#[test]
fn a_place_beyond_the_party_fails_at_once() {
    let mut link = MemberLink::new(3, 3, Millis(30_000));
    assert_eq!(link.poll(), Some(MemberOutput::CloseRoom));
    assert_eq!(
        link.poll(),
        Some(MemberOutput::Failed(MemberFailure::WrongSeat))
    );
    link.room_text(r#"{"type":"welcome","you":1,"role":"player","members":[]}"#);
    assert_eq!(link.poll(), None, "nothing after the end");
}

/// A host welcomed with members 1 and 2 present, its offers out.
fn host_of_three() -> MemberLink {
    let mut link = MemberLink::new(0, 3, Millis(30_000));
    link.room_text(r#"{"type":"welcome","you":0,"role":"host","members":[{"id":0,"role":"host"},{"id":1,"role":"player"},{"id":2,"role":"player"},{"id":9,"role":"spectator"}]}"#);
    let out: Vec<MemberOutput> = std::iter::from_fn(|| link.poll()).collect();
    assert_eq!(
        out,
        vec![
            MemberOutput::Offer(MemberId(1)),
            MemberOutput::Offer(MemberId(2))
        ],
        "no link to the spectator"
    );
    link
}

fn signal_from(from: u8, data: &str) -> String {
    format!(r#"{{"type":"signal","from":{from},"data":{data}}}"#)
}

#[test]
fn bad_handshake_data_and_false_places_are_dropped() {
    let mut link = host_of_three();
    for data in [
        // Not the envelope.
        r#"{"type":"answer","sdp":"x"}"#,
        r#"{"place":1}"#,
        r#"{"place":1,"signal":{"type":"answer","sdp":"x"},"extra":1}"#,
        r#"{"place":"1","signal":{"type":"answer","sdp":"x"}}"#,
        r#"{"place":1,"signal":{"type":"shout"}}"#,
        // A place beyond the party, the host's own, or 0 from a player.
        r#"{"place":3,"signal":{"type":"answer","sdp":"x"}}"#,
        r#"{"place":0,"signal":{"type":"answer","sdp":"x"}}"#,
        // An offer to the side that offers.
        r#"{"place":1,"signal":{"type":"offer","sdp":"x"}}"#,
    ] {
        link.room_text(&signal_from(1, data));
        assert_eq!(link.poll(), None, "{data}");
    }
    // A good answer passes, and the place sticks.
    link.room_text(&signal_from(
        1,
        r#"{"place":2,"signal":{"type":"answer","sdp":"x"}}"#,
    ));
    assert!(matches!(
        link.poll(),
        Some(MemberOutput::Remote {
            member: MemberId(1),
            ..
        })
    ));
    // Member 2 claiming member 1's place, or member 1 changing place.
    link.room_text(&signal_from(
        2,
        r#"{"place":2,"signal":{"type":"answer","sdp":"x"}}"#,
    ));
    link.room_text(&signal_from(
        1,
        r#"{"place":1,"signal":{"type":"ice","candidate":"c"}}"#,
    ));
    assert_eq!(link.poll(), None);
    // A member nobody links to (a spectator) and frames that are not JSON.
    link.room_text(&signal_from(
        9,
        r#"{"place":1,"signal":{"type":"answer","sdp":"x"}}"#,
    ));
    link.room_text("not json");
    link.room_text(r#"{"type":"error","reason":"unknown member"}"#);
    assert_eq!(link.poll(), None);
    assert_eq!(link.pairs()[&MemberId(1)].place, Some(2));
    assert_eq!(link.pairs()[&MemberId(2)].place, None);
}

#[test]
fn a_candidate_before_the_offer_is_dropped_and_the_answerer_waits() {
    let mut link = MemberLink::new(2, 3, Millis(30_000));
    link.room_text(r#"{"type":"welcome","you":2,"role":"player","members":[{"id":0,"role":"host"},{"id":1,"role":"player"},{"id":2,"role":"player"}]}"#);
    assert_eq!(link.poll(), None, "the higher id answers both");
    link.room_text(&signal_from(
        0,
        r#"{"place":0,"signal":{"type":"ice","candidate":"c"}}"#,
    ));
    assert_eq!(link.poll(), None);
    link.room_text(&signal_from(
        0,
        r#"{"place":0,"signal":{"type":"offer","sdp":"x"}}"#,
    ));
    assert!(matches!(
        link.poll(),
        Some(MemberOutput::Remote {
            member: MemberId(0),
            ..
        })
    ));
    assert_eq!(link.pairs()[&MemberId(0)].phase, PairPhase::Answering);
    // Our own data goes out in the envelope, addressed by member id.
    link.local_signal(MemberId(0), &answer());
    let Some(MemberOutput::ToRoom(frame)) = link.poll() else {
        panic!("no frame");
    };
    let v: Value = serde_json::from_str(&frame).unwrap();
    assert_eq!(v["to"], 0);
    assert_eq!(v["data"]["place"], 2);
    assert_eq!(v["data"]["signal"]["type"], "answer");
}

#[test]
fn a_pair_with_no_direct_path_links_through_its_relay_and_the_others_stay_direct() {
    let mut p = Party::new(3);
    // Members 1 and 2 (places 1 and 2) never get a direct path.
    p.blocked.push((MemberId(1), MemberId(2)));
    for i in 0..3 {
        p.join(i);
    }
    assert!(p.pages[0].ready.is_some(), "the host's links are direct");
    assert!(p.pages[1..].iter().all(|page| page.ready.is_none()));
    // The first tick sets each pair's relay time; nothing moves before it.
    for t in [Millis(10), Millis(10) + PARTY_RELAY_AFTER - Millis(1)] {
        for page in &mut p.pages {
            page.link.tick(t);
        }
        p.pump();
    }
    assert!(p.relays.is_empty());
    // Member 2's timer runs out first; member 1 follows on its word.
    p.pages[2].link.tick(Millis(10) + PARTY_RELAY_AFTER);
    p.pump();
    for (i, page) in p.pages.iter().enumerate() {
        assert_eq!(page.failed, None, "page {i}");
        let links = page.ready.as_ref().unwrap_or_else(|| panic!("page {i}"));
        let places: Vec<u8> = links.iter().map(|(_, place)| *place).collect();
        let want: Vec<u8> = (0..3).filter(|&q| q != i as u8).collect();
        assert_eq!(places, want, "page {i}");
    }
    assert_eq!(p.relays.len(), 1, "one relay, for the blocked pair");
    let relayed = |i: usize| -> Vec<MemberId> {
        p.pages[i]
            .link
            .pairs()
            .iter()
            .filter(|(_, q)| q.relayed)
            .map(|(m, _)| *m)
            .collect()
    };
    assert_eq!(relayed(0), vec![]);
    assert_eq!(relayed(1), vec![MemberId(2)]);
    assert_eq!(relayed(2), vec![MemberId(1)]);
    // Each closed the peer connection it had made for the pair.
    assert!(p.pages[1].closed_peers.contains(&MemberId(2)));
}

#[test]
fn the_relay_option_puts_every_pair_of_its_page_on_relays_at_once() {
    let mut p = Party::new(3);
    p.pages[2].link = MemberLink::new(2, 3, Millis(30_000)).relay_at_once();
    for i in 0..3 {
        p.join(i);
    }
    for (i, page) in p.pages.iter().enumerate() {
        assert_eq!(page.failed, None, "page {i}");
        assert!(page.ready.is_some(), "page {i} ready without a tick");
    }
    assert_eq!(p.relays.len(), 2, "both of page 2's pairs");
    assert!(
        p.pages[2].peers.is_empty(),
        "page 2 made no peer connection"
    );
    assert!(p.pages[2].link.pairs().values().all(|q| q.relayed));
    assert!(!p.pages[0].link.pairs()[&MemberId(1)].relayed);
}

#[test]
fn a_failed_direct_link_switches_to_the_relay_and_a_stray_ticket_is_dropped() {
    let mut p = Party::new(2);
    p.open_links = false;
    p.join(0);
    p.join(1);
    // A ticket nobody asked for changes nothing.
    let stray =
        r#"{"type":"relay-ticket","ticket":"0-1.99.00112233445566778899aabbccddeeff","ttl":60}"#;
    p.pages[0].link.room_text(stray);
    p.pump();
    assert!(p.relays.is_empty());
    // The host's peer connection fails: it goes to the relay, and so does
    // the other side on hearing it.
    p.pages[0].link.link_lost(MemberId(1));
    p.pump();
    assert!(p
        .pages
        .iter()
        .all(|page| page.ready.is_some() && page.failed.is_none()));
    assert_eq!(p.relays.len(), 1, "the pair's relay, opened from both ends");
}

#[test]
fn a_relay_notice_that_is_malformed_or_claims_a_false_place_is_dropped() {
    let mut link = host_of_three();
    for data in [
        r#"{"place":1,"relay":false}"#,
        r#"{"place":1,"relay":true,"more":1}"#,
        r#"{"place":"1","relay":true}"#,
        r#"{"place":300,"relay":true}"#,
        // Place 0 is the host's, ours; place 3 is beyond the party.
        r#"{"place":0,"relay":true}"#,
        r#"{"place":3,"relay":true}"#,
    ] {
        link.room_text(&signal_from(1, data));
    }
    // A spectator claiming a player's place, a stranger's notice.
    link.room_text(&signal_from(9, r#"{"place":2,"relay":true}"#));
    link.room_text(&signal_from(7, r#"{"place":2,"relay":true}"#));
    assert!(std::iter::from_fn(|| link.poll()).next().is_none());
    assert!(link
        .pairs()
        .values()
        .all(|p| !p.relayed && p.place.is_none()));
    // A good one moves the pair to the relay and sets the place.
    link.room_text(&signal_from(2, r#"{"place":1,"relay":true}"#));
    let out: Vec<MemberOutput> = std::iter::from_fn(|| link.poll()).collect();
    assert_eq!(
        out,
        vec![
            MemberOutput::ClosePeer(MemberId(2)),
            MemberOutput::ToRoom(member_out::signal(
                MemberId(2),
                &json!({"place": 0, "relay": true})
            )),
            MemberOutput::ToRoom(member_out::relay_ticket(MemberId(2))),
        ]
    );
    assert_eq!(link.pairs()[&MemberId(2)].place, Some(1));
    // A spectator's own notice moves its link to the relay too (it had
    // not offered yet: no peer connection to close).
    link.room_text(&signal_from(9, r#"{"place":255,"relay":true}"#));
    let out: Vec<MemberOutput> = std::iter::from_fn(|| link.poll()).collect();
    assert_eq!(
        out,
        vec![
            MemberOutput::ToRoom(member_out::signal(
                MemberId(9),
                &json!({"place": 0, "relay": true})
            )),
            MemberOutput::ToRoom(member_out::relay_ticket(MemberId(9))),
        ]
    );
}
