//! A different build id or protocol version is refused before the first
//! tick, with VersionMismatch on both sides. The protocol cases run two
//! real sessions over the simulated link, one behind a transport that
//! rewrites the version in Hellos (no session of another version exists to
//! test against), and single sessions fed crafted Hellos.
use crate::common;

use common::{frame_time, Mode, Pair, Tiny, TinyOtherBuild};
use lockstep::wire::{ByeReason, Hello, Message};
use lockstep::PeerId;
use lockstep::{
    Channel, DeterministicGame, Event, LinkState, Millis, Outcome, Session, SessionConfig,
    Transport, TransportError, Version, PROTOCOL_VERSION,
};
use netsim::{LinkConfig, SimEndpoint};

fn tiny_version() -> Version {
    Version {
        protocol: PROTOCOL_VERSION,
        build: Some(Tiny::BUILD_ID),
    }
}

#[test]
fn different_build_ids_refuse_to_play() {
    common::in_both_modes(|mode| {
        let link = LinkConfig {
            latency: Millis(50),
            ..LinkConfig::default()
        };
        let mut p: Pair<Tiny, TinyOtherBuild> = Pair::new(
            mode.cfg(SessionConfig::host(1, 6)),
            SessionConfig::guest(),
            link,
            31,
        );
        let (host, guest) = p.run_until_both_end(600);
        let other = Version {
            protocol: PROTOCOL_VERSION,
            build: Some(TinyOtherBuild::BUILD_ID),
        };
        assert_eq!(
            host,
            Some(Outcome::VersionMismatch {
                local: tiny_version(),
                remote: Some(other)
            })
        );
        assert_eq!(
            guest,
            Some(Outcome::VersionMismatch {
                local: other,
                remote: Some(tiny_version())
            })
        );
        assert_eq!((p.host.tick(), p.guest.tick()), (0, 0));
        assert!(p.host.game().is_none() && p.guest.game().is_none());
        assert!(!p.host.seen.started && !p.guest.seen.started);
    });
}

fn hello(protocol: u32, side: u8) -> Vec<u8> {
    Message::<u8>::Hello(Hello {
        protocol,
        build: Tiny::BUILD_ID,
        seed: 3,
        side,
        input_delay: 6,
        hash_interval: 60,
        prediction_window: 0,
        players: if side == 0 { 2 } else { 0 },
        slot: u8::from(side == 0),
        match_id: 0,
        rejoin_token: 0,
        host_proof: 0,
        proofs: [0; 8],
    })
    .encode()
    // Cannot fail: well-formed messages with u8/u16 inputs always encode.
    .expect("valid messages encode")
}

/// `true` if the session queued a `Bye(VersionMismatch)` for its peer.
fn says_version_mismatch(s: &mut Session<Tiny>) -> bool {
    let mut found = false;
    while let Some((_, ch, bytes)) = s.poll_transmit() {
        if ch == Channel::Reliable
            && Message::<u8>::decode(&bytes) == Ok(Message::Bye(ByeReason::VersionMismatch))
        {
            found = true;
        }
    }
    found
}

#[test]
fn a_different_protocol_version_is_refused_by_host_and_guest() {
    for (cfg, peer_side) in [(SessionConfig::host(1, 6), 1), (SessionConfig::guest(), 0)] {
        // Cannot fail: the configuration is valid (delay <= 60, non-zero intervals).
        let mut s = Session::<Tiny>::new(cfg).expect("valid config");
        s.handle_datagram(
            Millis(10),
            PeerId(0),
            Channel::Reliable,
            &hello(PROTOCOL_VERSION + 1, peer_side),
        );
        assert_eq!(
            s.outcome(),
            Some(&Outcome::VersionMismatch {
                local: tiny_version(),
                remote: Some(Version {
                    protocol: PROTOCOL_VERSION + 1,
                    build: Some(Tiny::BUILD_ID)
                })
            })
        );
        assert_eq!(s.tick(), 0);
        assert!(says_version_mismatch(&mut s), "the peer is told too");
    }
}

#[test]
fn a_future_hello_layout_is_still_a_version_mismatch() {
    // A later protocol (one past this one) with a Hello this version
    // cannot parse.
    // Cannot fail: the configuration is valid (delay <= 60, non-zero intervals).
    let mut s = Session::<Tiny>::new(SessionConfig::guest()).expect("valid config");
    let later = u8::try_from(PROTOCOL_VERSION + 1).expect("a one-byte varint");
    s.handle_datagram(
        Millis(0),
        PeerId(0),
        Channel::Reliable,
        &[0, later, 0xff, 0xff],
    );
    assert_eq!(
        s.outcome(),
        Some(&Outcome::VersionMismatch {
            local: tiny_version(),
            remote: Some(Version {
                protocol: PROTOCOL_VERSION + 1,
                build: None
            })
        })
    );
    assert!(says_version_mismatch(&mut s));
}

