//! The `#ABC` tag shown after a name is drawn by the lobby: a client cannot
//! choose it, and no two players with the same or look-alike names show
//! the same tag.

use crate::common;

use common::{hello, pid, FakeHost};
use serde_json::{json, Value};
use signaling_core::{Event, Lobby, LobbyAttachment, LobbyLimits, Millis, SocketId};

fn join(lobby: &mut Lobby, h: &mut FakeHost<LobbyAttachment>, text: &str, now: u64) -> SocketId {
    let (s, a) = lobby.admit(Millis(now)).unwrap();
    h.apply(a);
    h.apply(lobby.handle(Event::Text { socket: s, text }, Millis(now)));
    s
}

/// The tag of the player `id` in a welcome's roster.
fn tag_in(welcome: &Value, id: &str) -> String {
    welcome["roster"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["id"] == id)
        .map(|p| p["tag"].as_str().unwrap().to_owned())
        .unwrap()
}

#[test]
fn players_with_one_name_are_told_apart_by_tags_the_lobby_draws() {
    let limits = LobbyLimits {
        max_players: 40,
        max_sockets: 40,
        ..LobbyLimits::default()
    };
    let mut lobby = Lobby::new(limits).with_tag_key([7; 32]);
    let mut h = FakeHost::default();
    let mut seen = Vec::new();
    // Forty players all called Alice (in any case): forty different tags.
    for i in 0..40u64 {
        let id = pid(&format!("p{i}"));
        let nick = if i % 2 == 0 { "Alice" } else { "aLICE" };
        let s = join(&mut lobby, &mut h, &hello(&id, nick), i);
        let welcome = h.take_json(s).remove(0);
        assert_eq!(welcome["type"], "welcome");
        let tag = tag_in(&welcome, &id);
        assert_eq!(tag.len(), 3);
        assert!(tag
            .bytes()
            .all(|b| signaling_core::protocol::ROOM_CODE_ALPHABET.contains(&b)));
        assert!(!seen.contains(&tag), "tag {tag} shown twice for one name");
        seen.push(tag);
    }
    // Everyone else heard the same tag in `joined`.
    let roster: Vec<_> = lobby
        .roster()
        .iter()
        .map(|p| p.tag.as_str().to_owned())
        .collect();
    assert_eq!(roster, seen);
}

#[test]
fn a_tag_sent_by_the_client_is_ignored() {
    let mut lobby = Lobby::new(LobbyLimits::default()).with_tag_key([1; 32]);
    let mut h = FakeHost::default();
    let alice = pid("alice");
    let a = join(&mut lobby, &mut h, &hello(&alice, "Alice"), 0);
    let real = tag_in(&h.take_json(a).remove(0), &alice);

    // An impostor asks for Alice's tag, in the hello and in a nick that
    // would fake it.
    let impostor = pid("imp");
    let forged = json!({"type":"hello","id":impostor,"nick":"Alice","tag":real}).to_string();
    let i = join(&mut lobby, &mut h, &forged, 5);
    let welcome = h.take_json(i).remove(0);
    assert_eq!(welcome["type"], "welcome");
    assert_ne!(tag_in(&welcome, &impostor), real);
    let joined = h.take_json(a).remove(0);
    assert_eq!(joined["type"], "joined");
    assert_ne!(joined["player"]["tag"], real.as_str());

    let faked = join(
        &mut lobby,
        &mut h,
        &hello(&pid("fake"), &format!("Alice#{real}")),
        6,
    );
    assert_eq!(h.only(faked)["type"], "error");
}

#[test]
fn the_tag_depends_on_the_hosts_key_and_survives_hibernation() {
    let joined_tag = |key: [u8; 32]| {
        let mut lobby = Lobby::new(LobbyLimits::default()).with_tag_key(key);
        let mut h = FakeHost::default();
        let id = pid("bob");
        let s = join(&mut lobby, &mut h, &hello(&id, "Bob"), 3);
        (tag_in(&h.take_json(s).remove(0), &id), lobby, h)
    };
    let tags: Vec<String> = (0..8u8).map(|k| joined_tag([k; 32]).0).collect();
    let mut distinct = tags.clone();
    distinct.sort();
    distinct.dedup();
    assert!(distinct.len() > 1, "every key gave the same tag: {tags:?}");

    // After a restore with another key, the player keeps the tag it was given.
    let (tag, lobby, h) = joined_tag([3; 32]);
    let restored =
        Lobby::restore(lobby.limits(), h.attachments.values().cloned()).with_tag_key([9; 32]);
    assert_eq!(restored.roster()[0].tag.as_str(), tag);
}

/// The tags forty players get in a lobby under `key`, joining in order
/// with the names `names` gives them.
fn tags_of(key: u8, names: impl Fn(usize) -> String) -> Vec<String> {
    let limits = LobbyLimits {
        max_players: 40,
        max_sockets: 40,
        ..LobbyLimits::default()
    };
    let mut lobby = Lobby::new(limits).with_tag_key([key; 32]);
    let mut h = FakeHost::default();
    (0..40)
        .map(|i| {
            let id = pid(&format!("q{i}"));
            let s = join(&mut lobby, &mut h, &hello(&id, &names(i)), i as u64);
            let welcome = h.take_json(s).remove(0);
            assert_eq!(welcome["type"], "welcome");
            tag_in(&welcome, &id)
        })
        .collect()
}

#[test]
fn names_that_only_look_alike_never_show_the_same_tag() {
    // Find a lobby key under which two of forty players with different
    // names happen to draw the same tag (about one key in forty does).
    let (key, first, second) = (0..=255u8)
        .find_map(|key| {
            let tags = tags_of(key, |i| format!("Player {i}"));
            (0..40).find_map(|j| (0..j).find(|&i| tags[i] == tags[j]).map(|i| (key, i, j)))
        })
        .expect("some key gives two different names one tag");
    // Give those two look-alike names instead: Latin "Alice" and then, for
    // each spelling, one a player could mistake for it (Cyrillic А and а,
    // Greek Α, a capital I or a digit 1 for the l, a full-width Ａ, capitals).
    for twin in [
        "Аlice", "аlice", "Αlice", "AIice", "A1ice", "Ａlice", "ALICE", "АLICE",
    ] {
        let tags = tags_of(key, |i| match i {
            i if i == first => "Alice".to_owned(),
            i if i == second => twin.to_owned(),
            i => format!("Player {i}"),
        });
        assert_ne!(tags[first], tags[second], "Alice and {twin} show one tag");
    }
}
