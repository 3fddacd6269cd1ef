//! A party of three plays when the ICE path under two of its links is
//! lost (a network change) while their data channels stay open: the
//! link between the two guests and the one between the host and a guest.
//! On each link the side that offered in its handshake restarts ICE on
//! the same connection, the two restarts' steps travel as lobby messages
//! naming their link, the paths come back, and the match goes on with no
//! comeback room and no fresh session. A restart that cannot bring the
//! path back is given up at its deadline for the party's comeback path.
//! Restart steps for a link that does not exist, from a player not in the
//! party, or out of turn are dropped. A link over the relay (no ICE) and
//! a spectator's link are not restarted.

use crate::common;

use common::World;
use web_shell::protocol::{PeerMsg, SignalKind};
use web_shell::shell::restart::RESTART_DEADLINE;
use web_shell::shell::PlayerAction;

#[test]
fn two_party_links_whose_paths_are_lost_come_back_by_ice_restarts() {
    let mut w = World::party_playing(3, 0x1ce_2026);
    let all = [0, 1, 2];
    let (peers, rooms) = (w.peers_created, w.rooms_made());
    let lost_at = w.last_tick(&all);

    // Both at once: the guests' link, and the host's link to guest 1.
    w.lose_party_path(1, 2);
    w.lose_party_path(0, 1);
    w.run(20);
    assert_eq!(w.restart_offers, 2, "one restart offer per link");
    w.until(2_000, "each page counts the restarts of its links", |w| {
        (0..3)
            .map(|p| w.pages[p].shell.match_view().ice_restarts)
            .eq([Some(1), Some(2), Some(1)])
    });
    w.until(3_000, "all three play on", |w| {
        w.all_play(&all, lost_at + 120)
    });
    assert_eq!(w.restart_offers, 2, "no restart more");
    assert_eq!(w.peers_created, peers, "no new peer connection");
    assert_eq!(w.rooms_made(), rooms, "no comeback room");
    for p in all {
        let v = w.pages[p].shell.match_view();
        assert_eq!(v.rejoined, None, "page {p}: no fresh session");
        assert_eq!(v.held, None, "page {p}: no place held");
        assert_eq!(v.reconnecting, None, "page {p}: the line is gone");
        assert_eq!(v.path, Some("direct"), "page {p}: no relay");
    }
    w.leave_and_logs_agree(0, &all, &[1, lost_at, lost_at + 120]);
}

#[test]
fn a_party_restart_that_cannot_bring_the_path_back_gives_way_to_the_comeback_path() {
    let mut w = World::party_playing(3, 0x1ce_2027);
    let all = [0, 1, 2];
    let (peers, rooms) = (w.peers_created, w.rooms_made());
    w.paths_stay_lost = true;
    w.lose_party_path(1, 2);
    w.run(100);
    assert_eq!(w.restart_offers, 1);
    for p in [1, 2] {
        assert_eq!(
            w.pages[p].shell.match_view().reconnecting.as_deref(),
            Some("Reconnecting…"),
            "page {p} says it reconnects during the restart"
        );
    }
    assert_eq!(w.pages[0].shell.match_view().reconnecting, None);
    // Until the deadline, nothing is given up.
    w.run(RESTART_DEADLINE.0 - 300);
    assert_eq!(
        w.peers_created, peers,
        "no new connection before the deadline"
    );
    assert_eq!(w.rooms_made(), rooms);
    // Then the party's comeback path, unchanged: the host makes a room and
    // the two guests link again there.
    w.paths_stay_lost = false;
    w.until(10_000, "the two guests are linked again", |w| {
        w.party_linked(1, 2) && w.party_linked(2, 1) && w.rooms_made() == rooms + 1
    });
    assert!(w.peers_created > peers, "a new connection");
    let mended_at = w.last_tick(&all);
    w.until(10_000, "all three play on past the mend", |w| {
        w.all_play(&all, mended_at + 120)
    });
    for p in all {
        let v = w.pages[p].shell.match_view();
        assert_eq!(v.reconnecting, None, "page {p}");
        assert_eq!(v.ice_restarts, None, "page {p}: no restart worked");
    }
    // The link made again is restarted in turn when its path is lost (its
    // steps name the comeback room that made it).
    let (peers, rooms) = (w.peers_created, w.rooms_made());
    w.lose_party_path(1, 2);
    w.until(2_000, "the guests count a restart that worked", |w| {
        (1..3).all(|p| w.pages[p].shell.match_view().ice_restarts == Some(1))
    });
    assert_eq!(w.restart_offers, 2);
    let restarted_at = w.last_tick(&all);
    w.until(3_000, "all three play on", |w| {
        w.all_play(&all, restarted_at + 120)
    });
    assert_eq!((w.peers_created, w.rooms_made()), (peers, rooms));
    w.leave_and_logs_agree(
        0,
        &all,
        &[1, mended_at, mended_at + 120, restarted_at + 120],
    );
}