#[test]
fn the_peer_of_a_refusing_side_ends_with_version_mismatch_too() {
    // The peer's Hello was accepted, then it says it refuses ours.
    // Cannot fail: the configuration is valid (delay <= 60, non-zero intervals).
    let mut s = Session::<Tiny>::new(SessionConfig::host(1, 6)).expect("valid config");
    s.handle_datagram(
        Millis(0),
        PeerId(0),
        Channel::Reliable,
        &hello(PROTOCOL_VERSION, 1),
    );
    let bye = Message::<u8>::Bye(ByeReason::VersionMismatch)
        .encode()
        // Cannot fail: well-formed messages with u8/u16 inputs always encode.
        .expect("valid messages encode");
    s.handle_datagram(Millis(0), PeerId(0), Channel::Reliable, &bye);
    assert!(matches!(s.outcome(), Some(Outcome::VersionMismatch { .. })));
}

/// A transport over the simulated link that shifts the protocol version in
/// Hellos: up by `shift` in those its session sends, down by `shift` in
/// those it receives. Its session, built from this crate, then behaves
/// exactly like a session of protocol `PROTOCOL_VERSION + shift` would (its
/// own Hello announces that version, and it sees the peer's version at the
/// same distance below its own), with the versions relabelled. With
/// `incoming` off, only what it sends is rewritten.
struct ShiftedProtocol {
    inner: SimEndpoint,
    shift: u32,
    incoming: bool,
    /// Hellos rewritten (sent, received).
    rewritten: (u32, u32),
}

impl ShiftedProtocol {
    fn new(inner: SimEndpoint, shift: u32, incoming: bool) -> Self {
        ShiftedProtocol {
            inner,
            shift,
            incoming,
            rewritten: (0, 0),
        }
    }
}

/// `datagram` with its Hello's protocol changed by `f`, if it is a Hello.
fn shift_hello(datagram: &[u8], f: impl Fn(u32) -> u32) -> Option<Vec<u8>> {
    let Ok(Message::Hello(mut h)) = Message::<u8>::decode(datagram) else {
        return None;
    };
    h.protocol = f(h.protocol);
    let hello = Message::<u8>::Hello(h);
    // Cannot fail: well-formed messages with u8 inputs always encode.
    Some(hello.encode().expect("valid messages encode"))
}

impl Transport for ShiftedProtocol {
    fn send(&mut self, channel: Channel, datagram: &[u8]) -> Result<(), TransportError> {
        if let Some(bytes) = shift_hello(datagram, |p| p + self.shift) {
            self.rewritten.0 += 1;
            return self.inner.send(channel, &bytes);
        }
        self.inner.send(channel, datagram)
    }
    fn recv(&mut self) -> Option<(Channel, Vec<u8>)> {
        let (channel, bytes) = self.inner.recv()?;
        if self.incoming {
            if let Some(b) = shift_hello(&bytes, |p| p - self.shift) {
                self.rewritten.1 += 1;
                return Some((channel, b));
            }
        }
        Some((channel, bytes))
    }
    fn state(&self) -> LinkState {
        self.inner.state()
    }
    fn close(&mut self) {
        self.inner.close();
    }
}

/// The host and the guest, their events, and how many Hellos the shifting
/// transport rewrote (sent, received).
type Played = ([Session<Tiny>; 2], [Vec<Event>; 2], (u32, u32));

/// Two real `Tiny` sessions in `mode` over a 50 ms ±10 link, the host's
/// (`shifted_host`) or the guest's transport shifting Hellos, run frame by
/// frame until both end (at most 2 s).
fn play_shifted(mode: Mode, shifted_host: bool, incoming: bool) -> Played {
    let link = LinkConfig {
        latency: Millis(50),
        jitter: Millis(10),
        ..LinkConfig::default()
    };
    let (h, g) = netsim::pair(link, 32);
    let (hs, gs) = if shifted_host { (1, 0) } else { (0, 1) };
    let mut nets = [
        ShiftedProtocol::new(h, hs, incoming),
        ShiftedProtocol::new(g, gs, incoming),
    ];
    let mut sessions = [
        // Cannot fail: the configuration is valid (delay <= 60, non-zero intervals).
        Session::<Tiny>::new(mode.cfg(SessionConfig::host(1, 6))).expect("valid config"),
        // Cannot fail: the configuration is valid (non-zero intervals and timeout).
        Session::<Tiny>::new(mode.cfg(SessionConfig::guest())).expect("valid config"),
    ];
    let mut events = [Vec::new(), Vec::new()];
    let mut pump =
        |at: Millis, sessions: &mut [Session<Tiny>; 2], nets: &mut [ShiftedProtocol; 2]| {
            for ((s, n), ev) in sessions.iter_mut().zip(nets.iter_mut()).zip(&mut events) {
                s.pump(at, PeerId(0), n);
                while let Some(e) = s.poll_event() {
                    ev.push(e);
                }
            }
        };
    for frame in 0..120 {
        if sessions.iter().all(|s| s.outcome().is_some()) {
            break;
        }
        let t = frame_time(frame);
        // Deliver every datagram due before the frame, at its time.
        while let Some(at) = nets
            .iter()
            .filter_map(|n| n.inner.poll_timeout())
            .min()
            .filter(|&at| at <= t)
        {
            nets[0].inner.advance_to(at);
            pump(at, &mut sessions, &mut nets);
        }
        nets[0].inner.advance_to(t);
        pump(t, &mut sessions, &mut nets);
        for s in &mut sessions {
            s.advance_frame(t, || 1);
        }
        pump(t, &mut sessions, &mut nets);
    }
    let counts = if shifted_host {
        nets[0].rewritten
    } else {
        nets[1].rewritten
    };
    (sessions, events, counts)
}

