//! Panic policy: nothing a server, a peer or a person sends may panic the
//! shell or corrupt its state. This feeds seeded garbage and mutated valid
//! messages through every entry point of the pure modules and the lobby
//! client, and checks invariants after each step.

use lockstep::Millis;
use serde_json::Value;
use web_shell::id::{PeerId, RoomCode};
use web_shell::lobby::{LobbyClient, LobbyConfig, Output};
use web_shell::protocol::{LobbyServerMsg, PeerMsg, Signal};
use web_shell::text;

use crate::common;
use common::rng::Rng;

const IDS: [&str; 4] = [
    "AAAAAAAAAAAA",
    "BBBBBBBBBBBB",
    "zzzzzzzzzzzz",
    "000000000000",
];
const PIECES: [&str; 24] = [
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    "\"type\"",
    "\"welcome\"",
    "\"joined\"",
    "\"left\"",
    "\"signal\"",
    "\"chat\"",
    "\"challenge\"",
    "\"id\"",
    "\"AAAAAAAAAAAA\"",
    "\"zzzzzzzzzzzz\"",
    "null",
    "1e999",
    "\"\\u202e\"",
    "\"שלום\"",
    "-0",
    "\"room\"",
    "\"K7M2QX\"",
    "\"data\"",
];

fn valid_messages() -> Vec<String> {
    let mut v = vec![
        r#"{"type":"welcome","you":"MMMMMMMMMMMM","roster":[{"id":"AAAAAAAAAAAA","nick":"a","tag":"AAA","status":"lobby"},{"id":"zzzzzzzzzzzz","nick":"z","tag":"ZZZ","status":"in-match"}]}"#.to_owned(),
        r#"{"type":"joined","player":{"id":"BBBBBBBBBBBB","nick":"דנה","tag":"BBB","status":"lobby"}}"#.to_owned(),
        r#"{"type":"left","id":"AAAAAAAAAAAA"}"#.to_owned(),
        r#"{"type":"status","id":"zzzzzzzzzzzz","status":"lobby"}"#.to_owned(),
        r#"{"type":"signal","from":"AAAAAAAAAAAA","data":{"type":"offer","sdp":"v=0","attempt":2}}"#.to_owned(),
        r#"{"type":"signal","from":"zzzzzzzzzzzz","data":{"type":"answer","sdp":"v=0"}}"#.to_owned(),
        r#"{"type":"signal","from":"zzzzzzzzzzzz","data":{"type":"ice","candidate":"c","sdpMid":"0","sdpMLineIndex":0}}"#.to_owned(),
        r#"{"type":"full"}"#.to_owned(),
        r#"{"type":"error","reason":"x"}"#.to_owned(),
    ];
    let room = RoomCode::parse("K7M2QX").unwrap();
    for m in [
        PeerMsg::Chat("hi".into()),
        PeerMsg::Challenge {
            room: room.clone(),
            game: None,
        },
        PeerMsg::Challenge {
            room,
            game: web_shell::protocol::GameName::parse("Dots"),
        },
        PeerMsg::Accept,
        PeerMsg::Cancel,
        PeerMsg::Invited(web_shell::invite::InviteCode::parse("aB3dE5fG7hJ9").unwrap()),
        PeerMsg::InviteRefused(web_shell::invite::InviteRefusal::Busy),
        PeerMsg::PartyInvite {
            game: None,
            people: 4,
        },
        PeerMsg::PartyAccept,
        PeerMsg::PartyDecline(web_shell::protocol::DeclineReason::Busy),
        PeerMsg::PartyCancel,
        PeerMsg::PartyStart {
            room: RoomCode::parse("K7M2QX").unwrap(),
            place: 1,
            sides: vec![0, 1, 1, 0],
        },
    ] {
        v.push(m.encode());
    }
    v
}

fn garbage(rng: &mut Rng, valid: &[String]) -> String {
    match rng.below(4) {
        0 => (0..rng.below(40)).map(|_| *rng.pick(&PIECES)).collect(),
        1 => {
            // A valid message with bytes changed, cut or repeated.
            let mut b = rng.pick(valid).clone().into_bytes();
            for _ in 0..=rng.below(3) {
                if b.is_empty() {
                    break;
                }
                let i = rng.below(b.len() as u64) as usize;
                match rng.below(3) {
                    0 => b[i] = rng.next() as u8,
                    1 => b.truncate(i),
                    _ => b.insert(i, b"\"{}[]:,\\"[rng.below(8) as usize]),
                }
            }
            String::from_utf8_lossy(&b).into_owned()
        }
        2 => rng.pick(valid).clone(),
        _ => {
            let n = rng.below(9000) as usize;
            (0..n)
                .map(|_| char::from_u32((rng.next() % 0x3000) as u32).unwrap_or('x'))
                .collect()
        }
    }
}

