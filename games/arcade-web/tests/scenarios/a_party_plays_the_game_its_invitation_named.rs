//! A party on the hub: the lobby offers parties for the hub's games that
//! take them, and a party's match is the game its invitation named, opened
//! on every page (the shell calls `open_on` with it), played over the
//! party's links from start to end with no hub message on any link. Here
//! three pages play the arena as a party, the host leaves and every guest
//! is told; afterwards a match of two over the hub still opens on the
//! game its challenge named. Three pages play dots as a party, and when
//! one is gone for good the other two play on.
use crate::common;

use common::Page;
use lockstep::{Millis, Outcome, PeerId, SessionConfig, Transport};
use netsim::{LinkConfig, SimEndpoint};
use web_shell::shell::GameSlot;

/// The arena's place in the test hub's list.
const ARENA: usize = 0;

struct Member {
    page: Page,
    /// Party links by the place at their other end.
    links: Vec<(PeerId, SimEndpoint)>,
    /// The confirmed state hash the page showed at each confirmed tick.
    hashes: std::collections::BTreeMap<u32, u64>,
}

impl Member {
    fn flush(&mut self) {
        for (name, link) in &mut self.links {
            while let Some((ch, bytes)) = self.page.hub.poll_party_transmit(*name) {
                let _ = link.send(ch, &bytes);
            }
        }
        assert!(
            self.page.hub.poll_match_transmit().is_none(),
            "a party's match sends nothing on the match link"
        );
    }

    fn frame(&mut self, now: Millis) {
        if self.page.ended.is_some() {
            return;
        }
        for i in 0..self.links.len() {
            let name = self.links[i].0;
            while let Some((ch, bytes)) = self.links[i].1.recv() {
                self.page.hub.party_datagram(now, name, ch, &bytes);
            }
        }
        self.flush();
        let held = self.page.held.clone();
        let report = self.page.hub.match_frame(now, &held, &mut self.page.view);
        if let (Some(tick), Some(hash)) = (self.page.view.tick, self.page.view.hash) {
            self.hashes.insert(tick, hash);
        }
        self.flush();
        if let Some(end) = report.ended {
            self.page.hub.drop_match();
            self.page.ended = Some(end);
        }
    }
}

/// Three hub pages, meshed as a party's are, each opened on `game` (as the
/// shell does with the invitation's game) and started.
fn party_on(game: usize) -> (Vec<Member>, Millis) {
    let mut members: Vec<Member> = (0..3u64)
        .map(|i| {
            let (unused, _) = netsim::pair(LinkConfig::default(), 100 + i);
            Member {
                page: Page::new(unused, 10 + i),
                links: Vec::new(),
                hashes: std::collections::BTreeMap::new(),
            }
        })
        .collect();
    let link = LinkConfig {
        latency: Millis(20),
        ..LinkConfig::default()
    };
    for a in 0..3u16 {
        for b in a + 1..3 {
            let (ea, eb) = netsim::pair(link, u64::from(a * 3 + b));
            members[usize::from(a)].links.push((PeerId(b), ea));
            members[usize::from(b)].links.push((PeerId(a), eb));
        }
    }
    let now = Millis(0);
    for (place, m) in members.iter_mut().enumerate() {
        m.page.hub.open_on(game);
        let cfg = if place == 0 {
            SessionConfig::host(5, 6).players(3)
        } else {
            SessionConfig::guest()
        };
        let names: Vec<PeerId> = m.links.iter().map(|(n, _)| *n).collect();
        assert!(m.page.hub.start_party(cfg, now, 7, &names), "place {place}");
        assert_eq!(m.page.hub.match_tag(), Some(7));
        m.flush();
    }
    (members, now)
}

fn run(members: &mut [Member], now: &mut Millis, ms: u64) {
    let end = now.0 + ms;
    while now.0 < end {
        *now = Millis(now.0 + 16);
        for m in members.iter_mut() {
            for (_, l) in &mut m.links {
                l.advance_to(*now);
            }
        }
        for m in members.iter_mut() {
            m.frame(*now);
        }
    }
}

#[test]
fn the_hub_offers_parties_for_the_games_that_take_them() {
    let (a, _) = netsim::pair(LinkConfig::default(), 1);
    let page = Page::new(a, 1);
    let offered: Vec<(&str, bool)> = page
        .hub
        .party_games()
        .iter()
        .map(|g| (g.name, g.rules.allows_parties()))
        .collect();
    assert_eq!(
        offered,
        [("Arena", true), ("Battleship", false), ("Dots", true)]
    );
}

