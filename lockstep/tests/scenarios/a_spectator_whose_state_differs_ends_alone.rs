//! A spectator whose game drifts from the players' at tick 300 (a build
//! with a bug, say) watches a two-player match of `Tiny` in both modes:
//! at the first hash the host sends past that tick it ends with
//! `Desync` naming the host's slot, tells the host, and the host drops it.
//! The players never hear of it and play on.
use crate::common;

use common::{Pads, Tiny, TinyDesyncAt};
use lockstep::{Event, Millis, Outcome, Session, SessionConfig};
use lockstep_testing::{in_both_modes, member_id, Member, Net, Player, SimLink};

#[test]
fn a_spectator_whose_state_differs_ends_alone() {
    let link = common::mild_link();
    in_both_modes(|mode| {
        let mut net = Net::<SimLink>::new();
        net.join(0, 1, SimLink::new(link, 1));
        net.join(0, 2, SimLink::new(link, 2));
        let session = |cfg| Session::new(cfg).expect("a valid configuration");
        let mut host =
            Player::<Tiny, _>::new(session(mode.cfg(SessionConfig::host(3, 3))), Pads::new(1));
        let mut guest =
            Player::<Tiny, _>::new(session(mode.cfg(SessionConfig::guest())), Pads::new(2));
        let mut watcher = Player::<TinyDesyncAt<300>, _>::new(
            Session::new(SessionConfig::spectator()).expect("a valid configuration"),
            Pads::new(3),
        );
        host.add_spectator(Millis(0), member_id(2));
        for _ in 0..1_500 {
            net.step_frame(&mut [&mut host as &mut dyn Member, &mut guest, &mut watcher]);
        }
        match watcher.outcome() {
            Some(Outcome::Desync { tick, slots, .. }) => {
                assert_eq!(*tick, 300);
                assert_eq!(slots, &vec![0]);
            }
            other => panic!("the spectator ended with {other:?}"),
        }
        assert_eq!(host.outcome(), None);
        assert_eq!(guest.outcome(), None);
        assert!(guest.confirmed_tick() > 1_200);
        assert_eq!(host.spectators(), 0);
        assert!(host.seen.events.contains(&Event::Spectator {
            link: member_id(2),
            joined: false
        }));
    });
}
