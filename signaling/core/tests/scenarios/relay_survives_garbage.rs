//! Random sequences of admissions, frames of any size and kind, closes for
//! known and unknown sockets and alarms at any time: the relay never
//! panics, forwards only between its two admitted sockets, never to the
//! sender, and does nothing once it is over.

use crate::relay_common;

use proptest::prelude::*;
use relay_common::RelayHost;
use signaling_core::{
    Millis, Relay, RelayAction, RelayEvent, RelayLimits, Role, RoomCode, SocketId,
};

#[derive(Debug, Clone)]
enum Step {
    Admit(bool),
    Frame(usize, usize, bool),
    Close(usize),
    Alarm,
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        any::<bool>().prop_map(Step::Admit),
        (0usize..4, 0usize..40_000, any::<bool>()).prop_map(|(s, l, t)| Step::Frame(s, l, t)),
        (0usize..4).prop_map(Step::Close),
        Just(Step::Alarm),
    ]
}

proptest! {
    #[test]
    fn the_relay_keeps_its_invariants(steps in prop::collection::vec((step(), 0u64..400), 0..120)) {
        let limits = RelayLimits { ttl_ms: 20_000, bytes_per_second: 50_000, ..RelayLimits::default() };
        let (mut relay, _) = Relay::new(RoomCode::parse("GARBAG").unwrap(), limits, Millis(0));
        let mut host = RelayHost::default();
        let mut sockets: Vec<SocketId> = vec![SocketId(u64::MAX)];
        let mut now = 0u64;
        for (s, dt) in steps {
            now += dt;
            let t = Millis(now);
            let was_finished = relay.is_finished();
            let (actions, from) = match s {
                Step::Admit(h) => {
                    let role = if h { Role::Host } else { Role::Guest };
                    match relay.admit(role, t) {
                        Ok((id, a)) => { sockets.push(id); (a, None) }
                        Err(_) => (Vec::new(), None),
                    }
                }
                Step::Frame(i, len, text) => {
                    let socket = sockets[i % sockets.len()];
                    (relay.handle(RelayEvent::Frame { socket, len, text }, t), Some(socket))
                }
                Step::Close(i) => {
                    let socket = sockets[i % sockets.len()];
                    (relay.handle(RelayEvent::Closed { socket }, t), None)
                }
                Step::Alarm => (relay.handle(RelayEvent::Alarm, t), None),
            };
            if was_finished {
                prop_assert!(actions.is_empty());
            }
            for a in &actions {
                if let RelayAction::Forward { to } = a {
                    prop_assert!(Some(*to) != from, "forwarded to the sender");
                    prop_assert!(sockets.contains(to));
                    prop_assert!(relay.socket(Role::Host) == Some(*to) || relay.socket(Role::Guest) == Some(*to));
                }
            }
            host.apply(actions, Some(&[]));
        }
    }
}
