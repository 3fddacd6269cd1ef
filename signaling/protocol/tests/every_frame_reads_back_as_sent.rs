//! Each frame's encoder (on the side that sends it) and parser (on the side
//! that receives it) agree: what one writes, the other reads back as the
//! same message.

use serde_json::value::RawValue;
use signaling_protocol::{
    lobby_out, lobby_server, room_out, room_server, LobbyRequest, LobbyServerMsg, PeerId,
    PlayerStatus, PlayerTag, RequestError, RoomRequest, RoomServerMsg, RosterEntry, Signal,
    SignalKind,
};

fn id(c: char) -> PeerId {
    PeerId::parse(&c.to_string().repeat(12)).unwrap()
}

fn offer() -> Signal {
    Signal {
        attempt: 2,
        kind: SignalKind::Offer("v=0\r\n".into()),
    }
}

#[test]
fn page_frames_read_back_in_the_lobby() {
    match LobbyRequest::parse(&lobby_out::hello(&id('A'), "דנה 🏀")).unwrap() {
        LobbyRequest::Hello { id: got, nick } => {
            assert_eq!(got, id('A'));
            assert_eq!(nick, "דנה 🏀");
        }
        other => panic!("{other:?}"),
    }
    match LobbyRequest::parse(&lobby_out::status(PlayerStatus::InMatch)).unwrap() {
        LobbyRequest::Status(s) => assert_eq!(s, PlayerStatus::InMatch),
        other => panic!("{other:?}"),
    }
    let frame = lobby_out::signal(&id('B'), &offer());
    match LobbyRequest::parse(&frame).unwrap() {
        LobbyRequest::Signal { to, data } => {
            assert_eq!(to, "BBBBBBBBBBBB");
            // Relayed as the sender wrote it, then validated by the receiver.
            let relayed = lobby_server::signal(&id('A'), data);
            match LobbyServerMsg::parse(&relayed).unwrap() {
                LobbyServerMsg::Signal { from, data } => {
                    assert_eq!(from, id('A'));
                    assert_eq!(Signal::from_value(data).unwrap(), offer());
                }
                other => panic!("{other:?}"),
            }
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn lobby_frames_read_back_on_the_page() {
    let ada = RosterEntry {
        id: id('A'),
        nick: "Ada".into(),
        tag: PlayerTag::parse("ADA").unwrap(),
        status: PlayerStatus::Lobby,
    };
    let bo = RosterEntry {
        id: id('B'),
        nick: "Bo".into(),
        tag: PlayerTag::parse("B22").unwrap(),
        status: PlayerStatus::InMatch,
    };
    let roster = vec![ada.clone(), bo.clone()];
    assert_eq!(
        LobbyServerMsg::parse(&lobby_server::welcome(&ada.id, &roster)).unwrap(),
        LobbyServerMsg::Welcome {
            you: ada.id.clone(),
            roster: roster.clone(),
            lobby: None
        }
    );
    assert_eq!(
        LobbyServerMsg::parse(&lobby_server::welcome_in(Some(3), &ada.id, &roster)).unwrap(),
        LobbyServerMsg::Welcome {
            you: ada.id.clone(),
            roster,
            lobby: Some(3)
        }
    );
    assert_eq!(
        LobbyServerMsg::parse(&lobby_server::joined(&bo)).unwrap(),
        LobbyServerMsg::Joined(bo.clone())
    );
    assert_eq!(
        LobbyServerMsg::parse(&lobby_server::left(&bo.id)).unwrap(),
        LobbyServerMsg::Left(bo.id.clone())
    );
    assert_eq!(
        LobbyServerMsg::parse(&lobby_server::status(&bo.id, PlayerStatus::Lobby)).unwrap(),
        LobbyServerMsg::Status(bo.id.clone(), PlayerStatus::Lobby)
    );
    assert_eq!(
        LobbyServerMsg::parse(&lobby_server::full()).unwrap(),
        LobbyServerMsg::Full
    );
    assert_eq!(
        LobbyServerMsg::parse(&lobby_server::error("say \"hello\" first")).unwrap(),
        LobbyServerMsg::Error("say \"hello\" first".into())
    );
}

#[test]
fn room_frames_read_back_on_both_sides() {
    let frame = room_out::signal(&offer());
    assert_eq!(RoomRequest::parse(&frame), Ok(RoomRequest::Relay));
    // The room relays the frame verbatim; the other page reads it.
    assert_eq!(
        Signal::parse_room(&frame).unwrap(),
        RoomServerMsg::Signal(offer())
    );
    assert_eq!(RoomRequest::parse(&room_out::done()), Ok(RoomRequest::Done));
    assert_eq!(
        Signal::parse_room(&room_server::peer_joined()).unwrap(),
        RoomServerMsg::PeerJoined
    );
    assert_eq!(
        Signal::parse_room(&room_server::error("gone")).unwrap(),
        RoomServerMsg::Error("gone".into())
    );
}

#[test]
fn relay_frames_read_back_on_both_sides() {
    use signaling_protocol::{relay_out, relay_server, RelayTicket, RelayTicketMsg, Role};
    assert_eq!(
        RoomRequest::parse(&relay_out::ticket_request()),
        Ok(RoomRequest::RelayTicket)
    );
    let ticket = RelayTicket::new(Role::Host, 42, "ab".repeat(16)).unwrap();
    assert_eq!(
        Signal::parse_room(&relay_server::ticket(&ticket, 60)).unwrap(),
        RoomServerMsg::RelayTicket(RelayTicketMsg { ticket, ttl: 60 })
    );
    // A ticket answer with a malformed ticket or an extra field is refused.
    assert!(Signal::parse_room(r#"{"type":"relay-ticket","ticket":"host.1.x","ttl":60}"#).is_err());
    assert!(Signal::parse_room(&relay_server::paired()).is_err());
}

#[test]
fn the_service_refuses_what_no_page_sends() {
    assert_eq!(RoomRequest::parse("[1]"), Err(RequestError::NotAnObject));
    assert_eq!(
        RoomRequest::parse(r#"{"type":"shout"}"#),
        Err(RequestError::UnsupportedType)
    );
    let cases = [
        ("null", RequestError::NotAnObject),
        (r#"{"type":5}"#, RequestError::NotAnObject),
        (
            r#"{"type":"hello","id":"short","nick":"x"}"#,
            RequestError::BadId,
        ),
        (
            r#"{"type":"hello","id":"AAAAAAAAAAAA","nick":"\u202e"}"#,
            RequestError::BadNick,
        ),
        (
            r#"{"type":"status","status":"away"}"#,
            RequestError::BadStatus,
        ),
        (
            r#"{"type":"signal","to":"AAAAAAAAAAAA"}"#,
            RequestError::BadSignal,
        ),
        (r#"{"type":"dance"}"#, RequestError::UnsupportedType),
    ];
    for (text, want) in cases {
        assert_eq!(LobbyRequest::parse(text).unwrap_err(), want, "{text}");
    }
    // Relayed data stays byte for byte what the sender wrote.
    let raw = r#"{"type":"signal","to":"BBBBBBBBBBBB","data":{ "b" : 1,"a":[2 ] }}"#;
    match LobbyRequest::parse(raw).unwrap() {
        LobbyRequest::Signal { data, .. } => assert_eq!(data.get(), r#"{ "b" : 1,"a":[2 ] }"#),
        other => panic!("{other:?}"),
    }
    let data: Box<RawValue> = RawValue::from_string("[1]".into()).unwrap();
    assert_eq!(
        lobby_server::signal(&id('C'), &data),
        r#"{"type":"signal","from":"CCCCCCCCCCCC","data":[1]}"#
    );
}
