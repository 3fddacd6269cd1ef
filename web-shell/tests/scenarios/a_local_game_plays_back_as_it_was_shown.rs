//! A local game watched again: every tick the replay shows (by seeking,
//! by playing at any speed) is drawn exactly as the live game drew that
//! tick; files that are not this build's recordings are refused on the
//! title screen with a message, and the shell stays where it was.

use lockstep::{DeterministicGame, InputLog, Millis};
use std::collections::BTreeMap;
use web_shell::front_end::Painter;
use web_shell::replay::Refusal;
use web_shell::screens::Screen;
use web_shell::shell::{Action, Input, Output, Shell};
use web_shell::testing::TestDots;

use crate::common;
use common::rng::Rng;

/// Records what a frame drew.
#[derive(Default)]
struct Recorder(Vec<String>);

impl Painter for Recorder {
    fn size(&self) -> (f64, f64) {
        (320.0, 180.0)
    }
    fn clear(&mut self, c: &str) {
        self.0.push(format!("clear {c}"));
    }
    fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, c: &str) {
        self.0.push(format!("rect {x} {y} {w} {h} {c}"));
    }
    fn circle(&mut self, x: f64, y: f64, r: f64, c: &str) {
        self.0.push(format!("circle {x} {y} {r} {c}"));
    }
    fn text(&mut self, x: f64, y: f64, t: &str, c: &str) {
        self.0.push(format!("text {x} {y} {t} {c}"));
    }
}

struct Page {
    shell: Shell,
    clock: f64,
    /// What each paint drew, by the tick it names ("tick N").
    drawn: BTreeMap<u32, Vec<String>>,
}

impl Page {
    fn new() -> Page {
        let mut p = Page {
            shell: common::shell("", 0x5EED_0015),
            clock: 0.0,
            drawn: BTreeMap::new(),
        };
        p.drain();
        p
    }

    /// Feeds one input, then carries out the outputs: paints into a fresh
    /// recorder each time and files the drawing under its tick.
    fn feed(&mut self, input: Input) {
        self.shell.handle(Millis(self.clock as u64), input);
        self.drain();
    }

    fn drain(&mut self) {
        while let Some(out) = self.shell.poll_output() {
            if out == Output::Paint {
                let mut r = Recorder::default();
                self.shell.paint(&mut r);
                let tick =
                    r.0.iter()
                        .find_map(|l| l.split("text ").nth(1)?.split("tick ").nth(1))
                        .and_then(|t| t.split(' ').next()?.parse().ok())
                        .expect("the test game names the tick it draws");
                self.drawn.insert(tick, r.0);
            }
        }
    }

    /// One 60 Hz frame.
    fn frame(&mut self) {
        self.clock += 1000.0 / 60.0;
        let clock = self.clock;
        self.feed(Input::Frame { clock });
    }

    fn act(&mut self, a: Action) {
        self.feed(Input::Action(a));
    }

    fn control(&mut self, control: &str, value: &str) {
        self.act(Action::Replay {
            control: control.into(),
            value: value.into(),
        });
    }

    fn shown_tick(&self) -> u32 {
        self.shell.replay_view().expect("a replay is shown").tick
    }
}

