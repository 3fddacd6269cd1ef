//! The browser-independent part of a link: its state, its queues and the
//! early-candidate rule, built on every target so it is tested natively.
//!
//! The browser glue (`WebRtcTransport`, wasm32 only) owns one [`LinkCore`]
//! and only turns browser events into calls on it: a channel opened or
//! closed, the connection failed or closed, a message or a local candidate
//! arrived, a remote candidate was relayed, the remote description was set.

use crate::{IceCandidate, MAX_DATAGRAM};
use lockstep::{Channel, LinkState};
use std::collections::VecDeque;

/// Most remote candidates held back before the remote description is set.
/// A browser gathers a handful per network interface; more than this from
/// a peer is a flood, and the excess is dropped (and logged).
pub const MAX_PENDING_REMOTE_ICE: usize = 64;

/// The state and queues of one peer connection with its two channels
/// (index 0 reliable, 1 unreliable).
#[derive(Debug, Default)]
pub struct LinkCore {
    open: [bool; 2],
    closed: bool,
    failed: bool,
    /// ICE lost the path (`disconnected`, or `failed` during a restart):
    /// the channels stay open, nothing gets through until it is back.
    path_down: bool,
    /// An ICE restart is under way: a `failed` connection is then not the
    /// end, since the restart may still find a new path.
    restarting: bool,
    inbox: VecDeque<(Channel, Vec<u8>)>,
    local_ice: VecDeque<IceCandidate>,
    remote_description_set: bool,
    pending_remote_ice: Vec<IceCandidate>,
}

/// Why a received message was dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dropped {
    /// Larger than [`MAX_DATAGRAM`].
    TooLarge(usize),
}

/// The size of a message as the browser reports it, before any copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Incoming {
    /// A binary message of this many bytes.
    Bytes(usize),
    /// A text message of this many UTF-16 code units. Its UTF-8 form has at
    /// least as many bytes, so a count over the cap is over it in bytes too.
    Utf16Units(usize),
}

/// Whether a message of this size may be copied out of the browser at all:
/// one over [`MAX_DATAGRAM`] is dropped before it is read, so a peer cannot
/// make us copy a large message into wasm memory only to drop it. A text
/// message that passes is checked again in bytes by [`LinkCore::received`].
pub fn check_size(size: Incoming) -> Result<(), Dropped> {
    let (Incoming::Bytes(len) | Incoming::Utf16Units(len)) = size;
    if len > MAX_DATAGRAM {
        return Err(Dropped::TooLarge(len));
    }
    Ok(())
}

impl LinkCore {
    /// A link that is connecting.
    #[must_use]
    pub fn new() -> LinkCore {
        LinkCore::default()
    }

    /// The link state: Failed wins over Closed, which wins over Open; Open
    /// needs both channels open.
    #[must_use]
    pub fn state(&self) -> LinkState {
        if self.failed {
            LinkState::Failed
        } else if self.closed {
            LinkState::Closed
        } else if self.open == [true, true] {
            LinkState::Open
        } else {
            LinkState::Connecting
        }
    }

    /// Channel `index` (0 reliable, 1 unreliable; others ignored) opened.
    pub fn channel_opened(&mut self, index: usize) {
        if let Some(o) = self.open.get_mut(index) {
            *o = true;
        }
    }

    /// A channel closed, or the connection closed (by either side).
    pub fn closed(&mut self) {
        self.closed = true;
    }

    /// ICE failed. During an ICE restart this only marks the path down
    /// (the restart may still find a new one); otherwise it ends the link.
    pub fn failed(&mut self) {
        if self.restarting {
            self.path_down = true;
        } else {
            self.failed = true;
        }
    }

    /// ICE reports the path lost but not given up (`disconnected`): the
    /// link stays open (a datagram sent now waits in the channel's buffer,
    /// or is lost on the unreliable one) until the path comes back, by
    /// itself or by an ICE restart.
    pub fn disconnected(&mut self) {
        self.path_down = true;
    }

    /// The connection is `connected`: the path is up (again). Ends an ICE
    /// restart under way.
    pub fn connected(&mut self) {
        self.path_down = false;
        self.restarting = false;
    }

