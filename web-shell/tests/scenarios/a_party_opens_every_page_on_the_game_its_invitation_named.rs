//! On pages of several games (a hub), a party plays the game its
//! invitation named: the challenger picked "Relay race" on its title, so
//! its invitation names it, and every page of the party (the challenger's
//! and each member's) opens its slot on that game before the match starts,
//! whatever its own title shows. A lobby player who then watches is told
//! the game too, and its page opens on it. Parties are offered only for
//! the games that take them.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use crate::common;

use common::{facts, random, PartyDots, World, ANY_FOUR};
use lockstep::{Channel, Millis, SessionConfig};
use web_shell::front_end::{LocalOption, Painter};
use web_shell::party::{PartyGame, PartyRules};
use web_shell::shell::driver::FrameReport;
use web_shell::shell::view::{LocalView, MatchView};
use web_shell::shell::{lockstep_slot, Action, GameSlot, PlayerAction, Shell, ShellConfig};

/// The titles' games, in order: only the second takes parties.
const GAMES: &[&str] = &["Checkers", "Relay race"];

/// A page's slot of two games; both play as the party dots game does,
/// and the slot records every game it was opened on.
struct TwoGames {
    inner: Box<dyn GameSlot>,
    opened: Rc<RefCell<Vec<usize>>>,
    /// Its matches can be watched (as a hub's party can, and its match of
    /// two cannot).
    watchable: bool,
    /// The game its match plays now, as a hub's switches (shared by the
    /// pages of a test, which switch together).
    playing: Rc<Cell<Option<usize>>>,
}

impl GameSlot for TwoGames {
    fn name(&self) -> &'static str {
        "Two games"
    }
    fn build_id(&self) -> u64 {
        self.inner.build_id()
    }
    fn local_options(&self) -> &'static [LocalOption] {
        &[LocalOption {
            label: "Game",
            choices: GAMES,
        }]
    }
    fn games(&self) -> &'static [&'static str] {
        GAMES
    }
    fn open_on(&mut self, game: usize) {
        self.opened.borrow_mut().push(game);
    }
    fn party_games(&self) -> Vec<PartyGame> {
        vec![
            PartyGame {
                name: GAMES[0],
                rules: PartyRules::PAIR,
            },
            PartyGame {
                name: GAMES[1],
                rules: ANY_FOUR,
            },
        ]
    }
    fn party(&self) -> PartyRules {
        self.inner.party()
    }
    fn takes_spectators(&self) -> bool {
        self.inner.takes_spectators()
    }
    fn match_watchable(&self) -> bool {
        self.watchable && self.inner.match_watchable()
    }
    fn match_game(&self) -> Option<usize> {
        self.playing.get()
    }
    fn party_seed(&self, seed: u64, sides: &[u8], length: usize) -> Option<u64> {
        self.inner.party_seed(seed, sides, length)
    }
    fn start_party(
        &mut self,
        cfg: SessionConfig,
        now: Millis,
        tag: u32,
        links: &[lockstep::PeerId],
    ) -> bool {
        self.inner.start_party(cfg, now, tag, links)
    }
    fn party_datagram(&mut self, now: Millis, link: lockstep::PeerId, ch: Channel, b: &[u8]) {
        self.inner.party_datagram(now, link, ch, b);
    }
    fn party_link_lost(&mut self, now: Millis, link: lockstep::PeerId) {
        self.inner.party_link_lost(now, link);
    }
    fn poll_party_transmit(&mut self, link: lockstep::PeerId) -> Option<(Channel, Vec<u8>)> {
        self.inner.poll_party_transmit(link)
    }
    fn is_game_key(&self, code: &str) -> bool {
        self.inner.is_game_key(code)
    }
    fn start_local(&mut self, seed: u64, choices: &[usize]) {
        self.inner.start_local(seed, choices);
    }
    fn stop_local(&mut self) {
        self.inner.stop_local();
    }
    fn local_frame(&mut self, held: &[&str], steps: u32) -> LocalView {
        self.inner.local_frame(held, steps)
    }
    fn start_match(&mut self, cfg: SessionConfig, now: Millis, tag: u32) -> bool {
        self.inner.start_match(cfg, now, tag)
    }
    fn match_tag(&self) -> Option<u32> {
        self.inner.match_tag()
    }
    fn match_datagram(&mut self, now: Millis, channel: Channel, bytes: &[u8]) {
        self.inner.match_datagram(now, channel, bytes);
    }
    fn match_link_lost(&mut self, now: Millis) {
        self.inner.match_link_lost(now);
    }
    fn match_frame(&mut self, now: Millis, held: &[&str], view: &mut MatchView) -> FrameReport {
        self.inner.match_frame(now, held, view)
    }
    fn poll_match_transmit(&mut self) -> Option<(Channel, Vec<u8>)> {
        self.inner.poll_match_transmit()
    }
    fn quit_match(&mut self, now: Millis) {
        self.inner.quit_match(now);
    }
    fn drop_match(&mut self) {
        self.inner.drop_match();
    }
    fn paint(&mut self, painter: &mut dyn Painter) {
        self.inner.paint(painter);
    }
}

