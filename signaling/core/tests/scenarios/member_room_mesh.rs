//! A member room of eight players and sixteen spectators: places given by
//! role, the ninth player and the seventeenth spectator refused, every
//! player pair exchanging addressed handshake data that reaches only its
//! addressee, and the room rebuilt after hibernation unchanged.

use crate::common;

use common::FakeHost;
use serde_json::{json, Value};
use signaling_core::{
    Event, JoinRole, MemberId, Millis, Room, RoomAttachment, RoomCapacity, RoomCode, RoomLimits,
    RoomRefusal, SocketId,
};

const FULL: RoomCapacity = RoomCapacity {
    players: 8,
    spectators: 16,
};

fn room() -> (Room, FakeHost<RoomAttachment>) {
    let mut h = FakeHost::default();
    let (room, a) = Room::with_members(
        RoomCode::parse("ABCDEF").unwrap(),
        FULL,
        RoomLimits::default(),
        Millis(0),
    );
    h.apply(a);
    (room, h)
}

fn send(room: &mut Room, h: &mut FakeHost<RoomAttachment>, socket: SocketId, text: &str) {
    let a = room.handle(Event::Text { socket, text }, Millis(10));
    h.apply(a);
}

#[test]
fn eight_players_and_sixteen_spectators_each_get_a_place_and_hear_of_each_other() {
    let (mut room, mut h) = room();
    let mut sockets: Vec<SocketId> = Vec::new();
    let roles = std::iter::once(JoinRole::Host)
        .chain(std::iter::repeat_n(JoinRole::Player, 7))
        .chain(std::iter::repeat_n(JoinRole::Spectator, 16));
    for (id, role) in roles.enumerate() {
        let (s, a) = room.admit(role, Millis(1)).unwrap();
        h.apply(a);
        let welcome = h.only(s);
        assert_eq!(welcome["type"], "welcome");
        assert_eq!(welcome["you"], id);
        let listed: Vec<u64> = welcome["members"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["id"].as_u64().unwrap())
            .collect();
        assert_eq!(listed, (0..=id as u64).collect::<Vec<_>>());
        for earlier in &sockets {
            let joined = h.only(*earlier);
            assert_eq!(joined["type"], "member-joined");
            assert_eq!(joined["member"]["id"], id);
        }
        sockets.push(s);
    }
    assert_eq!(room.members().len(), 24);
    assert_eq!(room.member_socket(MemberId(23)), Some(sockets[23]));
    assert_eq!(
        room.admit(JoinRole::Player, Millis(2)),
        Err(RoomRefusal::PlayersFull)
    );
    assert_eq!(
        room.admit(JoinRole::Spectator, Millis(2)),
        Err(RoomRefusal::SpectatorsFull)
    );
    assert_eq!(
        room.admit(JoinRole::Host, Millis(2)),
        Err(RoomRefusal::Occupied)
    );
    assert_eq!(
        room.admit(JoinRole::Guest, Millis(2)),
        Err(RoomRefusal::WrongRole)
    );
    assert_eq!(RoomRefusal::PlayersFull.status(), 409);
    assert_eq!(RoomRefusal::WrongRole.status(), 400);
    // The refusals told nobody anything.
    for s in &sockets {
        assert!(h.take(*s).is_empty());
    }

    // Every player pair: an offer one way, an answer the other, each
    // reaching its addressee alone with the sender's id and the data as
    // written.
    for a in 0..8usize {
        for b in a + 1..8 {
            let offer = format!(r#"{{ "type" : "offer","sdp":"{a}->{b}" }}"#);
            send(
                &mut room,
                &mut h,
                sockets[a],
                &format!(r#"{{"type":"signal","to":{b},"data":{offer}}}"#),
            );
            let answer = format!(r#"{{"type":"answer","sdp":"{b}->{a}"}}"#);
            send(
                &mut room,
                &mut h,
                sockets[b],
                &format!(r#"{{"data":{answer},"to":{a},"type":"signal"}}"#),
            );
            assert_eq!(
                h.take(sockets[b]),
                [format!(r#"{{"type":"signal","from":{a},"data":{offer}}}"#)]
            );
            assert_eq!(
                h.take(sockets[a]),
                [format!(r#"{{"type":"signal","from":{b},"data":{answer}}}"#)]
            );
            for (i, s) in sockets.iter().enumerate() {
                assert!(h.take(*s).is_empty(), "member {i} got another pair's data");
            }
        }
    }

    // A rebuilt machine (after hibernation) knows every member and keeps
    // relaying by id.
    let attachments: Vec<RoomAttachment> = h.attachments.values().copied().collect();
    assert_eq!(attachments.len(), 24);
    let mut woken = Room::restore(room.meta().clone(), room.limits(), attachments.clone());
    for a in &attachments {
        assert!(woken.holds(a), "{a:?} was not taken back");
    }
    assert_eq!(woken.members().len(), 24);
    let a = woken.handle(
        Event::Text {
            socket: sockets[23],
            text: r#"{"type":"signal","to":5,"data":[1]}"#,
        },
        Millis(20),
    );
    h.apply(a);
    assert_eq!(
        h.only(sockets[5]),
        json!({"type":"signal","from":23,"data":[1]})
    );
    assert_eq!(
        woken.admit(JoinRole::Spectator, Millis(21)),
        Err(RoomRefusal::SpectatorsFull)
    );
}

#[test]
fn a_smaller_room_has_only_the_places_it_asked_for() {
    let mut h = FakeHost::<RoomAttachment>::default();
    let cap = RoomCapacity {
        players: 2,
        spectators: 0,
    };
    let (mut room, a) = Room::with_members(
        RoomCode::parse("ABCDEF").unwrap(),
        cap,
        RoomLimits::default(),
        Millis(0),
    );
    h.apply(a);
    let (p, a) = room.admit(JoinRole::Player, Millis(1)).unwrap();
    h.apply(a);
    // A player may come before the host; it takes place 1.
    assert_eq!(h.only(p)["you"], 1);
    assert_eq!(
        room.admit(JoinRole::Player, Millis(1)),
        Err(RoomRefusal::PlayersFull)
    );
    assert_eq!(
        room.admit(JoinRole::Spectator, Millis(1)),
        Err(RoomRefusal::SpectatorsFull)
    );
    let (host, a) = room.admit(JoinRole::Host, Millis(2)).unwrap();
    h.apply(a);
    let welcome: Value = h.only(host);
    assert_eq!(
        welcome,
        json!({"type":"welcome","you":0,"role":"host","members":[
            {"id":0,"role":"host"},{"id":1,"role":"player"}]})
    );
    assert_eq!(
        h.only(p),
        json!({"type":"member-joined","member":{"id":0,"role":"host"}})
    );
    assert!(h.logs.iter().any(|l| l.contains("\"players\":2")));
}
