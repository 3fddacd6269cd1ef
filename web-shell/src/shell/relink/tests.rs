//! Comeback rooms of several pages through the service's real room
//! machine (`signaling_core::Room`). Peer connections are the one thing
//! played by the test: an offer is answered, and an answer opens the link
//! on both ends, as a browser would report it; a relay pairs once both of
//! its ends opened it.

use super::*;
use crate::shell::test_room::{pump, RoomPages, TestRoom};
use signaling_core::JoinRole;
use std::collections::BTreeMap;

struct Page {
    relink: Relink,
    /// The places whose link opened, in order.
    opened: Vec<u8>,
    /// Peer connections made, by the place at their other end.
    made: Vec<u8>,
    closed: Vec<u8>,
    /// Relays opened, by the place at their other end.
    relayed: Vec<u8>,
    ready: bool,
    failed: bool,
    mended: bool,
}

struct Rooms {
    net: TestRoom,
    pages: Vec<Page>,
    /// Answers open nothing while false.
    open_links: bool,
    /// The place that keeps the room (its host member).
    keeper: u8,
    /// Pairs of places between which no direct link opens.
    blocked: Vec<(u8, u8)>,
    /// The relay ends opened, by pair: the page and the place it links to.
    relays: BTreeMap<signaling_protocol::MemberPair, Vec<(usize, u8)>>,
}

fn signal(kind: SignalKind) -> Signal {
    Signal { attempt: 1, kind }
}

impl RoomPages for Rooms {
    fn test_room(&mut self) -> &mut TestRoom {
        &mut self.net
    }

    fn hear(&mut self, page: usize, text: &str) {
        self.pages[page].relink.room_text(text);
    }

    fn room_closed(&mut self, page: usize) {
        self.pages[page].relink.room_closed();
    }

    fn drain(&mut self, page: usize) -> bool {
        let mut any = false;
        while let Some(o) = self.pages[page].relink.poll() {
            any = true;
            self.carry_out(page, o);
        }
        any
    }

    fn count(&self) -> usize {
        self.pages.len()
    }
}

impl Rooms {
    /// A comeback room for `people` and one page per place; those in
    /// `back` come back.
    fn new(people: u8, back: &[u8]) -> Rooms {
        Rooms::of(people, back, 0, |_, r| r)
    }

    /// As [`Rooms::new`], the room kept by place `keeper` (a guest, when
    /// the party's host is among those coming back).
    fn kept_by(people: u8, back: &[u8], keeper: u8) -> Rooms {
        Rooms::of(people, back, keeper, |_, r| r)
    }

    /// As [`new`](Self::new), kept by place `keeper`, each page's side
    /// made by `side` from its place and the plain one.
    fn of(people: u8, back: &[u8], keeper: u8, side: impl Fn(u8, Relink) -> Relink) -> Rooms {
        let mut pages: Vec<Page> = (0..people)
            .map(|place| Page {
                relink: {
                    let r = Relink::new(place, people, back.contains(&place), Millis(10_000));
                    side(place, if place == keeper { r.keeping() } else { r })
                },
                opened: Vec::new(),
                made: Vec::new(),
                closed: Vec::new(),
                relayed: Vec::new(),
                ready: false,
                failed: false,
                mended: false,
            })
            .collect();
        // The keeper lists the places whose links to it are up: those that
        // stayed.
        let live = (1..people)
            .filter(|q| !back.contains(q) && *q != keeper)
            .collect();
        pages[usize::from(keeper)].relink.set_live(live);
        Rooms {
            net: TestRoom::new(people, 0),
            pages,
            open_links: true,
            keeper,
            blocked: Vec::new(),
            relays: BTreeMap::new(),
        }
    }

    fn join(&mut self, i: usize) {
        let role = if i == usize::from(self.keeper) {
            JoinRole::Host
        } else {
            JoinRole::Player
        };
        self.net.join(i, role);
        self.pump();
    }

    fn pump(&mut self) {
        pump(self);
    }

    /// Time passes on every page.
    fn tick(&mut self, now: Millis) {
        for p in &mut self.pages {
            p.relink.tick(now);
        }
        self.pump();
    }

