//! Two players, and the link between them cut for good: each side drops
//! the other after the 5 s silence timeout, holds its slot for the 20 s
//! rejoin window, and then ends with the distinct `PlayerLeft` outcome
//! naming the other's slot (not a timeout, not a lost transport).
use crate::common;

use common::{in_both_modes, Crowd};
use lockstep::{Millis, Outcome, SessionConfig};
use lockstep_testing::{LinkConfig, Mesh};

#[test]
fn two_players_one_never_returns_ends_with_player_left() {
    in_both_modes(|mode| {
        let link = LinkConfig {
            latency: Millis(30),
            ..LinkConfig::default()
        };
        let mut m = Mesh::<Crowd>::new(
            2,
            mode.cfg(SessionConfig::host(3, 4)),
            mode.cfg(SessionConfig::guest()),
            link,
            21,
        );
        assert!(m.run_to_confirmed(300, 2000), "{}", m.progress());
        m.sever(0, 1);
        let cut = m.net.now();
        let outcomes = m.run_until_all_end(m.net.frame + 60 * 30);
        assert_eq!(
            outcomes,
            vec![
                Some(Outcome::PlayerLeft { slot: 1 }),
                Some(Outcome::PlayerLeft { slot: 0 })
            ]
        );
        // 5 s of silence, then 20 s held (the last datagram may have been
        // on its way for a frame or two).
        let waited = m.net.now().saturating_since(cut);
        assert!(
            waited >= Millis(24_900) && waited <= Millis(25_200),
            "ended {waited:?} after the cut"
        );
    });
}
