//! Once a side has found a desync and waits for the peer's part hashes,
//! the desync is how the match ends for it, whatever the peer sends
//! instead of its parts: bytes that do not decode, or a `Bye` for another
//! reason (a peer that forged its hashes sees no desync of its own and
//! objects to the parts it is sent). It never turns into "invalid data".
use crate::common;

use common::Trio;
use lockstep::wire::{ByeReason, Message};
use lockstep::PeerId;
use lockstep::{Frame, Millis, Outcome, Session, SessionConfig};

/// Runs a host and a guest (whose game drifts in one part at tick 301)
/// joined directly; the guest's Parts message is replaced by `instead`.
/// Returns the host's outcome.
fn host_outcome_when_the_guest_sends(instead: &[u8]) -> Option<Outcome> {
    let mut host = Session::<Trio<0, 0>>::new(SessionConfig::host(9, 2)).expect("valid config");
    let mut guest = Session::<Trio<301, 2>>::new(SessionConfig::guest()).expect("valid config");
    common::open_link(&mut host, &mut guest);
    let mut replaced = false;
    for frame in 0..2000u64 {
        let now = Millis(frame * 1000 / 60);
        host.handle_timeout(now);
        let waiting = host.advance_frame(now, || 1) == Frame::Waiting && host.tick() > 0;
        guest.advance_frame(now, || 2);
        while let Some((_, ch, b)) = host.poll_transmit() {
            guest.handle_datagram(now, PeerId(0), ch, &b);
        }
        while let Some((_, ch, b)) = guest.poll_transmit() {
            if matches!(Message::<u8>::decode(&b), Ok(Message::Parts(_))) {
                assert!(
                    waiting || host.outcome().is_none(),
                    "the host found the desync first"
                );
                replaced = true;
                host.handle_datagram(now, PeerId(1), ch, instead);
            } else {
                host.handle_datagram(now, PeerId(1), ch, &b);
            }
        }
        if host.outcome().is_some() {
            break;
        }
    }
    assert!(replaced, "the guest's parts were replaced");
    host.outcome().cloned()
}

fn assert_desync(o: Option<Outcome>) {
    match o {
        Some(Outcome::Desync { tick, parts, .. }) => {
            assert_eq!(tick, 360, "the first hashed tick after the drift");
            assert_eq!(parts.local.len(), 3, "this side's parts are kept");
            assert!(parts.remote.is_empty() && parts.differing.is_empty());
        }
        other => panic!("expected the desync, got {other:?}"),
    }
}

#[test]
fn garbage_instead_of_parts_leaves_the_desync() {
    assert_desync(host_outcome_when_the_guest_sends(&[0xff; 32]));
}

#[test]
fn a_bye_for_another_reason_instead_of_parts_leaves_the_desync() {
    let bye = Message::<u8>::Bye(ByeReason::InvalidData)
        .encode()
        .expect("a Bye encodes");
    assert_desync(host_outcome_when_the_guest_sends(&bye));
}
