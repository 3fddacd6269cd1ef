//! Three players in a game that plays on after a leave, over mildly
//! lossy links, every rejoin window 3 s. Guest 1 loses its link to the
//! host (its link to guest 2 stays): the host drops it, and guest 2's
//! page reloads meanwhile. Its fresh session waits for slot 1, which
//! leaves for good when its window runs out; then the host takes guest 2
//! back. Guest 1 never heard of any of this: its link to the fresh
//! session never said whose it is (guest 1 never took it back). Guest 1
//! ends a few seconds later, the host gone for it (it acts for the host
//! and may even take the host's place alone, the other guest's old
//! session being gone, but it ends with `PlayerLeft { slot: 0 }` one
//! timeout after its window, or before, when the fresh session's inputs,
//! far past where it stalled, come first), and says `Bye` on every link,
//! that one included. That `Bye` comes from a link the
//! fresh session never knew for a member's, so it only closes that link:
//! the host and guest 2 play on in sync. Both modes.
use crate::common;

use common::{assert_players_agree, in_both_modes, left_at, run_some_to_confirmed, Bench};
use lockstep::{Millis, Outcome, SessionConfig, Violation};
use lockstep_testing::{member_id, Mesh};

#[test]
fn a_bye_on_a_link_a_rejoiner_never_met_ends_only_that_link() {
    in_both_modes(|mode| {
        let delay = if mode == common::Mode::LockStep { 4 } else { 2 };
        let window = Millis(3000);
        let host = SessionConfig::host(0xb1e, delay)
            .rejoin_window(window)
            .rejoin_entropy(0xb1e_2026);
        let guest = SessionConfig::guest().rejoin_window(window);
        let mut m = Mesh::<Bench>::new(
            3,
            mode.cfg(host),
            mode.cfg(guest),
            common::mild_link(),
            0xb1e,
        );
        assert!(m.run_to_confirmed(600, 2000), "{}", m.progress());
        m.sever(0, 1);
        // The host drops guest 1 after 5 s of silence; a second later
        // guest 2's page reloads.
        m.run_frames(360);
        m.reload(2).expect("a guest's slot can be rejoined");
        let start = m.net.frame;
        while m.players[1].outcome().is_none() {
            assert!(m.net.frame < start + 1200, "{}", m.progress());
            m.step_frame();
        }
        assert!(
            matches!(
                m.players[1].outcome(),
                Some(
                    Outcome::PlayerLeft { slot: 0 }
                        | Outcome::InvalidData {
                            violation: Violation::TooFarAhead { .. }
                        }
                )
            ),
            "{}",
            m.progress()
        );
        // Its Bye crosses.
        m.run_frames(60);
        for i in [0, 2] {
            assert_eq!(m.players[i].outcome(), None, "player {i}: {}", m.progress());
        }
        assert!(m.players[2].is_running(), "{}", m.progress());
        assert_eq!(m.players[2].peer_slot(member_id(1)), None);
        assert!(!left_at(&m, 0, 1).is_empty(), "{}", m.progress());
        let from = m.players[0].confirmed_tick();
        let until = m.net.frame + 3000;
        assert!(
            run_some_to_confirmed(&mut m, &[0, 2], from + 600, until),
            "{}",
            m.progress()
        );
        assert_players_agree(&m, &[0, 2], 10);
    });
}
