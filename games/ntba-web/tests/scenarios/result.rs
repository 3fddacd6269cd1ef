//! The shell's summary and result lines for NtBA: the score while the match
//! goes on, and the winner with the final score once it is over.

use lockstep::DeterministicGame;
use ntba::{Cpu, Level, Ntba, Pad};
use ntba_web::NtbaFrontEnd;
use web_shell::front_end::FrontEnd;

#[test]
fn summary_follows_the_score_and_result_names_the_winner() {
    let front = NtbaFrontEnd::new();
    let mut g = Ntba::new(11, 2);
    assert_eq!(front.summary(&g).as_deref(), Some("HOME 0 - 0 AWAY"));
    assert_eq!(front.result(&g), None);
    let mut home = Cpu::with_level(1, Level::Hard);
    let mut away = Cpu::with_level(2, Level::Easy);
    let mut ticks = 0u32;
    while front.result(&g).is_none() {
        let pads = [home.pad(&g, 0), away.pad(&g, 1)];
        g.step(&pads);
        ticks += 1;
        assert!(ticks < 60 * 60 * 20, "the match never ended");
        if ticks.is_multiple_of(600) {
            let [h, a] = g.score();
            assert_eq!(front.summary(&g), Some(format!("HOME {h} - {a} AWAY")));
        }
    }
    let [h, a] = g.score();
    let winner = g.winner().expect("over, so there is a winner");
    let expected = if winner == 0 {
        format!("Home wins {h}-{a}.")
    } else {
        format!("Away wins {h}-{a}.")
    };
    assert_eq!(front.result(&g), Some(expected));
    assert!(g.is_over());
    assert_ne!(h, a, "no tie at the end");
    // A finished game stays finished.
    let pads = [home.pad(&g, 0), away.pad(&g, 1)];
    g.step(&pads);
    assert!(front.result(&g).is_some());
}

#[test]
fn a_match_decided_on_the_tiebreak_says_so() {
    // Nobody presses anything: every period ends 0-0 and the tiebreak
    // after the sudden-death period decides.
    let front = NtbaFrontEnd::new();
    let mut g = Ntba::new(5, 2);
    let mut ticks = 0u32;
    while !g.is_over() {
        g.step(&[Pad(0), Pad(0)]);
        ticks += 1;
        assert!(ticks < 60 * 60 * 30, "the match never ended");
    }
    assert_eq!(g.score(), [0, 0]);
    let who = if g.winner() == Some(0) {
        "Home"
    } else {
        "Away"
    };
    assert_eq!(
        front.result(&g),
        Some(format!("{who} wins 0-0 on the tiebreak."))
    );
}