/// Pages of [`TwoGames`], each with the game its title shows, online.
fn pages(names: &[&str], titles: &[&str]) -> (World, Vec<Rc<RefCell<Vec<usize>>>>) {
    pages_watchable(names, titles, true)
}

/// As [`pages`], their matches watchable or not.
fn pages_watchable(
    names: &[&str],
    titles: &[&str],
    watchable: bool,
) -> (World, Vec<Rc<RefCell<Vec<usize>>>>) {
    pages_playing(names, titles, watchable, &Rc::new(Cell::new(None)))
}

/// As [`pages_watchable`], their matches playing the game `playing` says.
fn pages_playing(
    names: &[&str],
    titles: &[&str],
    watchable: bool,
    playing: &Rc<Cell<Option<usize>>>,
) -> (World, Vec<Rc<RefCell<Vec<usize>>>>) {
    let mut opened = Vec::new();
    let shells = titles
        .iter()
        .enumerate()
        .map(|(i, title)| {
            let log = Rc::new(RefCell::new(Vec::new()));
            opened.push(Rc::clone(&log));
            let slot = TwoGames {
                inner: lockstep_slot(PartyDots::new(ANY_FOUR)),
                opened: log,
                watchable,
                playing: Rc::clone(playing),
            };
            let mut cfg = ShellConfig::from_page(&facts(""));
            cfg.stored_game = Some((*title).to_owned());
            Shell::with_game(Box::new(slot), cfg, random(0x009a_3e17 * (i as u64 + 1)))
        })
        .collect();
    let mut w = World::of_shells(shells);
    for (p, name) in names.iter().enumerate() {
        w.join(p, name);
    }
    w.until(5_000, "the mesh forms", World::mesh_formed);
    (w, opened)
}

#[test]
fn every_page_of_the_party_opens_on_the_named_game() {
    let (mut w, opened) = pages(
        &["Ada", "Bo", "Cy", "Di"],
        &["Relay race", "Checkers", "Checkers", "Checkers"],
    );
    w.party_invited(&[1, 2]);
    // The prompt shows although the page's own title is on a game for
    // two, and its Accept button answers it.
    for p in [1, 2] {
        let prompt = w.pages[p].party_page.get("party-prompt").cloned();
        let text = format!("{prompt:?}");
        assert!(text.contains("party-accept"), "page {p}: {text}");
        assert!(
            text.contains("(Relay race)"),
            "the prompt names the game: {text}"
        );
        let host = w.id(0).as_str().to_owned();
        w.action(
            p,
            Action::PartyControl {
                action: "party-accept".to_owned(),
                id: Some(host),
            },
        );
    }
    w.until(10_000, "the three play", |w| w.all_play(&[0, 1, 2], 60));
    for (p, log) in opened.iter().take(3).enumerate() {
        assert_eq!(
            log.borrow().last(),
            Some(&1),
            "page {p} opened on the relay race"
        );
    }

    // Di watches Bo's match: Bo's page answers with the room and the
    // game, and Di's page opens on it although its title shows checkers.
    w.press(3, PlayerAction::Watch, 1);
    w.until(10_000, "Di watches", |w| {
        w.pages[3].shell.match_view().tick > Some(60)
    });
    assert_eq!(
        opened[3].borrow().last(),
        Some(&1),
        "the spectator opened on it"
    );
    w.action(0, Action::Leave);
}

