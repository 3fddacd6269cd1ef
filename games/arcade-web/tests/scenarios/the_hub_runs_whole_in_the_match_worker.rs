//! The arcade page runs its online matches in the match worker, the whole
//! hub with them: two workers, each holding a hub, play a match of two
//! from the page's messages alone (start, datagrams, keys held), switch
//! from the arena (its host running in the worker itself) to dots, and
//! tell their pages that the match can be watched only while dots (a
//! lock-step game, which streams to spectators) plays, naming it.
use crate::common;

use lockstep::{Millis, SessionConfig};
use web_shell::shell::view::MatchView;
use web_shell::shell::worker::{decode, encode, FromWorker, MatchWorker, ToWorker};
use web_shell::shell::GameSlot;

/// One worker and what its page has seen of it.
struct Side {
    worker: MatchWorker,
    view: MatchView,
    started: Option<bool>,
    /// The last thing the worker said about watching: whether the match
    /// can be watched, and the game it plays.
    watchable: (bool, Option<u32>),
}

impl Side {
    fn new(seed: u64) -> Side {
        let (hub, _, _) = common::hub(seed);
        assert!(hub.match_in_worker(), "the page hands the hub to a worker");
        Side {
            worker: MatchWorker::new(Some(Box::new(hub))),
            view: MatchView::default(),
            started: None,
            watchable: (false, None),
        }
    }

    fn post(&mut self, now: Millis, msgs: &[ToWorker]) {
        let bytes = encode(msgs).expect("encodes");
        assert!(!self.worker.handle_bytes(now, &bytes));
    }

    /// What the worker posted: its datagrams for the other side.
    fn read(&mut self) -> Vec<ToWorker> {
        let mut datagrams = Vec::new();
        while let Some(bytes) = self.worker.poll() {
            for m in decode::<FromWorker>(&bytes).expect("the worker's posts decode") {
                match m {
                    FromWorker::Send {
                        link: None,
                        reliable,
                        bytes,
                    } => datagrams.push(ToWorker::Datagram {
                        link: None,
                        reliable,
                        bytes,
                    }),
                    FromWorker::Started(ok) => self.started = Some(ok),
                    FromWorker::Frame { view, .. } => view.apply(&mut self.view),
                    FromWorker::Watchable { watchable, game } => {
                        self.watchable = (watchable, game);
                    }
                    _ => {}
                }
            }
        }
        datagrams
    }
}

fn run(a: &mut Side, b: &mut Side, now: &mut Millis, ms: u64) {
    for _ in 0..ms {
        *now = Millis(now.0 + 1);
        a.worker.tick(*now);
        b.worker.tick(*now);
        let to_b = a.read();
        let to_a = b.read();
        if !to_b.is_empty() {
            b.post(*now, &to_b);
        }
        if !to_a.is_empty() {
            a.post(*now, &to_a);
        }
    }
}

fn hold(side: &mut Side, now: Millis, keys: &[&str]) {
    side.post(
        now,
        &[ToWorker::Input {
            held: keys.iter().map(|k| (*k).to_owned()).collect(),
            path: Some("direct".to_owned()),
        }],
    );
}

#[test]
fn two_workers_play_the_hub_from_the_arena_to_dots() {
    let (mut host, mut guest) = (Side::new(1), Side::new(2));
    let mut now = Millis(0);
    let start = |cfg| ToWorker::Start {
        cfg,
        links: Vec::new(),
    };
    host.post(now, &[start(SessionConfig::host(77, 6))]);
    guest.post(now, &[start(SessionConfig::guest())]);
    run(&mut host, &mut guest, &mut now, 1_000);
    assert_eq!((host.started, guest.started), (Some(true), Some(true)));
    for s in [&host, &guest] {
        assert_eq!(s.view.state, Some("running"));
        let summary = s.view.summary.as_deref().unwrap_or_default();
        assert!(summary.contains("Amber"), "the arena runs: {summary}");
        assert_eq!(s.watchable, (false, Some(0)), "the arena streams to nobody");
    }

    // Both press 3 (dots) and let go.
    hold(&mut host, now, &["Digit3"]);
    hold(&mut guest, now, &["Digit3"]);
    run(&mut host, &mut guest, &mut now, 100);
    hold(&mut host, now, &[]);
    hold(&mut guest, now, &[]);
    run(&mut host, &mut guest, &mut now, 1_500);
    for s in [&host, &guest] {
        let summary = s.view.summary.as_deref().unwrap_or_default();
        assert!(summary.contains("coin"), "dots runs: {summary}");
        assert!(s.view.tick > Some(30), "dots ticks: {:?}", s.view.tick);
    }
    for s in [&host, &guest] {
        assert_eq!(s.watchable, (true, Some(2)), "dots can be watched");
    }
}

// The page's slot over the hub (what the page's shell talks to) offers the
// hub's parties, each game under its own name.
#[test]
fn the_page_slot_over_the_hub_offers_every_games_parties() {
    let (hub, _, _) = common::hub(1);
    let want: Vec<&str> = hub.party_games().iter().map(|g| g.name).collect();
    let page = web_shell::shell::worker::WorkerSlot::new(Box::new(hub), Box::new(|| None));
    let got: Vec<&str> = page.party_games().iter().map(|g| g.name).collect();
    assert_eq!(got, want);
    assert_eq!(got, ["Arena", "Battleship", "Dots"]);
}
