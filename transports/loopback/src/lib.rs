//! `loopback`: a perfect in-process transport pair.
//!
//! [`pair`] returns two [`LoopbackEndpoint`]s joined by a link with no delay,
//! no loss and no reordering: a datagram sent on one side can be received on
//! the other straight away, on the channel it was sent on, in sending order.
//! Both implement [`lockstep::Transport`]. Use it for examples, quick starts
//! and tests that are about the game rather than the network; use the
//! `netsim` crate when latency, loss or a broken link matter.
//!
//! Closing one end closes the link for both: the other end reports
//! [`LinkState::Closed`] at once and sends fail. Datagrams already sent
//! before the close can still be received by the end that did not close.
//!
//! # Usage
//!
//! ```
//! use lockstep::{Channel, LinkState, Transport};
//!
//! let (mut a, mut b) = loopback::pair();
//! a.send(Channel::Unreliable, &[1, 2, 3]).unwrap();
//! a.send(Channel::Reliable, b"hi").unwrap();
//! assert_eq!(b.recv(), Some((Channel::Unreliable, vec![1, 2, 3])));
//! assert_eq!(b.recv(), Some((Channel::Reliable, b"hi".to_vec())));
//! assert_eq!(b.recv(), None);
//!
//! b.close();
//! assert_eq!(a.state(), LinkState::Closed);
//! assert!(a.send(Channel::Reliable, b"late").is_err());
//! ```
#![warn(missing_docs)]

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use lockstep::{Channel, LinkState, Transport, TransportError};

/// The largest datagram an endpoint accepts, in bytes (the same limit as
/// the simulated link and WebRTC data channels, so code that works here
/// does not meet a surprise there).
pub const MAX_DATAGRAM: usize = 16 * 1024;

#[derive(Debug)]
struct Shared {
    /// `queues[i]`: datagrams waiting for endpoint `i`.
    queues: [VecDeque<(Channel, Vec<u8>)>; 2],
    state: LinkState,
    /// Endpoint `i` closed the link itself (it then receives nothing).
    closed_locally: [bool; 2],
    /// `sent[i]`: datagrams and bytes sent by endpoint `i`.
    sent: [(u64, u64); 2],
}

/// One end of a loopback pair. Implements [`Transport`].
#[derive(Debug)]
pub struct LoopbackEndpoint {
    shared: Rc<RefCell<Shared>>,
    index: usize,
}

/// Two connected endpoints, [`LinkState::Open`].
#[must_use]
pub fn pair() -> (LoopbackEndpoint, LoopbackEndpoint) {
    let shared = Rc::new(RefCell::new(Shared {
        queues: [VecDeque::new(), VecDeque::new()],
        state: LinkState::Open,
        closed_locally: [false; 2],
        sent: [(0, 0); 2],
    }));
    (
        LoopbackEndpoint {
            shared: Rc::clone(&shared),
            index: 0,
        },
        LoopbackEndpoint { shared, index: 1 },
    )
}

impl LoopbackEndpoint {
    /// Datagrams and payload bytes this endpoint has sent so far.
    #[must_use]
    pub fn sent(&self) -> (u64, u64) {
        self.shared.borrow().sent[self.index]
    }

    /// Number of datagrams waiting to be received by this endpoint.
    #[must_use]
    pub fn pending(&self) -> usize {
        self.shared.borrow().queues[self.index].len()
    }
}

impl Transport for LoopbackEndpoint {
    fn send(&mut self, channel: Channel, datagram: &[u8]) -> Result<(), TransportError> {
        let mut shared = self.shared.borrow_mut();
        if shared.state != LinkState::Open {
            return Err(TransportError::NotOpen(shared.state));
        }
        if datagram.len() > MAX_DATAGRAM {
            return Err(TransportError::TooLarge {
                len: datagram.len(),
                max: MAX_DATAGRAM,
            });
        }
        let sent = &mut shared.sent[self.index];
        sent.0 += 1;
        sent.1 += datagram.len() as u64;
        shared.queues[1 - self.index].push_back((channel, datagram.to_vec()));
        Ok(())
    }

    fn recv(&mut self) -> Option<(Channel, Vec<u8>)> {
        let mut shared = self.shared.borrow_mut();
        if shared.closed_locally[self.index] {
            return None;
        }
        shared.queues[self.index].pop_front()
    }

    fn state(&self) -> LinkState {
        self.shared.borrow().state
    }

    fn close(&mut self) {
        let mut shared = self.shared.borrow_mut();
        shared.state = LinkState::Closed;
        shared.closed_locally[self.index] = true;
        shared.queues[self.index].clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delivers_in_order_on_the_sending_channel_both_ways() {
        let (mut a, mut b) = pair();
        for i in 0..100u8 {
            let ch = if i % 3 == 0 {
                Channel::Reliable
            } else {
                Channel::Unreliable
            };
            a.send(ch, &[i]).unwrap();
            b.send(ch, &[i, i]).unwrap();
        }
        for i in 0..100u8 {
            let ch = if i % 3 == 0 {
                Channel::Reliable
            } else {
                Channel::Unreliable
            };
            assert_eq!(b.recv(), Some((ch, vec![i])));
            assert_eq!(a.recv(), Some((ch, vec![i, i])));
        }
        assert_eq!((a.recv(), b.recv()), (None, None));
        assert_eq!(a.sent(), (100, 100));
        assert_eq!(b.sent(), (100, 200));
    }

    #[test]
    fn close_from_either_side_closes_both() {
        let (mut a, mut b) = pair();
        a.send(Channel::Reliable, b"before").unwrap();
        b.send(Channel::Reliable, b"unread").unwrap();
        a.close();
        assert_eq!(a.state(), LinkState::Closed);
        assert_eq!(b.state(), LinkState::Closed);
        assert_eq!(
            b.send(Channel::Unreliable, b"x"),
            Err(TransportError::NotOpen(LinkState::Closed))
        );
        // The end that did not close still gets what was sent before.
        assert_eq!(b.recv(), Some((Channel::Reliable, b"before".to_vec())));
        // The end that closed receives nothing more.
        assert_eq!(a.recv(), None);
        // Closing twice is harmless.
        a.close();
        b.close();
        assert_eq!(a.state(), LinkState::Closed);
    }

    #[test]
    fn oversize_datagrams_are_refused_and_not_counted() {
        let (mut a, b) = pair();
        let big = vec![0u8; MAX_DATAGRAM + 1];
        assert_eq!(
            a.send(Channel::Reliable, &big),
            Err(TransportError::TooLarge {
                len: MAX_DATAGRAM + 1,
                max: MAX_DATAGRAM
            })
        );
        assert_eq!(a.sent(), (0, 0));
        assert_eq!(b.pending(), 0);
        a.send(Channel::Reliable, &big[..MAX_DATAGRAM]).unwrap();
        assert_eq!(b.pending(), 1);
    }
}
