//! A party's match natively: one page per person, each running the shell's
//! match driver with one link per other person (a full mesh of perfect
//! in-memory links), NtBA for as many people as came, on the sides the
//! party arranged (carried in the seed by the front end). Four people play
//! 2v2, three people play with a CPU in the fourth place, four people play
//! a short match (the length the challenger picked, carried in the seed);
//! every page plays to the final buzzer and they all end on the same tick
//! with the same state.

use lockstep::{DeterministicGame, Millis, PeerId, SessionConfig};
use ntba::Ntba;
use ntba_web::NtbaFrontEnd;
use web_shell::front_end::FrontEnd;
use web_shell::shell::driver::{MatchDriver, MatchEnd};
use web_shell::shell::view::MatchView;

/// The keys page `place` holds on frame `frame`: each person moves and
/// shoots in its own rhythm, so every slot sends inputs of its own.
fn held(place: usize, frame: u32) -> Vec<&'static str> {
    const KEYS: [&str; 6] = [
        "ArrowLeft",
        "ArrowUp",
        "ArrowRight",
        "ArrowDown",
        "Space",
        "KeyX",
    ];
    let beat = (frame / (20 + 7 * place as u32)) as usize;
    vec![
        KEYS[(beat + place) % KEYS.len()],
        KEYS[(beat * 3 + place) % 4],
    ]
}

struct Party {
    pages: Vec<MatchDriver<Ntba>>,
    fronts: Vec<NtbaFrontEnd>,
    views: Vec<MatchView>,
    ends: Vec<Option<MatchEnd>>,
    now: Millis,
}

impl Party {
    /// One page per entry of `sides`, place 0 hosting, at the match length
    /// of index `length` in NtBA's party rules; each names its link to
    /// place `j` `PeerId(j)`, and the host lists its links in place order,
    /// so place `j` plays slot `j`.
    fn new(sides: &[u8], length: usize) -> Party {
        let n = sides.len();
        let front = NtbaFrontEnd::new();
        let seed = front
            .party_seed(0x0051_7e5e, sides, length)
            .expect("NtBA takes the sides");
        let links = |me: usize| -> Vec<PeerId> {
            (0..n)
                .filter(|&j| j != me)
                .map(|j| PeerId(j as u16))
                .collect()
        };
        let host = SessionConfig::host(seed, 2).players(n as u8);
        let pages = (0..n)
            .map(|i| {
                let cfg = if i == 0 { host } else { SessionConfig::guest() };
                MatchDriver::with_links(cfg, Millis(0), &links(i)).unwrap()
            })
            .collect();
        let mut fronts: Vec<NtbaFrontEnd> = (0..n).map(|_| NtbaFrontEnd::new()).collect();
        for (f, side) in fronts.iter_mut().zip(sides) {
            f.start_online(*side);
        }
        Party {
            pages,
            fronts,
            views: vec![MatchView::default(); n],
            ends: (0..n).map(|_| None).collect(),
            now: Millis(0),
        }
    }

    fn carry(&mut self) {
        let n = self.pages.len();
        for i in 0..n {
            for j in (0..n).filter(|&j| j != i) {
                while let Some((ch, bytes)) = self.pages[i].poll_transmit_on(PeerId(j as u16)) {
                    self.pages[j].datagram_on(self.now, PeerId(i as u16), ch, &bytes);
                }
            }
        }
    }

    /// Frames until every page has ended (panics after `max`).
    fn play_to_the_end(&mut self, max: u32) {
        for frame in 0..max {
            self.now = self.now + Millis(16);
            for i in 0..self.pages.len() {
                let keys = held(i, frame);
                let report =
                    self.pages[i].frame(self.now, &mut self.fronts[i], &keys, &mut self.views[i]);
                if let Some(end) = report.ended {
                    assert!(self.ends[i].is_none(), "page {i} ended twice");
                    self.ends[i] = Some(end);
                }
                self.carry();
            }
            if self.ends.iter().all(Option::is_some) {
                return;
            }
        }
        let ticks: Vec<_> = self
            .pages
            .iter()
            .map(|d| {
                d.game()
                    .map(|g| (g.tick(), g.score(), g.winner(), format!("{:?}", g.clocks())))
            })
            .collect();
        panic!("not every page ended: {:?}; games {ticks:?}", self.ends);
    }

    /// Every page's final game: same tick, same hash, a winner.
    fn assert_same_end(&self, people: u8) {
        let finals: Vec<&Ntba> = self
            .pages
            .iter()
            .map(|d| d.final_game().expect("a final game"))
            .collect();
        let hash = finals[0].state_hash();
        let tick = finals[0].tick();
        for (i, g) in finals.iter().enumerate() {
            assert_eq!((g.tick(), g.state_hash()), (tick, hash), "page {i}");
            assert_eq!(g.people(), people);
        }
        assert!(finals[0].winner().is_some(), "the game reached its end");
        for (i, end) in self.ends.iter().enumerate() {
            let end = end.as_ref().unwrap();
            assert!(end.log.is_some(), "page {i} keeps its input log");
            assert!(
                !matches!(end.outcome, lockstep::Outcome::Desync { .. }),
                "page {i}: {:?}",
                end.outcome
            );
        }
    }
}

#[test]
fn four_people_play_2v2_to_the_end_in_sync() {
    // Places 0 and 3 Home, 1 and 2 Away.
    let mut p = Party::new(&[0, 1, 1, 0], 0);
    p.play_to_the_end(60_000);
    p.assert_same_end(4);
    let g = p.pages[0].final_game().unwrap();
    let players: Vec<Option<u8>> = (0..4).map(|s| g.player_of_slot(s)).collect();
    assert_eq!(players, [Some(0), Some(2), Some(3), Some(1)]);
}

#[test]
fn three_people_play_with_a_cpu_in_the_fourth_place_to_the_end_in_sync() {
    // The fourth invited person declined: Home has two people, Away one
    // and the CPU.
    let mut p = Party::new(&[0, 1, 0], 0);
    p.play_to_the_end(60_000);
    p.assert_same_end(3);
    let g = p.pages[1].final_game().unwrap();
    assert_eq!(g.pad_slot(3), None, "the CPU plays Away's second player");
}

#[test]
fn four_people_play_a_short_match_to_the_end_in_sync() {
    let mut p = Party::new(&[0, 1, 0, 1], 1);
    p.play_to_the_end(30_000);
    p.assert_same_end(4);
    for (i, d) in p.pages.iter().enumerate() {
        let g = d.final_game().unwrap();
        assert_eq!(g.length(), ntba::MatchLength::Short, "page {i}");
        // Over before a full match's first half could be.
        assert!(
            g.tick() < ntba::HALF_TICKS,
            "page {i} ended at {}",
            g.tick()
        );
    }
}
