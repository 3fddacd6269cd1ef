//! A real network change (Wi-Fi to mobile) mid-match: the ICE path under
//! the match's connection is lost, the page's lobby mesh links lose theirs
//! too but still say open, and its lobby socket closes. The page's socket
//! comes back at once, under a new lobby id; the restart's steps go
//! through the service, not over the silent mesh link, carrying a proof of
//! who sends them; the other page takes them from the new id, and the
//! match goes on over the same connection with no rejoin. A proof forged,
//! shown again, or for another match is dropped.

use crate::common;

use common::World;
use serde_json::Value;
use web_shell::screens::Screen;

/// The relayed restart messages page `from` sent page `to`, as the service
/// saw them.
fn restart_texts(w: &World, from: usize, to: usize) -> Vec<Value> {
    w.lobby_relayed
        .iter()
        .zip(&w.lobby_relayed_texts)
        .filter(|((p, q, kind), _)| *p == from && *q == to && kind.starts_with("ice-restart"))
        .map(|(_, text)| serde_json::from_str(text).unwrap())
        .collect()
}

/// Page `changed`'s network changes while the two pages play; returns the
/// world once both count a restart that worked.
fn restarted_after_a_network_change(changed: usize) -> World {
    let mut w = World::lobby("", &["Ada", "Bo"]);
    w.challenge_accepted(0, 1);
    w.until_both_play(5_000, 60);
    let (peers, rooms) = (w.match_peers_created, w.rooms_made());
    let old_id = w.id(changed);
    let at = w.pages[changed].shell.match_view().tick.unwrap();
    w.change_network(changed);
    w.until(3_000, "both count a restart that worked", |w| {
        (0..2).all(|p| w.pages[p].shell.match_view().ice_restarts == Some(1))
    });
    assert!(w.online(changed), "the lobby socket is back");
    assert_ne!(w.id(changed), old_id, "under a new lobby id");
    w.until(3_000, "both play on over the same connection", |w| {
        (0..2).all(|p| w.pages[p].shell.match_view().tick > Some(at + 120))
    });
    assert_eq!(w.match_peers_created, peers, "no new match connection");
    assert_eq!(w.rooms_made(), rooms, "no room for a way back");
    for p in 0..2 {
        let v = w.pages[p].shell.match_view();
        assert_eq!(v.rejoined, None, "page {p}: no rejoin");
        assert_eq!(v.held, None, "page {p}: no slot held");
        assert_eq!(v.reconnecting, None, "page {p}: the line is gone");
    }
    // The steps went through the service both ways; the changed page's
    // carried its proof, the other's none (its id stayed).
    let other = 1 - changed;
    let sent = restart_texts(&w, changed, other);
    assert!(
        !sent.is_empty(),
        "the changed page's steps went through the service"
    );
    assert!(sent
        .iter()
        .all(|m| m["proof"].is_string() && m["match"].is_string()));
    let back = restart_texts(&w, other, changed);
    assert!(!back.is_empty(), "the answers went through the service");
    assert!(back.iter().all(|m| m.get("proof").is_none()));
    w
}

fn leave_in_sync(w: &mut World) {
    let tick = (0..2)
        .filter_map(|p| w.pages[p].shell.match_view().tick)
        .min()
        .unwrap();
    w.action(0, web_shell::shell::Action::Leave);
    w.until(2_000, "both show a result", |w| {
        (0..2).all(|p| matches!(w.screen(p), Screen::Result { .. }))
    });
    for t in [1, tick / 2, tick] {
        let (a, b) = (
            w.pages[0].shell.log_hash_at(t),
            w.pages[1].shell.log_hash_at(t),
        );
        assert!(a.is_some(), "tick {t} is in the host's log");
        assert_eq!(a, b, "tick {t}");
    }
}

#[test]
fn the_guests_network_changes_and_the_restart_goes_through_the_service() {
    let mut w = restarted_after_a_network_change(1);
    leave_in_sync(&mut w);
}

#[test]
fn the_hosts_network_changes_and_the_restart_goes_through_the_service() {
    let mut w = restarted_after_a_network_change(0);
    leave_in_sync(&mut w);
}

#[test]
fn a_second_network_change_shows_the_next_proof() {
    let mut w = restarted_after_a_network_change(1);
    let first = restart_texts(&w, 1, 0).len();
    w.run(2_000);
    w.change_network(1);
    w.until(3_000, "a second restart worked", |w| {
        (0..2).all(|p| w.pages[p].shell.match_view().ice_restarts == Some(2))
    });
    let later = restart_texts(&w, 1, 0);
    let (a, b) = (&later[0]["proof"], &later[first]["proof"]);
    assert_ne!(a, b, "each new id shows a proof of its own");
    leave_in_sync(&mut w);
}

#[test]
fn forged_replayed_and_misdirected_proofs_are_dropped() {
    let mut w = World::lobby("", &["Ada", "Bo", "Cy"]);
    w.challenge_accepted(0, 1);
    w.until_both_play(5_000, 60);
    w.change_network(1);
    w.until(3_000, "the restart worked", |w| {
        (0..2).all(|p| w.pages[p].shell.match_view().ice_restarts == Some(1))
    });
    let shown = restart_texts(&w, 1, 0).remove(0);
    let (match_id, proof) = (
        shown["match"].as_str().unwrap().to_owned(),
        shown["proof"].as_str().unwrap().to_owned(),
    );
    let offers = w.restart_offers;
    w.run(1_000);
    // Cy, a lobby player, asks the host for a restart as if it were Bo
    // under a new id: with a made-up proof, with Bo's proof shown again,
    // with Bo's proof for another match, and with no proof at all.
    let other_match = format!("{:016x}", u64::from_str_radix(&match_id, 16).unwrap() ^ 1);
    let forged = "ab".repeat(32);
    for (m, p) in [
        (match_id.as_str(), forged.as_str()),
        (match_id.as_str(), proof.as_str()),
        (other_match.as_str(), proof.as_str()),
    ] {
        let text = format!(r#"{{"type":"ice-restart-ask","after":1,"match":"{m}","proof":"{p}"}}"#);
        w.lobby_text_from(2, 0, &text);
    }
    w.lobby_text_from(2, 0, r#"{"type":"ice-restart-ask","after":1}"#);
    w.run(500);
    assert_eq!(w.restart_offers, offers, "no restart for Cy");
    assert_eq!(w.pages[0].shell.match_view().reconnecting, None);
    // Bo is still the host's partner: its own next loss restarts as
    // before.
    w.lose_path_seen_only_by(1, &web_shell::shell::LinkId::Match);
    w.until(3_000, "Bo's ask is answered", |w| {
        (0..2).all(|p| w.pages[p].shell.match_view().ice_restarts == Some(2))
    });
    leave_in_sync(&mut w);
}
