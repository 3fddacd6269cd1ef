//! A driver that follows the confirmed state tick by tick, stepping its own
//! copy with `confirmed_inputs`, ends on the session's confirmed state, on
//! both sides of a lossy match in both modes; the inputs are those of the
//! exported log, and a tick not confirmed yet has none.
use crate::common;

use common::Pair;
use lockstep::{DeterministicGame, Millis};
use netsim::LinkConfig;

#[test]
fn following_confirmed_inputs_reaches_the_confirmed_state() {
    common::in_both_modes(|mode| {
        let link = LinkConfig {
            latency: Millis(40),
            jitter: Millis(15),
            loss_percent: 10,
            ..LinkConfig::default()
        };
        let mut p = Pair::tiny_in(mode, link, 17, 0x5eed, 3);
        // Each side's copy, stepped one confirmed tick at a time.
        let mut copies = [0, 1].map(|_| (0u32, common::Tiny::new(0x5eed, 2)));
        let mut buf = Vec::new();
        let mut jumps = 0;
        while p.frame() < 3000 && p.host.confirmed_tick().min(p.guest.confirmed_tick()) < 1200 {
            p.step_frame();
            for (i, (t, g)) in copies.iter_mut().enumerate() {
                let s = if i == 0 { &p.host } else { &p.guest };
                let c = s.confirmed_tick();
                if c > *t + 1 {
                    jumps += 1;
                }
                while *t < c {
                    assert!(s.confirmed_inputs(*t, &mut buf), "tick {t} of {c}");
                    assert_eq!(buf.len(), 2);
                    g.step(&buf);
                    *t += 1;
                }
                if let Some(confirmed) = s.confirmed_game() {
                    assert_eq!(g.state_hash(), confirmed.state_hash(), "side {i} at {t}");
                }
                // The present may rest on guesses: nothing from the confirmed
                // tick on is handed out.
                assert!(!s.confirmed_inputs(c, &mut buf));
                assert!(buf.is_empty());
            }
        }
        assert!(p.host.confirmed_tick() >= 1200, "{}", p.progress());
        assert_eq!(p.host.outcome(), None);
        if mode == common::Mode::Rollback {
            // Late inputs make the confirmed tick jump: the copy was
            // stepped through those ticks, not handed the session's state.
            assert!(jumps > 10, "only {jumps} jumps");
        }
        for s in [&p.host, &p.guest] {
            let log = s.input_log();
            for t in 0..log.ticks() {
                assert!(s.confirmed_inputs(t, &mut buf));
                assert_eq!(Some(&buf[..]), log.tick_inputs(t), "tick {t}");
            }
        }
    });
}
