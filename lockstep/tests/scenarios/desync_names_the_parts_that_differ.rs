//! A desync in one part of a game that describes its parts: both peers
//! exchange their part hashes of the first diverging tick over the
//! simulated link, and both outcomes name exactly that part, in lock-step
//! and in rollback, on a lossy link. A peer whose game names no parts
//! sends none: the waiting side ends when its `Bye(Desync)` comes, naming
//! none. Parts that never come (a direct link that drops the peer's
//! reliable datagrams from its Parts on) end the wait at its deadline.
use crate::common;

use common::{Pair, Trio, TRIO_PARTS};
use lockstep::parts::StatePart;
use lockstep::PeerId;
use lockstep::{DesyncParts, DeterministicGame, Millis, Outcome, SessionConfig};
use netsim::LinkConfig;

/// `Trio` with the same build id, nudged like `Trio<AT, 0>`, but whose
/// game describes no parts (the trait's default).
#[derive(Clone, Debug)]
struct Partless<const AT: u32>(Trio<AT, 0>);

impl<const AT: u32> DeterministicGame for Partless<AT> {
    type Input = u8;
    const BUILD_ID: u64 = Trio::<0, 0>::BUILD_ID;
    fn new(seed: u64, players: u8) -> Self {
        Partless(Trio::new(seed, players))
    }
    fn step(&mut self, inputs: &[u8]) {
        self.0.step(inputs);
    }
    fn state_hash(&self) -> u64 {
        self.0.state_hash()
    }
}

fn lossy() -> LinkConfig {
    LinkConfig {
        latency: Millis(40),
        jitter: Millis(10),
        loss_percent: 10,
        ..LinkConfig::default()
    }
}

/// The desync parts of an outcome, after checking it is a desync within
/// one interval (60) of `at`.
fn desync_parts(o: Option<Outcome>, at: u32) -> (u32, DesyncParts) {
    let Some(Outcome::Desync { tick, parts, .. }) = o else {
        panic!("not a desync: {o:?}");
    };
    assert!(
        tick > at && tick <= at + 60 && tick % 60 == 0,
        "tick {tick}"
    );
    (tick, parts)
}

fn one_part_differs<const PART: u8>(net_seed: u64) {
    common::in_both_modes(|mode| {
        let mut p: Pair<Trio<0, 0>, Trio<1000, PART>> = Pair::new(
            mode.cfg(SessionConfig::host(9, 4)),
            SessionConfig::guest(),
            lossy(),
            net_seed,
        );
        let (host, guest) = p.run_until_both_end(3000);
        let (host_tick, host_parts) = desync_parts(host, 1000);
        let (guest_tick, guest_parts) = desync_parts(guest, 1000);
        assert_eq!(host_tick, guest_tick);
        let name = TRIO_PARTS[usize::from(PART)];
        assert_eq!(host_parts.differing, vec![name], "{mode:?}");
        assert_eq!(guest_parts.differing, vec![name], "{mode:?}");
        // Each side holds the other's hashes as the peer's.
        let hashes = |parts: &[StatePart]| parts.iter().map(|p| p.hash).collect::<Vec<_>>();
        assert_eq!(host_parts.remote, hashes(&guest_parts.local));
        assert_eq!(guest_parts.remote, hashes(&host_parts.local));
        // Nothing ran on after the desync was found (plus what was in
        // flight, and in rollback the window).
        assert!(p.host.tick() < host_tick + 10 + 8, "{}", p.progress());
    });
}

#[test]
fn a_desync_in_the_left_counter_is_named() {
    one_part_differs::<0>(31);
}

#[test]
fn a_desync_in_the_right_counter_is_named() {
    one_part_differs::<1>(32);
}

#[test]
fn a_desync_in_the_turn_is_named() {
    one_part_differs::<2>(33);
}

#[test]
fn a_peer_without_parts_ends_both_sides_naming_none() {
    common::in_both_modes(|mode| {
        let mut p: Pair<Trio<0, 0>, Partless<500>> = Pair::new(
            mode.cfg(SessionConfig::host(9, 4)),
            SessionConfig::guest(),
            lossy(),
            34,
        );
        let (host, guest) = p.run_until_both_end(3000);
        let (_, host_parts) = desync_parts(host, 500);
        let (_, guest_parts) = desync_parts(guest, 500);
        // The host sent its parts and waited; the guest ended at once and
        // its Bye ended the host's wait.
        assert_eq!(host_parts.local.len(), 3);
        assert!(host_parts.remote.is_empty() && host_parts.differing.is_empty());
        assert_eq!(guest_parts, DesyncParts::default());
    });
}

/// Part hashes that never come: the link drops everything the guest sends
/// on the reliable channel once its hashes differ. The host still ends
/// with a desync (not a timeout), naming none, once its wait is over: half
/// its silence timeout, without a tick meanwhile.
#[test]
fn a_wait_for_parts_that_never_come_ends_naming_none() {
    use lockstep::wire::Message;
    use lockstep::{Channel, Frame, Session};
    let cfg = SessionConfig::host(9, 2).timeout(Millis(3000));
    let mut host = Session::<Trio<0, 0>>::new(cfg).expect("valid config");
    let mut guest = Session::<Trio<301, 2>>::new(SessionConfig::guest()).expect("valid config");
    common::open_link(&mut host, &mut guest);
    let mut cut = false;
    let (mut waited_from, mut ended_at) = (None, None);
    for frame in 0..2000u64 {
        let now = Millis(frame * 1000 / 60);
        host.handle_timeout(now);
        if host.advance_frame(now, || 1) == Frame::Waiting && host.tick() > 0 {
            waited_from.get_or_insert((now, host.tick()));
        }
        guest.advance_frame(now, || 2);
        while let Some((_, ch, b)) = host.poll_transmit() {
            guest.handle_datagram(now, PeerId(0), ch, &b);
        }
        while let Some((_, ch, b)) = guest.poll_transmit() {
            // The guest's Parts: from then on its reliable channel is dead.
            cut |= matches!(Message::<u8>::decode(&b), Ok(Message::Parts(_)));
            if !(cut && ch == Channel::Reliable) {
                host.handle_datagram(now, PeerId(1), ch, &b);
            }
        }
        if host.outcome().is_some() {
            ended_at = Some(now);
            break;
        }
    }
    assert!(cut, "the guest sent its parts");
    let (_, parts) = desync_parts(host.outcome().cloned(), 301);
    assert_eq!(parts.local.len(), 3);
    assert!(parts.remote.is_empty() && parts.differing.is_empty());
    let (Some((from, tick)), Some(end)) = (waited_from, ended_at) else {
        panic!("the host waited and ended: {waited_from:?} {ended_at:?}");
    };
    let waited = end.0 - from.0;
    assert!(
        (1500 - 17..=1500 + 17).contains(&waited),
        "waited {waited} ms"
    );
    assert_eq!(host.tick(), tick, "no tick ran while waiting");
}
