//! A player who leaves a game of Battleship mid-game: the leaving page
//! reads that it left, the other page reads that the other player left
//! (its goodbye crossed the link before the link closed), not that the
//! connection was lost. A link that just fails still reads as lost.
mod common;

use common::Page;
use lockstep::{Millis, Outcome, SessionConfig};
use netsim::LinkConfig;
use web_shell::shell::GameSlot;

fn pages(seed: u64) -> (Page, Page) {
    let link = LinkConfig {
        latency: Millis(40),
        jitter: Millis(10),
        loss_percent: 10,
        ..LinkConfig::default()
    };
    let (a, b) = netsim::pair(link, seed);
    let mut host = Page::new(seed, a);
    let mut guest = Page::new(seed + 1, b);
    assert!(host
        .slot
        .start_match(SessionConfig::host(9, 6), Millis(0), 1));
    assert!(guest.slot.start_match(SessionConfig::guest(), Millis(0), 1));
    (host, guest)
}

/// Runs both pages' frames for `ms` of virtual time from `*now`.
fn run(host: &mut Page, guest: &mut Page, now: &mut Millis, ms: u64) {
    let until = now.0 + ms;
    while now.0 < until {
        *now = Millis(now.0 + 16);
        host.link.advance_to(*now);
        host.frame(*now);
        guest.frame(*now);
    }
}

#[test]
fn the_other_page_reads_that_the_player_left() {
    for leaver_is_host in [true, false] {
        let (mut host, mut guest) = pages(if leaver_is_host { 40 } else { 50 });
        let mut now = Millis(0);
        run(&mut host, &mut guest, &mut now, 3_000);
        // Shots were fired on both sides and the game still runs.
        for p in [&host, &guest] {
            assert!(
                !p.probe.borrow().shot_at.is_empty(),
                "shots crossed the link"
            );
            assert!(p.ended.is_none(), "the game runs");
        }
        let (leaver, other) = if leaver_is_host {
            (&mut host, &mut guest)
        } else {
            (&mut guest, &mut host)
        };
        leaver.slot.quit_match(now);
        // The leaving page's next frame reports the end and sends the
        // goodbye; then its side of the link closes, as the shell does.
        run(leaver, other, &mut now, 16);
        let mine = leaver.ended.as_ref().expect("the leaver's match ended");
        assert_eq!(mine.outcome, Outcome::LocalQuit);
        assert_eq!(mine.message, "You left the online match.");
        // The goodbye is repeated over the lossy link until it arrives.
        run(leaver, other, &mut now, 2_000);
        let theirs = other.ended.as_ref().expect("the other page's match ended");
        assert_eq!(theirs.outcome, Outcome::RemoteQuit);
        assert_eq!(theirs.message, "The other player left the match.");
        assert_eq!(other.probe.borrow().ended, Some("other left"));
    }
}

#[test]
fn a_failed_link_still_reads_as_lost() {
    let (mut host, mut guest) = pages(60);
    let mut now = Millis(0);
    run(&mut host, &mut guest, &mut now, 3_000);
    guest.slot.match_link_lost(now);
    run(&mut host, &mut guest, &mut now, 16);
    let end = guest.ended.as_ref().expect("the guest's match ended");
    assert_eq!(end.outcome, Outcome::TransportLost);
    assert_eq!(end.message, "The connection to the other player was lost.");
}
