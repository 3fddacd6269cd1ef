//! Mid-match the guest's network changes and only the guest's browser
//! notices (the host's ICE would not say so for many seconds): the guest,
//! which answered in the match's handshake and so makes no restart offer,
//! asks the host for one over the lobby, the host restarts ICE on the same
//! connection at once, and the match goes on with no rejoin. Asks from a
//! page that is not the other player, asks to the guest, stale asks and a
//! flood of them begin nothing more.

use crate::common;

use common::World;
use web_shell::protocol::PeerMsg;
use web_shell::shell::LinkId;

#[test]
fn a_guest_that_alone_loses_its_path_asks_and_the_host_restarts_ice() {
    let mut w = World::lobby("", &["Ada", "Bo"]);
    w.challenge_accepted(0, 1);
    w.until_both_play(5_000, 60);
    let (peers, rooms) = (w.peers_created, w.rooms_made());
    w.lose_path_seen_only_by(1, &LinkId::Match);
    w.run(20);
    assert_eq!(w.restart_offers, 1, "the host offered a restart, asked");
    w.until(2_000, "both count a restart that worked", |w| {
        (0..2).all(|p| w.pages[p].shell.match_view().ice_restarts == Some(1))
    });
    let at = w.pages[1].shell.match_view().tick.unwrap();
    w.until(3_000, "both play on over the same connection", |w| {
        (0..2).all(|p| w.pages[p].shell.match_view().tick > Some(at + 120))
    });
    assert_eq!(w.restart_offers, 1, "one restart");
    assert_eq!(w.peers_created, peers, "no new peer connection");
    assert_eq!(w.rooms_made(), rooms, "no room for a way back");
    for p in 0..2 {
        let v = w.pages[p].shell.match_view();
        assert_eq!(v.rejoined, None, "page {p}: no rejoin");
        assert_eq!(v.held, None, "page {p}: no slot held");
        assert_eq!(v.reconnecting, None, "page {p}: the line is gone");
    }
    // A second loss seen by the guest alone asks after restart 1.
    w.lose_path_seen_only_by(1, &LinkId::Match);
    w.until(2_000, "both count a second restart", |w| {
        (0..2).all(|p| w.pages[p].shell.match_view().ice_restarts == Some(2))
    });
    assert_eq!(w.restart_offers, 2);
    assert_eq!(w.peers_created, peers);
    let again = w.pages[1].shell.match_view().tick.unwrap();
    w.until(3_000, "both play on", |w| {
        (0..2).all(|p| w.pages[p].shell.match_view().tick > Some(again + 60))
    });
    w.action(0, web_shell::shell::Action::Leave);
    w.until(2_000, "both show a result", |w| {
        (0..2).all(|p| matches!(w.screen(p), web_shell::screens::Screen::Result { .. }))
    });
    for tick in [1, at, at + 120, again + 60] {
        let (ha, hb) = (
            w.pages[0].shell.log_hash_at(tick),
            w.pages[1].shell.log_hash_at(tick),
        );
        assert!(ha.is_some(), "tick {tick} is in the host's log");
        assert_eq!(ha, hb, "tick {tick}");
    }
}

#[test]
fn hostile_restart_asks_are_dropped_and_the_match_plays_on() {
    let mut w = World::lobby("", &["Ada", "Bo", "Cy"]);
    w.challenge_accepted(0, 1);
    w.until_both_play(5_000, 60);
    let peers = w.peers_created;
    let ask = |after, link| {
        PeerMsg::IceRestartAsk {
            after,
            link,
            vouch: None,
        }
        .encode()
    };
    // From a lobby player this page does not play.
    w.lobby_text_from(2, 0, &ask(0, None));
    // To the guest, which answers and makes no restart offer.
    w.lobby_text_from(0, 1, &ask(0, None));
    // Naming a restart the host never offered.
    w.lobby_text_from(1, 0, &ask(9, None));
    // For a party link that does not exist.
    w.lobby_text_from(1, 0, &ask(0, web_shell::id::RoomCode::parse("ZZZZZZ")));
    // Garbage.
    w.lobby_text_from(1, 0, r#"{"type":"ice-restart-ask","after":-1}"#);
    w.lobby_text_from(1, 0, r#"{"type":"ice-restart-ask","after":0,"link":"../"}"#);
    w.run(50);
    assert_eq!(w.restart_offers, 0, "no restart was made");
    // A flood of real asks makes one restart at a time (and the lobby's
    // per-player rate limit drops most of them).
    for _ in 0..50 {
        w.lobby_text_from(1, 0, &ask(0, None));
    }
    assert_eq!(w.restart_offers, 1, "one restart for the flood");
    w.until(2_000, "the host counts it", |w| {
        w.pages[0].shell.match_view().ice_restarts == Some(1)
    });
    // Asks after restart 0 are stale now.
    for _ in 0..5 {
        w.lobby_text_from(1, 0, &ask(0, None));
    }
    w.run(50);
    assert_eq!(w.restart_offers, 1, "stale asks begin nothing");
    assert_eq!(w.peers_created, peers);
    let at = w.pages[1].shell.match_view().tick.unwrap();
    w.until(3_000, "both play on", |w| {
        (0..2).all(|p| w.pages[p].shell.match_view().tick > Some(at + 60))
    });
    for p in 0..2 {
        let v = w.pages[p].shell.match_view();
        assert_eq!(v.rejoined, None, "page {p}: no rejoin");
        assert_eq!(v.reconnecting, None, "page {p}");
    }
}
