//! Frames drawn into a recording painter: what is drawn, where, and how
//! effects come and go.

use lockstep::DeterministicGame;
use ntba::{Cpu, Event, Level, Ntba, Pad, Phase};
use ntba_web::draw::{BALL, FIGURE, POINTER, TEAMS};
use ntba_web::layout::Layout;
use ntba_web::record::{Op, Recorder};
use ntba_web::{Mode, NtbaFrontEnd};
use web_shell::front_end::FrontEnd;

const W: f64 = 640.0;
const H: f64 = 360.0;

/// A CPU-against-CPU match that the front end draws every tick.
struct Match {
    game: Ntba,
    cpus: [Cpu; 2],
    front: NtbaFrontEnd,
    canvas: Recorder,
}

impl Match {
    fn new(seed: u64) -> Match {
        let mut front = NtbaFrontEnd::new();
        front.set_mode(Mode::VsCpu(Level::Normal));
        Match {
            game: Ntba::new(seed, 2),
            cpus: [
                Cpu::with_level(seed ^ 11, Level::Hard),
                Cpu::with_level(seed ^ 22, Level::Hard),
            ],
            front,
            canvas: Recorder::new(W, H),
        }
    }

    /// One tick, without drawing.
    fn step(&mut self) {
        let pads = [
            self.cpus[0].pad(&self.game, 0),
            self.cpus[1].pad(&self.game, 1),
        ];
        self.game.step(&pads);
    }

    fn draw(&mut self) {
        self.canvas.ops.clear();
        self.front.draw(&self.game, &mut self.canvas);
    }

    /// Steps and draws until `stop` holds after a step (panics after a
    /// whole match's worth of ticks).
    fn until(&mut self, mut stop: impl FnMut(&Ntba) -> bool) {
        for _ in 0..30_000 {
            self.step();
            self.draw();
            if stop(&self.game) {
                return;
            }
        }
        panic!("condition never met");
    }

    fn alpha_of(&self, texts: &[&str]) -> Option<f64> {
        self.canvas.ops.iter().find_map(|o| match o {
            Op::Text { text, alpha, .. } if texts.contains(&text.as_str()) => Some(*alpha),
            _ => None,
        })
    }
}

fn near(a: (f64, f64), b: (f64, f64)) -> bool {
    (a.0 - b.0).abs() < 0.5 && (a.1 - b.1).abs() < 0.5
}

#[test]
fn the_controlled_players_are_marked_where_they_stand() {
    let mut m = Match::new(3);
    let l = Layout::new(W, H);
    for _ in 0..5 {
        m.until(|g| g.tick() % 97 == 0);
        let pointers: Vec<&Vec<(f64, f64)>> = m
            .canvas
            .ops
            .iter()
            .filter_map(|o| match o {
                Op::Polygon { points, colour, .. } if colour == POINTER => Some(points),
                _ => None,
            })
            .collect();
        assert_eq!(pointers.len(), 2, "one pointer per team");
        for side in 0..2u8 {
            let pl = m.game.player(m.game.controlled(side));
            let head = l.at_m(
                f64::from(pl.x) / 4096.0,
                f64::from(pl.y) / 4096.0,
                f64::from(pl.z) / 4096.0 + 2.25 * FIGURE,
            );
            assert!(
                pointers.iter().any(|pts| near(pts[2], head)),
                "tick {}: no pointer over player {} at {head:?}",
                m.game.tick(),
                m.game.controlled(side)
            );
            // And a ring on the floor around the feet, in the team's colour.
            let feet = l.floor(pl.x, pl.y);
            assert!(m.canvas.ops.iter().any(|o| matches!(o,
                Op::Arc { x, y, colour, .. } if near((*x, *y), feet) && colour == TEAMS[usize::from(side)].light)));
            // The team-mate gets neither.
            let mate = m.game.player(m.game.controlled(side) ^ 1);
            let mate_head = l.at_m(
                f64::from(mate.x) / 4096.0,
                f64::from(mate.y) / 4096.0,
                f64::from(mate.z) / 4096.0 + 2.25 * FIGURE,
            );
            assert!(!pointers.iter().any(|pts| near(pts[2], mate_head)));
        }
        // The person's pointer is labelled.
        let you = m.canvas.text_ops("YOU").count();
        assert_eq!(you, 2, "YOU on the scoreboard and over the pointer");
    }
}