#[test]
fn hostile_restart_steps_are_dropped_and_the_party_plays_on() {
    let mut w = World::party_playing(3, 0x1ce_2028);
    let all = [0, 1, 2];
    let (peers, rooms) = (w.peers_created, w.rooms_made());
    let code = |s: &str| web_shell::id::RoomCode::parse(s);
    let party_room = w
        .member_rooms
        .keys()
        .next()
        .and_then(|c| code(c))
        .expect("the party's room");
    let step = |n, kind: SignalKind, link| {
        PeerMsg::IceRestart {
            n,
            step: kind,
            link,
            vouch: None,
        }
        .encode()
    };
    let offer = || SignalKind::Offer("restart offer 99".into());
    let answer = || SignalKind::Answer("answer to restart offer 99".into());
    let ice = || SignalKind::Ice {
        candidate: "candidate:1 1 udp 1 127.0.0.1 9 typ host".into(),
        sdp_mid: None,
        sdp_m_line_index: None,
    };
    // From a player not in the party, naming the party's room.
    w.lobby_text_from(3, 1, &step(1, offer(), Some(party_room.clone())));
    // From the side that offers on the host's link to page 1, but for a
    // link of a room that made none of this page's links.
    w.lobby_text_from(0, 1, &step(1, offer(), code("ZZZZZZ")));
    // A match of two's step, to a page that plays none.
    w.lobby_text_from(2, 1, &step(1, offer(), None));
    // Out of turn: an offer to the side that offers on the link (the host
    // offered to everyone), an answer nobody asked for, candidates of no
    // restart, a stale number after a real one.
    w.lobby_text_from(1, 0, &step(1, offer(), Some(party_room.clone())));
    w.lobby_text_from(2, 1, &step(1, answer(), Some(party_room.clone())));
    w.lobby_text_from(0, 2, &step(7, ice(), Some(party_room.clone())));
    // Garbage in the link field.
    w.lobby_text_from(
        0,
        1,
        r#"{"type":"ice-restart","n":1,"step":{"type":"offer","sdp":"x"},"link":"../.."}"#,
    );
    w.run(50);
    assert_eq!(w.restart_offers, 0, "no restart was made");
    assert_eq!(w.peers_created, peers);
    let at = w.last_tick(&all);
    w.until(3_000, "all three play on", |w| w.all_play(&all, at + 60));
    for p in all {
        let v = w.pages[p].shell.match_view();
        assert_eq!(v.reconnecting, None, "page {p}");
        assert_eq!(v.ice_restarts, None, "page {p}");
    }
    assert_eq!(w.rooms_made(), rooms);
    w.leave_and_logs_agree(0, &all, &[1, at, at + 60]);
}

#[test]
fn a_relayed_party_link_and_a_spectators_link_are_not_restarted() {
    let mut w = World::party_lobby(&["Ada", "Bo", "Cy", "Di"], common::ANY_FOUR, 0x1ce_2029);
    // Pages 1 and 2 find no direct path: their pair goes through the relay.
    w.no_direct_pairs.push((1, 2));
    w.party_invited(&[1, 2]);
    for p in 1..3 {
        w.press(p, PlayerAction::PartyAccept, 0);
    }
    w.until(20_000, "the three play", |w| w.all_play(&[0, 1, 2], 90));
    // Di watches Bo's match: a spectator's link to the host.
    w.press(3, PlayerAction::Watch, 1);
    w.until(10_000, "Di watches", |w| {
        w.pages[3].shell.match_view().tick > Some(120)
    });
    // A relay socket has no ICE to restart; a spectator's link is left to
    // end as it does (the spectator watches again from the lobby).
    w.lose_party_path(1, 2);
    w.lose_party_path(3, 0);
    w.run(RESTART_DEADLINE.0 / 2);
    assert_eq!(w.restart_offers, 0, "no restart offered");
    for p in 0..4 {
        let v = w.pages[p].shell.match_view();
        assert_ne!(
            v.reconnecting.as_deref(),
            Some("Reconnecting…"),
            "page {p} restarts nothing"
        );
        assert_eq!(v.ice_restarts, None, "page {p}");
    }
}
