//! A party of three plays a game that goes on without a player who left
//! (as the arcade's dots does). Ada's tab, the party host's, is closed
//! for good. Once Ada's window is over Bo, the lowest guest, hosts the
//! match: Bo and Cy play on in step, Bo's page says it hosts now and
//! Cy's that Bo does, and Cy's record names Bo's page as the one to ask.
//! Cy's page is then reloaded and comes back into its slot through a
//! comeback room Bo's page makes; the logs agree past the rejoin. Ada's
//! page opened again later is told plainly that the match went on
//! without it, and stays in the lobby.

use crate::common;

use common::World;
use web_shell::screens::Screen;
use web_shell::shell::rejoin::{REJOIN_WINDOW, WENT_ON};
use web_shell::shell::Shell;
use web_shell::testing::PlaysOnDots;

fn plays_on_shell(cfg: web_shell::shell::ShellConfig, random: web_shell::shell::Random) -> Shell {
    Shell::new(
        common::PartyDotsAs::<PlaysOnDots>::new(common::ANY_FOUR),
        cfg,
        random,
    )
}

#[test]
fn a_party_whose_host_never_comes_back_plays_on_under_a_new_host() {
    let shells = common::party_shells_as::<PlaysOnDots>(3, common::ANY_FOUR, 0x4057_2026, None);
    let mut w = World::party_lobby_of(&["Ada", "Bo", "Cy"], shells);
    w.party_plays(3);
    let stayed = [1, 2];
    w.run(1_100);
    let ada_record = w.pages[0].session.clone().expect("the host keeps a record");

    w.close_tab(0);
    let gone_at = w.now;
    let over = gone_at + REJOIN_WINDOW + common::LEFT_SETTLES;
    w.run(over.0.saturating_sub(w.now.0));
    let tick = |w: &World, p: usize| w.pages[p].shell.match_view().tick.unwrap_or(0);
    let after: Vec<u32> = stayed.iter().map(|&p| tick(&w, p)).collect();
    for &p in &stayed {
        let v = w.pages[p].shell.match_view();
        assert_eq!(v.state, Some("running"), "page {p} is still in the match");
        assert_eq!(v.host, Some(1), "page {p}: Bo hosts now");
    }
    let line = |w: &World, p: usize| w.pages[p].shell.match_view().host_moved.clone();
    let (bo, cy) = (
        line(&w, 1).unwrap_or_default(),
        line(&w, 2).unwrap_or_default(),
    );
    assert!(bo.ends_with(" left; you host now"), "Bo's page: {bo:?}");
    assert!(
        cy.contains(" left; ") && cy.ends_with(" hosts now") && !cy.contains("you"),
        "Cy's page: {cy:?}"
    );
    assert_eq!(bo.split(' ').next(), cy.split(' ').next(), "both name Ada");
    w.run(6_000);
    for (i, &p) in stayed.iter().enumerate() {
        let v = w.pages[p].shell.match_view();
        assert!(tick(&w, p) > after[i] + 200, "page {p} plays on");
        assert_eq!(v.host_moved, None, "page {p}: the line was brief");
    }
    let record = w.record(2);
    assert_eq!(record.ask, w.id(1), "Cy's page asks Bo's from now on");
    assert!(record.also.is_empty(), "and nobody else: {:?}", record.also);

    // Cy's page reloads and comes back through Bo's.
    let rooms = w.rooms_made();
    w.reload_as(2, "", plays_on_shell);
    assert_eq!(w.screen(2), Screen::Lobby, "the page opens on the lobby");
    w.until(15_000, "Cy's page is back in the match", |w| {
        w.screen(2) == Screen::Match && w.pages[2].shell.match_view().rejoined.is_some()
    });
    assert_eq!(w.rooms_made(), rooms + 1, "one comeback room, Bo's");
    let v = w.pages[2].shell.match_view();
    assert_eq!(
        (v.side, v.host),
        (Some(2), Some(1)),
        "Cy in its slot, Bo hosts"
    );
    let back_at = v.rejoined.unwrap();
    w.all_play_on_past(&stayed, back_at + 120);

    // Ada's page is opened again with its old record: plainly refused.
    w.reload_as(0, "", move |mut cfg, random| {
        cfg.rejoin_record = Some(ada_record);
        plays_on_shell(cfg, random)
    });
    w.run(3_000);
    assert_eq!(w.screen(0), Screen::Lobby, "Ada's page stays in the lobby");
    assert_eq!(w.notices(0), vec![WENT_ON.to_owned()]);
    assert_eq!(w.pages[0].session, None, "its record is gone");
    for &p in &stayed {
        assert_eq!(w.screen(p), Screen::Match, "page {p} plays on");
    }

    let last = tick(&w, 1).min(tick(&w, 2));
    w.leave_and_logs_agree(1, &stayed, &[after[0].min(after[1]), back_at, last]);
}