#[test]
fn facing_arrows_point_the_way_players_face() {
    let mut m = Match::new(5);
    let l = Layout::new(W, H);
    m.until(|g| g.tick() == 400);
    for pl in m.game.players() {
        let (fx, fy) = pl.facing_vector();
        let tip = l.at_m(
            f64::from(pl.x) / 4096.0 + f64::from(fx) / 256.0 * 0.85,
            f64::from(pl.y) / 4096.0 + f64::from(fy) / 256.0 * 0.85,
            0.0,
        );
        let light = TEAMS[usize::from(pl.side)].light;
        assert!(
            m.canvas.ops.iter().any(|o| matches!(o,
                Op::Polygon { points, colour, .. } if colour == light && near(points[0], tip))),
            "no facing arrow for player {}{}",
            pl.side,
            pl.slot
        );
    }
}

#[test]
fn the_scoreboard_shows_score_clocks_and_period() {
    let mut m = Match::new(9);
    m.until(|g| g.score()[0] + g.score()[1] >= 5 && g.clocks().shot_clock.is_some());
    let c = m.game.clocks();
    let score = m.game.score();
    let band = Layout::new(W, H).band_bottom();
    let in_band = |s: &str| {
        m.canvas
            .text_ops(s)
            .any(|o| matches!(o, Op::Text { y, .. } if *y <= band))
    };
    assert!(in_band(&score[0].to_string()), "home score {score:?}");
    assert!(in_band(&score[1].to_string()), "away score {score:?}");
    let (mins, secs) = c.game_clock_min_sec();
    assert!(in_band(&format!("{mins}:{secs:02}")));
    assert!(in_band(&c.shot_clock_seconds().unwrap().to_string()));
    assert!(in_band(if c.period == 0 {
        "1ST HALF"
    } else {
        "2ND HALF"
    }));
    assert!(in_band("HOME") && in_band("AWAY") && in_band("CPU · NORMAL"));
    // The home score is left of the clock, the away score right of it.
    let x_of = |s: &str| {
        m.canvas
            .text_ops(s)
            .find_map(|o| match o {
                Op::Text { x, y, .. } if *y <= band => Some(*x),
                _ => None,
            })
            .unwrap()
    };
    assert!(x_of("HOME") < W / 2.0 && x_of("AWAY") > W / 2.0);
    // Exactly one possession dot, on the side that has the ball.
    let dots: Vec<f64> = m
        .canvas
        .ops
        .iter()
        .filter_map(|o| match o {
            Op::Ellipse { x, y, colour, .. } if colour == BALL && *y < band => Some(*x),
            _ => None,
        })
        .collect();
    assert_eq!(dots.len(), 1);
    assert_eq!(dots[0] < W / 2.0, m.game.possession() == Some(0));
}

#[test]
fn the_match_opens_with_a_first_half_banner() {
    let mut m = Match::new(1);
    // Under the court, over the help band: the players at the tip-off
    // stand around the centre, and the banner must not hide them.
    let help_top = Layout::new(W, H).help_top();
    let banner = |c: &Recorder| {
        c.text_ops("1ST HALF")
            .filter(|o| matches!(o, Op::Text { y, alpha, .. } if *y > help_top && *alpha > 0.0))
            .count()
    };
    m.step();
    m.draw();
    assert_eq!(banner(&m.canvas), 1);
    m.until(|g| g.tick() == 80);
    assert_eq!(banner(&m.canvas), 0, "gone after 70 ticks");
}

#[test]
fn the_shot_clock_turns_red_in_its_last_five_seconds() {
    let mut m = Match::new(2);
    m.until(|g| matches!(g.clocks().shot_clock_seconds(), Some(s) if s <= 5));
    let s = m.game.clocks().shot_clock_seconds().unwrap().to_string();
    let band = Layout::new(W, H).band_bottom();
    assert!(m.canvas.text_ops(&s).any(|o| matches!(o,
        Op::Text { colour, y, .. } if colour == "#ef476f" && *y <= band)));
}

#[test]
fn the_ball_and_its_shadow_are_drawn_where_the_ball_is() {
    let mut m = Match::new(4);
    let l = Layout::new(W, H);
    let mut checked = 0;
    for _ in 0..600 {
        m.step();
        m.draw();
        let b = m.game.ball();
        if b.state == ntba::BallState::Dead {
            continue;
        }
        let at = l.at(b.x, b.y, b.z);
        assert!(m.canvas.ops.iter().any(|o| matches!(o,
            Op::Ellipse { x, y, colour, .. } if colour == BALL && near((*x, *y), at))));
        let floor = l.floor(b.x, b.y);
        assert!(m.canvas.ops.iter().any(|o| matches!(o,
            Op::Ellipse { x, y, colour, .. } if colour.starts_with("rgba(0,0,0") && near((*x, *y), floor))));
        checked += 1;
    }
    assert!(checked > 400);
}

