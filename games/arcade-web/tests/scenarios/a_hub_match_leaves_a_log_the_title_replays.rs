//! What a lock-step game played over the hub leaves behind: its result
//! for the result screen, the match's end offers the game's input log
//! (the page's "Download the log"), both
//! pages' logs replay to the same state, and a page's hub opens the
//! recording on the game that wrote it; a file no game wrote is refused
//! with the reason.
use crate::common;

use common::{Page, Pair};
use lockstep::{InputLog, SessionConfig};
use netsim::LinkConfig;
use web_shell::replay::{Control, Refusal};
use web_shell::shell::GameSlot;

/// Dots (the third game) from the start, played for two seconds, then the
/// guest leaves; both pages' matches end.
fn a_dots_match_that_ends() -> Pair {
    let mut p = Pair::opening(
        LinkConfig::default(),
        9,
        Some(2),
        SessionConfig::host(21, 2),
        SessionConfig::guest(),
    );
    p.run(2_000, |f, h, g| {
        // Each holds a key for a while, so the log has more than zeros.
        h.held = if f % 40 < 10 {
            vec!["ArrowRight"]
        } else {
            vec![]
        };
        g.held = if f % 50 < 10 {
            vec!["ArrowDown"]
        } else {
            vec![]
        };
    });
    assert_eq!(p.guest.hub.playing(), Some((2, 0)), "dots runs");
    let now = p.now;
    p.guest.hub.quit_match(now);
    p.run(1_000, |_, _, _| {});
    assert!(p.host.ended.is_some() && p.guest.ended.is_some());
    p
}

#[test]
fn both_pages_logs_replay_to_one_state_and_the_title_plays_one_back() {
    let p = a_dots_match_that_ends();
    let log_of = |page: &Page| {
        page.ended
            .as_ref()
            .and_then(|e| e.log.clone())
            .expect("the end offers dots' log")
    };
    let (ours, theirs) = (log_of(&p.host), log_of(&p.guest));
    // The result screen can show dots' own result.
    let mut host = p.host;
    assert!(host.hub.has_result(), "the last game's result is kept");
    host.hub.forget_result();
    assert!(!host.hub.has_result());
    let at = ours.ticks.min(theirs.ticks);
    assert!(at > 60, "the logs hold the match: {at} ticks");
    let hash = host.hub.log_hash_at(&ours, at);
    assert!(hash.is_some(), "the hub replays its own log");
    assert_eq!(
        hash,
        p.guest.hub.log_hash_at(&theirs, at),
        "one state at tick {at}"
    );

    // A fresh page opens the recording on dots and plays it to its end.
    let (a, _) = netsim::pair(LinkConfig::default(), 1);
    let mut page = Page::new(a, 3);
    page.hub
        .open_replay(&ours.bytes)
        .expect("dots takes its log");
    page.hub.replay_control(Control::Seek(ours.ticks));
    page.hub.replay_frame();
    let view = page.hub.replay_view().expect("a recording is open");
    assert_eq!((view.tick, view.ticks), (ours.ticks, ours.ticks));
    assert_eq!(view.hash, ours.hash, "it ends on the hash the log recorded");
    assert!(view.summary.as_deref().unwrap_or_default().contains("coin"));
    page.hub.close_replay();
    assert!(page.hub.replay_view().is_none());
}

#[test]
fn a_file_no_game_wrote_is_refused_with_the_reason() {
    let p = a_dots_match_that_ends();
    let log = p.host.ended.as_ref().and_then(|e| e.log.clone()).unwrap();
    let (a, _) = netsim::pair(LinkConfig::default(), 1);
    let mut page = Page::new(a, 3);
    assert_eq!(
        page.hub.open_replay(b"not a log at all"),
        Err(Refusal::NotALog)
    );
    // The same log as if another build of dots had written it.
    let mut other = InputLog::<u8>::from_bytes(&log.bytes).unwrap();
    other.build ^= 1;
    let bytes = other.to_bytes().unwrap();
    assert!(matches!(
        page.hub.open_replay(&bytes),
        Err(Refusal::OtherBuild { .. })
    ));
    assert!(page.hub.replay_view().is_none(), "nothing is open");
}
