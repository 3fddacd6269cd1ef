//! The host's page reloads and never comes back (its page lost the
//! record it needs to: see `a_reloaded_host_comes_back_in_sync.rs` for
//! one that comes back). A guest's configuration cannot take slot 0
//! (`Session::new` refuses it: only the host's own token can, with
//! `SessionConfig::back_as_host`), so the guest holds slot 0 for its
//! rejoin window and then ends with `PlayerLeft { slot: 0 }`: a clear
//! outcome, not a silent stall.
use crate::common;

use common::{in_both_modes, rejoin_mesh};
use lockstep::{ConfigError, Millis, Outcome};
use lockstep_testing::LinkConfig;

#[test]
fn a_reloaded_host_leaves_the_guest_with_player_left() {
    in_both_modes(|mode| {
        let link = LinkConfig {
            latency: Millis(20),
            ..LinkConfig::default()
        };
        let mut m = rejoin_mesh(mode, 2, 9, 1, link, (3, 1));
        assert!(m.run_to_confirmed(600, 2000), "{}", m.progress());
        assert!(
            m.players[0].rejoin_token().is_some(),
            "the host's own token"
        );
        assert_eq!(m.reload(0).err(), Some(ConfigError::RejoinSlot { slot: 0 }));
        // The old host session is gone: nothing more from it.
        m.players[0].runs = false;
        m.sever_player(0);
        let start = m.net.now();
        assert!(m.run_until_all_end_of(&[1], 60 * 40), "{}", m.progress());
        assert_eq!(
            m.players[1].outcome(),
            Some(&Outcome::PlayerLeft { slot: 0 })
        );
        // Silent for the timeout (5 s), then held for the window (20 s).
        let waited = m.net.now().0 - start.0;
        assert!((25_000..27_000).contains(&waited), "{waited} ms");
    });
}