#[test]
fn three_pages_play_the_arena_as_a_party_until_the_host_leaves() {
    let (mut members, mut now) = party_on(ARENA);
    run(&mut members, &mut now, 2_000);
    assert_eq!(members[0].page.arena.borrow().guests, Some(2));
    for m in &members[1..] {
        assert!(
            m.page.arena.borrow().seat.is_some(),
            "every guest is seated"
        );
        assert_eq!(m.page.view.state, Some("running"));
    }
    assert_eq!(members[0].page.view.headline, "You play Amber (host)");
    assert!(
        !members[0].page.hub.host_rejoins(),
        "the arena's host does not come back"
    );
    // Nobody's hub speaks on its own: no proposal, no game switching.
    assert_eq!(members[0].page.hub.playing(), None);
    // The page watches matches (dots streams to spectators), but the
    // arena's party does not take them: an asker is told so.
    assert!(members[0].page.hub.takes_spectators());
    assert!(!members[0].page.hub.match_watchable());

    members[0].page.hub.quit_match(now);
    run(&mut members, &mut now, 1_000);
    let host = members[0].page.ended.as_ref().expect("the host left");
    assert_eq!(host.outcome, Outcome::LocalQuit);
    for m in &members[1..] {
        let e = m
            .page
            .ended
            .as_ref()
            .expect("the goodbye reached the guest");
        assert_eq!(e.outcome, Outcome::RemoteQuit);
        assert_eq!(e.message, "The host left the match.");
        assert_eq!(m.page.hub.match_tag(), None);
    }
}

#[test]
fn a_party_of_a_game_for_two_does_not_start() {
    let (a, _) = netsim::pair(LinkConfig::default(), 2);
    let mut page = Page::new(a, 2);
    // Battleship is for two: the hub refuses a party of it, as the game
    // alone would.
    page.hub.open_on(1);
    let cfg = SessionConfig::host(3, 6).players(3);
    assert!(!page
        .hub
        .start_party(cfg, Millis(0), 1, &[PeerId(1), PeerId(2)]));
    assert_eq!(page.hub.match_tag(), None);
}

#[test]
fn after_a_party_a_match_of_two_opens_on_its_named_game() {
    let (mut members, mut now) = party_on(ARENA);
    run(&mut members, &mut now, 500);
    for m in &mut members {
        m.page.hub.quit_match(now);
    }
    run(&mut members, &mut now, 1_000);
    assert!(members.iter().all(|m| m.page.ended.is_some()));
    // The host's next challenge names dots.
    let mut host = members.remove(0).page;
    host.hub.open_on(2);
    assert!(host.hub.start_match(SessionConfig::host(9, 6), now, 8));
    host.ended = None;
    host.frame(now);
    assert_eq!(host.hub.playing(), Some((2, 0)));
    assert!(
        host.hub.match_watchable(),
        "a match of two of dots streams to spectators"
    );
    assert_eq!(host.hub.match_game(), Some(2), "they are told it is dots");
    assert_eq!(host.hub.match_tag(), Some(8));
}

/// Dots' place in the test hub's list.
const DOTS: usize = 2;

#[test]
fn a_dots_party_plays_on_when_a_player_leaves_for_good() {
    let (mut members, mut now) = party_on(DOTS);
    run(&mut members, &mut now, 2_000);
    for m in &members {
        assert_eq!(m.page.view.state, Some("running"), "dots takes parties");
        assert!(
            m.page.hub.host_rejoins(),
            "a dots party takes its host back"
        );
    }
    // The third page is gone for good (its tab closed): nothing more
    // comes from it.
    let stayed = &mut members[..2];
    let tick = |m: &Member| m.page.view.tick.unwrap_or(0);
    let before: Vec<u32> = stayed.iter().map(tick).collect();
    run(stayed, &mut now, 8_000);
    for (m, b) in stayed.iter().zip(&before) {
        // They wait for it until it is benched (5 s without a word),
        // then play on without it.
        assert!(tick(m) > b + 150, "the two play on while its place is held");
        assert_eq!(m.page.view.held.map(|(slot, _)| slot), Some(2));
        assert_eq!(m.page.view.benched, Some(2), "its dot stands still");
    }
    // The window runs out: it left, and the two play on as two.
    run(stayed, &mut now, 17_000);
    let after: Vec<u32> = stayed.iter().map(tick).collect();
    run(stayed, &mut now, 5_000);
    for (m, a) in stayed.iter().zip(&after) {
        assert!(m.page.ended.is_none(), "the match goes on");
        assert_eq!(m.page.view.held, None, "no place is held any more");
        assert!(tick(m) > a + 250, "the two play on");
    }
    // The two showed the same state at every confirmed tick both showed,
    // before and after the third left.
    let common: Vec<u32> = stayed[0]
        .hashes
        .keys()
        .filter(|t| stayed[1].hashes.contains_key(t))
        .copied()
        .collect();
    assert!(common.len() > 500, "{} ticks in common", common.len());
    assert!(common.iter().any(|t| *t > after[0].min(after[1])));
    for t in common {
        assert_eq!(stayed[0].hashes[&t], stayed[1].hashes[&t], "tick {t}");
    }
}
