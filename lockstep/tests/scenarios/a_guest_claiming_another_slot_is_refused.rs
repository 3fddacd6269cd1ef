//! Three players over a full mesh; the guest in slot 2 claims slot 1 when
//! it introduces itself to the guest in slot 1. That guest refuses it
//! (invalid data: the slot is its own) and never starts; the refusal
//! reaches the other two as a `Bye` and the match goes no further.
use crate::common;

use common::Crowd;
use lockstep::wire::{Member as Intro, Message};
use lockstep::{Millis, Outcome, PeerId, Session, SessionConfig, Transport, Violation};
use lockstep_testing::{LinkConfig, Member, Net, Pads, Player, SimLink};

/// A player whose introductions claim slot 1, whatever its own.
struct Impostor(Player<Crowd, Pads>);

impl Member for Impostor {
    fn pump(&mut self, now: Millis, peer: PeerId, end: &mut dyn Transport) {
        let s = &mut self.0.session;
        while let Some((ch, bytes)) = end.recv() {
            s.handle_datagram(now, peer, ch, &bytes);
        }
        s.handle_link_state(now, peer, end.state());
        while let Some((ch, bytes)) = s.poll_transmit_to(peer) {
            let bytes = match Message::<u8>::decode(&bytes) {
                Ok(Message::Member(m)) => Message::<u8>::Member(Intro { slot: 1, ..m })
                    .encode()
                    // Cannot fail: a Member always encodes.
                    .expect("encodes"),
                _ => bytes,
            };
            let _ = end.send(ch, &bytes);
        }
        self.0.seen.record(&mut self.0.session);
    }

    fn frame(&mut self, now: Millis) {
        self.0.frame(now);
    }
}

#[test]
fn a_guest_claiming_another_slot_is_refused() {
    let link = LinkConfig {
        latency: Millis(20),
        ..LinkConfig::default()
    };
    common::in_both_modes(|mode| {
        let mut net = Net::new();
        net.join(0, 1, SimLink::new(link, 1));
        net.join(0, 2, SimLink::new(link, 2));
        net.join(1, 2, SimLink::new(link, 3));
        let host_cfg = mode.cfg(SessionConfig::host(5, 3).players(3));
        let guest_cfg = mode.cfg(SessionConfig::guest());
        // Cannot fail: valid configurations.
        let mut a = Player::new(
            Session::<Crowd>::new(host_cfg).expect("valid"),
            Pads::new(1),
        );
        let mut b = Player::new(
            Session::<Crowd>::new(guest_cfg).expect("valid"),
            Pads::new(2),
        );
        let mut c = Impostor(Player::new(
            Session::<Crowd>::new(guest_cfg).expect("valid"),
            Pads::new(3),
        ));
        while net.frame < 600 && b.outcome().is_none() {
            net.step_frame(&mut [&mut a as &mut dyn Member, &mut b, &mut c]);
        }
        assert_eq!(
            b.outcome(),
            Some(&Outcome::InvalidData {
                violation: Violation::SlotClaimed { slot: 1 }
            })
        );
        assert!(!b.seen.started, "slot 1 never started");
        // The refusal's Bye reaches the others; nobody plays on. The host,
        // which had every Hello, may have started, but never got past its
        // delay and window without the guests' inputs.
        for _ in 0..60 {
            net.step_frame(&mut [&mut a as &mut dyn Member, &mut b, &mut c]);
        }
        assert!(a.tick() <= 3 + 8, "the host reached tick {}", a.tick());
        assert!(a.outcome().is_some() && c.0.outcome().is_some());
    });
}
