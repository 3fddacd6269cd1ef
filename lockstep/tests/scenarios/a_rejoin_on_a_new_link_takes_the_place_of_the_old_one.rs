//! A reloaded guest's fresh session reaches the host over a new link (a
//! new connection the host's caller names with a new `PeerId`). While the
//! host still takes the old session for live, the Rejoin is refused with
//! `SlotLive` (a copy of the tab looks the same); once the old link has
//! failed (a closing page's connection does) and the slot is held, the
//! next try is taken on that unknown link, the slot is handed over (the
//! old link is forgotten) and the match ends in sync between the host and
//! the fresh session.
use crate::common;

use common::{assert_players_agree, in_both_modes, Bench, Mode};
use lockstep::wire::RejoinRefusal;
use lockstep::{Event, Millis, Outcome, Session, SessionConfig};
use lockstep_testing::{LinkConfig, Mesh, Pads, Player, SimLink};

#[test]
fn a_rejoin_on_a_new_link_takes_the_place_of_the_old_one() {
    in_both_modes(|mode| {
        let link = LinkConfig {
            latency: Millis(40),
            jitter: Millis(5),
            ..LinkConfig::default()
        };
        let delay = if mode == Mode::LockStep { 4 } else { 2 };
        let mut m = Mesh::<Bench>::new(
            2,
            mode.cfg(SessionConfig::host(31, delay).rejoin_entropy(0x1234)),
            mode.cfg(SessionConfig::guest()),
            link,
            31,
        );
        assert!(m.run_to_confirmed(600, 2000), "{}", m.progress());
        let token = m.players[1].rejoin_token().expect("a token");
        // The old page is gone: its session stops, its link goes quiet.
        m.players[1].runs = false;
        m.sever(0, 1);
        let fresh = |token| {
            Session::new(mode.cfg(SessionConfig::guest()).rejoin(1, token))
                .expect("a valid configuration")
        };
        m.players.push(Player::new(fresh(token), Pads::new(7)));
        m.net.join(0, 2, SimLink::new(link, 77));
        assert!(m.run_until_all_end_of(&[2], 120), "{}", m.progress());
        assert_eq!(
            m.players[2].outcome(),
            Some(&Outcome::RejoinRefused {
                why: RejoinRefusal::SlotLive
            })
        );
        // The old connection fails; the page tries again on a new one.
        if let Some(l) = m.net.link(0, 1) {
            l.0.fail_link();
        }
        m.run_frames(2);
        m.players[2] = Player::new(fresh(token), Pads::new(7));
        if let Some(l) = m.net.link_mut(0, 2) {
            *l = SimLink::new(link, 78);
        }
        let mut back = false;
        while m.net.frame < 6000 {
            if m.players[0].confirmed_tick() >= 2400 && m.players[2].confirmed_tick() >= 2400 {
                back = true;
                break;
            }
            assert!(
                m.players[0].outcome().is_none() && m.players[2].outcome().is_none(),
                "{}",
                m.progress()
            );
            m.step_frame();
        }
        assert!(back, "{}", m.progress());
        assert!(m.players[2]
            .seen
            .events
            .iter()
            .any(|e| matches!(e, Event::Rejoined { .. })));
        assert!(m.players[0]
            .seen
            .events
            .contains(&Event::Resumed { slot: 1 }));
        assert_players_agree(&m, &[0, 2], 20);
    });
}
