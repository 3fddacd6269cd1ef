//! What a player presses becomes the input byte the session sends, and
//! the picture shows every dot, the coin and the scores.

use dots::{Dots, DOWN, LEFT, RIGHT, UP};
use dots_web::{towards, DotsFrontEnd};
use lockstep::DeterministicGame;
use web_shell::front_end::{FrontEnd, Painter};

#[test]
fn online_either_set_of_keys_gives_the_direction_bits() {
    let mut fe = DotsFrontEnd::new();
    assert_eq!(fe.online_input(&["ArrowRight", "KeyS"]), RIGHT | DOWN);
    assert_eq!(fe.online_input(&["KeyA", "KeyW"]), LEFT | UP);
    assert_eq!(fe.online_input(&["Space", "KeyQ"]), 0);
    assert!(fe.is_game_key("ArrowUp") && fe.is_game_key("KeyD"));
    assert!(!fe.is_game_key("Space") && !fe.is_game_key("Slash"));
}

#[test]
fn the_cpu_goes_the_short_way_round_the_wrapping_grid() {
    // From column 1 to column 30 is 3 steps left across the edge, not 29
    // right; from row 2 to row 5 is 3 down.
    assert_eq!(towards((1, 2), (30, 5)), LEFT | DOWN);
    assert_eq!(towards((30, 5), (1, 2)), RIGHT | UP);
    assert_eq!(towards((7, 7), (7, 7)), 0);
}

#[derive(Default)]
struct Recorder {
    circles: Vec<String>,
    texts: Vec<String>,
}

impl Painter for Recorder {
    fn size(&self) -> (f64, f64) {
        (640.0, 400.0)
    }
    fn clear(&mut self, _: &str) {}
    fn rect(&mut self, _: f64, _: f64, _: f64, _: f64, _: &str) {}
    fn circle(&mut self, _: f64, _: f64, _: f64, c: &str) {
        self.circles.push(c.to_owned());
    }
    fn line(&mut self, _: f64, _: f64, _: f64, _: f64, _: f64, _: &str) {}
    fn text(&mut self, _: f64, _: f64, t: &str, _: &str) {
        self.texts.push(t.to_owned());
    }
}

#[test]
fn the_picture_has_the_coin_every_dot_and_the_scores() {
    let mut fe = DotsFrontEnd::new();
    let mut game = Dots::new(3, 3);
    // Steer dot 0 to the coin so a score shows.
    while game.players()[0].score == 0 {
        let d = game.players()[0];
        game.step(&[towards((d.x, d.y), game.coin()), 0, 0]);
    }
    let mut r = Recorder::default();
    fe.draw(&game, &mut r);
    assert_eq!(r.circles.len(), 1 + 3, "the coin and three dots");
    assert_eq!(r.texts, ["Orange 1", "Teal 0", "Red 0"]);
    assert_eq!(fe.side_name(2), "Red");
    assert_eq!(fe.build_id(), Dots::BUILD_ID);
}

#[test]
fn the_summary_names_every_cell_and_reads_back() {
    let fe = DotsFrontEnd::new();
    let game = Dots::new(9, 2);
    let summary = fe.summary(&game).unwrap();
    let (coin_x, coin_y) = game.coin();
    for side in 0..2u8 {
        let d = game.players()[usize::from(side)];
        assert_eq!(
            dots_web::cells_in_summary(&summary, side),
            Some(((d.x, d.y), (coin_x, coin_y))),
            "{summary}"
        );
    }
    assert_eq!(dots_web::cells_in_summary(&summary, 5), None);
    assert_eq!(
        dots_web::cells_in_summary("Orange 1 @x,2 · coin 3,4", 0),
        None
    );
}

#[test]
fn a_pad_moves_the_dot_as_its_person_keys_do() {
    use web_shell::pad::Button;
    let mut fe = DotsFrontEnd::new();
    fe.start_local(&[1]);
    let game = Dots::new(2, 2);
    let held: Vec<&str> = [(0, Button::Left), (1, Button::Down)]
        .into_iter()
        .filter_map(|(person, b)| fe.pad_key(person, b))
        .collect();
    assert_eq!(fe.local_inputs(&game, &held), vec![LEFT, DOWN]);
    assert_eq!(fe.pad_key(0, Button::South), None);
}
