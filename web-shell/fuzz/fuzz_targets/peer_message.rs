//! What a lobby peer can send over the mesh: its data-channel messages,
//! parsed strictly and then acted on by a lobby client that has that peer
//! connected. Never a panic; what parses encodes back to the same message;
//! what the client sends is JSON; chat it shows is clean and short; the
//! challenge rules never both host and join.
#![no_main]

use libfuzzer_sys::fuzz_target;
use lockstep::Millis;
use web_shell::id::PeerId;
use web_shell::lobby::{LobbyClient, LobbyConfig, Output};
use web_shell::protocol::PeerMsg;
use web_shell::text;

/// A client in the lobby with one other player, `AAAAAAAAAAAA`, whose
/// mesh link (first attempt) is open.
fn connected_client() -> (LobbyClient, PeerId) {
    let mut c = LobbyClient::new("Me".into(), LobbyConfig::default());
    c.start(Millis(0), PeerId::parse("MMMMMMMMMMMM").expect("a valid id"));
    c.socket_open();
    c.server_text(
        Millis(1),
        r#"{"type":"welcome","you":"MMMMMMMMMMMM","roster":[{"id":"AAAAAAAAAAAA","nick":"a","status":"lobby"}]}"#,
    );
    let peer = PeerId::parse("AAAAAAAAAAAA").expect("a valid id");
    c.peer_open(&peer, 1);
    while c.poll_output().is_some() {}
    (c, peer)
}

fn drain(c: &mut LobbyClient) {
    while let Some(out) = c.poll_output() {
        match out {
            Output::ToServer(s) | Output::ToPeer(_, s) => {
                assert!(serde_json::from_str::<serde_json::Value>(&s).is_ok());
            }
            Output::Chat { text: t, .. } => {
                assert!(t.chars().count() <= text::CHAT_MAX_CHARS);
                assert!(!t.chars().any(text::is_forbidden));
            }
            _ => {}
        }
    }
    let ch = c.challenges();
    assert!(ch.outgoing.is_none() || ch.joining.is_none());
}

fuzz_target!(|data: &[u8]| {
    let (mut c, peer) = connected_client();
    let mut now = 1_000u64;
    // Messages are separated by 0xFF (never in UTF-8); the byte before
    // each says how long after the previous one it arrived (in 100 ms), so
    // the rate limit and the challenge timers both come into play.
    for chunk in data.split(|b| *b == 0xFF) {
        let Some((&gap, msg)) = chunk.split_first() else {
            continue;
        };
        now += u64::from(gap) * 100;
        // The shell drops a datagram that is not UTF-8 before the parser.
        let Ok(raw) = std::str::from_utf8(msg) else {
            continue;
        };
        if let Ok(m) = PeerMsg::parse(raw) {
            assert_eq!(PeerMsg::parse(&m.encode()), Ok(m));
        }
        c.peer_text(Millis(now), &peer, raw);
        c.tick(Millis(now));
        drain(&mut c);
    }
});
