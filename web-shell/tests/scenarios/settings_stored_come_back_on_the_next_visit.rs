//! What a page stores (the name joined under, the netcode picked) is what
//! the next visit reads back: the page hands the stored values to a new
//! shell by the keys the shell names, and the shell starts with them.

use crate::common;

use web_shell::shell::page::Patch;
use web_shell::shell::{Action, Input, Output, PageFacts, Shell, ShellConfig, STORED_KEYS};

/// Feeds `input`, returning every setting stored and every page change.
fn feed(shell: &mut Shell, input: Input) -> (Vec<(&'static str, String)>, Vec<Patch>) {
    shell.handle(lockstep::Millis(0), input);
    let (mut stored, mut patches) = (Vec::new(), Vec::new());
    while let Some(out) = shell.poll_output() {
        match out {
            Output::Store { key, value } => stored.push((key, value)),
            Output::Page(p) => patches.extend(p),
            _ => {}
        }
    }
    (stored, patches)
}

#[test]
fn settings_stored_come_back_on_the_next_visit() {
    let mut first = common::shell("", 1);
    assert!(!first.lockstep(), "rollback by default");
    let (mut storage, _) = feed(
        &mut first,
        Input::Action(Action::Netcode("lockstep".into())),
    );
    let (joined, _) = feed(&mut first, Input::Action(Action::ChooseOnline));
    storage.extend(joined);
    let (joined, _) = feed(&mut first, Input::Action(Action::Join("Ada".into())));
    storage.extend(joined);
    // Only keys the page is told to read back are written.
    assert_eq!(storage.len(), 2, "{storage:?}");
    assert!(storage.iter().all(|(k, _)| STORED_KEYS.contains(k)));

    // The next visit: the page reads every stored key.
    let facts = PageFacts {
        stored: storage,
        ..common::facts("")
    };
    let mut next = Shell::new(
        web_shell::testing::TestDotsFrontEnd::default(),
        ShellConfig::from_page(&facts),
        common::random(2),
    );
    assert!(next.lockstep(), "the netcode picked");
    let mut start = Vec::new();
    while let Some(out) = next.poll_output() {
        if let Output::Page(p) = out {
            start.extend(p);
        }
    }
    assert!(
        start.contains(&Patch::Value("name", "Ada".into())),
        "{start:?}"
    );
    assert!(start.contains(&Patch::Value("netcode", "lockstep".into())));
}
