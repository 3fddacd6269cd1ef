//! A spectator whose data channel backs up: the host's page hears the
//! link's `bufferedAmount` and streams nothing more to it (copies would
//! only go stale in the queue), so the spectator shows no tick the host
//! had not reached when the link backed up. Once the queue drains, the
//! stream resumes and the spectator catches up; the players never notice.

use crate::common;

use common::World;
use web_shell::screens::Screen;
use web_shell::shell::PlayerAction;

#[test]
fn a_backed_up_watcher_is_streamed_nothing_until_its_link_drains() {
    let mut w = World::party_lobby(&["Ada", "Bo", "Cy", "Di"], common::ANY_FOUR, 0x5b1d);
    w.party_invited(&[1, 2]);
    w.press(1, PlayerAction::PartyAccept, 0);
    w.press(2, PlayerAction::PartyAccept, 0);
    w.until(10_000, "the three play", |w| w.all_play(&[0, 1, 2], 60));
    w.until(2_000, "Watch is offered", |w| {
        w.pages[3]
            .shell
            .lobby_view()
            .is_some_and(|l| l.roster.iter().any(|r| r.can_watch))
    });
    // Di watches the host's match; a spectator links to the host alone.
    w.press(3, PlayerAction::Watch, 0);
    w.until(10_000, "Di watches", |w| {
        w.screen(3) == Screen::Match && w.pages[3].shell.match_view().tick > Some(120)
    });

    // The host's link to Di backs up.
    let tick = |w: &World, p: usize| w.pages[p].shell.match_view().tick.unwrap_or(0);
    w.party_backlog(0, 3, 64 * 1024);
    w.run(50);
    let host_at_cut = tick(&w, 0);
    w.run(2_000);
    assert!(
        tick(&w, 0) > host_at_cut + 100,
        "the players go on while a watcher's link is backed up"
    );
    assert!(
        tick(&w, 3) <= host_at_cut,
        "the spectator shows tick {} though the host stopped streaming at {host_at_cut}",
        tick(&w, 3)
    );
    assert_eq!(w.screen(3), Screen::Match, "the spectator is not dropped");

    // The queue drains: the stream resumes and the spectator catches up.
    w.party_backlog(0, 3, 0);
    w.until(5_000, "the spectator catches up", |w| {
        tick(w, 3) > host_at_cut + 100
    });
    assert!(w.all_play(&[0, 1, 2], host_at_cut + 100));
}
