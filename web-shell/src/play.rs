//! The rules of an online match in the page, pure and tested natively: the
//! fixed 60 Hz frame schedule, when to show "Waiting for the other
//! player…", and the message for each way a match ends (one per
//! `lockstep::Outcome`, plus a game that finished by itself).

use lockstep::{Millis, Outcome};

/// One frame at 60 Hz, in milliseconds.
pub const FRAME_MS: f64 = 1000.0 / 60.0;

/// Frames in a row without a tick before the page shows "Waiting for the
/// other player…" (100 ms: a one-frame hiccup is not worth a flash).
pub const WAITING_AFTER_FRAMES: u32 = 6;

/// How long the end screen of a finished game stays before the page
/// leaves the match by itself (both pages do; whichever is first sends the
/// Bye, and the other shows the result too).
pub const RESULT_HOLD_MS: u64 = 4000;

/// The page clock (`performance.now()`, in fractional ms, the page's or
/// a worker's) as the whole milliseconds the shell counts in: a reading
/// before zero, or not a number, is 0.
#[must_use]
pub fn millis(clock: f64) -> Millis {
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    Millis(clock.max(0.0) as u64)
}

/// A fixed 60 Hz timestep driven by a faster, imprecise timer.
///
/// [`due`](Self::due) is asked on every timer call with the page clock. A
/// call that comes a little late (up to one frame) keeps the schedule, so
/// timer jitter costs no frames; a call more than one frame late restarts
/// the schedule from that call, so the page never runs a backlog of frames
/// to catch up (not after a long stall, and not after a 20-33 ms hiccup
/// either: the missed frame is dropped, not squeezed in). Two frames are
/// never less than half a frame apart.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct FrameClock {
    next: f64,
}

impl FrameClock {
    /// Whether a frame is due at `now` (ms); if so, the schedule moves on
    /// by one frame (or restarts from `now` when the call is more than one
    /// frame late).
    pub fn due(&mut self, now: f64) -> bool {
        if now < self.next {
            return false;
        }
        self.next = if now - self.next > FRAME_MS {
            now + FRAME_MS
        } else {
            // On schedule, but never sooner than half a frame from now: a
            // call almost a frame late is not followed by a catch-up frame
            // one timer step later.
            (self.next + FRAME_MS).max(now + FRAME_MS / 2.0)
        };
        true
    }

    /// Whether [`due`](Self::due) would say yes at `now`, without moving.
    #[must_use]
    pub fn is_due(&self, now: f64) -> bool {
        now >= self.next
    }
}

/// Whether the page shows "Waiting for the other player…" after this many
/// frames in a row without a tick.
#[must_use]
pub fn waiting(stalled_frames: u32) -> bool {
    stalled_frames >= WAITING_AFTER_FRAMES
}

/// What the player reads after a desync, unless the game's front end says
/// more ([`FrontEnd::desync_message`](crate::front_end::FrontEnd::desync_message)).
pub const DESYNC_MESSAGE: &str = "The two games went out of sync, so the match was stopped.";

/// What the player reads for each way the session can end.
#[must_use]
pub fn outcome_message(o: &Outcome) -> &'static str {
    match o {
        Outcome::LocalQuit => "You left the online match.",
        Outcome::RemoteQuit => "The other player left the match.",
        Outcome::TransportLost => "The connection to the other player was lost.",
        Outcome::Timeout => "The other player stopped responding.",
        Outcome::Desync { .. } => DESYNC_MESSAGE,
        Outcome::VersionMismatch { .. } => {
            "The other player is running a different version of the game. Reload both pages and try again."
        }
        Outcome::InvalidData { .. } => {
            "The other player sent something unexpected, so the match was stopped."
        }
        Outcome::HandshakeTimeout => {
            "Couldn't start the match: the connection to the other player is too poor."
        }
        Outcome::NoProgress => {
            "The other player's game stopped sending its moves, so the match was stopped."
        }
        Outcome::PlayerLeft { .. } => "The other player left and did not come back.",
        Outcome::RejoinRefused { why } => crate::shell::rejoin::refusal_message(*why),
        // Outcomes the engine may add later.
        _ => "The match was stopped.",
    }
}

