//! Rollback mode holds back an Inputs packet that carries nothing the peer
//! needs at once (`SessionConfig::max_hold_frames`): a pad equal to the
//! previous one, which the peer predicts anyway. A changed pad leaves at
//! once. Holding never loses an input (property test over random links and
//! pads: every pad each side sampled is in both sides' final input logs, in
//! place), cuts the packets of a held pad by more than half without more
//! re-simulated ticks or stalls, and changes nothing in lock-step.
use crate::common;

use common::{Pads, Pair, Tiny};
use lockstep::session::DEFAULT_MAX_HOLD_FRAMES;
use lockstep::PeerId;
use lockstep::{Millis, SessionConfig, SessionStats};
use netsim::LinkConfig;
use proptest::prelude::*;

fn pair(
    link: LinkConfig,
    seed: u64,
    delay: u8,
    window: u8,
    hold: u8,
    odds: u64,
) -> (Pair<Tiny, Tiny>, [Pads; 2]) {
    let mut p: Pair<Tiny, Tiny> = Pair::new(
        SessionConfig::host(seed.rotate_left(17), delay)
            .prediction_window(window)
            .max_hold_frames(hold),
        SessionConfig::guest().max_hold_frames(hold),
        link,
        seed,
    );
    p.host.pads = Pads::changing_one_in(seed.wrapping_mul(3), odds);
    p.guest.pads = Pads::changing_one_in(seed.wrapping_mul(5).wrapping_add(1), odds);
    let pads = [p.host.pads.clone(), p.guest.pads.clone()];
    (p, pads)
}

/// Every pad each side sampled sits, in both sides' final input logs, at
/// the tick it was sampled for (the first `delay` ticks hold the default).
fn assert_no_input_lost(p: &Pair<Tiny, Tiny>, pads: &[Pads; 2], delay: u8) -> usize {
    let logs = [p.host.input_log(), p.guest.input_log()];
    let mut checked = 0;
    for (side, fresh) in pads.iter().enumerate() {
        let mut source = fresh.clone();
        let ticks = logs[0].ticks().min(logs[1].ticks());
        for t in 0..ticks {
            let want = if t < u32::from(delay) {
                0
            } else {
                source.sample()
            };
            for log in &logs {
                let got = log.tick_inputs(t).map(|i| i[side]);
                assert_eq!(got, Some(want), "side {side}'s pad for tick {t}");
            }
            checked += 1;
        }
    }
    checked
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 120, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn holding_back_never_loses_an_input(latency in 0u64..=300, jitter in 0u64..=50,
            loss in 0u8..=50, duplicate in 0u8..=30, reorder in 0u8..=30, delay in 0u8..=10,
            window in 1u8..=12, hold in 0u8..=15, odds in 1u64..=60, seed in any::<u64>()) {
        let link = LinkConfig {
            latency: Millis(latency),
            jitter: Millis(jitter),
            loss_percent: loss,
            duplicate_percent: duplicate,
            reorder_percent: reorder,
            ..LinkConfig::default()
        };
        let (mut p, pads) = pair(link, seed, delay, window, hold, odds);
        let reached = p.run_to_confirmed(600, 600 * 40);
        prop_assert!(reached, "{}", p.progress());
        // Same state at tick 600 on both sides, each side's final state
        // the replay of its final inputs.
        p.assert_same_state_at(600, 3000);
        // Both record the confirmed state where the confirmed tick lands,
        // which differs between sides when inputs arrive in bursts: the
        // in-band hash checks (every 60 ticks) and the logs compare all.
        p.assert_in_sync();
        prop_assert!(p.host.seen.hash_matches >= 8 && p.guest.seen.hash_matches >= 8);
        prop_assert!(assert_no_input_lost(&p, &pads, delay) >= 2 * 600);
    }
}

fn play(window: u8, hold: u8, odds: u64, loss: u8) -> [SessionStats; 2] {
    let link = LinkConfig {
        latency: Millis(50),
        jitter: Millis(10),
        loss_percent: loss,
        ..LinkConfig::default()
    };
    let delay = if window == 0 { 6 } else { 2 };
    let (mut p, pads) = pair(link, 21, delay, window, hold, odds);
    assert!(
        p.run_to_confirmed(3600, 3600 * 2),
        "{:?} {:?}",
        p.host.outcome(),
        p.guest.outcome()
    );
    assert_eq!(p.host.outcome(), None);
    p.assert_same_state_at(3600, 600);
    p.assert_in_sync();
    assert!(p.host.seen.hash_matches >= 56 && p.guest.seen.hash_matches >= 56);
    assert!(assert_no_input_lost(&p, &pads, delay) >= 2 * 3500);
    [p.host.stats(), p.guest.stats()]
}

