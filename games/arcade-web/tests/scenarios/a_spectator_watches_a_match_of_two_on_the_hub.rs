//! A lobby player watches a match of two on the arcade page: the host's
//! hub hands the spectator's link to the game being played (dots, a
//! lock-step game, whose session streams to spectators), and says which
//! game that is. When the players switch to a game that streams to nobody
//! (the arena), the hub says the match can no longer be watched (the page
//! then lets its spectators go), and what the old spectator link still
//! sends harms nothing.
use crate::common;

use common::Pair;
use lockstep::{Millis, PeerId, SessionConfig};
use netsim::LinkConfig;
use web_shell::shell::view::MatchView;
use web_shell::shell::GameSlot;

/// The spectator's link, as the host's page names it.
const LINK: PeerId = PeerId(257);

struct Watcher {
    slot: Box<dyn GameSlot>,
    view: MatchView,
}

/// Runs `ms`: both players' frames and the spectator's, the spectator's
/// datagrams carried to and from the host's hub at once.
fn run(p: &mut Pair, w: &mut Watcher, ms: u64, keys: &[&'static str]) {
    let end = p.now.0 + ms;
    while p.now.0 < end {
        p.now = Millis(p.now.0 + 16);
        let now = p.now;
        p.host.held = keys.to_vec();
        p.guest.held = keys.to_vec();
        p.host.link.advance_to(now);
        p.host.frame(now);
        p.guest.frame(now);
        w.slot.match_frame(now, &[], &mut w.view);
        while let Some((ch, b)) = w.slot.poll_party_transmit(PeerId(0)) {
            p.host.hub.party_datagram(now, LINK, ch, &b);
        }
        while let Some((ch, b)) = p.host.hub.poll_party_transmit(LINK) {
            w.slot.party_datagram(now, PeerId(0), ch, &b);
        }
    }
}

#[test]
fn a_spectator_watches_dots_until_the_players_switch_to_the_arena() {
    let mut p = Pair::opening(
        LinkConfig::default(),
        3,
        Some(2),
        SessionConfig::host(5, 2),
        SessionConfig::guest(),
    );
    let mut w = Watcher {
        slot: dots_web::page_slot(),
        view: MatchView::default(),
    };
    run(&mut p, &mut w, 1_000, &[]);
    assert!(p.host.hub.match_watchable() && p.guest.hub.match_watchable());
    assert_eq!(p.host.hub.match_game(), Some(2), "dots is what is streamed");

    assert!(w
        .slot
        .start_party(SessionConfig::spectator(), p.now, 1, &[PeerId(0)]));
    run(&mut p, &mut w, 3_000, &[]);
    let watched = w.view.tick.unwrap_or(0);
    assert!(watched > 60, "the spectator confirmed {watched} ticks");
    assert!(w.view.tick <= p.host.view.tick, "behind the players");
    assert_eq!(p.host.view.watching, 1, "the host counts one watching");

    // Both players press 1: the arena.
    run(&mut p, &mut w, 200, &["Digit1"]);
    run(&mut p, &mut w, 1_500, &[]);
    assert_eq!(
        p.host.hub.playing().map(|(g, _)| g),
        Some(0),
        "the arena runs"
    );
    assert!(!p.host.hub.match_watchable(), "the arena streams to nobody");
    assert_eq!(p.host.hub.match_game(), Some(0));
    assert!(
        p.host.ended.is_none() && p.guest.ended.is_none(),
        "the match goes on"
    );
}
