//! Four players over link (d) of the two-player scenarios (100 ms ±20 one
//! way, 25% loss); one guest's page reloads mid-match and comes back with
//! its token. The host gathers its inputs from the two other guests, both
//! take the fresh session on their links, and the four play on in sync
//! with the same input logs.
use crate::common;

use common::{assert_players_agree, in_both_modes, Bench, Mode};
use lockstep::{Event, Millis, SessionConfig};
use lockstep_testing::{member_id, LinkConfig, Mesh};

#[test]
fn four_players_rejoin_in_sync_over_a_lossy_link() {
    in_both_modes(|mode| {
        let link = LinkConfig {
            latency: Millis(100),
            jitter: Millis(20),
            loss_percent: 25,
            ..LinkConfig::default()
        };
        let delay = if mode == Mode::LockStep { 9 } else { 4 };
        let mut m = Mesh::<Bench>::new(
            4,
            mode.cfg(SessionConfig::host(44, delay).rejoin_entropy(0x4ee_2026)),
            mode.cfg(SessionConfig::guest()),
            link,
            44,
        );
        assert!(m.run_to_confirmed(600, 4000), "{}", m.progress());
        m.reload(2).expect("a guest's slot can be rejoined");
        assert!(m.run_to_confirmed(1800, 8000), "{}", m.progress());
        assert!(m.players.iter().all(|p| p.outcome().is_none()));
        let rejoined = m.players[2]
            .seen
            .events
            .iter()
            .filter(|e| matches!(e, Event::Rejoined { .. }))
            .count();
        assert_eq!(rejoined, 1, "{:?}", m.players[2].seen.events);
        for i in [0, 1, 3] {
            assert!(
                m.players[i]
                    .seen
                    .events
                    .contains(&Event::Resumed { slot: 2 }),
                "player {i}: {:?}",
                m.players[i].seen.events
            );
            assert_eq!(m.players[2].peer_slot(member_id(i)), Some(i as u8));
        }
        let want = if mode == Mode::LockStep { 600 } else { 60 };
        assert_players_agree(&m, &[0, 1, 2, 3], want);
        eprintln!("{}", m.progress());
    });
}