const SCORE_TEXTS: [&str; 3] = ["+2", "+3", "DUNK!"];

#[test]
fn a_score_effect_appears_after_a_basket_and_fades() {
    let mut m = Match::new(6);
    assert_eq!(m.alpha_of(&SCORE_TEXTS), None);
    m.until(|g| g.events().iter().any(|e| matches!(e, Event::Score { .. })));
    let Some(&Event::Score { side, points, .. }) = m
        .game
        .events()
        .iter()
        .find(|e| matches!(e, Event::Score { .. }))
    else {
        unreachable!()
    };
    let born = m.game.tick();
    assert_eq!(m.alpha_of(&SCORE_TEXTS), Some(1.0));
    // With its sound, once.
    use ntba_web::sound::Cue;
    let cues = m.front.effects().cues().to_vec();
    assert!(
        cues.iter()
            .any(|c| matches!(c, Cue::Basket | Cue::Three | Cue::Dunk)),
        "{cues:?}"
    );
    m.draw();
    assert!(
        m.front.effects().cues().is_empty(),
        "not again for the same tick"
    );
    let shown: Vec<&str> = m
        .canvas
        .texts()
        .filter(|t| SCORE_TEXTS.contains(t))
        .collect();
    assert!(shown.contains(&"DUNK!") || shown.contains(&if points == 3 { "+3" } else { "+2" }));
    // In the scoring team's light colour, above the hoop it attacks in this
    // period.
    let (hx, _) = m.game.attacked_hoop(side);
    let l = Layout::new(W, H);
    assert!(m.canvas.ops.iter().any(|o| matches!(o,
        Op::Text { text, colour, x, .. } if SCORE_TEXTS.contains(&text.as_str())
            && colour == TEAMS[usize::from(side)].light
            && (x - l.floor(hx, 0).0).abs() < 1.0)));
    let mut last = 1.0;
    let mut faded = false;
    while m.game.tick() < born + 79 {
        m.step();
        m.draw();
        let a = m.alpha_of(&SCORE_TEXTS).expect("still shown");
        assert!(a <= last + 1e-9, "never brightens again");
        faded |= a < 1.0;
        last = a;
    }
    assert!(faded && last < 0.1, "faded to {last}");
    m.step();
    m.draw();
    assert_eq!(m.alpha_of(&SCORE_TEXTS), None, "gone after 80 ticks");
}

#[test]
fn a_basket_between_two_draws_still_shows() {
    let mut m = Match::new(8);
    // Step without drawing across a basket (as after a stalled frame).
    m.draw();
    let before = m.game.score();
    while m.game.score() == before {
        m.step();
    }
    for _ in 0..3 {
        m.step();
    }
    m.draw();
    assert_eq!(m.alpha_of(&SCORE_TEXTS), Some(1.0));
    // Drawing the same tick again adds nothing.
    let n = m.front.effects().list().len();
    m.draw();
    assert_eq!(m.front.effects().list().len(), n);
}

#[test]
fn steals_and_blocks_have_their_effects() {
    let mut m = Match::new(12);
    m.until(|g| g.events().iter().any(|e| matches!(e, Event::Steal { .. })));
    assert!(m.canvas.shows("STEAL!"));
    let mut m = Match::new(12);
    m.until(|g| g.events().iter().any(|e| matches!(e, Event::Block { .. })));
    assert!(m.canvas.shows("BLOCKED!"));
}

#[test]
fn half_time_and_the_end_screen() {
    let mut m = Match::new(10);
    m.until(|g| g.clocks().phase == Phase::Break);
    assert!(m.canvas.shows("HALF TIME"));
    assert!(
        m.front
            .effects()
            .cues()
            .contains(&ntba_web::sound::Cue::Buzzer),
        "the buzzer sounds as the half ends"
    );
    // The second half is announced across the court when play resumes.
    let band = Layout::new(W, H).band_bottom();
    let announced = |c: &Recorder| {
        c.text_ops("2ND HALF")
            .any(|o| matches!(o, Op::Text { y, alpha, .. } if *y > band && *alpha > 0.0))
    };
    assert!(!announced(&m.canvas));
    m.until(|g| g.clocks().phase != Phase::Break);
    assert!(announced(&m.canvas));
    m.until(Ntba::is_over);
    let score = m.game.score();
    let w = m.game.winner().unwrap();
    assert!(m.canvas.shows("FINAL"));
    assert!(m
        .canvas
        .shows(&format!("{} WINS!", TEAMS[usize::from(w)].name)));
    assert!(m.canvas.shows(&format!("{} – {}", score[0], score[1])));
    let stats = m.game.stats();
    assert!(m
        .canvas
        .shows(&format!("{}/{}", stats[0].made, stats[0].shots)));
    assert!(m.canvas.shows("Field goals") && m.canvas.shows("Turnovers"));
}

