//! Peer connections, carried out for the shell: the lobby mesh and the
//! match link, each a [`WebRtcTransport`].

use super::app::dispatch;
use crate::shell::room::Candidate;
use crate::shell::{Input, LinkId, RtcEvent};
use lockstep::{Channel, LinkState, Transport};
use std::collections::BTreeMap;
use std::rc::Rc;
use wasm_bindgen_futures::spawn_local;
use webrtc_transport::{Handshake, WebRtcTransport};

struct Link {
    tag: u32,
    transport: WebRtcTransport,
    reported_open: bool,
    reported_closed: bool,
}

/// The peer connections, by the shell's id.
#[derive(Default)]
pub struct Rtc {
    links: BTreeMap<LinkId, Link>,
}

impl Rtc {
    /// Creates a connection (replacing any with the same id).
    pub fn create(&mut self, link: LinkId, tag: u32, ice_servers: &str) {
        self.links.remove(&link);
        let ice = js_sys::JSON::parse(ice_servers).unwrap_or_else(|_| js_sys::Array::new().into());
        // Every change wakes the page, so events are fed promptly.
        let notify = Rc::new(|| dispatch(|_| {}));
        match WebRtcTransport::new(&ice, notify) {
            Ok(transport) => {
                self.links.insert(
                    link,
                    Link {
                        tag,
                        transport,
                        reported_open: false,
                        reported_closed: false,
                    },
                );
            }
            Err(_) => log::error!("could not create a peer connection"),
        }
    }

    fn handshake(&self, link: &LinkId, tag: u32) -> Option<Handshake> {
        let l = self.links.get(link).filter(|l| l.tag == tag)?;
        Some(l.transport.handshake())
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
            if let Err(e) = l.transport.send(channel, bytes) {
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
            while let Some(c) = l.transport.poll_local_ice() {
                ev(RtcEvent::Candidate(c));
            }
            while let Some((channel, bytes)) = l.transport.recv() {
                ev(RtcEvent::Data(channel, bytes));
            }
            let st = l.transport.state();
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
