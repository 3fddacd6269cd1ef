//! A [`lockstep::Transport`] over the signalling service's match relay: one
//! WebSocket (`/relay/<code>/ws?ticket=...`) that the service pairs with
//! the other side's and passes every binary frame through unchanged.
//!
//! **Two channels over one socket.** Each datagram travels as one binary
//! frame: a channel byte ([`TAG_RELIABLE`] or [`TAG_UNRELIABLE`]) and then
//! the datagram. A WebSocket is reliable and ordered, so the unreliable
//! channel simply rides on it too: its datagrams are never lost or
//! reordered here, only delayed behind what was sent before them (the
//! session is built to cope with a channel that delivers more than it
//! promises). The service never reads the tag; only the two pages do.
//!
//! **States.** The link is [`LinkState::Connecting`] until the service's
//! `{"type":"paired"}` arrives (both sides are on the relay), then
//! [`LinkState::Open`]. The relay closes a side with 1000 when the other
//! side left or its lifetime ended: [`LinkState::Closed`]. Any other close
//! (a cap the service enforced, a network failure) or a socket error is
//! [`LinkState::Failed`]. A terminal state never changes again. Frames
//! still to send when the socket is closing (its close event not yet
//! come) are dropped, not handed to a socket that refuses them.
//!
//! **Bad input.** A frame from the other page that is empty, carries an
//! unknown channel byte or is longer than a tag and [`MAX_DATAGRAM`] is
//! dropped and logged (as a warning, with its length only); a text frame
//! other than `paired`, or a `paired` after the link opened, is dropped
//! and logged the same way. Nothing from the socket can panic or change
//! the state other than as described.
//!
//! [`RelayLink`] holds all of that and builds on every target, so it is
//! tested natively; on wasm32, `RelayTransport` only connects a browser
//! `WebSocket`'s events to it.

use std::collections::VecDeque;

use lockstep::{Channel, LinkState, Transport, TransportError};
use signaling_protocol::relay::PAIRED_TYPE;

/// Largest datagram: the same 16 KiB every transport carries, and what
/// the service's frame cap is sized for.
pub const MAX_DATAGRAM: usize = signaling_protocol::limits::RELAY_MAX_DATAGRAM;

/// Channel byte of a reliable datagram.
pub const TAG_RELIABLE: u8 = 0;
/// Channel byte of an unreliable datagram.
pub const TAG_UNRELIABLE: u8 = 1;

/// The close code with which the relay ends a match normally.
pub const NORMAL_CLOSE: u16 = 1000;

/// One datagram as a relay frame: its channel byte, then its bytes.
#[must_use]
pub fn encode(channel: Channel, datagram: &[u8]) -> Vec<u8> {
    let mut frame = Vec::with_capacity(datagram.len() + 1);
    frame.push(match channel {
        Channel::Reliable => TAG_RELIABLE,
        Channel::Unreliable => TAG_UNRELIABLE,
    });
    frame.extend_from_slice(datagram);
    frame
}

/// Why a received frame was dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameError {
    /// No channel byte at all.
    Empty,
    /// A channel byte that is neither 0 nor 1.
    UnknownChannel(u8),
    /// A datagram longer than [`MAX_DATAGRAM`] (its length).
    TooLarge(usize),
}

/// Reads a relay frame back into its channel and datagram.
pub fn decode(frame: &[u8]) -> Result<(Channel, &[u8]), FrameError> {
    let (&tag, datagram) = frame.split_first().ok_or(FrameError::Empty)?;
    let channel = match tag {
        TAG_RELIABLE => Channel::Reliable,
        TAG_UNRELIABLE => Channel::Unreliable,
        other => return Err(FrameError::UnknownChannel(other)),
    };
    if datagram.len() > MAX_DATAGRAM {
        return Err(FrameError::TooLarge(datagram.len()));
    }
    Ok((channel, datagram))
}

/// The state and queues of one relay socket (see the module docs).
///
/// Calling contract: report each socket event with the matching `on_*`
/// method; after [`Transport::send`] (and after `on_*` calls), drain
/// [`RelayLink::poll_frame`] and write each frame to the socket as a
/// binary message; when [`RelayLink::wants_close`] turns true, close the
/// socket with 1000.
#[derive(Debug)]
pub struct RelayLink {
    state: LinkState,
    inbox: VecDeque<(Channel, Vec<u8>)>,
    outbox: VecDeque<Vec<u8>>,
    outbox_bytes: usize,
    socket_buffered: usize,
    close_requested: bool,
    dropped: u32,
}

impl Default for RelayLink {
    fn default() -> Self {
        RelayLink::new()
    }
}

