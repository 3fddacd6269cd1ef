//! Two pages' relay links, joined by a stand-in for the service that passes
//! each binary frame on unchanged: every datagram arrives once, on the
//! channel it was sent on, in sending order; nothing goes before `paired`.

use lockstep::{Channel, LinkState, Transport, TransportError};
use proptest::prelude::*;
use web_shell::relay::{decode, encode, RelayLink, MAX_DATAGRAM, TAG_RELIABLE, TAG_UNRELIABLE};

const PAIRED: &str = r#"{"type":"paired"}"#;

/// Moves every frame `from` wrote to `to`, as the relay does.
fn relay(from: &mut RelayLink, to: &mut RelayLink) -> usize {
    let mut n = 0;
    while let Some(frame) = from.poll_frame() {
        to.on_binary(&frame);
        n += 1;
    }
    n
}

fn paired() -> (RelayLink, RelayLink) {
    let (mut a, mut b) = (RelayLink::new(), RelayLink::new());
    a.on_text(PAIRED);
    b.on_text(PAIRED);
    (a, b)
}

#[test]
fn nothing_is_sent_before_the_service_says_paired() {
    let mut a = RelayLink::new();
    assert_eq!(a.state(), LinkState::Connecting);
    assert_eq!(
        a.send(Channel::Reliable, b"hello"),
        Err(TransportError::NotOpen(LinkState::Connecting))
    );
    assert_eq!(a.poll_frame(), None);
    a.on_text(PAIRED);
    assert_eq!(a.state(), LinkState::Open);
    assert_eq!(a.send(Channel::Reliable, b"hello"), Ok(()));
    assert_eq!(a.poll_frame(), Some(encode(Channel::Reliable, b"hello")));
}

#[test]
fn the_largest_datagram_passes_and_a_larger_one_is_refused() {
    let (mut a, mut b) = paired();
    let largest = vec![0x5A; MAX_DATAGRAM];
    a.send(Channel::Unreliable, &largest).unwrap();
    assert_eq!(a.send_backlog(), MAX_DATAGRAM + 1);
    assert_eq!(
        a.send(Channel::Reliable, &[0; MAX_DATAGRAM + 1]),
        Err(TransportError::TooLarge {
            len: MAX_DATAGRAM + 1,
            max: MAX_DATAGRAM
        })
    );
    assert_eq!(relay(&mut a, &mut b), 1);
    assert_eq!(a.send_backlog(), 0);
    assert_eq!(b.recv(), Some((Channel::Unreliable, largest)));
    assert_eq!(b.recv(), None);
}

#[test]
fn frames_are_a_channel_byte_then_the_datagram() {
    assert_eq!(encode(Channel::Reliable, &[9, 8]), vec![TAG_RELIABLE, 9, 8]);
    assert_eq!(encode(Channel::Unreliable, &[]), vec![TAG_UNRELIABLE]);
    assert_eq!(
        decode(&[TAG_UNRELIABLE]),
        Ok((Channel::Unreliable, &[][..]))
    );
}

proptest! {
    #[test]
    fn any_mix_of_datagrams_arrives_whole_and_in_order(
        sends in prop::collection::vec((any::<bool>(), any::<bool>(), prop::collection::vec(any::<u8>(), 0..300)), 1..60)
    ) {
        let (mut a, mut b) = paired();
        let mut expect_at_b = Vec::new();
        let mut expect_at_a = Vec::new();
        for (from_a, reliable, bytes) in &sends {
            let channel = if *reliable { Channel::Reliable } else { Channel::Unreliable };
            if *from_a {
                a.send(channel, bytes).unwrap();
                expect_at_b.push((channel, bytes.clone()));
            } else {
                b.send(channel, bytes).unwrap();
                expect_at_a.push((channel, bytes.clone()));
            }
        }
        relay(&mut a, &mut b);
        relay(&mut b, &mut a);
        let got_b: Vec<_> = std::iter::from_fn(|| b.recv()).collect();
        let got_a: Vec<_> = std::iter::from_fn(|| a.recv()).collect();
        prop_assert_eq!(got_b, expect_at_b);
        prop_assert_eq!(got_a, expect_at_a);
        prop_assert_eq!(a.dropped() + b.dropped(), 0);
    }

    #[test]
    fn decode_reads_back_what_encode_wrote(reliable in any::<bool>(), bytes in prop::collection::vec(any::<u8>(), 0..2000)) {
        let channel = if reliable { Channel::Reliable } else { Channel::Unreliable };
        let frame = encode(channel, &bytes);
        prop_assert_eq!(decode(&frame), Ok((channel, &bytes[..])));
    }
}
