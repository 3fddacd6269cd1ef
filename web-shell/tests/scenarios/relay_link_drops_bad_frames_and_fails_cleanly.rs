//! What the other page or the socket may throw at a relay link: frames
//! that are empty, mis-tagged, too long or out of place are dropped and
//! counted, never delivered; a normal close from the relay (1000) is
//! `Closed`, any other close or a socket error is `Failed`, and a
//! terminal state never changes again.

use lockstep::{Channel, LinkState, Transport, TransportError};
use proptest::prelude::*;
use web_shell::relay::{decode, FrameError, RelayLink, MAX_DATAGRAM};

const PAIRED: &str = r#"{"type":"paired"}"#;

fn open() -> RelayLink {
    let mut l = RelayLink::new();
    l.on_text(PAIRED);
    l
}

#[test]
fn malformed_frames_are_dropped_and_counted() {
    let mut l = open();
    l.on_binary(&[]);
    l.on_binary(&[2, 1, 2, 3]);
    l.on_binary(&[255]);
    let mut too_long = vec![0u8; MAX_DATAGRAM + 2];
    too_long[0] = 0;
    l.on_binary(&too_long);
    l.on_oversized(1 << 20);
    assert_eq!(l.recv(), None);
    assert_eq!(l.dropped(), 5);
    assert_eq!(l.state(), LinkState::Open, "bad frames do not end the link");
    assert_eq!(decode(&[]), Err(FrameError::Empty));
    assert_eq!(decode(&[7]), Err(FrameError::UnknownChannel(7)));
    assert_eq!(
        decode(&too_long),
        Err(FrameError::TooLarge(MAX_DATAGRAM + 1))
    );
    // A good frame after all that still arrives.
    l.on_binary(&[1, 42]);
    assert_eq!(l.recv(), Some((Channel::Unreliable, vec![42])));
}

#[test]
fn text_frames_other_than_a_first_paired_are_dropped() {
    let mut l = RelayLink::new();
    for junk in [
        "",
        "paired",
        r#"{"type":"paired","extra":1}"#,
        r#"{"type":"PAIRED"}"#,
        r#"["paired"]"#,
        r#"{"type":"error","reason":"x"}"#,
    ] {
        l.on_text(junk);
        assert_eq!(l.state(), LinkState::Connecting, "{junk}");
    }
    l.on_text(PAIRED);
    l.on_text(PAIRED);
    assert_eq!(l.state(), LinkState::Open);
    assert_eq!(l.dropped(), 7);
}

#[test]
fn frames_before_paired_are_dropped() {
    let mut l = RelayLink::new();
    l.on_binary(&[0, 1, 2]);
    l.on_text(PAIRED);
    assert_eq!(l.recv(), None);
    assert_eq!(l.dropped(), 1);
}

#[test]
fn the_relays_normal_close_is_closed_and_any_other_is_failed() {
    let mut l = open();
    l.send(Channel::Reliable, b"queued").unwrap();
    l.on_closed(1000);
    assert_eq!(l.state(), LinkState::Closed);
    assert_eq!(l.poll_frame(), None, "nothing is written after the close");
    assert_eq!(l.send_backlog(), 0);
    for code in [1003, 1006, 1008, 1009, 1011] {
        let mut l = open();
        l.on_closed(code);
        assert_eq!(l.state(), LinkState::Failed, "{code}");
        l.on_closed(1000);
        l.on_text(PAIRED);
        assert_eq!(l.state(), LinkState::Failed, "terminal stays");
    }
    // An error while connecting fails the link, and the close after it
    // changes nothing.
    let mut l = RelayLink::new();
    l.on_error();
    l.on_closed(1000);
    assert_eq!(l.state(), LinkState::Failed);
    assert_eq!(
        l.send(Channel::Reliable, b"x"),
        Err(TransportError::NotOpen(LinkState::Failed))
    );
}

#[test]
fn closing_from_this_side_asks_the_socket_to_close() {
    let mut l = open();
    assert!(!l.wants_close());
    l.close();
    assert!(l.wants_close());
    assert_eq!(l.state(), LinkState::Closed);
    assert_eq!(
        l.send(Channel::Unreliable, b"late"),
        Err(TransportError::NotOpen(LinkState::Closed))
    );
    // The socket then closes, with whatever code: still Closed.
    l.on_closed(1005);
    assert_eq!(l.state(), LinkState::Closed);
    // Frames still in flight towards us are not delivered any more.
    l.on_binary(&[0, 1]);
    assert_eq!(l.recv(), None);
}

proptest! {
    #[test]
    fn garbage_never_panics_or_delivers_a_bad_datagram(
        events in prop::collection::vec((0u8..4, prop::collection::vec(any::<u8>(), 0..64), any::<u16>()), 0..80)
    ) {
        let mut l = RelayLink::new();
        let mut was_terminal = false;
        for (kind, bytes, code) in events {
            match kind {
                0 => l.on_binary(&bytes),
                1 => l.on_text(&String::from_utf8_lossy(&bytes)),
                2 => l.on_text(PAIRED),
                _ => l.on_closed(code),
            }
            if was_terminal {
                prop_assert!(l.state().is_terminal());
            }
            was_terminal = l.state().is_terminal();
            while let Some((_, d)) = l.recv() {
                prop_assert!(d.len() <= MAX_DATAGRAM);
            }
        }
    }
}
