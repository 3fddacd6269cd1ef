//! The match link fails mid-match (a network change): the guest asks the
//! host over their lobby link for a way back, the host makes a fresh room,
//! the guest joins it, and over the new link the guest's fresh session
//! takes its slot back; the match plays on and ends in sync. Meanwhile the
//! guest reads "Reconnecting…" and the host "Bo is reconnecting (N s)".

use crate::common;

use common::World;
use web_shell::screens::Screen;
use web_shell::shell::Action;

#[test]
fn a_lost_match_link_is_made_again_and_the_match_plays_on() {
    let mut w = World::lobby("", &["Ada", "Bo"]);
    w.challenge_accepted(0, 1);
    w.until_both_play(5_000, 60);
    let rooms_before = w.rooms_made();
    // The host's first room for the way back hangs at the service: the
    // guest keeps asking, and the pages say what goes on meanwhile.
    w.pages[0].answers_fetches = false;
    w.cut_match_link(1);
    w.run(1_000);
    let (a, b) = (w.pages[0].shell.match_view(), w.pages[1].shell.match_view());
    assert_eq!(b.reconnecting.as_deref(), Some("Reconnecting…"));
    assert_eq!(a.held, Some((1, 19)), "the host holds Bo's slot");
    assert_eq!(a.reconnecting.as_deref(), Some("Bo is reconnecting (19 s)"));
    let stalled = a.tick;
    w.run(500);
    assert_eq!(
        w.pages[0].shell.match_view().tick,
        stalled,
        "the host confirms nothing without Bo's inputs"
    );
    w.pages[0].answers_fetches = true;
    // The hung room is given up (10 s), and the next ask gets a room.
    w.until(15_000, "the guest is back in the match", |w| {
        w.pages[1].shell.match_view().rejoined.is_some()
    });
    assert_eq!(
        w.rooms_made(),
        rooms_before + 1,
        "one fresh room for the way back"
    );
    let back_at = w.pages[1].shell.match_view().rejoined.unwrap();
    w.until(5_000, "both play on past the rejoin", |w| {
        (0..2).all(|p| w.pages[p].shell.match_view().tick > Some(back_at + 60))
    });
    for p in 0..2 {
        let v = w.pages[p].shell.match_view();
        assert_eq!(v.reconnecting, None, "page {p}: the line is gone");
        assert_eq!(v.held, None);
        assert_eq!(w.screen(p), Screen::Match);
    }
    w.action(0, Action::Leave);
    w.until(2_000, "both show a result", |w| {
        (0..2).all(|p| matches!(w.screen(p), Screen::Result { .. }))
    });
    // The guest's log (its fresh session's, caught up from tick 0) and the
    // host's agree from the start to past the rejoin.
    for tick in [1, back_at / 2, back_at, back_at + 60] {
        let (ha, hb) = (
            w.pages[0].shell.log_hash_at(tick),
            w.pages[1].shell.log_hash_at(tick),
        );
        assert!(ha.is_some(), "tick {tick} is in the host's log");
        assert_eq!(ha, hb, "tick {tick}");
    }
}
