//! Players join, see each other, change status, relay signals and leave.

use crate::common;

use common::{hello, pid, FakeHost};
use serde_json::json;
use signaling_core::{Event, Lobby, LobbyAttachment, LobbyLimits, Millis, SocketId};

fn join(
    lobby: &mut Lobby,
    h: &mut FakeHost<LobbyAttachment>,
    id: &str,
    nick: &str,
    now: u64,
) -> SocketId {
    let (s, a) = lobby.admit(Millis(now)).unwrap();
    h.apply(a);
    h.apply(lobby.handle(
        Event::Text {
            socket: s,
            text: &hello(id, nick),
        },
        Millis(now),
    ));
    s
}

#[test]
fn four_players_see_each_other_join_change_status_signal_and_leave() {
    let mut lobby = Lobby::new(LobbyLimits::default());
    let mut h = FakeHost::default();
    let ids: Vec<String> = ["a", "b", "c", "d"].iter().map(|t| pid(t)).collect();
    let nicks = ["Ann", "בועז", "Chloé 🏀", "  Dan  "];
    let mut socks = Vec::new();
    for (i, (id, nick)) in ids.iter().zip(nicks).enumerate() {
        let s = join(&mut lobby, &mut h, id, nick, i as u64 * 10);
        let welcome = h.only(s);
        assert_eq!(welcome["type"], "welcome");
        assert_eq!(welcome["you"], id.as_str());
        let roster = welcome["roster"].as_array().unwrap();
        assert_eq!(roster.len(), i + 1, "everyone so far, me included");
        for (j, entry) in roster.iter().enumerate() {
            assert_eq!(entry["id"], ids[j].as_str(), "join order");
            assert_eq!(entry["status"], "lobby");
        }
        let tag = roster[i]["tag"].as_str().unwrap();
        for &earlier in &socks {
            let joined = h.only(earlier);
            assert_eq!(
                joined,
                json!({"type":"joined","player":{"id":id,"nick":nick.trim(),"tag":tag,"status":"lobby"}})
            );
        }
        socks.push(s);
    }
    assert_eq!(lobby.roster().len(), 4);

    // c goes into a match: the three others hear it, c does not.
    h.apply(lobby.handle(
        Event::Text {
            socket: socks[2],
            text: r#"{"type":"status","status":"in-match"}"#,
        },
        Millis(100),
    ));
    for (i, &s) in socks.iter().enumerate() {
        if i == 2 {
            assert!(h.take(s).is_empty());
        } else {
            assert_eq!(
                h.only(s),
                json!({"type":"status","id":ids[2],"status":"in-match"})
            );
        }
    }

    // a signals d; d receives exactly the data bytes, with a's id.
    let data = r#"{ "sdp" : "v=0\r\n", "n": [1, 2.0, null], "u": "\u00e9" }"#;
    let text = format!(r#"{{"type":"signal","to":"{}","data":{data}}}"#, ids[3]);
    h.apply(lobby.handle(
        Event::Text {
            socket: socks[0],
            text: &text,
        },
        Millis(110),
    ));
    let got = h.take(socks[3]);
    assert_eq!(
        got,
        [format!(
            r#"{{"type":"signal","from":"{}","data":{data}}}"#,
            ids[0]
        )]
    );
    for &s in &socks[..3] {
        assert!(h.take(s).is_empty());
    }
    // Any JSON value is fine as data.
    let text = format!(
        r#"{{"type":"signal","to":"{}","data":"just a string"}}"#,
        ids[1]
    );
    h.apply(lobby.handle(
        Event::Text {
            socket: socks[3],
            text: &text,
        },
        Millis(111),
    ));
    assert_eq!(h.only(socks[1])["data"], "just a string");

    // b leaves: the others hear left.
    h.apply(lobby.handle(Event::Closed { socket: socks[1] }, Millis(120)));
    for &s in [socks[0], socks[2], socks[3]].iter() {
        assert_eq!(h.only(s), json!({"type":"left","id":ids[1]}));
    }
    assert_eq!(lobby.roster().len(), 3);
    // A newcomer's roster keeps statuses.
    let e = join(&mut lobby, &mut h, &pid("e"), "Eve", 130);
    let w = h.only(e);
    let roster = w["roster"].as_array().unwrap();
    assert_eq!(roster.len(), 4);
    assert_eq!(roster[1]["status"], "in-match");
}

#[test]
fn the_same_id_may_join_again_after_leaving() {
    let mut lobby = Lobby::new(LobbyLimits::default());
    let mut h = FakeHost::default();
    let s = join(&mut lobby, &mut h, &pid("x"), "X", 0);
    h.apply(lobby.handle(Event::Closed { socket: s }, Millis(1)));
    let s2 = join(&mut lobby, &mut h, &pid("x"), "X", 2);
    assert_eq!(h.only(s2)["type"], "welcome");
}
