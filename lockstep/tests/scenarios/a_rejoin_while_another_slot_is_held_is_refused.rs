//! Three players. Guest 1's links are cut for seven seconds, so the host
//! drops it and holds its slot; meanwhile guest 2's page reloads and its
//! fresh session asks for slot 2. The host refuses it with
//! `RejoinRefused { HostUnable }`: a returning slot's inputs are gathered
//! from every other player first (the old session may have sent some
//! only to some of them), and guest 1 cannot answer; taking guest 2 back
//! without what guest 1 holds of its inputs could give guest 1 two inputs
//! for one tick when it returns. The host and guest 1 play on: once guest
//! 1's links are back, both run on in sync while slot 2 stays held.
use crate::common;

use common::{assert_players_agree, in_both_modes, rejoin_mesh};
use lockstep::wire::RejoinRefusal;
use lockstep::{Event, Millis, Outcome};
use lockstep_testing::LinkConfig;

#[test]
fn a_rejoin_while_another_slot_is_held_is_refused() {
    in_both_modes(|mode| {
        let link = LinkConfig {
            latency: Millis(25),
            jitter: Millis(5),
            ..LinkConfig::default()
        };
        let mut m = rejoin_mesh(mode, 3, 19, 0x4e1d_2026, link, (4, 2));
        assert!(m.run_to_confirmed(600, 2000), "{}", m.progress());
        m.sever_player(1);
        m.run_frames(420);
        let held = m.players[0]
            .seen
            .events
            .iter()
            .any(|e| matches!(e, Event::Dropped { slot: 1, .. }));
        assert!(held, "the host never dropped guest 1");
        m.reload(2).expect("a guest's slot can be rejoined");
        assert!(m.run_until_all_end_of(&[2], 600), "{}", m.progress());
        assert_eq!(
            m.players[2].outcome(),
            Some(&Outcome::RejoinRefused {
                why: RejoinRefusal::HostUnable
            })
        );
        assert!(m.players[0].outcome().is_none());
        assert!(m.players[1].outcome().is_none());
        m.restore_player(1);
        m.run_frames(600);
        // Slot 2 is held: the two others wait for it, in sync, and
        // neither ends.
        assert!(m.players[0].outcome().is_none());
        assert!(m.players[1].outcome().is_none());
        assert!(m.players[0]
            .seen
            .events
            .iter()
            .any(|e| matches!(e, Event::Dropped { slot: 2, .. })));
        assert_players_agree(&m, &[0, 1], 10);
    });
}
