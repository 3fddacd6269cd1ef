//! Two pages with no direct path between them from the start: their lobby
//! mesh link never opens, so each shows the other as reachable "via the
//! service", and chat, the challenge and its answer go through the
//! signalling service. The match link that follows finds no direct path
//! either and goes over the room's relay; both pages play in sync. A third
//! page with a direct path to both talks to them over the mesh.

use crate::common;

use common::World;
use web_shell::screens::Screen;
use web_shell::shell::room::RELAY_AFTER;
use web_shell::shell::Action;

#[test]
fn pages_with_no_direct_path_meet_through_the_service_and_play_over_the_relay() {
    let mut w = World::lobby_walled("", &["Cy", "Di", "Ed"], &[(0, 1)]);
    assert_eq!(w.link_shown(0, 1), Some("via the service"));
    assert_eq!(w.link_shown(1, 0), Some("via the service"));
    assert_eq!(w.link_shown(0, 2), Some("connected"));
    let di = w.id(1);
    let seen = w.pages[0].shell.lobby_view().unwrap();
    assert!(
        seen.roster.iter().any(|r| r.id == di && r.can_challenge),
        "Di can be challenged"
    );

    // Chat reaches both others: Di through the service, Ed over the mesh.
    w.action(0, Action::SendChat("hello there".into()));
    w.run(200);
    for p in [1, 2] {
        assert!(
            w.pages[p].chat.iter().any(|(_, t)| t == "hello there"),
            "page {p} got the line"
        );
    }
    let chats: Vec<(usize, usize)> = w
        .lobby_relayed
        .iter()
        .filter(|(_, _, kind)| kind == "chat")
        .map(|(from, to, _)| (*from, *to))
        .collect();
    assert_eq!(
        chats,
        [(0, 1)],
        "only the walled pair's line went through the service"
    );

    let accepted = w.now;
    w.challenge_accepted(0, 1);
    let kinds: Vec<&str> = w.lobby_relayed.iter().map(|(_, _, k)| k.as_str()).collect();
    assert!(
        kinds.contains(&"challenge") && kinds.contains(&"accept"),
        "{kinds:?}"
    );
    w.until_both_play(15_000, 120);
    assert!(
        w.now.0 - accepted.0 >= RELAY_AFTER.0,
        "the direct path had its time first"
    );
    for p in 0..2 {
        assert_eq!(w.pages[p].shell.match_view().path, Some("relayed"));
    }
    w.action(0, Action::Leave);
    w.until(2_000, "both show a result", |w| {
        (0..2).all(|p| matches!(w.screen(p), Screen::Result { .. }))
    });
    let common = 120;
    assert!(w.pages[0].shell.log_hash_at(common).is_some());
    assert_eq!(
        w.pages[0].shell.log_hash_at(common),
        w.pages[1].shell.log_hash_at(common)
    );
}