    fn carry_out(&mut self, i: usize, o: RelinkOutput) {
        let me = i as u8;
        match o {
            RelinkOutput::ToRoom(text) => self.net.send(i, &text),
            RelinkOutput::Offer(place) => {
                self.pages[i].made.push(place);
                let offer = signal(SignalKind::Offer("v=0 offer".into()));
                self.pages[i].relink.local_signal(place, &offer);
            }
            RelinkOutput::Remote { place, signal: s } => match s.kind {
                SignalKind::Offer(_) => {
                    self.pages[i].made.push(place);
                    let answer = signal(SignalKind::Answer("v=0 answer".into()));
                    self.pages[i].relink.local_signal(place, &answer);
                }
                SignalKind::Answer(_)
                    if self.open_links
                        && !self.blocked.contains(&(me.min(place), me.max(place))) =>
                {
                    self.pages[i].relink.link_opened(place);
                    self.pages[usize::from(place)].relink.link_opened(me);
                }
                _ => {}
            },
            RelinkOutput::ClosePeer(place) => self.pages[i].closed.push(place),
            RelinkOutput::OpenRelay { place, ticket } => {
                self.pages[i].relayed.push(place);
                // The relay pairs once both ends opened it.
                let on = self.relays.entry(ticket.pair().unwrap()).or_default();
                on.push((i, place));
                if let [(a, aq), (b, bq)] = on[..] {
                    self.pages[a].relink.link_opened(aq);
                    self.pages[b].relink.link_opened(bq);
                }
            }
            RelinkOutput::Opened(place) => self.pages[i].opened.push(place),
            RelinkOutput::Ready => self.pages[i].ready = true,
            RelinkOutput::Failed => self.pages[i].failed = true,
            RelinkOutput::Mended => self.pages[i].mended = true,
            RelinkOutput::CloseRoom => {
                if self.net.close(i) {
                    self.pages[i].relink.room_closed();
                }
            }
        }
    }
}

#[test]
fn a_returning_page_links_to_everyone_and_the_others_keep_their_links() {
    let mut r = Rooms::new(4, &[2]);
    // The pages that stayed come first, the returning one last.
    for i in [0, 1, 3, 2] {
        r.join(i);
    }
    let returning = &r.pages[2];
    assert!(returning.ready && !returning.failed);
    assert_eq!(returning.opened, [0, 1, 3], "a link to every other place");
    for i in [0, 1, 3] {
        assert_eq!(
            r.pages[i].opened,
            [2],
            "page {i} links to the returning page alone"
        );
        assert_eq!(r.pages[i].made, [2], "page {i}");
    }
    // The returning page left; the host then ended the room for everyone.
    assert!(r.net.room.is_finished());
    assert!(r.pages.iter().all(|p| p.relink.over()));
    assert!((0..4).all(|i| r.net.socket(i).is_none()));
    assert!(r.pages.iter().all(|p| p.closed.is_empty()));
}

#[test]
fn two_returning_pages_link_to_each_other_too() {
    let mut r = Rooms::new(4, &[1, 3]);
    // Both returning pages are in before the one that stayed: neither is
    // ready without it, so they meet.
    for i in [3, 0, 1, 2] {
        r.join(i);
    }
    for i in [1, 3] {
        assert!(r.pages[i].ready, "page {i}");
        let want: Vec<u8> = (0..4).filter(|&q| q != i as u8).collect();
        let mut got = r.pages[i].opened.clone();
        got.sort_unstable();
        assert_eq!(got, want, "page {i}");
    }
    let mut got = r.pages[2].opened.clone();
    got.sort_unstable();
    assert_eq!(got, [1, 3]);
    assert!(r.net.room.is_finished());
}

#[test]
fn a_returning_page_does_not_wait_for_a_player_who_is_away_too() {
    let mut r = Rooms::new(4, &[1, 3]);
    // Place 3 has not come back yet: the host does not list it, so place 1
    // is ready with the host and place 2.
    for i in [0, 2, 1] {
        r.join(i);
    }
    assert!(r.pages[1].ready && !r.pages[1].failed);
    let mut got = r.pages[1].opened.clone();
    got.sort_unstable();
    assert_eq!(got, [0, 2]);
    // The host ended the room once place 1 left; place 3 finds it gone
    // and asks again (a new room, where place 1 is one that stayed).
    assert!(r.net.room.is_finished());
}