    /// An ICE restart begins on this side (an ICE-restart offer made, or
    /// one from the other side applied). Until the connection is
    /// `connected` again, `failed` does not end the link: the caller's
    /// deadline does, by closing it.
    pub fn restart_began(&mut self) {
        self.restarting = true;
    }

    /// Whether ICE has lost the path for now (the link may still be
    /// [`Open`](LinkState::Open): its channels have not closed).
    #[must_use]
    pub fn path_down(&self) -> bool {
        self.path_down && !self.closed && !self.failed
    }

    /// Whether an ICE restart is under way.
    #[must_use]
    pub fn restarting(&self) -> bool {
        self.restarting
    }

    /// A message arrived on `channel`; over [`MAX_DATAGRAM`] it is dropped.
    pub fn received(&mut self, channel: Channel, bytes: Vec<u8>) -> Result<(), Dropped> {
        if bytes.len() > MAX_DATAGRAM {
            return Err(Dropped::TooLarge(bytes.len()));
        }
        self.inbox.push_back((channel, bytes));
        Ok(())
    }

    /// The oldest received message.
    pub fn next_received(&mut self) -> Option<(Channel, Vec<u8>)> {
        self.inbox.pop_front()
    }

    /// The browser found a local candidate (an empty one ends the trickle).
    pub fn local_candidate(&mut self, c: IceCandidate) {
        self.local_ice.push_back(c);
    }

    /// The oldest local candidate not yet relayed.
    pub fn next_local_candidate(&mut self) -> Option<IceCandidate> {
        self.local_ice.pop_front()
    }

    /// The other side relayed `c`. Returns it when it can be added to the
    /// connection now; before the remote description is set it is held back
    /// (up to [`MAX_PENDING_REMOTE_ICE`]; beyond that it is dropped) and
    /// `None` is returned.
    pub fn remote_candidate(&mut self, c: IceCandidate) -> Option<IceCandidate> {
        if self.remote_description_set {
            return Some(c);
        }
        if self.pending_remote_ice.len() < MAX_PENDING_REMOTE_ICE {
            self.pending_remote_ice.push(c);
        } else {
            log::warn!("webrtc: too many early remote candidates; dropped one");
        }
        None
    }

