//! Hostile spectators, each on its own link to the host of a two-player
//! match of `Tiny` (50 ms ±10, 5% loss), in both modes: after its Watch
//! one sends inputs, one a Hello claiming slot 1, one a Member claiming
//! slot 1, one a Rejoin with the guest's real token, one a second Watch;
//! and one declared spectator link sends inputs without ever asking to
//! watch. The host refuses each, sends it `Bye(InvalidData)` and drops
//! it; the players play on in sync and end up counting no spectator. A
//! Watch on the guest's own link leaves the guest a player.
use crate::common;

use std::collections::VecDeque;

use common::Tiny;
use lockstep::wire::{ByeReason, Hello, Inputs, Member as MemberMsg, Message, Rejoin, Watch};
use lockstep::{
    Channel, DeterministicGame, Event, LinkState, Millis, PeerId, SessionConfig, Transport,
    PROTOCOL_VERSION,
};
use lockstep_testing::{in_both_modes, member_id, Member, Mesh, SimLink};
use netsim::LinkConfig;

type M = Message<u8>;

/// A link that sends `watch` (if any) at its first frame, then `attack`
/// at frame 120, and keeps what the host sends it.
struct Hostile {
    watch: bool,
    attack: M,
    frames: u64,
    out: VecDeque<M>,
    heard: Vec<M>,
}

impl Hostile {
    fn new(watch: bool, attack: M) -> Self {
        Hostile {
            watch,
            attack,
            frames: 0,
            out: VecDeque::new(),
            heard: Vec::new(),
        }
    }

    fn was_refused(&self) -> bool {
        self.heard.last() == Some(&M::Bye(ByeReason::InvalidData))
    }
}

impl Member for Hostile {
    fn pump(&mut self, _now: Millis, _peer: PeerId, end: &mut dyn Transport) {
        while let Some((_, bytes)) = end.recv() {
            if let Ok(m) = M::decode(&bytes) {
                self.heard.push(m);
            }
        }
        if end.state() == LinkState::Open {
            while let Some(m) = self.out.pop_front() {
                let bytes = m.encode().expect("valid messages encode");
                end.send(m.channel(), &bytes).expect("an open link");
            }
        }
    }

    fn frame(&mut self, _now: Millis) {
        self.frames += 1;
        if self.frames == 1 && self.watch {
            self.out.push_back(M::Watch(Watch {
                protocol: PROTOCOL_VERSION,
                build: Tiny::BUILD_ID,
            }));
        }
        if self.frames == 120 {
            self.out.push_back(self.attack.clone());
        }
    }
}

#[test]
fn a_hostile_spectator_is_refused_and_the_match_goes_on() {
    let link = LinkConfig {
        latency: Millis(50),
        jitter: Millis(10),
        loss_percent: 5,
        ..LinkConfig::default()
    };
    in_both_modes(|mode| {
        let host = mode.cfg(SessionConfig::host(5, 4).rejoin_entropy(0xfeed));
        let guest = mode.cfg(SessionConfig::guest());
        let mut mesh = Mesh::<Tiny>::new(2, host, guest, link, 3);
        // The guest's token, known once the match runs.
        assert!(mesh.run_to_confirmed(60, 600), "{}", mesh.progress());
        let token = mesh.players[1].rejoin_token().expect("a token");
        let inputs = M::Inputs(Inputs {
            ack: 0,
            first_tick: 0,
            pads: vec![7; 20],
            ping: None,
            pong: None,
            advantage: None,
        });
        let mut hostiles = vec![
            Hostile::new(true, inputs.clone()),
            Hostile::new(
                true,
                M::Hello(Hello {
                    protocol: PROTOCOL_VERSION,
                    build: Tiny::BUILD_ID,
                    seed: 0,
                    side: 1,
                    input_delay: 0,
                    hash_interval: 60,
                    prediction_window: 0,
                    players: 0,
                    slot: 0,
                    match_id: 0,
                    rejoin_token: 0,
                    host_proof: 0,
                    proofs: [0; 8],
                }),
            ),
            Hostile::new(
                true,
                M::Member(MemberMsg {
                    slot: 1,
                    match_id: 0,
                }),
            ),
            Hostile::new(
                true,
                M::Rejoin(Rejoin {
                    protocol: PROTOCOL_VERSION,
                    build: Tiny::BUILD_ID,
                    slot: 1,
                    token,
                }),
            ),
            Hostile::new(
                true,
                M::Watch(Watch {
                    protocol: PROTOCOL_VERSION,
                    build: Tiny::BUILD_ID,
                }),
            ),
            Hostile::new(false, inputs),
        ];
        let now = mesh.net.now();
        for (k, _) in hostiles.iter().enumerate() {
            let member = 2 + k;
            let fresh = SimLink::new(link, 40 + k as u64);
            fresh.0.advance_to(now);
            mesh.net.join(0, member, fresh);
            mesh.players[0].add_spectator(now, member_id(member));
        }
        // A Watch on the guest's own link, as if the guest's peer sent it.
        let watch = M::Watch(Watch {
            protocol: PROTOCOL_VERSION,
            build: Tiny::BUILD_ID,
        })
        .encode()
        .expect("valid messages encode");
        mesh.players[0].handle_datagram(now, member_id(1), Channel::Reliable, &watch);
        for _ in 0..1_200 {
            let mut members: Vec<&mut dyn Member> = Vec::new();
            for p in &mut mesh.players {
                members.push(p);
            }
            for h in &mut hostiles {
                members.push(h);
            }
            mesh.net.step_frame(&mut members);
        }
        for (k, h) in hostiles.iter().enumerate() {
            assert!(h.was_refused(), "hostile {k} heard {:?}", h.heard.last());
            let welcomed = h.heard.iter().any(|m| matches!(m, M::Welcome(_)));
            assert_eq!(welcomed, h.watch, "hostile {k}");
        }
        let [host, guest] = [&mesh.players[0], &mesh.players[1]];
        assert_eq!(host.outcome(), None);
        assert_eq!(guest.outcome(), None);
        assert!(guest.confirmed_tick() > 1_000, "{}", mesh.progress());
        assert_eq!(
            host.peer_slot(member_id(1)),
            Some(1),
            "the guest is no player"
        );
        assert_eq!(host.spectators(), 0);
        assert_eq!(guest.spectators(), 0);
        // Five were admitted, then dropped.
        let came = |p: &lockstep_testing::Player<Tiny, _>, joined| {
            p.seen
                .events
                .iter()
                .filter(|e| matches!(e, Event::Spectator { joined: j, .. } if *j == joined))
                .count()
        };
        assert_eq!(came(host, true), 5);
        assert_eq!(came(host, false), 5);
        let mut compared = 0;
        for (t, h) in &host.seen.hashes {
            if let Some(g) = guest.seen.hashes.get(t) {
                assert_eq!(h, g, "the players differ at tick {t}");
                compared += 1;
            }
        }
        assert!(compared > 100, "{compared} ticks compared");
    });
}