#[test]
fn a_title_on_a_game_for_two_offers_no_party() {
    let (mut w, _) = pages(
        &["Ada", "Bo", "Cy"],
        &["Checkers", "Relay race", "Relay race"],
    );
    // Nothing to open a party with on that title.
    let panel = format!("{:?}", w.pages[0].party_page.get("party-panel"));
    assert!(!panel.contains("party-open"), "{panel}");
    let bo = w.id(1).as_str().to_owned();
    w.action(
        0,
        Action::InviteParty {
            picks: vec![(bo, 0)],
            side: 0,
        },
    );
    w.run(500);
    let host = w.id(0);
    assert!(
        w.pages[1]
            .shell
            .lobby()
            .is_some_and(|c| c.party_invitation(&host).is_none()),
        "no invitation to a party of a game for two goes out"
    );
}

#[test]
fn a_match_its_slot_cannot_stream_is_not_watched() {
    let (mut w, opened) = pages_watchable(&["Ada", "Bo", "Cy"], &["Checkers"; 3], false);
    w.challenge_accepted(0, 1);
    w.until_both_play(5_000, 60);
    w.press(2, PlayerAction::Watch, 0);
    w.run(2_000);
    assert_eq!(w.screen(2), web_shell::screens::Screen::Lobby);
    assert!(opened[2].borrow().is_empty(), "the asker opened nothing");
    let notices = format!("{:?}", w.pages[2].shell.lobby_view().unwrap().notices);
    assert!(notices.contains("can't be watched"), "{notices}");
    assert_eq!(w.member_rooms.len(), 0, "no room was made for it");
}

// A hub switches games within one match of two; each game streams to its
// own spectators. When the players switch, the host lets the spectators
// go (their watch ends), and the next to ask is told the game played then.
#[test]
fn the_spectators_of_a_match_of_two_are_let_go_when_it_switches_games() {
    let playing = Rc::new(Cell::new(Some(0)));
    let (mut w, opened) = pages_playing(&["Ada", "Bo", "Cy"], &["Checkers"; 3], true, &playing);
    w.challenge_accepted(0, 1);
    w.until_both_play(5_000, 60);
    w.press(2, PlayerAction::Watch, 0);
    w.until(10_000, "Cy watches", |w| {
        w.screen(2) == web_shell::screens::Screen::Match
            && w.pages[2].shell.match_view().tick > Some(60)
    });
    assert_eq!(
        opened[2].borrow().last(),
        Some(&0),
        "Cy's page opened on Checkers"
    );

    // The players switch to the second game.
    playing.set(Some(1));
    w.until(5_000, "Cy's watch ends", |w| {
        w.screen(2) != web_shell::screens::Screen::Match
            || w.pages[2].shell.match_view().state == Some("ended")
    });
    assert_eq!(w.member_rooms.len(), 1, "one room so far");
    let at = w.pages[0].shell.match_view().tick.unwrap_or(0);
    w.until(3_000, "the players play on", |w| {
        (0..2).all(|p| w.pages[p].shell.match_view().tick > Some(at + 60))
    });

    // Cy, back in the lobby, watches again: the page opens on the game
    // played now.
    if w.screen(2) != web_shell::screens::Screen::Lobby {
        w.action(2, Action::Continue);
    }
    assert_eq!(w.screen(2), web_shell::screens::Screen::Lobby);
    w.press(2, PlayerAction::Watch, 0);
    w.until(10_000, "Cy watches again", |w| {
        w.screen(2) == web_shell::screens::Screen::Match
            && w.pages[2].shell.match_view().tick > Some(60)
    });
    assert_eq!(opened[2].borrow().last(), Some(&1), "on Relay race now");
    assert_eq!(w.member_rooms.len(), 2, "through a room of its own");
}
