//! The page and the signalling service read room codes, names and query
//! strings the same way: every code the service issues is one the page
//! accepts, every code the page accepts is one the service could issue,
//! and a name the page accepts is exactly the name the lobby puts on its
//! roster (and a name it refuses, the lobby refuses too).
//!
//! The service side is driven through `signaling-core`'s real lobby machine
//! and room-code draw; the page side through the web shell's own modules.

use proptest::prelude::*;
use signaling_core::protocol::RoomCreated;
use signaling_core::{Action, Event, Lobby, LobbyLimits, Millis};
use web_shell::id::{PeerId, RoomCode};
use web_shell::options::query_param;
use web_shell::protocol::{lobby_out, LobbyServerMsg};
use web_shell::text;

/// What the lobby answers a page that says hello with `nick`: the roster
/// name from the welcome as the page reads it, or the `error` reason.
fn lobby_answer(nick: &str) -> Result<String, String> {
    let mut lobby = Lobby::new(LobbyLimits::default());
    let (socket, _) = lobby.admit(Millis(0)).expect("an empty lobby admits");
    let me = PeerId::parse("AAAAAAAAAAAA").expect("a valid id");
    let hello = lobby_out::hello(&me, nick);
    let actions = lobby.handle(
        Event::Text {
            socket,
            text: &hello,
        },
        Millis(1),
    );
    let reply = actions
        .into_iter()
        .find_map(|a| match a {
            Action::Send { socket: s, text } if s == socket => Some(text),
            _ => None,
        })
        .expect("the lobby answers every hello");
    match LobbyServerMsg::parse(&reply).expect("the page reads every lobby frame") {
        LobbyServerMsg::Welcome { you, roster, .. } => {
            assert_eq!(you, me);
            assert_eq!(roster.len(), 1, "the roster the page reads is whole");
            Ok(roster[0].nick.clone())
        }
        LobbyServerMsg::Error(reason) => Err(reason),
        other => panic!("unexpected answer to hello: {other:?}"),
    }
}

#[test]
fn codes_the_service_never_issues_are_refused_by_the_page() {
    // 0, O, 1, I and L are not in the alphabet the service draws from.
    for never_issued in [
        "K7M2Q0", "K7M2QO", "K7M2Q1", "K7M2QI", "K7M2QL", "K7M2Q", "K7M2QXY",
    ] {
        assert_eq!(RoomCode::parse(never_issued), None, "{never_issued}");
    }
    // Lower case, which the service accepts in a room's address, is read
    // by the page as the same code.
    assert_eq!(
        RoomCode::parse("k7m2qx").map(|c| c.as_str().to_owned()),
        Some("K7M2QX".to_owned())
    );
}

#[test]
fn a_name_the_page_refuses_the_lobby_refuses() {
    for bad in [
        "",
        "   ",
        "a\u{202E}b",
        "\u{200B}",
        "Ada\u{E0041}",
        &"x".repeat(21),
    ] {
        assert!(text::clean_name(bad).is_err(), "{bad:?}");
        assert!(lobby_answer(bad).is_err(), "{bad:?}");
    }
}

#[test]
fn a_bare_query_key_means_the_same_to_page_and_service() {
    // `?role` is a present, empty role: the service refuses it as a bad role
    // (400) rather than a missing one, and the page reads it as empty.
    assert_eq!(query_param("?role", "role").as_deref(), Some(""));
    assert_eq!(
        signaling_core::role_from_query("role"),
        Err(signaling_core::RoomRefusal::BadRole)
    );
    assert_eq!(
        query_param("?role=host&role=guest", "role").as_deref(),
        Some("host")
    );
    assert_eq!(
        signaling_core::role_from_query("role=host&role=guest"),
        Ok(signaling_core::Role::Host)
    );
}

/// Names built from characters that sit on either side of the rule: plain
/// letters, spaces, Hebrew, emoji with joiners, flag tags, controls, bidi
/// controls and invisible characters.
fn tricky_name() -> impl Strategy<Value = String> {
    let pieces = prop::sample::select(vec![
        "a",
        "Z",
        "7",
        " ",
        "\t",
        "\n",
        "\u{0}",
        "\u{7f}",
        "\u{85}",
        "ש",
        "🏀",
        "\u{200D}",
        "\u{200C}",
        "\u{200F}",
        "\u{202E}",
        "\u{2066}",
        "\u{200B}",
        "\u{FEFF}",
        "\u{3164}",
        "\u{1F3F4}",
        "\u{E0067}",
        "\u{E007F}",
        "#",
        "<b>",
    ]);
    prop::collection::vec(pieces, 0..26).prop_map(|v| v.concat())
}

proptest! {
    #[test]
    fn every_code_the_service_issues_the_page_accepts_unchanged(
        bytes in prop::collection::vec(any::<u8>(), 0..40)
    ) {
        if let Some(code) = signaling_core::RoomCode::from_random_bytes(&bytes) {
            // As `POST /rooms` sends it, and as the page reads that body.
            let body = RoomCreated { code: code.clone(), ttl: 600 }.to_json();
            let read = RoomCreated::parse(&body).expect("the page reads the body");
            prop_assert_eq!(&read.code, &code);
            prop_assert_eq!(RoomCode::parse(code.as_str()), Some(code));
        }
    }

    #[test]
    fn every_code_the_page_accepts_the_service_could_issue(s in "[0-9A-Za-z]{6}") {
        if let Some(code) = RoomCode::parse(&s) {
            // The bytes that draw exactly these characters from the
            // service's alphabet give back the same code.
            let bytes: Vec<u8> = code
                .as_str()
                .bytes()
                .map(|c| {
                    let i = signaling_core::protocol::ROOM_CODE_ALPHABET
                        .iter()
                        .position(|&a| a == c)
                        .expect("a page-accepted code is in the service's alphabet");
                    u8::try_from(i).expect("31 characters")
                })
                .collect();
            prop_assert_eq!(signaling_core::RoomCode::from_random_bytes(&bytes), Some(code));
        }
    }

    #[test]
    fn a_name_the_page_accepts_is_the_name_on_the_lobby_roster(raw in tricky_name()) {
        match (text::clean_name(&raw), lobby_answer(&raw)) {
            (Ok(page), Ok(roster)) => prop_assert_eq!(page, roster),
            (Err(_), Err(_)) => {}
            (page, lobby) => prop_assert!(false, "page {page:?} but lobby {lobby:?} for {raw:?}"),
        }
    }
}
