//! Three people who never touch their pads, for a whole match: the one
//! court player nobody drives is the built-in AI's, and it plays the match
//! on its own. It runs, takes the ball, shoots and scores, so its team wins;
//! the people's court players never move of their own accord, so the team
//! of two idle people never shoots at all. Checked for both teams as the
//! AI's (line-ups `HAH`, the AI on Away, and `AHA`, the AI on Home) and
//! several seeds.

use lockstep::DeterministicGame;
use ntba::{Event, Lineup, Ntba, Pad, MATCH_TICK_CAP};

#[test]
fn the_ai_plays_the_court_player_nobody_drives() {
    for text in ["HAH", "AHA"] {
        let lineup: Lineup = text.parse().expect("a line-up");
        for seed in [1u64, 2, 3] {
            let mut g = Ntba::new(lineup.seed(seed), 3);
            let ai = (0..4u8)
                .find(|&p| g.pad_slot(p).is_none())
                .expect("one court player without a pad");
            let ai_side = ai / 2;
            assert!(
                !g.player(ai).controlled,
                "{text}: the AI's is not a person's"
            );
            let (mut moved, mut shots, mut scored) = (0u32, 0u32, 0u32);
            let mut others_shots = 0u32;
            let mut last = g.player(ai);
            while !g.is_over() && g.tick() < MATCH_TICK_CAP {
                g.step(&[Pad::NONE; 3]);
                let now = g.player(ai);
                if (now.x, now.y) != (last.x, last.y) {
                    moved += 1;
                }
                last = now;
                for e in g.events() {
                    match *e {
                        Event::Shot { player, .. } if player == ai => shots += 1,
                        Event::Shot { .. } => others_shots += 1,
                        Event::Score { player, .. } if player == ai => scored += 1,
                        _ => {}
                    }
                }
            }
            let what = format!("{text} seed {seed}: AI player {ai}");
            eprintln!(
                "{what}: ticks {} moved {moved} shots {shots} baskets {scored} score {:?}",
                g.tick(),
                g.score()
            );
            assert!(g.is_over(), "{what}: the match never ended");
            assert!(moved > g.tick() / 10, "{what}: moved on {moved} ticks");
            assert!(shots >= 10, "{what}: {shots} shots");
            assert!(scored >= 5, "{what}: {scored} baskets");
            assert_eq!(others_shots, 0, "{what}: an idle person's player shot");
            let score = g.score();
            assert_eq!(score[usize::from(1 - ai_side)], 0, "{what}: {score:?}");
            assert_eq!(g.winner(), Some(ai_side), "{what}: {score:?}");
        }
    }
}
