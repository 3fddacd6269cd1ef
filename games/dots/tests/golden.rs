//! The build id is the golden hash, and the game behaves as documented.

use dots::{golden_hash, scripted_input, Dots, DOWN, HEIGHT, LEFT, RIGHT, UP, WIDTH};
use lockstep::DeterministicGame;

#[test]
fn build_id_is_the_golden_hash() {
    // If this fails, simulation behaviour changed: if that was on purpose,
    // put the new value in Dots::BUILD_ID (peers on the old build will then
    // refuse to play with this one, as they should).
    assert_eq!(golden_hash(), Dots::BUILD_ID, "{:#018x}", golden_hash());
}

#[test]
fn golden_script_actually_scores() {
    // A golden script that never scored would pin much less behaviour.
    let mut game = Dots::new(dots::GOLDEN_SEED, 2);
    for tick in 0..dots::GOLDEN_TICKS {
        game.step(&[scripted_input(tick, 0), scripted_input(tick, 1)]);
    }
    let scores: Vec<u32> = game.players().iter().map(|p| p.score).collect();
    assert!(scores.iter().all(|&s| s > 0), "scores {scores:?}");
}

#[test]
fn dots_wrap_around_the_edges() {
    let mut game = Dots::new(1, 1);
    let start = game.players()[0];
    game.step(&[LEFT | UP]);
    let p = game.players()[0];
    assert_eq!(p.x, (start.x + WIDTH - 1) % WIDTH);
    assert_eq!(p.y, start.y - 1);
    for _ in 0..WIDTH {
        game.step(&[RIGHT]);
    }
    assert_eq!(game.players()[0].x, p.x);
    for _ in 0..HEIGHT {
        game.step(&[DOWN]);
    }
    assert_eq!(game.players()[0].y, p.y);
    // Opposite directions cancel.
    game.step(&[LEFT | RIGHT | UP | DOWN]);
    assert_eq!((game.players()[0].x, game.players()[0].y), (p.x, p.y));
}

#[test]
fn reaching_the_coin_scores_and_moves_it() {
    // Walk player 0 onto the coin.
    let mut game = Dots::new(99, 2);
    let (cx, cy) = game.coin();
    let mut guard = 0;
    while game.players()[0].score == 0 {
        let p = game.players()[0];
        let mut pad = 0;
        if p.x != cx {
            pad |= RIGHT;
        }
        if p.y != cy {
            pad |= DOWN;
        }
        game.step(&[pad, 0]);
        guard += 1;
        assert!(guard < 100, "never reached the coin");
    }
    assert_eq!(game.players()[0].score, 1);
    assert_eq!(game.players()[1].score, 0);
    assert_ne!(game.coin(), (cx, cy));
}

#[test]
fn hash_covers_state_and_seed() {
    let a = Dots::new(1, 2);
    let b = Dots::new(2, 2);
    assert_ne!(a.state_hash(), b.state_hash());
    let mut c = a.clone();
    c.step(&[0, 0]);
    assert_eq!(a.state_hash(), c.state_hash(), "nothing moved");
    let mut d = a.clone();
    d.step(&[0, UP]);
    assert_ne!(c.state_hash(), d.state_hash());
    // Cloning is saving: the copy evolves identically.
    let mut e = d.clone();
    e.step(&[RIGHT, LEFT]);
    d.step(&[RIGHT, LEFT]);
    assert_eq!(d, e);
}

#[test]
fn odd_arguments_do_not_panic() {
    // Zero players means one; missing inputs leave dots still.
    let mut game = Dots::new(0, 0);
    assert_eq!(game.players().len(), 1);
    game.step(&[]);
    game.step(&[UP, UP, UP]);
    let mut many = Dots::new(u64::MAX, 255);
    many.step(&[RIGHT; 255]);
    assert_eq!(many.players().len(), 255);
}

#[test]
fn game_code_stays_under_sixty_lines() {
    // docs/writing-a-game.md promises a game in under 60 lines; count the
    // non-blank, non-comment lines between the markers in src/lib.rs.
    let src = include_str!("../src/lib.rs");
    let start = src.find("// --- game code ---").expect("start marker");
    let end = src.find("// --- end of game code ---").expect("end marker");
    let lines = src[start..end]
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("//"))
        .count();
    assert!(lines < 60, "{lines} lines of game code");
}
