//! Two NtBA match drivers over an in-memory link whose state hash reports
//! are forged (each side then sees the other's game differ) and whose
//! part hashes say the ball differs: both result screens say when, as the
//! scoreboard read, and that the ball differs, and both offer a desync
//! report that reads back, replays to the tick and prints the ball.

use lockstep::wire::Message;
use lockstep::{DesyncReport, DeterministicGame, Millis, Outcome, SessionConfig};
use ntba::{Ntba, Pad, BALL, PART_NAMES};
use ntba_web::NtbaFrontEnd;
use web_shell::shell::driver::{MatchDriver, MatchEnd};
use web_shell::shell::view::MatchView;

/// Forges what one side sends: a wrong whole-state hash in every hash
/// report, and a wrong ball hash in the part hashes.
fn forge(bytes: Vec<u8>) -> Vec<u8> {
    let ball = PART_NAMES.iter().position(|&n| n == BALL).unwrap();
    match Message::<Pad>::decode(&bytes) {
        Ok(Message::Hash(mut r)) => {
            r.hash ^= 1;
            Message::<Pad>::Hash(r).encode().unwrap()
        }
        Ok(Message::Parts(mut p)) => {
            p.hashes[ball] ^= 1;
            Message::<Pad>::Parts(p).encode().unwrap()
        }
        _ => bytes,
    }
}

#[test]
fn an_online_desync_names_the_parts_that_differ() {
    let mut a =
        MatchDriver::<Ntba>::new(SessionConfig::host(3, 2).hash_interval(60), Millis(0)).unwrap();
    let mut b = MatchDriver::<Ntba>::new(SessionConfig::guest(), Millis(0)).unwrap();
    let (mut fa, mut fb) = (NtbaFrontEnd::new(), NtbaFrontEnd::new());
    let (mut va, mut vb) = (MatchView::default(), MatchView::default());
    let (mut ea, mut eb): (Option<MatchEnd>, Option<MatchEnd>) = (None, None);
    let mut now = Millis(0);
    // Hash reports are forged only after ten seconds of play.
    for frame in 0..3000 {
        now = now + Millis(16);
        let forging = frame > 600;
        if ea.is_none() {
            ea = a.frame(now, &mut fa, &["ArrowRight"], &mut va).ended;
        }
        while let Some((ch, bytes)) = a.poll_transmit() {
            let bytes = if forging { forge(bytes) } else { bytes };
            b.datagram(now, ch, &bytes);
        }
        if eb.is_none() {
            eb = b.frame(now, &mut fb, &["KeyA"], &mut vb).ended;
        }
        while let Some((ch, bytes)) = b.poll_transmit() {
            let bytes = if forging { forge(bytes) } else { bytes };
            a.datagram(now, ch, &bytes);
        }
        if ea.is_some() && eb.is_some() {
            break;
        }
    }
    let (Some(ea), Some(eb)) = (ea, eb) else {
        panic!("both sides must end");
    };
    for (e, side) in [(&ea, 0), (&eb, 1)] {
        let Outcome::Desync { tick, parts, .. } = &e.outcome else {
            panic!("side {side}: not a desync: {:?}", e.outcome);
        };
        assert!(*tick > 600, "side {side}: tick {tick}");
        assert_eq!(parts.differing, [BALL], "side {side}");
        // The game at the tick says when, as the scoreboard read then: a
        // little after ten seconds of play, so early in the first half.
        let report = e.report.as_ref().expect("a report is offered");
        let report = DesyncReport::<Pad>::from_bytes(&report.bytes).expect("it reads back");
        let at = report.replay::<Ntba>();
        assert_eq!(at.hash, report.local_hash());
        assert_eq!(
            e.message,
            format!(
                "The two games went out of sync {}: the ball differs.",
                at.game.game_time_in_words()
            )
        );
        assert!(
            e.message
                .starts_with("The two games went out of sync at 1:")
                && e.message.contains(" in the first half: "),
            "{}",
            e.message
        );
        assert_eq!(report.side, side);
        assert_eq!(report.tick(), *tick);
        assert_eq!(report.differing(), [BALL]);
        let ball = report.parts.iter().find(|p| p.name == BALL).unwrap();
        assert_eq!(ball.value, at.game.describe_part(BALL));
        assert!(ball.value.is_some());
        assert_eq!(at.game.state_hash(), report.local_hash());
    }
}