fn check_outputs(c: &mut LobbyClient) {
    while let Some(out) = c.poll_output() {
        match out {
            Output::ToServer(s) | Output::ToPeer(_, s) => {
                assert!(
                    serde_json::from_str::<Value>(&s).is_ok(),
                    "we only ever send JSON: {s}"
                );
            }
            Output::Chat { text, .. } => {
                assert!(text.chars().count() <= text::CHAT_MAX_CHARS);
                assert!(!text.chars().any(text::is_forbidden), "shown chat is clean");
            }
            _ => {}
        }
    }
    let me = c.me().cloned();
    let roster = c.roster();
    assert!(
        roster.iter().all(|p| Some(&p.id) != me.as_ref()),
        "we are never in our own roster"
    );
    let mut ids: Vec<_> = roster.iter().map(|p| p.id.clone()).collect();
    ids.dedup();
    assert_eq!(ids.len(), roster.len(), "no duplicate roster entries");
    assert!(c.challenges().outgoing.is_none() || c.challenges().joining.is_none());
}

#[test]
fn parsers_survive_garbage() {
    let valid = valid_messages();
    let mut rng = Rng(0x5EED_0001);
    for _ in 0..20_000 {
        let g = garbage(&mut rng, &valid);
        let _ = LobbyServerMsg::parse(&g);
        let _ = PeerMsg::parse(&g);
        let _ = Signal::parse_room(&g);
        if let Ok(v) = serde_json::from_str::<Value>(&g) {
            let _ = Signal::from_value(v);
        }
        let _ = text::clean_name(&g);
        let _ = text::incoming_chat(&g);
        let _ = PeerId::parse(&g);
        let _ = RoomCode::parse(&g);
        if let Ok(PeerMsg::Chat(t)) = PeerMsg::parse(&g) {
            assert!(
                t.chars().count() <= text::CHAT_MAX_CHARS && !t.chars().any(text::is_forbidden)
            );
        }
    }
}

#[test]
fn lobby_client_survives_garbage_and_keeps_its_invariants() {
    let valid = valid_messages();
    for seed in 1..=20u64 {
        let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let mut c = LobbyClient::new("Me".into(), LobbyConfig::default());
        c.start(Millis(0), PeerId::parse("MMMMMMMMMMMM").unwrap());
        c.socket_open();
        let mut now = 0u64;
        for _ in 0..2_000 {
            now += rng.below(3_000);
            let t = Millis(now);
            let id = PeerId::parse(IDS[rng.below(IDS.len() as u64) as usize]).unwrap();
            match rng.below(14) {
                0..=3 => c.server_text(t, &garbage(&mut rng, &valid)),
                4..=6 => c.peer_text(t, &id, &garbage(&mut rng, &valid)),
                7 => c.peer_open(&id, rng.below(4) as u8),
                8 => c.peer_closed(t, &id, rng.below(4) as u8),
                9 => {
                    let _ = c.send_chat(t, &garbage(&mut rng, &valid));
                }
                10 => match rng.below(6) {
                    0 => c.challenge(t, &id),
                    1 => c.accept(t, &id),
                    2 => c.decline(t, &id),
                    3 => c.cancel(t),
                    4 => c.toggle_mute(t, &id),
                    _ => c.retry_now(t),
                },
                11 => match rng.below(5) {
                    0 => c.room_created(t, RoomCode::parse("RQQM33").unwrap()),
                    1 => c.room_failed(t),
                    2 => c.match_connected(t),
                    3 => c.match_failed(t),
                    _ => c.match_ended(t),
                },
                12 => {
                    if rng.below(2) == 0 {
                        c.socket_closed(t);
                    } else if c.wants_connect(t) {
                        c.start(t, PeerId::generate(|| rng.next() as u8));
                        c.socket_open();
                    }
                }
                _ => c.tick(t),
            }
            check_outputs(&mut c);
        }
    }
}
