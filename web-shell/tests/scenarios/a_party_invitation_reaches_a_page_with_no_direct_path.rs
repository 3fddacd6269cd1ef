//! A party of three where Cy's page has no direct path to anyone from the
//! start: its lobby mesh never forms, yet the challenger's invitation and
//! Cy's answer go through the service, and the party's links to Cy go over
//! the member room's relays. The match plays on every page, in sync.

use crate::common;

use common::World;

#[test]
fn a_party_invitation_reaches_a_page_with_no_direct_path() {
    let w = World::of_shells(common::party_shells(3, common::ANY_FOUR, 0x0c_1ea5));
    let mut w = w.join_walled(&["Ada", "Bo", "Cy"], &[(0, 2), (1, 2)]);
    assert_eq!(w.link_shown(0, 2), Some("via the service"));
    assert_eq!(w.link_shown(0, 1), Some("connected"));
    w.party_invited(&[1, 2]);
    let invites: Vec<(usize, usize)> = w
        .lobby_relayed
        .iter()
        .filter(|(_, _, kind)| kind == "party-invite")
        .map(|(from, to, _)| (*from, *to))
        .collect();
    assert_eq!(
        invites,
        [(0, 2)],
        "Cy's invitation went through the service"
    );
    w.press(1, web_shell::shell::PlayerAction::PartyAccept, 0);
    w.press(2, web_shell::shell::PlayerAction::PartyAccept, 0);
    assert!(w
        .lobby_relayed
        .iter()
        .any(|(from, to, kind)| (*from, *to) == (2, 0) && kind == "party-accept"));

    w.until(20_000, "the three play", |w| w.all_play(&[0, 1, 2], 90));
    let paths: Vec<Option<&str>> = (0..3).map(|p| w.pages[p].shell.match_view().path).collect();
    assert_eq!(paths, [Some("relayed"), Some("relayed"), Some("relayed")]);
    assert!(w.party_linked(0, 2) && w.party_linked(1, 2));
    w.leave_and_logs_agree(0, &[0, 1, 2], &[30, 90]);
}
