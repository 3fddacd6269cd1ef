//! The browser implementation (wasm32 only).

use crate::link::{check_size, Dropped, Incoming, LinkCore};
use crate::{IceCandidate, MAX_DATAGRAM};
use js_sys::{Reflect, Uint8Array};
use lockstep::{Channel, LinkState, Transport, TransportError};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    MessageEvent, RtcConfiguration, RtcDataChannel, RtcDataChannelInit, RtcDataChannelType,
    RtcIceCandidateInit, RtcOfferOptions, RtcPeerConnection, RtcPeerConnectionIceEvent,
    RtcPeerConnectionState, RtcSdpType, RtcSessionDescriptionInit,
};

/// Called (with no arguments) whenever the link has news: a state change, a
/// received datagram or a local ICE candidate. The page uses it to drain the
/// transport promptly.
pub type Notify = Rc<dyn Fn()>;

/// The link's state, shared with the browser callbacks.
type Shared = LinkCore;

type Handler = Closure<dyn FnMut(JsValue)>;

/// A peer connection with its two pre-negotiated data channels.
pub struct WebRtcTransport {
    pc: RtcPeerConnection,
    channels: [RtcDataChannel; 2],
    shared: Rc<RefCell<Shared>>,
    _handlers: Vec<Handler>,
}

/// A cheap handle for the asynchronous handshake steps, so the caller need
/// not hold a borrow of the transport across an `.await`.
#[derive(Clone)]
pub struct Handshake {
    pc: RtcPeerConnection,
    shared: Rc<RefCell<Shared>>,
}

fn channel_init(id: u16, reliable: bool) -> RtcDataChannelInit {
    let init = RtcDataChannelInit::new();
    init.set_negotiated(true);
    init.set_id(id);
    if !reliable {
        init.set_ordered(false);
        init.set_max_retransmits(0);
    }
    init
}

impl WebRtcTransport {
    /// Creates the connection and its two channels. `ice_servers` is the
    /// `iceServers` array from the signalling service's `/ice` (an empty
    /// array on loopback tests). How long the link may take to open is the
    /// caller's rule: it closes a link that took too long.
    pub fn new(ice_servers: &JsValue, notify: Notify) -> Result<WebRtcTransport, JsValue> {
        let config = RtcConfiguration::new();
        config.set_ice_servers(ice_servers);
        let pc = RtcPeerConnection::new_with_configuration(&config)?;
        let reliable =
            pc.create_data_channel_with_data_channel_dict("reliable", &channel_init(0, true));
        let fast = pc.create_data_channel_with_data_channel_dict("fast", &channel_init(1, false));
        let shared = Rc::new(RefCell::new(Shared::default()));
        let mut handlers: Vec<Handler> = Vec::new();

        for (index, dc) in [&reliable, &fast].into_iter().enumerate() {
            dc.set_binary_type(RtcDataChannelType::Arraybuffer);
            let channel = if index == 0 {
                Channel::Reliable
            } else {
                Channel::Unreliable
            };
            let (s, n) = (shared.clone(), notify.clone());
            let on_open = Closure::<dyn FnMut(JsValue)>::new(move |_| {
                s.borrow_mut().channel_opened(index);
                n();
            });
            dc.set_onopen(Some(on_open.as_ref().unchecked_ref()));
            let (s, n) = (shared.clone(), notify.clone());
            let on_close = Closure::<dyn FnMut(JsValue)>::new(move |_| {
                s.borrow_mut().closed();
                n();
            });
            dc.set_onclose(Some(on_close.as_ref().unchecked_ref()));
            let (s, n) = (shared.clone(), notify.clone());
            let on_message = Closure::<dyn FnMut(JsValue)>::new(move |ev: JsValue| {
                let Ok(ev) = ev.dyn_into::<MessageEvent>() else {
                    return;
                };
                let data = ev.data();
                // Read the size from the browser's object first, and copy
                // the message into wasm memory only when it is within the cap.
                let size = if let Some(text) = data.dyn_ref::<js_sys::JsString>() {
                    Incoming::Utf16Units(text.length() as usize)
                } else if let Some(buf) = data.dyn_ref::<js_sys::ArrayBuffer>() {
                    Incoming::Bytes(buf.byte_length() as usize)
                } else {
                    log::warn!("webrtc: dropped a message of an unexpected kind");
                    return;
                };
                if let Err(Dropped::TooLarge(len)) = check_size(size) {
                    log::warn!("webrtc: dropped an oversized datagram ({len} bytes or more)");
                    return;
                }
                let bytes = if let Some(text) = data.as_string() {
                    text.into_bytes()
                } else {
                    Uint8Array::new(&data).to_vec()
                };
                if let Err(Dropped::TooLarge(len)) = s.borrow_mut().received(channel, bytes) {
                    log::warn!("webrtc: dropped an oversized datagram ({len} bytes)");
                    return;
                }
                n();
            });
            dc.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
            handlers.extend([on_open, on_close, on_message]);
        }

        let (s, n) = (shared.clone(), notify.clone());
        let on_ice = Closure::<dyn FnMut(JsValue)>::new(move |ev: JsValue| {
            let Ok(ev) = ev.dyn_into::<RtcPeerConnectionIceEvent>() else {
                return;
            };
            let c = match ev.candidate() {
                Some(c) => IceCandidate {
                    candidate: c.candidate(),
                    sdp_mid: c.sdp_mid(),
                    sdp_m_line_index: c.sdp_m_line_index(),
                },
                // End of candidates.
                None => IceCandidate {
                    candidate: String::new(),
                    sdp_mid: None,
                    sdp_m_line_index: None,
                },
            };
            s.borrow_mut().local_candidate(c);
            n();
        });
        pc.set_onicecandidate(Some(on_ice.as_ref().unchecked_ref()));
        let (s, n, pc2) = (shared.clone(), notify, pc.clone());
        let on_state = Closure::<dyn FnMut(JsValue)>::new(move |_| {
            if note_state(&mut s.borrow_mut(), pc2.connection_state()) {
                n();
            }
        });
        pc.set_onconnectionstatechange(Some(on_state.as_ref().unchecked_ref()));
        handlers.extend([on_ice, on_state]);

        Ok(WebRtcTransport {
            pc,
            channels: [reliable, fast],
            shared,
            _handlers: handlers,
        })
    }

