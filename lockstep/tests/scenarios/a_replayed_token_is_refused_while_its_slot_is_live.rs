//! After a reloaded guest took its slot back, a third session shows the
//! same token on a link of its own (a copy of the tab, say): the slot is
//! live, so the host refuses it (`RejoinRefused { SlotLive }` on that
//! session only) and the two players play on in sync.
use crate::common;

use common::{assert_players_agree, in_both_modes, rejoin_mesh};
use lockstep::wire::RejoinRefusal;
use lockstep::{Event, Millis, Outcome, Session, SessionConfig};
use lockstep_testing::{LinkConfig, Pads, Player, SimLink};

#[test]
fn a_replayed_token_is_refused_while_its_slot_is_live() {
    in_both_modes(|mode| {
        let link = LinkConfig {
            latency: Millis(25),
            ..LinkConfig::default()
        };
        let mut m = rejoin_mesh(mode, 2, 6, 78, link, (3, 1));
        assert!(m.run_to_confirmed(600, 2000), "{}", m.progress());
        let token = m.players[1].rejoin_token().expect("a token");
        m.reload(1).expect("a guest's slot");
        assert!(m.run_to_confirmed(900, 3000), "{}", m.progress());
        // The copy: a session of its own on a link of its own to the host.
        let copy = Session::new(mode.cfg(SessionConfig::guest()).rejoin(1, token))
            .expect("a valid configuration");
        m.players.push(Player::new(copy, Pads::new(3)));
        m.net.join(0, 2, SimLink::new(link, 66));
        assert!(m.run_until_all_end_of(&[2], 600), "{}", m.progress());
        assert_eq!(
            m.players[2].outcome(),
            Some(&Outcome::RejoinRefused {
                why: RejoinRefusal::SlotLive
            })
        );
        assert!(!m.players[2]
            .seen
            .events
            .iter()
            .any(|e| matches!(e, Event::Started { .. })));
        assert!(m.run_first_to_confirmed(2, 1800, 4000), "{}", m.progress());
        assert_players_agree(&m, &[0, 1], 100);
    });
}
