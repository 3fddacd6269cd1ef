//! A zero hello timeout and a zero socket cap switch them off, in virtual
//! time, as the hosts' settings document.

use crate::common;

use common::FakeHost;
use signaling_core::{Event, Lobby, LobbyAttachment, LobbyLimits, LobbyRefusal, Millis};

#[test]
fn zero_hello_timeout_and_zero_socket_cap_are_off() {
    let mut lobby = Lobby::new(LobbyLimits {
        hello_timeout_ms: 0,
        idle_timeout_ms: 0,
        max_sockets: 0,
        max_sockets_per_address: 0,
        ..LobbyLimits::default()
    });
    let mut h = FakeHost::<LobbyAttachment>::default();
    // Far more sockets than the default cap of 32 are taken.
    let mut sockets = Vec::new();
    for i in 0..100 {
        let (s, a) = lobby.admit(Millis(i)).expect("no socket cap");
        h.apply(a);
        sockets.push(s);
    }
    assert_eq!(lobby.socket_count(), 100);
    // None of them has a deadline, so no alarm is armed, and an alarm an
    // hour later closes nobody.
    assert_eq!(h.alarm, None);
    assert_eq!(lobby.next_deadline(), None);
    h.apply(lobby.handle(Event::Alarm, Millis(3_600_000)));
    assert!(h.closed.is_empty());
    assert_eq!(lobby.socket_count(), 100);

    // With the caps back on, the same lobby size is refused and silent
    // sockets get their deadline.
    let mut capped = Lobby::new(LobbyLimits {
        max_sockets: 2,
        ..LobbyLimits::default()
    });
    let (_, a) = capped.admit(Millis(0)).unwrap();
    h.apply(a);
    assert_eq!(capped.next_deadline(), Some(Millis(10_000)));
    capped.admit(Millis(0)).unwrap();
    assert_eq!(
        capped.admit(Millis(0)).err(),
        Some(LobbyRefusal::TooManySockets)
    );
}
