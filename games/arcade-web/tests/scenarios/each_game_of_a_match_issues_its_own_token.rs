//! Two games of one match never share a rejoin token: the host's hub gives
//! each game its own token entropy (and its own seed, the match id), so a
//! token kept from one game does not open the guest's slot in the next.
use crate::common;

use common::{coming_back, rejoining_pair};
use lockstep::{Millis, Outcome};
use netsim::LinkConfig;
use web_shell::shell::game::MatchIdentity;
use web_shell::shell::GameSlot;

#[test]
fn the_second_game_issues_another_token_and_refuses_the_first() {
    let link = LinkConfig {
        latency: Millis(30),
        jitter: Millis(5),
        ..LinkConfig::default()
    };
    let mut p = rejoining_pair(link, 81, 2);
    p.run(1_000, |_, _, _| {});
    let first = p
        .guest
        .hub
        .match_identity()
        .expect("dots 0 has an identity");
    let first_host = p.host.hub.match_identity().expect("and on the host");
    assert_eq!(first.match_id, first_host.match_id);

    // Dots again, under generation 1.
    p.both_hold(600, &["Digit3"]);
    p.both_hold(1_000, &[]);
    assert_eq!(p.guest.hub.playing(), Some((2, 1)));
    let second = p
        .guest
        .hub
        .match_identity()
        .expect("dots 1 has an identity");
    let second_host = p.host.hub.match_identity().expect("and on the host");
    assert_eq!(second.match_id, second_host.match_id);
    assert_ne!(second.match_id, first.match_id, "each game its own id");
    assert!(second.token.is_some() && first.token.is_some());
    assert_ne!(second.token, first.token, "each game its own token");

    // The first game's token, presented in the second game, is refused.
    p.lose_link();
    p.run(500, |_, _, _| {});
    let stale = MatchIdentity {
        token: first.token,
        ..second
    };
    assert!(
        p.relink(link, 82, 5, coming_back(stale)),
        "the host relinks"
    );
    p.run(2_000, |_, _, _| {});
    let end = p.guest.ended.as_ref().expect("the guest's comeback ended");
    assert!(
        matches!(end.outcome, Outcome::RejoinRefused { .. }),
        "{:?}",
        end.outcome
    );
}