#[test]
fn a_local_game_plays_back_as_it_was_shown() {
    let mut page = Page::new();
    page.act(Action::ChooseLocal(vec![0]));
    assert_eq!(page.shell.screen_view().screen, Screen::LocalPlay);
    // 900 ticks of two people pressing keys, changing every few ticks.
    let keys = [
        "ArrowLeft",
        "ArrowRight",
        "ArrowUp",
        "ArrowDown",
        "KeyA",
        "KeyD",
        "KeyW",
        "KeyS",
    ];
    let mut rng = Rng(0xD075);
    for _ in 0..900 {
        if rng.below(6) == 0 {
            let code = (*rng.pick(&keys)).to_owned();
            let down = rng.below(2) == 0;
            page.feed(Input::Key {
                code,
                down,
                typing: false,
            });
        }
        page.frame();
    }
    let live = std::mem::take(&mut page.drawn);
    let last = *live.keys().last().unwrap();
    assert!(last >= 899, "the local game ran ({last} ticks)");
    assert!(page.shell.screen_view().replay_ready);

    // Watch it: paused at the start, showing tick 0 (the live game drew
    // from tick 1, after its first step).
    page.act(Action::WatchReplay);
    assert!(matches!(
        page.shell.screen_view().screen,
        Screen::Replay { .. }
    ));
    let v = page.shell.replay_view().unwrap();
    assert_eq!((v.tick, v.ticks, v.playing), (0, last, false));
    assert!(page.drawn.contains_key(&0));

    // Seek anywhere, in any order: the drawing of that tick.
    for t in [450, 3, 899.min(last), 300, 299, 601, 1, last] {
        page.control("replay-seek", &t.to_string());
        assert_eq!(page.shown_tick(), t);
        assert_eq!(page.drawn[&t], live[&t], "tick {t} drawn as it was live");
    }

    // Play at 8x from 100: eight ticks a frame, each as it was drawn.
    page.control("replay-seek", "100");
    page.control("replay-speed", "5");
    page.control("replay-play", "");
    page.drawn.clear();
    for _ in 0..10 {
        page.frame();
    }
    assert_eq!(page.shown_tick(), 180);
    assert_eq!(
        page.drawn.keys().copied().collect::<Vec<_>>(),
        (1..=10).map(|i| 100 + 8 * i).collect::<Vec<_>>()
    );
    for (t, d) in &page.drawn {
        assert_eq!(d, &live[t]);
    }
    // Pause holds it; 0.25x then moves a tick every fourth frame.
    page.control("replay-play", "");
    page.frame();
    assert_eq!(page.shown_tick(), 180);
    page.control("replay-speed", "0");
    page.control("replay-play", "");
    for _ in 0..8 {
        page.frame();
    }
    assert_eq!(page.shown_tick(), 182);
    // A control the page does not have, or a value that is not a number,
    // changes nothing.
    page.control("replay-seek", "ten");
    page.control("replay-rewind", "5");
    assert_eq!(page.shown_tick(), 182);

    // Back: the local game ended, so the title.
    page.act(Action::Back);
    assert!(matches!(
        page.shell.screen_view().screen,
        Screen::Title { .. }
    ));
    assert!(page.shell.replay_view().is_none());
}

fn dots_log(build: u64, ticks: u32) -> Vec<u8> {
    let mut g = TestDots::new(7, 2);
    let mut inputs = Vec::new();
    for t in 0..ticks {
        let i = [(t % 16) as u8, (t / 7 % 16) as u8];
        g.step(&i);
        inputs.extend(i);
    }
    InputLog {
        build,
        seed: 7,
        players: 2,
        input_delay: 2,
        final_hash: g.state_hash(),
        start_tick: 0,
        start_state: Vec::new(),
        inputs,
    }
    .to_bytes()
    .unwrap()
}

#[test]
fn files_that_are_not_this_builds_recordings_are_refused_with_a_message() {
    let mut page = Page::new();
    let good = dots_log(TestDots::BUILD_ID, 200);
    let cases: [(Result<Vec<u8>, Refusal>, &str); 5] = [
        (
            Ok(dots_log(TestDots::BUILD_ID ^ 1, 200)),
            "recorded with another version of Test dots",
        ),
        (Ok(good[..good.len() / 2].to_vec()), "damaged or incomplete"),
        (
            Ok(b"PK\x03\x04 a zip file".to_vec()),
            "not a Test dots replay",
        ),
        (Err(Refusal::TooLarge), "too large"),
        (Err(Refusal::Unreadable), "could not be read"),
    ];
    for (file, words) in cases {
        page.feed(Input::ReplayFile(file));
        let v = page.shell.screen_view();
        assert!(matches!(v.screen, Screen::Title { .. }), "{words}");
        let msg = v.replay_error.unwrap_or_default();
        assert!(msg.contains(words), "{msg:?} should say {words:?}");
        assert!(page.shell.replay_view().is_none());
    }
    // A good file opens, and clears the message.
    page.feed(Input::ReplayFile(Ok(good)));
    let v = page.shell.screen_view();
    assert!(matches!(v.screen, Screen::Replay { .. }));
    assert_eq!(v.replay_error, None);
    assert_eq!(page.shell.replay_view().unwrap().ticks, 200);
    // Files only open from the title screen.
    page.feed(Input::ReplayFile(Ok(dots_log(TestDots::BUILD_ID, 50))));
    assert_eq!(page.shell.replay_view().unwrap().ticks, 200);
}
