//! Two shells in a match whose pages both report wrong state hashes (so
//! each sees the other's game differ, as in a real desync): both stop the
//! match with the desync message, and each result screen
//! offers the desync report (a file that reads back and replays to the
//! diverging tick); the next match, ended otherwise, offers none.

use crate::common;

use common::World;
use lockstep::{DesyncReport, DeterministicGame};
use web_shell::play::DESYNC_MESSAGE;
use web_shell::screens::Screen;
use web_shell::shell::Action;
use web_shell::testing::TestDots;

/// Ada challenges Bo, Bo accepts, and both run the match past tick 60.
fn start_match(w: &mut World) {
    w.challenge_accepted(0, 1);
    w.until_both_play(5_000, 60);
}

fn result_message(w: &World, p: usize) -> String {
    match w.screen(p) {
        Screen::Result { message, .. } => message,
        s => panic!("not on the result screen: {s:?}"),
    }
}

#[test]
fn a_desync_offers_its_report_on_the_result_screen() {
    let mut w = World::lobby("", &["Ada", "Bo"]);
    start_match(&mut w);

    for p in 0..2 {
        w.pages[p].flip_hash = true;
    }
    w.until(10_000, "both show a result", |w| {
        (0..2).all(|p| matches!(w.screen(p), Screen::Result { .. }))
    });
    for p in 0..2 {
        w.pages[p].flip_hash = false;
    }
    // The test game describes no parts: the plain sentence, on both pages.
    for p in 0..2 {
        assert_eq!(result_message(&w, p), DESYNC_MESSAGE);
    }

    // Ada's report holds the inputs up to the tick, and this build replays
    // them to Ada's hash there.
    let offer = w.pages[0].report.clone().expect("Ada is offered a report");
    assert!(
        offer.file_name.starts_with("test dots-desync-") && offer.file_name.ends_with(".report"),
        "{}",
        offer.file_name
    );
    let report = DesyncReport::<u8>::from_bytes(&offer.bytes).expect("the report reads back");
    assert_eq!(report.tick(), offer.ticks);
    assert!(
        report.tick() > 60,
        "the desync came after the first 60 ticks"
    );
    assert_eq!(report.side, 0);
    assert_eq!(report.log.build, TestDots::BUILD_ID);
    assert_ne!(report.local_hash(), report.remote_hash);
    assert!(report.parts.is_empty(), "the test game names no parts");
    let replayed = report.replay::<TestDots>();
    assert!(replayed.same_build);
    assert_eq!(replayed.first_diverging_tick, None);
    assert_eq!(replayed.hash, report.local_hash());
    // Bo's page offers its own side's report, of the same tick.
    let bo = w.pages[1].report.clone().expect("Bo is offered a report");
    let bo = DesyncReport::<u8>::from_bytes(&bo.bytes).expect("Bo's report reads back");
    assert_eq!(bo.side, 1);
    assert_eq!(bo.tick(), report.tick());
    assert_eq!(bo.replay::<TestDots>().hash, bo.local_hash());

    // The next match ends by leaving: no report, the link goes.
    for p in 0..2 {
        w.action(p, Action::Continue);
    }
    w.run(500);
    start_match(&mut w);
    w.action(0, Action::Leave);
    w.until(2_000, "both show a result", |w| {
        (0..2).all(|p| matches!(w.screen(p), Screen::Result { .. }))
    });
    assert_eq!(result_message(&w, 0), "You left the online match.");
    assert!(w.pages[0].report.is_none() && w.pages[1].report.is_none());
}
