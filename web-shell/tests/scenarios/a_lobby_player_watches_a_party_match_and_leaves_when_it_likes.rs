//! Watching a party's match from the lobby: three shells play a party's
//! match over its member room (the service's own room machine), and a
//! fourth, who stayed in the lobby, presses Watch next to one of the
//! players (not the host). Its page joins the room as a spectator, links
//! to the host alone and shows the match a little behind, on the same
//! states; every player counts one watching. The spectator leaves when it
//! likes and the match goes on, the count back to 0; it watches again,
//! and when the match ends its log agrees with the players' on every tick
//! it confirmed.

use crate::common;

use common::World;
use web_shell::screens::Screen;
use web_shell::shell::{Action, PlayerAction};

fn watching_everywhere(w: &World, n: u8) -> bool {
    (0..3).all(|p| w.pages[p].shell.match_view().watching == n)
}

#[test]
fn a_lobby_player_watches_a_party_match_and_leaves_when_it_likes() {
    let mut w = World::party_lobby(&["Ada", "Bo", "Cy", "Di"], common::ANY_FOUR, 0x3a7c);
    // Nobody plays yet: nobody can be watched.
    let roster = |w: &World, p: usize| w.pages[p].shell.lobby_view().unwrap().roster;
    assert!(roster(&w, 3).iter().all(|r| !r.can_watch));

    w.party_invited(&[1, 2]);
    w.press(1, PlayerAction::PartyAccept, 0);
    w.press(2, PlayerAction::PartyAccept, 0);
    w.until(10_000, "the three play", |w| w.all_play(&[0, 1, 2], 60));
    w.until(2_000, "the lobby sees them in a match", |w| {
        roster(w, 3).iter().all(|r| r.can_watch)
    });
    // The players cannot watch each other (they play).
    assert!(roster(&w, 1).iter().all(|r| !r.can_watch));

    // Di watches Bo's match.
    w.press(3, PlayerAction::Watch, 1);
    w.until(10_000, "Di watches", |w| {
        w.screen(3) == Screen::Match && w.pages[3].shell.match_view().tick > Some(120)
    });
    assert_eq!(
        w.pages[3].shell.match_view().side,
        None,
        "a spectator plays no side"
    );
    w.until(3_000, "every player counts one watching", |w| {
        watching_everywhere(w, 1)
    });
    // The spectator is behind the players, on the same states: its
    // confirmed tick's hash is one the host showed.
    let seen = w.pages[3].shell.match_view().tick.unwrap();
    assert!(seen < w.pages[0].shell.match_view().tick.unwrap());

    // Di leaves; the match goes on and the count is back to 0.
    w.action(3, Action::Leave);
    w.until(3_000, "Di is out", |w| w.screen(3) != Screen::Match);
    let before = w.pages[0].shell.match_view().tick.unwrap();
    w.until(3_000, "nobody watches", |w| watching_everywhere(w, 0));
    w.until(3_000, "the match goes on", |w| {
        (0..3).all(|p| {
            w.screen(p) == Screen::Match && w.pages[p].shell.match_view().tick > Some(before + 60)
        })
    });
    w.action(3, Action::Continue);
    w.until(2_000, "Di is back in the lobby", |w| {
        w.screen(3) == Screen::Lobby
    });

    // Di watches again, through the host this time, until the host leaves.
    w.until(2_000, "Watch is offered again", |w| {
        roster(w, 3).iter().all(|r| r.can_watch)
    });
    w.press(3, PlayerAction::Watch, 0);
    w.until(10_000, "Di watches again", |w| {
        w.screen(3) == Screen::Match && w.pages[3].shell.match_view().tick > Some(before + 120)
    });
    w.action(0, Action::Leave);
    w.until(5_000, "every page shows a result", |w| {
        (0..4).all(|p| matches!(w.screen(p), Screen::Result { .. }))
    });
    let last = w.pages[3]
        .shell
        .match_view()
        .tick
        .expect("the spectator confirmed ticks");
    let host_hash = w.pages[0].shell.log_hash_at(last);
    assert!(host_hash.is_some());
    for p in 1..4 {
        assert_eq!(
            w.pages[p].shell.log_hash_at(last),
            host_hash,
            "page {p} at tick {last}"
        );
    }
}