    /// A handle for the handshake steps.
    #[must_use]
    pub fn handshake(&self) -> Handshake {
        Handshake {
            pc: self.pc.clone(),
            shared: self.shared.clone(),
        }
    }

    /// The next local ICE candidate to relay to the other side.
    pub fn poll_local_ice(&mut self) -> Option<IceCandidate> {
        self.shared.borrow_mut().next_local_candidate()
    }

    /// Whether ICE has lost the path for now (`disconnected`, or `failed`
    /// during an ICE restart) while the channels are still open: the
    /// moment to try an ICE restart ([`Handshake::restart_offer`]).
    #[must_use]
    pub fn path_down(&self) -> bool {
        self.shared.borrow().path_down()
    }
}

/// Takes note of the connection's state; `true` if it is news.
fn note_state(link: &mut LinkCore, state: RtcPeerConnectionState) -> bool {
    match state {
        RtcPeerConnectionState::Failed => link.failed(),
        RtcPeerConnectionState::Closed => link.closed(),
        RtcPeerConnectionState::Disconnected => link.disconnected(),
        RtcPeerConnectionState::Connected => link.connected(),
        _ => return false,
    }
    true
}

impl Drop for WebRtcTransport {
    fn drop(&mut self) {
        // Unhook the handlers before their closures are freed, then close.
        for dc in &self.channels {
            dc.set_onopen(None);
            dc.set_onclose(None);
            dc.set_onmessage(None);
        }
        self.pc.set_onicecandidate(None);
        self.pc.set_onconnectionstatechange(None);
        self.pc.close();
    }
}

impl Transport for WebRtcTransport {
    fn send(&mut self, channel: Channel, datagram: &[u8]) -> Result<(), TransportError> {
        let state = self.state();
        if state != LinkState::Open {
            return Err(TransportError::NotOpen(state));
        }
        if datagram.len() > MAX_DATAGRAM {
            return Err(TransportError::TooLarge {
                len: datagram.len(),
                max: MAX_DATAGRAM,
            });
        }
        let dc = &self.channels[usize::from(channel == Channel::Unreliable)];
        if dc.send_with_u8_array(datagram).is_err() {
            // The channel closed under us; its close event follows.
            log::info!("webrtc: send on a closing channel");
            return Err(TransportError::NotOpen(LinkState::Closed));
        }
        Ok(())
    }

    fn recv(&mut self) -> Option<(Channel, Vec<u8>)> {
        self.shared.borrow_mut().next_received()
    }

    fn state(&self) -> LinkState {
        self.shared.borrow().state()
    }

    fn close(&mut self) {
        self.shared.borrow_mut().closed();
        self.pc.close();
    }

    /// The two channels' `bufferedAmount` added up.
    fn send_backlog(&self) -> usize {
        self.channels
            .iter()
            .map(|dc| dc.buffered_amount() as usize)
            .sum()
    }
}

