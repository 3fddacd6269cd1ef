//! A peer whose game stops sending inputs but whose link still carries
//! pings (a page that answers but no longer advances, or a hostile peer)
//! keeps the silence timer from firing. The side waiting on its inputs
//! stalls. With a rejoin window (the default), after the silence timeout
//! of stalling it holds that player's slot as if it were silent (only new
//! inputs bring it back) and ends with `PlayerLeft` when the window runs
//! out; with a window of 0, after `DEFAULT_PROGRESS_TIMEOUT` (15 s) of
//! stalling it ends the match with `NoProgress` and sends
//! `Bye(NoProgress)`, in lock-step and rollback. Stalls shorter than that
//! are survived.
use crate::common;

use common::{in_both_modes, outcome_link, running_pair, Mode, Pair, Tiny};
use lockstep::session::{DEFAULT_PROGRESS_TIMEOUT, DEFAULT_REJOIN_WINDOW, DEFAULT_TIMEOUT};
use lockstep::wire::Message;
use lockstep::{Channel, Event, Frame, Millis, Outcome, Session, SessionConfig, Transport};

type M = Message<u8>;

/// Stops the guest's game (its session gets no more frames, so it sends
/// nothing) and sends a ping from its end every 20 frames instead, until
/// the host ends or `frames` have passed. Returns how long after its
/// first stall the host ended.
fn guest_only_pings(p: &mut Pair<Tiny, Tiny>, frames: u64) -> Option<Millis> {
    p.guest.runs = false;
    let mut first_stall = None;
    for n in 0..frames {
        if n % 20 == 0 {
            // Cannot fail: u8 inputs and in-range fields always encode.
            let ping = M::Ping(n as u16).encode().expect("encodes");
            // Cannot fail: the link is open and the datagram small.
            p.link_mut()
                .1
                .send(Channel::Unreliable, &ping)
                .expect("link open");
        }
        p.step_frame();
        if first_stall.is_none() && matches!(p.host.seen.frames.last(), Some(Frame::Stalled(_))) {
            first_stall = Some(p.now());
        }
        if p.host.outcome().is_some() {
            return first_stall.map(|t| p.now().saturating_since(t));
        }
    }
    None
}

#[test]
fn a_peer_that_only_pings_is_held_for_the_rejoin_window() {
    in_both_modes(|mode| {
        let mut p = running_pair(mode, 64);
        let waited = guest_only_pings(&mut p, 60 * 60).unwrap_or(Millis::ZERO);
        assert_eq!(
            p.host.outcome(),
            Some(&Outcome::PlayerLeft { slot: 1 }),
            "{}",
            p.progress()
        );
        assert!(p
            .host
            .seen
            .events
            .iter()
            .any(|e| matches!(e, Event::Dropped { slot: 1, .. })));
        // The stall's timeout (5 s), then the window (20 s).
        let held = DEFAULT_TIMEOUT + DEFAULT_REJOIN_WINDOW;
        assert!(
            waited >= held && waited <= held + Millis(100),
            "ended {waited:?} after the first stall"
        );
    });
}

#[test]
fn a_peer_that_only_pings_is_dropped_after_the_progress_timeout() {
    in_both_modes(|mode| {
        let mut p: Pair<Tiny, Tiny> = Pair::new(
            mode.cfg(SessionConfig::host(61, 6).rejoin_window(Millis::ZERO)),
            mode.cfg(SessionConfig::guest().rejoin_window(Millis::ZERO)),
            outcome_link(),
            61,
        );
        assert!(p.run_to_tick(300, 1000));
        let waited = guest_only_pings(&mut p, 60 * 60);
        assert_eq!(
            p.host.outcome(),
            Some(&Outcome::NoProgress),
            "{}",
            p.progress()
        );
        let waited = waited.unwrap_or(Millis::ZERO);
        assert!(
            waited >= DEFAULT_PROGRESS_TIMEOUT && waited <= DEFAULT_PROGRESS_TIMEOUT + Millis(17),
            "ended {waited:?} after the first stall"
        );
        // The host's Bye(NoProgress) reaches the guest's session (still
        // pumped), which ends the same way.
        p.run_frames(30);
        assert_eq!(p.guest.outcome(), Some(&Outcome::NoProgress));
    });
}

#[test]
fn stalls_shorter_than_the_progress_timeout_are_survived() {
    in_both_modes(|mode| {
        let mut p = running_pair(mode, 62);
        // 12 s of pings only: the host stalls but waits.
        assert_eq!(guest_only_pings(&mut p, 60 * 12), None);
        assert_eq!(p.host.outcome(), None);
        p.guest.runs = true;
        let t = p.host.tick();
        p.run_frames(600);
        assert_eq!(p.host.outcome(), None, "{}", p.progress());
        assert_eq!(p.guest.outcome(), None);
        assert!(p.host.tick() > t + 500, "{}", p.progress());
        if mode == Mode::LockStep {
            p.assert_in_sync();
        }
    });
}

#[test]
fn the_progress_timeout_is_a_setting() {
    in_both_modes(|mode| {
        let mut p: Pair<Tiny, Tiny> = Pair::new(
            mode.cfg(SessionConfig::host(5, 6).progress_timeout(Millis(2000))),
            mode.cfg(SessionConfig::guest()),
            outcome_link(),
            63,
        );
        assert!(p.run_to_tick(300, 1000));
        let waited = guest_only_pings(&mut p, 60 * 10).unwrap_or(Millis::ZERO);
        assert_eq!(p.host.outcome(), Some(&Outcome::NoProgress));
        assert!(
            waited >= Millis(2000) && waited <= Millis(2017),
            "{waited:?}"
        );
    });
    assert!(
        Session::<Tiny>::new(SessionConfig::guest().progress_timeout(Millis(0))).is_err(),
        "a zero timeout is refused"
    );
}
