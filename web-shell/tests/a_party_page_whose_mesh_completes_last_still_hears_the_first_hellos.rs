//! A party whose pages complete their meshes at different moments: the
//! challenger's page hears its links open and starts its session (whose
//! first message to each other player goes once, on the reliable channel)
//! while another page has not yet heard that its own links opened. That
//! page keeps what came over them until its mesh is complete and its
//! session exists, so the match still starts on all three pages.

mod common;

use common::{facts, random, World};
use web_shell::front_end::demo::{Dots, DotsFrontEnd};
use web_shell::front_end::{FrontEnd, Painter};
use web_shell::party::PartyRules;
use web_shell::screens::Screen;
use web_shell::shell::{Action, PlayerAction, Shell, ShellConfig};

#[derive(Default)]
struct PartyDots(DotsFrontEnd);

impl FrontEnd for PartyDots {
    type Game = Dots;
    fn name(&self) -> &'static str {
        self.0.name()
    }
    fn draw(&mut self, game: &Dots, painter: &mut dyn Painter) {
        self.0.draw(game, painter);
    }
    fn input(&self, held: &[&str], player: u8) -> u8 {
        self.0.input(held, player)
    }
    fn is_game_key(&self, code: &str) -> bool {
        self.0.is_game_key(code)
    }
    fn party(&self) -> PartyRules {
        PartyRules {
            max_people: 3,
            sides: 0,
            per_side: 3,
        }
    }
}

#[test]
fn a_party_page_whose_mesh_completes_last_still_hears_the_first_hellos() {
    let shells = (0..3)
        .map(|i| {
            Shell::new(
                PartyDots::default(),
                ShellConfig::from_page(&facts("")),
                random(0xe4_1e * (i as u64 + 1)),
            )
        })
        .collect();
    let mut w = World::of_shells(shells);
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
