//! The lobby page shows which lobby the service placed us in and how full
//! it is ("Lobby 1 \u{b7} 2/16", counted from the live roster), and every
//! other lobby's fill, from `GET /lobbies`: fetched once the lobby welcomes
//! us and again every minute while the lobby is shown. An answer that is
//! not a directory is dropped and the fills from before stay.

use crate::common;

use common::World;
use web_shell::shell::LOBBIES_REFRESH;

fn shown(w: &World, p: usize) -> (String, Vec<String>) {
    let v = w.pages[p].shell.lobby_view().expect("on the lobby");
    (v.lobbies.ours_text(), v.lobbies.others_text())
}

#[test]
fn the_lobby_page_shows_every_lobbys_fill() {
    let mut w = World::new(2, "");
    w.join(0, "Ada");
    w.until(2_000, "Ada sees the lobbies", |w| !shown(w, 0).0.is_empty());
    let others = vec![
        "Lobby 2 \u{b7} 16/16".to_owned(),
        "Lobby 3 \u{b7} 3/16".to_owned(),
    ];
    assert_eq!(
        shown(&w, 0),
        ("Lobby 1 \u{b7} 1/16".to_owned(), others.clone())
    );

    // Bo joins: both pages count him at once. Our own lobby's count
    // follows the live roster; the directory is fetched only every minute.
    w.join(1, "Bo");
    w.until(2_000, "Bo sees the lobbies", |w| !shown(w, 1).0.is_empty());
    assert_eq!(shown(&w, 1).0, "Lobby 1 \u{b7} 2/16");
    w.until(2_000, "Ada's page counts Bo", |w| {
        shown(w, 0).0 == "Lobby 1 \u{b7} 2/16"
    });
    assert_eq!(
        shown(&w, 0).1,
        others,
        "the other lobbies wait for the refresh"
    );

    // A garbled answer changes nothing.
    w.lobbies_answer = Some(r#"{"lobbies":[{"lobby":0,"players":"many"}]}"#.to_owned());
    w.run(LOBBIES_REFRESH.0 + 1_000);
    assert_eq!(shown(&w, 0), ("Lobby 1 \u{b7} 2/16".to_owned(), others));
}
