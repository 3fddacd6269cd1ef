//! Three players over a full mesh, in both modes; the game of slot 2
//! drifts from tick 300 on. The two players that agree both end with a
//! desync naming slot 2; slot 2's own outcome names the players it
//! compared with, never itself.
use crate::common;

use common::{Crowd, CrowdNudgedAt};
use lockstep::{Millis, Outcome, Session, SessionConfig};
use lockstep_testing::{LinkConfig, Member, Net, Pads, Player, SimLink};

fn slots_named(o: Option<&Outcome>) -> Vec<u8> {
    match o {
        Some(Outcome::Desync { tick, slots, .. }) => {
            assert!(*tick >= 300 && *tick <= 360, "tick {tick}");
            slots.clone()
        }
        other => panic!("not a desync: {other:?}"),
    }
}

#[test]
fn a_desync_among_three_players_names_the_slot_that_differs() {
    let link = LinkConfig {
        latency: Millis(20),
        jitter: Millis(5),
        ..LinkConfig::default()
    };
    common::in_both_modes(|mode| {
        let host_cfg = mode.cfg(SessionConfig::host(5, 3).players(3));
        let guest_cfg = mode.cfg(SessionConfig::guest());
        let mut net = Net::new();
        net.join(0, 1, SimLink::new(link, 1));
        net.join(0, 2, SimLink::new(link, 2));
        net.join(1, 2, SimLink::new(link, 3));
        // Cannot fail: valid configurations.
        let mut a = Player::new(
            Session::<Crowd>::new(host_cfg).expect("valid"),
            Pads::new(1),
        );
        let mut b = Player::new(
            Session::<Crowd>::new(guest_cfg).expect("valid"),
            Pads::new(2),
        );
        let mut c = Player::new(
            Session::<CrowdNudgedAt<300>>::new(guest_cfg).expect("valid"),
            Pads::new(3),
        );
        while net.frame < 1200
            && [a.outcome(), b.outcome(), c.outcome()]
                .iter()
                .any(Option::is_none)
        {
            net.step_frame(&mut [&mut a as &mut dyn Member, &mut b, &mut c]);
        }
        assert_eq!(c.session.side(), Some(2));
        assert_eq!(slots_named(a.outcome()), vec![2], "the host");
        assert_eq!(slots_named(b.outcome()), vec![2], "slot 1");
        let named = slots_named(c.outcome());
        assert!(
            !named.is_empty() && !named.contains(&2),
            "slot 2 names {named:?}"
        );
    });
}
