//! Rollback in detail, on a hand-driven link: while the guest's packets are
//! held back the host runs ahead on predicted (repeated) inputs, saving a
//! state per predicted tick; when the real inputs arrive and differ, the
//! very next frame restores the state before the first wrong tick and
//! re-simulates to the present, so the host ends exactly where a replay of
//! the real inputs ends. The window caps how far it runs ahead.
use crate::common;

use common::Tiny;
use lockstep::PeerId;
use lockstep::{Channel, DeterministicGame, Frame, Millis, Session, SessionConfig};

type Held = Vec<(Channel, Vec<u8>)>;

fn drain(s: &mut Session<Tiny>) -> Held {
    std::iter::from_fn(|| s.poll_transmit().map(|(_, ch, b)| (ch, b))).collect()
}

fn deliver(to: &mut Session<Tiny>, now: Millis, held: Held) {
    // Each side names the link by the other's slot.
    let from = PeerId(u16::from(to.side() == Some(0)));
    for (ch, bytes) in held {
        to.handle_datagram(now, from, ch, &bytes);
    }
}

/// The final state a replay of the host's confirmed inputs reaches.
fn replayed(s: &Session<Tiny>) -> u64 {
    let log = s.input_log();
    let mut g = Tiny::new(log.seed, 2);
    for t in 0..log.ticks() {
        let pair = log.tick_inputs(t).map(|p| [p[0], p[1]]);
        // Cannot fail: t < ticks, so the tick's inputs are in the log.
        g.step(&pair.expect("in the log"));
    }
    g.state_hash()
}

#[test]
fn a_misprediction_is_corrected_within_the_next_frame() {
    let window = 5;
    // Cannot fail: delay 1 and window 5 are within range.
    let mut host = Session::<Tiny>::new(SessionConfig::host(3, 1).prediction_window(window))
        .expect("valid config");
    // The guest sends every frame (no packet held back while its pad is
    // unchanged), so the host predicts nothing until the burst below.
    // Cannot fail: the default guest configuration is valid.
    let mut guest =
        Session::<Tiny>::new(SessionConfig::guest().max_hold_frames(0)).expect("valid config");
    common::open_link(&mut host, &mut guest);
    let t0 = Millis(0);
    let (h, g) = (drain(&mut host), drain(&mut guest));
    deliver(&mut guest, t0, h);
    deliver(&mut host, t0, g);
    assert!(host.is_running() && guest.is_running());

    // 20 frames in step: the host's packets reach the guest at once, the
    // guest's reach the host at once too. The guest holds pad 7.
    let mut frame = 0u64;
    let mut step =
        |host: &mut Session<Tiny>, guest: &mut Session<Tiny>, pad: u8, hold: &mut Option<Held>| {
            frame += 1;
            let now = Millis(frame * 16);
            let f = host.advance_frame(now, || 1);
            guest.advance_frame(now, || pad);
            let (h, g) = (drain(host), drain(guest));
            deliver(guest, now, h);
            match hold {
                Some(held) => held.extend(g),
                None => deliver(host, now, g),
            }
            (f, now)
        };
    for _ in 0..20 {
        step(&mut host, &mut guest, 7, &mut None);
    }
    assert_eq!(host.stats().rollbacks, 0);
    let level = host.tick();

    // Now the guest's packets are held back (a late burst) while it
    // changes its pad to 9: the host predicts 7 (repeat last) and runs
    // ahead, up to the window, then stalls.
    let mut held = Some(Vec::new());
    let mut frames = Vec::new();
    for _ in 0..8 {
        frames.push(step(&mut host, &mut guest, 9, &mut held).0);
    }
    let s = host.stats();
    assert!(
        frames[..window as usize - 1]
            .iter()
            .all(|f| matches!(f, Frame::Ticked(_))),
        "{frames:?}"
    );
    assert!(
        matches!(frames.last(), Some(Frame::Stalled(_))),
        "{frames:?}"
    );
    let ahead = host.tick() - host.confirmed_tick();
    assert_eq!(
        ahead,
        u32::from(window),
        "runs ahead by the window, no further"
    );
    assert_eq!(s.predicted_ticks, u64::from(window));
    assert_eq!(s.rollbacks, 0, "nothing known yet to correct");
    assert!(host.confirmed_tick() <= level + 2);

    // The burst arrives; the next frame corrects everything at once.
    let tick_before = host.tick();
    let confirmed_before = host.confirmed_tick();
    let now = Millis((frame + 1) * 16);
    deliver(&mut host, now, held.take().unwrap_or_default());
    let f = host.advance_frame(now, || 1);
    let s = host.stats();
    assert_eq!(s.rollbacks, 1);
    // Every predicted tick was wrong (7 guessed, 9 pressed), so all of them
    // were simulated again, and then the frame's own tick ran.
    assert_eq!(
        s.resimulated_ticks,
        u64::from(tick_before - confirmed_before)
    );
    assert_eq!(s.max_rollback, tick_before - confirmed_before);
    assert_eq!(f, Frame::Ticked(tick_before + 1));
    // Where the host is now is exactly where the real inputs lead.
    assert!(host.confirmed_tick() >= tick_before);
    // Cannot fail: the match started above.
    let confirmed = host.confirmed_game().expect("started").state_hash();
    assert_eq!(confirmed, replayed(&host));
    assert_eq!(host.outcome(), None);
}
