//! Peer connections, carried out for the shell: the lobby mesh and the
//! match link and a party's links, each a [`WebRtcTransport`]; or, for a
//! match link or party link with no direct path, a [`RelayTransport`] over
//! the signalling service's relay, reported with the same events. Which link an output
//! reaches and what is reported when is the shell's [`Links`].

use super::app::{feed_later, wake};
use crate::relay::RelayTransport;
use crate::shell::links::{Carrier, Links};
use crate::shell::room::Candidate;
use crate::shell::{Input, LinkId, RtcEvent, SdpStep};
use lockstep::Transport;
use std::rc::Rc;
use wasm_bindgen_futures::spawn_local;
use webrtc_transport::WebRtcTransport;

/// What carries a link.
pub enum Link {
    Rtc(WebRtcTransport),
    Relay(RelayTransport),
}

impl Carrier for Link {
    fn transport(&mut self) -> &mut dyn Transport {
        match self {
            Link::Rtc(t) => t,
            Link::Relay(t) => t,
        }
    }

    fn local_candidate(&mut self) -> Option<Candidate> {
        match self {
            Link::Rtc(t) => t.poll_local_ice(),
            Link::Relay(_) => None,
        }
    }

    fn path_down(&self) -> bool {
        match self {
            Link::Rtc(t) => t.path_down(),
            Link::Relay(_) => false,
        }
    }
}

/// Creates a peer connection (the `iceServers` JSON comes from the shell,
/// which writes it valid); `None` if the browser refused to.
pub fn create(ice_servers: &str) -> Option<Link> {
    // Every change wakes the page, so events are fed promptly.
    js_sys::JSON::parse(ice_servers)
        .and_then(|ice| WebRtcTransport::new(&ice, Rc::new(wake)))
        .map(Link::Rtc)
        .map_err(|_| log::error!("could not create a peer connection"))
        .ok()
}

/// Opens a relay socket; `None` if the browser refused to.
pub fn open_relay(url: &str) -> Option<Link> {
    RelayTransport::open(url, Rc::new(wake))
        .map(Link::Relay)
        .map_err(|_| log::warn!("could not open the relay socket"))
        .ok()
}

/// Takes one step of the handshake of `link`'s attempt `tag` and reports
/// how it went ([`RtcEvent::Offer`], [`RtcEvent::Answer`] or
/// [`RtcEvent::Applied`]).
pub fn describe(links: &Links<Link>, link: LinkId, tag: u32, step: SdpStep) {
    let Some(Link::Rtc(t)) = links.get(&link, tag) else {
        return;
    };
    let hs = t.handshake();
    spawn_local(async move {
        let event = match step {
            SdpStep::Offer => RtcEvent::Offer(hs.create_offer().await.ok()),
            SdpStep::Answer(offer) => RtcEvent::Answer(hs.accept_offer(&offer).await.ok()),
            SdpStep::Apply(answer) => {
                let ok = hs.accept_answer(&answer).await.is_ok();
                // After a restart the path may be the same as before, of
                // which the browser reports no change: read it again.
                hs.refresh_state();
                RtcEvent::Applied(ok)
            }
            SdpStep::RestartOffer => RtcEvent::Offer(hs.restart_offer().await.ok()),
            SdpStep::RestartAnswer(offer) => {
                let answer = hs.restart_answer(&offer).await.ok();
                hs.refresh_state();
                RtcEvent::Answer(answer)
            }
        };
        feed_later(Input::Rtc { link, tag, event });
    });
}

/// Adds a candidate the other side relayed.
pub fn add_candidate(links: &Links<Link>, link: &LinkId, tag: u32, c: Candidate) {
    if let Some(Link::Rtc(t)) = links.get(link, tag) {
        t.handshake().add_remote_ice(c);
    }
}
