//! A party of three plays a game that goes on without a player who left
//! (as the arcade's dots does). Cy's tab is closed mid-match and never
//! comes back. Ada and Bo keep playing while Cy's place is held (its dot
//! stands still), see Cy counted down as reconnecting, and once the
//! window is over play on as two: no more comeback rooms, no more
//! waiting, the same states on both pages to the end.

use crate::common;

use common::World;
use web_shell::shell::rejoin::REJOIN_WINDOW;
use web_shell::testing::PlaysOnDots;

#[test]
fn a_party_plays_on_when_a_player_leaves_for_good() {
    let shells = common::party_shells_as::<PlaysOnDots>(3, common::ANY_FOUR, 0x1e47_2026, None);
    let mut w = World::party_lobby_of(&["Ada", "Bo", "Cy"], shells);
    w.party_plays(3);

    w.close_tab(2);
    let gone_at = w.now;
    let stayed = [0, 1];
    // While Cy's place is held, the two others play on (the game does
    // not wait for a held slot in a party of three) and see Cy counted
    // down.
    let tick = |w: &World, p: usize| w.pages[p].shell.match_view().tick.unwrap_or(0);
    let before: Vec<u32> = stayed.iter().map(|&p| tick(&w, p)).collect();
    w.run(8_000);
    for (i, &p) in stayed.iter().enumerate() {
        let v = w.pages[p].shell.match_view();
        assert!(
            tick(&w, p) > before[i] + 200,
            "page {p} plays on while Cy is away"
        );
        assert!(
            v.reconnecting
                .as_deref()
                .is_some_and(|l| l.starts_with("Cy is reconnecting (")),
            "page {p}: {:?}",
            v.reconnecting
        );
    }

    // The window runs out: Cy has left for good, and the two play on.
    let over = gone_at + REJOIN_WINDOW + common::LEFT_SETTLES;
    w.run(over.0.saturating_sub(w.now.0));
    let rooms = w.rooms_made();
    let after: Vec<u32> = stayed.iter().map(|&p| tick(&w, p)).collect();
    w.run(10_000);
    for (i, &p) in stayed.iter().enumerate() {
        let v = w.pages[p].shell.match_view();
        assert_eq!(v.state, Some("running"), "page {p} is still in the match");
        assert!(tick(&w, p) > after[i] + 500, "page {p} plays on as two");
        assert_eq!(v.reconnecting, None, "page {p}: nobody is counted down");
        assert_eq!(v.held, None, "page {p}: no place is held");
    }
    assert_eq!(
        w.rooms_made(),
        rooms,
        "no comeback room for a player who left"
    );
    let last = tick(&w, 0).min(tick(&w, 1));
    w.leave_and_logs_agree(0, &stayed, &[after[0].min(after[1]), last]);
}
