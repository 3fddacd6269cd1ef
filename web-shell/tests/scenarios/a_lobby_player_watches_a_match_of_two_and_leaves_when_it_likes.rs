//! Watching a challenge's match (two players, no party) from the lobby:
//! Ada challenges Bo and they play; Cy presses Watch next to Bo, the
//! guest, whose page asks Ada's for the way in, and Di next to Ada, the
//! host, who opened one member room for spectators at the first ask.
//! Both spectators link to the host alone and show the match a little
//! behind, on the same states; both players count them. Cy leaves when
//! it likes and the match goes on, the count down by one; when Ada
//! leaves, every page shows a result and the logs agree on every tick
//! the spectator confirmed.

use crate::common;

use common::World;
use web_shell::screens::Screen;
use web_shell::shell::{Action, PlayerAction};

fn watching(w: &World, n: u8) -> bool {
    (0..2).all(|p| w.pages[p].shell.match_view().watching == n)
}

fn watches(w: &World, p: usize, past: u32) -> bool {
    w.screen(p) == Screen::Match && w.pages[p].shell.match_view().tick > Some(past)
}

#[test]
fn a_lobby_player_watches_a_match_of_two_and_leaves_when_it_likes() {
    let mut w = World::party_lobby(&["Ada", "Bo", "Cy", "Di"], common::ANY_FOUR, 0x51d2);
    let roster = |w: &World, p: usize| w.pages[p].shell.lobby_view().unwrap().roster;
    w.challenge_accepted(0, 1);
    w.until_both_play(5_000, 60);
    w.until(2_000, "the lobby sees the two in a match", |w| {
        let r = roster(w, 2);
        r.iter().filter(|r| r.can_watch).count() == 2
    });
    assert_eq!(
        w.member_rooms.len(),
        0,
        "no room for spectators until asked"
    );

    // Cy asks the guest, who asks the host.
    w.press(2, PlayerAction::Watch, 1);
    w.until(10_000, "Cy watches", |w| watches(w, 2, 120));
    assert_eq!(
        w.pages[2].shell.match_view().side,
        None,
        "a spectator plays no side"
    );
    w.until(3_000, "both players count one watching", |w| watching(w, 1));
    let seen = w.pages[2].shell.match_view().tick.unwrap();
    assert!(seen < w.pages[0].shell.match_view().tick.unwrap());

    // Di asks the host, whose room is open already.
    w.press(3, PlayerAction::Watch, 0);
    w.until(10_000, "Di watches", |w| watches(w, 3, seen));
    w.until(3_000, "both players count two watching", |w| watching(w, 2));
    assert_eq!(w.member_rooms.len(), 1, "one room for every spectator");

    // Cy leaves; the match goes on with one watching.
    w.action(2, Action::Leave);
    w.until(3_000, "Cy is out", |w| w.screen(2) != Screen::Match);
    w.until(3_000, "one watches", |w| watching(w, 1));
    let before = w.pages[0].shell.match_view().tick.unwrap();
    w.until(3_000, "the match goes on", |w| {
        (0..2).all(|p| watches(w, p, before + 60)) && watches(w, 3, before)
    });
    w.action(2, Action::Continue);
    w.until(2_000, "Cy is back in the lobby", |w| {
        w.screen(2) == Screen::Lobby
    });

    // The host leaves: the match ends on every page still in it.
    w.action(0, Action::Leave);
    w.until(5_000, "every page shows a result", |w| {
        [0, 1, 3]
            .iter()
            .all(|&p| matches!(w.screen(p), Screen::Result { .. }))
    });
    let last = w.pages[3]
        .shell
        .match_view()
        .tick
        .expect("the spectator confirmed ticks");
    let host_hash = w.pages[0].shell.log_hash_at(last);
    assert!(host_hash.is_some());
    for p in [1, 3] {
        assert_eq!(
            w.pages[p].shell.log_hash_at(last),
            host_hash,
            "page {p} at tick {last}"
        );
    }
    for p in [0, 1, 3] {
        w.action(p, Action::Continue);
    }
    w.until(2_000, "nobody is left in a match", |w| {
        (0..4).all(|p| w.screen(p) == Screen::Lobby) && roster(w, 2).iter().all(|r| !r.can_watch)
    });
}
