//! A party of four plays. The host's page is reloaded and comes back into
//! the match under a new lobby id; Cy's page is reloaded just after, with
//! a record written before the host's return, so it names the host's old
//! page (gone) and the other guests. A guest it asks takes nobody back
//! itself, but names the page that hosts now (`rejoin-elsewhere`); Cy's
//! page asks that page and comes back into its slot through it, and the
//! logs agree.

use crate::common;

use common::World;

#[test]
fn a_guest_page_reloaded_just_after_the_party_host_came_back_is_sent_to_it() {
    let mut w = World::party_playing(4, 0x5e17_2026);
    let all = [0, 1, 2, 3];
    w.run(1_100);
    let host_before = w.id(0);
    let mut stale = w.record(2);
    assert_eq!(stale.ask, host_before, "Cy's record names the host's page");

    w.reload_as(0, "", common::party_shell(common::ANY_FOUR));
    w.until(15_000, "the host's page is back in the match", |w| {
        w.pages[0].shell.match_view().rejoined.is_some()
    });
    let back_at = w.pages[0].shell.match_view().rejoined.unwrap_or(0);
    w.all_play_on_past(&all, back_at + 60);
    assert_ne!(w.id(0), host_before, "the host's page has a new lobby id");

    // Cy's page reloads with the record from before the host's return,
    // as fresh as the one it keeps now.
    stale.alive_at = w.record(2).alive_at;
    let text = stale.to_storage();
    let rooms = w.rooms_made();
    w.reload_as(2, "", move |mut cfg, random| {
        cfg.rejoin_record = Some(text);
        common::party_shell(common::ANY_FOUR)(cfg, random)
    });
    w.back_and_logs_agree(&[2], &all, 1, |w| {
        assert_eq!(
            w.pages[2].shell.match_view().side,
            Some(2),
            "Cy in its slot"
        );
        assert_eq!(w.rooms_made(), rooms + 1, "one comeback room, the host's");
    });
}
