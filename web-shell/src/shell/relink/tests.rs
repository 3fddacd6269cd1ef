//! Comeback rooms of several pages through the service's real room
//! machine (`signaling_core::Room`). Peer connections are the one thing
//! played by the test: an offer is answered, and an answer opens the link
//! on both ends, as a browser would report it.

use super::*;
use signaling_core::{Action, Event, JoinRole, Room, RoomCapacity, RoomCode, RoomLimits, SocketId};
use std::collections::{BTreeMap, VecDeque};

struct Page {
    relink: Relink,
    socket: Option<SocketId>,
    /// The places whose link opened, in order.
    opened: Vec<u8>,
    /// Peer connections made, by the place at their other end.
    made: Vec<u8>,
    closed: Vec<u8>,
    ready: bool,
    failed: bool,
    mended: bool,
}

struct Rooms {
    room: Room,
    pages: Vec<Page>,
    by_socket: BTreeMap<SocketId, usize>,
    from_room: VecDeque<Action<signaling_core::RoomAttachment>>,
    /// Answers open nothing while false.
    open_links: bool,
    /// The place that keeps the room (its host member).
    keeper: u8,
}

fn signal(kind: SignalKind) -> Signal {
    Signal { attempt: 1, kind }
}

impl Rooms {
    /// A comeback room for `people` and one page per place; those in
    /// `back` come back.
    fn new(people: u8, back: &[u8]) -> Rooms {
        Rooms::kept_by(people, back, 0)
    }

    /// As [`Rooms::new`], the room kept by place `keeper` (a guest, when
    /// the party's host is among those coming back).
    fn kept_by(people: u8, back: &[u8], keeper: u8) -> Rooms {
        let cap = RoomCapacity {
            players: people,
            spectators: 0,
        };
        let code = RoomCode::parse("K7M2QX").unwrap();
        let (room, _) = Room::with_members(code, cap, RoomLimits::default(), Millis(0));
        let mut pages: Vec<Page> = (0..people)
            .map(|place| Page {
                relink: {
                    let r = Relink::new(place, people, back.contains(&place), Millis(10_000));
                    if place == keeper {
                        r.keeping()
                    } else {
                        r
                    }
                },
                socket: None,
                opened: Vec::new(),
                made: Vec::new(),
                closed: Vec::new(),
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
            room,
            pages,
            by_socket: BTreeMap::new(),
            from_room: VecDeque::new(),
            open_links: true,
            keeper,
        }
    }

    fn join(&mut self, i: usize) {
        let role = if i == usize::from(self.keeper) {
            JoinRole::Host
        } else {
            JoinRole::Player
        };
        let (socket, actions) = self.room.admit(role, Millis(1)).unwrap();
        self.pages[i].socket = Some(socket);
        self.by_socket.insert(socket, i);
        self.from_room.extend(actions);
        self.pump();
    }

    fn pump(&mut self) {
        for _ in 0..10_000 {
            let mut moved = false;
            while let Some(a) = self.from_room.pop_front() {
                moved = true;
                match a {
                    Action::Send { socket, text } => {
                        if let Some(&i) = self.by_socket.get(&socket) {
                            self.pages[i].relink.room_text(&text);
                        }
                    }
                    Action::Close { socket, .. } => {
                        if let Some(i) = self.by_socket.remove(&socket) {
                            self.pages[i].socket = None;
                            self.pages[i].relink.room_closed();
                        }
                    }
                    _ => {}
                }
            }
            for i in 0..self.pages.len() {
                while let Some(o) = self.pages[i].relink.poll() {
                    moved = true;
                    self.carry_out(i, o);
                }
            }
            if !moved {
                return;
            }
        }
        panic!("the pages never settled");
    }

    fn carry_out(&mut self, i: usize, o: RelinkOutput) {
        let me = i as u8;
        match o {
            RelinkOutput::ToRoom(text) => {
                if let Some(socket) = self.pages[i].socket {
                    let actions = self.room.handle(
                        Event::Text {
                            socket,
                            text: &text,
                        },
                        Millis(2),
                    );
                    self.from_room.extend(actions);
                }
            }
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
                SignalKind::Answer(_) if self.open_links => {
                    self.pages[i].relink.link_opened(place);
                    self.pages[usize::from(place)].relink.link_opened(me);
                }
                _ => {}
            },
            RelinkOutput::ClosePeer(place) => self.pages[i].closed.push(place),
            RelinkOutput::Opened(place) => self.pages[i].opened.push(place),
            RelinkOutput::Ready => self.pages[i].ready = true,
            RelinkOutput::Failed => self.pages[i].failed = true,
            RelinkOutput::Mended => self.pages[i].mended = true,
            RelinkOutput::CloseRoom => {
                if let Some(socket) = self.pages[i].socket.take() {
                    self.by_socket.remove(&socket);
                    let actions = self.room.handle(Event::Closed { socket }, Millis(3));
                    self.from_room.extend(actions);
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
    assert!(r.room.is_finished());
    assert!(r
        .pages
        .iter()
        .all(|p| p.socket.is_none() && p.relink.over()));
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
    assert!(r.room.is_finished());
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
    assert!(r.room.is_finished());
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
    assert!(r.pages[1].socket.is_none());
    // The host ends the room once no returning member is left in it. The
    // link it was making is kept (its other end may have opened first)
    // until it fails: the returning page closed its end.
    assert!(r.room.is_finished());
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
    let (socket, actions) = r.room.admit(JoinRole::Player, Millis(1)).unwrap();
    r.from_room.extend(actions);
    r.pump();
    for data in [
        r#"{"place":0,"back":true}"#,
        r#"{"place":7,"back":true}"#,
        r#"{"place":"1","back":true}"#,
        r#"{"place":1,"signal":{"type":"offer","sdp":"x"}}"#,
    ] {
        let frame = format!(r#"{{"type":"signal","to":0,"data":{data}}}"#);
        let actions = r.room.handle(
            Event::Text {
                socket,
                text: &frame,
            },
            Millis(2),
        );
        r.from_room.extend(actions);
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
    assert!(r.room.is_finished());
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
    assert!(r.room.is_finished());
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
    assert!(r.room.is_finished());
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
fn in_a_room_a_guest_keeps_place_0_is_only_the_returning_host() {
    const WELCOME: &str = r#"{"type":"welcome","you":2,"role":"player","members":[{"id":0,"role":"host"},{"id":1,"role":"player"},{"id":2,"role":"player"}]}"#;
    // A page that stayed (member 2, place 2), in a room kept by place 1.
    let stayed = || {
        let mut r = Relink::new(2, 3, false, Millis(10_000));
        r.room_text(WELCOME);
        r
    };
    let keeper = r#"{"type":"signal","from":0,"data":{"place":1,"back":false,"live":[2]}}"#;

    // Place 0 from a member that does not come back is refused; coming
    // back, it is the party's host, and a link to it is made.
    let mut r = stayed();
    r.room_text(keeper);
    r.room_text(r#"{"type":"signal","from":1,"data":{"place":0,"back":false}}"#);
    assert!(!r.making(0));
    r.room_text(r#"{"type":"signal","from":1,"data":{"place":0,"back":true}}"#);
    assert!(r.making(0), "the returning host is linked");

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
