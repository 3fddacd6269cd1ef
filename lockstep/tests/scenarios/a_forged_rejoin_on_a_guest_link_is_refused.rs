//! A guest takes a rejoiner back only on the host's word. Four players;
//! forged claims reach guest 1: on the live link of slot 3, a `Rejoin`
//! claiming slot 2; on a link it does not know, a `Member` introduction
//! claiming slot 2, and a `Rejoin` for slot 2 with a made-up token, the
//! latter also while slot 2's real player is rejoining. Each is refused
//! and logged, nothing else changes: slot 3 is never dropped, the real
//! rejoiner is taken back on its own link, and the match plays on in sync.
use crate::common;

use common::{assert_players_agree, in_both_modes, rejoin_mesh, Bench, Mode};
use lockstep::wire::{Member, Message, Rejoin, PROTOCOL_VERSION};
use lockstep::{Channel, DeterministicGame, Event, PeerId};
use lockstep_testing::member_id;

/// A link guest 1 never opened.
const STRANGER: PeerId = PeerId(60);

fn rejoin(slot: u8, token: u64) -> Vec<u8> {
    Message::<u8>::Rejoin(Rejoin {
        protocol: PROTOCOL_VERSION,
        build: Bench::BUILD_ID,
        slot,
        token,
    })
    .encode()
    .expect("a rejoin encodes")
}

#[test]
fn a_forged_rejoin_on_a_guest_link_is_refused() {
    in_both_modes(|mode| {
        let link = common::mild_link();
        let mut m = rejoin_mesh(mode, 4, 55, 0x55_2026, link, (4, 2));
        assert!(m.run_to_confirmed(600, 3000), "{}", m.progress());
        let token = m.players[2].rejoin_token().expect("the host gave a token");
        let forged = token ^ 0x5a5a;
        let now = m.net.now();
        let g = &mut m.players[1];
        // Slot 3's own link claims slot 2.
        g.handle_datagram(now, member_id(3), Channel::Reliable, &rejoin(2, token));
        // A stranger introduces itself as slot 2, then claims it.
        let intro = Message::<u8>::Member(Member {
            slot: 2,
            match_id: 1,
        })
        .encode()
        .expect("an introduction encodes");
        g.handle_datagram(now, STRANGER, Channel::Reliable, &intro);
        g.handle_datagram(now, STRANGER, Channel::Reliable, &rejoin(2, forged));
        assert!(g.outcome().is_none(), "{:?}", g.outcome());
        assert_eq!(g.peer_slot(STRANGER), None);
        assert_eq!(g.peer_slot(member_id(3)), Some(3));
        assert!(m.run_to_confirmed(900, 3000), "{}", m.progress());

        // The real player of slot 2 reloads; the stranger claims it again
        // before the host's word comes.
        m.reload(2).expect("a guest's slot can be rejoined");
        let now = m.net.now();
        m.players[1].handle_datagram(now, STRANGER, Channel::Reliable, &rejoin(2, forged));
        assert!(m.run_to_confirmed(2000, 6000), "{}", m.progress());
        assert!(m.players.iter().all(|p| p.outcome().is_none()));
        let g = &m.players[1];
        assert_eq!(g.peer_slot(member_id(2)), Some(2));
        assert_eq!(g.peer_slot(STRANGER), None);
        let events = &g.seen.events;
        let back = events
            .iter()
            .filter(|e| **e == Event::Resumed { slot: 2 })
            .count();
        assert_eq!(back, 1, "{events:?}");
        for p in &m.players {
            assert!(
                !p.seen
                    .events
                    .iter()
                    .any(|e| matches!(e, Event::Dropped { slot: 3, .. })),
                "{:?}",
                p.seen.events
            );
        }
        let want = if mode == Mode::LockStep { 1000 } else { 100 };
        assert_players_agree(&m, &[0, 1, 2, 3], want);
    });
}
