//! The ICE path under the match's connection is lost mid-match (a network
//! change) while its data channels stay open: the host, which offered in
//! the match's handshake, restarts ICE on the same connection over the
//! lobby link, the path comes back, and the match goes on without a new
//! connection or a rejoin. When the restart cannot bring the path back,
//! its deadline gives it up and the rejoin path makes a new link.

use crate::common;

use common::World;
use web_shell::screens::Screen;
use web_shell::shell::restart::RESTART_DEADLINE;
use web_shell::shell::Action;

/// Both pages leave the match and agree on their logs at `ticks`.
fn leave_in_sync(w: &mut World, ticks: &[u32]) {
    w.action(0, Action::Leave);
    w.until(2_000, "both show a result", |w| {
        (0..2).all(|p| matches!(w.screen(p), Screen::Result { .. }))
    });
    for &tick in ticks {
        let (ha, hb) = (
            w.pages[0].shell.log_hash_at(tick),
            w.pages[1].shell.log_hash_at(tick),
        );
        assert!(ha.is_some(), "tick {tick} is in the host's log");
        assert_eq!(ha, hb, "tick {tick}");
    }
}

#[test]
fn a_lost_path_comes_back_by_an_ice_restart_on_the_same_connection() {
    let mut w = World::lobby("", &["Ada", "Bo"]);
    w.challenge_accepted(0, 1);
    w.until_both_play(5_000, 60);
    let (peers, rooms) = (w.peers_created, w.rooms_made());
    // The guest's network changes: the path is lost under both ends.
    w.lose_path(1);
    w.run(20);
    assert_eq!(w.restart_offers, 1, "the host offered a restart");
    w.until(2_000, "both count a restart that worked", |w| {
        (0..2).all(|p| w.pages[p].shell.match_view().ice_restarts == Some(1))
    });
    let at = w.pages[1].shell.match_view().tick.unwrap();
    w.until(3_000, "both play on over the same connection", |w| {
        (0..2).all(|p| w.pages[p].shell.match_view().tick > Some(at + 120))
    });
    assert_eq!(w.peers_created, peers, "no new peer connection");
    assert_eq!(w.rooms_made(), rooms, "no room for a way back");
    for p in 0..2 {
        let v = w.pages[p].shell.match_view();
        assert_eq!(v.rejoined, None, "page {p}: no rejoin");
        assert_eq!(v.held, None, "page {p}: no slot held");
        assert_eq!(v.reconnecting, None, "page {p}: the line is gone");
    }
    leave_in_sync(&mut w, &[1, at, at + 120]);
}

#[test]
fn a_restart_that_cannot_bring_the_path_back_gives_way_to_the_rejoin_path() {
    let mut w = World::lobby("", &["Ada", "Bo"]);
    w.challenge_accepted(0, 1);
    w.until_both_play(5_000, 60);
    let peers = w.peers_created;
    w.paths_stay_lost = true;
    w.lose_path(1);
    w.run(100);
    for p in 0..2 {
        assert_eq!(
            w.pages[p].shell.match_view().reconnecting.as_deref(),
            Some("Reconnecting…"),
            "page {p} says it reconnects during the restart"
        );
    }
    // Until the deadline, nothing is given up.
    w.run(RESTART_DEADLINE.0 - 300);
    assert_eq!(
        w.peers_created, peers,
        "no new connection before the deadline"
    );
    assert_eq!(w.pages[1].shell.match_view().rejoined, None);
    // Then the rejoin path, unchanged: a fresh room and link, the guest's
    // fresh session catches up.
    w.until(10_000, "the guest is back in the match", |w| {
        w.pages[1].shell.match_view().rejoined.is_some()
    });
    assert_eq!(w.restart_offers, 1, "one restart was tried");
    assert!(w.peers_created > peers, "a new connection for the way back");
    let back_at = w.pages[1].shell.match_view().rejoined.unwrap();
    w.until(5_000, "both play on past the rejoin", |w| {
        (0..2).all(|p| w.pages[p].shell.match_view().tick > Some(back_at + 60))
    });
    assert_eq!(w.pages[0].shell.match_view().ice_restarts, None);
    leave_in_sync(&mut w, &[1, back_at, back_at + 60]);
}