    /// The remote description is set: returns the held-back candidates, in
    /// the order they came, to add now. Later ones pass straight through
    /// [`remote_candidate`](Self::remote_candidate).
    pub fn remote_description_set(&mut self) -> Vec<IceCandidate> {
        self.remote_description_set = true;
        std::mem::take(&mut self.pending_remote_ice)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cand(n: u32) -> IceCandidate {
        IceCandidate {
            candidate: format!("candidate:{n} 1 udp 1 127.0.0.1 {n} typ host"),
            sdp_mid: Some("0".into()),
            sdp_m_line_index: Some(0),
        }
    }

    #[test]
    fn open_needs_both_channels_and_failure_wins() {
        let mut l = LinkCore::new();
        assert_eq!(l.state(), LinkState::Connecting);
        l.channel_opened(0);
        assert_eq!(l.state(), LinkState::Connecting);
        l.channel_opened(7); // not a channel of ours
        assert_eq!(l.state(), LinkState::Connecting);
        l.channel_opened(1);
        assert_eq!(l.state(), LinkState::Open);
        l.closed();
        assert_eq!(l.state(), LinkState::Closed);
        l.failed();
        assert_eq!(l.state(), LinkState::Failed);
    }

    #[test]
    fn a_lost_path_is_not_the_end_and_a_restart_survives_ice_failing() {
        let mut l = LinkCore::new();
        l.channel_opened(0);
        l.channel_opened(1);
        l.connected();
        l.disconnected();
        assert!(l.path_down());
        assert_eq!(l.state(), LinkState::Open, "disconnected is not final");
        l.connected();
        assert!(!l.path_down());
        // ICE fails while a restart is under way: the path is down, the
        // link still open, until the restart finds a path.
        l.disconnected();
        l.restart_began();
        assert!(l.restarting());
        l.failed();
        assert_eq!(l.state(), LinkState::Open);
        assert!(l.path_down());
        l.connected();
        assert!(!l.path_down() && !l.restarting());
        assert_eq!(l.state(), LinkState::Open);
        // Without a restart, ICE failing ends the link, as before.
        l.failed();
        assert_eq!(l.state(), LinkState::Failed);
        assert!(!l.path_down(), "a failed link is over, not down");
    }

    #[test]
    fn a_channel_closing_before_the_link_opened_closes_it() {
        let mut l = LinkCore::new();
        l.channel_opened(1);
        l.closed();
        l.channel_opened(0);
        assert_eq!(l.state(), LinkState::Closed);
    }

    #[test]
    fn the_size_is_judged_before_the_message_is_copied() {
        // A binary message: its byte length, read from the buffer.
        assert_eq!(check_size(Incoming::Bytes(MAX_DATAGRAM)), Ok(()));
        assert_eq!(
            check_size(Incoming::Bytes(MAX_DATAGRAM + 1)),
            Err(Dropped::TooLarge(MAX_DATAGRAM + 1))
        );
        // A text message: more UTF-16 units than the cap is more bytes
        // than the cap in UTF-8, so it is refused unread.
        assert_eq!(
            check_size(Incoming::Utf16Units(MAX_DATAGRAM + 1)),
            Err(Dropped::TooLarge(MAX_DATAGRAM + 1))
        );
        assert_eq!(check_size(Incoming::Utf16Units(MAX_DATAGRAM)), Ok(()));
        // Within the units cap, the UTF-8 copy can still be too large: the
        // queue checks the bytes again.
        let mut l = LinkCore::new();
        let text = "\u{e9}".repeat(MAX_DATAGRAM / 2 + 1);
        assert_eq!(
            check_size(Incoming::Utf16Units(text.encode_utf16().count())),
            Ok(())
        );
        assert_eq!(
            l.received(Channel::Reliable, text.into_bytes()),
            Err(Dropped::TooLarge(MAX_DATAGRAM + 2))
        );
    }

    #[test]
    fn messages_queue_in_order_and_oversized_ones_are_dropped() {
        let mut l = LinkCore::new();
        assert_eq!(l.received(Channel::Reliable, vec![1]), Ok(()));
        assert_eq!(
            l.received(Channel::Unreliable, vec![0; MAX_DATAGRAM + 1]),
            Err(Dropped::TooLarge(MAX_DATAGRAM + 1))
        );
        assert_eq!(
            l.received(Channel::Unreliable, vec![0; MAX_DATAGRAM]),
            Ok(())
        );
        assert_eq!(l.next_received(), Some((Channel::Reliable, vec![1])));
        assert_eq!(
            l.next_received().map(|(c, b)| (c, b.len())),
            Some((Channel::Unreliable, MAX_DATAGRAM))
        );
        assert_eq!(l.next_received(), None);
    }

    #[test]
    fn early_remote_candidates_wait_for_the_description_in_order() {
        let mut l = LinkCore::new();
        assert_eq!(l.remote_candidate(cand(1)), None);
        assert_eq!(l.remote_candidate(cand(2)), None);
        assert_eq!(l.remote_description_set(), vec![cand(1), cand(2)]);
        assert_eq!(l.remote_candidate(cand(3)), Some(cand(3)));
        assert!(l.remote_description_set().is_empty(), "nothing twice");
    }

    #[test]
    fn a_flood_of_early_candidates_is_capped() {
        let mut l = LinkCore::new();
        for n in 0..1_000 {
            assert_eq!(l.remote_candidate(cand(n)), None);
        }
        let held = l.remote_description_set();
        assert_eq!(held.len(), MAX_PENDING_REMOTE_ICE);
        assert_eq!(held[0], cand(0));
    }

    #[test]
    fn local_candidates_are_relayed_in_order() {
        let mut l = LinkCore::new();
        l.local_candidate(cand(1));
        l.local_candidate(IceCandidate {
            candidate: String::new(),
            sdp_mid: None,
            sdp_m_line_index: None,
        });
        assert_eq!(l.next_local_candidate(), Some(cand(1)));
        assert_eq!(
            l.next_local_candidate().map(|c| c.candidate),
            Some(String::new())
        );
        assert_eq!(l.next_local_candidate(), None);
    }
}
