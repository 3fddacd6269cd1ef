//! The page's links as the browser side keeps them ([`Links`]), over the
//! relay link's real state machine: each change is reported once, in
//! order and with the attempt's tag; an output for a replaced attempt
//! reaches nothing; a replaced or removed link says no more.

use lockstep::{Channel, LinkState, Transport, TransportError};
use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;
use web_shell::id::PeerId;
use web_shell::relay::{encode, RelayLink};
use web_shell::shell::links::{Carrier, Links};
use web_shell::shell::room::Candidate;
use web_shell::shell::{Input, LinkId, RtcEvent};

const PAIRED: &str = r#"{"type":"paired"}"#;

/// A relay link shared with the "socket" that drives it, as the browser's
/// relay transport shares it with its socket's callbacks; and the local
/// candidates a peer connection would gather.
#[derive(Clone, Default)]
struct Shared {
    link: Rc<RefCell<RelayLink>>,
    candidates: Rc<RefCell<VecDeque<Candidate>>>,
}

impl Transport for Shared {
    fn send(&mut self, channel: Channel, datagram: &[u8]) -> Result<(), TransportError> {
        self.link.borrow_mut().send(channel, datagram)
    }
    fn recv(&mut self) -> Option<(Channel, Vec<u8>)> {
        self.link.borrow_mut().recv()
    }
    fn state(&self) -> LinkState {
        self.link.borrow().state()
    }
    fn close(&mut self) {
        self.link.borrow_mut().close();
    }
    fn send_backlog(&self) -> usize {
        self.link.borrow().send_backlog()
    }
}

impl Carrier for Shared {
    fn transport(&mut self) -> &mut dyn Transport {
        self
    }
    fn local_candidate(&mut self) -> Option<Candidate> {
        self.candidates.borrow_mut().pop_front()
    }
}

fn events(links: &mut Links<Shared>) -> Vec<(LinkId, u32, RtcEvent)> {
    links
        .poll()
        .into_iter()
        .map(|i| match i {
            Input::Rtc { link, tag, event } => (link, tag, event),
            other => panic!("not a link event: {other:?}"),
        })
        .collect()
}

fn candidate(n: u16) -> Candidate {
    Candidate {
        candidate: format!("candidate:{n} 1 udp 1 192.0.2.1 9 typ host"),
        sdp_mid: Some("0".into()),
        sdp_m_line_index: Some(n),
    }
}

#[test]
fn each_change_of_a_link_is_reported_once() {
    let mut links = Links::default();
    let m = Shared::default();
    links.insert(LinkId::Match, 3, m.clone());
    assert_eq!(events(&mut links), [], "nothing happened yet");
    assert!(links.get(&LinkId::Match, 3).is_some());
    assert!(links.get(&LinkId::Match, 2).is_none(), "another attempt's");

    // Candidates, then datagrams in order, then the opening.
    m.candidates.borrow_mut().push_back(candidate(0));
    m.link.borrow_mut().on_text(PAIRED);
    m.link
        .borrow_mut()
        .on_binary(&encode(Channel::Reliable, b"one"));
    m.link
        .borrow_mut()
        .on_binary(&encode(Channel::Unreliable, b"two"));
    let (at, tag) = (LinkId::Match, 3);
    assert_eq!(
        events(&mut links),
        [
            (at.clone(), tag, RtcEvent::Candidate(candidate(0))),
            (
                at.clone(),
                tag,
                RtcEvent::Data(Channel::Reliable, b"one".to_vec())
            ),
            (
                at.clone(),
                tag,
                RtcEvent::Data(Channel::Unreliable, b"two".to_vec())
            ),
            (at.clone(), tag, RtcEvent::Open),
        ]
    );
    assert_eq!(events(&mut links), [], "open is said once");

    // The send backlog, when it changes, and only then.
    links.send(&LinkId::Match, Channel::Reliable, b"hello");
    let queued = encode(Channel::Reliable, b"hello").len();
    assert_eq!(
        events(&mut links),
        [(at.clone(), tag, RtcEvent::Backlog(queued))]
    );
    assert_eq!(events(&mut links), []);
    assert!(m.link.borrow_mut().poll_frame().is_some());
    assert_eq!(
        events(&mut links),
        [(at.clone(), tag, RtcEvent::Backlog(0))]
    );

    // A send on a link that is gone, or not open, is dropped.
    let peer = LinkId::Mesh(PeerId::parse("AAAAAAAAAAAA").unwrap());
    links.send(&peer, Channel::Reliable, b"nobody");
    let mesh = Shared::default();
    links.insert(peer.clone(), 1, mesh.clone());
    links.send(&peer, Channel::Reliable, b"not yet");
    assert_eq!(mesh.link.borrow_mut().poll_frame(), None);

    // The end, once.
    m.link.borrow_mut().on_closed(1006);
    assert_eq!(events(&mut links), [(at.clone(), tag, RtcEvent::Closed)]);
    assert_eq!(events(&mut links), []);

    // Dropping the mesh keeps the match link; a replaced link says no more.
    links.remove_mesh();
    assert!(links.get(&peer, 1).is_none());
    assert!(links.get(&LinkId::Match, 3).is_some());
    let next = Shared::default();
    links.insert(LinkId::Match, 4, next.clone());
    m.link.borrow_mut().on_text(PAIRED);
    assert_eq!(events(&mut links), [], "the old attempt is gone");
    next.link.borrow_mut().on_text(PAIRED);
    assert_eq!(events(&mut links), [(at.clone(), 4, RtcEvent::Open)]);
    links.remove(&LinkId::Match);
    next.link.borrow_mut().on_closed(1000);
    assert_eq!(events(&mut links), []);
}