#[test]
fn every_frame_of_a_match_is_finite_and_on_the_canvas() {
    for seed in [1, 77] {
        let mut m = Match::new(seed);
        m.until(Ntba::is_over);
        let mut m2 = Match::new(seed);
        for _ in 0..m.game.tick() {
            m2.step();
            m2.draw();
            for op in &m2.canvas.ops {
                let nums: Vec<f64> = match op {
                    Op::Clear(_) => vec![],
                    Op::Rect {
                        x, y, w, h, alpha, ..
                    } => vec![*x, *y, *w, *h, *alpha],
                    Op::Ellipse {
                        x,
                        y,
                        rx,
                        ry,
                        alpha,
                        ..
                    } => vec![*x, *y, *rx, *ry, *alpha],
                    Op::Line {
                        from,
                        to,
                        width,
                        alpha,
                        ..
                    } => {
                        vec![from.0, from.1, to.0, to.1, *width, *alpha]
                    }
                    Op::Arc {
                        x,
                        y,
                        rx,
                        ry,
                        alpha,
                        ..
                    } => vec![*x, *y, *rx, *ry, *alpha],
                    Op::Polygon { points, alpha, .. } => points
                        .iter()
                        .flat_map(|p| [p.0, p.1])
                        .chain([*alpha])
                        .collect(),
                    Op::Text {
                        x,
                        y,
                        size,
                        alpha,
                        text,
                        ..
                    } => {
                        assert!(
                            *x >= 0.0 && *x <= W && *y >= 0.0 && *y <= H,
                            "{text} at {x},{y}"
                        );
                        vec![*x, *y, *size, *alpha]
                    }
                };
                assert!(nums.iter().all(|v| v.is_finite()), "{op:?}");
            }
        }
        assert!(m2.game.is_over());
    }
}

