//! The page's links (the lobby mesh's peer connections and the match's
//! link), kept by the shell's [`LinkId`] with the attempt each belongs to,
//! and what the shell has been told of each.
//!
//! The page holds the browser objects in a [`Links`]; which link an output
//! reaches, that a new link replaces the old one of the same id, and that
//! each change of a link is reported once are decided here, so the
//! browser side only makes the objects and calls them.

use super::room::Candidate;
use super::{Input, LinkId, RtcEvent};
use lockstep::{Channel, LinkState, Transport};
use std::collections::BTreeMap;

/// What carries a link: a [`Transport`], and for a peer connection the
/// local ICE candidates it gathered.
pub trait Carrier {
    /// The link's transport.
    fn transport(&mut self) -> &mut dyn Transport;

    /// The next local ICE candidate to relay to the other side (none for a
    /// carrier without ICE, such as the relay socket).
    fn local_candidate(&mut self) -> Option<Candidate> {
        None
    }

    /// Whether ICE has lost the path while the link's channels are open
    /// (never, for a carrier without ICE).
    fn path_down(&self) -> bool {
        false
    }
}

/// A link and what of its state the shell has been told.
struct Entry<C> {
    tag: u32,
    carrier: C,
    told_open: bool,
    told_closed: bool,
    told_backlog: usize,
    told_down: bool,
}

/// The page's links by [`LinkId`], each with its attempt's tag.
pub struct Links<C> {
    links: BTreeMap<LinkId, Entry<C>>,
}

impl<C> Default for Links<C> {
    fn default() -> Self {
        Links {
            links: BTreeMap::new(),
        }
    }
}

impl<C: Carrier> Links<C> {
    /// Adds `carrier` as `link` of attempt `tag`, dropping (and so
    /// closing) any link it replaces: nothing more is reported of that one.
    pub fn insert(&mut self, link: LinkId, tag: u32, carrier: C) {
        let entry = Entry {
            tag,
            carrier,
            told_open: false,
            told_closed: false,
            told_backlog: 0,
            told_down: false,
        };
        self.links.insert(link, entry);
    }

    /// Drops a link (closing it); nothing more is reported of it.
    pub fn remove(&mut self, link: &LinkId) {
        self.links.remove(link);
    }

    /// Drops every lobby mesh link; the match's and a party's links stay.
    pub fn remove_mesh(&mut self) {
        self.links.retain(|k, _| !matches!(k, LinkId::Mesh(_)));
    }

    /// The carrier of `link`, only while it is the one of attempt `tag`
    /// (an output for an attempt already replaced reaches nothing).
    pub fn get(&self, link: &LinkId, tag: u32) -> Option<&C> {
        Some(&self.links.get(link).filter(|l| l.tag == tag)?.carrier)
    }

    /// Sends a datagram on `link`; a link that is gone or refuses it drops
    /// it (the session resends what matters).
    pub fn send(&mut self, link: &LinkId, channel: Channel, bytes: &[u8]) {
        if let Some(l) = self.links.get_mut(link) {
            if let Err(e) = l.carrier.transport().send(channel, bytes) {
                log::debug!("could not send to a peer: {e}");
            }
        }
    }

    /// What happened on every link since the last call, as inputs: local
    /// candidates, datagrams in arrival order, the send backlog when it
    /// changed, then the link's opening, a loss or return of its path
    /// (once per change, while it is open), and its end, each reported
    /// once.
    pub fn poll(&mut self) -> Vec<Input> {
        let mut inputs = Vec::new();
        for (link, l) in &mut self.links {
            let tag = l.tag;
            let mut ev = |event| {
                let link = link.clone();
                inputs.push(Input::Rtc { link, tag, event });
            };
            while let Some(c) = l.carrier.local_candidate() {
                ev(RtcEvent::Candidate(c));
            }
            let t = l.carrier.transport();
            while let Some((channel, bytes)) = t.recv() {
                ev(RtcEvent::Data(channel, bytes));
            }
            let backlog = t.send_backlog();
            if backlog != l.told_backlog {
                l.told_backlog = backlog;
                ev(RtcEvent::Backlog(backlog));
            }
            let state = t.state();
            if state == LinkState::Open && !l.told_open {
                l.told_open = true;
                ev(RtcEvent::Open);
            }
            let down = l.carrier.path_down();
            if down != l.told_down && l.told_open && !l.told_closed {
                l.told_down = down;
                ev(if down {
                    RtcEvent::PathDown
                } else {
                    RtcEvent::PathUp
                });
            }
            if state.is_terminal() && !l.told_closed {
                l.told_closed = true;
                ev(RtcEvent::Closed);
            }
        }
        inputs
    }
}
