//! Peer connections, carried out for the shell: the lobby mesh and the
//! match link, each a [`WebRtcTransport`]; or, for a match with no direct
//! path, the match link as a [`RelayTransport`] over the signalling
//! service's relay, reported with the same events.

use super::app::dispatch;
use crate::shell::room::Candidate;
use crate::shell::{Input, LinkId, RtcEvent};
use lockstep::{Channel, LinkState, Transport};
use std::collections::BTreeMap;
use std::rc::Rc;
use wasm_bindgen_futures::spawn_local;
use webrtc_transport::{Handshake, WebRtcTransport};

use crate::relay::RelayTransport;

/// What carries a link.
enum Carrier {
    Rtc(WebRtcTransport),
    Relay(RelayTransport),
}

impl Carrier {
    fn transport(&mut self) -> &mut dyn Transport {
        match self {
            Carrier::Rtc(t) => t,
            Carrier::Relay(t) => t,
        }
    }
}

/// A link, and what of its state the shell has been told.
struct Link {
    tag: u32,
    transport: Carrier,
    reported_open: bool,
    reported_closed: bool,
    reported_backlog: usize,
}

impl Link {
    fn new(tag: u32, transport: Carrier) -> Link {
        Link {
            tag,
            transport,
            reported_open: false,
            reported_closed: false,
            reported_backlog: 0,
        }
    }
}

/// The peer connections, by the shell's id.
#[derive(Default)]
pub struct Rtc {
    links: BTreeMap<LinkId, Link>,
}

impl Rtc {
    /// Creates a connection (replacing any with the same id); `false` if
    /// the browser refused to (the `iceServers` JSON comes from the shell,
    /// which writes it valid).
    pub fn create(&mut self, link: LinkId, tag: u32, ice_servers: &str) -> bool {
        self.links.remove(&link);
        // Every change wakes the page, so events are fed promptly.
        let notify = Rc::new(|| dispatch(|_| {}));
        let made =
            js_sys::JSON::parse(ice_servers).and_then(|ice| WebRtcTransport::new(&ice, notify));
        match made {
            Ok(t) => {
                self.links.insert(link, Link::new(tag, Carrier::Rtc(t)));
                true
            }
            Err(_) => {
                log::error!("could not create a peer connection");
                false
            }
        }
    }

    fn handshake(&self, link: &LinkId, tag: u32) -> Option<Handshake> {
        let l = self.links.get(link).filter(|l| l.tag == tag)?;
        match &l.transport {
            Carrier::Rtc(t) => Some(t.handshake()),
            Carrier::Relay(_) => None,
        }
    }

    /// Opens the match's relay socket as attempt `tag`, in place of its
    /// peer connection; `false` if the browser refused to open it.
    pub fn open_relay(&mut self, tag: u32, url: &str) -> bool {
        self.links.remove(&LinkId::Match);
        let notify = Rc::new(|| dispatch(|_| {}));
        match RelayTransport::open(url, notify) {
            Ok(t) => {
                self.links
                    .insert(LinkId::Match, Link::new(tag, Carrier::Relay(t)));
                true
            }
            Err(_) => {
                log::warn!("could not open the relay socket");
                false
            }
        }
    }

    /// Makes an offer; the result comes back as [`RtcEvent::Offer`].
    pub fn make_offer(&self, link: LinkId, tag: u32) {
        let Some(hs) = self.handshake(&link, tag) else {
            return;
        };
        spawn_local(async move {
            let sdp = hs.create_offer().await.ok();
            dispatch(move |app| app.feed(rtc_input(link, tag, RtcEvent::Offer(sdp))));
        });
    }

    /// Applies an offer and makes the answer ([`RtcEvent::Answer`]).
    pub fn make_answer(&self, link: LinkId, tag: u32, offer: String) {
        let Some(hs) = self.handshake(&link, tag) else {
            return;
        };
        spawn_local(async move {
            let sdp = hs.accept_offer(&offer).await.ok();
            dispatch(move |app| app.feed(rtc_input(link, tag, RtcEvent::Answer(sdp))));
        });
    }

    /// Applies the other side's answer.
    pub fn apply_answer(&self, link: &LinkId, tag: u32, answer: String) {
        if let Some(hs) = self.handshake(link, tag) {
            spawn_local(async move {
                if hs.accept_answer(&answer).await.is_err() {
                    log::warn!("an answer was refused");
                }
            });
        }
    }

    /// Adds a candidate the other side relayed.
    pub fn add_candidate(&self, link: &LinkId, tag: u32, c: Candidate) {
        if let Some(hs) = self.handshake(link, tag) {
            hs.add_remote_ice(c);
        }
    }

    /// Sends a datagram.
    pub fn send(&mut self, link: &LinkId, channel: Channel, bytes: &[u8]) {
        if let Some(l) = self.links.get_mut(link) {
            if let Err(e) = l.transport.transport().send(channel, bytes) {
                log::info!("could not send to a peer: {e}");
            }
        }
    }

    /// Closes a connection.
    pub fn close(&mut self, link: &LinkId) {
        self.links.remove(link);
    }

    /// Closes every lobby mesh connection.
    pub fn close_mesh(&mut self) {
        self.links.retain(|k, _| *k == LinkId::Match);
    }

    /// What happened on every connection since the last call.
    pub fn poll(&mut self) -> Vec<Input> {
        let mut inputs = Vec::new();
        for (link, l) in &mut self.links {
            let mut ev = |event| inputs.push(rtc_input(link.clone(), l.tag, event));
            if let Carrier::Rtc(t) = &mut l.transport {
                while let Some(c) = t.poll_local_ice() {
                    ev(RtcEvent::Candidate(c));
                }
            }
            let t = l.transport.transport();
            while let Some((channel, bytes)) = t.recv() {
                ev(RtcEvent::Data(channel, bytes));
            }
            let backlog = t.send_backlog();
            if backlog != l.reported_backlog {
                l.reported_backlog = backlog;
                ev(RtcEvent::Backlog(backlog));
            }
            let st = t.state();
            if st == LinkState::Open && !l.reported_open {
                l.reported_open = true;
                ev(RtcEvent::Open);
            }
            if st.is_terminal() && !l.reported_closed {
                l.reported_closed = true;
                ev(RtcEvent::Closed);
            }
        }
        inputs
    }
}

fn rtc_input(link: LinkId, tag: u32, event: RtcEvent) -> Input {
    Input::Rtc { link, tag, event }
}