#[test]
fn local_play_against_the_cpu_and_on_one_keyboard() {
    let mut front = NtbaFrontEnd::new();
    assert_eq!(front.mode(), Mode::VsCpu(Level::Normal));
    // The choices offered, and what they select.
    let opts = front.local_options();
    assert_eq!(opts.len(), 2);
    front.start_local(&[1]);
    assert_eq!(front.mode(), Mode::TwoPlayers);
    front.start_local(&[0, 2]);
    assert_eq!(front.mode(), Mode::VsCpu(Level::Hard));
    front.start_local(&[]);
    assert_eq!(front.mode(), Mode::VsCpu(Level::Normal));

    // Against the CPU: the person plays Home with either key set, the CPU
    // moves Away.
    let mut game = Ntba::new(21, 2);
    let mut away_moved = false;
    for _ in 0..300 {
        let pads = front.local_inputs(&game, &["KeyD", "ShiftLeft"]);
        assert_eq!(pads.len(), 2);
        assert_eq!(pads[0], Pad(Pad::RIGHT | Pad::TURBO));
        away_moved |= pads[1] != Pad::NONE;
        game.step(&pads);
    }
    assert!(away_moved, "the CPU plays Away");

    // A friend joins mid-match with 2 (the CPU's level is kept for later),
    // and 1 gives Away back to the CPU.
    front.start_local(&[0, 1]);
    let _ = front.local_inputs(&game, &[]);
    let pads = front.local_inputs(&game, &["Digit2", "ArrowUp", "KeyD"]);
    assert_eq!(front.mode(), Mode::TwoPlayers);
    assert_eq!(pads, vec![Pad(Pad::RIGHT), Pad(Pad::UP)]);
    let _ = front.local_inputs(&game, &["Numpad1"]);
    assert_eq!(front.mode(), Mode::VsCpu(Level::Easy));

    // Two people: each half of the keyboard drives one team.
    front.start_local(&[1]);
    let pads = front.local_inputs(&game, &["KeyW", "KeyF", "ArrowLeft", "Comma"]);
    assert_eq!(
        pads,
        vec![Pad(Pad::UP | Pad::SHOOT), Pad(Pad::LEFT | Pad::ACTION)]
    );
    let mut canvas = Recorder::new(W, H);
    front.draw(&game, &mut canvas);
    assert!(canvas.shows("P1") && canvas.shows("P2"));
    assert!(canvas.texts().any(|t| t.starts_with("HOME  WASD")));
    assert!(canvas.texts().any(|t| t.starts_with("AWAY  arrows")));
    assert!(canvas.texts().any(|t| t.contains("1: the CPU takes Away")));

    // 0 toggles sound on the press (holding it does not flip it back).
    assert!(!front.muted());
    let _ = front.local_inputs(&game, &["Digit0"]);
    let _ = front.local_inputs(&game, &["Digit0"]);
    assert!(front.muted());
    let _ = front.local_inputs(&game, &[]);
    let _ = front.local_inputs(&game, &["Numpad0"]);
    assert!(!front.muted());

    // Online: either key set, and the page's side is marked once known.
    assert_eq!(
        front.online_input(&["ArrowUp", "Space"]),
        Pad(Pad::UP | Pad::SHOOT)
    );
    assert_eq!(front.mode(), Mode::Online(None));
    front.start_online(1);
    assert_eq!(front.mode(), Mode::Online(Some(1)));
    // The per-frame input keeps the side.
    let _ = front.online_input(&[]);
    assert_eq!(front.mode(), Mode::Online(Some(1)));
    let mut canvas = Recorder::new(W, H);
    front.draw(&game, &mut canvas);
    assert_eq!(canvas.text_ops("YOU").count(), 2);
    assert!(!canvas.texts().any(|t| t.starts_with("CPU")));
    assert_eq!(front.build_id(), ntba::GOLDEN_HASH);
    assert_eq!(front.name(), "NtBA");

    // A replay after it: nobody here plays, whatever the last mode was.
    front.start_replay();
    assert_eq!(front.mode(), Mode::Replay);
    let mut canvas = Recorder::new(W, H);
    front.draw(&game, &mut canvas);
    assert_eq!(canvas.text_ops("YOU").count(), 0);
    assert!(!canvas.texts().any(|t| t.starts_with("CPU")));
    assert!(canvas.texts().any(|t| t.starts_with("A recorded match")));
}

#[test]
fn letting_go_when_the_shot_meter_is_full_is_a_perfect_release() {
    use ntba_web::draw::METER_PERFECT;
    let mut front = NtbaFrontEnd::new();
    front.start_local(&[]);
    let mut game = Ntba::new(3, 2);
    let mut canvas = Recorder::new(W, H);
    let mut step = |game: &mut Ntba, canvas: &mut Recorder, held: &[&str]| {
        let pads = front.local_inputs(game, held);
        game.step(&pads);
        canvas.ops.clear();
        front.draw(game, canvas);
    };
    // Wait (pressing nothing) until the person's player has the ball.
    while !game.player(game.controlled(0)).has_ball {
        step(&mut game, &mut canvas, &[]);
        assert!(game.tick() < 3000, "Home never got the ball");
    }
    let meter_full = |c: &Recorder| {
        let back = c.ops.iter().find_map(|o| match o {
            Op::Rect { h, colour, .. } if colour == "#111318" => Some(*h),
            _ => None,
        });
        back.is_some_and(|bh| {
            c.ops.iter().any(|o| matches!(o,
                Op::Rect { h, colour, .. } if colour == METER_PERFECT && (*h - (bh - 2.0)).abs() < 1e-6))
        })
    };
    // Hold shoot (Space) until the meter is full, then let go.
    let mut held_for = 0;
    loop {
        step(&mut game, &mut canvas, &["Space"]);
        held_for += 1;
        assert!(held_for < 40, "the meter never filled");
        if meter_full(&canvas) {
            break;
        }
    }
    step(&mut game, &mut canvas, &[]);
    let release = game.events().iter().find_map(|e| match e {
        Event::Shot { release, dunk, .. } => Some((*release, *dunk)),
        _ => None,
    });
    let (release, dunk) = release.expect("the shot went up on letting go");
    assert_eq!(release, ntba::JUMP_APEX, "held for {held_for} ticks");
    if !dunk {
        assert!(canvas.shows("PERFECT"));
    }
}

