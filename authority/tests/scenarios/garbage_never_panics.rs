//! Garbage never panics, and the documented policy holds (docs/authority.md,
//! "Bad input"):
//!
//! - host: a datagram from a seated guest that does not decode ends that
//!   guest's visit (`Left(InvalidData)`, a `Bye(InvalidData)` to it, its
//!   link closed); anything that decodes leaves the host running; a link
//!   that sends anything but a reliable Hello first is closed;
//! - guest: a datagram that does not decode, or a snapshot that does not
//!   fit its baseline, is dropped and counted, and the guest's newest
//!   snapshot stays what it was;
//! - the delta codec: any list of operations against any tree gives a tree
//!   or an error.
//!
//! Inputs are random bytes and real messages (captured from a running
//! match) with bytes flipped, inserted or cut. Reproducing a failure: the
//! panic message ends with the minimal failing input; paste it into a
//! pinned case in `pinned_cases`.

use arena::{Arena, Control};
use authority::delta::{self, Op};
use authority::wire::{ToGuest, ToHost, PROTOCOL};
use authority::{
    exchange_in_memory, AuthoritativeGame, Guest, Host, HostConfig, HostEvent, LeaveReason, LinkId,
    Millis, Way,
};
use lockstep::Channel;
use proptest::prelude::*;
use serde_json::json;

/// A host with one seated guest (link 0), after 0.6 s of play, and the
/// datagrams the guest sent to get there.
fn seated_host() -> (Host<Arena>, LinkId, Vec<Vec<u8>>) {
    // Cannot fail: the default configuration is valid.
    let mut host = Host::new(Arena::new(1), HostConfig::new(1)).expect("valid config");
    let link = host.handle_connect(Millis(0));
    let mut guest = Guest::<Arena>::new(Millis(0), None);
    let mut sent = Vec::new();
    for ms in (0..600).step_by(10) {
        let now = Millis(ms);
        if ms == 300 {
            guest.command(&Control {
                thrust: true,
                turn: 1,
                fire: true,
            });
        }
        exchange_in_memory(&mut host, link, &mut guest, now, |way, bytes| {
            if way == Way::ToHost {
                sent.push(bytes.to_vec());
            }
        });
        while host.poll_event().is_some() {}
        while guest.poll_event().is_some() {}
    }
    assert_eq!(host.link_of(1), Some(link));
    (host, link, sent)
}

/// A seated guest after 0.6 s of play, and the datagrams the host sent
/// it (Welcome, a whole snapshot, deltas).
fn seated_guest() -> (Guest<Arena>, Vec<Vec<u8>>) {
    // Cannot fail: the default configuration is valid.
    let mut host = Host::new(Arena::new(2), HostConfig::new(2)).expect("valid config");
    let link = host.handle_connect(Millis(0));
    let mut guest = Guest::<Arena>::new(Millis(0), None);
    let mut received = Vec::new();
    for ms in (0..600).step_by(10) {
        let now = Millis(ms);
        host.local_command(Control {
            thrust: ms % 300 < 150,
            turn: 1,
            fire: true,
        });
        exchange_in_memory(&mut host, link, &mut guest, now, |way, bytes| {
            if way == Way::ToGuest {
                received.push(bytes.to_vec());
            }
        });
        while host.poll_event().is_some() {}
        while guest.poll_event().is_some() {}
    }
    assert!(guest.latest().is_some());
    (guest, received)
}

/// Feeds `bytes` to a host with a seated guest and checks the policy.
fn check_host(bytes: &[u8], channel: Channel) {
    let (mut host, link, _) = seated_host();
    let now = Millis(600);
    host.handle_datagram(now, link, channel, bytes);
    host.handle_timeout(Millis(700));
    let mut sent_to_guest = Vec::new();
    while let Some(tx) = host.poll_transmit() {
        sent_to_guest.push(tx);
    }
    let mut closed = Vec::new();
    while let Some(l) = host.poll_close() {
        closed.push(l);
    }
    let events: Vec<_> = std::iter::from_fn(|| host.poll_event()).collect();
    match ToHost::decode(bytes) {
        Err(_) => {
            assert!(
                events.contains(&HostEvent::Left(1, LeaveReason::InvalidData)),
                "{events:?}"
            );
            assert_eq!(closed, vec![link]);
            assert!(sent_to_guest.iter().any(|tx| ToGuest::decode(&tx.bytes)
                == Ok(ToGuest::Bye(authority::wire::ByeReason::InvalidData))));
            assert_eq!(host.seats().count(), 0);
        }
        Ok(ToHost::Bye) => assert!(events.contains(&HostEvent::Left(1, LeaveReason::Quit))),
        Ok(_) => {
            // Anything else that decodes: the host runs on (a second
            // Hello or a command out of turn ends the visit, an ack is
            // taken or ignored); never more than one seat, never a panic.
            assert!(host.seats().count() <= 1);
        }
    }
}

