//! A reloaded guest comes back with a token the host never gave: the host
//! refuses it on that link alone (`RejoinRefused { WrongToken }` on the
//! newcomer), keeps holding the slot and does not end; the player's next
//! try, with the right token, takes the slot back and the match ends in
//! sync.
use crate::common;

use common::{assert_players_agree, in_both_modes, rejoin_mesh};
use lockstep::wire::RejoinRefusal;
use lockstep::{Millis, Outcome};
use lockstep_testing::LinkConfig;

#[test]
fn a_rejoin_with_a_wrong_token_is_refused() {
    in_both_modes(|mode| {
        let link = LinkConfig {
            latency: Millis(25),
            ..LinkConfig::default()
        };
        let mut m = rejoin_mesh(mode, 2, 5, 77, link, (3, 1));
        assert!(m.run_to_confirmed(600, 2000), "{}", m.progress());
        let token = m.players[1].rejoin_token().expect("a token");
        m.reload_with_token(1, token ^ 1).expect("a guest's slot");
        let refused = m.run_until_all_end_of(&[1], 600);
        assert!(refused, "{}", m.progress());
        assert_eq!(
            m.players[1].outcome(),
            Some(&Outcome::RejoinRefused {
                why: RejoinRefusal::WrongToken
            })
        );
        assert_eq!(m.players[0].outcome(), None, "the host goes on");
        m.reload_with_token(1, token).expect("a guest's slot");
        assert!(m.run_to_confirmed(1800, 4000), "{}", m.progress());
        assert_players_agree(&m, &[0, 1], 100);
    });
}