fn started(events: &[Event]) -> bool {
    events.iter().any(|e| matches!(e, Event::Started { .. }))
}

/// The outcome `Ended` carries, which must be the last event and the only
/// `Ended`.
fn ended_with(events: &[Event]) -> Option<Outcome> {
    let ends: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            Event::Ended(o) => Some(o.clone()),
            _ => None,
        })
        .collect();
    assert!(ends.len() <= 1, "{events:?}");
    assert!(ends.is_empty() || matches!(events.last(), Some(Event::Ended(_))));
    ends.into_iter().next()
}

fn protocol(p: u32) -> Version {
    Version {
        protocol: p,
        build: Some(Tiny::BUILD_ID),
    }
}

#[test]
fn a_peer_of_another_protocol_version_is_refused_on_both_sides() {
    common::in_both_modes(|mode| {
        for shifted_host in [true, false] {
            let ([host, guest], [host_ev, guest_ev], rewritten) =
                play_shifted(mode, shifted_host, true);
            let ctx = format!("shifted host: {shifted_host}");
            // One Hello each way went through the shifting transport.
            assert_eq!(rewritten, (1, 1), "{ctx}");
            // Each side saw the other's version one away from its own and
            // refused it before the first tick; neither started.
            let (normal, shifted) = if shifted_host {
                ((&guest, &guest_ev), (&host, &host_ev))
            } else {
                ((&host, &host_ev), (&guest, &guest_ev))
            };
            let mismatch = |remote| {
                Some(Outcome::VersionMismatch {
                    local: protocol(PROTOCOL_VERSION),
                    remote: Some(protocol(remote)),
                })
            };
            assert_eq!(
                ended_with(normal.1),
                mismatch(PROTOCOL_VERSION + 1),
                "{ctx}"
            );
            assert_eq!(
                ended_with(shifted.1),
                mismatch(PROTOCOL_VERSION - 1),
                "{ctx}"
            );
            for (s, ev) in [normal, shifted] {
                assert_eq!(s.outcome().cloned(), ended_with(ev), "{ctx}");
                assert_eq!(s.tick(), 0, "{ctx}");
                assert!(s.game().is_none(), "{ctx}");
                assert!(!started(ev), "{ctx}: {ev:?}");
                assert!(s.input_log().inputs.is_empty(), "{ctx}");
            }
        }
    });
}

/// Only one side's Hellos rewritten: the side that receives the other
/// version refuses it at tick 0, and its Bye(VersionMismatch) ends the
/// other side too, which had accepted a Hello of its own version and
/// started. That side runs no tick that needs an input from the peer (only
/// the first `delay` ticks, whose inputs are the default on both sides).
#[test]
fn a_hello_rewritten_one_way_still_ends_both_sides() {
    common::in_both_modes(|mode| {
        for shifted_host in [true, false] {
            let ([host, guest], [host_ev, guest_ev], rewritten) =
                play_shifted(mode, shifted_host, false);
            let ctx = format!("shifted host: {shifted_host}");
            assert_eq!(rewritten, (1, 0), "{ctx}");
            let (refusing, refused) = if shifted_host {
                ((&guest, &guest_ev), (&host, &host_ev))
            } else {
                ((&host, &host_ev), (&guest, &guest_ev))
            };
            assert_eq!(
                ended_with(refusing.1),
                Some(Outcome::VersionMismatch {
                    local: protocol(PROTOCOL_VERSION),
                    remote: Some(protocol(PROTOCOL_VERSION + 1)),
                }),
                "{ctx}"
            );
            assert_eq!(refusing.0.tick(), 0, "{ctx}");
            assert!(!started(refusing.1), "{ctx}");
            assert_eq!(
                ended_with(refused.1),
                Some(Outcome::VersionMismatch {
                    local: protocol(PROTOCOL_VERSION),
                    remote: Some(protocol(PROTOCOL_VERSION)),
                }),
                "{ctx}"
            );
            assert!(refused.0.tick() <= 6, "{ctx}: {}", refused.0.tick());
        }
    });
}