impl RelayLink {
    /// A link whose socket is being opened.
    #[must_use]
    pub fn new() -> RelayLink {
        RelayLink {
            state: LinkState::Connecting,
            inbox: VecDeque::new(),
            outbox: VecDeque::new(),
            outbox_bytes: 0,
            socket_buffered: 0,
            close_requested: false,
            dropped: 0,
        }
    }

    /// A text frame from the service: `paired` opens the link.
    pub fn on_text(&mut self, text: &str) {
        let paired = serde_json::from_str::<serde_json::Value>(text)
            .ok()
            .is_some_and(|v| {
                v.as_object().is_some_and(|o| {
                    o.len() == 1 && o.get("type").and_then(|t| t.as_str()) == Some(PAIRED_TYPE)
                })
            });
        if paired && self.state == LinkState::Connecting {
            self.state = LinkState::Open;
        } else {
            self.dropped = self.dropped.saturating_add(1);
            log::warn!(
                "relay: dropped an unexpected text frame of {} bytes",
                text.len()
            );
        }
    }

    /// A binary frame from the other page.
    pub fn on_binary(&mut self, frame: &[u8]) {
        if self.state != LinkState::Open {
            self.dropped = self.dropped.saturating_add(1);
            log::warn!("relay: dropped a frame that arrived while the link was not open");
            return;
        }
        match decode(frame) {
            Ok((channel, datagram)) => self.inbox.push_back((channel, datagram.to_vec())),
            Err(e) => {
                self.dropped = self.dropped.saturating_add(1);
                log::warn!(
                    "relay: dropped a malformed frame of {} bytes ({e:?})",
                    frame.len()
                );
            }
        }
    }

    /// A binary frame too long to be a datagram, dropped unread (the
    /// browser glue checks the length before copying a frame).
    pub fn on_oversized(&mut self, len: usize) {
        self.dropped = self.dropped.saturating_add(1);
        log::warn!("relay: dropped a frame of {len} bytes, over the datagram limit");
    }

    /// The socket closed with `code` (the relay's 1000: the match is over;
    /// anything else: the link failed).
    pub fn on_closed(&mut self, code: u16) {
        if self.state.is_terminal() {
            return;
        }
        self.state = if code == NORMAL_CLOSE || self.close_requested {
            LinkState::Closed
        } else {
            LinkState::Failed
        };
        self.discard_outgoing();
    }

    /// The socket reported an error (its close follows, which changes
    /// nothing then).
    pub fn on_error(&mut self) {
        if !self.state.is_terminal() {
            self.state = LinkState::Failed;
            self.discard_outgoing();
        }
    }

    /// The socket's own `bufferedAmount`, for [`Transport::send_backlog`].
    pub fn set_socket_buffered(&mut self, bytes: usize) {
        self.socket_buffered = bytes;
    }

    /// The next frame to write to the socket, if any.
    pub fn poll_frame(&mut self) -> Option<Vec<u8>> {
        let frame = self.outbox.pop_front()?;
        self.outbox_bytes -= frame.len();
        Some(frame)
    }

    /// True once [`Transport::close`] was called: close the socket with
    /// 1000.
    #[must_use]
    pub fn wants_close(&self) -> bool {
        self.close_requested
    }

    /// Frames dropped so far (malformed, out of place).
    #[must_use]
    pub fn dropped(&self) -> u32 {
        self.dropped
    }

    fn discard_outgoing(&mut self) {
        self.outbox.clear();
        self.outbox_bytes = 0;
    }
}

impl Transport for RelayLink {
    fn send(&mut self, channel: Channel, datagram: &[u8]) -> Result<(), TransportError> {
        if self.state != LinkState::Open {
            return Err(TransportError::NotOpen(self.state));
        }
        if datagram.len() > MAX_DATAGRAM {
            return Err(TransportError::TooLarge {
                len: datagram.len(),
                max: MAX_DATAGRAM,
            });
        }
        let frame = encode(channel, datagram);
        self.outbox_bytes += frame.len();
        self.outbox.push_back(frame);
        Ok(())
    }

    fn recv(&mut self) -> Option<(Channel, Vec<u8>)> {
        self.inbox.pop_front()
    }

    fn state(&self) -> LinkState {
        self.state
    }

    fn close(&mut self) {
        self.close_requested = true;
        if !self.state.is_terminal() {
            self.state = LinkState::Closed;
        }
    }

    fn send_backlog(&self) -> usize {
        self.outbox_bytes + self.socket_buffered
    }
}

#[cfg(target_arch = "wasm32")]
pub use browser::RelayTransport;

