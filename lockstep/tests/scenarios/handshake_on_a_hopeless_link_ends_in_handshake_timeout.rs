//! On a link where no round trip completes (here every pong the guest
//! sends is lost, while everything else gets through), a host that picks
//! its delay from the round trip can never measure it. Both sides keep
//! hearing each other (the host pings every frame, the guest answers and
//! pings too), so neither hits the silence timeout; when the handshake's
//! deadline passes, both end with `HandshakeTimeout`, the outcome that
//! tells the players the link is too poor to start.
use crate::common;

use common::{frame_time, in_both_modes, Tiny};
use lockstep::session::DEFAULT_HANDSHAKE_TIMEOUT;
use lockstep::wire::Message;
use lockstep::PeerId;
use lockstep::{Millis, Outcome, Session, SessionConfig, Transport};
use netsim::LinkConfig;

type M = Message<u8>;

#[test]
fn no_round_trip_means_handshake_timeout_on_both_sides() {
    in_both_modes(|mode| {
        let link = LinkConfig {
            latency: Millis(40),
            jitter: Millis(10),
            loss_percent: 10,
            ..LinkConfig::default()
        };
        let (mut host_net, mut guest_net) = netsim::pair(link, 12);
        // Cannot fail: the configurations are valid.
        let mut host =
            Session::<Tiny>::new(mode.cfg(SessionConfig::host(2, 6).input_delay_from_rtt()))
                .expect("valid config");
        // Cannot fail: the default guest configuration is valid.
        let mut guest = Session::<Tiny>::new(SessionConfig::guest()).expect("valid config");
        guest.handle_link_state(Millis(0), PeerId(0), lockstep::LinkState::Open);
        let mut pongs_dropped = 0;
        for frame in 0..60 * 20u64 {
            let now = frame_time(frame);
            host_net.advance_to(now);
            host.pump(now, PeerId(1), &mut host_net);
            host.advance_frame(now, || 1);
            host.pump(now, PeerId(1), &mut host_net);
            while let Some((ch, bytes)) = guest_net.recv() {
                guest.handle_datagram(now, PeerId(0), ch, &bytes);
            }
            guest.handle_timeout(now);
            guest.advance_frame(now, || 2);
            while let Some((_, ch, bytes)) = guest.poll_transmit() {
                if matches!(M::decode(&bytes), Ok(M::Pong(_))) {
                    pongs_dropped += 1;
                    continue;
                }
                // Cannot fail: the link is open and the datagram small.
                guest_net.send(ch, &bytes).expect("link open");
            }
            if host.outcome().is_some() && guest.outcome().is_some() {
                break;
            }
        }
        assert_eq!(host.outcome(), Some(&Outcome::HandshakeTimeout));
        assert_eq!(guest.outcome(), Some(&Outcome::HandshakeTimeout));
        assert!(!host.is_running() && host.game().is_none());
        // The host kept probing, one ping a frame, to the end.
        let probing_frames = (DEFAULT_HANDSHAKE_TIMEOUT.0 * 60 / 1000) as usize;
        assert!(
            pongs_dropped > probing_frames * 8 / 10,
            "{pongs_dropped} pongs"
        );
    });
}