#[test]
fn a_hello_with_a_list_from_anyone_but_the_host_is_dropped() {
    let mut back = Relink::new(1, 3, true, Millis(10_000));
    back.room_text(r#"{"type":"welcome","you":1,"role":"player","members":[{"id":0,"role":"host"},{"id":1,"role":"player"},{"id":2,"role":"player"}]}"#);
    // Place 2 claims a list; the host's list names a place beyond the party.
    back.room_text(r#"{"type":"signal","from":2,"data":{"place":2,"back":false,"live":[]}}"#);
    back.room_text(r#"{"type":"signal","from":0,"data":{"place":0,"back":false,"live":[5]}}"#);
    back.room_text(
        r#"{"type":"signal","from":0,"data":{"place":0,"back":false,"live":[2],"x":1}}"#,
    );
    let offers: Vec<RelinkOutput> = std::iter::from_fn(|| back.poll())
        .filter(|o| matches!(o, RelinkOutput::Offer(_)))
        .collect();
    assert!(offers.is_empty(), "{offers:?}");
    // The host's own list is taken: the link to it is made.
    back.room_text(r#"{"type":"signal","from":0,"data":{"place":0,"back":false,"live":[2]}}"#);
    back.room_text(
        r#"{"type":"signal","from":0,"data":{"place":0,"signal":{"type":"offer","sdp":"v=0"}}}"#,
    );
    let remote: Vec<RelinkOutput> = std::iter::from_fn(|| back.poll())
        .filter(|o| matches!(o, RelinkOutput::Remote { place: 0, .. }))
        .collect();
    assert_eq!(remote.len(), 1);
}

#[test]
fn a_returning_page_whose_link_never_opens_fails_and_frees_the_room() {
    let mut r = Rooms::new(3, &[1]);
    r.open_links = false;
    r.join(0);
    r.join(2);
    r.join(1);
    assert!(!r.pages[1].ready);
    r.pages[1].relink.tick(Millis(10_000));
    r.pump();
    assert!(r.pages[1].failed);
    assert!(r.net.socket(1).is_none());
    // The host ends the room once no returning member is left in it. The
    // link it was making is kept (its other end may have opened first)
    // until it fails: the returning page closed its end.
    assert!(r.net.room.is_finished());
    assert!(r.pages[0].closed.is_empty());
    r.pages[0].relink.link_lost(1);
    r.pump();
    assert_eq!(r.pages[0].closed, [1]);
    // A link that opens after its member left is the match's all the
    // same.
    let mut stayed = Relink::new(2, 3, false, Millis(10_000));
    stayed.room_text(r#"{"type":"welcome","you":2,"role":"player","members":[{"id":0,"role":"host"},{"id":1,"role":"player"},{"id":2,"role":"player"}]}"#);
    stayed.room_text(r#"{"type":"signal","from":1,"data":{"place":1,"back":true}}"#);
    stayed.room_text(r#"{"type":"member-left","id":1}"#);
    stayed.link_opened(1);
    let opened: Vec<RelinkOutput> = std::iter::from_fn(|| stayed.poll())
        .filter(|o| matches!(o, RelinkOutput::Opened(_) | RelinkOutput::ClosePeer(_)))
        .collect();
    assert_eq!(opened, [RelinkOutput::Opened(1)]);
}

#[test]
fn a_forged_place_or_hello_is_dropped() {
    let mut r = Rooms::new(3, &[1]);
    r.join(0);
    // A member claiming the host's place, or a place beyond the party,
    // gets no link.
    let mut forger = Relink::new(1, 3, true, Millis(10_000));
    let socket = r.net.stranger(JoinRole::Player);
    r.pump();
    for data in [
        r#"{"place":0,"back":true}"#,
        r#"{"place":7,"back":true}"#,
        r#"{"place":"1","back":true}"#,
        r#"{"place":1,"signal":{"type":"offer","sdp":"x"}}"#,
    ] {
        let frame = format!(r#"{{"type":"signal","to":0,"data":{data}}}"#);
        r.net.send_on(socket, &frame);
        r.pump();
    }
    assert!(r.pages[0].made.is_empty() && r.pages[0].opened.is_empty());
    // A hello for a taken place is dropped as well.
    forger.room_text(r#"{"type":"welcome","you":2,"role":"player","members":[{"id":0,"role":"host"},{"id":1,"role":"player"},{"id":2,"role":"player"}]}"#);
    forger.room_text(r#"{"type":"signal","from":0,"data":{"place":0,"back":false}}"#);
    forger.room_text(r#"{"type":"signal","from":1,"data":{"place":0,"back":false}}"#);
    let offers: Vec<RelinkOutput> = std::iter::from_fn(|| forger.poll())
        .filter(|o| matches!(o, RelinkOutput::Offer(_)))
        .collect();
    assert!(offers.is_empty(), "{offers:?}");
}

#[test]
fn two_guests_that_lost_their_link_make_it_again_and_nothing_else() {
    let mut r = Rooms::new(4, &[]);
    r.pages[1].relink.set_mend(vec![3]);
    r.pages[3].relink.set_mend(vec![1]);
    for i in [0, 2, 3, 1] {
        r.join(i);
    }
    for (i, other) in [(1, 3), (3, 1)] {
        let p = &r.pages[i];
        assert!(p.mended && !p.failed && !p.ready, "page {i}");
        assert_eq!(p.opened, [other], "page {i} links to the other alone");
    }
    for i in [0, 2] {
        assert!(r.pages[i].made.is_empty(), "page {i} keeps its links");
    }
    // Both left; the host then ended the room.
    assert!(r.net.room.is_finished());
    assert!(r.pages.iter().all(|p| p.closed.is_empty()));
}

#[test]
fn a_mending_page_lets_go_of_a_place_the_host_says_is_away() {
    // Place 3 is away from the host too: it comes back on its own links,
    // and the page that would mend its link to it waits for it as any
    // page that stayed.
    let mut r = Rooms::new(4, &[3]);
    r.pages[1].relink.set_mend(vec![3]);
    r.join(0);
    r.join(1);
    r.join(2);
    assert!(!r.pages[1].mended && !r.pages[1].relink.over());
    assert!(r.pages[1].made.is_empty());
    r.join(3);
    assert!(r.pages[3].ready);
    assert_eq!(r.pages[1].opened, [3]);
    assert!(!r.pages[1].failed);
    assert!(r.net.room.is_finished());
}

#[test]
fn a_mend_list_naming_the_host_or_from_a_returning_page_is_dropped() {
    let mut page = Relink::new(2, 4, false, Millis(10_000));
    page.set_mend(vec![1]);
    page.room_text(r#"{"type":"welcome","you":2,"role":"player","members":[{"id":0,"role":"host"},{"id":1,"role":"player"},{"id":2,"role":"player"},{"id":3,"role":"player"}]}"#);
    for data in [
        r#"{"place":1,"back":false,"mend":[0]}"#,
        r#"{"place":1,"back":true,"mend":[2]}"#,
        r#"{"place":1,"back":false,"mend":[9]}"#,
        r#"{"place":1,"back":false,"mend":[]}"#,
    ] {
        page.room_text(&format!(r#"{{"type":"signal","from":1,"data":{data}}}"#));
    }
    page.room_text(r#"{"type":"signal","from":0,"data":{"place":0,"back":false,"mend":[2]}}"#);
    let offers: Vec<RelinkOutput> = std::iter::from_fn(|| page.poll())
        .filter(|o| matches!(o, RelinkOutput::Offer(_)))
        .collect();
    assert!(offers.is_empty(), "{offers:?}");
    // A page that stayed names us: we link to it (the lower id offers).
    page.room_text(r#"{"type":"signal","from":3,"data":{"place":3,"back":false,"mend":[2]}}"#);
    let offers: Vec<RelinkOutput> = std::iter::from_fn(|| page.poll())
        .filter(|o| matches!(o, RelinkOutput::Offer(_)))
        .collect();
    assert_eq!(offers, [RelinkOutput::Offer(3)]);
}

#[test]
fn a_returning_host_links_to_every_guest_through_a_room_a_guest_keeps() {
    // The party's host (place 0) comes back; place 1 keeps the room.
    let mut r = Rooms::kept_by(4, &[0], 1);
    for i in [1, 2, 0, 3] {
        r.join(i);
    }
    let host = &r.pages[0];
    assert!(host.ready && !host.failed);
    let mut got = host.opened.clone();
    got.sort_unstable();
    assert_eq!(got, [1, 2, 3], "the returning host links to every guest");
    for i in 1..4 {
        assert_eq!(r.pages[i].opened, [0], "page {i} links to the host alone");
    }
    // The host left once ready; the keeper then ended the room.
    assert!(r.net.room.is_finished());
    assert!(r
        .pages
        .iter()
        .all(|p| p.relink.over() && p.closed.is_empty()));
}

#[test]
fn a_returning_host_does_not_wait_for_a_guest_away_too() {
    // Place 3 is away as well: the keeper does not list it.
    let mut r = Rooms::kept_by(4, &[0, 3], 1);
    for i in [1, 2, 0] {
        r.join(i);
    }
    assert!(r.pages[0].ready);
    let mut got = r.pages[0].opened.clone();
    got.sort_unstable();
    assert_eq!(got, [1, 2]);
}

#[test]
fn in_a_room_a_guest_keeps_place_0_is_the_party_host() {
    const WELCOME: &str = r#"{"type":"welcome","you":2,"role":"player","members":[{"id":0,"role":"host"},{"id":1,"role":"player"},{"id":2,"role":"player"}]}"#;
    // A page that stayed (member 2, place 2), in a room kept by place 1.
    let stayed = || {
        let mut r = Relink::new(2, 3, false, Millis(10_000));
        r.room_text(WELCOME);
        r
    };
    let keeper = r#"{"type":"signal","from":0,"data":{"place":1,"back":false,"live":[2]}}"#;

    // Place 0 coming back is the party's host, and a link to it is made.
    let mut r = stayed();
    r.room_text(keeper);
    r.room_text(r#"{"type":"signal","from":1,"data":{"place":0,"back":true}}"#);
    assert!(r.making(0), "the returning host is linked");
    // Place 0 staying (the host's page linked again while its match is
    // not back, in the room for another player coming back) is taken,
    // and two pages that stay make no link.
    let mut r = stayed();
    r.room_text(keeper);
    r.room_text(r#"{"type":"signal","from":1,"data":{"place":0,"back":false}}"#);
    assert!(!r.making(0));
    r.room_text(r#"{"type":"signal","from":1,"data":{"place":0,"back":true}}"#);
    assert!(!r.making(0), "a second hello is refused");
    // A returning page links to it once the keeper lists it.
    let mut r = Relink::new(2, 3, true, Millis(10_000));
    r.room_text(WELCOME);
    r.room_text(r#"{"type":"signal","from":0,"data":{"place":1,"back":false,"live":[0]}}"#);
    r.room_text(r#"{"type":"signal","from":1,"data":{"place":0,"back":false}}"#);
    assert!(r.making(0), "the returning page links to the host staying");

    // The keeper's place claimed by another member is refused.
    let mut r = stayed();
    r.room_text(keeper);
    r.room_text(r#"{"type":"signal","from":1,"data":{"place":1,"back":true}}"#);
    assert!(!r.making(1));

    // A keeper that says it comes back is refused.
    let mut r = stayed();
    r.room_text(r#"{"type":"signal","from":0,"data":{"place":1,"back":true}}"#);
    assert!(!r.making(1));
}

/// The places of the links a page opened, in order of place.
fn sorted(places: &[u8]) -> Vec<u8> {
    let mut v = places.to_vec();
    v.sort_unstable();
    v
}

#[test]
fn a_returning_page_with_no_direct_path_comes_back_over_relays() {
    use crate::shell::members::PARTY_RELAY_AFTER;
    let mut r = Rooms::new(3, &[1]);
    // The returning page finds no direct path to anyone; the two that
    // stayed keep their link as it is.
    r.blocked = vec![(0, 1), (1, 2)];
    for i in [0, 2, 1] {
        r.join(i);
    }
    assert!(!r.pages[1].ready);
    // The relay deadline runs from each page's first tick after its link
    // was to be made.
    r.tick(Millis(100));
    r.tick(Millis(100 + PARTY_RELAY_AFTER.0 - 1));
    assert!(!r.pages[1].ready && r.pages.iter().all(|p| p.relayed.is_empty()));
    r.tick(Millis(100 + PARTY_RELAY_AFTER.0));
    let back = &r.pages[1];
    assert!(back.ready && !back.failed);
    assert_eq!(sorted(&back.opened), [0, 2]);
    assert_eq!(sorted(&back.relayed), [0, 2], "one relay to each");
    assert!(back.relink.relayed(0) && back.relink.relayed(2));
    for i in [0, 2] {
        let p = &r.pages[i];
        assert_eq!(
            (&p.opened[..], &p.relayed[..]),
            (&[1][..], &[1][..]),
            "page {i}"
        );
        assert!(!p.failed, "page {i}");
    }
    // The peer connections given up were closed (never reported opened).
    assert!(r.pages[0].closed.contains(&1) && back.closed.contains(&0));
    // The returning page left; the host then ended the room.
    assert!(r.net.room.is_finished());
}

#[test]
fn a_failed_direct_link_of_the_returning_page_goes_to_its_relay_on_both_ends() {
    let mut r = Rooms::new(3, &[2]);
    r.blocked = vec![(0, 2)];
    for i in [0, 1, 2] {
        r.join(i);
    }
    // Its link to place 1 opened directly; the one to the host fails.
    assert_eq!(r.pages[2].opened, [1]);
    r.pages[2].relink.link_lost(0);
    r.pump();
    // The closed peer connection's own report changes nothing.
    r.pages[2].relink.link_lost(0);
    r.pages[0].relink.link_lost(2);
    r.pump();
    let back = &r.pages[2];
    assert!(back.ready && !back.failed);
    assert_eq!(back.relayed, [0]);
    assert_eq!(sorted(&back.opened), [0, 1]);
    assert_eq!(
        (&r.pages[0].opened[..], &r.pages[0].relayed[..]),
        (&[2][..], &[2][..])
    );
    assert!(
        r.pages[1].relayed.is_empty(),
        "the direct link stays direct"
    );
    assert!(!back.relink.relayed(1));
    assert!(r.net.room.is_finished());
}

#[test]
fn the_relay_option_puts_every_comeback_link_of_its_page_on_a_relay() {
    // Only the returning page has `?relay=1`: it makes no peer
    // connection, and the others follow on its word without a timer.
    let mut r = Rooms::of(3, &[1], 0, |place, side| {
        if place == 1 {
            side.relay_at_once()
        } else {
            side
        }
    });
    for i in [0, 2, 1] {
        r.join(i);
    }
    let back = &r.pages[1];
    assert!(back.ready && !back.failed);
    assert!(back.made.is_empty(), "no peer connection");
    assert_eq!(sorted(&back.relayed), [0, 2]);
    assert_eq!(r.pages[0].relayed, [1]);
    assert_eq!(r.pages[2].relayed, [1]);
    assert!(r.net.room.is_finished());
}

#[test]
fn two_guests_with_no_direct_path_mend_their_link_over_its_relay() {
    use crate::shell::members::PARTY_RELAY_AFTER;
    let mut r = Rooms::new(4, &[]);
    r.pages[1].relink.set_mend(vec![3]);
    r.pages[3].relink.set_mend(vec![1]);
    r.blocked = vec![(1, 3)];
    for i in [0, 2, 3, 1] {
        r.join(i);
    }
    assert!(!r.pages[1].mended);
    r.tick(Millis(100));
    r.tick(Millis(100 + PARTY_RELAY_AFTER.0));
    for (i, other) in [(1, 3), (3, 1)] {
        let p = &r.pages[i];
        assert!(p.mended && !p.failed, "page {i}");
        assert_eq!(
            (&p.opened[..], &p.relayed[..]),
            (&[other][..], &[other][..])
        );
    }
    for i in [0, 2] {
        assert!(r.pages[i].made.is_empty() && r.pages[i].relayed.is_empty());
    }
    assert!(r.net.room.is_finished());
}

#[test]
fn a_relay_notice_with_a_false_place_or_a_stray_ticket_is_dropped() {
    let welcome = r#"{"type":"welcome","you":1,"role":"player","members":[{"id":0,"role":"host"},{"id":1,"role":"player"},{"id":2,"role":"player"}]}"#;
    let mut back = Relink::new(1, 3, true, Millis(10_000));
    back.room_text(welcome);
    back.room_text(r#"{"type":"signal","from":0,"data":{"place":0,"back":false,"live":[2]}}"#);
    back.room_text(r#"{"type":"signal","from":2,"data":{"place":2,"back":false}}"#);
    let _: Vec<RelinkOutput> = std::iter::from_fn(|| back.poll()).collect();
    for data in [
        // Another place than its hello's; a notice with more to it; one
        // that is not a yes.
        r#"{"place":0,"relay":true}"#,
        r#"{"place":2,"relay":true,"x":1}"#,
        r#"{"place":2,"relay":false}"#,
    ] {
        back.room_text(&format!(r#"{{"type":"signal","from":2,"data":{data}}}"#));
    }
    // A ticket it did not ask for.
    back.room_text(
        r#"{"type":"relay-ticket","ticket":"1-2.99.00112233445566778899aabbccddeeff","ttl":60}"#,
    );
    let out: Vec<RelinkOutput> = std::iter::from_fn(|| back.poll()).collect();
    assert!(out.is_empty(), "{out:?}");
    assert!(!back.relayed(2));
    // Its own notice is taken: we switch too and ask for our ticket.
    back.room_text(r#"{"type":"signal","from":2,"data":{"place":2,"relay":true}}"#);
    let out: Vec<RelinkOutput> = std::iter::from_fn(|| back.poll()).collect();
    assert!(back.relayed(2));
    assert!(out.contains(&RelinkOutput::ClosePeer(2)), "{out:?}");
    assert!(out
        .iter()
        .any(|o| matches!(o, RelinkOutput::ToRoom(t) if t.contains("relay-ticket"))));
}