#[cfg(target_arch = "wasm32")]
mod browser {
    //! The browser glue: a `WebSocket` whose events drive a [`RelayLink`].

    use std::cell::RefCell;
    use std::rc::Rc;

    use lockstep::{Channel, LinkState, Transport, TransportError};
    use wasm_bindgen::closure::Closure;
    use wasm_bindgen::JsCast;
    use web_sys::{BinaryType, CloseEvent, Event, MessageEvent, WebSocket};

    use super::{RelayLink, MAX_DATAGRAM};

    /// [`Transport`] over a relay WebSocket in the browser.
    pub struct RelayTransport {
        ws: WebSocket,
        link: Rc<RefCell<RelayLink>>,
        // Kept alive as long as the socket may call them.
        _on_message: Closure<dyn FnMut(MessageEvent)>,
        _on_close: Closure<dyn FnMut(CloseEvent)>,
        _on_error: Closure<dyn FnMut(Event)>,
    }

    impl RelayTransport {
        /// Opens the relay socket at `url` (`ws[s]://.../relay/<code>/ws?ticket=...`);
        /// `notify` runs after every socket event, so the page can read
        /// what changed at once.
        pub fn open(
            url: &str,
            notify: Rc<dyn Fn()>,
        ) -> Result<RelayTransport, wasm_bindgen::JsValue> {
            let ws = WebSocket::new(url)?;
            ws.set_binary_type(BinaryType::Arraybuffer);
            let link = Rc::new(RefCell::new(RelayLink::new()));
            let l = link.clone();
            let n = notify.clone();
            let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
                let data = e.data();
                if let Some(text) = data.as_string() {
                    l.borrow_mut().on_text(&text);
                } else if let Ok(buf) = data.dyn_into::<js_sys::ArrayBuffer>() {
                    // Refuse to copy a frame the service would never pass.
                    let len = buf.byte_length() as usize;
                    if len > MAX_DATAGRAM + 1 {
                        l.borrow_mut().on_oversized(len);
                    } else {
                        l.borrow_mut()
                            .on_binary(&js_sys::Uint8Array::new(&buf).to_vec());
                    }
                }
                n();
            });
            let l = link.clone();
            let n = notify.clone();
            let on_close = Closure::<dyn FnMut(CloseEvent)>::new(move |e: CloseEvent| {
                l.borrow_mut().on_closed(e.code());
                n();
            });
            let l = link.clone();
            let on_error = Closure::<dyn FnMut(Event)>::new(move |_: Event| {
                l.borrow_mut().on_error();
                notify();
            });
            ws.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
            ws.set_onclose(Some(on_close.as_ref().unchecked_ref()));
            ws.set_onerror(Some(on_error.as_ref().unchecked_ref()));
            Ok(RelayTransport {
                ws,
                link,
                _on_message: on_message,
                _on_close: on_close,
                _on_error: on_error,
            })
        }

        fn flush(&mut self) {
            let mut link = self.link.borrow_mut();
            if self.ws.ready_state() != WebSocket::OPEN {
                // Closing or closed, its close event on its way (or
                // come): the browser would refuse each frame with a
                // console error, so what was to go is dropped here.
                while link.poll_frame().is_some() {}
                return;
            }
            while let Some(frame) = link.poll_frame() {
                if self.ws.send_with_u8_array(&frame).is_err() {
                    link.on_error();
                    break;
                }
            }
            link.set_socket_buffered(self.ws.buffered_amount() as usize);
        }
    }

    impl Transport for RelayTransport {
        fn send(&mut self, channel: Channel, datagram: &[u8]) -> Result<(), TransportError> {
            self.link.borrow_mut().send(channel, datagram)?;
            self.flush();
            Ok(())
        }

        fn recv(&mut self) -> Option<(Channel, Vec<u8>)> {
            self.link.borrow_mut().recv()
        }

        fn state(&self) -> LinkState {
            self.link.borrow().state()
        }

        fn close(&mut self) {
            self.link.borrow_mut().close();
            let _ = self.ws.close_with_code(super::NORMAL_CLOSE);
        }

        fn send_backlog(&self) -> usize {
            let mut link = self.link.borrow_mut();
            link.set_socket_buffered(self.ws.buffered_amount() as usize);
            link.send_backlog()
        }
    }

    impl Drop for RelayTransport {
        fn drop(&mut self) {
            self.ws.set_onmessage(None);
            self.ws.set_onclose(None);
            self.ws.set_onerror(None);
            let _ = self.ws.close_with_code(super::NORMAL_CLOSE);
        }
    }
}
