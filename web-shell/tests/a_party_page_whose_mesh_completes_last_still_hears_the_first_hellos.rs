//! A party whose pages complete their meshes at different moments: the
//! challenger's page hears its links open and starts its session (whose
//! first message to each other player goes once, on the reliable channel)
//! while another page has not yet heard that its own links opened. That
//! page keeps what came over them until its mesh is complete and its
//! session exists, so the match still starts on all three pages.

mod common;

use common::{party_shells, World};
use web_shell::party::PartyRules;
use web_shell::screens::Screen;
use web_shell::shell::{Action, PlayerAction};

#[test]
fn a_party_page_whose_mesh_completes_last_still_hears_the_first_hellos() {
    let mut w = World::of_shells(party_shells(
        3,
        PartyRules {
            max_people: 3,
            sides: 0,
            per_side: 3,
            lengths: &[],
        },
        0xe4_1e,
    ));
    for (p, name) in ["Ada", "Bo", "Cy"].iter().enumerate() {
        w.join(p, name);
    }
    w.until(5_000, "the mesh forms", World::mesh_formed);
    let picks = (1..3).map(|p| (w.id(p).as_str().to_owned(), 0)).collect();
    w.action(0, Action::InviteParty { picks, side: 0 });
    let host = w.id(0);
    w.until(2_000, "both invitations are seen", |w| {
        (1..3).all(|p| {
            w.pages[p]
                .shell
                .lobby()
                .is_some_and(|c| c.party_invitation(&host).is_some())
        })
    });
    // From here Bo's page does not hear its links open.
    w.hold_opens_of = Some(1);
    w.press(1, PlayerAction::PartyAccept, 0);
    w.press(2, PlayerAction::PartyAccept, 0);
    w.until(2_000, "Ada's session starts", |w| {
        w.screen(0) == Screen::Match
    });
    w.run(500);
    assert_eq!(w.screen(1), Screen::Lobby, "Bo's page has no mesh yet");
    w.release_opens();
    w.until(3_000, "the three play", |w| {
        (0..3)
            .all(|p| w.screen(p) == Screen::Match && w.pages[p].shell.match_view().tick > Some(30))
    });
}