/// The message at the end of a match: once the game itself is over (its
/// `result`), leaving by either side is just the way back to the lobby, so
/// the result is shown; any other ending keeps its own message.
#[must_use]
pub fn end_message(result: Option<&str>, o: &Outcome) -> String {
    match (result, o) {
        (Some(r), Outcome::LocalQuit | Outcome::RemoteQuit) => r.to_owned(),
        _ => outcome_message(o).to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lockstep::{Version, Violation};

    #[test]
    fn the_page_clock_reads_as_whole_milliseconds() {
        assert_eq!(millis(1234.9), Millis(1234));
        assert_eq!(millis(-5.0), Millis(0));
        assert_eq!(millis(f64::NAN), Millis(0));
        assert_eq!(millis(f64::INFINITY), Millis(u64::MAX));
    }

    /// Runs the clock with timer calls every `step` ms from `from` to `to`;
    /// returns the times of the frames.
    fn frames(c: &mut FrameClock, from: f64, to: f64, step: f64) -> Vec<f64> {
        let mut out = Vec::new();
        let mut t = from;
        while t < to {
            if c.due(t) {
                out.push(t);
            }
            t += step;
        }
        out
    }

    #[test]
    fn a_fast_timer_gives_sixty_frames_a_second() {
        let mut c = FrameClock::default();
        let f = frames(&mut c, 0.0, 10_000.0, 4.0);
        assert!((599..=601).contains(&f.len()), "{} frames", f.len());
    }

    #[test]
    fn a_late_timer_keeps_the_schedule() {
        // A timer that fires every 20 ms (late for a 16.7 ms frame) still
        // gives 60 frames a second on average: it is allowed to catch up
        // a frame or two.
        let mut c = FrameClock::default();
        let f = frames(&mut c, 0.0, 10_000.0, 9.0);
        assert!((598..=601).contains(&f.len()), "{} frames", f.len());
    }

    #[test]
    fn no_burst_after_a_stall() {
        let mut c = FrameClock::default();
        let before = frames(&mut c, 0.0, 1000.0, 4.0);
        assert!(before.len() >= 59);
        // The page stalls for half a second; the 100 ms after it hold at
        // most the 6 frames 100 ms allow, not the 30 missed ones.
        let after = frames(&mut c, 1500.0, 1600.0, 4.0);
        assert!(
            after.len() <= 7,
            "{} frames right after the stall",
            after.len()
        );
        assert_eq!(after[0], 1500.0);
        for w in after.windows(2) {
            assert!(w[1] - w[0] >= FRAME_MS - 4.0, "frames too close: {w:?}");
        }
    }

    #[test]
    fn no_catch_up_frame_after_a_short_hiccup() {
        // Timer calls every 4 ms, then one 20-33 ms gap (a hiccup of one or
        // two frames): no two frames are less than half a frame apart, for
        // every gap length and phase (keeping the schedule through two
        // frames of lateness ran two extra frames 4 ms apart here).
        for gap in 20..=33 {
            for phase in 0..17 {
                let mut c = FrameClock::default();
                let mut times = frames(&mut c, 0.0, 500.0 + f64::from(phase), 4.0);
                let resume = 500.0 + f64::from(phase) + f64::from(gap);
                times.extend(frames(&mut c, resume, resume + 200.0, 4.0));
                for w in times.windows(2) {
                    assert!(
                        w[1] - w[0] >= FRAME_MS / 2.0,
                        "gap {gap} ms, phase {phase}: frames at {w:?}"
                    );
                }
                // And the schedule goes on at 60 Hz afterwards.
                let after = times.iter().filter(|&&t| t >= resume).count();
                assert!((11..=13).contains(&after), "{after} frames in 200 ms");
            }
        }
    }

    #[test]
    fn is_due_does_not_move_the_schedule() {
        let mut c = FrameClock::default();
        assert!(c.is_due(0.0));
        assert!(c.due(0.0));
        assert!(!c.is_due(10.0));
        assert!(!c.due(10.0));
        assert!(c.is_due(17.0));
        assert!(c.due(17.0));
    }

    #[test]
    fn waiting_shows_after_six_stalled_frames() {
        assert!(!waiting(0));
        assert!(!waiting(5));
        assert!(waiting(6));
        assert!(waiting(600));
    }

    #[test]
    fn every_ending_has_the_message_of_the_failure_table() {
        let v = Version {
            protocol: 1,
            build: Some(2),
        };
        let cases = [
            (Outcome::RemoteQuit, "The other player left the match."),
            (Outcome::LocalQuit, "You left the online match."),
            (
                Outcome::Desync {
                    tick: 60,
                    local: 1,
                    remote: 2,
                    parts: Default::default(),
                    slots: vec![1],
                },
                "The two games went out of sync, so the match was stopped.",
            ),
            (
                Outcome::VersionMismatch {
                    local: v,
                    remote: None,
                },
                "The other player is running a different version of the game. Reload both pages and try again.",
            ),
            (
                Outcome::TransportLost,
                "The connection to the other player was lost.",
            ),
            (Outcome::Timeout, "The other player stopped responding."),
            (
                Outcome::HandshakeTimeout,
                "Couldn't start the match: the connection to the other player is too poor.",
            ),
            (
                Outcome::NoProgress,
                "The other player's game stopped sending its moves, so the match was stopped.",
            ),
            (
                Outcome::InvalidData {
                    violation: Violation::UnexpectedHello,
                },
                "The other player sent something unexpected, so the match was stopped.",
            ),
        ];
        for (o, msg) in &cases {
            assert_eq!(outcome_message(o), *msg);
            assert_eq!(end_message(None, o), *msg);
        }
    }

    #[test]
    fn after_the_final_buzzer_leaving_shows_the_result() {
        let r = Some("Home wins 31-28.");
        assert_eq!(end_message(r, &Outcome::LocalQuit), "Home wins 31-28.");
        assert_eq!(end_message(r, &Outcome::RemoteQuit), "Home wins 31-28.");
        // Anything else still says what went wrong.
        assert_eq!(
            end_message(r, &Outcome::Timeout),
            "The other player stopped responding."
        );
    }
}
