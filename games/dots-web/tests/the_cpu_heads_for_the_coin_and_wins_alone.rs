//! Local play against the CPU: the CPU's dot reaches every coin, and the
//! front end calls the match at ten.

use dots::Dots;
use dots_web::{DotsFrontEnd, FIRST_TO};
use lockstep::DeterministicGame;
use web_shell::front_end::FrontEnd;

#[test]
fn the_cpu_wins_a_game_against_nobody() {
    let mut fe = DotsFrontEnd::new();
    fe.start_local(&[0]);
    let mut game = Dots::new(0x5EED, 2);
    let mut ticks = 0u32;
    while fe.result(&game).is_none() {
        let inputs = fe.local_inputs(&game, &[]);
        assert_eq!(inputs[0], 0, "nobody holds a key");
        game.step(&inputs);
        ticks += 1;
        // A coin is at most 16 + 9 steps away; diagonal moves halve that.
        assert!(ticks <= FIRST_TO * 25, "the CPU wanders: {ticks} ticks");
    }
    assert_eq!(game.players()[1].score, FIRST_TO);
    assert_eq!(fe.result(&game).as_deref(), Some("Teal wins 10-0."));
    assert_eq!(fe.score(&game).as_deref(), Some("Orange 0 · Teal 10"));
    let (cx, cy) = game.coin();
    let summary = fe.summary(&game).unwrap();
    assert!(
        summary.ends_with(&format!(" · coin {cx},{cy}")),
        "{summary}"
    );
}

#[test]
fn two_people_on_one_keyboard_each_steer_their_own_dot() {
    let mut fe = DotsFrontEnd::new();
    fe.start_local(&[1]);
    let game = Dots::new(1, 2);
    assert_eq!(
        fe.local_inputs(&game, &["KeyD", "ArrowUp"]),
        vec![dots::RIGHT, dots::UP]
    );
    // Alone against the CPU, either set of keys steers the person's dot.
    fe.start_local(&[0]);
    assert_eq!(fe.local_inputs(&game, &["ArrowLeft"])[0], dots::LEFT);
    assert_eq!(fe.local_inputs(&game, &["KeyW"])[0], dots::UP);
}
