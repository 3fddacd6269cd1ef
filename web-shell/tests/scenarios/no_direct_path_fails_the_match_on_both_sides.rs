//! The mesh formed, then the guest's page can no longer make a direct
//! path: the match connection runs out of time, both pages say so with a
//! typed notice (the challenger's with Try again), and both are free again.

use crate::common;

use common::World;
use web_shell::challenge::Notice;
use web_shell::lobby::LobbyNotice;
use web_shell::screens::Screen;

#[test]
fn no_direct_path_fails_the_match_on_both_sides() {
    let mut w = World::lobby("?match_connect_ms=2000", &["Cy", "Di"]);
    w.pages[1].no_direct_path = true;

    w.challenge_accepted(0, 1);
    let failed = |w: &World, p: usize| {
        w.pages[p].shell.lobby_view().is_some_and(|v| {
            v.notices.iter().any(|n| {
                matches!(
                    n.notice,
                    LobbyNotice::Challenge {
                        notice: Notice::ConnectFailed,
                        ..
                    }
                )
            })
        })
    };
    w.until(5_000, "both say the connection failed", |w| {
        failed(w, 0) && failed(w, 1)
    });
    assert!(w.now.0 >= 2_000, "not before the match connection timer");
    let cy = w.pages[0].shell.lobby_view().unwrap();
    let notice = cy.notices.last().unwrap();
    assert_eq!(
        notice.text(),
        "Couldn't connect directly - try again, or try a different network."
    );
    assert_eq!(
        notice.try_again.as_ref(),
        Some(&w.id(1)),
        "Try again challenges Di"
    );
    for p in 0..2 {
        assert_eq!(w.screen(p), Screen::Lobby);
        w.run(100);
        assert!(
            w.pages[p].shell.lobby_view().unwrap().roster[0].can_challenge,
            "free again"
        );
    }
}