/// Feeds `bytes` to a seated guest and checks the policy.
fn check_guest(bytes: &[u8], channel: Channel) {
    let (mut guest, _) = seated_guest();
    let before = guest.latest().map(|(t, _, s)| (t, s.clone()));
    let invalid = guest.stats().invalid;
    guest.handle_datagram(Millis(600), channel, bytes);
    while guest.poll_event().is_some() {}
    while guest.poll_transmit().is_some() {}
    let after = guest.latest().map(|(t, _, s)| (t, s.clone()));
    if ToGuest::decode(bytes).is_err() {
        assert_eq!(guest.stats().invalid, invalid + 1);
        assert_eq!(before, after, "garbage changes nothing");
    } else if after != before {
        // A mutated snapshot that still decoded and fit its baseline was
        // taken: it is newer than before and within the limits.
        let (t, _) = after.expect("decoded");
        assert!(before.is_none_or(|(b, _)| t > b));
    }
}

fn mutated(msgs: Vec<Vec<u8>>) -> impl Strategy<Value = Vec<u8>> {
    (0..msgs.len(), any::<usize>(), any::<u8>(), 0u8..3).prop_map(move |(i, at, byte, how)| {
        let mut m = msgs[i].clone();
        let at = at % (m.len() + 1);
        match how {
            0 if at < m.len() => m[at] ^= byte | 1,
            1 => m.insert(at, byte),
            _ => m.truncate(at),
        }
        m
    })
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        Just(Op::Null),
        Just(Op::True),
        any::<u64>().prop_map(|v| Op::U(v % 1000)),
        any::<i64>().prop_map(Op::I),
        any::<f32>().prop_map(Op::F32),
        "[a-z]{0,3}".prop_map(Op::Str),
        (0u32..4).prop_map(Op::Seq),
        (0u32..4).prop_map(Op::Map),
        "[a-z]{0,2}".prop_map(Op::Key),
        Just(Op::Set),
        (-5i64..5).prop_map(Op::Add),
        (0u64..16).prop_map(Op::Fields),
        (0u32..5).prop_map(Op::Items),
        (0u32..4).prop_map(Op::Copy),
        (0u32..4).prop_map(Op::Seek),
        Just(Op::Edit),
        Just(Op::Insert),
        (0u64..16).prop_map(Op::EditFields),
        (0u64..16, proptest::collection::vec(-3i64..3, 0..4)).prop_map(|(m, v)| Op::Steps(m, v)),
        (0u64..16, proptest::collection::vec(-3i64..3, 0..4))
            .prop_map(|(m, v)| Op::EditSteps(m, v)),
        Just(Op::Shaped),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn host_survives_random_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..64), reliable in any::<bool>()) {
        check_host(&bytes, if reliable { Channel::Reliable } else { Channel::Unreliable });
    }

    #[test]
    fn host_survives_mutated_messages(bytes in mutated(seated_host().2)) {
        check_host(&bytes, Channel::Reliable);
    }

    #[test]
    fn guest_survives_random_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..64), reliable in any::<bool>()) {
        check_guest(&bytes, if reliable { Channel::Reliable } else { Channel::Unreliable });
    }

    #[test]
    fn guest_survives_mutated_messages(bytes in mutated(seated_guest().1)) {
        check_guest(&bytes, Channel::Unreliable);
        check_guest(&bytes, Channel::Reliable);
    }

    #[test]
    fn patches_give_a_tree_or_an_error(ops in proptest::collection::vec(op(), 0..40)) {
        let base = json!({"a": 1, "b": [{"id": 1, "x": 2}, {"id": 2, "x": -3}], "c": "s", "d": 0.5});
        let _ = delta::apply_patch(&base, &ops);
        let _ = delta::read_tree(&ops);
        // Whatever the operations say, an applied patch stays in bounds.
        if let Ok(tree) = delta::apply_patch(&base, &ops) {
            prop_assert!(delta::check_limits(&tree).is_ok());
        }
    }
}

#[test]
fn pinned_cases() {
    // A link that speaks before its Hello is closed, and never seated.
    // Cannot fail: the default configuration is valid.
    let mut host = Host::new(Arena::new(3), HostConfig::new(3)).expect("valid config");
    let link = host.handle_connect(Millis(0));
    let ack = ToHost::Ack {
        tick: Some(1),
        events: 0,
        time: 0,
    }
    .encode()
    .expect("encodes");
    host.handle_datagram(Millis(0), link, Channel::Unreliable, &ack);
    assert_eq!(host.poll_close(), Some(link));
    let hello = ToHost::Hello {
        protocol: PROTOCOL,
        game: Arena::GAME_ID,
        token: None,
    }
    .encode()
    .expect("encodes");
    host.handle_datagram(Millis(0), link, Channel::Reliable, &hello);
    assert_eq!(host.seats().count(), 0);
    // A Hello on the unreliable channel does not seat either.
    let other = host.handle_connect(Millis(0));
    host.handle_datagram(Millis(0), other, Channel::Unreliable, &hello);
    assert_eq!(host.seats().count(), 0);
    // Empty datagrams.
    check_host(&[], Channel::Reliable);
    check_guest(&[], Channel::Unreliable);
}