fn sdp_of(desc: &JsValue) -> Result<String, JsValue> {
    Reflect::get(desc, &JsValue::from_str("sdp"))?
        .as_string()
        .ok_or_else(|| JsValue::from_str("no sdp"))
}

fn description(kind: RtcSdpType, sdp: &str) -> RtcSessionDescriptionInit {
    let d = RtcSessionDescriptionInit::new(kind);
    d.set_sdp(sdp);
    d
}

impl Handshake {
    /// Offering side: creates the offer, sets it locally, returns its SDP.
    pub async fn create_offer(&self) -> Result<String, JsValue> {
        let offer = JsFuture::from(self.pc.create_offer()).await?;
        let sdp = sdp_of(&offer)?;
        JsFuture::from(
            self.pc
                .set_local_description(&description(RtcSdpType::Offer, &sdp)),
        )
        .await?;
        Ok(sdp)
    }

    /// Offering side of an ICE restart on the open connection: makes an
    /// offer with fresh ICE credentials (`iceRestart: true`), sets it
    /// locally and returns its SDP. The data channels and their SCTP
    /// association stay as they are; only the path underneath is sought
    /// again. Until the connection is `connected` again, ICE failing does
    /// not end the link.
    pub async fn restart_offer(&self) -> Result<String, JsValue> {
        self.shared.borrow_mut().restart_began();
        let options = RtcOfferOptions::new();
        options.set_ice_restart(true);
        let offer = JsFuture::from(self.pc.create_offer_with_rtc_offer_options(&options)).await?;
        let sdp = sdp_of(&offer)?;
        JsFuture::from(
            self.pc
                .set_local_description(&description(RtcSdpType::Offer, &sdp)),
        )
        .await?;
        Ok(sdp)
    }

    /// Answering side of an ICE restart: as
    /// [`accept_offer`](Self::accept_offer), with ICE failing no longer the
    /// end of the link until the connection is `connected` again.
    pub async fn restart_answer(&self, offer_sdp: &str) -> Result<String, JsValue> {
        self.shared.borrow_mut().restart_began();
        self.accept_offer(offer_sdp).await
    }

    /// Reads the connection's state again (after a restart's last step:
    /// the browser reports no change when the path it had still works).
    pub fn refresh_state(&self) {
        note_state(&mut self.shared.borrow_mut(), self.pc.connection_state());
    }

    /// Answering side: applies the offer, creates and sets the answer,
    /// returns its SDP.
    pub async fn accept_offer(&self, offer_sdp: &str) -> Result<String, JsValue> {
        JsFuture::from(
            self.pc
                .set_remote_description(&description(RtcSdpType::Offer, offer_sdp)),
        )
        .await?;
        self.flush_pending_ice();
        let answer = JsFuture::from(self.pc.create_answer()).await?;
        let sdp = sdp_of(&answer)?;
        JsFuture::from(
            self.pc
                .set_local_description(&description(RtcSdpType::Answer, &sdp)),
        )
        .await?;
        Ok(sdp)
    }

    /// Offering side: applies the answer.
    pub async fn accept_answer(&self, answer_sdp: &str) -> Result<(), JsValue> {
        JsFuture::from(
            self.pc
                .set_remote_description(&description(RtcSdpType::Answer, answer_sdp)),
        )
        .await?;
        self.flush_pending_ice();
        Ok(())
    }

    /// Adds a candidate the other side relayed; held back until the remote
    /// description is set (at most [`MAX_PENDING_REMOTE_ICE`](crate::link::MAX_PENDING_REMOTE_ICE)).
    /// A candidate the browser refuses is logged and dropped.
    pub fn add_remote_ice(&self, c: IceCandidate) {
        let ready = self.shared.borrow_mut().remote_candidate(c);
        if let Some(c) = ready {
            self.add_now(&c);
        }
    }

    fn flush_pending_ice(&self) {
        let pending = self.shared.borrow_mut().remote_description_set();
        for c in &pending {
            self.add_now(c);
        }
    }

    fn add_now(&self, c: &IceCandidate) {
        let init = RtcIceCandidateInit::new(&c.candidate);
        init.set_sdp_mid(c.sdp_mid.as_deref());
        init.set_sdp_m_line_index(c.sdp_m_line_index);
        let promise = self
            .pc
            .add_ice_candidate_with_opt_rtc_ice_candidate_init(Some(&init));
        wasm_bindgen_futures::spawn_local(async move {
            if JsFuture::from(promise).await.is_err() {
                log::info!("webrtc: the browser refused a remote candidate");
            }
        });
    }
}