fn per_second(s: &SessionStats) -> f64 {
    (s.unreliable_packets + s.reliable_packets) as f64 * 60.0 / s.frames as f64
}

#[test]
fn a_held_pad_sends_less_than_half_without_more_resimulation() {
    // A pad that changes about once in 20 frames; 50 ms ±10, 5% loss.
    let every = play(8, 0, 20, 5);
    let held = play(8, DEFAULT_MAX_HOLD_FRAMES, 20, 5);
    for side in 0..2 {
        let (a, b) = (&every[side], &held[side]);
        eprintln!(
            "side {side}: {:.1} then {:.1} packets/s; re-simulated {} then {}; stalls {} then {}; skipped {} then {}",
            per_second(a),
            per_second(b),
            a.resimulated_ticks,
            b.resimulated_ticks,
            a.stalled_frames,
            b.stalled_frames,
            a.skipped_frames,
            b.skipped_frames
        );
        assert!(per_second(a) > 60.0, "{a:?}");
        assert!(per_second(b) < per_second(a) / 2.0, "{b:?}");
        // A changed pad leaves at once, so the peer's guesses are wrong for
        // no longer than before (a lost packet can cost a tick or two).
        // (8%: the timing of packets also moves time sync's skips, which
        // shifts re-simulation by a few percent either way.)
        assert!(
            b.resimulated_ticks <= a.resimulated_ticks + a.resimulated_ticks * 8 / 100,
            "{a:?} {b:?}"
        );
        // A held pad is older when a packet is lost, so a burst of losses
        // can use up the window a frame or two sooner: a few stalls in
        // 3,600 frames (here 2 and 6; GGRS stalls about as often on this
        // link, docs/ggrs-comparison.md), never more than 0.3%.
        assert!(b.stalled_frames <= a.stalled_frames + 11, "{a:?} {b:?}");
    }
}

#[test]
fn lock_step_sends_every_frame_whatever_the_hold() {
    let every = play(0, 0, 20, 5);
    let held = play(0, 15, 20, 5);
    assert_eq!(every, held);
    assert!(per_second(&every[0]) > 60.0);
}

#[test]
fn holding_is_capped() {
    let cfg = SessionConfig::host(1, 2).rollback().max_hold_frames(200);
    assert_eq!(
        cfg,
        SessionConfig::host(1, 2).rollback().max_hold_frames(15)
    );
}

/// Which frames the host sent an Inputs packet in, on an instant link,
/// with the host's pad for each frame given by `pad`.
fn host_sends(window: u8, frames: u64, pad: impl Fn(u64) -> u8) -> Vec<bool> {
    use lockstep::{Channel, Session};
    // Cannot fail: delay 2 and a window of at most 8 are within range.
    let mut host = Session::<Tiny>::new(SessionConfig::host(5, 2).prediction_window(window))
        .expect("valid config");
    // Cannot fail: the default guest configuration is valid.
    let mut guest = Session::<Tiny>::new(SessionConfig::guest()).expect("valid config");
    common::open_link(&mut host, &mut guest);
    let mut sent = Vec::new();
    for f in 0..frames {
        let now = Millis(f * 16);
        host.advance_frame(now, || pad(f));
        guest.advance_frame(now, || 3);
        let mut inputs = false;
        while let Some((_, ch, bytes)) = host.poll_transmit() {
            inputs |= ch == Channel::Unreliable;
            guest.handle_datagram(now, PeerId(0), ch, &bytes);
        }
        while let Some((_, ch, bytes)) = guest.poll_transmit() {
            host.handle_datagram(now, PeerId(1), ch, &bytes);
        }
        if host.is_running() && f > 5 {
            sent.push(inputs);
        }
    }
    sent
}

#[test]
fn a_held_pad_waits_at_most_two_frames_and_a_change_leaves_at_once() {
    // Pad 1 held, then 2 from frame 40 on.
    let sent = host_sends(8, 80, |f| if f < 40 { 1 } else { 2 });
    let held: Vec<usize> = sent
        .iter()
        .enumerate()
        .filter(|(_, s)| !**s)
        .map(|(i, _)| i)
        .collect();
    assert!(held.len() > 30, "{sent:?}");
    // Never three frames in a row without a packet.
    assert!(sent.windows(3).all(|w| w.iter().any(|s| *s)), "{sent:?}");
    // Frame 40 samples the new pad (for tick 40 + delay): it leaves in that
    // frame and the next. (`sent` starts at frame 6.)
    assert!(sent[40 - 6] && sent[41 - 6], "{sent:?}");
}

#[test]
fn lock_step_and_a_changing_pad_send_every_frame() {
    assert!(host_sends(0, 60, |_| 1).iter().all(|s| *s));
    assert!(host_sends(8, 60, |f| f as u8).iter().all(|s| *s));
}
