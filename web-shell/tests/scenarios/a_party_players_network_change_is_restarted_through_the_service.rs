//! A party of three plays when a guest's network changes (Wi-Fi to
//! mobile): the ICE paths under both its party links are lost, its lobby
//! mesh links lose theirs but still say open, and its lobby socket closes.
//! The socket comes back at once under a new lobby id; the restarts of its
//! two links go through the service with the page's proof; the other two
//! pages take them from the new id, and the party plays on over the same
//! connections with no comeback room. A proof shown again, forged, or for
//! another match is dropped.

use crate::common;

use common::World;
use serde_json::Value;

#[test]
fn a_party_guests_network_changes_and_both_its_links_are_restarted_through_the_service() {
    let mut w = World::party_playing(3, 0x1ce_2031);
    let all = [0, 1, 2];
    let (peers, rooms) = (w.match_peers_created, w.rooms_made());
    let old_id = w.id(1);
    let lost_at = w.last_tick(&all);
    w.change_network(1);
    w.until(3_000, "each page counts the restarts of its links", |w| {
        (0..3)
            .map(|p| w.pages[p].shell.match_view().ice_restarts)
            .eq([Some(1), Some(2), Some(1)])
    });
    assert_ne!(w.id(1), old_id, "the page is back under a new lobby id");
    w.until(3_000, "all three play on", |w| {
        w.all_play(&all, lost_at + 120)
    });
    assert_eq!(w.match_peers_created, peers, "no new party connection");
    assert_eq!(w.rooms_made(), rooms, "no comeback room");
    for p in all {
        let v = w.pages[p].shell.match_view();
        assert_eq!(v.rejoined, None, "page {p}: no fresh session");
        assert_eq!(v.held, None, "page {p}: no place held");
        assert_eq!(v.reconnecting, None, "page {p}: the line is gone");
    }
    // Page 1's steps went through the service to both, with its proof.
    let sent: Vec<(usize, Value)> = w
        .lobby_relayed
        .iter()
        .zip(&w.lobby_relayed_texts)
        .filter(|((p, _, kind), _)| *p == 1 && kind.starts_with("ice-restart"))
        .map(|((_, q, _), t)| (*q, serde_json::from_str(t).unwrap()))
        .collect();
    for q in [0, 2] {
        assert!(
            sent.iter()
                .any(|(to, m)| *to == q && m["proof"].is_string()),
            "to page {q}"
        );
    }
    // Cy (page 3, no party player) replays page 1's proof, forges one, and
    // names another match: all dropped, no restart follows.
    let (_, shown) = sent[0].clone();
    let (m, proof) = (
        shown["match"].as_str().unwrap(),
        shown["proof"].as_str().unwrap(),
    );
    let other = format!("{:016x}", u64::from_str_radix(m, 16).unwrap() ^ 1);
    let link = shown["link"].as_str().unwrap();
    let offers = w.restart_offers;
    let forged = "cd".repeat(32);
    for (m, p) in [(m, proof), (m, forged.as_str()), (other.as_str(), proof)] {
        for to in [0, 2] {
            let text = format!(
                r#"{{"type":"ice-restart-ask","after":1,"link":"{link}","match":"{m}","proof":"{p}"}}"#
            );
            w.lobby_text_from(3, to, &text);
        }
    }
    w.run(500);
    assert_eq!(w.restart_offers, offers, "no restart for Cy");
    let at = w.last_tick(&all);
    w.until(3_000, "all three play on", |w| w.all_play(&all, at + 60));
    for p in all {
        assert_eq!(w.pages[p].shell.match_view().reconnecting, None);
    }
    w.leave_and_logs_agree(0, &all, &[1, lost_at, lost_at + 120, at + 60]);
}
