//! A party whose pages complete their meshes at different moments: the
//! challenger's page hears its links open and starts its session (whose
//! first message to each other player goes once, on the reliable channel)
//! while another page has not yet heard that its own links opened. That
//! page keeps what came over them until its mesh is complete and its
//! session exists, so the match still starts on all three pages.

use crate::common;

use common::World;
use web_shell::party::PartyRules;
use web_shell::screens::Screen;
use web_shell::shell::PlayerAction;

#[test]
fn a_party_page_whose_mesh_completes_last_still_hears_the_first_hellos() {
    let mut w = World::party_lobby(
        &["Ada", "Bo", "Cy"],
        PartyRules {
            max_people: 3,
            sides: 0,
            per_side: 3,
            lengths: &[],
        },
        0xe4_1e,
    );
    w.party_invited(&[1, 2]);
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
    w.until(3_000, "the three play", |w| w.all_play(&[0, 1, 2], 30));
}
