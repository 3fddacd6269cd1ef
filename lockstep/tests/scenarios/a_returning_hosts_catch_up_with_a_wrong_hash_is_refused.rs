//! The guest's catch-up for a returning host arrives with a hash its
//! replay does not reach (tampered with on the way, or a guest whose
//! state went wrong): the fresh host session refuses it and ends with
//! `InvalidData { CatchUpHashMismatch }` instead of playing on a state
//! nobody shares. Played by hand over a perfect link.
use crate::common;

use common::{in_both_modes, Tiny};
use lockstep::wire::Message;
use lockstep::{LinkState, Millis, Outcome, PeerId, Session, SessionConfig, Violation};

const TO_GUEST: PeerId = PeerId(1);
const TO_HOST: PeerId = PeerId(0);

/// Hands everything `from` has to send to `to`, which names the link
/// `link`.
fn deliver(from: &mut Session<Tiny>, to: &mut Session<Tiny>, link: PeerId, now: Millis) {
    while let Some((_, channel, bytes)) = from.poll_transmit() {
        to.handle_datagram(now, link, channel, &bytes);
    }
}

#[test]
fn a_returning_hosts_catch_up_with_a_wrong_hash_is_refused() {
    in_both_modes(|mode| {
        let host_cfg = mode.cfg(SessionConfig::host(3, 2).rejoin_entropy(0x77));
        let mut host = Session::<Tiny>::new(host_cfg).expect("a valid configuration");
        let mut guest =
            Session::<Tiny>::new(mode.cfg(SessionConfig::guest())).expect("a valid configuration");
        host.handle_link_state(Millis(0), TO_GUEST, LinkState::Open);
        guest.handle_link_state(Millis(0), TO_HOST, LinkState::Open);
        let mut now = Millis(0);
        for frame in 0..300u64 {
            now = Millis(frame * 16);
            host.advance_frame(now, || (frame % 5) as u8);
            guest.advance_frame(now, || (frame % 3) as u8);
            deliver(&mut host, &mut guest, TO_HOST, now);
            deliver(&mut guest, &mut host, TO_GUEST, now);
        }
        assert!(guest.confirmed_tick() > 200, "{guest:?}");
        let token = host.rejoin_token().expect("the host's token");

        // The host's page reloads: its fresh session opens the same link
        // and asks the guest for the match.
        let mut fresh =
            Session::<Tiny>::new(host_cfg.back_as_host(token)).expect("a valid configuration");
        now = Millis(now.0 + 100);
        fresh.handle_link_state(now, TO_GUEST, LinkState::Open);
        deliver(&mut fresh, &mut guest, TO_HOST, now);
        let mut tampered = false;
        while let Some((_, channel, bytes)) = guest.poll_transmit() {
            let bytes = match Message::<u8>::decode(&bytes) {
                Ok(Message::CatchUp(mut c)) => {
                    tampered = true;
                    c.hash ^= 1;
                    Message::<u8>::CatchUp(c)
                        .encode()
                        .expect("a catch-up encodes")
                }
                _ => bytes,
            };
            fresh.handle_datagram(now, TO_GUEST, channel, &bytes);
        }
        assert!(tampered, "the guest served a catch-up");
        assert!(
            matches!(
                fresh.outcome(),
                Some(Outcome::InvalidData {
                    violation: Violation::CatchUpHashMismatch { .. }
                })
            ),
            "{:?}",
            fresh.outcome()
        );
        assert!(!fresh.is_running());
        assert!(guest.outcome().is_none(), "{:?}", guest.outcome());
    });
}
