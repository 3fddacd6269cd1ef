//! The three limits that end a match gone quiet or stuck: silence, a
//! handshake that does not finish, and a wait on the peer's input that
//! does not end.

use super::config::SessionConfig;
use crate::time::Millis;

/// Which deadline passed, and how long ago its clock started.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Expired {
    /// No datagram from the peer for this long.
    Silence(Millis),
    /// The match has not started this long after the first call.
    Handshake(Millis),
    /// Stalled on the peer's next input for this long.
    Progress(Millis),
}

/// When the session was first called, last heard the peer, and began to
/// wait on the peer's input.
#[derive(Debug, Default)]
pub(super) struct Deadlines {
    /// The time of the first call: the handshake's deadline counts from it.
    began: Option<Millis>,
    last_heard: Option<Millis>,
    /// Since when this side has stalled on the peer's next input (none
    /// while ticks run).
    waiting_since: Option<Millis>,
}

impl Deadlines {
    /// A datagram arrived (any datagram is a sign of life).
    pub(super) fn heard(&mut self, now: Millis) {
        self.began.get_or_insert(now);
        self.last_heard = Some(now.max(self.last_heard.unwrap_or(now)));
    }

    /// A tick could run, or the peer's inputs grew: the wait is over.
    pub(super) fn progressed(&mut self) {
        self.waiting_since = None;
    }

    /// A frame stalled on the peer's input: the wait starts (if it had not).
    pub(super) fn stalled(&mut self, now: Millis) {
        self.waiting_since.get_or_insert(now);
    }

    /// The first deadline that has passed at `now`, if any (`handshake`:
    /// the match has not started). Starts the clocks on the first call.
    pub(super) fn expired(
        &mut self,
        now: Millis,
        cfg: &SessionConfig,
        handshake: bool,
    ) -> Option<Expired> {
        let began = *self.began.get_or_insert(now);
        let heard = *self.last_heard.get_or_insert(now);
        if now.saturating_since(heard) >= cfg.timeout {
            Some(Expired::Silence(now.saturating_since(heard)))
        } else if handshake && now.saturating_since(began) >= cfg.handshake_timeout {
            Some(Expired::Handshake(now.saturating_since(began)))
        } else {
            let since = self.waiting_since?;
            (now.saturating_since(since) >= cfg.progress_timeout)
                .then(|| Expired::Progress(now.saturating_since(since)))
        }
    }

    /// The earliest deadline (see [`expired`](Self::expired)), or `None`
    /// before the first call that passed a time.
    pub(super) fn next(&self, cfg: &SessionConfig, handshake: bool) -> Option<Millis> {
        let silence = self.last_heard.map(|t| t + cfg.timeout);
        let start = match handshake {
            true => self.began.map(|t| t + cfg.handshake_timeout),
            false => None,
        };
        let progress = self.waiting_since.map(|t| t + cfg.progress_timeout);
        [silence, start, progress].into_iter().flatten().min()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> SessionConfig {
        SessionConfig::guest()
            .timeout(Millis(5000))
            .handshake_timeout(Millis(10_000))
            .progress_timeout(Millis(15_000))
    }

    #[test]
    fn silence_counts_from_the_last_datagram() {
        let mut d = Deadlines::default();
        assert_eq!(d.next(&cfg(), false), None);
        assert_eq!(d.expired(Millis(100), &cfg(), false), None);
        d.heard(Millis(3000));
        assert_eq!(d.next(&cfg(), false), Some(Millis(8000)));
        assert_eq!(d.expired(Millis(7999), &cfg(), false), None);
        assert_eq!(
            d.expired(Millis(8000), &cfg(), false),
            Some(Expired::Silence(Millis(5000)))
        );
        // A datagram stamped earlier than the last does not move it back.
        d.heard(Millis(2000));
        assert_eq!(d.next(&cfg(), false), Some(Millis(8000)));
    }

    #[test]
    fn the_handshake_deadline_counts_from_the_first_call_and_only_before_the_start() {
        let mut d = Deadlines::default();
        assert_eq!(d.expired(Millis(1000), &cfg(), true), None);
        for t in (1000..11_000).step_by(1000) {
            d.heard(Millis(t));
        }
        assert_eq!(d.next(&cfg(), true), Some(Millis(11_000)));
        assert_eq!(
            d.expired(Millis(11_000), &cfg(), true),
            Some(Expired::Handshake(Millis(10_000)))
        );
        assert_eq!(d.expired(Millis(11_000), &cfg(), false), None);
    }

    #[test]
    fn progress_counts_from_the_first_stalled_frame_until_progress() {
        let mut d = Deadlines::default();
        d.heard(Millis(0));
        d.stalled(Millis(100));
        d.stalled(Millis(200));
        for t in (0..16_000).step_by(1000) {
            d.heard(Millis(t));
        }
        assert_eq!(
            d.expired(Millis(15_100), &cfg(), false),
            Some(Expired::Progress(Millis(15_000)))
        );
        d.progressed();
        assert_eq!(d.expired(Millis(15_100), &cfg(), false), None);
    }
}
