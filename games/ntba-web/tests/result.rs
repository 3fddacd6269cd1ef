//! The shell's summary and result lines for NtBA: the score while the match
//! goes on, and the winner with the final score once it is over.

use lockstep::DeterministicGame;
use ntba::{Cpu, Level, Ntba};
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
        if ticks % 600 == 0 {
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