/// The scoreboard's attack arrows: (x of the tip, whether it points right)
/// per polygon drawn in the band in `side`'s light colour.
fn attack_arrows(c: &Recorder, side: usize) -> Vec<(f64, bool)> {
    let band = Layout::new(W, H).band_bottom();
    c.ops
        .iter()
        .filter_map(|o| match o {
            Op::Polygon { points, colour, .. }
                if colour == TEAMS[side].light && points.iter().all(|p| p.1 < band) =>
            {
                Some((points[0].0, points[0].0 > points[1].0))
            }
            _ => None,
        })
        .collect()
}

/// The colour of the paint (the key) at the left end of the court.
fn left_paint(c: &Recorder) -> String {
    let l = Layout::new(W, H);
    let (x0, _) = l.at_m(0.0, 7.0, 0.0);
    c.ops
        .iter()
        .find_map(|o| match o {
            Op::Rect {
                x, colour, alpha, ..
            } if (*x - x0).abs() < 0.5
                && (*alpha - 0.5).abs() < 1e-9
                && TEAMS.iter().any(|t| t.main == colour) =>
            {
                Some(colour.clone())
            }
            _ => None,
        })
        .expect("the left paint is drawn")
}

#[test]
fn the_picture_follows_the_change_of_ends_at_half_time() {
    let mut m = Match::new(10);
    m.draw();
    // First half: Home (left of the clock) attacks right, Away left; Home
    // defends the left hoop, so the left paint is red.
    let home = attack_arrows(&m.canvas, 0);
    let away = attack_arrows(&m.canvas, 1);
    assert_eq!(home.len(), 1, "one arrow per team: {home:?}");
    assert_eq!(away.len(), 1, "one arrow per team: {away:?}");
    assert!(home[0].0 < W / 2.0 && away[0].0 > W / 2.0);
    assert!(home[0].1 && !away[0].1, "first half: Home right, Away left");
    assert_eq!(left_paint(&m.canvas), TEAMS[0].main);
    // Half time says the teams change ends; the arrows still show the
    // first half's ends.
    m.until(|g| g.clocks().phase == Phase::Break);
    assert!(m.canvas.ops.iter().any(|o| matches!(o,
        Op::Text { text, alpha, .. } if text.contains(ntba_web::draw::HALF_TIME_SWAP) && *alpha > 0.0)));
    assert!(attack_arrows(&m.canvas, 0)[0].1);
    // Second half: the arrows and the paint turn round with the game.
    m.until(|g| g.clocks().phase != Phase::Break);
    assert!(!m.game.attacks_right(0));
    assert!(!attack_arrows(&m.canvas, 0)[0].1, "second half: Home left");
    assert!(attack_arrows(&m.canvas, 1)[0].1, "second half: Away right");
    assert_eq!(left_paint(&m.canvas), TEAMS[1].main);
    // And a second-half basket pops up over the hoop its team attacks now.
    m.until(|g| g.events().iter().any(|e| matches!(e, Event::Score { .. })));
    let side = m
        .game
        .events()
        .iter()
        .find_map(|e| match e {
            Event::Score { side, .. } => Some(*side),
            _ => None,
        })
        .expect("a score event");
    let (hx, _) = m.game.attacked_hoop(side);
    assert_eq!(hx > ntba::COURT_LENGTH / 2, side == 1, "second half ends");
    let l = Layout::new(W, H);
    assert!(m.canvas.ops.iter().any(|o| matches!(o,
        Op::Text { text, x, .. } if ["+2", "+3", "DUNK!"].contains(&text.as_str())
            && (x - l.floor(hx, 0).0).abs() < 1.0)));
}

#[test]
fn a_spectator_sees_nobody_marked_as_itself_and_no_local_play_tips() {
    let game = Ntba::new(11, 2);
    let mut front = NtbaFrontEnd::default();
    // The page played against the CPU before it went to watch.
    front.start_local(&[0]);
    let mut canvas = Recorder::new(W, H);
    front.draw(&game, &mut canvas);
    assert!(canvas.shows("YOU") && canvas.texts().any(|t| t.starts_with("CPU")));

    front.start_watching();
    assert_eq!(front.mode(), Mode::Watching);
    let mut canvas = Recorder::new(W, H);
    front.draw(&game, &mut canvas);
    assert!(!canvas.shows("YOU"), "a spectator plays nobody");
    assert!(!canvas.texts().any(|t| t.starts_with("CPU")));
    assert!(!canvas.texts().any(|t| t.contains("A friend wants to play")));
    assert!(canvas.texts().any(|t| t.starts_with("Watching live")));
}
