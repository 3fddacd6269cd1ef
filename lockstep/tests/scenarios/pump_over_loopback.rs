//! `Session::pump` with a real `Transport` (the in-process loopback): two
//! sessions reach tick 600 in sync, one tick per frame, and a closed
//! transport is noticed through pump: the player's slot is held for the
//! rejoin window, then the match ends with PlayerLeft.
use crate::common;

use common::Tiny;
use lockstep::PeerId;
use lockstep::{DeterministicGame, Event, Millis, Outcome, Session, SessionConfig, Transport};

#[test]
fn two_sessions_over_the_loopback() {
    let (mut a, mut b) = loopback::pair();
    // Cannot fail: the configuration is valid (delay <= 60, non-zero intervals).
    let mut host = Session::<Tiny>::new(SessionConfig::host(3, 2)).expect("valid config");
    // Cannot fail: the configuration is valid (delay <= 60, non-zero intervals).
    let mut guest = Session::<Tiny>::new(SessionConfig::guest()).expect("valid config");
    let mut frames = 0u64;
    while host.tick() < 600 || guest.tick() < 600 {
        let now = common::frame_time(frames);
        host.pump(now, PeerId(1), &mut a);
        guest.pump(now, PeerId(0), &mut b);
        // The guest starts a frame earlier (it hears the host's Hello
        // first): stop each side at tick 600 to compare the same tick.
        if host.tick() < 600 {
            host.advance_frame(now, || 1);
        }
        if guest.tick() < 600 {
            guest.advance_frame(now, || 2);
        }
        host.pump(now, PeerId(1), &mut a);
        guest.pump(now, PeerId(0), &mut b);
        frames += 1;
        assert!(frames < 700, "one tick per frame after the handshake");
    }
    assert_eq!(host.tick(), guest.tick());
    assert_eq!(
        host.game().map(Tiny::state_hash),
        guest.game().map(Tiny::state_hash)
    );
    // Replaying the host's log gives the same game.
    assert_eq!(
        host.input_log().replay::<Tiny>(),
        Ok(guest.game().map_or(0, Tiny::state_hash))
    );

    // The guest's end closes; the host learns it at its next pump and
    // holds the guest's slot for the rejoin window.
    b.close();
    host.pump(Millis(20_000), PeerId(1), &mut a);
    assert_eq!(host.outcome(), None);
    let dropped = Event::Dropped {
        slot: 1,
        held_for: Millis(20_000),
    };
    assert!(std::iter::from_fn(|| host.poll_event()).any(|e| e == dropped));
    host.pump(Millis(40_000), PeerId(1), &mut a);
    assert_eq!(host.outcome(), Some(&Outcome::PlayerLeft { slot: 1 }));
}
