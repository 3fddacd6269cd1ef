//! A match ends and the result screen offers its input log for download;
//! when the browser cannot make the file's address, the page reports it
//! and the shell hides the link rather than show one that leads nowhere.

use crate::common;

use common::World;
use web_shell::screens::Screen;
use web_shell::shell::page::Patch;
use web_shell::shell::{Action, FileLink, Input, Output};

#[test]
fn a_file_the_page_cannot_offer_hides_its_link() {
    let mut w = World::lobby("", &["Ada", "Bo"]);
    w.challenge_accepted(0, 1);
    w.until_both_play(5_000, 60);
    w.action(0, Action::Leave);
    w.until(2_000, "both show a result", |w| {
        (0..2).all(|p| matches!(w.screen(p), Screen::Result { .. }))
    });

    let shell = &mut w.pages[0].shell;
    shell.handle(w.now, Input::OfferFailed(FileLink::Log));
    let mut patches = Vec::new();
    while let Some(out) = shell.poll_output() {
        match out {
            Output::Page(p) => patches.extend(p),
            other => panic!("only the page changes: {other:?}"),
        }
    }
    assert_eq!(patches, [Patch::Shown("log-link", false)]);
    assert!(
        matches!(w.screen(0), Screen::Result { .. }),
        "still on the result"
    );
}
